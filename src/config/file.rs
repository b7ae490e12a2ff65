//! One settings file (`config.toml` or `.tokensieve.toml`) read into a
//! `Layer`: every known key with the line it is on, the tool switches, the
//! filter definitions. A problem costs only what it touches: a bad value or
//! unknown key is left out with one warning naming `file:line` and the key;
//! a file that does not parse is left out whole, with one warning.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{SPECS, Source, Value};
use crate::userfilter;

/// What one file sets.
#[derive(Clone, Debug, Default)]
pub struct Layer {
    pub path: PathBuf,
    /// Setting key → value (checked) and its line.
    pub values: HashMap<&'static str, Value>,
    /// `tool` or `tool sub words` → enabled.
    pub tools: Vec<(String, bool, Source)>,
    pub filters: Vec<userfilter::Spec>,
    /// `[[view]]` tables: the user's focus views.
    pub views: Vec<crate::userview::View>,
    pub warnings: Vec<String>,
}

/// 1-based line of byte `offset` in `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Parses `text` (the contents of `path`). Never fails: problems become
/// warnings.
pub fn parse_layer(path: &Path, text: &str) -> Layer {
    let mut layer = Layer { path: path.to_path_buf(), ..Layer::default() };
    let at = |offset: usize| format!("{}:{}", path.display(), line_of(text, offset));
    let root = match DeTable::parse(text) {
        Ok(t) => t.into_inner(),
        Err(e) => {
            let line = e.span().map_or(1, |s| line_of(text, s.start));
            let msg = e.message().lines().next().unwrap_or("syntax error").trim().to_string();
            layer.warnings.push(format!("{}:{line}: {msg}; this file is ignored", path.display()));
            return layer;
        }
    };
    for (key, value) in root.iter() {
        let name = key.get_ref().as_ref();
        let start = key.span().start;
        match name {
            "tool" => match value.get_ref() {
                DeValue::Table(t) => tools(t, &[], path, text, &mut layer),
                _ => layer
                    .warnings
                    .push(format!("{}: tool: must be a table ([tool.NAME]); ignored", at(start))),
            },
            "filter" => filters(value, path, text, &mut layer),
            "view" => views(value, path, text, &mut layer),
            _ => match SPECS.iter().find(|s| s.key == name) {
                Some(spec) => match scalar_text(value.get_ref(), spec.list) {
                    Some(v) => match (spec.check)(&v) {
                        Ok(checked) => {
                            let source =
                                Source::File { path: path.to_path_buf(), line: line_of(text, start) };
                            layer.values.insert(spec.key, Value { text: checked, source });
                        }
                        Err(e) => layer.warnings.push(format!("{}: {name}: {e:#}; ignored", at(start))),
                    },
                    None => {
                        let want = if spec.list { "a list of strings" } else { "a string or a number" };
                        layer.warnings.push(format!("{}: {name}: must be {want}; ignored", at(start)))
                    }
                },
                None => layer.warnings.push(format!("{}: unknown key '{name}'; ignored", at(start))),
            },
        }
    }
    layer
}

/// A value as the text its variable would hold: numbers written out,
/// lists (when the setting is one) joined with commas.
fn scalar_text(v: &DeValue, list: bool) -> Option<String> {
    match v {
        DeValue::String(s) => Some(s.to_string()),
        DeValue::Integer(i) if !list => Some(i.as_str().replace('_', "")),
        DeValue::Boolean(b) if !list => Some(b.to_string()),
        DeValue::Array(items) if list => {
            let parts: Option<Vec<String>> =
                items.iter().map(|i| i.get_ref().as_str().map(|s| s.replace(',', " "))).collect();
            Some(parts?.join(","))
        }
        _ => None,
    }
}

/// `[tool.NAME]` tables: `enabled` at any depth, other keys are subcommand
/// words (`[tool.git.log]`, `[tool.aws."s3 ls"]`).
fn tools(table: &DeTable, words: &[String], path: &Path, text: &str, layer: &mut Layer) {
    for (key, value) in table.iter() {
        let name = key.get_ref().as_ref();
        let line = line_of(text, key.span().start);
        match (name, value.get_ref()) {
            ("enabled", DeValue::Boolean(on)) if !words.is_empty() => {
                let source = Source::File { path: path.to_path_buf(), line };
                layer.tools.push((words.join(" "), *on, source));
            }
            (_, DeValue::Table(sub)) if name != "enabled" => {
                let mut deeper = words.to_vec();
                deeper.extend(name.split_whitespace().map(str::to_owned));
                tools(sub, &deeper, path, text, layer);
            }
            _ => layer.warnings.push(format!(
                "{}:{line}: tool.{}{name}: expected `enabled = true|false` or a subcommand table; ignored",
                path.display(),
                words.iter().map(|w| format!("{w}.")).collect::<String>(),
            )),
        }
    }
}

