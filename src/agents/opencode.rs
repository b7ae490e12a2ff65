//! OpenCode. Its bash tool runs `$SHELL -c CMD` (bash when unset) with the
//! environment the `opencode` process started with, merged with whatever
//! its plugins' `shell.env` hooks return; no rc file is read. OpenCode loads
//! every `*.js`/`*.ts` file in the global plugin folder
//! (`$XDG_CONFIG_HOME/opencode/plugins`, default `~/.config/opencode`) at
//! start-up. So `init opencode` writes `plugins/tokensieve.js`, whose
//! `shell.env` hook puts the shim folder first on the PATH it hands the
//! shell (checked on the real CLI, 1.18: the bash tool then finds the
//! shims when `opencode` was started without them). `opencode --pure`
//! runs without plugins, and then without the shims. The note for the
//! model goes into the global rules file `AGENTS.md` in the same folder.

use std::path::{Path, PathBuf};

use super::block::{self, Markers};
use super::edit::Edit;
use super::{Context, INSTRUCTIONS};

const RULES_MARKERS: Markers =
    Markers { begin: "<!-- >>> tokensieve >>> -->", end: "<!-- <<< tokensieve <<< -->" };
/// The plugin is a marked block too: a person's own lines around it stay.
const PLUGIN_MARKERS: Markers =
    Markers { begin: "// >>> tokensieve (tokensieve init opencode) >>>", end: "// <<< tokensieve <<<" };

/// `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
pub fn config_dir(ctx: &Context) -> PathBuf {
    match ctx.var("XDG_CONFIG_HOME") {
        Some(dir) if Path::new(&dir).is_absolute() => PathBuf::from(dir).join("opencode"),
        _ => ctx.user_home.join(".config").join("opencode"),
    }
}

pub fn plugin_path(ctx: &Context) -> PathBuf {
    config_dir(ctx).join("plugins").join("tokensieve.js")
}

pub fn edits(ctx: &Context) -> Vec<Edit> {
    let body = plugin_body(&ctx.bin, ctx.explicit_home.as_deref());
    vec![
        Edit {
            path: plugin_path(ctx),
            apply: Box::new(move |text| block::with_block(text, PLUGIN_MARKERS, &body)),
            remove: Box::new(|text| block::without_block(text, PLUGIN_MARKERS)),
        },
        Edit {
            path: config_dir(ctx).join("AGENTS.md"),
            apply: Box::new(|text| block::with_block(text, RULES_MARKERS, INSTRUCTIONS)),
            remove: Box::new(|text| block::without_block(text, RULES_MARKERS)),
        },
    ]
}

/// The plugin: one `shell.env` hook. JSON strings are JavaScript string
/// literals, so the paths go in as JSON.
pub fn plugin_body(bin: &Path, explicit_home: Option<&Path>) -> String {
    let js = |p: &Path| serde_json::to_string(&p.to_string_lossy()).unwrap_or_default();
    let home = match explicit_home {
        Some(h) => format!("    output.env.TOKENSIEVE_HOME = {};\n", js(h)),
        None => String::new(),
    };
    format!(
        "// Puts the tokensieve shims first on the PATH of OpenCode's shell.\n\
         const TOKENSIEVE_BIN = {bin};\n\
         export const TokensieveShims = async () => ({{\n  \
           \"shell.env\": async (_input, output) => {{\n    \
             const path = output.env.PATH ?? process.env.PATH ?? \"\";\n    \
             if (path.split(\":\")[0] !== TOKENSIEVE_BIN) {{\n      \
               output.env.PATH = path ? `${{TOKENSIEVE_BIN}}:${{path}}` : TOKENSIEVE_BIN;\n    \
             }}\n{home}  \
           }},\n\
         }});\n",
        bin = js(bin),
    )
}

/// A script for a JavaScript runtime (OpenCode's own Bun, or node) that
/// loads the installed plugin as OpenCode does, fires its `shell.env` hooks
/// and prints the PATH the shell would get.
pub fn probe_script(plugin: &Path) -> String {
    let url = serde_json::to_string(&format!("file://{}", plugin.display())).unwrap_or_default();
    format!(
        "const m = await import({url});\n\
         const output = {{ env: {{}} }};\n\
         for (const make of Object.values(m)) {{\n  \
           if (typeof make !== \"function\") continue;\n  \
           const hooks = await make({{}});\n  \
           if (hooks && hooks[\"shell.env\"]) await hooks[\"shell.env\"]({{ cwd: process.cwd() }}, output);\n\
         }}\n\
         process.stdout.write(output.env.PATH ?? process.env.PATH ?? \"\");\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_block_round_trips_and_keeps_a_persons_lines() {
        let body = plugin_body(Path::new("/h/.tokensieve/bin"), None);
        let mine = "// my own plugin\nexport const Mine = async () => ({});\n";
        let with = block::with_block(mine, PLUGIN_MARKERS, &body).unwrap();
        assert!(with.starts_with(mine) && with.contains("const TOKENSIEVE_BIN = \"/h/.tokensieve/bin\";"));
        assert_eq!(block::with_block(&with, PLUGIN_MARKERS, &body).unwrap(), with);
        assert_eq!(block::without_block(&with, PLUGIN_MARKERS).unwrap(), mine);
        let alone = block::with_block("", PLUGIN_MARKERS, &body).unwrap();
        assert_eq!(block::without_block(&alone, PLUGIN_MARKERS).unwrap(), "");
    }

    #[test]
    fn paths_are_javascript_string_literals() {
        let body = plugin_body(Path::new("/opt/a \"b\"\\c/bin"), Some(Path::new("/d/ts")));
        assert!(body.contains(r#"const TOKENSIEVE_BIN = "/opt/a \"b\"\\c/bin";"#), "{body}");
        assert!(body.contains(r#"output.env.TOKENSIEVE_HOME = "/d/ts";"#), "{body}");
    }

    /// The plugin run by a real JavaScript runtime, when this machine has
    /// node (the opt-in end-to-end test runs it inside OpenCode itself).
    #[test]
    fn the_plugin_puts_the_shims_first_when_run() {
        let Some(node) = ["/usr/bin/node", "/usr/local/bin/node"].into_iter().find(|p| Path::new(p).exists())
        else {
            eprintln!("skipped: no node on this machine");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let plugin = dir.path().join("tokensieve.mjs");
        let text = block::with_block("", PLUGIN_MARKERS, &plugin_body(Path::new("/x/bin"), None)).unwrap();
        std::fs::write(&plugin, text).unwrap();
        let run = |path: &str| {
            let out = std::process::Command::new(node)
                .args(["--input-type=module", "-e", &probe_script(&plugin)])
                .env("PATH", path)
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        assert_eq!(run("/usr/bin:/bin"), "/x/bin:/usr/bin:/bin");
        assert_eq!(run("/x/bin:/usr/bin"), "/x/bin:/usr/bin");
    }
}
