//! The one place a command's output is written. Each `ops::` function
//! returns what it found; this writes its text (or JSON, TOML) to
//! standard output and its notes to standard error, and turns
//! [`Summary::done`] into the exit code. A reader that closed the pipe
//! (`empereur map | head -1`) is an I/O error returned from here, which
//! `cli::main` takes for the end of the reader's interest, not a failure.

use crate::ops::run::GameRan;
use crate::ops::{Done, Format, Structured, Summary};
use std::io::Write;

/// Write `text` to standard output and flush it.
pub fn write_out(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()
}

/// Print a command's summary: its `Display`, then what goes to standard
/// error, then its failure if it found one after the output.
pub fn print(summary: impl Summary) -> anyhow::Result<Done> {
    let text = summary.to_string();
    finish(&summary, &text)
}

/// As [`print`], in the format the user asked for.
pub fn print_as(summary: impl Structured, format: Format) -> anyhow::Result<Done> {
    let text = match format {
        Format::Text => summary.to_string(),
        Format::Json => summary.json()?,
        Format::Toml => summary.toml()?,
    };
    finish(&summary, &text)
}

fn finish(summary: &impl Summary, text: &str) -> anyhow::Result<Done> {
    match write_out(text) {
        Err(_) if summary.output_optional() => {}
        written => written?,
    }
    let notes = summary.stderr();
    if !notes.is_empty() {
        eprint!("{notes}");
    }
    if let Some(failure) = summary.failure() {
        anyhow::bail!("{failure}");
    }
    Ok(summary.done())
}

/// `empereur run`: each game's lines as soon as it has run. What needs the
/// moderator goes to standard output, failures to standard error, and
/// with `--verbose` what was done.
pub fn game_ran(verbose: bool) -> impl FnMut(GameRan<'_>) -> std::io::Result<()> {
    move |ran| match ran {
        GameRan::Ran(r) => {
            let mut text = String::new();
            for line in &r.attention {
                text.push_str(&format!("{}: {line}\n", r.game));
            }
            write_out(&text)?;
            for line in &r.failures {
                eprintln!("{}: error: {line}", r.game);
            }
            if verbose {
                write_out(&format!("{}: {}\n", r.game, r.counts()))?;
            }
            Ok(())
        }
        GameRan::Failed { dir, error } => {
            eprintln!("{}: error: {error:#}", dir.display());
            Ok(())
        }
    }
}
