//! `empereur export-history`: a tarball of what a player needs to check
//! the game with `empereur verify` (and `--mails`): `history/` (the
//! committed entries and `head.toml`) and `phase/commitment`. Nothing
//! secret of the open phase (its seed, the staged next seed, orders
//! not yet resolved) and nothing of the players' accounts (`game.toml`,
//! mail) is in it.
#![allow(clippy::disallowed_methods)] // adapter

use crate::store::{GameDir, history, phase};
use anyhow::{Context, Result};
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct ExportArgs {
    /// The game directory.
    pub game: PathBuf,
    /// The tar file to write.
    pub out: PathBuf,
}

/// The tarball `empereur export-history` wrote and how many files it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    pub out: PathBuf,
    pub files: usize,
}

impl std::fmt::Display for Exported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "wrote {} ({} file(s): history/ and phase/commitment)",
            self.out.display(),
            self.files
        )
    }
}

impl super::Summary for Exported {}

pub fn run(a: &ExportArgs) -> Result<Exported> {
    let files = export(&GameDir::new(&a.game), &a.out)?;
    Ok(Exported {
        out: a.out.clone(),
        files,
    })
}

/// Write the tarball; returns the number of files in it. Entries are
/// stored in a fixed order with fixed modes and times, so exporting the
/// same history twice gives the same bytes.
pub fn export(dir: &GameDir, out: &Path) -> Result<usize> {
    let _lock = dir.lock()?;
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    if history::head_path(dir).is_file() {
        files.push(("history/head.toml".into(), history::head_path(dir)));
    }
    for (name, inner) in history::committed_files(dir)? {
        for (rel, p) in inner {
            files.push((format!("history/{name}/{rel}"), p));
        }
    }
    if phase::commitment_path(dir).is_file() {
        files.push(("phase/commitment".into(), phase::commitment_path(dir)));
    }
    let tmp = out.with_extension("tar.tmp");
    let f = fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
    let mut tar = tar::Builder::new(f);
    for (name, path) in &files {
        let bytes = fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let mut h = tar::Header::new_ustar();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        h.set_entry_type(tar::EntryType::Regular);
        tar.append_data(&mut h, name, bytes.as_slice())
            .with_context(|| format!("cannot add {name} to {}", tmp.display()))?;
    }
    let f = tar.into_inner().context("finishing the tarball")?;
    f.sync_all()?;
    fs::rename(&tmp, out).with_context(|| format!("cannot write {}", out.display()))?;
    Ok(files.len())
}
