//! `empereur seat`: a stranger's join request answered by seating them
//! on an NPC, which becomes a Player Country at the next Turn Start
//! (3.2), recorded in the hash chain so that `verify --replay` agrees;
//! and the refusals (exit 1) that keep a played power, a taken address
//! or a missing password mail from being seated over.
#![allow(clippy::disallowed_methods)] // tests read and write files

use assert_cmd::Command;
use empereur::ids::PowerId;
use empereur::mail::ingest::{self, GameCtx, Run, Verdict};
use empereur::store::GameDir;
use mail_parser::MimeHeaders;
use std::path::Path;

use crate::players_common::{mail, new_game, now, text};

const NOW: &str = "2026-11-30T09:55:00Z";

fn empereur(args: &[&str], game: &Path) -> (i32, String, String) {
    let out = Command::cargo_bin("empereur")
        .unwrap()
        .args(args)
        .arg("--game")
        .arg(game)
        .env("EMPEREUR_NOW", NOW)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ingest_one(game: &Path, from: &str, id: &str, body: &str) -> (Verdict, Vec<String>) {
    let ctx = GameCtx::load(game).unwrap();
    let mut run = Run::new(now());
    let h = ingest::ingest_game(&ctx, &mail(from, id, body), &mut run).unwrap();
    run.flush().unwrap();
    (h.verdict, h.replies)
}

/// Every queued mail to `addr`: (subject, body, attachment names).
fn mails_to(game: &Path, addr: &str) -> Vec<(String, String, Vec<String>)> {
    let g = GameDir::new(game);
    let mut v = Vec::new();
    for e in std::fs::read_dir(g.outbox()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let env = empereur::mail::outbox::read_envelope(&p).unwrap();
        if !env.to.iter().any(|t| t == addr) {
            continue;
        }
        let raw = std::fs::read(p.with_extension("eml")).unwrap();
        let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
        v.push((
            env.subject,
            m.body_text(0).unwrap().replace("\r\n", "\n"),
            m.attachments()
                .map(|a| a.attachment_name().unwrap_or("").to_string())
                .collect(),
        ));
    }
    v
}

const ANA: &str = "ana@else.example.net";

#[test]
fn a_join_request_with_a_password_seats_the_sender_on_an_npc_that_plays_from_the_next_turn_start() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    // The request: the password she chose is never shown to the moderator.
    let (v, replies) = ingest_one(&game, ANA, "j1", "Hello\nJOIN Spain\nPASSWORD olé secret\n");
    assert!(matches!(v, Verdict::Refused(_)), "{v:?}");
    assert_eq!(replies.len(), 2);
    let fwd = mails_to(&game, "gm@demo.example.org");
    let (_, body, _) = fwd.iter().find(|(s, _, _)| s.contains("join request")).unwrap();
    assert!(!body.contains("olé secret"), "{body}");
    assert!(body.contains("PASSWORD (given; not shown)"), "{body}");
    assert!(
        body.contains(&format!(
            "empereur seat --game <dir> --power spain --name \"<name>\" --email {ANA} --password-from-mail"
        )),
        "{body}"
    );

    let (code, out, err) = empereur(
        &[
            "seat",
            "--power",
            "spain",
            "--name",
            "Ana",
            "--email",
            ANA,
            "--password-from-mail",
            "--house-seating",
        ],
        &game,
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Spain becomes a Player Country at the Turn Start 1806-spring-turn-start"),
        "{out}"
    );
    let dir = GameDir::new(&game);
    let config = dir.load_config().unwrap();
    assert_eq!(config.player(PowerId::Spain).unwrap().email, ANA);
    assert!(!dir.load_state().unwrap().power(PowerId::Spain).control.is_player());

    // One welcome reaches her (with the map; the open phase's opening
    // is not sent besides); the password is not repeated.
    let to_ana = mails_to(&game, ANA);
    let (_, welcome, files) = to_ana
        .iter()
        .find(|(s, _, _)| s == "Empereur demo: welcome, you play Spain")
        .expect("a welcome mail");
    let flat = welcome.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("until the Turn Start 1806-spring-turn-start"),
        "{welcome}"
    );
    assert!(welcome.contains("Order template"), "{welcome}");
    assert!(welcome.contains("POWER spain"), "{welcome}");
    assert!(!welcome.contains("olé secret"), "{welcome}");
    // The map as a PNG; its SVG is never mailed.
    assert_eq!(files, &["state-spain.toml", "map-1805-fall-turn-start-spain.png"]);
    // (Besides the fixed answer to her join request, before she was seated.)
    let game_mail: Vec<&String> = to_ana
        .iter()
        .map(|m| &m.0)
        .filter(|s| s.starts_with("Empereur demo"))
        .collect();
    assert_eq!(game_mail, ["Empereur demo: welcome, you play Spain"]);
    // Her password works by mail at once (commands; orders wait for 3.2).
    let (v, _) = ingest_one(&game, ANA, "s1", &text("spain", "olé secret", "STATUS"));
    assert_eq!(v, Verdict::Noted { power: PowerId::Spain });
    let (v, _) = ingest_one(&game, ANA, "s2", &text("spain", "wrong", "STATUS"));
    assert!(matches!(v, Verdict::Refused(_)), "{v:?}");

    // Play to the next Turn Start: Spain is a Player Country there, the
    // entry that opened it says so, and a replay agrees.
    let mut opened_by = None;
    for _ in 0..12 {
        empereur::ops::autoplay::autoplay(&dir, 1, 3, Some(NOW)).unwrap();
        let s = dir.load_state().unwrap();
        if s.phase.to_string() == "1806-spring-turn-start" {
            opened_by = Some(empereur::store::history::read_head(&dir).unwrap().last);
            break;
        }
        assert!(!s.power(PowerId::Spain).control.is_player(), "{}", s.phase);
    }
    let name = opened_by.expect("reached 1806-spring-turn-start");
    assert!(dir.load_state().unwrap().power(PowerId::Spain).control.is_player());
    let (rec, _) = empereur::store::history::read_entry(&dir, &name).unwrap();
    assert_eq!(rec.seated, vec![PowerId::Spain]);
    let outcomes =
        std::fs::read_to_string(empereur::store::history::entry_dir(&dir, &name).join("outcomes.toml")).unwrap();
    assert!(
        outcomes.contains("Spain is a Player Country from this Turn Start"),
        "{outcomes}"
    );
    let (code, out, err) = empereur(&["verify", "--replay"], &game);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_generated_password_is_mailed_and_works() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let (code, out, err) = empereur(
        &[
            "seat",
            "--power",
            "prussia",
            "--name",
            "Otto",
            "--email",
            "otto@else.example.net",
            "--house-seating",
        ],
        &game,
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("a password was generated and mailed"), "{out}");
    let to_otto = mails_to(&game, "otto@else.example.net");
    let (_, welcome, _) = to_otto.iter().find(|(s, _, _)| s.contains("welcome")).unwrap();
    let pw = welcome
        .lines()
        .skip_while(|l| *l != "Your password:")
        .nth(1)
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(pw.len(), 12, "{welcome}");
    assert!(welcome.contains("SET PASSWORD <your new secret>"), "{welcome}");
    let (v, _) = ingest_one(&game, "otto@else.example.net", "o1", &text("prussia", &pw, "STATUS"));
    assert_eq!(
        v,
        Verdict::Noted {
            power: PowerId::Prussia
        }
    );
    // Everyone is told Prussia has a player.
    let told = mails_to(&game, "austria@demo.example.org");
    assert!(
        told.iter()
            .any(|(s, _, _)| s == "Empereur demo: Prussia has a new player"),
        "{told:?}"
    );
}

