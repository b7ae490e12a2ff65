//! The call log: one SQLite row per delivered call, for `tokensieve gain`.
//!
//! `$TOKENSIEVE_HOME/history.db`, WAL (many shims write at once, readers never
//! block them), no fsync (statistics, not records; see `connect`), a 5 s busy
//! timeout, schema versioned with `PRAGMA user_version`. Only the tool name
//! and its leading subcommand words are kept, never flag values or the full
//! argument list: they can hold secrets.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, params};

pub mod query;

use crate::auditor::Receipt;
use crate::homefs::Dir;
use crate::settings::Hint;

/// Each entry moves the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    "CREATE TABLE calls (
        id INTEGER PRIMARY KEY,
        ts_ms INTEGER NOT NULL,
        tool TEXT NOT NULL,
        subcommand TEXT NOT NULL,
        original_tokens INTEGER NOT NULL,
        compressed_tokens INTEGER NOT NULL,
        shape TEXT NOT NULL,
        exit_code INTEGER NOT NULL,
        duration_ms INTEGER NOT NULL,
        object_id TEXT
    );
    CREATE INDEX calls_ts ON calls(ts_ms);",
    // What the agent's harness would have shown without us: the raw
    // output, cut to the budget's characters. NULL for rows recorded before
    // (read as the original count: no budget was known).
    "ALTER TABLE calls ADD COLUMN harness_tokens INTEGER;",
    // The typed result of each call (`crate::typed`, docs/FORMAT.md §9):
    // its status (rows from before get the exit code's verdict), the
    // project it ran in, the result as JSON, and one row per finding with
    // a path, indexed for `tokensieve recall`.
    "ALTER TABLE calls ADD COLUMN status TEXT;
    ALTER TABLE calls ADD COLUMN cwd TEXT;
    ALTER TABLE calls ADD COLUMN result TEXT;
    UPDATE calls SET status = CASE WHEN exit_code = 0 THEN 'passed'
        WHEN exit_code BETWEEN 1 AND 125 THEN 'failed' ELSE 'error' END;
    CREATE TABLE findings (
        call_id INTEGER NOT NULL,
        path TEXT NOT NULL,
        line INTEGER,
        kind TEXT NOT NULL,
        fingerprint TEXT NOT NULL
    );
    CREATE INDEX findings_path ON findings(path, call_id);
    CREATE INDEX calls_status ON calls(status, ts_ms);
    CREATE INDEX calls_tool ON calls(tool, ts_ms);
    CREATE INDEX calls_object ON calls(object_id);",
];

const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
pub fn db_path(home: &Path) -> PathBuf {
    home.join("history.db")
}

/// One row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub ts_ms: i64,
    pub tool: String,
    pub subcommand: String,
    pub original_tokens: u64,
    pub compressed_tokens: u64,
    /// Tokens of what the harness would have shown without us (the raw
    /// output cut to the budget; the original count without a budget).
    pub harness_tokens: u64,
    pub shape: String,
    pub exit_code: i32,
    pub duration_ms: u64,
    pub object_id: Option<String>,
    /// `passed`, `failed` or `error`: the exit code's verdict.
    pub status: String,
    /// The working directory the command ran in (`recall --cwd`).
    pub cwd: Option<String>,
    /// The typed result as JSON (`crate::typed`), when one was made.
    pub result: Option<String>,
    /// `(path, line, kind, fingerprint)` of each finding with a path.
    pub findings: Vec<(String, Option<u64>, String, String)>,
}

impl Call {
    /// The row for a delivered call. Without a hint (bare filter mode) the
    /// tool is `-`.
    pub fn new(hint: Option<&Hint>, receipt: &Receipt, harness_tokens: usize, duration: Duration) -> Call {
        let (tool, subcommand) = match hint {
            Some(h) => crate::command::command_words(&h.command),
            None => ("-".to_owned(), String::new()),
        };
        let exit_code = hint.map(|h| h.exit_code).unwrap_or(0);
        let status = crate::typed::status_of(&tool, exit_code).into();
        Call {
            ts_ms: now_ms(),
            tool,
            subcommand,
            original_tokens: receipt.original as u64,
            // What the agent paid: the output and the receipt line it read.
            compressed_tokens: (receipt.compressed + receipt.overhead) as u64,
            harness_tokens: harness_tokens as u64,
            shape: receipt.shape.to_string(),
            exit_code: hint.map(|h| h.exit_code).unwrap_or(0),
            duration_ms: duration.as_millis() as u64,
            object_id: receipt.raw_id.clone(),
            status,
            cwd: std::env::current_dir().ok().map(|d| d.to_string_lossy().into_owned()),
            result: None,
            findings: Vec::new(),
        }
    }

