//! Who should write a game directory: its owner (issue 33, first
//! contact). Everything the program writes is private to the user who
//! runs it (umask 077, `main.rs`), so a command run as root (or as anyone
//! but the owner) on a game leaves files that the owner's mail pipe
//! (`ingest`) and cron `run` cannot read, and the game stops taking mail.
//! The command-line layer asks [`warning`] before a command that writes a
//! game and prints it with the fix; the library never refuses, so a
//! harness that owns nothing (the real-server test, run as root) works.
#![allow(clippy::disallowed_methods)] // adapter

use std::path::Path;

/// The warning for a command about to write `dir` as the effective user,
/// with the fix; `None` when that user owns it (or it does not exist yet).
pub fn warning(dir: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let owner = std::fs::metadata(dir).ok()?.uid();
        let me = rustix::process::geteuid().as_raw();
        (owner != me).then(|| text(dir, owner, me, &user_name(owner)))
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// The warning's text: `dir` belongs to `owner` (named `name`), the
/// command runs as `me`.
fn text(dir: &Path, owner: u32, me: u32, name: &str) -> String {
    format!(
        "warning: {} belongs to {name} (uid {owner}), but this command runs as uid {me}: what it writes is private to uid {me}, and {name}'s mail pipe and cron `run` will not be able to read it. Run it as the owner (sudo -u {name} empereur …); to repair files already written, chown -R {name}: {}",
        dir.display(),
        dir.display()
    )
}

/// The login name of `uid` from `/etc/passwd`, else the number.
fn user_name(uid: u32) -> String {
    std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                let f: Vec<&str> = l.split(':').collect();
                (f.len() > 2 && f[2].parse() == Ok(uid)).then(|| f[0].to_string())
            })
        })
        .unwrap_or_else(|| uid.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_gets_no_warning_and_another_user_gets_the_fix() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(warning(tmp.path()), None);
        assert_eq!(warning(&tmp.path().join("missing")), None);
        let w = text(Path::new("/srv/g"), 65534, 0, "nobody");
        assert!(
            w.contains("/srv/g belongs to nobody (uid 65534), but this command runs as uid 0"),
            "{w}"
        );
        assert!(w.contains("sudo -u nobody empereur"), "{w}");
        assert!(w.contains("chown -R nobody: /srv/g"), "{w}");
        assert_eq!(user_name(0), "root");
    }
}
