//! Issue 33, what was left of the loop as players live it, asserted from
//! what each mailbox holds (the file transport delivers, the journal's
//! `send:` lines say what went where): an answer awaited is what holds the
//! phase open, for the moderator's `games` and `status`, for a player's
//! STATUS (only their own diplomacy named), and the power owing it is
//! reminded before the deadline.
#![allow(clippy::disallowed_methods)] // tests use files freely

use chrono::{DateTime, Duration, Utc};
use empereur::mail::outbox::{self, Envelope};
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::new::{NewOptions, create_from};
use empereur::ops::resolve::{ResolveOptions, Resolved, resolve_game};
use empereur::ops::run::run_game;
use empereur::store::{self, GameDir};
use std::path::{Path, PathBuf};

pub fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

pub const FRANCE: &str = "france@demo.example.org";
pub const PRUSSIA: &str = "prussia@demo.example.org";
pub const AUSTRIA: &str = "austria@demo.example.org";
pub const GM: &str = "gm@demo.example.org";

/// Five players (3.0's five: Spain and the Ottoman Empire are NPCs),
/// deadlines read in Paris, resolved by hand until France's Player Turn.
pub fn game_at_frances_turn(root: &Path) -> GameDir {
    let text: String = DEMO_PLAYERS
        .split("[[player]]")
        .filter(|p| !p.contains("\"spain\"") && !p.contains("\"ottoman\""))
        .collect::<Vec<_>>()
        .join("[[player]]");
    let players = store::players::parse("players.toml", &text).unwrap();
    let dir = root.join("g");
    let o = NewOptions {
        dir: dir.clone(),
        scenario: "1805".into(),
        players: PathBuf::new(),
        options: vec![],
        id: Some("demo".into()),
        house_seating: false,
    };
    create_from(&o, players).unwrap();
    let g = GameDir::new(&dir);
    let mut c = g.load_config().unwrap();
    c.timezone = "Europe/Paris".into();
    store::atomic_write(&g.config(), c.to_toml().as_bytes()).unwrap();
    for _ in 0..12 {
        if phase(&g).ends_with("-france") {
            return g;
        }
        let opts = ResolveOptions {
            now: Some("2026-01-04T10:00:00Z".into()),
            ..ResolveOptions::default()
        };
        assert!(matches!(resolve_game(&g, &opts).unwrap(), Resolved::Done(_)));
    }
    panic!("France's Player Turn never came: {}", phase(&g));
}

pub fn phase(g: &GameDir) -> String {
    g.load_state().unwrap().phase.to_string()
}

/// The messages delivered, in delivery order.
fn delivered(g: &GameDir) -> Vec<Envelope> {
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    journal
        .lines()
        .filter_map(|l| {
            let rest = l.split_once(" send: ")?.1;
            let (id, tail) = rest.split_once(' ')?;
            tail.contains(" accepted").then(|| id.to_string())
        })
        .map(|id| outbox::read_envelope(&outbox::sent_env_path(g, &id)).unwrap())
        .collect()
}

/// What a mailbox holds, in the order delivered: (subject, body text).
pub fn mailbox(g: &GameDir, addr: &str) -> Vec<(String, String)> {
    delivered(g)
        .into_iter()
        .filter(|e| e.to.iter().any(|t| t == addr))
        .map(|e| {
            let raw = std::fs::read(outbox::sent_eml_path(g, &e.id)).unwrap();
            let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
            let body = m.body_text(0).unwrap_or_default().replace("\r\n", "\n");
            (m.subject().unwrap_or("").to_string(), body)
        })
        .collect()
}

/// The last mail in `addr`'s mailbox whose subject holds `subject`.
pub fn last(g: &GameDir, addr: &str, subject: &str) -> String {
    mailbox(g, addr)
        .into_iter()
        .rev()
        .find(|(s, _)| s.contains(subject))
        .map(|(_, b)| b)
        .unwrap_or_else(|| panic!("no mail '{subject}' for {addr}: {:#?}", mailbox(g, addr)))
}

