//! `tokensieve objects push|pull` and the lazy fetch in `show`, through the
//! real binary and real git: a bare repository over file:// for the
//! git-ref backend, and a real Git LFS server (giftless on 127.0.0.1, from
//! the venv scripts/test.sh prepares) with the standard client (git-lfs)
//! reading what we pushed and writing what we read.

use std::collections::BTreeMap;
use std::fs;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

const FIXTURES: [(&str, &str); 3] = [
    ("aws ec2 describe-vpcs", "fixtures/json/aws/ec2-describe-vpcs.json"),
    ("aws ec2 describe-instances", "fixtures/json/aws/ec2-describe-instances.json"),
    ("aws iam list-roles", "fixtures/json/aws/iam-list-roles.json"),
];

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn git(dir: &Path) -> Command {
    common::isolated_git(dir)
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "failed ({:?}): {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn run_git(dir: &Path, args: &[&str]) -> String {
    ok(git(dir).args(args).output().unwrap())
}

/// The binary in `repo` with its own home, and git hermetic as above.
fn ts(repo: &Path, home: &Path) -> Command {
    let mut c = common::tokensieve_in(home);
    c.current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy");
    c
}

struct World {
    dir: tempfile::TempDir,
    remote_url: String,
}

impl World {
    /// A bare remote and nothing else.
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        run_git(dir.path(), &["init", "-q", "--bare", "remote.git"]);
        let remote_url = format!("file://{}", dir.path().join("remote.git").display());
        World { dir, remote_url }
    }

    fn remote(&self) -> PathBuf {
        self.dir.path().join("remote.git")
    }

    /// A repository whose `origin` is the remote.
    fn repo(&self, name: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        fs::create_dir(&p).unwrap();
        run_git(&p, &["init", "-q"]);
        run_git(&p, &["remote", "add", "origin", &self.remote_url]);
        p
    }

    fn home(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// Stores each fixture as a call's raw output in `home`; `hash → bytes`.
fn capture_fixtures(home: &Path, fixtures: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for (cmd, file) in fixtures {
        let o = common::tokensieve_in(home)
            .args(["--cmd", cmd])
            .stdin(fs::File::open(fixture(file)).unwrap())
            .output()
            .unwrap();
        assert!(o.status.success());
        let bytes = fs::read(fixture(file)).unwrap();
        out.insert(tokensieve::store::hash_hex(&bytes), bytes);
    }
    let have = stored(home);
    assert!(out.keys().all(|h| have.contains(h)), "every fixture stored");
    out
}

/// Hashes of the objects in a home's store.
fn stored(home: &Path) -> Vec<String> {
    let mut all = Vec::new();
    let Ok(dirs) = fs::read_dir(home.join("objects")) else { return all };
    for d in dirs.flatten() {
        if d.path().is_dir() {
            for f in fs::read_dir(d.path()).unwrap().flatten() {
                all.push(format!("{}{}", d.file_name().to_string_lossy(), f.file_name().to_string_lossy()));
            }
        }
    }
    all.sort();
    all
}

fn show(repo: &Path, home: &Path, id: &str) -> Output {
    ts(repo, home).args(["show", id]).output().unwrap()
}

/// `objects pull` that must reject `sha`'s blob: exit 1 and one line.
fn pull_rejecting(repo: &Path, home: &Path, sha: &str) -> Output {
    let o = ts(repo, home).args(["objects", "pull"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let lines = stderr_lines(&o);
    assert_eq!(lines.len(), 1, "one clear line: {lines:?}");
    let expected = format!("tokensieve objects pull: rejected raw output {} from origin", &sha[..12]);
    assert!(lines[0].starts_with(&expected), "{lines:?}");
    o
}

fn stderr_lines(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr).lines().map(str::to_owned).collect()
}

#[test]
fn git_ref_backend_round_trips_bytes_and_manifests_over_file_url() {
    let w = World::new();
    let (a, home_a) = (w.repo("a"), w.home("home-a"));
    let objects = capture_fixtures(&home_a, &FIXTURES);

    let out = ok(ts(&a, &home_a).args(["objects", "push", "--backend", "git-ref"]).output().unwrap());
    assert!(out.contains("pushed 3 raw output(s) to origin (git-ref: 3 sent"), "{out}");
    let refs = run_git(&w.remote(), &["for-each-ref", "--format=%(refname) %(objecttype)"]);
    for hex in objects.keys() {
        assert!(refs.contains(&format!("refs/tokensieve/blobs/{hex} blob")), "{refs}");
    }
    // The manifest names the object and the call, and carries no raw bytes.
    let (hex, bytes) = objects.iter().next().unwrap();
    let manifest =
        run_git(&w.remote(), &["show", &format!("refs/tokensieve/manifests:manifests/{hex}.json")]);
    let m: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    assert_eq!(m["format"], "tokensieve-manifest/1");
    assert_eq!(m["sha256"], hex.as_str());
    assert_eq!(m["size"], bytes.len());
    assert!(m["captures"][0]["command"].as_str().unwrap().starts_with("aws "), "{manifest}");
    assert_eq!(m["captures"][0]["result"]["status"], "passed", "the typed result travels: {manifest}");
    assert!(m["captures"][0].get("cwd").is_none(), "ran outside the repository: no path");
    let tree = run_git(&w.remote(), &["ls-tree", "-r", "--name-only", "refs/tokensieve/manifests"]);
    assert_eq!(tree.lines().count(), 3, "{tree}");
    assert!(!manifest.contains("\"Vpcs\""), "no raw bytes in a manifest");

    // A second push sends nothing and changes nothing.
    let again = ok(ts(&a, &home_a).args(["objects", "push", "--backend", "git-ref"]).output().unwrap());
    assert!(again.contains("0 sent, 3 already there") && again.contains("(0 new or updated)"), "{again}");

    // Another machine: pull, then every id shows the same bytes.
    let (b, home_b) = (w.repo("b"), w.home("home-b"));
    let pulled = ok(ts(&b, &home_b).args(["objects", "pull"]).output().unwrap());
    assert!(pulled.contains("pulled 3 raw output(s) from origin: 3 fetched"), "{pulled}");
    assert_eq!(stored(&home_b), objects.keys().cloned().collect::<Vec<_>>());
    for (hex, bytes) in &objects {
        let o = show(&b, &home_b, &hex[..12]);
        assert_eq!(&ok(o).into_bytes(), bytes);
    }
    let twice = ok(ts(&b, &home_b).args(["objects", "pull"]).output().unwrap());
    assert!(twice.contains("0 fetched, 3 already here"), "{twice}");
}

#[test]
fn pushes_from_two_machines_merge_their_manifests() {
    let w = World::new();
    let (a, home_a) = (w.repo("a"), w.home("home-a"));
    let (b, home_b) = (w.repo("b"), w.home("home-b"));
    capture_fixtures(&home_a, &FIXTURES[..2]);
    // b ran one of the same commands and one of its own.
    capture_fixtures(&home_b, &FIXTURES[1..]);
    ok(ts(&a, &home_a).args(["objects", "push"]).output().unwrap());
    let out = ok(ts(&b, &home_b).args(["objects", "push"]).output().unwrap());
    assert!(out.contains("3 manifest(s)"), "{out}");
    let shared = tokensieve::store::hash_hex(&fs::read(fixture(FIXTURES[1].1)).unwrap());
    let m: serde_json::Value = serde_json::from_str(&run_git(
        &w.remote(),
        &["show", &format!("refs/tokensieve/manifests:manifests/{shared}.json")],
    ))
    .unwrap();
    assert_eq!(m["captures"].as_array().unwrap().len(), 2, "both machines' calls: {m}");
    let log = run_git(&w.remote(), &["rev-list", "--count", "refs/tokensieve/manifests"]);
    assert_eq!(log.trim(), "2", "fast-forward history, one commit per push");
}

#[test]
fn show_fetches_a_missing_id_from_the_configured_remote() {
    let w = World::new();
    let (a, home_a) = (w.repo("a"), w.home("home-a"));
    let objects = capture_fixtures(&home_a, &FIXTURES[..1]);
    ok(ts(&a, &home_a).args(["objects", "push"]).output().unwrap());
    let (hex, bytes) = objects.iter().next().unwrap();

    // Without a configured remote, `show` stays local.
    let (c, home_c) = (w.repo("c"), w.home("home-c"));
    let o = show(&c, &home_c, &hex[..12]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("never stored"));
    assert!(stored(&home_c).is_empty());

    run_git(&c, &["config", "tokensieve.remote", "origin"]);
    let o = show(&c, &home_c, &hex[..12]);
    assert_eq!(&ok(o).into_bytes(), bytes);
    assert_eq!(stored(&home_c), vec![hex.clone()], "kept for the next show");
}

#[test]
fn a_tampered_git_ref_blob_is_rejected_in_one_line_and_never_stored() {
    let w = World::new();
    let (a, home_a) = (w.repo("a"), w.home("home-a"));
    let objects = capture_fixtures(&home_a, &FIXTURES[..2]);
    ok(ts(&a, &home_a).args(["objects", "push"]).output().unwrap());
    // Someone with write access points one blob ref at other bytes.
    let (bad, good) = (objects.keys().next().unwrap().clone(), objects.keys().nth(1).unwrap().clone());
    let mut hash = git(&w.remote())
        .args(["hash-object", "-w", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    hash.stdin.take().unwrap().write_all(b"{\"forged\": true}\n").unwrap();
    let forged = ok(hash.wait_with_output().unwrap());
    run_git(&w.remote(), &["update-ref", &format!("refs/tokensieve/blobs/{bad}"), forged.trim()]);

    let (b, home_b) = (w.repo("b"), w.home("home-b"));
    let o = pull_rejecting(&b, &home_b, &bad);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("1 fetched")
            && String::from_utf8_lossy(&o.stdout).contains("1 failed")
    );
    assert_eq!(stored(&home_b), vec![good], "the forged bytes were not kept");
    // `show` refuses it the same way.
    let o = show(&b, &home_b, &bad[..12]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr_lines(&o).len(), 1);
    assert!(o.stdout.is_empty());
}

#[test]
fn push_outside_a_repository_or_without_a_remote_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let o = ts(dir.path(), &home)
        .args(["objects", "push"])
        .env("GIT_CEILING_DIRECTORIES", dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("inside a git repository"));
    run_git(dir.path(), &["init", "-q"]);
    let o = ts(dir.path(), &home).args(["objects", "pull"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no remote"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = ts(dir.path(), &home).args(["objects", "push", "--backend", "ftp"]).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("invalid value 'ftp'") && err.contains("lfs, git-ref, auto"), "{err}");
}

// ---- Git LFS -------------------------------------------------------------

/// giftless on a free 127.0.0.1 port with local storage; killed on drop.
/// Access takes a JWT (giftless's own scheme: HTTP Basic with user `_jwt`),
/// which the repositories hand out through a git credential helper, so
/// the `git credential` flow runs for us and for git-lfs alike.
struct Giftless {
    child: Child,
    port: u16,
    storage: PathBuf,
    token: String,
}

impl Drop for Giftless {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const JWT_KEY: &str = "tokensieve-test-key-0123456789abcdef";

impl Giftless {
    fn start(venv: &Path, dir: &Path) -> Giftless {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let storage = dir.join("lfs-storage");
        let config = dir.join("giftless.yaml");
        let yaml = [
            "AUTH_PROVIDERS:",
            "  - factory: giftless.auth.jwt:factory",
            "    options:",
            &format!("      private_key: {JWT_KEY}"),
            "PRE_AUTHORIZED_ACTION_PROVIDER:",
            "  factory: giftless.auth.jwt:factory",
            "  options:",
            &format!("    private_key: {JWT_KEY}"),
            "TRANSFER_ADAPTERS:",
            "  basic:",
            "    options:",
            "      storage_options:",
            &format!("        path: {}", storage.display()),
        ];
        fs::write(&config, yaml.join("\n") + "\n").unwrap();
        let child = Command::new(venv.join("python"))
            .args(["-m", "flask", "--app", "giftless.wsgi_entrypoint", "run", "-h", "127.0.0.1", "-p"])
            .arg(port.to_string())
            .current_dir(dir)
            .env("GIFTLESS_CONFIG_FILE", &config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(dir.join("giftless.log")).unwrap())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "giftless did not start: {}",
                fs::read_to_string(dir.join("giftless.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let mint = format!(
            "import jwt; print(jwt.encode({{'sub': 'tester', 'scopes': 'obj:team/app/*'}}, '{JWT_KEY}', algorithm='HS256'))"
        );
        let token =
            ok(Command::new(venv.join("python")).args(["-c", &mint]).output().unwrap()).trim().to_owned();
        Giftless { child, port, storage, token }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/team/app.git/info/lfs", self.port)
    }

    /// Where it keeps an object.
    fn object(&self, oid: &str) -> PathBuf {
        self.storage.join("team/app").join(oid)
    }
}

fn lfs_world() -> Option<(World, Giftless)> {
    let venv = common::prepared_dir("TOKENSIEVE_TEST_LFS_VENV", "the Git LFS tests")?;
    let w = World::new();
    let server = Giftless::start(&venv, w.dir.path());
    Some((w, server))
}

fn lfs_repo(w: &World, server: &Giftless, name: &str) -> PathBuf {
    let p = w.repo(name);
    run_git(&p, &["config", "lfs.url", &server.url()]);
    let helper = format!("!f() {{ echo username=_jwt; echo password={}; }}; f", server.token);
    run_git(&p, &["config", "credential.helper", &helper]);
    p
}

/// `git lfs smudge`: the standard client turning a pointer into bytes,
/// downloading from the server.
fn git_lfs_smudge(repo: &Path, oid: &str, size: usize) -> Vec<u8> {
    use std::io::Write;
    let mut c = git(repo)
        .args(["lfs", "smudge"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pointer = format!("version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n");
    c.stdin.take().unwrap().write_all(pointer.as_bytes()).unwrap();
    let out = c.wait_with_output().unwrap();
    assert!(out.status.success(), "git lfs smudge: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn lfs_backend_round_trips_through_giftless_and_the_standard_client_agrees() {
    let Some((w, server)) = lfs_world() else { return };
    let (a, home_a) = (lfs_repo(&w, &server, "a"), w.home("home-a"));
    let objects = capture_fixtures(&home_a, &FIXTURES[..2]);

    // The third output reaches the server through git-lfs first (from its
    // own object store), so our push finds it there and our pull reads
    // bytes the standard client wrote.
    let (x, third) = (lfs_repo(&w, &server, "x"), fs::read(fixture(FIXTURES[2].1)).unwrap());
    let third_oid = tokensieve::store::hash_hex(&third);
    fs::write(x.join("third.json"), &third).unwrap();
    let pointer = ok(git(&x)
        .args(["lfs", "clean", "third.json"])
        .stdin(fs::File::open(x.join("third.json")).unwrap())
        .output()
        .unwrap());
    assert!(pointer.contains(&third_oid), "{pointer}");
    ok(git(&x).args(["lfs", "push", "--object-id", "origin", &third_oid]).output().unwrap());
    assert_eq!(fs::read(server.object(&third_oid)).unwrap(), third);
    capture_fixtures(&home_a, &FIXTURES[2..]);

    let out = ok(ts(&a, &home_a).args(["objects", "push"]).output().unwrap());
    assert!(out.contains("(lfs: 2 sent, 1 already there)"), "auto picks the LFS server lfs.url names: {out}");
    // Raw bytes live on the LFS server, not in git.
    let refs = run_git(&w.remote(), &["for-each-ref", "--format=%(refname)"]);
    assert_eq!(refs.trim(), "refs/tokensieve/manifests", "{refs}");
    for (oid, bytes) in &objects {
        assert_eq!(&fs::read(server.object(oid)).unwrap(), bytes);
        // The standard client reads what we uploaded.
        assert_eq!(&git_lfs_smudge(&x, oid, bytes.len()), bytes);
    }

    let (b, home_b) = (lfs_repo(&w, &server, "b"), w.home("home-b"));
    let pulled = ok(ts(&b, &home_b).args(["objects", "pull", "--backend", "lfs"]).output().unwrap());
    assert!(pulled.contains("3 fetched"), "{pulled}");
    for (oid, bytes) in objects.iter().chain([(&third_oid, &third)]) {
        assert_eq!(&ok(show(&b, &home_b, &oid[..12])).into_bytes(), bytes);
    }

    // Lazily, from a third machine's repository that pulled once before.
    let home_c = w.home("home-c");
    let o = show(&b, &home_c, &third_oid[..12]);
    assert_eq!(&ok(o).into_bytes(), &third);
}

#[test]
fn a_tampered_lfs_blob_is_rejected_in_one_line_and_never_stored() {
    let Some((w, server)) = lfs_world() else { return };
    let (a, home_a) = (lfs_repo(&w, &server, "a"), w.home("home-a"));
    let objects = capture_fixtures(&home_a, &FIXTURES[..1]);
    ok(ts(&a, &home_a).args(["objects", "push", "--backend", "lfs"]).output().unwrap());
    let (oid, bytes) = objects.iter().next().unwrap();
    let mut forged = bytes.clone();
    forged[10] ^= 1;
    fs::write(server.object(oid), &forged).unwrap();

    let (b, home_b) = (lfs_repo(&w, &server, "b"), w.home("home-b"));
    pull_rejecting(&b, &home_b, oid);
    assert!(stored(&home_b).is_empty(), "the tampered bytes were not kept");
    let o = show(&b, &home_b, &oid[..12]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
}

#[test]
fn lfs_backend_without_a_server_fails_and_auto_falls_back_to_git_refs() {
    let w = World::new();
    let (a, home_a) = (w.repo("a"), w.home("home-a"));
    capture_fixtures(&home_a, &FIXTURES[..1]);
    let o = ts(&a, &home_a).args(["objects", "push", "--backend", "lfs"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no Git LFS server"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let out = ok(ts(&a, &home_a).args(["objects", "push"]).output().unwrap());
    assert!(out.contains("(git-ref: 1 sent"), "{out}");
}
