//! `empereur new`: create a game directory.
//!
//! 3.0 decides which powers a number of players plays (France and
//! Britain, then Russia, Austria, Prussia, Spain, the Ottoman Empire):
//! a players file that seats another set is refused (exit 1, naming the
//! rule) unless the moderator asks for a house seating
//! (`--house-seating`). With `bid = true` in the players file the game
//! opens on the Country Representation Bid (3.1), and the resolution of
//! the bid seats each player on the power it won (`ops::resolve`).
//!
//! A created game says what to do next (standard error: standard output
//! stays the one line scripts read): the game's own address when it is
//! still the moderator's, the plaintext passwords left in the players
//! file (`--wipe-passwords` removes them once hashed), and the next three
//! commands.

use super::Done;
use crate::state::State;
use crate::store::{self, GameConfig, GameDir, config::Person};
use anyhow::{Context, Result, bail};
use std::collections::BTreeSet;
use std::path::PathBuf;

pub struct NewOptions {
    pub dir: PathBuf,
    pub scenario: String,
    pub players: PathBuf,
    pub options: Vec<String>,
    pub id: Option<String>,
    /// Create the game even when the powers played are not those 3.0
    /// gives for that many players (a house seating).
    pub house_seating: bool,
}

/// A seating 3.0 does not allow, refused without `--house-seating`.
#[derive(Debug)]
pub struct SeatingRefused(pub crate::rules::setup::SeatingError);

impl std::fmt::Display for SeatingRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}; --house-seating creates the game anyway", self.0)
    }
}

impl std::error::Error for SeatingRefused {}

/// Optional rule modules a game may switch on.
pub const OPTIONS: &[&str] = &[
    "naval",
    "political",
    crate::rules::diplomacy::FAQ_NPC_PEACE,
    crate::rules::draw::ID,
];

/// What `empereur new` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Created {
    /// The game id and directory, and the note on the scenario's house
    /// values for the moderator.
    Game {
        id: String,
        dir: PathBuf,
        house_note: String,
        /// What to do next, and what `new` left for the moderator to
        /// decide (the game's address, the plaintext passwords).
        next: String,
    },
    /// A players file or seating the rules refuse (a "no").
    Refused(String),
}

impl std::fmt::Display for Created {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Created::Game { id, dir, .. } => writeln!(f, "created game '{id}' in {}", dir.display()),
            Created::Refused(_) => Ok(()),
        }
    }
}

impl super::Summary for Created {
    fn done(&self) -> Done {
        match self {
            Created::Game { .. } => Done::Yes,
            Created::Refused(_) => Done::No,
        }
    }

    /// The house note goes to standard error: standard output stays the
    /// one line scripts read.
    fn stderr(&self) -> String {
        match self {
            Created::Game { house_note, next, .. } => format!("{house_note}{next}"),
            Created::Refused(why) => format!("error: {why}\n"),
        }
    }
}

pub fn run(o: &NewOptions) -> Result<Created> {
    run_with(o, false)
}

/// [`run`], and with `wipe` the players file's plaintext passwords are
/// removed once hashed into `game.toml`.
pub fn run_with(o: &NewOptions, wipe: bool) -> Result<Created> {
    let game = match create(o) {
        Ok(g) => g,
        Err(e) => {
            if let Some(r) = e.downcast_ref::<store::players::Refused>() {
                return Ok(Created::Refused(r.to_string()));
            }
            if let Some(r) = e.downcast_ref::<SeatingRefused>() {
                return Ok(Created::Refused(r.to_string()));
            }
            return Err(e);
        }
    };
    let scenario = store::load_scenario(&o.scenario)?;
    let wiped = if wipe { wipe_passwords(&o.players)? } else { 0 };
    let config = GameDir::new(&o.dir).load_config()?;
    Ok(Created::Game {
        id: game.0,
        dir: o.dir.clone(),
        house_note: house_note(&o.scenario, &scenario.house_values()),
        next: next_steps(o, &config, wipe.then_some(wiped)),
    })
}

