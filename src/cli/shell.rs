//! The moderator's shell: `empereur completions SHELL` prints a
//! completion script (clap_complete), `empereur man --out DIR` writes a
//! man page per command (clap_mangen), both from the same clap
//! definitions as `--help`, so they never drift from the real flags.
//! It lives in `cli` because it is about the command line itself.
#![allow(clippy::disallowed_methods)] // adapter: files

use crate::ops::Summary;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The shells a completion script is written for.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(clap::Args, Debug, Clone)]
#[command(
    after_help = "Examples:\n  empereur completions bash > ~/.local/share/bash-completion/completions/empereur\n  empereur completions zsh > ~/.zfunc/_empereur\n  empereur completions fish > ~/.config/fish/completions/empereur.fish"
)]
pub struct CompletionsArgs {
    /// The shell to write the script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(clap::Args, Debug, Clone)]
#[command(after_help = "Example:\n  empereur man --out man && man -l man/empereur-run.1")]
pub struct ManArgs {
    /// The directory to write the pages to (created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

/// The completion script for `shell`.
pub fn completion_script(cmd: &mut clap::Command, shell: Shell) -> String {
    use clap_complete::Shell as S;
    let s = match shell {
        Shell::Bash => S::Bash,
        Shell::Zsh => S::Zsh,
        Shell::Fish => S::Fish,
    };
    let mut buf = Vec::new();
    clap_complete::generate(s, cmd, "empereur", &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// A shell completion script, the whole output of `empereur completions`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Script(pub String);

impl std::fmt::Display for Script {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Summary for Script {}

/// `empereur completions SHELL`
pub fn completions(mut cmd: clap::Command, a: &CompletionsArgs) -> Script {
    Script(completion_script(&mut cmd, a.shell))
}

/// Write `empereur.1` and one `empereur-<command>.1` per command (and
/// per subcommand of those that have them) into `out`; returns the files.
pub fn write_man_pages(cmd: clap::Command, out: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut written = Vec::new();
    let mut cmd = cmd;
    cmd.build();
    page(&cmd, "empereur", out, &mut written)?;
    Ok(written)
}

fn page(cmd: &clap::Command, name: &str, out: &Path, written: &mut Vec<PathBuf>) -> Result<()> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .title(name)
        .render(&mut buf)
        .with_context(|| format!("rendering the man page of {name}"))?;
    let path = out.join(format!("{name}.1"));
    crate::store::atomic_write(&path, &buf)?;
    written.push(path);
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        page(sub, &format!("{name}-{}", sub.get_name()), out, written)?;
    }
    Ok(())
}

/// The man pages `empereur man` wrote, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManPages {
    pub files: Vec<PathBuf>,
    pub out: PathBuf,
}

impl std::fmt::Display for ManPages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "wrote {} man page(s) to {}", self.files.len(), self.out.display())
    }
}

impl Summary for ManPages {}

/// `empereur man --out DIR`
pub fn man(cmd: clap::Command, a: &ManArgs) -> Result<ManPages> {
    Ok(ManPages {
        files: write_man_pages(cmd, &a.out)?,
        out: a.out.clone(),
    })
}
