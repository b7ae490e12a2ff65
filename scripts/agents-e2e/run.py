#!/usr/bin/env python3
"""End-to-end runs of real agent CLIs with tokensieve set up the documented
way (install.sh + `tokensieve init AGENT`), each agent started with a PATH
that does NOT hold the shim folder, as from a desktop launcher or a shell
older than the install. A scripted model (mock_model.py) asks each agent for
one shell command and keeps the tool result the agent sends back; the real
AWS CLI talks to a local moto server.

Agents: gemini (@google/gemini-cli), opencode (opencode-ai), copilot
(@github/copilot), installed from npm once into
~/.cache/tokensieve/agents-more/<agent> (override: TOKENSIEVE_AGENTS_CACHE).

Cases, each judged on what the model received:
  compressed  aws ec2 describe-vpcs            -> compact form + receipt,
                                                  no pretty JSON
  pipe        aws ... | python3 -c 'count'     -> the count (raw JSON went
                                                  into python)
  error       aws ... --vpc-ids vpc-missing    -> the CLI's own error
  show        tokensieve show ID               -> the raw bytes again (the
                                                  note tells models to do so)
  note        the note `init` writes for the model is in what the agent
              sent the model (its instructions or memory file was read)
and, once per agent, the same describe-vpcs with a HOME without tokensieve
(the baseline the token ratio is measured against) and with a HOME where
install.sh ran but `tokensieve init AGENT` did not (the control: it shows
what `init` adds; Copilot CLI needs nothing more than install.sh).

usage: scripts/agents-e2e/run.py [--agents gemini,opencode,copilot]
           [--binary target/x86_64-unknown-linux-gnu/release/tokensieve] [--work DIR] [--keep]
Needs: node + npm, python3, the aws venv of scripts/test.sh
(~/.cache/tokensieve/aws-venv, or TOKENSIEVE_AWS_VENV_DIR). Token counts use
tokcount when found (TOKENSIEVE_TOKCOUNT, or ../shared/tools/tokcount), else
the receipt's own counts. Writes WORK/results.json and prints a table;
exits 1 when a case fails. Every process it starts is stopped by its pid.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CACHE = Path(os.environ.get("TOKENSIEVE_AGENTS_CACHE", Path.home() / ".cache/tokensieve/agents-more"))
VENV = Path(os.environ.get("TOKENSIEVE_AWS_VENV_DIR", Path.home() / ".cache/tokensieve/aws-venv")) / "bin"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
AWS_ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
           "AWS_DEFAULT_REGION": "us-east-1", "AWS_PAGER": ""}
PACKAGES = {"gemini": ("@google/gemini-cli", "gemini"), "opencode": ("opencode-ai", "opencode"),
            "copilot": ("@github/copilot", "copilot")}
RECEIPT = re.compile(r"\[tokensieve[^\]\n]*\]", re.I)
RAW_ID = re.compile(r"raw:? ([0-9a-f]{6,})")
STARTED = []


def start(cmd, log, env=None):
    proc = subprocess.Popen(cmd, stdout=open(log, "w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, start_new_session=True)
    STARTED.append(proc)
    return proc


def stop_all():
    for proc in reversed(STARTED):
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def agent_cli(agent):
    """The agent's command, installed from npm into the cache once."""
    package, command = PACKAGES[agent]
    prefix = CACHE / agent
    exe = prefix / "node_modules/.bin" / command
    if not exe.exists():
        print(f"installing {package} into {prefix} (once)", file=sys.stderr)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(prefix), package],
                       check=True, timeout=1200, capture_output=True)
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=120,
                             env=dict(os.environ, HOME=tempfile.gettempdir()))
    found = re.search(r"\d+\.\d+\.\d+", version.stdout)
    return exe, found.group(0) if found else "?"


def moto(work):
    port = free_port()
    start([str(VENV / "moto_server"), "-H", "127.0.0.1", "-p", str(port)], work / "moto.log")
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, **AWS_ENV)
    for _ in range(150):
        if subprocess.run([str(VENV / "aws"), "ec2", "describe-vpcs", "--endpoint-url", url], env=env,
                          capture_output=True, timeout=60).returncode == 0:
            break
        time.sleep(0.2)
    else:
        raise SystemExit("moto_server did not answer")
    for i in (1, 2, 3):
        subprocess.run([str(VENV / "aws"), "ec2", "create-vpc", "--cidr-block", f"10.{i}.0.0/16",
                        "--endpoint-url", url], env=env, check=True, capture_output=True, timeout=60)
    return url


def mock(work):
    out = work / "model"
    start([sys.executable, str(HERE / "mock_model.py"), str(out)], work / "model.log")
    for _ in range(200):
        if (out / "port").exists() and (out / "port").read_text().strip():
            return out, int((out / "port").read_text())
        time.sleep(0.05)
    raise SystemExit("mock model server did not start")


