//! The import graph of `src/` has a direction: every module sits in one
//! layer of the table in docs/ARCHITECTURE.md ("## Layers") and its
//! `crate::` paths name only modules of its own layer or below, with no
//! circle among those of one layer. A failure names the file, the line and
//! the edge. The table is read from the document itself, so the map a
//! newcomer reads and the rule the build checks are one table.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Module → layer, from the rows `| L<n> | `a` `b` | … |` of the doc.
fn layer_table(doc: &str) -> BTreeMap<String, usize> {
    let mut table = BTreeMap::new();
    let section = doc.split("\n## Layers").nth(1).expect("docs/ARCHITECTURE.md has a \"## Layers\" section");
    let section = section.split("\n## ").next().unwrap_or(section);
    for row in section.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let Some(Ok(layer)) = cells[1].strip_prefix('L').map(str::parse::<usize>) else { continue };
        for module in cells[2].split('`').skip(1).step_by(2) {
            let before = table.insert(module.to_string(), layer);
            assert!(before.is_none(), "`{module}` is in the layer table twice");
        }
    }
    assert!(!table.is_empty(), "no `| L<n> |` rows under \"## Layers\"");
    table
}

/// The top-level module a file of `src/` belongs to (`None`: the crate
/// root, `lib.rs` and `main.rs`, above every layer).
fn module_of(rel: &Path) -> Option<String> {
    let mut parts = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned());
    let first = parts.next()?;
    match (first.strip_suffix(".rs"), parts.next()) {
        (Some("lib" | "main"), None) => None,
        (Some(name), None) => Some(name.to_string()),
        _ => Some(first),
    }
}

/// Every module a file's text names through `crate::`, with the 1-based
/// line: `crate::a::b`, and each item of `crate::{a, b::{c, d}}` (over
/// several lines too). Comment lines are skipped.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let code: String = text
        .lines()
        .map(|l| if l.trim_start().starts_with("//") { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    let line_at = |offset: usize| code[..offset].matches('\n').count() + 1;
    let bytes = code.as_bytes();
    let ident_at = |mut i: usize| {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        &code[start..i]
    };
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        // `$crate::` (macros) and `some_crate::` are not this crate's paths
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || matches!(bytes[at - 1], b'_' | b'$')) {
            continue;
        }
        let mut i = at + "crate::".len();
        if bytes.get(i) != Some(&b'{') {
            out.push((line_at(at), ident_at(i).to_string()));
            continue;
        }
        // A group: the first word of each top-level item.
        let mut depth = 0;
        let mut expect_item = true;
        while i < bytes.len() {
            match bytes[i] {
                b'{' => {
                    depth += 1;
                    expect_item = depth == 1;
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b',' if depth == 1 => expect_item = true,
                c if expect_item && depth == 1 && (c.is_ascii_alphabetic() || c == b'_') => {
                    out.push((line_at(i), ident_at(i).to_string()));
                    expect_item = false;
                }
                _ => {}
            }
            i += 1;
        }
    }
    out.retain(|(_, m)| !m.is_empty() && m != "self");
    out
}

/// One `crate::` edge between two modules, where it is written.
#[derive(Clone, Debug)]
struct Edge {
    file: String,
    line: usize,
    from: String,
    to: String,
}

/// The problems of a set of files (`src/`-relative path, text) under a
/// layer table: upward edges, circles, modules missing from the table.
fn check(files: &[(PathBuf, String)], table: &BTreeMap<String, usize>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut edges: Vec<Edge> = Vec::new();
    for (rel, text) in files {
        let Some(from) = module_of(rel) else { continue };
        let Some(&from_layer) = table.get(&from) else {
            problems.push(format!("src/{}: module `{from}` is not in the layer table", rel.display()));
            continue;
        };
        for (line, to) in crate_paths(text) {
            if to == from {
                continue;
            }
            let file = format!("src/{}", rel.display());
            match table.get(&to) {
                None => {
                    problems.push(format!("{file}:{line}: `crate::{to}` names no module of the layer table"))
                }
                Some(&to_layer) if to_layer > from_layer => problems
                    .push(format!("{file}:{line}: upward edge {from} (L{from_layer}) -> {to} (L{to_layer})")),
                Some(_) => edges.push(Edge { file, line, from: from.clone(), to }),
            }
        }
    }
    problems.extend(circles(&edges));
    problems
}