/// A player's mail to the game.
pub fn mail(from: &str, power: &str, password: &str, id: &str, orders: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: gm@demo.example.org\r\nSubject: orders {id}\r\nMessage-ID: <{id}@players.example.org>\r\nDate: Mon, 05 Jan 2026 10:00:00 +0000\r\n\r\nGAME demo\r\nPOWER {power}\r\nPASSWORD {password}\r\n{}",
        orders.replace('\n', "\r\n")
    )
    .into_bytes()
}

pub fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A mail's text above its signature.
pub fn text(body: &str) -> String {
    body.split("\n--\n").next().unwrap().to_string()
}

/// The deadline in force of the open phase.
fn deadline(g: &GameDir, now: DateTime<Utc>) -> DateTime<Utc> {
    let c = g.load_config().unwrap();
    g.load_clock()
        .unwrap()
        .unwrap()
        .deadline(now, &c.deadlines, c.tz(), &g.load_schedule().unwrap().absences)
}

// Issue 33 point 1: while Prussia's answer is awaited, what holds the
// phase open is said (to the moderator whole, to a third power without
// the pair's diplomacy), and Prussia is reminded before the deadline, as a
// late power is; France and Austria are not.
#[test]
fn an_awaited_answer_is_what_holds_the_phase_open_and_its_debtor_is_reminded() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game_at_frances_turn(tmp.path());
    let turn = phase(&g);
    let t0 = t("2026-01-05T10:00:00Z");
    run_game(&g.root, &[], t0).unwrap();
    let m = mail(FRANCE, "France", "austerlitz", "f1", "PROPOSE ALLIANCE TO Prussia\n");
    run_game(&g.root, &[m], t0 + Duration::minutes(5)).unwrap();
    // Past the change-of-mind delay: everyone is in, Prussia's answer holds it.
    let now = t0 + Duration::hours(2);
    let r = run_game(&g.root, &[], now).unwrap();
    assert!(r.resolved.is_empty());
    let want = "everyone is in; awaiting Prussia's answer to France's PROPOSE ALLIANCE TO Prussia (until the deadline at the latest)";
    // The moderator's overview and status name whose answer to what.
    let lines = empereur::ops::games::overview(tmp.path(), now).unwrap();
    let [empereur::ops::games::Listed::Game(line)] = &lines[..] else {
        panic!("{lines:?}")
    };
    let games = empereur::ops::games::render(line);
    assert!(games.ends_with(want), "{games}");
    assert!(!games.contains("due now"), "{games}");
    // A third power's STATUS says the phase waits for an answer, never
    // whose to what; Prussia's names it.
    let status = |from, power, pw, id| {
        run_game(&g.root, &[mail(from, power, pw, id, "STATUS\n")], now).unwrap();
        flat(&last(&g, from, &format!("orders {id}")))
    };
    let austria = status(AUSTRIA, "Austria", "aspern", "a1");
    assert!(
        austria.contains("Now: everyone is in; awaiting an answer to a proposal between other powers (until the deadline at the latest)"),
        "{austria}"
    );
    assert!(!austria.contains("ALLIANCE"), "{austria}");
    // Its acknowledgement's top says the same, as Austria may read it.
    assert!(
        austria.contains("Still holding the phase open: an answer to a proposal between other powers (until the deadline at the latest)."),
        "{austria}"
    );
    assert!(!austria.contains("Prussia's answer"), "{austria}");
    let prussia = status(PRUSSIA, "Prussia", "leipzig", "p1");
    assert!(prussia.contains(&format!("Now: {want}")), "{prussia}");
    // No reminder yet in the first half of the phase.
    assert!(
        mailbox(&g, PRUSSIA)
            .iter()
            .all(|(s, _)| !s.contains("answer is awaited"))
    );
    // An hour before the deadline: Prussia, who owes the answer, is
    // reminded once; France (in) and Austria (owing nothing) are not.
    let d = deadline(&g, now);
    let r = run_game(&g.root, &[], d - Duration::hours(1)).unwrap();
    assert_eq!(r.reminders, [empereur::ids::PowerId::Prussia], "{r:?}");
    run_game(&g.root, &[], d - Duration::minutes(30)).unwrap();
    let reminders: Vec<_> = mailbox(&g, PRUSSIA)
        .into_iter()
        .filter(|(s, _)| s.contains("answer is awaited"))
        .collect();
    assert_eq!(reminders.len(), 1, "{reminders:#?}");
    let (subject, body) = &reminders[0];
    assert_eq!(subject, &format!("Empereur demo: your answer is awaited in {turn}"));
    insta::assert_snapshot!("answer-reminder", text(body).replace(&turn, "<phase>"));
    let body = flat(body);
    assert!(
        body.contains("France: PROPOSE ALLIANCE TO Prussia answer with: ACCEPT ALLIANCE FROM France"),
        "{body}"
    );
    assert!(body.contains("Answer by: "), "{body}");
    assert!(body.contains(" CET (") && body.contains(" UTC)"), "{body}");
    for who in [FRANCE, AUSTRIA, GM] {
        assert!(
            mailbox(&g, who)
                .iter()
                .all(|(s, b)| !s.contains("answer is awaited") && !b.contains("no orders from")),
            "{who}"
        );
    }
    // The deadline closes it all the same.
    let r = run_game(&g.root, &[], d + Duration::minutes(1)).unwrap();
    assert_eq!(r.resolved.len(), 1, "{r:?}");
}

