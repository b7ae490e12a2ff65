//! The compressed output reaches the model of a real agent, and nothing
//! else changes: Claude Code (`claude -p`) and Codex (`codex exec`) from the
//! npm registry, each driven by a mock model server (tests/agents/model.rs)
//! that asks for one shell command and records the tool result the agent
//! sends back. tokensieve is installed the documented way only (install.sh,
//! then `tokensieve init AGENT`) into a fake HOME, and the agent is started
//! with a PATH that does not hold the shim folder, as from a desktop
//! launcher. The real aws CLI talks to a local moto server.
//!
//! scripts/test.sh installs both CLIs once (cached) and exports their folder
//! as TOKENSIEVE_TEST_AGENTS; without it these tests are skipped, except
//! under CI.

mod common;
#[path = "agents/model.rs"]
mod model;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::aws::{Moto, venv};
use common::{BIN, output_within};
use model::{Api, Model, prompt};

const AGENT_LIMIT: Duration = Duration::from_secs(240);

fn agents_bin() -> Option<PathBuf> {
    common::prepared_dir("TOKENSIEVE_TEST_AGENTS", "real-agent tests")
}

fn tokens(text: &str) -> usize {
    tiktoken_rs::cl100k_base_singleton().encode_ordinary(text).len()
}

const AWS_ENV: &[(&str, &str)] = &[
    ("AWS_ACCESS_KEY_ID", "testing"),
    ("AWS_SECRET_ACCESS_KEY", "testing"),
    ("AWS_DEFAULT_REGION", "us-east-1"),
    ("AWS_PAGER", ""),
];

/// Everything one agent's run of the cases needs.
struct World {
    dir: tempfile::TempDir,
    agents: PathBuf,
    venv: PathBuf,
    moto: Moto,
    /// Folders an agent's commands need besides the system ones (aws, cargo).
    user_path: String,
    vpcs: usize,
    failing_code: i32,
}

