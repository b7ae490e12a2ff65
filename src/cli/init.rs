//! `tokensieve init AGENT [--uninstall]`: make an agent's shell find the
//! shims, and tell its model what the receipt means (`src/agents/`);
//! `init claude --mcp` registers `tokensieve mcp` as its MCP server instead.
//! `init` alone lists the agents and whether each is set up.

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};

use super::install::home;
use crate::agents::{Agent, Context};

pub(crate) fn run(args: Vec<OsString>) -> Result<ExitCode> {
    let mut names = Vec::new();
    let mut uninstall = false;
    let mut mcp = false;
    for arg in &args {
        match arg.to_str() {
            Some("--uninstall") => uninstall = true,
            Some("--mcp") => mcp = true,
            Some(a) if a.starts_with('-') => bail!("init: unknown option '{a}'"),
            Some(a) => names.push(a.to_owned()),
            None => bail!("init: arguments must be UTF-8"),
        }
    }
    let ctx = Context::from_env(&home()?).context("HOME is not set")?;
    if names.is_empty() {
        if uninstall {
            bail!("init --uninstall: name the agent (tokensieve init AGENT --uninstall)");
        }
        for agent in Agent::ALL {
            println!("{}", status_line(*agent, &ctx));
        }
        println!("set one up: tokensieve init AGENT   (undo: tokensieve init AGENT --uninstall)");
        return Ok(ExitCode::SUCCESS);
    }
    let agents: Vec<Agent> = names
        .iter()
        .map(|n| {
            Agent::parse(n).with_context(|| {
                let known: Vec<&str> = Agent::ALL.iter().map(|a| a.name()).collect();
                format!("init: unknown agent '{n}' (known: {})", known.join(", "))
            })
        })
        .collect::<Result<_>>()?;
    if mcp {
        return init_mcp(&agents, &ctx, uninstall);
    }
    for agent in &agents {
        for edit in agent.edits(&ctx) {
            edit.check(uninstall)?;
        }
    }
    for agent in agents {
        for edit in agent.edits(&ctx) {
            let outcome = if uninstall { edit.undo()? } else { edit.setup()? };
            println!("{}: {}: {}", agent.name(), edit.path.display(), outcome.describe());
        }
        if !uninstall {
            if let Some(note) = agent.after_init() {
                println!("{}: {note}", agent.name());
            }
            match agent.check(&ctx) {
                Ok(how) => println!("{}: {how}", agent.name()),
                Err(why) => println!("{}: not yet: {why}", agent.name()),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `init claude --mcp [--uninstall]`: register `tokensieve mcp` as the
/// agent's MCP server (a reversible edit like the others), or take it out.
fn init_mcp(agents: &[Agent], ctx: &Context, uninstall: bool) -> Result<ExitCode> {
    if agents.iter().any(|a| *a != Agent::Claude) {
        bail!("init --mcp: only claude is supported (its user-scoped MCP servers)");
    }
    let edits = crate::agents::claude::mcp_edits(ctx);
    for edit in &edits {
        edit.check(uninstall)?;
    }
    for edit in edits {
        let outcome = if uninstall { edit.undo()? } else { edit.setup()? };
        println!("claude: {}: {}", edit.path.display(), outcome.describe());
    }
    if !uninstall {
        println!(
            "claude: MCP server '{}' (tools run, show, recall); `claude mcp list` checks it",
            crate::agents::claude::MCP_NAME
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// One line per agent for `init` and `doctor`: installed, and whether a
/// command it runs would find the shims.
pub(crate) fn status_line(agent: Agent, ctx: &Context) -> String {
    if !agent.installed(ctx) {
        return format!("  {}: not installed", agent.name());
    }
    match agent.check(ctx) {
        Ok(how) => format!("  {}: installed; {how}", agent.name()),
        Err(why) => format!("  {}: installed; PROBLEM: {why}", agent.name()),
    }
}
