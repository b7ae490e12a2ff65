//! Reading the tool's stdout when an agent reads ours (SPEC §3.4–3.5).
//!
//! The first bytes decide: binary streams through at once; JSON and text are
//! gathered (agents do not watch output stream by). Up to a size an output
//! is held whole (`Captured::Whole`); past it the capture keeps head, tail
//! and signal lines (`keep`) while every byte goes to the raw store
//! (`store::Spool`) and the exact token count runs on the way
//! (`Captured::Kept`). Whatever cannot be treated that way turns into a
//! byte-for-byte stream, the bytes held so far first: binary bytes later
//! on, a raw store that is off, full or over its cap (then nothing could
//! show what was left out), or the opt-in wait limit. A stop signal (see
//! `child`) ends the gathering after a short grace for the tool to finish.

use std::fs::File;
use std::io::{self, Read, Write};
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::process::Child;
use std::time::{Duration, Instant};

use super::keep::{KeepLimits, Keeper, Kept};
use crate::auditor::{Encoding, Tally};
use crate::json::sniff::{SNIFF_LIMIT, Sniff, sniff};
use crate::store::{Object, ObjectWriter, Store};

/// What a capture holds in memory at most (`TOKENSIEVE_CAPTURE_MAX_BYTES`).
pub const DEFAULT_CAPTURE_MAX: usize = 64 << 20;
/// Text up to this size (or the capture cap, if lower) is rendered whole;
/// JSON up to the cap, since it is parsed as one document.
pub const TEXT_WHOLE_MAX: usize = 8 << 20;
/// After a stop signal, how long the tool may go on printing: enough for
/// its own handler (a shell trap, pytest's summary on Ctrl-C) on a loaded
/// machine, short enough that whoever stopped us gets the output soon.
pub const STOP_GRACE: Duration = Duration::from_secs(2);
/// How often a stopped capture looks whether the tool has exited.
const TICK: Duration = Duration::from_millis(25);
const CHUNK: usize = 64 * 1024;

/// Limits for one capture.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_bytes: usize,
    /// Opt-in (`TOKENSIEVE_TEXT_WAIT_SECS`): text still coming after this
    /// long is streamed from then on.
    pub text_wait: Option<Duration>,
    pub keep: KeepLimits,
}

impl Limits {
    pub fn from_env() -> Limits {
        let cfg = crate::config::get();
        Limits {
            max_bytes: cfg
                .capture_max_bytes()
                .map_or(DEFAULT_CAPTURE_MAX, |n| usize::try_from(n).unwrap_or(usize::MAX)),
            text_wait: cfg.text_wait_secs().map(Duration::from_secs),
            keep: KeepLimits::default(),
        }
    }

    fn whole_max(&self, json: bool) -> usize {
        if json { self.max_bytes } else { self.max_bytes.min(TEXT_WHOLE_MAX) }
    }
}

/// What became of the child's stdout.
pub enum Captured {
    /// Everything, in memory, for the pipeline, with what its first bytes
    /// said (`Json` or `Text`), which the pipeline takes as its sniff.
    Whole(Vec<u8>, Sniff),
    /// Too large to hold: what was kept, with every byte in the raw store.
    Kept(Spooled),
    /// Already written to our stdout, byte for byte.
    Streamed,
}

/// A capture past the memory limit.
pub struct Spooled {
    pub kept: Kept,
    /// Where all of it is.
    pub object: Object,
    /// The exact token count of all of it.
    pub tokens: usize,
}

impl<'a> From<&'a Spooled> for crate::handoff::Output<'a> {
    fn from(s: &'a Spooled) -> Self {
        crate::handoff::Output::Spooled {
            text: &s.kept.text,
            excerpt: &s.kept.excerpt,
            object: &s.object,
            tokens: s.tokens,
        }
    }
}

/// A stop signal that arrived while the tool ran.
#[derive(Clone, Copy, Debug)]
pub struct Stop {
    pub signal: i32,
    pub at: Instant,
}

