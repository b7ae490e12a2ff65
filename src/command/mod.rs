//! What a command line says, at the bottom of the crate: which tool it runs
//! and its subcommand (`Invocation`, what the filters key on), and which of
//! its words the history may keep (`command_words`, over the subcommand
//! tables of `words`). Knowledge about argv only: no I/O, no settings.

mod invocation;
mod words;

pub use invocation::Invocation;
#[cfg(test)]
pub(crate) use invocation::inv;

/// Most subcommand words kept (`gcloud compute instances list` has three).
const MAX_WORDS: usize = 4;
/// Longer words are more likely ids or tokens than subcommands.
const MAX_WORD_LEN: usize = 32;

/// `(tool, subcommand)` from a command line: the tool's basename, then the
/// words that are known subcommands of that tool's family at their place
/// (`aws ec2 describe-vpcs --x y` → `("aws", "ec2 describe-vpcs")`,
/// `redis-cli AUTH hunter2pass` → `("redis-cli", "AUTH")`), at most
/// `MAX_WORDS`: a free-form value is never recorded (see `words`).
pub fn command_words(command: &[String]) -> (String, String) {
    let tool = command
        .first()
        .map(|t| t.rsplit('/').next().unwrap_or(t))
        .filter(|t| is_plain_word(t))
        .unwrap_or("?")
        .to_owned();
    let args = command.get(1..).unwrap_or_default();
    let n = words::subcommand_len(&tool, args, MAX_WORDS);
    let words: Vec<&str> = args[..n].iter().take_while(|w| is_plain_word(w)).map(String::as_str).collect();
    (tool, words.join(" "))
}

/// A word the history may keep: a name, not a value (`+` for `g++`, `c++`).
fn is_plain_word(w: &str) -> bool {
    !w.is_empty()
        && w.len() <= MAX_WORD_LEN
        && !w.starts_with('-')
        && w.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':' | b'+'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> (String, String) {
        command_words(&s.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
    }

    #[test]
    fn subcommand_words_stop_at_the_first_flag() {
        assert_eq!(
            words("aws ec2 describe-vpcs --secret-token hunter2"),
            ("aws".into(), "ec2 describe-vpcs".into())
        );
        assert_eq!(words("/usr/bin/kubectl get pods -n kube-system"), ("kubectl".into(), "get pods".into()));
        assert_eq!(words("gh"), ("gh".into(), String::new()));
        assert_eq!(words("git -C /repo status"), ("git".into(), String::new()));
    }

    #[test]
    fn subcommand_words_refuse_what_may_be_secret() {
        assert_eq!(words("curl https://user:pw@example.com"), ("curl".into(), String::new()));
        assert_eq!(words("env TOKEN=abc aws"), ("env".into(), String::new()));
        assert_eq!(
            words("tool login ghp_0123456789abcdefghijklmnopqrstuvwxyz"),
            ("tool".into(), "login".into())
        );
        assert_eq!(words("gcloud a b c d e f"), ("gcloud".into(), String::new()));
        assert_eq!(
            words("gcloud compute instances list extra"),
            ("gcloud".into(), "compute instances list".into())
        );
        assert_eq!(words("redis-cli AUTH hunter2pass"), ("redis-cli".into(), "AUTH".into()));
        assert_eq!(words("we!rd list"), ("?".into(), "list".into()));
    }

    /// Issue 24: the history recorded `g++` as `?`, so `recall --tool g++`
    /// found nothing.
    #[test]
    fn g_plus_plus_is_recorded_as_itself() {
        assert_eq!(words("g++ -O2 -c shapes.cpp"), ("g++".into(), String::new()));
        assert_eq!(words("/usr/bin/clang++ x.cc"), ("clang++".into(), String::new()));
    }
}