// Issue 33 point 2: a mail that says PASS is in, whatever else it carries
// (a standing order): its acknowledgement says so at the top, and the
// phase closes once the change-of-mind delay is over. A PASS with a
// standing order from the power owing an answer ends the wait too.
#[test]
fn a_pass_with_a_standing_order_is_in_and_ends_an_awaited_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game_at_frances_turn(tmp.path());
    let turn = phase(&g);
    let t0 = t("2026-01-05T10:00:00Z");
    run_game(&g.root, &[], t0).unwrap();
    let m = mail(FRANCE, "France", "austerlitz", "f1", "PASS\nSTANDING WITHDRAW NEVER\n");
    run_game(&g.root, &[m], t0 + Duration::minutes(5)).unwrap();
    let ack = last(&g, FRANCE, "orders f1");
    let top = text(&ack).split("Receipt").next().unwrap().replace(&turn, "<phase>");
    insta::assert_snapshot!("ack-pass-with-a-standing-order", top);
    let ack = flat(&ack);
    assert!(ack.starts_with(&format!("France is IN for phase {turn}.")), "{ack}");
    assert!(ack.contains("Nothing else holds the phase open"), "{ack}");
    assert!(ack.contains("PASS (nothing ordered, on purpose)"), "{ack}");
    // France proposes instead; Prussia passes, with a standing order: the
    // wait is over, and the run after the change-of-mind delay resolves.
    let m = mail(FRANCE, "France", "austerlitz", "f2", "PROPOSE ALLIANCE TO Prussia\n");
    run_game(&g.root, &[m], t0 + Duration::minutes(10)).unwrap();
    let m = mail(PRUSSIA, "Prussia", "leipzig", "p1", "PASS\nSTANDING WITHDRAW NEVER\n");
    let r = run_game(&g.root, &[m], t0 + Duration::minutes(15)).unwrap();
    assert!(r.resolved.is_empty(), "{r:?}");
    let ack = flat(&last(&g, PRUSSIA, "orders p1"));
    assert!(ack.contains("Nothing else holds the phase open"), "{ack}");
    let r = run_game(&g.root, &[], t0 + Duration::hours(1)).unwrap();
    assert_eq!(r.resolved.len(), 1, "{r:?}");
    let report = flat(&last(&g, FRANCE, &format!("report of {turn}")));
    assert!(!report.contains("France and Prussia are allied"), "{report}");
}

/// A new game of the five players, not resolved.
fn new_game(root: &Path) -> GameDir {
    let text: String = DEMO_PLAYERS
        .split("[[player]]")
        .filter(|p| !p.contains("\"spain\"") && !p.contains("\"ottoman\""))
        .collect::<Vec<_>>()
        .join("[[player]]");
    let o = NewOptions {
        dir: root.join("g"),
        scenario: "1805".into(),
        players: PathBuf::new(),
        options: vec![],
        id: Some("demo".into()),
        house_seating: false,
    };
    create_from(&o, store::players::parse("players.toml", &text).unwrap()).unwrap();
    GameDir::new(&o.dir)
}

