//! What a player's mailbox holds over phases played by mail (issue 37):
//! one mail per phase holding the report of the phase just resolved,
//! its orders lock and the opening of the next phase; the map only when
//! the player's view changed, as a PNG, never an SVG; each mail to its
//! player alone; and the anchors `verify --mails` checks.
#![allow(clippy::disallowed_methods)] // tests read the mail the game wrote

use assert_cmd::Command;
use mail_parser::{MessageParser, MimeHeaders};
use std::fs;
use std::path::{Path, PathBuf};

/// A mail the game sent, as its player reads it.
struct Mail {
    file: PathBuf,
    to: Vec<String>,
    subject: String,
    body: String,
    attachments: Vec<String>,
}

/// The demo played for `phases` phases; (its directory, every mail sent).
fn demo(phases: usize) -> (tempfile::TempDir, Vec<Mail>) {
    let t = tempfile::tempdir().unwrap();
    let lines = empereur::ops::demo::play(t.path(), phases).unwrap();
    assert!(lines.iter().any(|l| l.starts_with("verify: ok")), "{lines:?}");
    let files = t.path().join("game/mail/files");
    let mut mails = Vec::new();
    let mut paths: Vec<PathBuf> = fs::read_dir(&files).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for p in paths {
        let raw = fs::read(&p).unwrap();
        let m = MessageParser::default().parse(&raw[..]).unwrap();
        mails.push(Mail {
            file: p.clone(),
            to: [m.to(), m.cc()]
                .into_iter()
                .flatten()
                .flat_map(|a| a.iter().filter_map(|x| x.address()).map(str::to_string))
                .collect(),
            subject: m.subject().unwrap_or("").to_string(),
            body: m.body_text(0).unwrap_or_default().replace("\r\n", "\n"),
            attachments: m
                .attachments()
                .filter_map(|a| a.attachment_name().map(str::to_string))
                .collect(),
        });
    }
    (t, mails)
}

fn to<'a>(mails: &'a [Mail], addr: &str) -> Vec<&'a Mail> {
    mails.iter().filter(|m| m.to.iter().any(|a| a == addr)).collect()
}

#[test]
fn each_phase_is_one_mail_with_the_report_its_lock_and_the_next_opening() {
    let (t, mails) = demo(2);
    assert!(
        !mails.iter().any(|m| m.subject.contains("are locked")),
        "the orders lock went out in a mail of its own"
    );
    assert!(
        !mails.iter().flat_map(|m| &m.attachments).any(|a| a.ends_with(".svg")),
        "an SVG was mailed"
    );
    for m in &mails {
        assert_eq!(m.to.len(), 1, "a mail to several people: {} {:?}", m.subject, m.to);
    }
    let britain = to(&mails, "britain@demo.example.org");
    let phase: Vec<&&Mail> = britain.iter().filter(|m| m.subject.contains("report of")).collect();
    let openings: Vec<&&Mail> = britain
        .iter()
        .filter(|m| m.subject.ends_with("is open") && !m.subject.contains("report of"))
        .collect();
    assert_eq!(openings.len(), 1, "only the first phase opens in a mail of its own");
    assert_eq!(phase.len(), 2, "one mail per phase resolved");
    let first = phase
        .iter()
        .find(|m| m.subject.contains("report of 1805-fall-turn-start"))
        .expect("the first phase's mail");
    assert!(
        first.subject.contains("for Great Britain; phase ") && first.subject.ends_with(" is open"),
        "{}",
        first.subject
    );
    let b = &first.body;
    // Lines for a mail client: prose wrapped, hashes whole on their line.
    for l in b.lines() {
        assert!(
            l.chars().count() <= 72 || l.split_whitespace().any(|w| w.len() >= 40),
            "a long line: {l}"
        );
    }
    let flat = b.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = |s: &str| flat.find(s).unwrap_or_else(|| panic!("no '{s}' in:\n{b}"));
    // The report, its lock, then the next phase's opening.
    assert!(at("report of phase 1805-fall-turn-start for Great Britain") < at("were locked: the phase was"));
    assert!(at("were locked: the phase was") < at("to move (phase"));
    assert!(at("to move (phase") < at("Order template"));
    assert!(at("Order template") < at("Empereur-Entry: demo 0001-1805-fall-turn-start"));
    assert!(b.contains("Dice seed (revealed"), "{b}");
    assert!(b.contains("Dice commitment (SHA-256"), "{b}");
    assert!(b.contains("POWER britain"), "{b}");
    // The moderator reads the report and the lock, and no opening.
    let gm = to(&mails, "gm@demo.example.org");
    let report = gm
        .iter()
        .find(|m| m.subject.contains("report of 1805-fall-turn-start for the moderator"))
        .expect("the moderator's report");
    assert!(report.body.contains("were locked"), "{}", report.body);
    assert!(!report.body.contains("to move (phase"), "{}", report.body);
    // Every anchor of the player's mailbox checks out.
    let mbox = t.path().join("britain-mail");
    fs::create_dir_all(&mbox).unwrap();
    for m in &britain {
        fs::copy(&m.file, mbox.join(m.file.file_name().unwrap())).unwrap();
    }
    let out = verify_mails(&t.path().join("game"), "britain", &mbox);
    let held = format!(
        "the mailbox of Great Britain holds {} mail(s) of the game",
        britain.len()
    );
    assert!(out.contains(&held), "{out}");
}

