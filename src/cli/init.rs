//! `tokensieve init AGENT [--uninstall]`: make an agent's shell find the
//! shims, and tell its model what the receipt means (`src/agents/`);
//! `init claude --mcp` registers `tokensieve mcp` as its MCP server instead.
//! `init` alone lists the agents and whether each is set up.

use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};

use super::out::outln;

use super::args::InitArgs;
use super::install::home;
use crate::agents::{Agent, Context};

pub(crate) fn run(args: InitArgs) -> Result<ExitCode> {
    let InitArgs { agents: names, uninstall, mcp, json } = args;
    if !names.is_empty() && json {
        bail!("--json goes with the listing (tokensieve init --json), not with AGENT");
    }
    let ctx = Context::from_env(&home()?).context("HOME is not set")?;
    if names.is_empty() {
        if uninstall || mcp {
            bail!("name the agent (tokensieve init AGENT --uninstall, tokensieve init claude --mcp)");
        }
        if json {
            let list: Vec<_> = Agent::ALL
                .iter()
                .map(|a| {
                    let installed = a.installed(&ctx);
                    let check = a.check(&ctx);
                    serde_json::json!({
                        "agent": a.name(),
                        "installed": installed,
                        "set_up": installed && check.is_ok(),
                        "detail": match check { Ok(how) => how.to_string(), Err(why) => why },
                    })
                })
                .collect();
            super::out::text(&format!("{:#}\n", serde_json::Value::Array(list)))?;
            return Ok(ExitCode::SUCCESS);
        }
        for agent in Agent::ALL {
            outln!("{}", status_line(*agent, &ctx))?;
        }
        outln!("set one up: tokensieve init AGENT   (undo: tokensieve init AGENT --uninstall)")?;
        return Ok(ExitCode::SUCCESS);
    }
    let agents: Vec<Agent> = names
        .iter()
        .map(|n| {
            Agent::parse(n).with_context(|| {
                let known: Vec<&str> = Agent::ALL.iter().map(|a| a.name()).collect();
                format!("unknown agent '{n}' (known: {})", known.join(", "))
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
            outln!("{}: {}: {}", agent.name(), edit.path.display(), outcome.describe())?;
        }
        if !uninstall {
            if let Some(note) = agent.after_init() {
                outln!("{}: {note}", agent.name())?;
            }
            match agent.check(&ctx) {
                Ok(how) => outln!("{}: {how}", agent.name())?,
                Err(why) => outln!("{}: not yet: {why}", agent.name())?,
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `init claude --mcp [--uninstall]`: register `tokensieve mcp` as the
/// agent's MCP server (a reversible edit like the others), or take it out.
fn init_mcp(agents: &[Agent], ctx: &Context, uninstall: bool) -> Result<ExitCode> {
    if agents.iter().any(|a| *a != Agent::Claude) {
        bail!("--mcp: only claude is supported (its user-scoped MCP servers)");
    }
    let edits = crate::agents::claude::mcp_edits(ctx);
    for edit in &edits {
        edit.check(uninstall)?;
    }
    for edit in edits {
        let outcome = if uninstall { edit.undo()? } else { edit.setup()? };
        outln!("claude: {}: {}", edit.path.display(), outcome.describe())?;
    }
    if !uninstall {
        outln!(
            "claude: MCP server '{}' (tools run, show, recall); `claude mcp list` checks it",
            crate::agents::claude::MCP_NAME
        )?;
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
        Err(why) => format!(
            "  {}: installed; {}: {why}",
            agent.name(),
            super::out::paint("PROBLEM", super::out::Style::Bad, super::out::Stream::Stdout)
        ),
    }
}