    /// Keeps the typed result with the row (its raw id is the row's).
    pub fn with_result(mut self, result: &crate::typed::TypedResult) -> Call {
        let mut r = result.clone();
        r.raw = self.object_id.clone();
        self.status = r.status.into();
        // the tool a wrapper ran (`npx tsc` is tsc), for `recall --tool`
        if r.tool != "-" {
            self.tool = r.tool.clone();
            self.subcommand = r.subcommand.clone();
        }
        self.findings = r
            .findings
            .iter()
            .filter_map(|f| Some((f.path.clone()?, f.line, f.kind.to_string(), f.fingerprint.clone())))
            .collect();
        self.result = Some(r.to_json().to_string());
        self
    }
}

pub fn now_ms() -> i64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// Whether an error chain comes from a damaged database file.
pub fn is_corrupt(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<rusqlite::Error>()
            .and_then(|e| e.sqlite_error_code())
            .is_some_and(|c| matches!(c, ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt))
    })
}

/// Opens (creating if needed) and migrates the database.
pub fn open(home: &Path) -> Result<Connection> {
    let path = db_path(home);
    // One stat on every call; the folder and file are made only the first
    // time, through `homefs` (0700 folder, 0600 file: SQLite gives its -wal
    // and -shm files the database file's mode). Two first calls at once:
    // the second finds the file there, which is fine.
    if std::fs::symlink_metadata(&path).is_err() {
        let dir = Dir::home(home, true).with_context(|| format!("cannot create {}", home.display()))?;
        dir.create_new("history.db").with_context(|| format!("cannot create {}", path.display()))?;
    }
    connect(&path)
}

/// Opens an existing database for reading; `None` when there is none yet.
pub fn open_existing(home: &Path) -> Result<Option<Connection>> {
    let path = db_path(home);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    connect(&path).map(Some)
}

fn connect(path: &Path) -> Result<Connection> {
    // SQLite refuses a symlink anywhere in a NOFOLLOW path, so the home's
    // own path (which the user may reach through a symlink) is resolved
    // first; the database file itself must then not be one.
    let real = match (path.parent().map(std::fs::canonicalize), path.file_name()) {
        (Some(Ok(dir)), Some(name)) => dir.join(name),
        _ => path.to_owned(),
    };
    let setup = || -> rusqlite::Result<Connection> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let conn = Connection::open_with_flags(&real, flags)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // No fsync at all: an fsync costs ~1 ms here, on every call, for a
        // table of statistics. A crash of ours cannot damage the file; an
        // OS crash or power cut can lose recent rows or, rarely, corrupt it,
        // which `describe_error` explains how to reset. The last connection
        // to close checkpoints the WAL into the database and removes it, so
        // the next open has no WAL to recover: leaving the WAL behind (to
        // batch checkpoints) made every open re-read it, ~3 ms at steady
        // state (measured in docs/performance.md).
        conn.pragma_update(None, "synchronous", "OFF")?;
        migrate(&conn)?;
        Ok(conn)
    };
    setup().with_context(|| format!("cannot open {}", path.display()))
}

/// One line for a failed history call: corruption gets its fix spelled out.
pub fn describe_error(err: &anyhow::Error, home: &Path) -> String {
    if is_corrupt(err) {
        let db = db_path(home);
        format!(
            "the history database {} is corrupt; move it aside (mv {0} {0}.corrupt) and it will be \
             recreated on the next call",
            db.display()
        )
    } else {
        format!("{err:#}")
    }
}

fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let target = MIGRATIONS.len() as i64;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version >= target {
        return Ok(());
    }
    // A fresh database: many processes may get here at once. Switching to
    // WAL can report "locked" without waiting on the busy handler, so retry
    // within the same budget.
    retry_busy(|| conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0)).map(|_| ()))?;
    retry_busy(|| {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let done = (|| {
            let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
            for sql in MIGRATIONS.iter().skip(v.max(0) as usize) {
                conn.execute_batch(sql)?;
            }
            conn.pragma_update(None, "user_version", target)?;
            conn.execute_batch("COMMIT")
        })();
        if done.is_err() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        done
    })
}

fn retry_busy(mut f: impl FnMut() -> rusqlite::Result<()>) -> rusqlite::Result<()> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        match f() {
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
                ) && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// Appends one row through a connection from `open`.
pub fn record(conn: &Connection, home: &Path, call: &Call) -> Result<()> {
    insert(conn, call).with_context(|| format!("cannot write to {}", db_path(home).display()))
}

pub fn insert(conn: &Connection, c: &Call) -> Result<()> {
    // One transaction for the row and its findings (one commit, not many).
    let tx = conn.unchecked_transaction()?;
    tx.execute(
        "INSERT INTO calls (ts_ms, tool, subcommand, original_tokens, compressed_tokens, shape, \
         exit_code, duration_ms, object_id, harness_tokens, status, cwd, result) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            c.ts_ms,
            c.tool,
            c.subcommand,
            c.original_tokens as i64,
            c.compressed_tokens as i64,
            c.shape,
            c.exit_code,
            c.duration_ms as i64,
            c.object_id,
            c.harness_tokens as i64,
            c.status,
            c.cwd,
            c.result
        ],
    )?;
    if !c.findings.is_empty() {
        let id = tx.last_insert_rowid();
        let mut stmt = tx.prepare(
            "INSERT INTO findings (call_id, path, line, kind, fingerprint) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (path, line, kind, fp) in &c.findings {
            stmt.execute(params![id, path, line.map(|l| l as i64), kind, fp])?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// The stored typed result of capture `id` (a raw output id, or any unique
/// prefix of 4+ hex digits), as recorded with its call: the newest call
/// that stored that raw output. `None` when no call with a result names it.
/// Its JSON shape is docs/FORMAT.md §9 (`show ID --summary`).
pub fn result_of(home: &Path, id: &str) -> Result<Option<serde_json::Value>> {
    let Some(conn) = open_existing(home)? else { return Ok(None) };
    let short: String = id.chars().take(crate::store::ID_LEN).collect();
    let found: Option<String> = conn
        .query_row(
            "SELECT result FROM calls WHERE object_id LIKE ?1 || '%' AND result IS NOT NULL \
             ORDER BY ts_ms DESC, id DESC LIMIT 1",
            [short],
            |r| r.get(0),
        )
        .optional()?;
    Ok(found.and_then(|s| serde_json::from_str(&s).ok()))
}

/// Savings of one command (tool + subcommand words).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandStats {
    pub tool: String,
    pub subcommand: String,
    pub calls: u64,
    pub original_tokens: u64,
    pub compressed_tokens: u64,
    /// What the harness would have shown without us (rows from before it
    /// was recorded count their original tokens).
    pub harness_tokens: u64,
}

impl CommandStats {
    pub fn command(&self) -> String {
        if self.subcommand.is_empty() {
            self.tool.clone()
        } else {
            format!("{} {}", self.tool, self.subcommand)
        }
    }

    pub fn saved_tokens(&self) -> u64 {
        self.original_tokens.saturating_sub(self.compressed_tokens)
    }

    /// Saved against what the harness would have shown (negative when a
    /// view cost more than the harness's cut of the raw output).
    pub fn saved_vs_harness(&self) -> i64 {
        self.harness_tokens as i64 - self.compressed_tokens as i64
    }
}

/// Per-command totals for calls at or after `since_ms`, most saved first.
pub fn by_command(conn: &Connection, since_ms: Option<i64>) -> Result<Vec<CommandStats>> {
    totals_by(conn, since_ms, None, "tool, subcommand")
}

/// Per-tool totals (subcommand empty) for calls at or after `since_ms` made
/// in `cwd` or a directory below it (`gain --markdown`).
pub fn by_tool(conn: &Connection, since_ms: Option<i64>, cwd: Option<&str>) -> Result<Vec<CommandStats>> {
    totals_by(conn, since_ms, cwd, "tool")
}

fn totals_by(
    conn: &Connection,
    since_ms: Option<i64>,
    cwd: Option<&str>,
    group: &str,
) -> Result<Vec<CommandStats>> {
    let sub = if group == "tool" { "''" } else { "subcommand" };
    let mut stmt = conn.prepare(&format!(
        "SELECT tool, {sub}, COUNT(*), SUM(original_tokens), SUM(compressed_tokens), \
         SUM(COALESCE(harness_tokens, original_tokens)) FROM calls \
         WHERE ts_ms >= ?1 AND (?2 IS NULL OR cwd = ?2 OR substr(cwd, 1, length(?2) + 1) = ?2 || '/') \
         GROUP BY {group} \
         ORDER BY SUM(original_tokens) - SUM(compressed_tokens) DESC, COUNT(*) DESC, {group}"
    ))?;
    let cwd = cwd.map(|d| d.trim_end_matches('/').to_string());
    let rows = stmt.query_map(params![since_ms.unwrap_or(i64::MIN), cwd], |r| {
        Ok(CommandStats {
            tool: r.get(0)?,
            subcommand: r.get(1)?,
            calls: r.get::<_, i64>(2)? as u64,
            original_tokens: r.get::<_, i64>(3)? as u64,
            compressed_tokens: r.get::<_, i64>(4)? as u64,
            harness_tokens: r.get::<_, i64>(5)? as u64,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// `(time, tool)` of every call at or after `since_ms`, oldest first
/// (`discover` looks for the row of a command a transcript recorded).
pub fn tool_times(conn: &Connection, since_ms: i64) -> Result<Vec<(i64, String)>> {
    let mut stmt = conn.prepare("SELECT ts_ms, tool FROM calls WHERE ts_ms >= ?1 ORDER BY ts_ms")?;
    let rows = stmt.query_map([since_ms], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// What `tokensieve recall` asks for; every field narrows the list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    pub status: Option<String>,
    pub tool: Option<String>,
    /// A finding's path ends with this (`src/auth.rs` matches
    /// `./src/auth.rs` and `/home/me/app/src/auth.rs`).
    pub file: Option<String>,
    pub since_ms: Option<i64>,
    /// The directory the command ran in, or one below it.
    pub cwd: Option<String>,
    pub limit: usize,
}

/// One capture found by `recall`.
#[derive(Clone, Debug, PartialEq)]
pub struct Recalled {
    pub ts_ms: i64,
    pub tool: String,
    pub subcommand: String,
    pub status: String,
    pub exit_code: i32,
    pub object_id: Option<String>,
    pub cwd: Option<String>,
    pub result: Option<serde_json::Value>,
}

/// Whether a finding's `path` is the file `file` names (the same path, or
/// one ending in `/file`).
pub fn path_matches(path: &str, file: &str) -> bool {
    let path = path.trim_start_matches("./");
    path == file || path.ends_with(&format!("/{file}"))
}

/// Calls with a typed result that match `q`, newest first. Status and tool
/// go through their `(…, ts_ms)` indexes; `--file` through `findings_path`
/// for an exact path, then a scan of the (small) findings table for a path
/// that ends with it.
pub fn recall(conn: &Connection, q: &Query) -> Result<Vec<Recalled>> {
    let mut sql = String::from(
        "SELECT ts_ms, tool, subcommand, status, exit_code, object_id, cwd, result FROM calls \
         WHERE result IS NOT NULL",
    );
    let mut args: Vec<rusqlite::types::Value> = Vec::new();
    // adds a value, gives its `?N`
    let mut bind = |v: rusqlite::types::Value| {
        args.push(v);
        format!("?{}", args.len())
    };
    if let Some(s) = &q.status {
        sql.push_str(&format!(" AND status = {}", bind(s.clone().into())));
    }
    if let Some(t) = &q.tool {
        sql.push_str(&format!(" AND tool = {}", bind(t.clone().into())));
    }
    if let Some(ms) = q.since_ms {
        sql.push_str(&format!(" AND ts_ms >= {}", bind(ms.into())));
    }
    if let Some(dir) = &q.cwd {
        let dir = dir.trim_end_matches('/').to_string();
        // LIKE's wildcards in a directory name match themselves
        let escaped = dir.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
        let (d, e) = (bind(dir.into()), bind(escaped.into()));
        sql.push_str(&format!(" AND (cwd = {d} OR cwd LIKE {e} || '/%' ESCAPE '\\')"));
    }
    if let Some(f) = &q.file {
        let f = bind(f.trim_start_matches("./").to_string().into());
        sql.push_str(&format!(
            " AND id IN (SELECT call_id FROM findings WHERE path = {f} OR path = './' || {f} \
             OR substr(path, -length({f}) - 1) = '/' || {f})"
        ));
    }
    sql.push_str(" ORDER BY ts_ms DESC, id DESC LIMIT ");
    sql.push_str(&q.limit.to_string());
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(args), |r| {
        Ok(Recalled {
            ts_ms: r.get(0)?,
            tool: r.get(1)?,
            subcommand: r.get(2)?,
            status: r.get::<_, Option<String>>(3)?.unwrap_or_default(),
            exit_code: r.get(4)?,
            object_id: r.get(5)?,
            cwd: r.get(6)?,
            result: r.get::<_, Option<String>>(7)?.and_then(|s| serde_json::from_str(&s).ok()),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

/// Whether some row refers to an object id starting with `id`.
pub fn mentions_object(home: &Path, id: &str) -> bool {
    let Ok(Some(conn)) = open_existing(home) else { return false };
    let short: String = id.chars().take(crate::store::ID_LEN).collect();
    // Ids are hex, so LIKE has no wildcards to escape.
    conn.query_row("SELECT 1 FROM calls WHERE object_id LIKE ?1 || '%' LIMIT 1", [short], |_| Ok(())).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_create_the_schema_once() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open(dir.path()).unwrap();
        let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(v, MIGRATIONS.len() as i64);
        let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
        drop(conn);
        open(dir.path()).unwrap();
    }

    /// The schema every database had before `harness_tokens`: version 1.
    const VERSION_1: &str = "CREATE TABLE calls (id INTEGER PRIMARY KEY, ts_ms INTEGER NOT NULL, \
        tool TEXT NOT NULL, subcommand TEXT NOT NULL, original_tokens INTEGER NOT NULL, \
        compressed_tokens INTEGER NOT NULL, shape TEXT NOT NULL, exit_code INTEGER NOT NULL, \
        duration_ms INTEGER NOT NULL, object_id TEXT); CREATE INDEX calls_ts ON calls(ts_ms); \
        PRAGMA user_version = 1;";

    #[test]
    fn a_version_1_database_gains_the_harness_column() {
        let dir = tempfile::tempdir().unwrap();
        {
            let old = Connection::open(db_path(dir.path())).unwrap();
            old.execute_batch(VERSION_1).unwrap();
            old.execute(
                "INSERT INTO calls (ts_ms, tool, subcommand, original_tokens, compressed_tokens, shape, \
                 exit_code, duration_ms, object_id) VALUES (1, 'aws', 'ec2', 1000, 100, 'Outline', 0, 3, NULL)",
                [],
            )
            .unwrap();
        }
        let conn = open(dir.path()).unwrap();
        let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(v, MIGRATIONS.len() as i64);
        let mut call = Call::new(
            None,
            &Receipt {
                original: 5000,
                compressed: 700,
                shape: crate::auditor::Shape::Outline,
                raw_id: None,
                overhead: 0,
            },
            2000,
            Duration::from_millis(1),
        );
        call.tool = "aws".into();
        call.subcommand = "ec2".into();
        insert(&conn, &call).unwrap();
        let stats = by_command(&conn, None).unwrap();
        // The old row counts its original tokens as what the harness showed.
        assert_eq!(
            (stats[0].original_tokens, stats[0].harness_tokens, stats[0].compressed_tokens),
            (6000, 3000, 800)
        );
        assert_eq!(stats[0].saved_vs_harness(), 2200);
    }

    /// Today's schema before the typed results: version 2, with rows.
    #[test]
    fn a_version_2_database_gains_status_results_and_findings() {
        let dir = tempfile::tempdir().unwrap();
        {
            let old = Connection::open(db_path(dir.path())).unwrap();
            old.execute_batch(VERSION_1).unwrap();
            old.execute_batch(&format!("{} PRAGMA user_version = 2;", MIGRATIONS[1])).unwrap();
            for (code, obj) in [(0, "aaaaaaaaaaaa"), (101, "bbbbbbbbbbbb"), (137, "cccccccccccc")] {
                old.execute(
                    "INSERT INTO calls (ts_ms, tool, subcommand, original_tokens, compressed_tokens, shape, \
                     exit_code, duration_ms, object_id, harness_tokens) VALUES (1, 'cargo', 'test', 10, 5, \
                     'text:cargo', ?1, 3, ?2, 10)",
                    params![code, obj],
                )
                .unwrap();
            }
        }
        let conn = open(dir.path()).unwrap();
        let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(v, MIGRATIONS.len() as i64);
        let statuses: Vec<String> = conn
            .prepare("SELECT status FROM calls ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(statuses, ["passed", "failed", "error"]);
        // old rows have no result to show
        assert_eq!(result_of(dir.path(), "bbbb").unwrap(), None);
        let plan: String = conn
            .query_row("EXPLAIN QUERY PLAN SELECT call_id FROM findings WHERE path = 'src/a.rs'", [], |r| {
                r.get(3)
            })
            .unwrap();
        assert!(plan.contains("findings_path"), "{plan}");

        let lines = ["src/a.rs:3:1: error: bad"];
        let ledger = crate::lines::ledger::scan(lines);
        let result = crate::typed::TypedResult::of_text(&["gcc".into()], 1, &lines, &ledger, None);
        let receipt = Receipt {
            original: 50,
            compressed: 20,
            shape: crate::auditor::Shape::Text("cc".into()),
            raw_id: Some("dddddddddddd".into()),
            overhead: 0,
        };
        let hint = Hint { command: vec!["gcc".into()], exit_code: 1 };
        let call = Call::new(Some(&hint), &receipt, 50, Duration::from_millis(1)).with_result(&result);
        insert(&conn, &call).unwrap();
        let stored = result_of(dir.path(), "dddd").unwrap().expect("stored");
        assert_eq!(stored["raw"], "dddddddddddd");
        assert_eq!(stored["findings"][0]["path"], "src/a.rs");
        let n: i64 = conn
            .query_row("SELECT COUNT(*) FROM findings WHERE path = 'src/a.rs'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }

    #[test]
    fn rows_group_by_command_and_window() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open(dir.path()).unwrap();
        let row = |ts_ms, tool: &str, sub: &str, o, c| Call {
            ts_ms,
            tool: tool.into(),
            subcommand: sub.into(),
            original_tokens: o,
            compressed_tokens: c,
            harness_tokens: o,
            shape: "JSON".into(),
            exit_code: 0,
            duration_ms: 1,
            object_id: None,
            status: "passed".into(),
            cwd: None,
            result: None,
            findings: Vec::new(),
        };
        insert(&conn, &row(1_000, "aws", "ec2 describe-vpcs", 100, 40)).unwrap();
        insert(&conn, &row(2_000, "aws", "ec2 describe-vpcs", 50, 10)).unwrap();
        insert(&conn, &row(3_000, "gh", "api", 10, 10)).unwrap();
        let all = by_command(&conn, None).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].command(), "aws ec2 describe-vpcs");
        assert_eq!((all[0].calls, all[0].original_tokens, all[0].compressed_tokens), (2, 150, 50));
        assert_eq!(all[0].saved_tokens(), 100);
        assert_eq!(all[0].harness_tokens, 150);
        let recent = by_command(&conn, Some(2_500)).unwrap();
        assert_eq!(recent.len(), 1);
        assert_eq!(recent[0].tool, "gh");
    }
}