#[test]
fn a_played_power_a_taken_address_or_no_password_mail_is_refused_with_exit_1() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let before = std::fs::read(game.join("game.toml")).unwrap();
    let seat = |power: &str, email: &str, from_mail: bool| {
        let mut a = vec![
            "seat",
            "--power",
            power,
            "--name",
            "X",
            "--email",
            email,
            "--house-seating",
        ];
        if from_mail {
            a.push("--password-from-mail");
        }
        empereur(&a, &game)
    };
    let (code, _, err) = seat("france", "x@else.example.net", false);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("France is played by Napoleon's Player"), "{err}");
    assert!(err.contains("replace-player"), "{err}");
    let (code, _, err) = seat("spain", "AUSTRIA@demo.example.org", false);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("already belongs to a player"), "{err}");
    let (code, _, err) = seat("spain", "gm@demo.example.org", false);
    assert_eq!(code, 1, "{err}");
    let (code, _, err) = seat("spain", "not an address", false);
    assert_eq!(code, 1, "{err}");
    let (code, _, err) = seat("spain", "x@else.example.net", true);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("no mail from x@else.example.net with a PASSWORD line"),
        "{err}"
    );
    // A mail from that address without a PASSWORD line is no better.
    ingest_one(&game, "x@else.example.net", "x1", "JOIN Spain\n");
    let (code, _, _) = seat("spain", "x@else.example.net", true);
    assert_eq!(code, 1);
    assert_eq!(
        std::fs::read(game.join("game.toml")).unwrap(),
        before,
        "nothing changed"
    );
    // Not a power at all: bad arguments (exit 2).
    let (code, _, _) = seat("bavaria", "x@else.example.net", false);
    assert_eq!(code, 2);
}

