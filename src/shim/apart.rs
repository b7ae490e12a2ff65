//! The tool's stderr when an agent reads it apart from stdout (Codex
//! captures the two streams on two pipes: `reader::stderr_read_apart`).
//! A thread gathers it while the capture reads stdout, so neither pipe
//! can fill and stall the tool; once the tool has exited the shim treats
//! it as text on its own (`shim::deliver_apart`). Too much of it
//! (`TEXT_WHOLE_MAX`), or a pipe still open after the grace (a background
//! job holding it), and it goes through as printed: what was held first,
//! the rest as it comes.

use std::io::{self, Read, Write};
use std::process::ChildStderr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use super::capture::TEXT_WHOLE_MAX;

#[derive(Default)]
struct State {
    held: Vec<u8>,
    /// Bytes go straight to our stderr from now on.
    through: bool,
    /// End of file (or a read error) seen.
    done: bool,
}

/// The gathering thread's shared state.
pub struct Gatherer {
    shared: Arc<(Mutex<State>, Condvar)>,
}

/// Starts gathering `pipe` on a thread of its own.
pub fn start(mut pipe: ChildStderr) -> Gatherer {
    let shared = Arc::new((Mutex::new(State::default()), Condvar::new()));
    let theirs = Arc::clone(&shared);
    std::thread::spawn(move || {
        let (lock, cond) = &*theirs;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let mut st = lock.lock().unwrap_or_else(|p| p.into_inner());
            if st.through {
                let _ = io::stderr().lock().write_all(&buf[..n]);
            } else {
                st.held.extend_from_slice(&buf[..n]);
                if st.held.len() > TEXT_WHOLE_MAX {
                    pass_through(&mut st);
                }
            }
        }
        lock.lock().unwrap_or_else(|p| p.into_inner()).done = true;
        cond.notify_all();
    });
    Gatherer { shared }
}

/// Writes what is held to our stderr; later bytes follow it there.
fn pass_through(st: &mut State) {
    let _ = io::stderr().lock().write_all(&st.held);
    st.held = Vec::new();
    st.through = true;
}

impl Gatherer {
    /// The whole stderr, once its end is seen within `grace`; `None` when
    /// it went (or now goes) through as printed.
    pub fn finish(self, grace: Duration) -> Option<Vec<u8>> {
        let (lock, cond) = &*self.shared;
        let st = lock.lock().unwrap_or_else(|p| p.into_inner());
        let (mut st, _) =
            cond.wait_timeout_while(st, grace, |st| !st.done).unwrap_or_else(|p| p.into_inner());
        if st.done && !st.through {
            return Some(std::mem::take(&mut st.held));
        }
        if !st.through {
            pass_through(&mut st);
        }
        None
    }
}
