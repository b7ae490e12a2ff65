//! Stage benchmarks (divan): token counting, JSON parse, JSON compress and
//! the whole render on the same documents `scripts/bench.sh` times as whole
//! processes.
//!
//! Run through `scripts/bench.sh` (or `cargo bench --features bench --target
//! <host triple> --bench stages`): divan's attribute macros are a proc-macro
//! crate, and with the crt-static rustflags of .cargo/config.toml a
//! proc-macro only builds when cargo is given an explicit `--target`. Hence
//! the opt-in `bench` feature, which keeps `cargo test --all-targets` away
//! from this file.

use std::sync::LazyLock;

use serde_json::Value;
use tokensieve::auditor::{self, Encoding};
use tokensieve::pipeline;
use tokensieve::settings::{Hint, Settings};

fn main() {
    divan::main();
}

fn fixture(rel: &str) -> Vec<u8> {
    let path = format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// ~200 KB of real AWS output: the first 176 images of the moto
/// `describe-images --owners amazon` fixture, printed the way awscli prints
/// (4-space indent). scripts/bench.sh builds the same document with jq.
static AWS_200K: LazyLock<String> = LazyLock::new(|| {
    let all: Value =
        serde_json::from_slice(&fixture("json/aws/ec2-describe-images-owners-amazon.json")).unwrap();
    let images: Vec<Value> = all["Images"].as_array().unwrap()[..176].to_vec();
    let mut doc = serde_json::Map::new();
    doc.insert("Images".into(), Value::Array(images));
    // Pretty-printed with 2 spaces, then every indent doubled to awscli's 4
    // (JSON strings hold no raw newlines, so lines are safe to edit).
    let two = serde_json::to_string_pretty(&Value::Object(doc)).unwrap();
    let mut four = String::with_capacity(two.len() * 5 / 4);
    for line in two.lines() {
        let body = line.trim_start_matches(' ');
        four.push_str(&" ".repeat(2 * (line.len() - body.len())));
        four.push_str(body);
        four.push('\n');
    }
    four.pop();
    four
});

/// The 5.8 MB `describe-instance-types` fixture.
static AWS_5_8M: LazyLock<String> =
    LazyLock::new(|| String::from_utf8(fixture("json/aws/ec2-describe-instance-types-all.json")).unwrap());

/// ~600 KB of real text output: the http.server access log and the grep
/// listing fixtures, concatenated (the same file scripts/bench.sh uses).
static LOG_600K: LazyLock<String> = LazyLock::new(|| {
    let mut s = String::from_utf8(fixture("text/python-http-server-log.txt")).unwrap();
    s.push_str(&String::from_utf8(fixture("text/grep-rn-stdlib.txt")).unwrap());
    s
});

const ENCODINGS: [Encoding; 2] = [Encoding::Cl100k, Encoding::O200k];

#[divan::bench(args = ENCODINGS)]
fn count_200k(bencher: divan::Bencher, enc: Encoding) {
    let text = AWS_200K.as_str();
    bencher
        .counter(divan::counter::BytesCount::of_str(text))
        .bench(|| auditor::count(enc, divan::black_box(text)));
}

#[divan::bench(args = ENCODINGS, sample_count = 20)]
fn count_5_8m(bencher: divan::Bencher, enc: Encoding) {
    let text = AWS_5_8M.as_str();
    bencher
        .counter(divan::counter::BytesCount::of_str(text))
        .bench(|| auditor::count(enc, divan::black_box(text)));
}

#[divan::bench]
fn parse_200k(bencher: divan::Bencher) {
    let raw = AWS_200K.as_bytes();
    bencher
        .counter(divan::counter::BytesCount::of_slice(raw))
        .bench(|| tokensieve::json::parse(divan::black_box(raw)));
}

#[divan::bench]
fn compress_200k(bencher: divan::Bencher) {
    let value = tokensieve::json::parse(AWS_200K.as_bytes()).unwrap();
    let settings = Settings::default();
    bencher.with_inputs(|| value.clone()).bench_values(|v| tokensieve::json::compress(v, &settings));
}

/// What filter mode does with the bytes before printing: render + settle.
fn render_and_settle(bencher: divan::Bencher, raw: &[u8]) {
    let settings = Settings::default();
    bencher.bench(|| {
        let rendered = pipeline::render(raw, None, &settings);
        tokensieve::handoff::settle(raw, rendered, &settings)
    });
}

#[divan::bench(sample_count = 20)]
fn render_and_settle_5_8m(bencher: divan::Bencher) {
    render_and_settle(bencher, AWS_5_8M.as_bytes());
}

#[divan::bench]
fn render_and_settle_200k(bencher: divan::Bencher) {
    render_and_settle(bencher, AWS_200K.as_bytes());
}

#[divan::bench(sample_count = 20)]
fn text_render_600k(bencher: divan::Bencher) {
    let text = LOG_600K.as_str();
    let settings = Settings::default();
    let hint = Hint { command: vec!["journalctl".into(), "-u".into(), "web".into()], exit_code: 0 };
    bencher.bench(|| tokensieve::text::render(divan::black_box(text), Some(&hint), &settings));
}
