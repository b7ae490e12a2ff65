//! A progress bar on stderr (indicatif) for work that can take a while
//! (`discover` over many session files, `session compact` on a large
//! transcript, a spinner for `objects push|pull`): drawn only when stderr is
//! a terminal, and only once the work has run for more than a second, so
//! quick runs, pipes and logs see nothing.

use std::io::{self, IsTerminal, Read};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before a bar appears.
const QUIET_FOR: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug)]
pub(crate) enum Unit {
    Files,
    Bytes,
}

pub(crate) struct Progress {
    label: &'static str,
    unit: Unit,
    len: Option<u64>,
    pos: u64,
    started: Instant,
    /// Whether a bar may be drawn at all (stderr is a terminal).
    on: bool,
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new(label: &'static str, unit: Unit, len: Option<u64>) -> Progress {
        let on = io::stderr().is_terminal() && std::env::var_os("TERM").is_none_or(|t| t != "dumb");
        Progress { label, unit, len, pos: 0, started: Instant::now(), on, bar: None }
    }

    pub fn advance(&mut self, n: u64) {
        self.pos += n;
        if let Some(bar) = &self.bar {
            bar.set_position(self.pos);
        } else if self.on && self.started.elapsed() > QUIET_FOR {
            self.bar = Some(self.draw());
        }
    }

    fn draw(&self) -> ProgressBar {
        let bar = match self.len {
            Some(len) => ProgressBar::new(len),
            None => ProgressBar::new_spinner(),
        };
        let template = match (self.unit, self.len.is_some()) {
            (Unit::Files, true) => "{msg} [{bar:30}] {pos}/{len} files ({eta} left)",
            (Unit::Bytes, true) => "{msg} [{bar:30}] {bytes}/{total_bytes} ({eta} left)",
            (Unit::Files, false) => "{msg} {spinner} {pos} files",
            (Unit::Bytes, false) => "{msg} {spinner} {bytes}",
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(self.label);
        bar.set_position(self.pos);
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    }

    /// Takes the bar off the screen (the result is printed after it).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// For work that counts nothing we can see (`objects push|pull`: inside git
/// and the LFS client): a spinner with the time spent, from the first
/// second on, on a terminal only. Cleared when dropped.
pub(crate) struct Spinner {
    bar: ProgressBar,
}

impl Spinner {
    pub fn start(label: &'static str) -> Spinner {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        if io::stderr().is_terminal() {
            let later = bar.clone();
            std::thread::spawn(move || {
                std::thread::sleep(QUIET_FOR);
                if !later.is_finished() {
                    if let Ok(style) = ProgressStyle::with_template("{msg} {spinner} {elapsed}") {
                        later.set_style(style);
                    }
                    later.set_message(label);
                    later.set_draw_target(ProgressDrawTarget::stderr());
                    later.enable_steady_tick(Duration::from_millis(120));
                }
            });
        }
        Spinner { bar }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A reader that reports each read's size to a `Progress`.
pub(crate) struct Counting<R> {
    pub inner: R,
    pub progress: Progress,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.advance(n as u64);
        Ok(n)
    }
}

/// The size of stdin when it is a regular file (`< big.jsonl`), for a bar
/// with an end; a pipe has none.
pub(crate) fn stdin_len() -> Option<u64> {
    std::fs::metadata("/dev/stdin").ok().filter(|m| m.is_file()).map(|m| m.len())
}
