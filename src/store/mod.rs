//! The game directory on disk: layout, atomic writes, the game lock, and
//! the game and players files.
//!
//! ```text
//! game.toml            configuration (config::GameConfig)
//! state.toml           the full current state (moderator's eyes only)
//! phase/               the open phase: commitment, seed (0600), orders/
//! history/NNNN-<id>/   everything a resolved phase produced, never rewritten
//! mail/inbox/          every raw message received (Maildir), never deleted
//! mail/outbox/ sent/   outgoing mail
//! journal.log          one line per decision (ingest, send, moderator acts)
//! .lock                held while a process works on the game
//! .wake                when `run` next has something to do (a cache, wake)
//! .checkpoint/         while a batch of commits runs (autoplay; checkpoint)
//! .spare/              a spare of each file a resolution replaces (spare)
//! .site-cache/pages    each history entry's public page as the site made it, in one file (a cache, site_cache)
//! ```
#![allow(clippy::disallowed_methods)] // adapter: this module owns file I/O

pub mod checkpoint;
pub mod clock;
pub mod config;
pub mod durable;
pub mod fault;
pub mod history;
pub mod keyline;
pub mod owner;
pub mod password;
pub mod phase;
pub mod players;
pub mod site_cache;
pub mod spare;
pub mod submission;
pub mod wake;

use crate::scenario::{Scenario, ScenarioFiles};
use crate::state::State;
use anyhow::{Context, Result, bail};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use config::GameConfig;

/// Paths of one game directory.
#[derive(Clone, Debug)]
pub struct GameDir {
    pub root: PathBuf,
}

impl GameDir {
    pub fn new(root: impl Into<PathBuf>) -> GameDir {
        GameDir { root: root.into() }
    }
    pub fn config(&self) -> PathBuf {
        self.root.join("game.toml")
    }
    pub fn state(&self) -> PathBuf {
        self.root.join("state.toml")
    }
    pub fn phase(&self) -> PathBuf {
        self.root.join("phase")
    }
    pub fn phase_orders(&self) -> PathBuf {
        self.root.join("phase").join("orders")
    }
    pub fn history(&self) -> PathBuf {
        self.root.join("history")
    }
    pub fn inbox(&self) -> PathBuf {
        self.root.join("mail").join("inbox")
    }
    pub fn outbox(&self) -> PathBuf {
        self.root.join("mail").join("outbox")
    }
    pub fn sent(&self) -> PathBuf {
        self.root.join("mail").join("sent")
    }
    pub fn journal(&self) -> PathBuf {
        self.root.join("journal.log")
    }
    pub fn lock_file(&self) -> PathBuf {
        self.root.join(".lock")
    }
    /// A scenario copied into the game (`scenario/`), if the game was
    /// created from a directory rather than an embedded scenario.
    pub fn scenario_dir(&self) -> PathBuf {
        self.root.join("scenario")
    }

    pub fn exists(&self) -> bool {
        self.config().exists() || self.state().exists()
    }