fn verify_mails(game: &Path, power: &str, mails: &Path) -> String {
    let out = Command::cargo_bin("empereur")
        .unwrap()
        .args(["verify", "--power", power, "--mails"])
        .arg(mails)
        .arg("--game")
        .arg(game)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}");
    text
}

#[test]
fn the_map_goes_out_only_when_the_players_view_changed() {
    let (_t, mails) = demo(2);
    for power in ["britain", "russia", "france"] {
        let mine = to(&mails, &format!("{power}@demo.example.org"));
        let opening = mine
            .iter()
            .find(|m| m.subject.ends_with("phase 1805-fall-turn-start is open"))
            .expect("the first opening");
        let first_map = format!("map-1805-fall-turn-start-{power}.png");
        assert_eq!(opening.attachments, vec![first_map.clone()]);
        // The Turn Start moves no unit: no map, a line naming the last one.
        let start = mine
            .iter()
            .find(|m| m.subject.contains("report of 1805-fall-turn-start"))
            .unwrap();
        assert!(
            !start.attachments.iter().any(|a| a.starts_with("map-")),
            "{:?}",
            start.attachments
        );
        assert!(
            start
                .body
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .contains(&format!("Map: unchanged since 1805-fall-turn-start ({first_map}).")),
            "{}",
            start.body
        );
        // France's Player Turn moves French corps: every view changes.
        let france = mine
            .iter()
            .find(|m| m.subject.contains("report of 1805-fall-france"))
            .unwrap();
        let map = format!("map-1805-fall-france-{power}.png");
        assert!(france.attachments.contains(&map), "{:?}", france.attachments);
        assert!(!france.body.contains("Map: unchanged"), "{}", france.body);
    }
}

/// The MIME part of `raw` that carries the file `name`: its headers and
/// its text as it travels.
fn part<'a>(raw: &'a str, name: &str) -> &'a str {
    let at = raw
        .find(&format!("filename=\"{name}\""))
        .unwrap_or_else(|| panic!("no {name} in the mail"));
    let start = raw[..at].rfind("\r\n--").expect("a part boundary before it");
    let end = raw[at..].find("\r\n--").map_or(raw.len(), |e| at + e);
    &raw[start..end]
}

// DESIGN.md ("Who uses it"): after each phase a player gets the report
// and their state file, whether or not they must order next (the state
// file records the hash chain each phase; `check --state` reads it). Text
// files travel as text (issue 37): the state file as 7bit, so that a
// line reads `gold = 45`, not `gold =3D 45`; the JSON report as text,
// not base64.
#[test]
fn every_phase_mail_carries_the_powers_own_state_file_as_text() {
    let (_t, mails) = demo(2);
    let phase_mail = |power: &str, phase: &str| {
        let mine = to(&mails, &format!("{power}@demo.example.org"));
        mine.iter()
            .find(|m| m.subject.contains(&format!("report of {phase}")))
            .copied()
            .unwrap_or_else(|| panic!("{power} has no mail reporting {phase}"))
    };
    // France's Player Turn opens after the Turn Start, then the power the
    // turn order (rolled) puts next.
    let france_turn = phase_mail("france", "1805-fall-france");
    let next = france_turn
        .subject
        .rsplit("phase ")
        .next()
        .unwrap()
        .trim_end_matches(" is open");
    let mover = next.strip_prefix("1805-fall-").unwrap().to_string();
    let other = if mover == "prussia" { "russia" } else { "prussia" };
    // Whoever must order next, and whoever need not, gets their own state
    // file and no other power's.
    for (power, m) in [
        ("france", phase_mail("france", "1805-fall-turn-start")),
        (other, phase_mail(other, "1805-fall-turn-start")),
        ("france", france_turn),
        (other, phase_mail(other, "1805-fall-france")),
    ] {
        let states: Vec<&String> = m.attachments.iter().filter(|a| a.starts_with("state-")).collect();
        assert_eq!(
            states,
            [&format!("state-{power}.toml")],
            "{}: {:?}",
            m.subject,
            m.attachments
        );
        assert!(!m.body.contains("not attached"), "{}", m.body);
    }
    let moving = phase_mail(&mover, "1805-fall-france");
    let state_name = format!("state-{mover}.toml");
    assert!(moving.attachments.contains(&state_name), "{:?}", moving.attachments);
    // As it travels.
    let raw = String::from_utf8(fs::read(&moving.file).unwrap()).unwrap();
    let state = part(&raw, &state_name);
    assert!(state.contains("Content-Transfer-Encoding: 7bit"), "{state}");
    assert!(state.contains(&format!("\r\n[powers.{mover}]\r\ngold = ")), "{state}");
    let json = part(&raw, "report.json");
    assert!(!json.contains("Content-Transfer-Encoding: base64"), "{json}");
    assert!(json.contains("\"phase\": \"1805-fall-france\""), "{json}");
}