/// The tool's stdout, the stop pipe that the signal handler writes to, and
/// the tool itself (to notice, once stopped, that it has exited).
pub struct Source<'a> {
    /// The tool's stdout (with its stderr when they were joined).
    pub out: File,
    pub stop_fd: RawFd,
    pub child: &'a mut Child,
    pub stop: Option<Stop>,
}

enum Event {
    Data(usize),
    /// End of output, or the grace after a stop is over.
    End,
    /// The opt-in wait limit passed.
    Late,
}

impl Source<'_> {
    fn read(&mut self, chunk: &mut [u8], late: Option<Instant>) -> io::Result<Event> {
        loop {
            let now = Instant::now();
            if self.stop.is_some_and(|s| now >= s.at + STOP_GRACE) {
                return Ok(Event::End);
            }
            if late.is_some_and(|d| now >= d) {
                return Ok(Event::Late);
            }
            let mut wait = late.map(|d| d - now);
            if self.stop.is_some() {
                wait = Some(wait.map_or(TICK, |w| w.min(TICK)));
            }
            match self.poll(wait)? {
                Ready::Stop => self.take_stop(),
                Ready::Out => {
                    return match self.out.read(chunk) {
                        Ok(0) => Ok(Event::End),
                        Ok(n) => Ok(Event::Data(n)),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => Err(e),
                    };
                }
                Ready::Timeout => {
                    // Stopped, and the tool is gone: what it wrote before it
                    // exited is readable now, or there is nothing more.
                    if self.stop.is_some()
                        && self.child.try_wait()?.is_some()
                        && !matches!(self.poll(Some(Duration::ZERO))?, Ready::Out)
                    {
                        return Ok(Event::End);
                    }
                }
            }
        }
    }

    fn poll(&self, wait: Option<Duration>) -> io::Result<Ready> {
        let mut fds = [
            libc::pollfd { fd: self.out.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: self.stop_fd, events: libc::POLLIN, revents: 0 },
        ];
        let ms = wait.map_or(-1, |w| w.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32);
        // SAFETY: two valid pollfds on descriptors we own.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
        if n < 0 {
            let err = io::Error::last_os_error();
            return if err.kind() == io::ErrorKind::Interrupted { Ok(Ready::Timeout) } else { Err(err) };
        }
        Ok(if fds[1].revents != 0 {
            Ready::Stop
        } else if fds[0].revents != 0 {
            Ready::Out
        } else {
            Ready::Timeout
        })
    }

    /// Reads the signal number(s) the handler wrote; the first one counts.
    fn take_stop(&mut self) {
        let mut sigs = [0u8; 16];
        // SAFETY: reading into a local buffer from the non-blocking pipe we own.
        let n = unsafe { libc::read(self.stop_fd, sigs.as_mut_ptr().cast(), sigs.len()) };
        if n > 0 && self.stop.is_none() {
            self.stop = Some(Stop { signal: i32::from(sigs[0]), at: Instant::now() });
        }
    }
}

enum Ready {
    Out,
    Stop,
    Timeout,
}

/// Gathers the tool's stdout (see the module comment).
pub fn capture(src: &mut Source, limits: &Limits, store: &Store, enc: Encoding) -> io::Result<Captured> {
    let mut chunk = vec![0u8; CHUNK];
    let mut buf = Vec::new();
    let first = loop {
        match src.read(&mut chunk, None)? {
            Event::Data(n) => buf.extend_from_slice(&chunk[..n]),
            // Only whitespace or escapes, if anything: nothing to treat.
            Event::End | Event::Late => return Ok(degrade(src, &buf, &mut chunk)),
        }
        match sniff(&buf) {
            Sniff::NeedMore if buf.len() < SNIFF_LIMIT => continue,
            Sniff::Json => break Sniff::Json,
            Sniff::Text | Sniff::NeedMore => break Sniff::Text,
            Sniff::Binary => return Ok(degrade(src, &buf, &mut chunk)),
        }
    };
    let json = first == Sniff::Json;
    let late = if json { None } else { limits.text_wait.map(|w| Instant::now() + w) };
    let mut checked = 0;
    loop {
        if !still_text(&buf, &mut checked) {
            return Ok(degrade(src, &buf, &mut chunk));
        }
        if buf.len() > limits.whole_max(json) {
            return spool(src, buf, checked, late, limits, store, enc, &mut chunk);
        }
        match src.read(&mut chunk, late)? {
            Event::Data(n) => buf.extend_from_slice(&chunk[..n]),
            Event::End => return Ok(Captured::Whole(buf, first)),
            Event::Late => return Ok(degrade(src, &buf, &mut chunk)),
        }
    }
}