/// What the moderator does next, said once when the game is created:
/// the game's own address if it is still the moderator's, what became
/// of the plaintext passwords, and the next three commands.
fn next_steps(o: &NewOptions, config: &GameConfig, wiped: Option<usize>) -> String {
    let dir = o.dir.display();
    let players = o.players.display();
    let mut out = String::new();
    if config.mail.address.is_none() {
        out.push_str(&format!(
            "note: game.toml sets no [mail] address, so the game's mail comes from\nthe moderator's own address ({}) and players' answers go there.\nSet `address` under [mail] in {dir}/game.toml to the game's own address\n(docs/mail.md lists the [mail] and [mail.transport] keys).\n",
            config.moderator.email
        ));
    }
    match wiped {
        Some(n) => out.push_str(&format!(
            "{n} plaintext password(s) removed from {players} (they are hashed in game.toml).\n"
        )),
        None => out.push_str(&format!(
            "{players} still holds the players' passwords in plain text; they are hashed\nin game.toml now. Delete the file, or create games with --wipe-passwords.\n"
        )),
    }
    out.push_str(&format!(
        "next:\n  empereur status --game {dir}     # the open phase and who must order\n  empereur mail --game {dir}       # mail each player the opening: state, guide, order template\n  * * * * * empereur run --game {dir}   # from cron: ingest, resolve what is due, send\n"
    ));
    out
}

/// Remove the `password` lines of a players file (each becomes a comment
/// saying where the password went); the rest of the file is kept as
/// written. Returns how many were removed.
pub fn wipe_passwords(path: &std::path::Path) -> Result<usize> {
    let text = store::read_text(path)?;
    let mut n = 0;
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let key = line.trim_start().split(['=', ' ', '\t']).next().unwrap_or("");
        if key == "password" && line.contains('=') {
            n += 1;
            out.push("# password: hashed into game.toml, removed here".to_string());
        } else {
            out.push(line.to_string());
        }
    }
    let mut new = out.join("\n");
    if text.ends_with('\n') {
        new.push('\n');
    }
    if n > 0 {
        store::atomic_write(path, new.as_bytes())
            .with_context(|| format!("wiping the passwords of {}", path.display()))?;
    }
    Ok(n)
}

/// Said once, when a game is created: how many values of its scenario are
/// house values (not the printed ones), by file, and where to replace
/// them; empty when every value is printed.
pub fn house_note(scenario: &str, house: &[crate::scenario::HouseValue]) -> String {
    if house.is_empty() {
        return String::new();
    }
    let mut files: Vec<(&str, usize)> = Vec::new();
    for h in house {
        match files.iter_mut().find(|(f, _)| *f == h.file) {
            Some((_, n)) => *n += 1,
            None => files.push((&h.file, 1)),
        }
    }
    let list = files
        .iter()
        .map(|(f, n)| format!("{f} ({n})"))
        .collect::<Vec<_>>()
        .join(", ");
    let source = if std::path::Path::new(scenario).is_dir() {
        format!("{scenario} (copied into the game's scenario/)")
    } else {
        format!("games/scenarios/{scenario} in the source")
    };
    format!(
        "note: {} value(s) of this scenario are house values, not the printed ones: {list}.\nTo play with the printed map and tables, copy {source}, type the printed\nvalues in, check it with `empereur scenario check DIR` (it lists each house\nvalue) and create the game with --scenario DIR.\n",
        house.len()
    )
}

/// Create the game; returns (game id, state).
pub fn create(o: &NewOptions) -> Result<(String, State)> {
    let dir = GameDir::new(&o.dir);
    if dir.exists() {
        bail!("{} already holds a game; refusing to overwrite it", o.dir.display());
    }
    let origin = o.players.display().to_string();
    let text = store::read_text(&o.players)?;
    let players = store::players::parse(&origin, &text).map_err(|e| {
        if store::players::has_unmailable(&text) {
            anyhow::Error::new(store::players::Refused(e))
        } else {
            anyhow::Error::msg(e)
        }
    })?;
    create_from(o, players)
}

