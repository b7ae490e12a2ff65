//! terraform plan/apply/destroy: each resource's `# X will be created|
//! updated in-place|destroyed|replaced` line stays, with the attributes
//! that carry a value or a change (`+ name = "api"`, `~ size = 1 -> 2`,
//! `# forces replacement`); attributes only `(known after apply)`, block
//! openers and closers go, as do terraform's own `# (3 unchanged attributes
//! hidden)` notes, the refresh lines a plan opens with (`x: Refreshing
//! state... [id=…]`, `Reading...`, `Read complete after 0s`) and apply's
//! `Still creating...` / `Creating...` / `Modifying...` progress lines.
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
            // a resource's block runs to the next line at the margin (blank
            // lines inside it, before `# (4 unchanged blocks hidden)`, too)
            if in_block && !line.is_empty() && !line.starts_with(char::is_whitespace) {
                in_block = false;
            }
            if in_block {
                if t.is_empty() {
                    continue;
                }
                let opener = t.ends_with('{') || t.ends_with('[') || t.ends_with('(');
                let closer = matches!(t, "}" | "]" | ")");
                let unknown = t.ends_with("(known after apply)") || t.ends_with("(sensitive value)");
                let unchanged = t.starts_with("# (") && t.contains(" unchanged ") && t.ends_with(" hidden)");
                if (opener && !t.contains("->")) || closer || unknown || unchanged {
                    hidden += 1;
                } else {
                    out.push(line.to_string());
                }
                continue;
            }
            if t.ends_with("Still creating...") || t.contains(": Still ") || is_progress(t) {
                hidden += 1;
                continue;
            }
            out.push(line.to_string());
        }
        if !anchored {
            return None;
        }
        if hidden > 0 {
            out.push(format!(
                "({hidden} lines of block syntax, unknown values, unchanged-attribute notes and progress not shown)"
            ));
        }
        Some(tidy(&out))
    }
}

/// A resource's progress line: `aws_instance.web: Refreshing state...
/// [id=i-0abc]`, `data.x.y: Reading...`, `Read complete after 0s [id=…]`,
/// `Creating...`, `Modifying... [id=…]`, `Destroying... [id=…]`.
fn is_progress(t: &str) -> bool {
    const STEPS: &[&str] = &[
        ": Refreshing state...",
        ": Reading...",
        ": Read complete after ",
        ": Creating...",
        ": Modifying...",
        ": Destroying...",
    ];
    !t.starts_with('#') && STEPS.iter().any(|s| t.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::inv;
    use crate::text::guard::Owned;

    #[test]
    fn plan_keeps_actions_values_and_changes() {
        let text = "Terraform will perform the following actions:\n\n  # a.b will be created\n  + resource \"x\" \"b\" {\n      + id    = (known after apply)\n      + input = \"api\"\n    }\n\n  # a.c will be updated in-place\n  ~ resource \"x\" \"c\" {\n      ~ size = 1 -> 2\n    }\n\nPlan: 1 to add, 1 to change, 0 to destroy.\n";
        let out = Terraform.summarize(&inv("terraform plan"), text, &Owned::new(text).src()).unwrap();
        assert_eq!(
            out,
            "Terraform will perform the following actions:\n\n  # a.b will be created\n      + input = \"api\"\n  # a.c will be updated in-place\n      ~ size = 1 -> 2\nPlan: 1 to add, 1 to change, 0 to destroy.\n(5 lines of block syntax, unknown values, unchanged-attribute notes and progress not shown)\n"
        );
        assert!(
            Terraform.summarize(&inv("terraform plan"), "No changes.\n", &Owned::new("").src()).is_none()
        );
    }

    #[test]
    fn refreshes_and_unchanged_notes_go() {
        let text = "aws_vpc.main: Refreshing state... [id=vpc-0a1]\ndata.aws_ami.ubuntu: Reading...\ndata.aws_ami.ubuntu: Read complete after 1s [id=ami-0b2]\naws_instance.web: Refreshing state... [id=i-0c3]\n\nTerraform will perform the following actions:\n\n  # aws_instance.web will be updated in-place\n  ~ resource \"aws_instance\" \"web\" {\n        id            = \"i-0c3\"\n      ~ instance_type = \"t3.micro\" -> \"t3.small\"\n        # (28 unchanged attributes hidden)\n\n        # (4 unchanged blocks hidden)\n    }\n\nPlan: 0 to add, 1 to change, 0 to destroy.\n";
        let out = Terraform.summarize(&inv("terraform plan"), text, &Owned::new(text).src()).unwrap();
        assert_eq!(
            out,
            "Terraform will perform the following actions:\n\n  # aws_instance.web will be updated in-place\n        id            = \"i-0c3\"\n      ~ instance_type = \"t3.micro\" -> \"t3.small\"\nPlan: 0 to add, 1 to change, 0 to destroy.\n(8 lines of block syntax, unknown values, unchanged-attribute notes and progress not shown)\n"
        );
    }
}