    /// Create the empty layout.
    pub fn create_layout(&self) -> Result<()> {
        for d in [
            self.root.clone(),
            self.phase(),
            self.phase_orders(),
            self.history(),
            self.inbox().join("cur"),
            self.inbox().join("new"),
            self.inbox().join("tmp"),
            self.outbox(),
            self.sent(),
        ] {
            fs::create_dir_all(&d).with_context(|| format!("cannot create {}", d.display()))?;
        }
        // Private whatever the umask (the binary also sets 077).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&self.root, fs::Permissions::from_mode(0o700))
                .with_context(|| format!("cannot make {} private", self.root.display()))?;
        }
        Ok(())
    }

    pub fn load_config(&self) -> Result<GameConfig> {
        let path = self.config();
        let text = read_text(&path)?;
        GameConfig::from_toml(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// The state, checked against its scenario: a hand-edited file with a
    /// unit in an unknown province or an impossible number is refused here,
    /// every problem named with its line and key, before anything uses it.
    pub fn load_state(&self) -> Result<State> {
        self.load_state_checked(None)
    }

    /// As [`GameDir::load_state`], with the scenario already loaded.
    pub fn load_state_for(&self, scenario: &Scenario) -> Result<State> {
        self.load_state_checked(Some(scenario))
    }

    fn load_state_checked(&self, scenario: Option<&Scenario>) -> Result<State> {
        let path = self.state();
        let file = path.display().to_string();
        let text = read_text(&path)?;
        let state = parse_state(&text).map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
        let own;
        let scenario = match scenario {
            Some(s) => s,
            None => {
                // The game's own copy, else the embedded scenario the state
                // names (game.toml is not needed to check the state).
                own = if self.scenario_dir().is_dir() {
                    Arc::new(load_scenario_dir(&self.scenario_dir())?)
                } else {
                    load_scenario(&state.scenario).map_err(|e| {
                        anyhow::anyhow!("{}", keyline::locate(&file, &text, "scenario", &format!("{e:#}")))
                    })?
                };
                &own
            }
        };
        if let Err(errs) = state.check_against(scenario) {
            let mut msg = format!("{file} is refused ({} problem(s); nothing was changed):", errs.len());
            for e in &errs {
                msg.push_str("\n  ");
                msg.push_str(&keyline::locate(&file, &text, &e.key, &e.message));
            }
            bail!(msg);
        }
        self.check_phase_committed(&state, &file, &text)?;
        Ok(state)
    }

    /// The open phase is the one its dice were committed to (issue 33): a
    /// hand edit of `phase` is caught on load, naming the file, the key
    /// and the fix. A resolution cut between writing the new state and its
    /// commitment (the state names the phase the staged seed is for) is
    /// no edit: the next `run` or `resolve` finishes it (`resolve::recover`).
    fn check_phase_committed(&self, state: &State, file: &str, text: &str) -> Result<()> {
        let Some(rec) = phase::record(self)? else {
            return Ok(());
        };
        if rec.game != state.game || rec.phase == state.phase || state.over.is_some() {
            return Ok(());
        }
        if phase::staged_phase(self)? == Some(state.phase) {
            return Ok(());
        }
        let why = format!(
            "{} is not the open phase: {} commits to {} (a hand edit? set phase = \"{}\" back)",
            state.phase,
            phase::commitment_path(self).display(),
            rec.phase,
            rec.phase
        );
        bail!(
            "{file} is refused (1 problem(s); nothing was changed):\n  {}",
            keyline::locate(file, text, "phase", &why)
        )
    }

    /// The game's scenario: its own copy if it has one, else the embedded
    /// scenario named in game.toml (shared, parsed once a process).
    pub fn load_scenario(&self, config: &GameConfig) -> Result<Arc<Scenario>> {
        let dir = self.scenario_dir();
        if dir.is_dir() {
            return load_scenario_dir(&dir).map(Arc::new);
        }
        load_scenario(&config.scenario)
    }

    pub fn save_state(&self, state: &State) -> Result<()> {
        atomic_write(&self.state(), state.to_toml().as_bytes())
    }

    /// Take the game lock, or say who holds it.
    /// Take the game lock, then finish what an unfinished batch of
    /// commits left (`checkpoint::recover`), so every holder reads a
    /// game in a state it really was in.
    pub fn lock(&self) -> Result<GameLock> {
        let lock = GameLock::acquire(&self.lock_file())?;
        checkpoint::recover(self)?;
        Ok(lock)
    }

    /// Append several lines to the journal with one write and one fsync
    /// (a batch of decisions), each as [`GameDir::journal_line`] writes it.
    pub fn journal_lines(&self, lines: &[(String, String)]) -> Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for (when, line) in lines {
            let clean: String = line.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
            text.push_str(&format!("{when} {clean}\n"));
        }
        let mut f = journal_options()
            .open(self.journal())
            .with_context(|| format!("cannot open {}", self.journal().display()))?;
        f.write_all(text.as_bytes())?;
        durable::file_written(&self.journal(), &f)
    }

    /// Append one line to the journal (with a timestamp given by the
    /// caller, so tests can inject a clock).
    pub fn journal_line(&self, when: &str, line: &str) -> Result<()> {
        let mut f = journal_options()
            .open(self.journal())
            .with_context(|| format!("cannot open {}", self.journal().display()))?;
        let clean: String = line.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        writeln!(f, "{when} {clean}")?;
        durable::file_written(&self.journal(), &f)
    }
}

/// The journal is opened for appending, created private.
fn journal_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    o.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o
}

/// Files and folders of a game directory that others may read or enter
/// (a game directory holds passwords in archived mail and the hidden
/// state): `verify` warns about each, with its mode.
pub fn loose_modes(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut stack = vec![root.to_path_buf()];
        while let Some(p) = stack.pop() {
            let Ok(meta) = fs::symlink_metadata(&p) else { continue };
            let mode = meta.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                out.push(format!(
                    "{} is mode {mode:04o}; only its owner should read it (chmod go-rwx)",
                    p.display()
                ));
            }
            if meta.is_dir()
                && let Ok(rd) = fs::read_dir(&p)
            {
                stack.extend(rd.filter_map(|e| e.ok().map(|e| e.path())));
            }
        }
        out.sort();
    }
    #[cfg(not(unix))]
    let _ = root;
    out
}