fn bin() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("empereur").unwrap();
    c.env("EMPEREUR_NOW", "2026-01-05T10:00:00Z");
    c
}

// Issue 33 point 12: a phase in state.toml that is not the one
// phase/commitment commits to is refused on load, naming the file, the
// key and the fix; nothing is mailed on it.
#[test]
fn a_hand_edited_phase_is_refused_on_load_with_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let g = new_game(tmp.path());
    let open = phase(&g);
    let good = std::fs::read_to_string(g.state()).unwrap();
    let edited = good.replace(&format!("phase = \"{open}\""), "phase = \"1806-spring-turn-start\"");
    assert_ne!(edited, good);
    std::fs::write(g.state(), &edited).unwrap();
    for args in [&["status", "--game"][..], &["run", "--game"][..]] {
        let out = bin().args(args).arg(&g.root).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        let err = flat(&err);
        assert!(err.contains("state.toml is refused"), "{err}");
        assert!(
            err.contains(&format!(
                "phase: 1806-spring-turn-start is not the open phase: {} commits to {open} (a hand edit? set phase = \"{open}\" back)",
                g.root.join("phase/commitment").display()
            )),
            "{err}"
        );
    }
    assert!(mailbox_empty(&g), "nothing was mailed on an edited state");
    // Set back, the game runs and mails its opening.
    std::fs::write(g.state(), &good).unwrap();
    bin().args(["run", "--game"]).arg(&g.root).assert().success();
    assert!(!mailbox(&g, FRANCE).is_empty());
}

fn mailbox_empty(g: &GameDir) -> bool {
    !g.journal().exists() || delivered(g).is_empty()
}

/// The attachment named `name` of the last mail in `addr`'s mailbox whose
/// subject holds `subject`, as text.
fn attachment(g: &GameDir, addr: &str, subject: &str, name: &str) -> Option<String> {
    let env = delivered(g)
        .into_iter()
        .rev()
        .find(|e| e.to.iter().any(|t| t == addr) && e.subject.contains(subject))?;
    let raw = std::fs::read(outbox::sent_eml_path(g, &env.id)).unwrap();
    let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
    m.attachments()
        .find(|a| mail_parser::MimeHeaders::attachment_name(*a) == Some(name))
        .map(|a| String::from_utf8_lossy(a.contents()).into_owned())
}

// Issue 33, first contact: in the power's state file as mailed, another
// power's corps reads `divisions = "unknown"` (an empty list read
// as an empty corps), its own corps their divisions; another power's
// force pool reads `pool = "unknown"` (zeros read as an empty pool), its
// own pool its numbers; `check` reads the file as mailed.
#[test]
fn a_mailed_state_file_reads_hidden_corps_as_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    let g = new_game(tmp.path());
    run_game(&g.root, &[], t("2026-01-05T10:00:00Z")).unwrap();
    let open = phase(&g);
    // The state file as mailed (STATE sends it at any time; a phase mail
    // carries it for a power that orders in the phase).
    let m = mail(FRANCE, "France", "austerlitz", "s1", "STATE\n");
    run_game(&g.root, &[m], t("2026-01-05T10:05:00Z")).unwrap();
    let file = attachment(&g, FRANCE, "state of France", "state-france.toml")
        .unwrap_or_else(|| panic!("no state file mailed to France: {:#?}", mailbox(&g, FRANCE)));
    let state = g.load_state().unwrap();
    let french = state
        .corps
        .iter()
        .filter(|c| state.corps_power(c) == Some(empereur::ids::PowerId::France))
        .count();
    let unknown = file.matches("divisions = \"unknown\"").count();
    assert_eq!(unknown, state.corps.len() - french, "{file}");
    assert!(!file.contains("divisions = []"), "{file}");
    // France's own corps keep their divisions, as mailed.
    let read = empereur::state::State::from_toml(&file).unwrap();
    for (c, mine) in read.corps.iter().zip(&state.corps) {
        if state.corps_power(mine) == Some(empereur::ids::PowerId::France) {
            assert_eq!(c.divisions, mine.divisions);
        } else {
            assert!(c.divisions.is_empty());
        }
    }
    // Force pools: France's own as it is, every other power's unknown.
    let france_id = empereur::ids::PowerId::France;
    let foreign: Vec<_> = state
        .powers
        .keys()
        .filter(|p| !state.sees_records_of(Some(france_id), **p))
        .collect();
    assert!(foreign.len() >= 5, "{foreign:?}");
    assert_eq!(file.matches("pool = \"unknown\"").count(), foreign.len(), "{file}");
    assert!(file.contains("[powers.france.pool]"), "{file}");
    for p in &foreign {
        assert!(!file.contains(&format!("[powers.{}.pool]", p.id())), "{file}");
    }
    let france = &read.powers[&empereur::ids::PowerId::France].pool;
    assert_eq!(france, &state.powers[&empereur::ids::PowerId::France].pool);
    assert_ne!(
        france,
        &empereur::state::PoolState::default(),
        "France has a pool to show"
    );
    // `check --state` reads the file a player was mailed.
    let path = tmp.path().join("state-france.toml");
    std::fs::write(&path, &file).unwrap();
    let orders = tmp.path().join("orders.txt");
    std::fs::write(&orders, format!("GAME demo\nPOWER France\nPHASE {open}\nPASS\n")).unwrap();
    let out = bin()
        .arg("check")
        .arg("--state")
        .arg(&path)
        .arg(&orders)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

