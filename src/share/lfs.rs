//! The remote's Git LFS server, through the Batch API and the basic
//! transfer: objects keyed by the sha256 of their bytes (the store's own
//! names), uploaded with PUT, downloaded with GET and checked by the caller.
//!
//! Endpoint discovery follows Git LFS: `remote.NAME.lfsurl`, `lfs.url`
//! (git config, then `.lfsconfig`), else the remote's URL + `/info/lfs`
//! (`.git` added when missing; an ssh remote maps to https on the same
//! host and asks `git-lfs-authenticate` over ssh for headers).
//! Credentials for http(s) come from `git credential fill` when the
//! server answers 401.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

use super::git::Git;
use crate::untrusted::{Capped, printable};

const MEDIA: &str = "application/vnd.git-lfs+json";
/// Objects per batch request (servers commonly cap it at 100).
const BATCH: usize = 100;
/// A batch answer (or ssh's) is JSON about at most `BATCH` objects.
const ANSWER_MAX_BYTES: u64 = 8 << 20;
/// No byte for this long ends a request (`TOKENSIEVE_NET_STALL_SECS`).
const STALL_SECS: u64 = 30;
/// No request takes longer, body included (`TOKENSIEVE_NET_DEADLINE_SECS`).
const DEADLINE_SECS: u64 = 600;

fn secs_from_env(var: &str, default: u64) -> Duration {
    let n = std::env::var(var).ok().and_then(|v| v.trim().parse::<u64>().ok()).filter(|&n| n > 0);
    Duration::from_secs(n.unwrap_or(default))
}

/// "This remote has no Git LFS server here": `--backend auto` falls back to
/// git refs on this error, and only on it.
#[derive(Debug)]
pub struct NoLfs(pub String);

impl fmt::Display for NoLfs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoLfs {}

/// Where the Batch API lives and the headers it wants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub url: String,
    pub headers: Vec<(String, String)>,
}