/// `toml::to_string`, in linear time. The crate's `to_string` inserts
/// each table into the finished text (`String::insert_str`, moving the
/// rest every time), quadratic in the number of tables: a submission of
/// thousands of orders, an outcomes file of a long phase. Its buffer's
/// `Display` writes the same text in one pass.
pub fn to_toml<T: serde::Serialize + ?Sized>(value: &T) -> std::result::Result<String, toml::ser::Error> {
    let mut buf = toml::ser::Buffer::new();
    value.serialize(toml::Serializer::new(&mut buf))?;
    Ok(buf.to_string())
}

thread_local! {
    /// The last state text parsed on this thread and what it gave: one
    /// command loads the same `state.toml` several times (`run` for its
    /// checks, the mail it composes, the wake time; `autoplay` and the
    /// resolution it calls), and parsing it is most of their CPU.
    static PARSED: std::cell::RefCell<Option<(String, State)>> = const { std::cell::RefCell::new(None) };
}

/// [`State::from_toml`], from [`PARSED`] when `text` is the text parsed
/// last (the same bytes give the same state).
fn parse_state(text: &str) -> std::result::Result<State, crate::state::StateError> {
    if let Some(s) = PARSED.with_borrow(|p| p.as_ref().filter(|(t, _)| t == text).map(|(_, s)| s.clone())) {
        return Ok(s);
    }
    let state = State::from_toml(text)?;
    PARSED.set(Some((text.to_string(), state.clone())));
    Ok(state)
}

/// Read a text file, naming it in the error.
pub fn read_text(path: &Path) -> Result<String> {
    fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// Load a scenario by embedded name or directory path.
pub fn load_scenario(name_or_dir: &str) -> Result<Arc<Scenario>> {
    let path = Path::new(name_or_dir);
    if path.is_dir() {
        return load_scenario_dir(path).map(Arc::new);
    }
    // An embedded scenario never changes while the process runs: parse it
    // once and share it (`run --games` needs it for every game).
    static CACHE: std::sync::OnceLock<std::sync::Mutex<std::collections::BTreeMap<String, Arc<Scenario>>>> =
        std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(s) = cache.lock().ok().and_then(|c| c.get(name_or_dir).cloned()) {
        return Ok(s);
    }
    let s = Arc::new(Scenario::embedded(name_or_dir).map_err(|errs| scenario_errors(name_or_dir, &errs))?);
    if let Ok(mut c) = cache.lock() {
        c.insert(name_or_dir.to_string(), Arc::clone(&s));
    }
    Ok(s)
}

pub fn load_scenario_dir(dir: &Path) -> Result<Scenario> {
    let files = read_scenario_files(dir)?;
    Scenario::load(&files).map_err(|errs| scenario_errors(&dir.display().to_string(), &errs))
}

fn scenario_errors(name: &str, errs: &[crate::scenario::ScenarioError]) -> anyhow::Error {
    let mut msg = format!("scenario {name} has {} problem(s):", errs.len());
    for e in errs {
        msg.push_str(&format!("\n  {e}"));
    }
    anyhow::anyhow!(msg)
}

/// Read every `.toml` file of a scenario directory (and its `tables/`).
pub fn read_scenario_files(dir: &Path) -> Result<ScenarioFiles> {
    let mut files = ScenarioFiles::new();
    for sub in ["", "tables"] {
        let d = dir.join(sub);
        if !d.is_dir() {
            continue;
        }
        for entry in fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))? {
            let entry = entry?;
            let p = entry.path();
            if p.extension().and_then(|e| e.to_str()) == Some("toml") && p.is_file() {
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                let rel = if sub.is_empty() {
                    name.to_string()
                } else {
                    format!("{sub}/{name}")
                };
                files.insert(rel, read_text(&p)?);
            }
        }
    }
    if files.is_empty() {
        bail!(
            "{} holds no scenario files (scenario.toml, provinces.toml, …)",
            dir.display()
        );
    }
    Ok(files)
}

/// Write a file atomically: a temporary file in the same directory,
/// fsync, rename over the target, fsync the directory. A crash leaves the
/// old content or the new, never a mix. Inside a [`durable::Group`] the
/// two fsyncs wait for the group's next barrier.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    atomic_write_mode(path, bytes, None)
}

/// A commit point: everything written before is made durable
/// ([`durable::barrier`]), then `path` is written and fsynced at once,
/// inside a group or not.
pub fn commit_write(path: &Path, bytes: &[u8]) -> Result<()> {
    durable::barrier()?;
    if durable::in_group() {
        // The file and its directory in one fsync pass.
        atomic_write_mode(path, bytes, None)?;
        return durable::barrier();
    }
    atomic_write_mode(path, bytes, None)
}

