//! Git as a subprocess: the one engine `objects push|pull` talks to for
//! refs, blobs and the remote (its transports, credentials and config).

use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use anyhow::{Context, Result, bail};

/// A repository, found from a working directory.
#[derive(Clone, Debug)]
pub struct Git {
    /// Where git runs (the caller's directory inside the repository).
    cwd: PathBuf,
    /// The top of the work tree (where `.lfsconfig` lives); `None` in a
    /// bare repository.
    pub top: Option<PathBuf>,
}

impl Git {
    /// The repository around `cwd`, or `None` outside one (or without git).
    pub fn discover(cwd: &Path) -> Option<Git> {
        let out = Command::new("git")
            .args(["rev-parse", "--is-inside-work-tree", "--show-toplevel"])
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        if !out.status.success() {
            // A bare repository: rev-parse fails on --show-toplevel there.
            let bare = Command::new("git")
                .args(["rev-parse", "--is-bare-repository"])
                .current_dir(cwd)
                .stderr(Stdio::null())
                .output()
                .ok()?;
            return (bare.status.success() && bare.stdout.starts_with(b"true"))
                .then(|| Git { cwd: cwd.to_owned(), top: None });
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let top = text.lines().nth(1).map(PathBuf::from);
        Some(Git { cwd: cwd.to_owned(), top })
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("git");
        cmd.args(args).current_dir(&self.cwd);
        // Never stop to ask for a password on a terminal: credentials come
        // from helpers (`git credential fill` asks itself when it must).
        cmd.env("GIT_TERMINAL_PROMPT", "0");
        cmd
    }

    /// Runs git, feeding `input`, and returns its stdout; a failure carries
    /// git's own last stderr line.
    pub fn run_with(&self, args: &[&str], input: Option<&[u8]>, envs: &[(&str, &OsStr)]) -> Result<Vec<u8>> {
        let mut cmd = self.command(args);
        for (k, v) in envs {
            cmd.env(k, v);
        }
        cmd.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().context("cannot run git")?;
        let writer = input.map(|bytes| {
            let mut stdin = child.stdin.take().expect("piped stdin");
            let bytes = bytes.to_vec();
            // Fed from a thread: a big input and a big output would
            // otherwise wait on each other.
            std::thread::spawn(move || stdin.write_all(&bytes))
        });
        let out = child.wait_with_output().context("cannot run git")?;
        if let Some(w) = writer {
            let _ = w.join();
        }
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let line = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_owned();
            bail!(
                "git {} failed: {}",
                args.first().copied().unwrap_or(""),
                if line.is_empty() { "no message" } else { &line }
            );
        }
        Ok(out.stdout)
    }

    pub fn run(&self, args: &[&str]) -> Result<Vec<u8>> {
        self.run_with(args, None, &[])
    }