def user_config(agent, home, port):
    """What a user of the agent already has, before tokensieve: the model
    provider (here the mock) and quiet settings."""
    if agent == "gemini":
        (home / ".gemini").mkdir(parents=True, exist_ok=True)
        (home / ".gemini/settings.json").write_text(json.dumps({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        }, indent=2) + "\n")
    elif agent == "opencode":
        (home / ".config/opencode").mkdir(parents=True, exist_ok=True)
        (home / ".config/opencode/opencode.json").write_text(json.dumps({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "Mock",
                                  "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": "test"},
                                  "models": {"mock-model": {"name": "Mock", "tool_call": True,
                                                            "limit": {"context": 100000, "output": 4096}}}}},
            "model": "mock/mock-model", "small_model": "mock/mock-model",
            "permission": {"bash": "allow", "edit": "allow", "external_directory": "allow"},
            "autoupdate": False, "share": "disabled",
        }, indent=2) + "\n")


def make_home(path, agent, port, binary, init=True):
    """A user's HOME; with `binary`, tokensieve set up the documented way
    (`init`: and `tokensieve init AGENT` after install.sh)."""
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    for rc in (".profile", ".bashrc"):
        (path / rc).write_text(f'PATH="$PATH:{VENV}"; export PATH  # where this user has aws\n')
    user_config(agent, path, port)
    if binary is None:
        return None
    env = dict(os.environ, HOME=str(path), TOKENSIEVE_BINARY=str(binary), PATH=f"{VENV}:{os.environ['PATH']}")
    env.pop("TOKENSIEVE_HOME", None)
    setup = subprocess.run([str(ROOT / "install.sh"), "aws"], env=env, capture_output=True, text=True, timeout=300)
    init = subprocess.run([str(path / ".tokensieve/bin/tokensieve"), "init", agent] if init else ["true"],
                          env=env, capture_output=True, text=True, timeout=120)
    (path.parent / f"setup-{path.name}.log").write_text(setup.stdout + setup.stderr + init.stdout + init.stderr)
    if setup.returncode != 0 or init.returncode != 0:
        raise SystemExit(f"setting up {path} failed: {setup.stderr}{init.stderr}")
    return path / ".tokensieve/bin"


