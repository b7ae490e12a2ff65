//! The views: jq programs, one per command shape (`views.toml`, built in),
//! and the user's `[[view]]` tables (`crate::config`), tried first.

use std::sync::OnceLock;

use anyhow::{Context, Result};
use serde::Deserialize;
use serde_json::Value;

/// Helpers every view program can use.
pub const PRELUDE: &str = r#"
def _set($p; $v):
  if $p == [] then $v
  else $p[0] as $k
  | if ($k | type) == "number" then
      (if type == "array" then . else [] end) as $a
      | ($a + [range($a | length; $k + 1) | null]) as $b
      | $b | .[$k] = ($b[$k] | _set($p[1:]; $v))
    else (if type == "object" then . else {} end) | .[$k] = (.[$k] | _set($p[1:]; $v))
    end
  end;
def keep(f): reduce (path_value(f) | select(.[1] != null)) as [$p, $v] (null; _set($p; $v));
def records(a; f): a |= map(keep(f));
def items(f): if (.items | type) == "array" then .items |= map(keep(f)) else keep(f) end;
"#;

pub use crate::userview::{Test, View};

#[derive(Deserialize)]
struct File {
    view: Vec<View>,
}

/// The tools the built-in views are for: the first word of each of their
/// commands (a test keeps the list so). A command of another tool (or
/// none: filter mode) can only be one of the user's views.
const BUILTIN_TOOLS: &[&str] = &["aws", "docker", "gh", "kubectl", "terraform"];

/// The built-in views.
pub fn builtin() -> &'static [View] {
    static VIEWS: OnceLock<Vec<View>> = OnceLock::new();
    VIEWS.get_or_init(|| {
        toml::from_str::<File>(include_str!("views.toml")).map(|f| f.view).unwrap_or_else(|e| {
            // The file is ours and tested: only a bad edit reaches this.
            eprintln!("tokensieve: built-in views: {e}");
            Vec::new()
        })
    })
}

/// What a view makes of documents.
pub trait Run {
    fn apply(&self, doc: &Value) -> Result<Option<Value>>;
    fn check(&self) -> Result<()>;
}

impl Run for View {
    /// The program's part of `doc`, or why there is none (`when` not met is
    /// `Ok(None)`).
    fn apply(&self, doc: &Value) -> Result<Option<Value>> {
        if let Some(cond) = &self.when {
            let met = crate::jq::run_value(&format!("{PRELUDE}{cond}"), doc)
                .with_context(|| format!("view '{}': when", self.name))?;
            if met.first() != Some(&Value::Bool(true)) {
                return Ok(None);
            }
        }
        let out = crate::jq::run_value(&format!("{PRELUDE}{}", self.jq), doc)
            .with_context(|| format!("view '{}'", self.name))?;
        Ok(out.into_iter().next())
    }

    /// A user's view checked before use: its programs compile and its
    /// inline tests pass (the view of each test input keeps every `shows`
    /// string and none of `hides`).
    fn check(&self) -> Result<()> {
        anyhow::ensure!(!self.commands.is_empty(), "commands: at least one command");
        for program in self.when.iter().chain([&self.jq]) {
            crate::jq::compiles(&format!("{PRELUDE}{program}"))
                .with_context(|| format!("view '{}'", self.name))?;
        }
        for (i, t) in self.test.iter().enumerate() {
            let doc: Value =
                serde_json::from_str(&t.input).with_context(|| format!("test {}: input", i + 1))?;
            let part = self.apply(&doc)?.with_context(|| format!("test {}: `when` is not met", i + 1))?;
            let shown = part.to_string();
            for s in &t.shows {
                anyhow::ensure!(shown.contains(s.as_str()), "test {}: '{s}' is not shown", i + 1);
            }
            for s in &t.hides {
                anyhow::ensure!(!shown.contains(s.as_str()), "test {}: '{s}' is shown", i + 1);
            }
        }
        Ok(())
    }
}

/// The first view for `words` whose condition `doc` meets, and its part of
/// the document: the user's views first, then ours.
pub fn apply<'v>(user: &'v [View], words: &[String], doc: &Value) -> Option<(&'v str, Value)> {
    // Reading views.toml costs ~0.15 ms: only for the tools it has views for.
    let tool = crate::userview::plain_words(words).next();
    let ours = match tool.is_some_and(|t| BUILTIN_TOOLS.contains(&t)) {
        true => builtin(),
        false => &[],
    };
    for view in user.iter().chain(ours) {
        if !view.is_for(words) {
            continue;
        }
        match view.apply(doc) {
            Ok(Some(part)) => return Some((view.name.as_str(), part)),
            Ok(None) => {}
            // A user's view that does not run says so (ours are tested).
            Err(e) => eprintln!("tokensieve: warning: {e:#}; the generic view is used"),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn every_builtin_view_compiles_and_matches_its_commands() {
        assert!(builtin().len() >= 15);
        for v in builtin() {
            for c in &v.commands {
                assert!(v.is_for(&words(c)), "{} for {c}", v.name);
                let tool = c.split_whitespace().next().unwrap_or_default();
                assert!(BUILTIN_TOOLS.contains(&tool), "{}: {tool} is missing from BUILTIN_TOOLS", v.name);
            }
            // A program that does not compile fails here, on any input.
            let r = v.apply(&json!({}));
            assert!(r.is_ok(), "{}: {:?}", v.name, r.err());
        }
    }

    #[test]
    fn commands_match_with_options_between() {
        let v = builtin().iter().find(|v| v.name == "aws ec2 describe-vpcs").unwrap();
        assert!(v.is_for(&words("aws --region eu-west-1 ec2 describe-vpcs --output json")));
        assert!(v.is_for(&words("/usr/local/bin/aws ec2 describe-vpcs")));
        assert!(!v.is_for(&words("aws ec2 describe-subnets")));
        assert!(!v.is_for(&words("echo aws ec2 describe-vpcs")));
    }

    /// A view of `command` with no condition and no tests.
    fn view(name: &str, command: &str, jq: &str) -> View {
        View { name: name.into(), commands: vec![command.into()], when: None, jq: jq.into(), test: vec![] }
    }

    #[test]
    fn the_builtin_views_are_read_for_their_tools_and_the_users_for_any() {
        let doc = json!({"Vpcs": [{"VpcId": "v1", "OwnerId": "1"}]});
        let name = |user: &[View], cmd: &str| apply(user, &words(cmd), &doc).map(|(n, _)| n.to_string());
        assert_eq!(
            name(&[], "/usr/bin/aws --region x ec2 describe-vpcs").as_deref(),
            Some("aws ec2 describe-vpcs")
        );
        assert_eq!(name(&[], ""), None);
        assert_eq!(name(&[], "mytool ec2 describe-vpcs"), None);
        let mine = view("mine", "mytool", "records(.Vpcs; .VpcId)");
        assert_eq!(name(std::slice::from_ref(&mine), "mytool ec2").as_deref(), Some("mine"));
    }

    #[test]
    fn keep_and_records_leave_fields_out_in_place() {
        let v = view("t", "t", "records(.Vpcs; .VpcId, .Cidr[]?.Block)");
        let doc = json!({"Vpcs": [{"VpcId": "v1", "Owner": "1", "Cidr": [{"Block": "b", "Id": "x"}]}], "Next": "n"});
        assert_eq!(
            v.apply(&doc).unwrap(),
            Some(json!({"Vpcs": [{"VpcId": "v1", "Cidr": [{"Block": "b"}]}], "Next": "n"}))
        );
    }
}