/// The LFS endpoint of `remote`, per the discovery rules above.
pub fn endpoint(git: &Git, remote: &str, operation: &str) -> Result<Endpoint> {
    let configured = git
        .config(&format!("remote.{remote}.lfsurl"))
        .or_else(|| git.config("lfs.url"))
        .or_else(|| git.lfsconfig(&format!("remote.{remote}.lfsurl")))
        .or_else(|| git.lfsconfig("lfs.url"));
    if let Some(url) = configured {
        return Ok(Endpoint { url: url.trim_end_matches('/').to_owned(), headers: Vec::new() });
    }
    let remote_url = git.remote_url(remote)?;
    match derive(&remote_url) {
        Derived::Http(url) => Ok(Endpoint { url, headers: Vec::new() }),
        Derived::Ssh { url, user_host, port, path } => {
            Ok(ssh_authenticate(&user_host, port.as_deref(), &path, operation)
                .unwrap_or(Endpoint { url, headers: Vec::new() }))
        }
        Derived::Local => Err(NoLfs(format!(
            "{remote} ({remote_url}) is a local repository, which has no Git LFS server (set lfs.url to use one)"
        ))
        .into()),
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Derived {
    Http(String),
    Ssh { url: String, user_host: String, port: Option<String>, path: String },
    Local,
}

/// The default endpoint for a remote URL.
fn derive(remote_url: &str) -> Derived {
    let with_git = |path: &str| {
        let p = path.trim_end_matches('/');
        if p.ends_with(".git") { p.to_owned() } else { format!("{p}.git") }
    };
    if remote_url.starts_with("http://") || remote_url.starts_with("https://") {
        return Derived::Http(format!("{}/info/lfs", with_git(remote_url)));
    }
    if let Some(rest) = remote_url.strip_prefix("ssh://").or_else(|| remote_url.strip_prefix("git+ssh://")) {
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let (user_host, port) = match authority.rsplit_once(':') {
            Some((uh, p)) if p.bytes().all(|b| b.is_ascii_digit()) => (uh.to_owned(), Some(p.to_owned())),
            _ => (authority.to_owned(), None),
        };
        let host = user_host.rsplit('@').next().unwrap_or(&user_host).to_owned();
        let path = with_git(path);
        return Derived::Ssh { url: format!("https://{host}/{path}/info/lfs"), user_host, port, path };
    }
    // scp-like `user@host:path` (a colon before any slash, not a drive).
    if !remote_url.contains("://")
        && let Some((user_host, path)) = remote_url.split_once(':')
        && !user_host.contains('/')
        && user_host.len() > 1
    {
        let host = user_host.rsplit('@').next().unwrap_or(user_host);
        let path = with_git(path.trim_start_matches('/'));
        return Derived::Ssh {
            url: format!("https://{host}/{path}/info/lfs"),
            user_host: user_host.to_owned(),
            port: None,
            path,
        };
    }
    Derived::Local
}

/// `ssh USER@HOST git-lfs-authenticate PATH OPERATION` → the `href` and
/// headers the server hands out (`None` when ssh or the server says no).
fn ssh_authenticate(user_host: &str, port: Option<&str>, path: &str, operation: &str) -> Option<Endpoint> {
    let ssh = std::env::var("GIT_SSH_COMMAND").ok().filter(|s| !s.trim().is_empty());
    let mut cmd = match &ssh {
        Some(line) => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(format!("{line} \"$@\"")).arg("ssh");
            c
        }
        None => Command::new(std::env::var("GIT_SSH").unwrap_or_else(|_| "ssh".into())),
    };
    if let Some(p) = port {
        cmd.args(["-p", p]);
    }
    cmd.arg(user_host).arg(format!("git-lfs-authenticate {path} {operation}"));
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().ok()?;
    // The server's answer is a line of JSON: read 1 MiB of it at most.
    let mut text = Vec::new();
    let read = child.stdout.take()?.take(ANSWER_MAX_BYTES).read_to_end(&mut text);
    if read.is_err() || text.len() as u64 >= ANSWER_MAX_BYTES {
        let _ = child.kill();
    }
    if !child.wait().ok()?.success() {
        return None;
    }
    let v: Value = serde_json::from_slice(&text).ok()?;
    let url = v.get("href")?.as_str()?.trim_end_matches('/').to_owned();
    Some(Endpoint { url, headers: headers_of(&v) })
}

/// The headers a server hands out for an action: `Authorization` only.
/// Any other header would be ours to send wherever its href (or a
/// redirect from it) points; ureq drops `Authorization` on every redirect.
fn headers_of(v: &Value) -> Vec<(String, String)> {
    v.get("header")
        .and_then(Value::as_object)
        .map(|h| {
            h.iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("authorization"))
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

/// One object's answer in a batch response.
#[derive(Debug)]
pub struct Answer {
    pub oid: String,
    /// `(href, headers)` of the action asked for; `None`: nothing to do
    /// (an upload the server already has).
    pub action: Option<(String, Vec<(String, String)>)>,
    pub verify: Option<(String, Vec<(String, String)>)>,
    pub error: Option<String>,
}

/// Each object's outcome (by oid), and notes on what was ignored.
pub type Downloaded = (Vec<(String, Result<()>)>, Vec<String>);

/// A session with one LFS server.
pub struct Client<'g> {
    git: &'g Git,
    agent: ureq::Agent,
    endpoint: Endpoint,
    /// `Authorization` from `git credential fill`, once the server asked.
    auth: Option<String>,
}

impl<'g> Client<'g> {
    pub fn new(git: &'g Git, endpoint: Endpoint) -> Client<'g> {
        let stall = secs_from_env("TOKENSIEVE_NET_STALL_SECS", STALL_SECS);
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_recv_response(Some(Duration::from_secs(60)))
            // a server that stops sending (or reading) mid-body, and one
            // that trickles a byte now and then, both end
            .timeout_per_read(Some(stall))
            .timeout_per_write(Some(stall))
            .timeout_global(Some(secs_from_env("TOKENSIEVE_NET_DEADLINE_SECS", DEADLINE_SECS)))
            .user_agent(concat!("tokensieve/", env!("CARGO_PKG_VERSION")))
            .build();
        Client { git, agent: config.into(), endpoint, auth: None }
    }

    pub fn url(&self) -> &str {
        &self.endpoint.url
    }

    /// Uploads every `(sha256, size)` the server lacks, reading the bytes
    /// with `read`. Returns how many were sent.
    pub fn upload(
        &mut self,
        objects: &[(String, u64)],
        read: impl Fn(&str) -> Result<Vec<u8>>,
    ) -> Result<usize> {
        let mut sent = 0;
        for chunk in objects.chunks(BATCH) {
            let asked: HashSet<&str> = chunk.iter().map(|(o, _)| o.as_str()).collect();
            for a in self.batch("upload", chunk)? {
                if !asked.contains(a.oid.as_str()) {
                    // never read (and send) an object the server picked
                    continue;
                }
                if let Some(e) = a.error {
                    bail!("the LFS server refused {}: {e}", short(&a.oid));
                }
                let Some((href, headers)) = a.action else { continue };
                let bytes = read(&a.oid)?;
                let mut req = self.agent.put(&href).header("Content-Type", "application/octet-stream");
                for (k, v) in &headers {
                    req = req.header(k, v);
                }
                let resp = req.send(&bytes[..]).map_err(|e| {
                    anyhow!("cannot upload {} to {}: {e}", short(&a.oid), printable(&href, 200))
                })?;
                let status = resp.status().as_u16();
                if !(200..300).contains(&status) {
                    bail!("the LFS server answered {status} to the upload of {}", short(&a.oid));
                }
                if let Some((href, headers)) = a.verify {
                    let size = bytes.len();
                    let mut req =
                        self.agent.post(&href).header("Accept", MEDIA).header("Content-Type", MEDIA);
                    for (k, v) in &headers {
                        req = req.header(k, v);
                    }
                    let body = json!({"oid": a.oid, "size": size}).to_string();
                    let resp = req
                        .send(body.as_bytes())
                        .map_err(|e| anyhow!("cannot verify {}: {e}", short(&a.oid)))?;
                    let status = resp.status().as_u16();
                    if !(200..300).contains(&status) {
                        bail!("the LFS server answered {status} to the verification of {}", short(&a.oid));
                    }
                }
                sent += 1;
            }
        }
        Ok(sent)
    }

    /// Downloads each `(sha256, size)` and hands its body to `keep`, which
    /// reads at most `min(size, cap)` bytes of it (more is an error, and the
    /// connection is dropped); every request has a no-progress timeout and
    /// a deadline. Returns each object's outcome, and one note per answer
    /// for an object we did not ask for (ignored, never fetched).
    pub fn download(
        &mut self,
        objects: &[(String, u64)],
        cap: u64,
        keep: &mut dyn FnMut(&str, &mut dyn Read) -> Result<()>,
    ) -> Result<Downloaded> {
        let sizes: HashMap<&str, u64> = objects.iter().map(|(o, s)| (o.as_str(), *s)).collect();
        let mut out = Vec::with_capacity(objects.len());
        let mut notes = Vec::new();
        for chunk in objects.chunks(BATCH) {
            for a in self.batch("download", chunk)? {
                let Some(&size) = sizes.get(a.oid.as_str()) else {
                    notes.push(format!(
                        "the LFS server answered for {}, which we did not ask for; ignored",
                        printable(&a.oid, 80)
                    ));
                    continue;
                };
                let got = match (a.error, a.action) {
                    (Some(e), _) => Err(anyhow!("the LFS server has no copy of {}: {e}", short(&a.oid))),
                    (None, None) => Err(anyhow!("the LFS server gave no download for {}", short(&a.oid))),
                    (None, Some((href, headers))) => self.get(&href, &headers, size.min(cap), &a.oid, keep),
                };
                out.push((a.oid, got));
            }
        }
        Ok((out, notes))
    }

    fn get(
        &self,
        href: &str,
        headers: &[(String, String)],
        limit: u64,
        oid: &str,
        keep: &mut dyn FnMut(&str, &mut dyn Read) -> Result<()>,
    ) -> Result<()> {
        let mut req = self.agent.get(href);
        for (k, v) in headers {
            req = req.header(k, v);
        }
        let resp = req.call().map_err(|e| anyhow!("cannot download {}: {e}", short(oid)))?;
        let status = resp.status().as_u16();
        if status != 200 {
            bail!("the LFS server answered {status} to the download of {}", short(oid));
        }
        // ureq's own body limit is lifted: ours is the object's.
        let body = resp.into_body().into_with_config().limit(limit.saturating_add(1)).reader();
        let mut capped = Capped::new(body, limit);
        keep(oid, &mut capped)
    }

    /// One Batch API call; asks `git credential` once on a 401.
    fn batch(&mut self, operation: &str, objects: &[(String, u64)]) -> Result<Vec<Answer>> {
        let body = json!({
            "operation": operation,
            "transfers": ["basic"],
            "objects": objects.iter().map(|(oid, size)| json!({"oid": oid, "size": size})).collect::<Vec<_>>(),
            "hash_algo": "sha256",
        })
        .to_string();
        let url = format!("{}/objects/batch", self.endpoint.url);
        let mut asked: Option<Credential> = None;
        loop {
            let mut req = self.agent.post(&url).header("Accept", MEDIA).header("Content-Type", MEDIA);
            for (k, v) in &self.endpoint.headers {
                req = req.header(k, v);
            }
            if let Some(a) = &self.auth {
                req = req.header("Authorization", a);
            }
            let resp = match req.send(body.as_bytes()) {
                Ok(r) => r,
                Err(e) => return Err(NoLfs(format!("no Git LFS server answers at {url}: {e}")).into()),
            };
            let status = resp.status().as_u16();
            match status {
                200 => {
                    if let Some(c) = &asked {
                        c.tell(self.git, "approve");
                    }
                    let mut text = Vec::new();
                    resp.into_body()
                        .into_with_config()
                        .limit(ANSWER_MAX_BYTES + 1)
                        .reader()
                        .take(ANSWER_MAX_BYTES + 1)
                        .read_to_end(&mut text)
                        .with_context(|| format!("cannot read the answer of {url}"))?;
                    if text.len() as u64 > ANSWER_MAX_BYTES {
                        bail!(
                            "the LFS server at {url} answered more than {} MiB; not read",
                            ANSWER_MAX_BYTES >> 20
                        );
                    }
                    return parse_batch(&text, operation)
                        .with_context(|| format!("{url} is not a Git LFS server"));
                }
                401 if asked.is_none() && self.endpoint.headers.is_empty() => {
                    let c = Credential::fill(self.git, &self.endpoint.url)?;
                    self.auth = Some(c.basic());
                    asked = Some(c);
                }
                401 | 403 => {
                    if let Some(c) = &asked {
                        c.tell(self.git, "reject");
                    }
                    bail!("the LFS server at {url} refused us ({status}): check your credentials or access");
                }
                404 | 405 | 501 => {
                    return Err(NoLfs(format!("no Git LFS server at {url} (HTTP {status})")).into());
                }
                _ => bail!("the LFS server at {url} answered HTTP {status}"),
            }
        }
    }
}

/// The objects of a batch response; an answer whose oid is not a sha256
/// is left out (nothing we asked for has such a name).
pub fn parse_batch(text: &[u8], operation: &str) -> Result<Vec<Answer>> {
    let v: Value = serde_json::from_slice(text).context("its answer is not JSON")?;
    if let Some(t) = v.get("transfer").and_then(Value::as_str)
        && t != "basic"
    {
        bail!("it chose the '{}' transfer, and we speak 'basic' only", printable(t, 40));
    }
    let objects = v.get("objects").and_then(Value::as_array).context("its answer has no objects")?;
    let action = |o: &Value, name: &str| {
        let a = o.get("actions")?.get(name)?;
        Some((a.get("href")?.as_str()?.to_owned(), headers_of(a)))
    };
    Ok(objects
        .iter()
        .filter(|o| o.get("oid").and_then(Value::as_str).is_some_and(super::manifest::is_sha256))
        .map(|o| Answer {
            oid: o.get("oid").and_then(Value::as_str).unwrap_or("").to_owned(),
            action: action(o, operation),
            verify: action(o, "verify"),
            error: o.get("error").map(|e| {
                let code = e.get("code").and_then(Value::as_i64).unwrap_or(0);
                let msg = e.get("message").and_then(Value::as_str).unwrap_or("no message");
                format!("{} ({code})", printable(msg, 200))
            }),
        })
        .collect())
}

/// An oid as the user sees it: its id (oids are checked sha256s by now;
/// anything else is escaped, never sliced).
fn short(oid: &str) -> String {
    match oid.get(..crate::store::ID_LEN) {
        Some(id) if super::manifest::is_sha256(oid) => id.to_owned(),
        _ => printable(oid, 80),
    }
}

/// A username and password from `git credential fill`.
struct Credential {
    fields: Vec<(String, String)>,
}

impl Credential {
    fn fill(git: &Git, url: &str) -> Result<Credential> {
        let (protocol, rest) = url.split_once("://").context("the LFS URL has no scheme")?;
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        let input = format!("protocol={protocol}\nhost={host}\npath={path}\n\n");
        let out = git
            .run_with(&["credential", "fill"], Some(input.as_bytes()), &[])
            .context("the LFS server wants credentials and git has none for it")?;
        let fields: Vec<(String, String)> = String::from_utf8_lossy(&out)
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        if !fields.iter().any(|(k, _)| k == "password") {
            bail!("git credential fill gave no password for {host}");
        }
        Ok(Credential { fields })
    }

    fn get(&self, key: &str) -> &str {
        self.fields.iter().find(|(k, _)| k == key).map_or("", |(_, v)| v.as_str())
    }

    fn basic(&self) -> String {
        format!("Basic {}", base64(format!("{}:{}", self.get("username"), self.get("password")).as_bytes()))
    }

    /// `git credential approve|reject`, so helpers keep or forget it.
    fn tell(&self, git: &Git, verb: &str) {
        let mut input: String = self.fields.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        input.push('\n');
        let _ = git.run_with(&["credential", verb], Some(input.as_bytes()), &[]);
    }
}

/// Standard base64 with padding (HTTP Basic authentication).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_from_remote_urls() {
        assert_eq!(
            derive("https://git.example/team/app"),
            Derived::Http("https://git.example/team/app.git/info/lfs".into())
        );
        assert_eq!(
            derive("https://git.example/team/app.git/"),
            Derived::Http("https://git.example/team/app.git/info/lfs".into())
        );
        assert_eq!(
            derive("git@git.example:team/app.git"),
            Derived::Ssh {
                url: "https://git.example/team/app.git/info/lfs".into(),
                user_host: "git@git.example".into(),
                port: None,
                path: "team/app.git".into()
            }
        );
        assert_eq!(
            derive("ssh://git@git.example:2222/team/app"),
            Derived::Ssh {
                url: "https://git.example/team/app.git/info/lfs".into(),
                user_host: "git@git.example".into(),
                port: Some("2222".into()),
                path: "team/app.git".into()
            }
        );
        assert_eq!(derive("file:///srv/app.git"), Derived::Local);
        assert_eq!(derive("/srv/app.git"), Derived::Local);
        assert_eq!(derive("../app.git"), Derived::Local);
    }

    #[test]
    fn base64_pads() {
        assert_eq!(base64(b"user:pass"), "dXNlcjpwYXNz");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"a"), "YQ==");
        assert_eq!(base64(b""), "");
    }

    #[test]
    fn batch_answers() {
        let (a, b, c) = ("a".repeat(64), "b".repeat(64), "c".repeat(64));
        let text = format!(
            r#"{{"transfer":"basic","objects":[
            {{"oid":"{a}","size":1,"actions":{{"upload":{{"href":"http://x/aa","header":{{"Authorization":"Bearer t","X-Custom":"leak"}}}},
             "verify":{{"href":"http://x/verify"}}}}}},
            {{"oid":"{b}","size":2}},
            {{"oid":"{c}","size":3,"error":{{"code":404,"message":"Object does not exist\u001b[2J"}}}}]}}"#
        );
        let answers = parse_batch(text.as_bytes(), "upload").unwrap();
        assert_eq!(
            answers[0].action,
            Some(("http://x/aa".into(), vec![("Authorization".into(), "Bearer t".into())]))
        );
        assert!(answers[0].verify.is_some());
        assert!(answers[1].action.is_none() && answers[1].error.is_none());
        assert_eq!(answers[2].error.as_deref(), Some("Object does not exist\\u{1b}[2J (404)"));
        assert!(parse_batch(br#"{"transfer":"multipart","objects":[]}"#, "upload").is_err());
    }

    #[test]
    fn a_short_or_non_ascii_oid_in_an_answer_is_left_out_not_sliced() {
        let text = r#"{"objects":[{"oid":"ab"},{"oid":"ééééééééééééé"},{"oid":"ABCDEF"}]}"#;
        assert!(parse_batch(text.as_bytes(), "download").unwrap().is_empty());
        assert_eq!(short("éééééééé"), "éééééééé");
        assert_eq!(short(&"a".repeat(64)), "a".repeat(12));
    }
}
