//! jq programs over a stored raw output (`tokensieve show ID --jq FILTER`),
//! run by jaq (jaq-core, jaq-std, jaq-json): the agent asks for the part of a
//! large document it needs instead of re-running the tool.

use anyhow::{Result, anyhow, bail};
use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data};
use jaq_json::Val;

/// Runs `filter` on every JSON value of `raw` (one document, or several
/// whitespace-separated ones, as `jq` reads a file) and returns each output
/// as compact JSON text, in order. `slurp`: run it once on an array of all
/// the values (jq's `--slurp`).
///
/// Errors: a filter that does not parse or names an unknown function, input
/// that is not JSON, or a runtime error (`.a` on an array) as jq states it.
pub fn run(filter: &str, raw: &[u8], slurp: bool) -> Result<Vec<String>> {
    let compiled = compile(filter)?;
    let text = std::str::from_utf8(raw)
        .map_err(|_| anyhow!("this output is not JSON (not UTF-8 text); use --lines or --grep"))?;
    let text = crate::json::scrubber::scrub(text);
    let mut inputs: Vec<Val> = jaq_json::read::parse_many(text.as_bytes())
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow!("this output is not JSON ({e}); use --lines or --grep for text"))?;
    if inputs.is_empty() {
        bail!("this output is empty, there is no JSON to query");
    }
    if slurp {
        inputs = vec![inputs.into_iter().collect()];
    }
    let mut out = Vec::new();
    for input in inputs {
        let ctx = Ctx::<data::JustLut<Val>>::new(&compiled.lut, Vars::new([]));
        for v in compiled.id.run((ctx, input)) {
            match v {
                Ok(v) => out.push(v.to_string()),
                Err(e) => match e.get_err() {
                    Ok(err) => bail!("jq error: {err}"),
                    Err(halt) => match halt.get_halt() {
                        Ok(0) => return Ok(out),
                        Ok(code) => bail!("jq program halted with status {code}"),
                        Err(_) => bail!("jq error: uncaught break"),
                    },
                },
            }
        }
    }
    Ok(out)
}

/// Runs `filter` once on `input` (a document already parsed) and returns
/// its outputs as JSON values: the focus views (`crate::focus`) are jq
/// programs over the document the tool wrote.
pub fn run_value(filter: &str, input: &serde_json::Value) -> Result<Vec<serde_json::Value>> {
    let compiled = compile(filter)?;
    let text = input.to_string();
    let input = jaq_json::read::parse_many(text.as_bytes())
        .next()
        .ok_or_else(|| anyhow!("no input"))?
        .map_err(|e| anyhow!("input: {e}"))?;
    let ctx = Ctx::<data::JustLut<Val>>::new(&compiled.lut, Vars::new([]));
    let mut out = Vec::new();
    for v in compiled.id.run((ctx, input)) {
        let v = v.map_err(|e| anyhow!("jq error: {:?}", e.get_err().map(|e| e.to_string()).ok()))?;
        out.push(serde_json::from_str(&v.to_string())?);
    }
    Ok(out)
}

/// Whether `filter` compiles (a user's view, checked before use).
pub fn compiles(filter: &str) -> Result<()> {
    compile(filter).map(|_| ())
}

type Filter = jaq_core::Filter<data::JustLut<Val>>;

fn compile(filter: &str) -> Result<Filter> {
    let defs = jaq_core::defs().chain(jaq_std::defs()).chain(jaq_json::defs());
    let funs = jaq_core::funs().chain(jaq_std::funs()).chain(jaq_json::funs());
    let arena = Arena::default();
    let program = File { code: filter, path: () };
    let modules = Loader::new(defs).load(&arena, program).map_err(|errs| {
        let what: Vec<String> = errs
            .into_iter()
            .map(|(_, e)| match e {
                jaq_core::load::Error::Io(v) => v.into_iter().map(|(_, m)| m).collect::<Vec<_>>().join("; "),
                jaq_core::load::Error::Lex(v) => v
                    .into_iter()
                    .map(|(exp, at)| format!("expected {} at '{}'", exp.as_str(), snippet(at)))
                    .collect::<Vec<_>>()
                    .join("; "),
                jaq_core::load::Error::Parse(v) => v
                    .into_iter()
                    .map(|(exp, at)| format!("expected {} at '{}'", exp.as_str(), snippet(at)))
                    .collect::<Vec<_>>()
                    .join("; "),
            })
            .collect();
        anyhow!("invalid jq filter '{filter}': {}", what.join("; "))
    })?;
    Compiler::default().with_funs(funs).compile(modules).map_err(|errs| {
        let names: Vec<String> = errs
            .into_iter()
            .flat_map(|(_, es)| {
                es.into_iter().map(|(name, undef)| match undef {
                    jaq_core::compile::Undefined::Filter(arity) => format!("{name}/{arity}"),
                    other => format!("{name} ({other:?})"),
                })
            })
            .collect();
        anyhow!("invalid jq filter '{filter}': undefined {}", names.join(", "))
    })
}

/// The start of the text where the parser stopped (it hands us the rest of
/// the program from that point).
fn snippet(rest: &str) -> String {
    let s: String = rest.chars().take(20).collect();
    if s.is_empty() { "end of filter".into() } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_a_filter_over_each_document() {
        let raw = br#"{"a":[1,2]} {"a":[3]}"#;
        assert_eq!(run(".a[]", raw, false).unwrap(), vec!["1", "2", "3"]);
        assert_eq!(run("map(.+1)", b"[1,2]", false).unwrap(), vec!["[2,3]"]);
        assert_eq!(run(".[1:] | map(.a)", raw, true).unwrap(), vec!["[[3]]"]);
    }

    #[test]
    fn bad_filters_and_inputs_say_so() {
        let e = run(".a[", b"{}", false).unwrap_err().to_string();
        assert!(e.starts_with("invalid jq filter '.a['"), "{e}");
        let e = run("nosuchfn", b"{}", false).unwrap_err().to_string();
        assert!(e.contains("undefined nosuchfn"), "{e}");
        let e = run(".", b"hello world", false).unwrap_err().to_string();
        assert!(e.contains("not JSON"), "{e}");
        let e = run(".a", b"[1]", false).unwrap_err().to_string();
        assert!(e.starts_with("jq error:"), "{e}");
    }
}
