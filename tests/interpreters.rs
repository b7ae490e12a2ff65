//! Interpreters behind a shim behave as without it (issue 22): the real
//! tool is started with argv[0] the path the shell would have found, as
//! version managers' shims do, so an interpreter that finds its home from
//! argv[0] (python and its virtualenv's `pyvenv.cfg`) finds the same one.
//! The shim folder comes first on PATH, the activated environment after it,
//! as after `install.sh` and `source venv/bin/activate`.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;

const LIMIT: Duration = Duration::from_secs(120);

/// PATH: the sandbox's shims, then `env_bin` (the activated environment),
/// then the caller's PATH.
fn path_with(sb: &Sandbox, env_bin: &Path) -> std::ffi::OsString {
    let mut dirs: Vec<PathBuf> = vec![sb.shims.clone(), env_bin.to_path_buf()];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(dirs).unwrap()
}

/// `bash -c script` as an agent reading its stdout through a pipe, with
/// the environment `bin` folder activated after the shims.
fn agent_run(sb: &Sandbox, bin: &Path, script: &str) -> (String, String) {
    let mut cmd = sb.agent("bash");
    cmd.arg("-c").arg(script).env("PATH", path_with(sb, bin)).current_dir(sb.dir.path());
    cmd.stdin(Stdio::null());
    let out = output_within(&mut cmd, LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{script}:\n{stdout}\n{stderr}");
    (stdout, stderr)
}

/// A python3 that can make a virtualenv, or `None` (the test says so).
fn python() -> Option<String> {
    let ok =
        Command::new("python3").args(["-m", "venv", "--help"]).output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("note: no python3 with venv here, skipped");
    }
    ok.then(|| "python3".to_string())
}

#[test]
fn python_in_an_activated_venv_keeps_its_prefix_and_modules() {
    let Some(py) = python() else { return };
    let sb = Sandbox::new();
    let venv = sb.path("venv");
    let made = Command::new(&py).args(["-m", "venv", "--without-pip"]).arg(&venv).output().unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let venv = venv.canonicalize().unwrap();
    // A module only the venv has, run the way `python -m pytest` is run.
    let site = fs::read_dir(venv.join("lib"))
        .unwrap()
        .map(|e| e.unwrap().path().join("site-packages"))
        .find(|p| p.is_dir())
        .unwrap();
    fs::write(site.join("venvonly.py"), "import sys\nprint('venvonly ran under', sys.prefix)\n").unwrap();
    for name in ["python", "python3"] {
        sb.shim(name);
        let (out, _) =
            agent_run(&sb, &venv.join("bin"), &format!("{name} -c 'import sys; print(sys.prefix)'"));
        assert_eq!(out.trim_end(), venv.to_string_lossy(), "{name}: sys.prefix");
        let (out, err) = agent_run(&sb, &venv.join("bin"), &format!("{name} -m venvonly"));
        assert_eq!(out.trim_end(), format!("venvonly ran under {}", venv.display()), "{name} -m: {err}");
    }
    // The real pytest, when the session bench's environment has one.
    let bench = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/tokensieve-session-bench"));
    let pyvenv = bench.and_then(|b| fs::read_dir(b).ok()).into_iter().flatten().find_map(|e| {
        let p = e.ok()?.path();
        (p.file_name()?.to_string_lossy().starts_with("pyvenv-") && p.join("bin/pytest").exists())
            .then_some(p)
    });
    match pyvenv {
        Some(env) => {
            fs::write(sb.path("test_one.py"), "def test_one():\n    assert 1 + 1 == 2\n").unwrap();
            let (out, err) = agent_run(&sb, &env.join("bin"), "python -m pytest -q test_one.py");
            assert!(out.contains("1 passed"), "{out}\n{err}");
        }
        None => eprintln!("note: no session-bench venv with pytest here, the real pytest run skipped"),
    }
}

#[test]
fn node_and_ruby_find_themselves_where_the_shell_would() {
    let sb = Sandbox::new();
    let cases = [
        ("node", "node -e 'console.log(process.execPath)'"),
        ("ruby", "ruby -e 'require \"rbconfig\"; puts RbConfig.ruby'"),
    ];
    for (name, script) in cases {
        let Some(real) = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join(name))
            .find(|p| p.is_file())
        else {
            eprintln!("note: no {name} here, skipped");
            continue;
        };
        // What it says about itself without tokensieve...
        let plain = Command::new("bash").arg("-c").arg(script).output().unwrap();
        assert!(plain.status.success());
        // ... and through the shim, the real tool's folder activated after it.
        sb.shim(name);
        let (out, err) = agent_run(&sb, real.parent().unwrap(), script);
        assert_eq!(out, String::from_utf8_lossy(&plain.stdout), "{name}: {err}");
    }
}