def launch(agent, exe, prompt, home, port):
    """argv and environment of an agent started from a desktop launcher:
    its own folder, the user's aws and the system folders on PATH."""
    env = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TERM", "TMPDIR", "USER", "LOGNAME")}
    env.update(AWS_ENV, HOME=str(home), SHELL="/bin/bash", PATH=f"{exe.parent}:{VENV}:{SYSTEM_PATH}")
    if agent == "gemini":
        env.update(GEMINI_API_KEY="test", GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{port}")
        return [str(exe), "-p", prompt, "-y", "--skip-trust", "-m", "gemini-2.5-flash"], env
    if agent == "opencode":
        env.update(OPENCODE_DISABLE_AUTOUPDATE="1", OPENCODE_DISABLE_MODELS_FETCH="1",
                   OPENCODE_DISABLE_LSP_DOWNLOAD="1", OPENCODE_DISABLE_SHARE="1")
        return [str(exe), "run", "-m", "mock/mock-model", prompt], env
    env.update(COPILOT_PROVIDER_BASE_URL=f"http://127.0.0.1:{port}/v1", COPILOT_PROVIDER_API_KEY="test",
               COPILOT_MODEL="gpt-4.1", COPILOT_OFFLINE="true", COPILOT_AUTO_UPDATE="false")
    return [str(exe), "-p", prompt, "--allow-all", "--no-ask-user"], env


def ask(agent, exe, run_id, command, home, port, model_out, work, timeout):
    """One agent run; the tool result the model received ('' if none)."""
    prompt = f"RUN={run_id}\n<<<CMD\n{command}\nCMD>>>"
    argv, env = launch(agent, exe, prompt, home, port)
    project = work / f"project-{agent}"
    project.mkdir(exist_ok=True)
    with open(work / f"{run_id}.agent.log", "w") as log:
        proc = subprocess.Popen(argv, env=env, cwd=project, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    result = model_out / f"{run_id}.txt"
    return result.read_text() if result.exists() else ""


def note_reached_model(model_out, run_id):
    """Whether a request of this run carried the note `init` writes."""
    for line in open(model_out / "requests.jsonl"):
        if f"RUN={run_id}" in line and "tokensieve show ID" in line:
            return True
    return False


def count_tokens(text, work):
    tool = os.environ.get("TOKENSIEVE_TOKCOUNT", str(ROOT.parent / "shared/tools/tokcount/target/release/tokcount"))
    if not Path(tool).exists():
        return None
    path = work / "count.txt"
    path.write_text(text)
    out = subprocess.run([tool, str(path)], capture_output=True, text=True, timeout=60).stdout
    return int(out.split("\t")[0]) if out else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agents", default="gemini,opencode,copilot")
    ap.add_argument("--binary", default=str(ROOT / "target" / os.environ.get("CARGO_BUILD_TARGET", "x86_64-unknown-linux-gnu") / "release/tokensieve"))
    ap.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "tokensieve-agents-e2e"))
    ap.add_argument("--timeout", type=int, default=240)
    ap.add_argument("--keep", action="store_true", help="keep WORK (homes, logs, requests) afterwards")
    a = ap.parse_args()
    binary = Path(a.binary).resolve()
    if not binary.exists():
        raise SystemExit(f"no tokensieve binary at {binary} (cargo build --release, or --binary PATH)")
    work = Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    failures, rows = [], []
    try:
        url = moto(work)
        model_out, port = mock(work)
        describe = f"aws ec2 describe-vpcs --endpoint-url {url}"
        count = "python3 -c \"import json,sys; print(len(json.load(sys.stdin)['Vpcs']))\""
        for agent in [x for x in a.agents.split(",") if x]:
            exe, version = agent_cli(agent)
            raw_home = work / f"home-{agent}-without"
            make_home(raw_home, agent, port, None)
            baseline = ask(agent, exe, f"{agent}-baseline", describe, raw_home, port, model_out, work, a.timeout)
            control_home = work / f"home-{agent}-install-only"
            make_home(control_home, agent, port, binary, init=False)
            control = ask(agent, exe, f"{agent}-install-only", describe, control_home, port, model_out, work,
                          a.timeout)
            home = work / f"home-{agent}"
            bin_dir = make_home(home, agent, port, binary)
            row = {"agent": agent, "version": version, "cases": {}}

            def case(name, command, verdict):
                text = ask(agent, exe, f"{agent}-{name}", command, home, port, model_out, work, a.timeout)
                problem = verdict(text) if text else "no tool result reached the model"
                row["cases"][name] = {"command": command, "ok": problem is None, "problem": problem,
                                      "tool_result": text}
                if problem:
                    failures.append(f"{agent} {name}: {problem}")
                return text

            shown = case("compressed", describe, lambda t: None if RECEIPT.search(t) and '"Vpcs": [' not in t
                         else "no receipt, or the pretty JSON itself")
            raw_id = RAW_ID.search(shown or "")
            case("pipe", f"{describe} | {count}", lambda t: None if re.search(r"(?m)^(Output: )?4\s*$", t)
                 else "the count 4 is missing")
            case("error", f"aws ec2 describe-vpcs --vpc-ids vpc-missing --endpoint-url {url}",
                 lambda t: None if "InvalidVpcID.NotFound" in t else "the CLI's error is missing")
            if raw_id:
                case("show", f"tokensieve show {raw_id.group(1)}",
                     lambda t: None if '"Vpcs": [' in t else "the raw JSON did not come back")
            else:
                failures.append(f"{agent} show: no raw id in the receipt")
            note = note_reached_model(model_out, f"{agent}-compressed")
            row["cases"]["note"] = {"ok": note, "problem": None if note else "the note is not in the model's input"}
            if not note:
                failures.append(f"{agent} note: the note is not in the model's input")
            if '"Vpcs": [' not in baseline:
                failures.append(f"{agent} baseline: no raw JSON without tokensieve")
            base_tok, ts_tok = count_tokens(baseline, work), count_tokens(shown, work)
            row.update(baseline_tokens=base_tok, compressed_tokens=ts_tok, baseline=baseline,
                       shim_dir_on_agent_path=False, shim_dir=str(bin_dir),
                       install_sh_alone_compresses=bool(RECEIPT.search(control)), install_only=control)
            if base_tok and ts_tok:
                row["ratio"] = round(ts_tok / base_tok, 3)
            rows.append(row)
    finally:
        stop_all()
    (work / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    print("| agent | version | compressed | pipe | error | show | note | model got (tokens) | ratio "
          "| install.sh alone |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        c = r["cases"]
        mark = lambda n: ("pass" if c[n]["ok"] else "FAIL") if n in c else "-"
        print(f"| {r['agent']} | {r['version']} | {mark('compressed')} | {mark('pipe')} | {mark('error')} | "
              f"{mark('show')} | {mark('note')} | {r.get('compressed_tokens')} of {r.get('baseline_tokens')} | {r.get('ratio')} | "
              f"{'compressed' if r['install_sh_alone_compresses'] else 'raw'} |")
    for f in failures:
        print(f"FAIL {f}", file=sys.stderr)
    print(f"details: {work / 'results.json'}", file=sys.stderr)
    if not a.keep and not failures:
        for p in work.iterdir():
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