/// Past the memory limit: every byte to the store, head/tail/signals kept.
#[allow(clippy::too_many_arguments)]
fn spool(
    src: &mut Source,
    buf: Vec<u8>,
    checked: usize,
    late: Option<Instant>,
    limits: &Limits,
    store: &Store,
    enc: Encoding,
    chunk: &mut [u8],
) -> io::Result<Captured> {
    if store.max_bytes() == 0 {
        // The store is off: the user's choice, not worth a warning.
        return Ok(degrade(src, &buf, chunk));
    }
    let mut spool = match Spool::start(store, &buf) {
        Ok(s) => s,
        Err(e) => {
            warn(&format!("{e:#}"));
            return Ok(degrade(src, &buf, chunk));
        }
    };
    let mut keeper = Keeper::new(limits.keep);
    let mut tally = Tally::new(enc);
    keeper.push(&buf);
    tally.push(&buf);
    // An unfinished character at the end is checked with what follows it.
    let mut carry = buf[checked..].to_vec();
    drop(buf);
    loop {
        let n = match src.read(chunk, late)? {
            Event::Data(n) => n,
            Event::End => break,
            Event::Late => return Ok(spool.degrade(src, &[], chunk)),
        };
        let bytes = &chunk[..n];
        carry.extend_from_slice(bytes);
        let mut done = 0;
        let text = still_text(&carry, &mut done);
        carry.drain(..done);
        if !text {
            let rest = bytes.to_vec();
            return Ok(spool.degrade(src, &rest, chunk));
        }
        if let Err(e) = spool.write(bytes) {
            warn(&format!("{e:#}"));
            let rest = bytes.to_vec();
            return Ok(spool.degrade(src, &rest, chunk));
        }
        keeper.push(bytes);
        tally.push(bytes);
    }
    match spool.finish() {
        Ok(object) => Ok(Captured::Kept(Spooled { kept: keeper.finish(), object, tokens: tally.finish() })),
        Err((spool, e)) => {
            warn(&format!("{e:#}"));
            Ok(spool.degrade(src, &[], chunk))
        }
    }
}

/// The raw store's writer for one capture, and a way to read back what it
/// holds if the capture must turn into a plain stream after all.
struct Spool<'s> {
    writer: ObjectWriter<'s>,
    reader: File,
    cap: u64,
}

/// The bytes a spool held when it could not keep them.
struct Unkept {
    reader: File,
    len: u64,
}