impl World {
    fn new() -> Option<World> {
        let agents = agents_bin()?;
        let venv = venv()?;
        let moto = Moto::start(&venv);
        let cargo = Path::new(&std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .parent()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let user_path = format!("{}:{cargo}", venv.display());
        let dir = tempfile::tempdir().unwrap();
        let mut w = World { dir, agents, venv, moto, user_path, vpcs: 0, failing_code: 0 };
        // As in the measurement: moto's default VPC and three more.
        for cidr in ["10.1.0.0/16", "10.2.0.0/16", "10.3.0.0/16"] {
            let out = w.aws(&["ec2", "create-vpc", "--cidr-block", cidr]);
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        }
        let listed: serde_json::Value =
            serde_json::from_slice(&w.aws(&["ec2", "describe-vpcs"]).stdout).unwrap();
        w.vpcs = listed["Vpcs"].as_array().unwrap().len();
        let failing = w.aws(&["ec2", "describe-vpcs", "--vpc-ids", "vpc-doesnotexist"]);
        w.failing_code = failing.status.code().unwrap();
        w.failing_crate();
        Some(w)
    }

    /// The real aws CLI, straight (no shim).
    fn aws(&self, args: &[&str]) -> std::process::Output {
        let mut cmd = Command::new(self.venv.join("aws"));
        cmd.args(args).args(["--endpoint-url", &self.moto.endpoint]).envs(AWS_ENV.iter().copied());
        cmd.env("AWS_CONFIG_FILE", self.path("aws-config"))
            .env("AWS_SHARED_CREDENTIALS_FILE", self.path("aws-cred"));
        output_within(&mut cmd, Duration::from_secs(120))
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The agent's working folder: a crate with one failing test (case g).
    fn project(&self) -> PathBuf {
        self.path("project")
    }

    fn failing_crate(&self) {
        let proj = self.project();
        fs::create_dir_all(proj.join("src")).unwrap();
        fs::write(
            proj.join("Cargo.toml"),
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .unwrap();
        let lib = "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    \
                   fn adds_two_numbers() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n\n    #[test]\n    \
                   fn zero_is_neutral() {\n        assert_eq!(super::add(5, 0), 5);\n    }\n}\n";
        fs::write(proj.join("src/lib.rs"), lib).unwrap();
    }

    /// A user's HOME: aws and cargo on their own PATH line; with `agent`,
    /// tokensieve installed the documented way for that agent.
    fn home(&self, name: &str, agent: Option<&str>) -> PathBuf {
        let home = self.path(name);
        fs::create_dir_all(&home).unwrap();
        let line = format!("PATH=\"$PATH:{}\"; export PATH  # the user's own tools\n", self.user_path);
        fs::write(home.join(".profile"), &line).unwrap();
        fs::write(home.join(".bashrc"), &line).unwrap();
        let Some(agent) = agent else { return home };
        let mut install = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/install.sh"));
        install.args(["aws", "kubectl"]);
        self.user_env(&mut install, &home).env("TOKENSIEVE_BINARY", BIN);
        let out = output_within(&mut install, Duration::from_secs(120));
        assert!(out.status.success(), "install.sh: {}", String::from_utf8_lossy(&out.stderr));
        let mut init = Command::new(home.join(".tokensieve/bin/tokensieve"));
        init.args(["init", agent]);
        let out = output_within(self.user_env(&mut init, &home), Duration::from_secs(60));
        assert!(out.status.success(), "init {agent}: {}", String::from_utf8_lossy(&out.stderr));
        home
    }

    /// An environment with nothing of ours in it: HOME, a system PATH plus
    /// the user's tools, the agent's config folder.
    fn user_env<'a>(&self, cmd: &'a mut Command, home: &Path) -> &'a mut Command {
        cmd.env_clear()
            .env("HOME", home)
            .env("PATH", format!("{}:/usr/local/bin:/usr/bin:/bin:{}", self.agents.display(), self.user_path))
            .env("CODEX_HOME", home.join(".codex"))
            .envs(AWS_ENV.iter().copied())
            .envs(
                ["RUSTUP_HOME", "CARGO_HOME", "LANG", "TMPDIR"]
                    .iter()
                    .filter_map(|k| std::env::var_os(k).map(|v| (*k, v))),
            )
            .env("CARGO_TARGET_DIR", self.path("target"))
            .current_dir(self.project())
            .stdin(Stdio::null())
    }

    /// Runs one case through `agent` and returns the tool result its model got.
    fn run(&self, agent: Agent, model: &Model, home: &Path, case: &str, command: &str) -> String {
        let mut cmd = Command::new(self.agents.join(agent.binary()));
        self.user_env(&mut cmd, home);
        match agent {
            Agent::Claude => {
                cmd.args(["-p", &prompt(case, command), "--dangerously-skip-permissions"])
                    .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{}", model.port))
                    .env("ANTHROPIC_API_KEY", "test")
                    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                    .env("DISABLE_AUTOUPDATER", "1")
                    .env("SHELL", "/bin/bash");
                // As root it refuses to skip permissions outside a sandbox.
                // SAFETY: geteuid has no preconditions.
                if unsafe { libc::geteuid() } == 0 {
                    cmd.env("IS_SANDBOX", "1");
                }
            }
            Agent::Codex => {
                let codex_home = home.join(".codex");
                fs::create_dir_all(&codex_home).unwrap();
                let config = format!(
                    "model = \"mock-model\"\nmodel_provider = \"mock\"\n[model_providers.mock]\nname = \"mock\"\n\
                     base_url = \"http://127.0.0.1:{}/v1\"\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n",
                    model.port
                );
                fs::write(codex_home.join("config.toml"), config).unwrap();
                cmd.args(["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"])
                    .arg(prompt(case, command))
                    .env("MOCK_API_KEY", "test")
                    .env("SHELL", "/bin/bash");
            }
        }
        let out = output_within(&mut cmd, AGENT_LIMIT);
        model.tool_result(case, Duration::from_secs(10)).unwrap_or_else(|| {
            panic!(
                "{agent:?} case {case}: no tool result reached the model (agent exit {:?})\nstdout: {}\nstderr: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }
}

#[derive(Clone, Copy, Debug)]
enum Agent {
    Claude,
    Codex,
}

impl Agent {
    fn binary(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
        }
    }

    fn api(self) -> Api {
        match self {
            Agent::Claude => Api::Anthropic,
            Agent::Codex => Api::OpenAi,
        }
    }
}

/// The short receipt an agent reads, if the text holds one.
fn receipt(text: &str) -> Option<&str> {
    text.lines().find(|l| l.starts_with("[tokensieve ") || l.starts_with("[TokenSieve]"))
}

/// A line of the text that is exactly `want`.
fn has_line(text: &str, want: &str) -> bool {
    text.lines().any(|l| l.trim() == want)
}

fn cases(agent: Agent) {
    let Some(w) = World::new() else { return };
    let model = Model::start(agent.api());
    let home = w.home(&format!("home-{}", agent.binary()), Some(agent.binary()));
    let describe = format!("aws ec2 describe-vpcs --endpoint-url {}", w.moto.endpoint);
    let count = "python3 -c \"import json,sys; print(len(json.load(sys.stdin)['Vpcs']))\"";
    let count_file =
        |f: &str| format!("python3 -c \"import json; print(len(json.load(open('{f}'))['Vpcs']))\"");
    let n = w.vpcs.to_string();
    let run = |case: &str, command: &str| w.run(agent, &model, &home, case, command);

    // a. Compressed, with the receipt, at most 40 % of the raw call's tokens.
    let a = run("a", &describe);
    let line = receipt(&a).unwrap_or_else(|| panic!("{agent:?} a: no receipt in\n{a}"));
    assert!(line.starts_with("[tokensieve ") && line.contains(" raw "), "{agent:?} a: {line}");
    assert!(a.contains(&format!("Vpcs[{n}]")) && !a.contains("\"Vpcs\": ["), "{agent:?} a:\n{a}");
    let raw_home = w.home(&format!("raw-{}", agent.binary()), None);
    let raw_model = Model::start(agent.api());
    let e = w.run(agent, &raw_model, &raw_home, "e", &describe);
    assert!(e.contains("\"Vpcs\": [") && receipt(&e).is_none(), "{agent:?} e (no tokensieve):\n{e}");
    let ratio = tokens(&a) as f64 / tokens(&e) as f64;
    eprintln!(
        "{agent:?}: case a {} tokens, without tokensieve {} ({:.0} %)",
        tokens(&a),
        tokens(&e),
        ratio * 100.0
    );
    assert!(ratio <= 0.40, "{agent:?}: case a is {:.0} % of the raw call", ratio * 100.0);
    // The note about the receipt reached the model too.
    assert!(model.saw("tokensieve show ID"), "{agent:?}: the instructions never reached the model");

    // b. Piped into a program: it got the raw JSON.
    let b = run("b", &format!("{describe} | {count}"));
    assert!(has_line(&b, &n) && receipt(&b).is_none(), "{agent:?} b:\n{b}");

    // c. A failing call: the CLI's own message and exit code.
    let c = run(
        "c",
        &format!("aws ec2 describe-vpcs --vpc-ids vpc-doesnotexist --endpoint-url {}", w.moto.endpoint),
    );
    let code = w.failing_code;
    assert!(c.contains("InvalidVpcID.NotFound"), "{agent:?} c:\n{c}");
    assert!(
        c.contains(&format!("Exit code {code}")) || c.contains(&format!("exited with code {code}")),
        "{agent:?} c: exit code {code} not reported:\n{c}"
    );

    // d. Command substitution: the shell got the raw bytes.
    let d = run("d", &format!("x=$({describe}); echo \"$x\" | head -3"));
    assert!(d.contains("\"Vpcs\": [") && receipt(&d).is_none(), "{agent:?} d:\n{d}");

    // e. Redirects, plain and of a group: the file holds the raw JSON.
    let e1 = run("e1", &format!("{describe} > out.json && {}", count_file("out.json")));
    assert!(has_line(&e1, &n) && receipt(&e1).is_none(), "{agent:?} e1:\n{e1}");
    let e2 = run("e2", &format!("{{ {describe}; }} > out2.json && {}", count_file("out2.json")));
    assert!(has_line(&e2, &n) && receipt(&e2).is_none(), "{agent:?} e2:\n{e2}");

    // f. Another shimmed tool with JSON output.
    let f =
        run("f", "kubectl create deployment web --image=nginx:1.27 --replicas=3 --dry-run=client -o json");
    assert!(
        receipt(&f).is_some() && f.contains("nginx:1.27") && !f.contains("\"kind\": \""),
        "{agent:?} f:\n{f}"
    );

    // g. A text tool through `tokensieve run`: the failing test, the status.
    let g = run("g", "tokensieve run -- cargo test");
    assert!(g.contains("adds_two_numbers") && g.contains("exit 101"), "{agent:?} g:\n{g}");
    assert!(!g.contains("Compiling demo") || receipt(&g).is_some(), "{agent:?} g:\n{g}");
}

#[test]
fn claude_code_reads_compressed_output() {
    cases(Agent::Claude);
}

#[test]
fn codex_reads_compressed_output() {
    cases(Agent::Codex);
}