// Issue 33 point 12, the other side: a resolution cut right after it
// wrote the new state, before its commitment, is no hand edit. The game
// still loads (status), and the next run finishes the resolution and
// says so.
#[test]
fn a_resolution_cut_between_the_state_and_its_commitment_loads_and_is_finished() {
    let tmp = tempfile::tempdir().unwrap();
    let g = new_game(tmp.path());
    let t0 = t("2026-01-05T10:00:00Z");
    run_game(&g.root, &[], t0).unwrap();
    let before = phase(&g);
    let base = tmp.path().join("base");
    std::fs::rename(&g.root, &base).unwrap();
    let state_file = format!("injected failure after writing {}", g.state().display());
    let mut cut = None;
    for n in 0..400 {
        let _ = std::fs::remove_dir_all(&g.root);
        crate::players_common::copy_tree(&base, &g.root);
        empereur::store::fault::arm(n);
        let r = resolve_game(
            &g,
            &ResolveOptions {
                now: Some("2026-01-05T11:00:00Z".into()),
                ..ResolveOptions::default()
            },
        );
        empereur::store::fault::disarm();
        match r {
            Err(e) if format!("{e:#}").contains(&state_file) => {
                cut = Some(n);
                break;
            }
            Err(_) => continue,
            Ok(_) => panic!("no write of {} in a resolution", g.state().display()),
        }
    }
    assert!(cut.is_some());
    let after = phase(&g);
    assert_ne!(after, before, "the new state is written");
    // Loaded as it is: no refusal, the phase is the new one.
    let status = empereur::ops::workflow::status(&empereur::ops::workflow::GameOnly { game: g.root.clone() })
        .unwrap()
        .to_string();
    assert!(status.contains(&after), "{status}");
    let out = bin().args(["status", "--game"]).arg(&g.root).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    // The next run finishes it, and the commitment is the new phase's.
    let r = run_game(&g.root, &[], t0 + Duration::hours(2)).unwrap();
    assert!(
        r.attention
            .iter()
            .any(|l| l.starts_with("recovered: finished the resolution")),
        "{r:?}"
    );
    let rec = empereur::store::phase::record(&g).unwrap().unwrap();
    assert_eq!(rec.phase.to_string(), after);
}