#[test]
fn a_seat_follows_3_0_unless_the_moderator_asks_for_a_house_seating() {
    let tmp = tempfile::tempdir().unwrap();
    let game = tmp.path().join("two");
    let players = r#"
[moderator]
name = "GM"
email = "gm@demo.example.org"

[[player]]
power = "france"
name = "F"
email = "france@demo.example.org"
password = "austerlitz"

[[player]]
power = "britain"
name = "B"
email = "britain@demo.example.org"
password = "trafalgar"
"#;
    let o = empereur::ops::new::NewOptions {
        dir: game.clone(),
        scenario: "1805".into(),
        players: Default::default(),
        options: vec![],
        id: Some("two".into()),
        house_seating: true,
    };
    empereur::ops::new::create_from(&o, empereur::store::players::parse("players.toml", players).unwrap()).unwrap();
    let seat = |power: &str, extra: &[&str]| {
        let mut a = vec!["seat", "--power", power, "--name", "N", "--email", "n@else.example.net"];
        a.extend_from_slice(extra);
        empereur(&a, &game)
    };
    // The third player of a game plays Russia (3.0).
    let (code, _, err) = seat("prussia", &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("3.0: with 3 players the Player Countries are France, Great Britain, Russia; nobody plays Russia; Prussia would be an NPC; --house-seating seats the player anyway"),
        "{err}"
    );
    assert!(
        GameDir::new(&game)
            .load_config()
            .unwrap()
            .player(PowerId::Prussia)
            .is_none()
    );
    let (code, out, err) = seat("prussia", &["--house-seating"]);
    assert_eq!(code, 0, "{out}{err}");
    let journal = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    assert!(journal.contains("a house seating (3.0: with 3 players"), "{journal}");
}

#[test]
fn the_player_3_0_gives_next_is_seated_without_asking() {
    let tmp = tempfile::tempdir().unwrap();
    let game = tmp.path().join("two");
    let players = r#"
[moderator]
name = "GM"
email = "gm@demo.example.org"

[[player]]
power = "france"
name = "F"
email = "france@demo.example.org"
password = "austerlitz"

[[player]]
power = "britain"
name = "B"
email = "britain@demo.example.org"
password = "trafalgar"
"#;
    let o = empereur::ops::new::NewOptions {
        dir: game.clone(),
        scenario: "1805".into(),
        players: Default::default(),
        options: vec![],
        id: Some("two".into()),
        house_seating: true,
    };
    empereur::ops::new::create_from(&o, empereur::store::players::parse("players.toml", players).unwrap()).unwrap();
    let (code, out, err) = empereur(
        &[
            "seat",
            "--power",
            "russia",
            "--name",
            "N",
            "--email",
            "n@else.example.net",
        ],
        &game,
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        GameDir::new(&game)
            .load_config()
            .unwrap()
            .player(PowerId::Russia)
            .is_some()
    );
}
