//! Reports and mail bodies: view models and their rendering with
//! minijinja templates. Templates see only the view models defined here,
//! never the engine's types. The defaults live in `templates/` and are
//! embedded in the binary; a game overrides any of them with a file of the
//! same name in `<game>/templates/`. Output is plain UTF-8 text for a mail
//! client: prose wrapped at 72 columns (the `wrap` filter), no tables.
#![allow(clippy::disallowed_methods)] // adapter: reads a game's template overrides

pub mod guide;
pub mod standings;
pub mod views;

use anyhow::{Context, Result, anyhow};
use minijinja::Environment;
use std::path::Path;

pub use views::*;

/// Names and default texts of the templates.
pub const DEFAULTS: &[(&str, &str)] = &[
    ("ack", include_str!("../../templates/ack.txt")),
    ("phase-opening", include_str!("../../templates/phase-opening.txt")),
    ("turn-report", include_str!("../../templates/turn-report.txt")),
    ("reminder", include_str!("../../templates/reminder.txt")),
];

/// Mail column width.
pub const WIDTH: usize = 72;

/// The templates of one game: the defaults, overridden by
/// `<game>/templates/<name>.txt`.
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    /// The embedded defaults only.
    pub fn defaults() -> Templates {
        Templates::with_overrides(None).expect("embedded templates parse")
    }

    /// The defaults, overridden by files in `game_root/templates/`.
    pub fn load(game_root: &Path) -> Result<Templates> {
        Templates::with_overrides(Some(game_root))
    }

    fn with_overrides(game_root: Option<&Path>) -> Result<Templates> {
        let mut env = Environment::new();
        let mut syntax = minijinja::syntax::SyntaxConfig::builder();
        syntax.trim_blocks(true).lstrip_blocks(true);
        env.set_syntax(syntax.build().map_err(|e| anyhow!("template syntax: {e}"))?);
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        env.add_filter("wrap", wrap_filter);
        for (name, text) in DEFAULTS {
            let over = game_root.map(|r| r.join("templates").join(format!("{name}.txt")));
            let source = match over.filter(|p| p.is_file()) {
                Some(p) => std::fs::read_to_string(&p).with_context(|| format!("cannot read {}", p.display()))?,
                None => (*text).to_string(),
            };
            env.add_template_owned(name.to_string(), source)
                .map_err(|e| anyhow!("template {name}: {e}"))?;
        }
        Ok(Templates { env })
    }

    /// Render template `name` with a view model.
    pub fn render<S: serde::Serialize>(&self, name: &str, view: &S) -> Result<String> {
        let t = self
            .env
            .get_template(name)
            .map_err(|e| anyhow!("template {name}: {e}"))?;
        let text = t
            .render(minijinja::value::Serde(view))
            .map_err(|e| anyhow!("template {name}: {e:#}"))?;
        Ok(tidy(&text))
    }
}

/// `{{ text | wrap(70) }}`: word-wrap each paragraph at `width` columns.
fn wrap_filter(value: String, width: Option<usize>) -> String {
    let width = width.unwrap_or(WIDTH);
    value
        .split('\n')
        .map(|l| {
            textwrap::fill(
                l,
                textwrap::Options::new(width)
                    .break_words(false)
                    .word_splitter(textwrap::WordSplitter::NoHyphenation),
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Trailing spaces off, at most one blank line in a row, one final
/// newline.
fn tidy(text: &str) -> String {
    let mut out = String::new();
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}
