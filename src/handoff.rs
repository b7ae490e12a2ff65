//! The last step of every compressed call: count, pick raw or compressed
//! (never worse), write stdout, flush, then the receipt on stderr.

use std::io::{self, Write};

use crate::auditor::{self, Receipt, Shape};
use crate::pipeline::{self, Hint, Rendered, Settings};

/// Everything after the bytes are captured: render, settle, emit the output
/// and the receipt. The one call both the shim and filter mode make.
/// (`started` is when the call began, for the history's duration column.)
pub fn deliver(
    raw: &[u8],
    hint: Option<&Hint>,
    settings: &Settings,
    _started: std::time::Instant,
) -> io::Result<Receipt> {
    let rendered = pipeline::render_guarded(raw, hint, settings);
    let (out, receipt) = settle(raw, rendered, settings);
    emit(&out, &receipt)?;
    Ok(receipt)
}

/// Decides what the agent reads and the receipt that proves it. Pure: no I/O.
pub fn settle(raw: &[u8], rendered: Option<Rendered>, settings: &Settings) -> (Vec<u8>, Receipt) {
    let original = auditor::count_bytes(settings.encoding, raw);
    if let Some(r) = rendered {
        let compressed = auditor::count(settings.encoding, &r.text);
        if compressed < original {
            let receipt = Receipt { original, compressed, shape: r.shape, raw_id: None };
            return (r.text.into_bytes(), receipt);
        }
    }
    (raw.to_vec(), Receipt { original, compressed: original, shape: Shape::Raw, raw_id: None })
}

/// Writes `out` to stdout and flushes it before the receipt goes to stderr, so
/// the two never interleave. A closed stdout (EPIPE) is the reader's choice,
/// not an error.
pub fn emit(out: &[u8], receipt: &Receipt) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(out).and_then(|_| stdout.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    let _ = writeln!(io::stderr().lock(), "{receipt}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_worse_falls_back_to_raw() {
        let raw = br#"{"a":1}"#;
        let bigger = Rendered { text: "a long rendering that costs more tokens".into(), shape: Shape::Pvfn };
        let (out, receipt) = settle(raw, Some(bigger), &Settings::default());
        assert_eq!(out, raw);
        assert_eq!(receipt.shape, Shape::Raw);
        assert_eq!(receipt.original, receipt.compressed);
    }
}