/// `[[filter]]` entries, each checked on its own: a bad one is left out.
fn filters(value: &Spanned<DeValue>, path: &Path, text: &str, layer: &mut Layer) {
    let DeValue::Array(items) = value.get_ref() else {
        let line = line_of(text, value.span().start);
        layer.warnings.push(format!("{}:{line}: filter: must be [[filter]] tables; ignored", path.display()));
        return;
    };
    for item in items.iter() {
        let line = line_of(text, item.span().start);
        let de = toml::de::ValueDeserializer::from(item.clone());
        match userfilter::Spec::deserialize(de) {
            Ok(mut spec) => {
                spec.origin = format!("{}:{line}", path.display());
                spec.source_file = Some(path.to_path_buf());
                layer.filters.push(spec);
            }
            Err(e) => {
                let at = e.span().map_or(line, |s| line_of(text, s.start));
                let msg = e.message().lines().next().unwrap_or("invalid").trim().to_string();
                layer
                    .warnings
                    .push(format!("{}:{at}: filter: {msg}; this filter is ignored", path.display()));
            }
        }
    }
}

/// `[[view]]` entries, each read on its own: a bad one is left out with a
/// warning (its programs and inline tests are checked by
/// `tokensieve filter test`).
fn views(value: &Spanned<DeValue>, path: &Path, text: &str, layer: &mut Layer) {
    let DeValue::Array(items) = value.get_ref() else {
        let line = line_of(text, value.span().start);
        layer.warnings.push(format!("{}:{line}: view: must be [[view]] tables; ignored", path.display()));
        return;
    };
    for item in items.iter() {
        let line = line_of(text, item.span().start);
        let de = toml::de::ValueDeserializer::from(item.clone());
        let checked = crate::userview::View::deserialize(de)
            .map_err(|e| e.message().lines().next().unwrap_or("invalid").trim().to_string());
        match checked {
            Ok(view) => layer.views.push(view),
            Err(msg) => {
                layer.warnings.push(format!("{}:{line}: view: {msg}; this view is ignored", path.display()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_keys_and_values_are_one_line_each_naming_file_line_and_key() {
        let text = "budget = 9000\nbugdet = 1\ndedup = \"lots\"\n[tool.aws]\nenabled = false\n";
        let l = parse_layer(Path::new("c.toml"), text);
        assert_eq!(l.values["budget"].text, "9000");
        assert_eq!(
            l.warnings,
            vec![
                "c.toml:2: unknown key 'bugdet'; ignored".to_string(),
                "c.toml:3: dedup: must be default, aggressive or off, got 'lots'; ignored".to_string(),
            ]
        );
        assert_eq!(l.tools, vec![("aws".into(), false, Source::File { path: "c.toml".into(), line: 5 })]);
    }

    #[test]
    fn a_syntax_error_ignores_the_file_with_its_line() {
        let l = parse_layer(Path::new("c.toml"), "budget = 9000\ntokenizer = \"o200k\n");
        assert!(l.values.is_empty());
        assert_eq!(l.warnings.len(), 1);
        assert!(l.warnings[0].starts_with("c.toml:2: "), "{:?}", l.warnings);
    }

    #[test]
    fn lists_and_filters() {
        let text = "agent_markers = [\"MY_AGENT\", \"BOT\"]\n[[filter]]\nmatch = \"wget\"\ndrop = [\"^--\"]\n\
                    [[filter]]\nmatch = \"x\"\nbogus = 1\n";
        let l = parse_layer(Path::new("c.toml"), text);
        assert_eq!(l.values["agent_markers"].text, "MY_AGENT,BOT");
        assert_eq!(l.filters.len(), 1);
        assert_eq!(l.filters[0].origin, "c.toml:2");
        assert_eq!(l.warnings.len(), 1, "{:?}", l.warnings);
        assert!(l.warnings[0].starts_with("c.toml:7: filter: unknown field `bogus`"), "{:?}", l.warnings);
    }
}