// Issue 33, first contact: the `dice roll --help` example gives the roll
// it says (docs/dice.md's worked example), and a game's logged rolls are
// reproduced the way the help says, from the history entry's files.
#[test]
fn the_dice_roll_help_example_and_a_logged_roll_reproduce() {
    let help = bin().args(["dice", "roll", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    assert!(
        help.contains("Example (docs/dice.md's worked example; it gives 7):"),
        "{help}"
    );
    let start = help.find("  empereur dice roll").unwrap();
    let mut example = String::new();
    for l in help[start..].lines() {
        example.push_str(l.trim().trim_end_matches('\\'));
        example.push(' ');
        if !l.ends_with('\\') {
            break;
        }
    }
    let exe = assert_cmd::cargo::cargo_bin("empereur");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(example.replacen("empereur", &exe.display().to_string(), 1))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().last(), Some("7"), "{example}: {stdout}");
    // The same words in docs/dice.md.
    let docs = include_str!("../../docs/dice.md");
    assert!(docs.contains("--entropy \"france=Vive l'Empereur\" --entropy \"britain=Rule, Britannia\""));
    // A roll of a real dice log.
    let tmp = tempfile::tempdir().unwrap();
    let g = new_game(tmp.path());
    let opts = ResolveOptions {
        now: Some("2026-01-05T11:00:00Z".into()),
        ..ResolveOptions::default()
    };
    assert!(matches!(resolve_game(&g, &opts).unwrap(), Resolved::Done(_)));
    let names = empereur::store::history::list(&g).unwrap();
    let entry = empereur::store::history::entry_dir(&g, &names[&1]);
    let seed = std::fs::read_to_string(entry.join("seed")).unwrap();
    let entropy: toml::Table = toml::from_str(&std::fs::read_to_string(entry.join("entropy.toml")).unwrap()).unwrap();
    let dice: toml::Table = toml::from_str(&std::fs::read_to_string(entry.join("dice.toml")).unwrap()).unwrap();
    let rolls = dice["roll"].as_array().unwrap();
    assert!(rolls.len() >= 3, "{dice}");
    for r in &rolls[..3] {
        let mut c = bin();
        c.args(["dice", "roll", "--seed", seed.trim()])
            .args(["--purpose", r["purpose"].as_str().unwrap()])
            .args(["--sides", &r["sides"].to_string()]);
        for (p, e) in entropy.get("entropy").and_then(|e| e.as_table()).into_iter().flatten() {
            c.args(["--entropy", &format!("{p}={}", e.as_str().unwrap())]);
        }
        let out = c.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(stdout.lines().last(), Some(r["result"].to_string().as_str()), "{r}");
    }
}

// Issue 33, first contact: a command that writes a game, run by another
// user than the game directory's owner (root, say, on the pipe user's
// game), warns with the fix; the owner gets no warning. Run as root, the
// test gives the game to `nobody`; run as anyone else, it points the
// command at a directory root owns (the filesystem's root, where it can
// write nothing): either way the warning is asserted.
#[test]
fn a_command_run_by_another_user_than_the_owner_warns_with_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let g = new_game(tmp.path());
    let send = |dir: &std::path::Path| {
        let out = bin().args(["send", "--game"]).arg(dir).output().unwrap();
        (out.status.code(), flat(&String::from_utf8_lossy(&out.stderr)))
    };
    let (code, err) = send(&g.root);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("warning:"), "the owner is not warned: {err}");
    let chown = |who: &str| {
        std::process::Command::new("chown")
            .arg(who)
            .arg(&g.root)
            .status()
            .is_ok_and(|s| s.success())
    };
    let root_runs = chown("nobody");
    let (dir, owner) = if root_runs {
        (g.root.clone(), "nobody")
    } else {
        (std::path::PathBuf::from("/"), "root")
    };
    let (code, err) = send(&dir);
    assert!(
        err.contains(&format!("warning: {} belongs to {owner} (uid ", dir.display())),
        "{err}"
    );
    assert!(err.contains(&format!("sudo -u {owner} empereur")), "{err}");
    assert!(err.contains(&format!("chown -R {owner}: {}", dir.display())), "{err}");
    if root_runs {
        // The command still runs: the warning never refuses.
        assert_eq!(code, Some(0), "{err}");
        assert!(chown("root"));
    } else {
        // `/` is no game: the command fails after the warning, writing nothing.
        assert_eq!(code, Some(2), "{err}");
    }
}