/// As [`atomic_write`], with Unix permission bits for the new file (the
/// dice seed is written 0600).
pub fn atomic_write_mode(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write in {}", dir.display()))?;
    #[cfg(unix)]
    if let Some(m) = mode {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file().set_permissions(fs::Permissions::from_mode(m))?;
    }
    #[cfg(not(unix))]
    let _ = mode;
    tmp.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    durable::file_written(path, tmp.as_file())?;
    tmp.persist(path)
        .with_context(|| format!("cannot replace {}", path.display()))?;
    sync_dir(dir);
    fault::point(&path.display().to_string())
}

/// fsync a directory so a rename in it is durable (best effort: not every
/// platform allows opening a directory); inside a group, once at its next
/// barrier.
pub fn sync_dir(dir: &Path) {
    durable::dir_changed(dir);
}

/// The game is locked by another process (its `.lock` text, if any).
#[derive(Debug)]
pub struct Locked(pub String);

impl std::fmt::Display for Locked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            write!(f, "game is locked by another process")
        } else {
            write!(f, "game is locked by {}", self.0)
        }
    }
}

impl std::error::Error for Locked {}

impl GameDir {
    /// Take the game lock, waiting up to `wait` while another process
    /// holds it (mail delivered by pipe waits rather than fails).
    pub fn lock_within(&self, wait: std::time::Duration) -> Result<GameLock> {
        let start = std::time::Instant::now();
        loop {
            match self.lock() {
                Err(e) if e.downcast_ref::<Locked>().is_some() && start.elapsed() < wait => {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                other => return other,
            }
        }
    }
}

/// The game lock: an exclusive advisory lock on `.lock`, which also holds
/// the pid and start time of its holder for the error message.
#[derive(Debug)]
pub struct GameLock {
    file: File,
}

impl GameLock {
    pub fn acquire(path: &Path) -> Result<GameLock> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot open lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let holder = fs::read_to_string(path).unwrap_or_default();
                return Err(Locked(holder.trim().to_string()).into());
            }
            Err(fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock {}", path.display()));
            }
        }
        let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ");
        file.set_len(0)?;
        // Who holds the lock matters only while it is held: no fsync.
        write!(file, "pid {} since {now}", std::process::id())?;
        Ok(GameLock { file })
    }
}

impl Drop for GameLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_toml_writes_what_toml_writes() {
        use crate::ids::PowerId;
        use crate::rules::Outcome;
        let outcomes: Vec<Outcome> = (0..40)
            .map(|i| {
                Outcome::new("4.2", crate::rules::Kind::Battle, format!("battle {i}"))
                    .power(PowerId::France)
                    .die(&format!("land-battle/{i}"), i % 10 + 1)
                    .why(format!("because {i}"))
            })
            .collect();
        let file = history::OutcomesFile { outcomes };
        assert_eq!(to_toml(&file).unwrap(), toml::to_string(&file).unwrap());
        let head = history::Head::default();
        assert_eq!(to_toml(&head).unwrap(), toml::to_string(&head).unwrap());
    }

    #[test]
    fn a_state_loaded_again_is_the_file_as_it_is_now() {
        use crate::ids::PowerId;
        use std::collections::BTreeSet;
        let tmp = tempfile::tempdir().unwrap();
        let g = GameDir::new(tmp.path());
        let scen = Scenario::embedded("1805").unwrap();
        let mut state = State::initial(&scen, "again", &BTreeSet::from([PowerId::France]), BTreeSet::new());
        g.save_state(&state).unwrap();
        assert_eq!(g.load_state_for(&scen).unwrap(), state);
        assert_eq!(g.load_state_for(&scen).unwrap(), state, "loaded twice");
        state.game = "changed".into();
        g.save_state(&state).unwrap();
        assert_eq!(g.load_state_for(&scen).unwrap(), state, "the file as it is now");
        fs::write(g.state(), state.to_toml().replace("game = \"changed\"", "game = 7")).unwrap();
        assert!(g.load_state_for(&scen).is_err(), "a broken file is refused");
    }

    #[test]
    fn a_second_lock_names_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let g = GameDir::new(dir.path());
        let first = g.lock().unwrap();
        let err = g.lock().unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("game is locked by pid {} since ", std::process::id())),
            "{err}"
        );
        drop(first);
        assert!(g.lock().is_ok());
    }

    #[test]
    fn atomic_write_replaces_and_sets_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x/seed");
        atomic_write_mode(&p, b"one", Some(0o600)).unwrap();
        atomic_write(&p, b"two").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            atomic_write_mode(&p, b"three", Some(0o600)).unwrap();
            assert_eq!(fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }
}
