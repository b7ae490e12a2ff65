//! Two jobs at once, on two cores: `beside` (the other thread's panic as
//! its result) and `both` (the panic resumed).

use std::sync::Mutex;
use std::thread::Result;

/// `(a(), b())`, `a` on a thread of its own while `b` runs on this one;
/// `a`'s panic comes back as its `Err`.
///
/// It waits for `a`'s result, not for its thread to end, as `join` would:
/// a thread's end (its thread-local destructors, its stack handed back to
/// the kernel) cost ~0.5 ms of the 200 KB filter call's ~9 ms where a
/// caller joined the thread that finished last (issue 23). The thread
/// still ends on its own; the process may exit meanwhile.
pub fn beside<A: Send, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B) -> (Result<A>, B) {
    let slot = Mutex::new(None);
    let b = std::thread::scope(|s| {
        // The handle is dropped unjoined: the scope then waits only until
        // the closure has returned.
        s.spawn(|| {
            let a = std::panic::catch_unwind(std::panic::AssertUnwindSafe(a));
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(a);
        });
        b()
    });
    let a = slot.into_inner().unwrap_or_else(|e| e.into_inner());
    (a.expect("the scope waited for the thread"), b)
}

/// `beside`, a panic of `a` resumed here as if `a` had run on this thread.
pub fn both<A: Send, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B) -> (A, B) {
    let (a, b) = beside(a, b);
    (a.unwrap_or_else(|panic| std::panic::resume_unwind(panic)), b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_results_and_borrows() {
        let words = ["a".to_string(), "bc".to_string()];
        let (a, b) = beside(|| words.iter().map(String::len).sum::<usize>(), || words.len());
        assert_eq!((a.unwrap(), b), (3, 2));
    }

    #[test]
    fn a_panic_of_the_thread_comes_back_as_err() {
        let (a, b) = beside(|| -> usize { panic!("boom") }, || 7);
        assert_eq!(b, 7);
        let panic = a.unwrap_err();
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"boom"));
    }

    #[test]
    fn both_resumes_the_threads_panic_here() {
        let caught = std::panic::catch_unwind(|| both(|| -> usize { panic!("boom") }, || 7));
        assert_eq!(caught.unwrap_err().downcast_ref::<&str>(), Some(&"boom"));
        assert_eq!(both(|| 1, || 2), (1, 2));
    }
}