/// Each circle among the edges, as the edges that close it.
fn circles(edges: &[Edge]) -> Vec<String> {
    let mut graph: BTreeMap<&str, BTreeMap<&str, &Edge>> = BTreeMap::new();
    for e in edges {
        graph.entry(&e.from).or_default().entry(&e.to).or_insert(e);
    }
    let mut found = Vec::new();
    let mut seen_cycles: Vec<Vec<&str>> = Vec::new();
    for &start in graph.keys() {
        // depth-first from `start`, reporting paths that come back to it
        let mut stack: Vec<(&str, Vec<&Edge>)> = vec![(start, Vec::new())];
        let mut visited: Vec<&str> = Vec::new();
        while let Some((node, path)) = stack.pop() {
            for (&next, &edge) in graph.get(node).into_iter().flatten() {
                let mut path = path.clone();
                path.push(edge);
                if next == start {
                    let mut members: Vec<&str> = path.iter().map(|e| e.from.as_str()).collect();
                    members.sort();
                    if !seen_cycles.contains(&members) {
                        seen_cycles.push(members);
                        let walk: Vec<String> = path
                            .iter()
                            .map(|e| format!("{} -> {} ({}:{})", e.from, e.to, e.file, e.line))
                            .collect();
                        found.push(format!("circle: {}", walk.join(", ")));
                    }
                } else if !visited.contains(&next) {
                    visited.push(next);
                    stack.push((next, path));
                }
            }
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_imports_one_above_it_and_no_circle() {
    let doc = std::fs::read_to_string(Path::new(ROOT).join("docs/ARCHITECTURE.md")).unwrap();
    let table = layer_table(&doc);
    let src = Path::new(ROOT).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    let files: Vec<(PathBuf, String)> = paths
        .iter()
        .map(|p| (p.strip_prefix(&src).unwrap().to_path_buf(), std::fs::read_to_string(p).unwrap()))
        .collect();
    let mut problems = check(&files, &table);
    // every module of the table exists (the map stays true)
    for module in table.keys() {
        if !src.join(format!("{module}.rs")).exists() && !src.join(module).join("mod.rs").exists() {
            problems.push(format!("docs/ARCHITECTURE.md: `{module}` is in the layer table but not in src/"));
        }
    }
    assert!(problems.is_empty(), "the layering of src/ is broken:\n  {}", problems.join("\n  "));
}

#[test]
fn the_check_names_an_upward_edge_a_circle_and_a_module_left_out() {
    let table = layer_table(
        "# A\n\n## Layers\n\n| Layer | Modules |\n|---|---|\n| L0 | `low` |\n| L1 | `mid` `side` |\n\n## Next\n| L9 | `not_read` |\n",
    );
    assert_eq!(table.len(), 3);
    let file = |p: &str, t: &str| (PathBuf::from(p), t.to_string());
    let files = vec![
        file("low.rs", "use std::fmt;\n\nuse crate::mid::Thing;\n"),
        file(
            "mid/mod.rs",
            "// crate::low in a comment is no edge\nuse crate::{\n    low,\n    side::{a, b},\n};\n",
        ),
        file("side.rs", "fn f() { crate::mid::g() }\nmacro_rules! m { () => { $crate::low::x } }\n"),
        file("lib.rs", "use crate::mid;\n"),
        file("extra.rs", "use crate::low;\n"),
    ];
    let problems = check(&files, &table);
    assert!(
        problems.contains(&"src/low.rs:3: upward edge low (L0) -> mid (L1)".to_string()),
        "{problems:#?}"
    );
    assert!(
        problems.iter().any(|p| p.starts_with("circle: ")
            && p.contains("mid -> side (src/mid/mod.rs:4)")
            && p.contains("side -> mid (src/side.rs:1)")),
        "{problems:#?}"
    );
    assert!(problems.contains(&"src/extra.rs: module `extra` is not in the layer table".to_string()));
    assert_eq!(problems.len(), 3, "{problems:#?}");
}

#[test]
fn paths_are_read_in_every_form() {
    let text = "use crate::a::b;\nlet x = crate::c::d();\nuse crate::{e, f::{g, h}, self};\n// crate::z\nuse other_crate::y;\n";
    let want: Vec<(usize, String)> =
        [(1, "a"), (2, "c"), (3, "e"), (3, "f")].iter().map(|(l, m)| (*l, m.to_string())).collect();
    assert_eq!(crate_paths(text), want);
}
