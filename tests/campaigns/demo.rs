#![allow(clippy::disallowed_methods)] // the test reads the demo's files
//! The README's main command, `empereur demo`, run as a user runs it:
//! it plays its nine phases, every player and the moderator get mail,
//! and `empereur verify` (also with `--replay`) accepts the game it
//! leaves behind.

use assert_cmd::Command;
use std::fs;
use std::path::Path;

fn bin() -> Command {
    Command::cargo_bin("empereur").unwrap()
}

fn run(args: &[&str], game: &Path) -> (i32, String) {
    let out = bin().args(args).arg(game).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap(), format!("{stdout}{stderr}"))
}

#[test]
fn the_demo_plays_a_season_and_its_game_verifies() {
    let t = tempfile::tempdir().unwrap();
    let (code, out) = run(&["demo", "--out"], t.path());
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("Played 9 phase(s) from 6 example mail(s); now open: 1806-winter"),
        "{out}"
    );
    assert!(
        out.contains("verify: ok, every die and the whole hash chain check out"),
        "{out}"
    );
    // Austria's example mail, a reply that names no phase, arrives while
    // its phase is open and dated then: its orders count, so Austria is
    // in and its phase resolves early, not after grace with defaults.
    let austria = out
        .lines()
        .find(|l| l.contains("1805-fall-austria "))
        .unwrap_or_default();
    assert!(austria.contains("1 mail(s) in; everyone in, resolved early"), "{out}");
    assert!(!out.contains("not in: Austria"), "{out}");
    let game = t.path().join("game");

    let entries: Vec<String> = fs::read_dir(game.join("history"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.as_bytes()[0].is_ascii_digit())
        .collect();
    // The genesis entry (entry 0: the seed chain, docs/dice.md 1a), then
    // one entry a phase.
    assert_eq!(entries.len(), 10, "{entries:?}");
    assert!(entries.iter().any(|e| e.starts_with("0000-")), "{entries:?}");

    // Every player and the moderator were mailed (file transport).
    let mut to = String::new();
    for e in fs::read_dir(game.join("mail/files")).unwrap() {
        let text = fs::read_to_string(e.unwrap().path()).unwrap();
        for l in text.lines().filter(|l| l.starts_with("To: ")) {
            to.push_str(l);
            to.push('\n');
        }
    }
    for who in [
        "gm", "france", "britain", "russia", "austria", "prussia", "spain", "ottoman",
    ] {
        assert!(
            to.contains(&format!("<{who}@demo.example.org>")),
            "no mail to {who}:\n{to}"
        );
    }

    // Every power's and the moderator's mail carried a map picture (the
    // demo writes the attachments it mailed), and the demo says where.
    let pictures = t.path().join("pictures").join("report");
    for who in [
        "moderator",
        "france",
        "britain",
        "russia",
        "austria",
        "prussia",
        "spain",
        "ottoman",
    ] {
        let png = pictures.join(format!("map-1805-fall-france-{who}.png"));
        let bytes = fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}\n{out}", png.display()));
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{} is no PNG", png.display());
        assert!(bytes.len() <= 180 * 1024, "{}: {} bytes", png.display(), bytes.len());
        // The SVG stays in the archive and the site, never in mail.
        assert!(
            !png.with_extension("svg").exists(),
            "an SVG was mailed beside {}",
            png.display()
        );
    }
    // Every report has the Standings section and the VP chart, a PNG
    // that decodes to the chart's size; its SVG never goes by mail.
    let mut reports = 0;
    for e in fs::read_dir(game.join("mail/files")).unwrap() {
        let raw = fs::read(e.unwrap().path()).unwrap();
        let m = mail_parser::MessageParser::default().parse(&raw[..]).unwrap();
        if !m.subject().is_some_and(|s| s.contains(": report of ")) {
            continue;
        }
        reports += 1;
        let body = m.body_text(0).unwrap().replace("\r\n", "\n");
        assert!(body.contains("\nStandings after "), "{body}");
        let names: Vec<&str> = m
            .attachments()
            .filter_map(mail_parser::MimeHeaders::attachment_name)
            .collect();
        assert!(
            !names.iter().any(|n| n.starts_with("vp-") && n.ends_with(".svg")),
            "{names:?}"
        );
        let chart = m
            .attachments()
            .find(|a| mail_parser::MimeHeaders::attachment_name(*a).is_some_and(|n| n.starts_with("vp-")))
            .unwrap_or_else(|| panic!("no VP chart among {names:?}"));
        let info = png::Decoder::new(std::io::Cursor::new(chart.contents()))
            .read_info()
            .unwrap()
            .info()
            .clone();
        assert_eq!((info.width, info.height), (480, 200));
        assert!(chart.contents().len() <= 12 * 1024, "{}", chart.contents().len());
    }
    // nine phases, seven players and the moderator
    assert_eq!(reports, 9 * 8, "{out}");

    let france = pictures.join("map-1805-fall-france-france.png");
    assert!(out.contains(&france.display().to_string()), "{out}");

    let (code, out) = run(&["verify", "--game"], &game);
    assert_eq!(code, 0, "{out}");
    // The seeds are fresh each run, so the number of rolls may vary.
    let last = out.lines().last().unwrap_or_default();
    assert!(last.starts_with("ok: 9 entries, "), "{out}");
    assert!(last.ends_with(", 0 manual roll(s)"), "{out}");

    // Re-adjudicating every phase gives the recorded outcomes and states,
    // late powers included (the demo always has some).
    let (code, out) = run(&["verify", "--replay", "--game"], &game);
    assert_eq!(code, 0, "{out}");
}
