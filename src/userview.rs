//! A focus view as written: the user's `[[view]]` tables (`crate::config`)
//! and the built-in library (`src/focus/views.toml`) share this form. Plain
//! data and the command match; `crate::focus::library` runs the programs.

use serde::Deserialize;

/// A view: which commands it is for, and the jq program that returns the
/// part of their JSON output to show.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct View {
    pub name: String,
    /// Command words (options left out) this view is for: `aws ec2
    /// describe-vpcs`. A command matches when its tool is the first word
    /// and the others come in order among its own.
    pub commands: Vec<String>,
    /// A jq condition on the document (default: always).
    pub when: Option<String>,
    /// The program: the document in, the part of it to show out.
    pub jq: String,
    #[serde(default)]
    pub test: Vec<Test>,
}

/// An inline test: the view's part of `input` holds every string of
/// `shows` and none of `hides` (as compact JSON).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Test {
    pub input: String,
    #[serde(default)]
    pub shows: Vec<String>,
    #[serde(default)]
    pub hides: Vec<String>,
}

/// The words of a command line that name it (options left out, a path
/// cut to its last part): `aws ec2 describe-vpcs` of
/// `/usr/bin/aws --region x ec2 describe-vpcs`. The first is the tool.
pub fn plain_words(words: &[String]) -> impl Iterator<Item = &str> {
    words
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'))
        .map(|w| w.rsplit('/').next().unwrap_or(w))
}

impl View {
    /// Whether `words` (a command line, tool first) is one of this view's
    /// commands.
    pub fn is_for(&self, words: &[String]) -> bool {
        let plain: Vec<&str> = plain_words(words).collect();
        self.commands.iter().any(|c| {
            let mut rest = plain.iter();
            c.split_whitespace().next() == plain.first().copied()
                && c.split_whitespace().all(|want| rest.any(|w| *w == want))
        })
    }
}
