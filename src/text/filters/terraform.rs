//! terraform plan/apply/destroy: each resource's `# X will be created|
//! updated in-place|destroyed|replaced` line stays, with the attributes
//! that carry a value or a change (`+ name = "api"`, `~ size = 1 -> 2`,
//! `# forces replacement`); attributes only `(known after apply)`, block
//! openers and closers go, as do apply's `Still creating...` progress lines.
//! Warnings, errors and the `Plan:`/`Apply complete!` lines stay.

use super::{Filter, Invocation};
use crate::text::clean::tidy;
use crate::text::guard::Source;

pub struct Terraform;

impl Filter for Terraform {
    fn name(&self) -> &'static str {
        "terraform"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["terraform", "tofu"]) && matches!(inv.sub(), "plan" | "apply" | "destroy")
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        let mut out = Vec::new();
        let mut anchored = false;
        let mut in_block = false;
        let mut hidden = 0usize;
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with("# ") && t.contains(" will be ")
                || t.starts_with("# ") && t.contains(" must be ")
            {
                anchored = true;
                in_block = true;
                out.push(line.to_string());
                continue;
            }
            if t.starts_with("Plan: ")
                || t.starts_with("Apply complete!")
                || t.starts_with("Destroy complete!")
            {
                anchored = true;
                in_block = false;
            }
            if in_block {
                if t.is_empty() {
                    in_block = false;
                    continue;
                }
                let opener = t.ends_with('{') || t.ends_with('[') || t.ends_with('(');
                let closer = matches!(t, "}" | "]" | ")");
                let unknown = t.ends_with("(known after apply)") || t.ends_with("(sensitive value)");
                if (opener && !t.contains("->")) || closer || unknown {
                    hidden += 1;
                } else {
                    out.push(line.to_string());
                }
                continue;
            }
            if t.ends_with("Still creating...") || t.contains(": Still ") || t.ends_with(": Creating...") {
                hidden += 1;
                continue;
            }
            out.push(line.to_string());
        }
        if !anchored {
            return None;
        }
        if hidden > 0 {
            out.push(format!("({hidden} lines of block syntax, unknown values and progress not shown)"));
        }
        Some(tidy(&out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::command::inv;
    use crate::text::guard::Owned;

    #[test]
    fn plan_keeps_actions_values_and_changes() {
        let text = "Terraform will perform the following actions:\n\n  # a.b will be created\n  + resource \"x\" \"b\" {\n      + id    = (known after apply)\n      + input = \"api\"\n    }\n\n  # a.c will be updated in-place\n  ~ resource \"x\" \"c\" {\n      ~ size = 1 -> 2\n    }\n\nPlan: 1 to add, 1 to change, 0 to destroy.\n";
        let out = Terraform.summarize(&inv("terraform plan"), text, &Owned::new(text).src()).unwrap();
        assert_eq!(
            out,
            "Terraform will perform the following actions:\n\n  # a.b will be created\n      + input = \"api\"\n  # a.c will be updated in-place\n      ~ size = 1 -> 2\nPlan: 1 to add, 1 to change, 0 to destroy.\n(5 lines of block syntax, unknown values and progress not shown)\n"
        );
        assert!(
            Terraform.summarize(&inv("terraform plan"), "No changes.\n", &Owned::new("").src()).is_none()
        );
    }
}
