//! Writes the Codex rollout fixture (fixtures/sessions/codex/): the real
//! `codex exec` (scripts/test.sh installs it) driven by the mock model
//! server (tests/agents/model.rs), asked for two shell commands, one of
//! them through `tokensieve run`. Not a test: run by
//! fixtures/sessions/codex/repro.sh, which sets TOKENSIEVE_CAPTURE_CODEX.

mod common;
#[path = "agents/model.rs"]
#[allow(dead_code)] // the Anthropic side serves tests/agents_e2e.rs
mod model;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use model::{Api, Model, prompt};

/// A listing of records as a program prints it (JSON, indented).
const RECORDS: &str = "python3 -c \"import json; print(json.dumps([{'id': i, 'name': 'worker-%d' % i, \
                       'state': 'running', 'zone': 'eu-west-1a', 'tags': {'team': 'infra'}} for i in range(30)], \
                       indent=2))\"";

#[test]
#[ignore = "writes the fixture; run by fixtures/sessions/codex/repro.sh"]
fn capture_codex_rollout() {
    let Some(out_dir) = std::env::var_os("TOKENSIEVE_CAPTURE_CODEX").map(PathBuf::from) else { return };
    let agents = common::prepared_dir("TOKENSIEVE_TEST_AGENTS", "the codex capture").expect("agents");
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let codex_home = home.join(".codex");
    fs::create_dir_all(&codex_home).unwrap();
    let bin = Path::new(common::BIN).parent().unwrap();
    // Codex's shell is a login shell: its PATH comes from ~/.profile.
    fs::write(home.join(".profile"), format!("PATH=\"{}:$PATH\"; export PATH\n", bin.display())).unwrap();
    let model = Model::start(Api::OpenAi);
    fs::write(
        codex_home.join("config.toml"),
        format!(
            "model = \"mock-model\"\nmodel_provider = \"mock\"\n[model_providers.mock]\nname = \"mock\"\n\
             base_url = \"http://127.0.0.1:{}/v1\"\nwire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n",
            model.port
        ),
    )
    .unwrap();
    let cases = [("plain", RECORDS.to_owned()), ("through", format!("tokensieve run -- {RECORDS}"))];
    for (case, command) in &cases {
        let mut cmd = Command::new(agents.join("codex"));
        cmd.env_clear()
            .env("HOME", &home)
            .env("CODEX_HOME", &codex_home)
            .env("PATH", format!("{}:{}:/usr/local/bin:/usr/bin:/bin", agents.display(), bin.display()))
            .env("MOCK_API_KEY", "test")
            .env("SHELL", "/bin/bash")
            .env("TOKENSIEVE_HOME", dir.path().join("ts"))
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .args(["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"])
            .arg(prompt(case, command));
        let out = common::output_within(&mut cmd, Duration::from_secs(240));
        assert!(
            model.tool_result(case, Duration::from_secs(10)).is_some(),
            "codex {case}: no tool result\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let rollouts = common::files_under(&codex_home.join("sessions"), "jsonl");
    assert_eq!(rollouts.len(), cases.len(), "{rollouts:?}");
    fs::create_dir_all(&out_dir).unwrap();
    for (path, (case, _)) in rollouts.iter().zip(&cases) {
        // The temp folder's name varies from run to run: one fixed name.
        let text =
            fs::read_to_string(path).unwrap().replace(&dir.path().display().to_string(), "/tmp/capture");
        fs::write(out_dir.join(format!("rollout-{case}.jsonl")), text).unwrap();
    }
}