    /// Stdout of a command whose output a remote decides (a listing of its
    /// tree), read through `untrusted::Capped`: past `cap` bytes git is
    /// stopped and the call fails, rather than held whole.
    pub fn run_capped(&self, args: &[&str], cap: u64) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let (read, status) = self.copy_capped(args, cap, &mut out)?;
        if read.is_err() {
            bail!(
                "git {} printed more than {cap} bytes; stopped and not read (a damaged or hostile remote?)",
                args.first().copied().unwrap_or("")
            );
        }
        if !status.success() {
            bail!("git {} failed", args.first().copied().unwrap_or(""));
        }
        Ok(out)
    }

    /// Copies git's stdout into `sink` through `untrusted::Capped`; past
    /// `cap` bytes (or on a read error) git is killed. Returns what the
    /// copy gave and how git ended, for the caller to word the failure.
    fn copy_capped(
        &self,
        args: &[&str],
        cap: u64,
        sink: &mut dyn Write,
    ) -> Result<(io::Result<u64>, ExitStatus)> {
        let mut child = self
            .command(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot run git")?;
        let stdout = child.stdout.take().context("no pipe from git")?;
        let copied = io::copy(&mut crate::untrusted::Capped::new(stdout, cap), sink);
        if copied.is_err() {
            let _ = child.kill();
        }
        let status = child.wait().context("cannot run git")?;
        Ok((copied, status))
    }

    /// Stdout as trimmed text.
    pub fn text(&self, args: &[&str]) -> Result<String> {
        Ok(String::from_utf8_lossy(&self.run(args)?).trim().to_owned())
    }

    /// A config value, `None` when unset.
    pub fn config(&self, key: &str) -> Option<String> {
        self.text(&["config", "--get", key]).ok().filter(|v| !v.is_empty())
    }

    /// A value from the work tree's `.lfsconfig` (Git LFS's shared settings).
    /// The file comes with the checkout: it is read by us (a regular file,
    /// 1 MiB at most) and handed to git on stdin, so git never opens a
    /// FIFO or `/proc` file planted at that name.
    pub fn lfsconfig(&self, key: &str) -> Option<String> {
        let file = self.top.as_ref()?.join(".lfsconfig");
        if !file.exists() {
            return None;
        }
        let bytes = match crate::untrusted::read(&file, crate::untrusted::SETTINGS_MAX_BYTES) {
            Ok((bytes, _)) => bytes,
            Err(e) => {
                eprintln!("tokensieve: warning: {}: {e}; ignored", file.display());
                return None;
            }
        };
        let out = self.run_with(&["config", "--file", "-", "--get", key], Some(&bytes), &[]).ok()?;
        Some(String::from_utf8_lossy(&out).trim().to_owned()).filter(|v| !v.is_empty())
    }

    pub fn set_config(&self, key: &str, value: &str) -> Result<()> {
        self.run(&["config", key, value]).map(drop)
    }

    pub fn remotes(&self) -> Vec<String> {
        self.text(&["remote"]).map(|t| t.lines().map(str::to_owned).collect()).unwrap_or_default()
    }

    /// The URL git would use for `remote` (with `insteadOf` applied).
    pub fn remote_url(&self, remote: &str) -> Result<String> {
        self.text(&["remote", "get-url", remote])
            .with_context(|| format!("'{remote}' is not a remote of this repository"))
    }

    /// `ref → object id` of the remote's refs matching `pattern`.
    pub fn ls_remote(&self, remote: &str, pattern: &str) -> Result<Vec<(String, String)>> {
        let out = self.text(&["ls-remote", remote, pattern])?;
        Ok(out
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(oid, name)| (name.to_owned(), oid.to_owned()))
            .collect())
    }

    /// Writes `bytes` as a blob; its git object id.
    pub fn hash_blob(&self, bytes: &[u8]) -> Result<String> {
        let out = self.run_with(&["hash-object", "-w", "--no-filters", "--stdin"], Some(bytes), &[])?;
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// Writes each file as a blob, in order; their git object ids.
    pub fn hash_files(&self, paths: &[PathBuf]) -> Result<Vec<String>> {
        let mut list = Vec::new();
        for p in paths {
            list.extend_from_slice(p.as_os_str().as_encoded_bytes());
            list.push(b'\n');
        }
        let out = self.run_with(&["hash-object", "-w", "--no-filters", "--stdin-paths"], Some(&list), &[])?;
        let ids: Vec<String> = String::from_utf8_lossy(&out).lines().map(str::to_owned).collect();
        if ids.len() != paths.len() {
            bail!("git hash-object returned {} ids for {} files", ids.len(), paths.len());
        }
        Ok(ids)
    }

    /// The size of each object (`cat-file --batch-check`), in order; `None`
    /// for one git does not have.
    pub fn object_sizes(&self, oids: &[String]) -> Result<Vec<Option<u64>>> {
        if oids.is_empty() {
            return Ok(Vec::new());
        }
        let input: String = oids.iter().map(|o| format!("{o}\n")).collect();
        let out = self.run_with(&["cat-file", "--batch-check"], Some(input.as_bytes()), &[])?;
        let text = String::from_utf8_lossy(&out);
        let sizes: Vec<Option<u64>> = text
            .lines()
            .map(|l| if l.ends_with(" missing") { None } else { l.rsplit(' ').next()?.parse().ok() })
            .collect();
        if sizes.len() != oids.len() {
            bail!("git cat-file --batch-check: {} answers for {} objects", sizes.len(), oids.len());
        }
        Ok(sizes)
    }

    /// Streams the blob `oid` into `sink`, when it is at most `cap` bytes
    /// (its size asked first, then read through the same cap). Returns its
    /// size.
    pub fn stream_blob(&self, oid: &str, cap: u64, sink: &mut dyn Write) -> Result<u64> {
        let size = self.object_sizes(&[oid.to_owned()])?[0].context("git has no such object")?;
        if size > cap {
            bail!("{size} bytes, over the {cap}-byte cap (min of its manifest's size and the store's cap)");
        }
        let (copied, status) = self.copy_capped(&["cat-file", "blob", oid], cap, sink)?;
        let n = copied.context("cannot read the blob from git")?;
        if !status.success() {
            bail!("git cat-file blob {oid} failed");
        }
        Ok(n)
    }

    /// The contents of many objects at once (`cat-file --batch`), in order;
    /// `None` for one git does not have, or one over `cap` bytes (sizes
    /// are asked first: a remote's blob is never read whole unchecked).
    pub fn read_objects(&self, oids: &[String], cap: u64) -> Result<Vec<Option<Vec<u8>>>> {
        if oids.is_empty() {
            return Ok(Vec::new());
        }
        let sizes = self.object_sizes(oids)?;
        let wanted: Vec<&String> =
            oids.iter().zip(&sizes).filter(|(_, s)| s.is_some_and(|s| s <= cap)).map(|(o, _)| o).collect();
        let mut read = self.read_batch(&wanted)?.into_iter();
        Ok(sizes
            .iter()
            .map(|s| if s.is_some_and(|s| s <= cap) { read.next().flatten() } else { None })
            .collect())
    }

    fn read_batch(&self, oids: &[&String]) -> Result<Vec<Option<Vec<u8>>>> {
        if oids.is_empty() {
            return Ok(Vec::new());
        }
        let input: String = oids.iter().map(|o| format!("{o}\n")).collect();
        let out = self.run_with(&["cat-file", "--batch"], Some(input.as_bytes()), &[])?;
        let mut rest = &out[..];
        let mut objects = Vec::with_capacity(oids.len());
        for _ in oids {
            let nl = rest.iter().position(|&b| b == b'\n').context("git cat-file: truncated answer")?;
            let header = String::from_utf8_lossy(&rest[..nl]).into_owned();
            rest = &rest[nl + 1..];
            if header.ends_with(" missing") {
                objects.push(None);
                continue;
            }
            let size: usize = header
                .rsplit(' ')
                .next()
                .and_then(|s| s.parse().ok())
                .with_context(|| format!("git cat-file: unexpected header '{header}'"))?;
            if size.checked_add(1).is_none_or(|end| rest.len() < end) {
                bail!("git cat-file: truncated object");
            }
            objects.push(Some(rest[..size].to_vec()));
            rest = &rest[size + 1..];
        }
        Ok(objects)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listing a remote decides is read through a cap: past it git is
    /// stopped and the call fails with one clear error (issue 25).
    #[test]
    fn a_listing_past_its_cap_stops_with_a_clear_error() {
        let dir = std::env::temp_dir().join(format!("tokensieve-run-capped-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let ok = Command::new("git").args(["init", "-q", "--bare"]).current_dir(&dir).status().unwrap();
        assert!(ok.success());
        let git = Git::discover(&dir).expect("a bare repository");
        // `git help -a` (a few KiB) stands for a remote's huge listing
        let listing = git.run_capped(&["help", "-a"], 1 << 20).unwrap();
        assert!(!listing.is_empty());
        let err = git.run_capped(&["help", "-a"], 64).unwrap_err().to_string();
        assert!(err.contains("git help printed more than 64 bytes; stopped"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
