//! Seed 003's text transforms, each a pure function that says whether it
//! changed anything (the stats count entries and blocks per transform).
//!
//! Lossless, for assistant text: NFC, zero-width and unusual whitespace,
//! whitespace canonicalisation. Lossy, only inside thinking: stop words and
//! (opt-in) synonyms.

use std::collections::HashMap;

use unicode_normalization::{UnicodeNormalization, is_nfc_quick};

/// NFC form of `s` (`None`: already NFC).
pub fn nfc(s: &str) -> Option<String> {
    if s.is_ascii() || is_nfc_quick(s.chars()) == unicode_normalization::IsNormalized::Yes {
        return None;
    }
    let out: String = s.nfc().collect();
    (out != s).then_some(out)
}

/// Characters that carry nothing a reader sees: zero-width space, word
/// joiner, byte-order mark, soft hyphen. Zero-width (non-)joiners shape
/// emoji and some scripts, so they go only next to ASCII or whitespace.
fn invisible(c: char) -> bool {
    matches!(c, '\u{200B}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}')
}

fn joiner(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
}

/// Spaces of another width or kind that read as one plain space.
fn unusual_space(c: char) -> bool {
    matches!(c, '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' | '\u{1680}')
}

/// Zero-width characters removed, unusual spaces made plain spaces.
pub fn zero_width(s: &str) -> Option<String> {
    if s.is_ascii() {
        return None;
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut changed = false;
    for (i, &c) in chars.iter().enumerate() {
        let plain = |o: Option<&char>| o.is_none_or(|c| c.is_ascii() || c.is_whitespace());
        if invisible(c)
            || (joiner(c) && (plain(i.checked_sub(1).and_then(|j| chars.get(j))) || plain(chars.get(i + 1))))
        {
            changed = true;
        } else if unusual_space(c) {
            out.push(' ');
            changed = true;
        } else {
            out.push(c);
        }
    }
    changed.then_some(out)
}

/// Whitespace made canonical without touching what it means in Markdown or
/// code: trailing blanks of each line dropped, runs of spaces between words
/// made one (indentation kept), runs of blank lines made one, `\r\n` → `\n`.
pub fn whitespace(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut blank_run = 0;
    let mut fence = false;
    for (i, line) in s.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let trimmed_end = line.trim_end_matches([' ', '\t']);
        if trimmed_end.trim_start().starts_with("```") {
            fence = !fence;
        }
        if trimmed_end.is_empty() {
            blank_run += 1;
            if blank_run > 1 && i > 0 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        if i > 0 {
            out.push('\n');
        }
        let body_at = trimmed_end.len() - trimmed_end.trim_start_matches([' ', '\t']).len();
        out.push_str(&trimmed_end[..body_at]);
        let body = &trimmed_end[body_at..];
        if fence || body.starts_with('|') {
            // Code and tables align with spaces: their inner runs stay.
            out.push_str(body);
            continue;
        }
        let mut prev_space = false;
        for c in body.chars() {
            if c == ' ' {
                if !prev_space {
                    out.push(' ');
                }
                prev_space = true;
            } else {
                out.push(c);
                prev_space = false;
            }
        }
    }
    // The text's own ending (a final newline) stays.
    (out != s).then_some(out)
}

/// Stop-word lists, short and plain (articles, auxiliaries, pronouns,
/// prepositions); negations are never stop words (dropping "not" reverses
/// a thought).
pub fn stop_words(lang: &str) -> Option<&'static [&'static str]> {
    Some(match lang {
        "en" => &[
            "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "of", "to", "in",
            "on", "at", "by", "for", "with", "that", "this", "these", "those", "it", "its", "i", "me", "my",
            "we", "our", "you", "your", "he", "she", "they", "them", "their", "his", "her", "so", "then",
            "just", "very", "really", "also", "as", "do", "does", "did", "have", "has", "had", "will",
            "would", "should", "could", "can", "there", "here", "which", "what", "about", "into", "from",
            "some", "any", "and", "or", "if", "let", "me", "i'll", "i'm", "let's", "it's", "that's", "okay",
            "ok", "well", "now",
        ],
        "fr" => &[
            "le", "la", "les", "un", "une", "des", "de", "du", "et", "ou", "à", "au", "aux", "en", "dans",
            "par", "pour", "sur", "avec", "ce", "cette", "ces", "il", "elle", "ils", "elles", "je", "tu",
            "nous", "vous", "est", "sont", "été", "être", "que", "qui", "donc", "alors", "aussi", "très",
        ],
        "de" => &[
            "der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "und", "oder", "zu",
            "im", "in", "am", "an", "auf", "für", "mit", "von", "ist", "sind", "war", "es", "ich", "wir",
            "sie", "er", "dass", "so", "also", "auch", "sehr", "dann",
        ],
        "es" => &[
            "el", "la", "los", "las", "un", "una", "unos", "unas", "de", "del", "y", "o", "a", "al", "en",
            "por", "para", "con", "que", "es", "son", "fue", "ser", "este", "esta", "esto", "yo", "nosotros",
            "muy", "también", "entonces",
        ],
        "none" => &[],
        _ => return None,
    })
}