impl<'s> Spool<'s> {
    fn start(store: &'s Store, first: &[u8]) -> anyhow::Result<Spool<'s>> {
        let writer = store.writer()?;
        let reader = writer.reader()?;
        let mut spool = Spool { writer, reader, cap: store.max_bytes() };
        spool.write(first)?;
        Ok(spool)
    }

    /// Past the store's cap the output could not be kept anyway: refused.
    fn write(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        if self.writer.len() + bytes.len() as u64 > self.cap {
            anyhow::bail!("the output is larger than the raw store's cap ({} bytes)", self.cap);
        }
        Ok(self.writer.write_all(bytes)?)
    }

    fn finish(self) -> Result<Object, (Unkept, anyhow::Error)> {
        let Spool { writer, reader, .. } = self;
        let len = writer.len();
        match writer.finish() {
            Ok(Some(object)) => Ok(object),
            Ok(None) => Err((Unkept { reader, len }, anyhow::anyhow!("the raw store declined it"))),
            Err(e) => Err((Unkept { reader, len }, e)),
        }
    }

    fn degrade(self, src: &mut Source, rest: &[u8], chunk: &mut [u8]) -> Captured {
        let len = self.writer.len();
        Unkept { reader: self.reader, len }.degrade(src, rest, chunk)
    }
}

impl Unkept {
    /// `degrade` with the spooled bytes first, then `rest`.
    fn degrade(self, src: &mut Source, rest: &[u8], chunk: &mut [u8]) -> Captured {
        use std::os::unix::fs::FileExt;
        let mut at = 0u64;
        while at < self.len {
            let want = (self.len - at).min(chunk.len() as u64) as usize;
            match self.reader.read_at(&mut chunk[..want], at) {
                Ok(n) if n > 0 && write_stdout(&chunk[..n]) => at += n as u64,
                _ => return Captured::Streamed,
            }
        }
        degrade(src, rest, chunk)
    }
}

fn warn(why: &str) {
    let line = format!(
        "tokensieve: warning: raw output not stored ({why}); delivered whole so that nothing is lost\n"
    );
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

/// Raw passthrough from here on: `held` first, then the rest as it comes.
fn degrade(src: &mut Source, held: &[u8], chunk: &mut [u8]) -> Captured {
    if write_stdout(held) {
        stream(src, chunk);
    }
    Captured::Streamed
}

/// Copies the rest of the tool's stdout as it comes. Stops quietly when our
/// reader has gone (EPIPE): the caller closes the pipe so the tool learns
/// the same.
fn stream(src: &mut Source, chunk: &mut [u8]) {
    while let Ok(Event::Data(n)) = src.read(chunk, None) {
        if !write_stdout(&chunk[..n]) {
            return;
        }
    }
}

/// Our fd 1 as a File that is never closed.
fn fd1() -> ManuallyDrop<File> {
    // SAFETY: fd 1 stays open for the life of the process; ManuallyDrop keeps
    // this File from closing it.
    ManuallyDrop::new(unsafe { File::from_raw_fd(1) })
}

/// Unbuffered write to fd 1 (std's stdout would hold a line without its
/// newline back: a prompt must show at once). `false` once nobody reads.
fn write_stdout(bytes: &[u8]) -> bool {
    fd1().write_all(bytes).is_ok()
}

/// Checks the bytes after `checked` for NUL and invalid UTF-8, leaving an
/// unfinished multi-byte character at the end for the next round.
fn still_text(buf: &[u8], checked: &mut usize) -> bool {
    let new = &buf[*checked..];
    if new.contains(&0) {
        return false;
    }
    match std::str::from_utf8(new) {
        Ok(_) => {
            *checked = buf.len();
            true
        }
        Err(e) if e.error_len().is_none() => {
            *checked += e.valid_up_to();
            true
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_held_whole_only_up_to_its_own_limit() {
        let l = Limits { max_bytes: 64 << 20, text_wait: None, keep: KeepLimits::default() };
        assert_eq!((l.whole_max(true), l.whole_max(false)), (64 << 20, TEXT_WHOLE_MAX));
        let small = Limits { max_bytes: 1000, ..l };
        assert_eq!((small.whole_max(true), small.whole_max(false)), (1000, 1000));
    }

    #[test]
    fn text_check_waits_for_split_characters() {
        let mut checked = 0;
        let snow = "é".as_bytes();
        let mut buf = b"ab".to_vec();
        buf.push(snow[0]);
        assert!(still_text(&buf, &mut checked));
        assert_eq!(checked, 2);
        buf.push(snow[1]);
        assert!(still_text(&buf, &mut checked));
        assert_eq!(checked, buf.len());
        buf.extend_from_slice(b"\xff\xfe");
        assert!(!still_text(&buf, &mut checked));
        let mut checked = 0;
        assert!(!still_text(b"a\0b", &mut checked));
    }
}
