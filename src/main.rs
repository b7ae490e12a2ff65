//! Entry point: everything lives in the library; this only hands over argv.
//!
//! `no_main`: a shim that passes through execs the real tool at once, so
//! the start of our own process is most of what it costs (issue 23: at most
//! +0.6 ms over calling the tool directly). Rust's runtime start reads
//! `/proc/self/maps` through `pthread_getattr_np` to place the main
//! thread's stack guard and sets up a stack overflow handler: ~70 µs of
//! CPU per call (measured on a static hello world, `perf stat -r 1000`:
//! 0.54 ms with the runtime start, 0.44-0.50 ms without). What of it the
//! program relies on is done here by hand; a stack overflow is then a
//! plain SIGSEGV instead of one line and an abort.
//! (`cargo test` builds this file with its own harness `main`: not then.)
#![cfg_attr(not(test), no_main)]

use std::process::ExitCode;

#[cfg(not(test))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: std::ffi::c_int, _argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    standard_streams_open();
    // Writing to a closed pipe is an error we handle (EPIPE), not a
    // signal that kills us; children get the default back from `Command`.
    // SAFETY: setting a signal's disposition has no memory effects.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    // argv comes from std's own record of it (glibc hands it over before main).
    let code = std::panic::catch_unwind(|| tokensieve::entry(std::env::args_os().collect()));
    // As the runtime would: 101 after a panic; `exit` flushes stdout.
    std::process::exit(code.map_or(101, exit_status))
}

/// A standard stream closed by our caller is opened on `/dev/null`, so that
/// no file we open later takes its number and receives what we print.
#[cfg_attr(test, allow(dead_code))]
fn standard_streams_open() {
    for fd in 0..=2 {
        // SAFETY: F_GETFD only asks whether the descriptor is open; open()
        // takes the lowest free number, which is this one.
        unsafe {
            if libc::fcntl(fd, libc::F_GETFD) == -1
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
                && libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) != fd
            {
                libc::abort();
            }
        }
    }
}

/// The status an `ExitCode` stands for (it hides its number).
fn exit_status(code: ExitCode) -> i32 {
    (0..=255u8).find(|n| ExitCode::from(*n) == code).map_or(1, i32::from)
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_exit_code_gives_back_its_number() {
        use std::process::ExitCode;
        assert_eq!(super::exit_status(ExitCode::SUCCESS), 0);
        assert_eq!(super::exit_status(ExitCode::FAILURE), 1);
        assert_eq!(super::exit_status(ExitCode::from(127)), 127);
    }
}