/// The languages `--stopwords` accepts.
pub const STOP_WORD_LANGS: &str = "en, fr, de, es, none";

/// Stop words removed from `s` (matched case-insensitively as whole words;
/// punctuation and line structure kept).
pub fn drop_stop_words(s: &str, words: &[&str]) -> Option<String> {
    if words.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut changed = false;
    for line in s.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let indent = &body[..body.len() - body.trim_start().len()];
        out.push_str(indent);
        let mut first = true;
        for word in body.split_whitespace() {
            let core = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
            let is_stop = !core.is_empty() && core.len() == word.len() && {
                let lower = core.to_lowercase();
                words.contains(&lower.as_str())
            };
            if is_stop {
                changed = true;
                continue;
            }
            if !first {
                out.push(' ');
            }
            out.push_str(word);
            first = false;
        }
        out.push_str(end);
    }
    changed.then_some(out)
}

/// Seed 003's idea of a conservative table: long phrases with a shorter one
/// of the same meaning.
pub fn default_synonyms() -> Vec<(String, String)> {
    [
        ("in order to", "to"),
        ("due to the fact that", "because"),
        ("a large number of", "many"),
        ("at this point in time", "now"),
        ("for the purpose of", "for"),
        ("in the event that", "if"),
        ("is able to", "can"),
        ("are able to", "can"),
        ("with regard to", "about"),
        ("in addition to", "besides"),
        ("as a result of", "from"),
        ("prior to", "before"),
        ("subsequent to", "after"),
        ("approximately", "about"),
        ("implementation", "impl"),
        ("configuration", "config"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_owned(), b.to_owned()))
    .collect()
}

/// A table from a file: one `phrase<TAB>replacement` per line, `#` comments.
pub fn parse_synonyms(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut table = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        match line.split_once('\t') {
            Some((from, to)) if !from.trim().is_empty() => {
                table.push((from.trim().to_lowercase(), to.trim().to_owned()))
            }
            _ => return Err(format!("line {}: expected 'phrase<TAB>replacement'", n + 1)),
        }
    }
    Ok(table)
}

/// Phrases replaced (case-insensitive, whole words), longest phrase first.
pub fn substitute(s: &str, table: &[(String, String)]) -> Option<String> {
    let mut by_len: Vec<&(String, String)> = table.iter().collect();
    by_len.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
    let lower = s.to_lowercase();
    // Lowercasing can change byte lengths outside ASCII: positions would
    // not line up, so such text is left alone.
    if lower.len() != s.len() {
        return None;
    }
    let mut hits: HashMap<usize, (usize, &str)> = HashMap::new();
    let mut taken = vec![false; s.len()];
    for (from, to) in by_len {
        let mut at = 0;
        while let Some(pos) = lower[at..].find(from.as_str()) {
            let start = at + pos;
            let end = start + from.len();
            at = end;
            let before = lower[..start].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
            let after = lower[end..].chars().next().is_none_or(|c| !c.is_alphanumeric());
            if before && after && !taken[start..end].iter().any(|t| *t) {
                taken[start..end].iter_mut().for_each(|t| *t = true);
                hits.insert(start, (end, to.as_str()));
            }
        }
    }
    if hits.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if let Some(&(end, to)) = hits.get(&i) {
            out.push_str(to);
            i = end;
        } else {
            let c = s[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nfc_composes_and_leaves_composed_text_alone() {
        assert_eq!(nfc("cafe\u{301}").as_deref(), Some("café"));
        assert_eq!(nfc("café"), None);
        assert_eq!(nfc("plain"), None);
    }

    #[test]
    fn invisible_characters_go_and_odd_spaces_become_plain() {
        assert_eq!(zero_width("a\u{200B}b\u{00A0}c").as_deref(), Some("ab c"));
        // A joiner inside an emoji sequence is part of the glyph.
        assert_eq!(zero_width("\u{1F468}\u{200D}\u{1F469}"), None);
        assert_eq!(zero_width("x\u{200D} y").as_deref(), Some("x y"));
    }

    #[test]
    fn whitespace_keeps_indentation_code_and_paragraphs() {
        let s = "Two  spaces here.  \n\n\n\nNext para\n    indented  code\n```\nlet  x = 1;\n```\n";
        assert_eq!(
            whitespace(s).as_deref(),
            Some("Two spaces here.\n\nNext para\n    indented code\n```\nlet  x = 1;\n```\n")
        );
        assert_eq!(whitespace("already fine\n"), None);
    }

    #[test]
    fn stop_words_go_negations_and_punctuated_words_stay() {
        let words = stop_words("en").unwrap();
        assert_eq!(
            drop_stop_words("I think the test is not flaky.\n  Then it fails", words).as_deref(),
            Some("think test not flaky.\n  fails")
        );
    }

    #[test]
    fn synonyms_match_whole_words_longest_first() {
        let table = default_synonyms();
        assert_eq!(
            substitute("In order to fix it, approximately two", &table).as_deref(),
            Some("to fix it, about two")
        );
        assert_eq!(substitute("reorder to", &table), None);
    }
}
