//! install.sh, `tokensieve install/uninstall/doctor`, run for real in a
//! temporary HOME by real bash (login shells read the PATH lines back).

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use common::BIN;

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let tools = dir.path().join("tools");
        fs::create_dir(&tools).unwrap();
        for tool in ["aws", "mytool"] {
            let path = tools.join(tool);
            fs::write(&path, format!("#!/bin/sh\necho '{{\"tool\": \"{tool}\"}}'\n")).unwrap();
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        fs::write(dir.path().join(".bashrc"), "alias ll='ls -l'\n").unwrap();
        Home { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn bash(&self, script: &str) -> Output {
        Command::new("bash")
            .arg("-c")
            .arg(script)
            .env_clear()
            .env("HOME", self.path())
            .env("PATH", format!("{}/tools:/usr/bin:/bin", self.path().display()))
            .env("TOKENSIEVE_BINARY", BIN)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap()
    }

    fn read(&self, name: &str) -> String {
        fs::read_to_string(self.path().join(name)).unwrap_or_default()
    }
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn install_sh_shims_tools_and_puts_them_first_on_path_once() {
    let home = Home::new();
    for _ in 0..2 {
        let out = home.bash("./install.sh aws mytool");
        assert!(out.status.success(), "{}", text(&out));
    }
    let bin = home.path().join(".tokensieve/bin");
    assert!(bin.join("tokensieve").is_file());
    for tool in ["aws", "mytool"] {
        assert_eq!(fs::read_link(bin.join(tool)).unwrap(), Path::new("tokensieve"));
    }
    for rc in [".profile", ".bashrc"] {
        let content = home.read(rc);
        assert_eq!(content.matches("# >>> tokensieve >>>").count(), 1, "{rc}: {content}");
    }
    assert!(home.read(".bashrc").starts_with("alias ll='ls -l'\n"));

    // A new shell reading ~/.profile finds the shim first, runs the real tool through it,
    // and doctor is happy.
    let out = home.bash("bash -c '. ~/.profile; command -v aws; aws; tokensieve doctor'");
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    let mut lines = all.lines();
    assert_eq!(lines.next().unwrap(), bin.join("aws").to_str().unwrap());
    assert_eq!(lines.next().unwrap(), "{\"tool\": \"aws\"}");
    assert!(all.contains("mytool -> "), "{all}");
    assert!(all.contains("healthy"), "{all}");
    // Sourcing the start-up file again does not grow PATH.
    let out = home.bash("bash -c '. ~/.profile; . ~/.profile; . ~/.profile; echo \"$PATH\"'");
    let path = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(path.matches(".tokensieve/bin").count(), 1, "{path}");
}

#[test]
fn doctor_reports_problems_and_uninstall_removes_everything() {
    let home = Home::new();
    let out = home.bash("./install.sh");
    assert!(out.status.success(), "{}", text(&out));
    let bin = home.path().join(".tokensieve/bin");
    assert!(bin.join("aws").exists(), "default tools found on PATH are shimmed: {}", text(&out));

    // A shim whose real tool is gone, and a shim folder missing from PATH.
    let out = home.bash("tokensieve() { ~/.tokensieve/bin/tokensieve \"$@\"; }; tokensieve install mytool");
    assert!(out.status.success(), "{}", text(&out));
    fs::remove_file(home.path().join("tools/mytool")).unwrap();
    let out = home.bash("bash -c '. ~/.profile; tokensieve doctor'");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("real 'mytool' not found on PATH"), "{}", text(&out));
    let out = home.bash("~/.tokensieve/bin/tokensieve doctor");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("is not on PATH"), "{}", text(&out));

    // Another folder earlier on PATH shadows the shim; a second tokensieve
    // copy between the shim and the real tool is a double installation.
    let early = home.path().join("early");
    fs::create_dir(&early).unwrap();
    fs::copy(home.path().join("tools/aws"), early.join("aws")).unwrap();
    let out =
        home.bash("PATH=~/early:~/.tokensieve/bin:~/tools:/usr/bin:/bin ~/.tokensieve/bin/tokensieve doctor");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("comes first on PATH, the shim is never called"), "{}", text(&out));
    fs::remove_file(early.join("aws")).unwrap();
    fs::copy(BIN, early.join("tokensieve")).unwrap();
    std::os::unix::fs::symlink("tokensieve", early.join("aws")).unwrap();
    let out =
        home.bash("PATH=~/.tokensieve/bin:~/early:~/tools:/usr/bin:/bin ~/.tokensieve/bin/tokensieve doctor");
    assert!(text(&out).contains("another tokensieve binary"), "{}", text(&out));
    fs::remove_dir_all(&early).unwrap();

    // A file of the user's own is never replaced.
    fs::write(bin.join("gh"), "#!/bin/sh\n").unwrap();
    let out = home.bash("~/.tokensieve/bin/tokensieve install gh");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("not a tokensieve shim"));
    fs::remove_file(bin.join("gh")).unwrap();

    let out = home.bash("~/.tokensieve/bin/tokensieve uninstall mytool");
    assert!(out.status.success());
    assert!(!bin.join("mytool").exists() && bin.join("aws").exists());
    let out = home.bash("~/.tokensieve/bin/tokensieve uninstall");
    assert!(out.status.success(), "{}", text(&out));
    assert!(!bin.exists(), "shims and binary removed");
    assert_eq!(home.read(".bashrc"), "alias ll='ls -l'\n");
    assert!(!home.read(".profile").contains("tokensieve"));
    // The user's real tool still runs in a new shell.
    let out = home.bash("bash -c \". ~/.profile; aws\"");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"tool\": \"aws\"}\n");
}