pub fn create_from(o: &NewOptions, players: store::players::Players) -> Result<(String, State)> {
    let dir = GameDir::new(&o.dir);
    if dir.exists() {
        bail!("{} already holds a game; refusing to overwrite it", o.dir.display());
    }
    for opt in &o.options {
        if !OPTIONS.contains(&opt.as_str()) {
            bail!("unknown option '{opt}' (known: {})", OPTIONS.join(", "));
        }
    }
    let scenario = store::load_scenario(&o.scenario)?;
    let id = match &o.id {
        Some(i) => i.clone(),
        None => o
            .dir
            .file_name()
            .and_then(|n| n.to_str())
            .map(sanitize)
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "game".to_string()),
    };
    let powers: BTreeSet<_> = players.players.iter().map(|p| p.power).collect();
    // 3.0: the number of players decides which powers are played.
    let house = crate::rules::setup::check_seating(&powers).err();
    if let Some(why) = house.clone()
        && !o.house_seating
    {
        return Err(SeatingRefused(why).into());
    }
    let options: BTreeSet<String> = o.options.iter().cloned().collect();
    let mut state = State::initial(&scenario, &id, &powers, options.clone());
    // 11.9.2.1 (EiA option political): France and Great Britain start at war.
    crate::rules::political::peace::start_at_war(&scenario, &mut state);
    if players.bid {
        crate::rules::setup::open_bid(&scenario, &mut state); // 3.1
    }
    let mut entries = Vec::new();
    // One argon2 buffer for every player (see store::password).
    let mut hasher = store::password::Hasher::new();
    for p in players.players {
        let h = hasher.hash(&p.password)?;
        entries.push(p.into_entry(h));
    }
    let config = GameConfig {
        format: 1,
        game: id.clone(),
        scenario: scenario.id.clone(),
        options,
        moderator: Person {
            name: players.moderator.name,
            email: players.moderator.email,
        },
        players: entries,
        observers: players.observers,
        timezone: "UTC".to_string(),
        deadlines: Default::default(),
        mail: Default::default(),
        dice: Default::default(),
        press: Default::default(),
        site: Default::default(),
    };
    dir.create_layout()?;
    let _lock = dir.lock()?;
    let scen_path = std::path::Path::new(&o.scenario);
    if scen_path.is_dir() {
        for (rel, text) in store::read_scenario_files(scen_path)? {
            store::atomic_write(&dir.scenario_dir().join(rel), text.as_bytes())?;
        }
    }
    store::atomic_write(&dir.config(), config.to_toml().as_bytes()).context("writing game.toml")?;
    dir.save_state(&state)?;
    open_first_phase(&dir, &state).context("opening the first phase's dice commitment")?;
    Ok((id, state))
}

/// docs/dice.md 1a: draw the game's seed chain, publish its anchor and
/// the first phase's commitment in the genesis entry (entry 0 of the
/// history), and open the first phase under link 1. Every later seed is
/// a link of the same chain, so no resolution can draw another.
fn open_first_phase(dir: &GameDir, state: &State) -> Result<()> {
    let (anchor, first) = store::phase::start_chain(dir, &state.game)?;
    let commitment = crate::dice::commitment(&state.game, &state.phase.to_string(), &first);
    let mut d = store::history::Draft::new(store::history::GENESIS, &state.game, state.phase);
    d.next_phase = Some(state.phase);
    d.next_commitment = Some(commitment.clone());
    d.chain_anchor = Some(crate::dice::to_hex(&anchor));
    d.chain_length = Some(store::phase::CHAIN_LENGTH);
    d.next_dice = store::phase::physical_announced(dir, state.phase)?.then(|| "manual".to_string());
    store::history::write_genesis(dir, &d)?;
    let opened = store::phase::open_with_seed(dir, state, &first, None)?;
    debug_assert_eq!(opened, commitment);
    Ok(())
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}