/// The rc file from the report: a begin marker, the user's lines, no end marker.
const UNCLOSED: &str = "export A=1\n# >>> tokensieve >>>\nPATH=/x:$PATH\nalias important=keep\nexport B=2\n";

#[test]
fn uninstall_leaves_an_rc_file_with_a_begin_marker_but_no_end_marker_alone() {
    let home = Home::new();
    assert!(home.bash("./install.sh aws").status.success());
    fs::write(home.path().join(".bashrc"), UNCLOSED).unwrap();
    let out = home.bash("~/.tokensieve/bin/tokensieve uninstall");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains(".bashrc alone"), "{}", text(&out));
    assert_eq!(home.read(".bashrc"), UNCLOSED);
    // The other files were cleaned as usual.
    assert!(!home.read(".profile").contains("tokensieve"));
}

#[test]
fn install_sh_leaves_an_rc_file_with_a_begin_marker_but_no_end_marker_alone() {
    let home = Home::new();
    fs::write(home.path().join(".bashrc"), UNCLOSED).unwrap();
    let out = home.bash("./install.sh aws");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains(".bashrc alone"), "{}", text(&out));
    assert_eq!(home.read(".bashrc"), UNCLOSED);
    assert!(home.read(".profile").contains("# <<< tokensieve <<<"));
}

#[test]
fn install_sh_keeps_a_symlinked_rc_file_a_symlink_with_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let home = Home::new();
    let dotfiles = home.path().join("dotfiles");
    fs::create_dir(&dotfiles).unwrap();
    let real = dotfiles.join("bashrc");
    fs::write(&real, "alias ll='ls -l'\n").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    fs::remove_file(home.path().join(".bashrc")).unwrap();
    std::os::unix::fs::symlink(&real, home.path().join(".bashrc")).unwrap();
    for _ in 0..2 {
        let out = home.bash("./install.sh aws");
        assert!(out.status.success(), "{}", text(&out));
    }
    let link = fs::symlink_metadata(home.path().join(".bashrc")).unwrap();
    assert!(link.file_type().is_symlink(), "the symlink was replaced by a file");
    assert_eq!(fs::metadata(&real).unwrap().permissions().mode() & 0o777, 0o640);
    let content = fs::read_to_string(&real).unwrap();
    assert!(
        content.starts_with("alias ll='ls -l'\n") && content.matches("# >>> tokensieve >>>").count() == 1
    );
    let out = home.bash("~/.tokensieve/bin/tokensieve uninstall");
    assert!(out.status.success(), "{}", text(&out));
    assert!(fs::symlink_metadata(home.path().join(".bashrc")).unwrap().file_type().is_symlink());
    assert_eq!(fs::read_to_string(&real).unwrap(), "alias ll='ls -l'\n");
}

#[test]
fn install_makes_its_folders_private_under_any_umask() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    for umask in ["000", "022"] {
        let home = Home::new();
        let out = home.bash(&format!("umask {umask}; '{BIN}' install aws"));
        assert!(out.status.success(), "{}", text(&out));
        let ts = home.path().join(".tokensieve");
        assert_eq!(mode(&ts), 0o700, "home under umask {umask}");
        assert_eq!(mode(&ts.join("bin")), 0o700, "bin under umask {umask}");
        assert_eq!(mode(&ts.join("bin/tokensieve")), 0o755);
        let out = home.bash(&format!("umask {umask}; ./install.sh aws"));
        assert!(out.status.success(), "{}", text(&out));
        assert_eq!((mode(&ts), mode(&ts.join("bin"))), (0o700, 0o700), "install.sh under umask {umask}");
    }
    // A home left open by an older install is made private; a folder that
    // holds other files is not changed behind the user's back.
    let home = Home::new();
    let ts = home.path().join(".tokensieve");
    fs::create_dir_all(ts.join("objects")).unwrap();
    fs::set_permissions(&ts, fs::Permissions::from_mode(0o755)).unwrap();
    let out = home.bash(&format!("'{BIN}' install aws"));
    assert!(text(&out).contains("made ") && mode(&ts) == 0o700, "{}", text(&out));
    let shared = home.path().join("shared");
    fs::create_dir(&shared).unwrap();
    fs::write(shared.join("notes.txt"), "mine").unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o755)).unwrap();
    let out = home.bash(&format!("TOKENSIEVE_HOME=~/shared '{BIN}' install aws"));
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(mode(&shared), 0o755, "{}", text(&out));
    assert_eq!(mode(&shared.join("bin")), 0o700);
}

#[test]
fn the_binary_is_statically_linked() {
    if Command::new("file").arg("--version").output().is_err() {
        eprintln!("note: `file` is not installed; static-link check skipped");
        return;
    }
    let out = Command::new("file").arg("-L").arg(BIN).output().unwrap();
    let what = String::from_utf8_lossy(&out.stdout);
    // scripts/static-build.sh asks for a non-PIE static executable: the spec's wording.
    assert!(what.contains("statically linked"), "{what}");
}
