//! Press through the real ingest path: PRESS TO … ENDPRESS relayed to
//! the players named and the moderator, archived in `press/`, white,
//! grey and no press, escaping and caps.
#![allow(clippy::disallowed_methods)] // tests read and write files

use empereur::ids::PowerId;
use empereur::mail::ingest::{self, GameCtx, Run, Verdict};
use empereur::store::{GameDir, submission};
use std::io::Write;
use std::path::Path;

use crate::players_common::{mail, new_game, now, text};

/// One mail of the outbox: recipients, subject, body.
struct Out {
    to: Vec<String>,
    subject: String,
    body: String,
}

fn out(dir: &Path, id: &str) -> Out {
    let g = GameDir::new(dir);
    let raw = std::fs::read(g.outbox().join(format!("{id}.eml"))).unwrap();
    let env = empereur::mail::outbox::read_envelope(&g.outbox().join(format!("{id}.json"))).unwrap();
    let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
    Out {
        to: env.to,
        subject: env.subject,
        body: m.body_text(0).unwrap().replace("\r\n", "\n"),
    }
}

/// Ingest one mail in a fresh run; returns the verdict and the mails
/// queued for it (the acknowledgement last).
fn send(game: &Path, from: &str, id: &str, body: &str) -> (Verdict, Vec<Out>) {
    let ctx = GameCtx::load(game).unwrap();
    let mut run = Run::new(now());
    let h = ingest::ingest_game(&ctx, &mail(from, id, body), &mut run).unwrap();
    run.flush().unwrap();
    let mails = h.replies.iter().map(|r| out(game, r)).collect();
    (h.verdict, mails)
}

fn ack(mails: &[Out]) -> &Out {
    mails
        .iter()
        .find(|m| m.subject.starts_with("Re:"))
        .expect("an acknowledgement")
}

fn set_press(game: &Path, table: &str) {
    let p = GameDir::new(game).config();
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    write!(f, "\n[press]\n{table}\n").unwrap();
}

fn press_files(game: &Path) -> Vec<String> {
    let d = game.join("press");
    let mut v: Vec<String> = match std::fs::read_dir(&d) {
        Ok(r) => r.map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect(),
        Err(_) => vec![],
    };
    v.sort();
    v
}

#[test]
fn press_is_relayed_to_the_powers_named_and_the_moderator_and_archived() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "pr1",
        &text(
            "france",
            "austerlitz",
            "PRESS TO Austria\nMy dear Francis,\n\nshall we speak of Bavaria?\u{202e}evil\nENDPRESS\nMOVE FIRST",
        ),
    );
    // The orders of the same mail are stored; the press is none of them.
    assert!(
        matches!(
            v,
            Verdict::Accepted {
                power: PowerId::France,
                accepted: 1,
                rejected: 0,
                ..
            }
        ),
        "{v:?}"
    );
    let a = ack(&mails);
    assert!(a.body.contains("PRESS (line 4): sent to Austria."), "{}", a.body);
    assert!(!a.body.contains("Bavaria"), "the press is not echoed back: {}", a.body);
    let to_austria = mails
        .iter()
        .find(|m| m.to == ["austria@demo.example.org"])
        .expect("Austria's copy");
    assert_eq!(to_austria.subject, "Empereur demo: press from France");
    let b = &to_austria.body;
    assert!(
        b.contains("Press in game demo, phase 1805-fall-turn-start, from France to Austria:"),
        "{b}"
    );
    assert!(
        b.contains("My dear Francis,\n\nshall we speak of Bavaria?\\u{202e}evil\n"),
        "{b}"
    );
    assert!(!b.contains("MOVE FIRST") && !b.contains("austerlitz"), "{b}");
    let gm = mails
        .iter()
        .find(|m| m.to == ["gm@demo.example.org"])
        .expect("the moderator's copy");
    assert!(gm.body.contains("Moderator's copy: press in game demo"), "{}", gm.body);
    // France's stored orders hold no press line.
    let subs = submission::load_all(&GameDir::new(&game)).unwrap();
    assert_eq!(subs[&PowerId::France].orders.len(), 1);
    let files = press_files(&game);
    assert_eq!(files.len(), 1);
    assert!(files[0].contains("from = \"france\""), "{}", files[0]);
    assert!(files[0].contains("to = [\"Austria\"]"), "{}", files[0]);
    assert!(files[0].contains("anonymous = false"), "{}", files[0]);
}

#[test]
fn press_to_all_reaches_every_other_player_and_never_the_sender() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    set_press(&game, "moderator_copy = false");
    let (v, mails) = send(
        &game,
        "austria@demo.example.org",
        "pr2",
        &text("austria", "aspern", "PRESS TO ALL\nPeace in our time.\nENDPRESS"),
    );
    assert_eq!(
        v,
        Verdict::Noted {
            power: PowerId::Austria
        }
    );
    let relayed: Vec<&Out> = mails.iter().filter(|m| m.subject.contains("press from")).collect();
    assert_eq!(
        relayed.len(),
        1,
        "France only: no copy to the sender, none to the moderator"
    );
    assert_eq!(relayed[0].to, ["france@demo.example.org"]);
    assert!(relayed[0].body.contains("from Austria to all players:"));
    // Naming an NPC: told, not mailed.
    let (_, mails) = send(
        &game,
        "austria@demo.example.org",
        "pr3",
        &text("austria", "aspern", "PRESS TO Prussia, France\nHello.\nENDPRESS"),
    );
    assert!(
        ack(&mails)
            .body
            .contains("sent to France. Not sent to Prussia (no player).")
    );
}

#[test]
fn grey_press_may_be_anonymous_white_press_may_not_and_none_is_none() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let anon = text(
        "france",
        "austerlitz",
        "PRESS TO Austria ANONYMOUS\nA friend.\nENDPRESS",
    );
    // White (the default): refused, nothing relayed or archived.
    let (_, mails) = send(&game, "france@demo.example.org", "g1", &anon);
    assert_eq!(mails.len(), 1);
    assert!(ack(&mails).body.contains("NOT sent: this game's press is white"));
    assert!(press_files(&game).is_empty());
    // Grey: sent unsigned; the moderator still learns who.
    set_press(&game, "mode = \"grey\"");
    let (_, mails) = send(&game, "france@demo.example.org", "g2", &anon);
    let to_austria = mails.iter().find(|m| m.to == ["austria@demo.example.org"]).unwrap();
    assert_eq!(to_austria.subject, "Empereur demo: press from an anonymous power");
    assert!(!to_austria.body.contains("France"), "{}", to_austria.body);
    let gm = mails.iter().find(|m| m.to == ["gm@demo.example.org"]).unwrap();
    assert!(gm.body.contains("from France (anonymous to its recipients)"));
    assert!(press_files(&game)[0].contains("anonymous = true"));
    // None: no press at all.
    let p = GameDir::new(&game).config();
    let cfg = std::fs::read_to_string(&p)
        .unwrap()
        .replace("mode = \"grey\"", "mode = \"none\"");
    std::fs::write(&p, cfg).unwrap();
    let (_, mails) = send(
        &game,
        "france@demo.example.org",
        "g3",
        &text("france", "austerlitz", "PRESS TO Austria\nHi.\nENDPRESS"),
    );
    assert_eq!(mails.len(), 1);
    assert!(ack(&mails).body.contains("NOT sent: this game has no press."));
}

#[test]
fn press_needs_the_password_and_an_endpress() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "n1",
        &text("france", "wrong", "PRESS TO Austria\nHi.\nENDPRESS"),
    );
    assert!(matches!(v, Verdict::Refused(_)));
    assert_eq!(mails.len(), 1, "nothing relayed");
    assert!(press_files(&game).is_empty());
    // No ENDPRESS: nothing sent, and the lines after PRESS are not read
    // as orders either.
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "n2",
        &text("france", "austerlitz", "PRESS TO Austria\nMOVE FIRST"),
    );
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
    assert!(ack(&mails).body.contains("the PRESS on line 4 has no ENDPRESS line"));
    assert_eq!(mails.len(), 1);
    // A long press is cut.
    let long: String = (0..150).map(|i| format!("line {i}\n")).collect();
    let (_, mails) = send(
        &game,
        "france@demo.example.org",
        "n3",
        &text("france", "austerlitz", &format!("PRESS TO Austria\n{long}ENDPRESS")),
    );
    let m = mails.iter().find(|m| m.to == ["austria@demo.example.org"]).unwrap();
    assert!(m.body.contains("line 99\n[50 more line(s) not relayed]"), "{}", m.body);
}

#[test]
fn press_relayed_before_a_crash_is_not_relayed_again_when_its_mail_is_processed_again() {
    // A run dies after relaying France's press but before its batch is
    // committed: the mail stays unprocessed in the archive, and the
    // relays, queued at once, go out with the next `empereur send`. The
    // next run processes the mail again: Austria does not get the press
    // twice, and the journal says why each relay was not queued again.
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let g = GameDir::new(&game);
    let ctx = GameCtx::load(&game).unwrap();
    let raw = mail(
        "france@demo.example.org",
        "cr1",
        &text(
            "france",
            "austerlitz",
            "PRESS TO Austria\nShall we speak of Bavaria?\nENDPRESS",
        ),
    );
    let mut run = Run::new(now());
    let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
    // The crash: the run ends without committing its batch (a dropped
    // run would commit it).
    std::mem::forget(run);
    assert_eq!(
        empereur::mail::archive::pending(&g.inbox()).unwrap(),
        vec![h.hash.clone()]
    );
    let relays = empereur::mail::outbox::queued(&g).unwrap();
    assert!(!relays.is_empty());
    let config = g.load_config().unwrap();
    let sender = empereur::mail::transport::sender(&g, &config.mail.transport).unwrap();
    empereur::mail::transport::send_all(&g, Some(&sender), &[], now()).unwrap();
    let to_austria = |g: &GameDir| {
        std::fs::read_dir(g.sent())
            .unwrap()
            .filter_map(|e| {
                let p = e.unwrap().path();
                (p.extension()? == "json").then_some(p)
            })
            .filter(|p| {
                empereur::mail::outbox::read_envelope(p)
                    .unwrap()
                    .to
                    .iter()
                    .any(|t| t == "austria@demo.example.org")
            })
            .count()
    };
    assert_eq!(to_austria(&g), 1);
    let journal_before = std::fs::read_to_string(g.journal()).unwrap_or_default();

    let mut run = Run::new(now());
    let again = ingest::ingest_pending(&ctx, &mut run).unwrap();
    run.flush().unwrap();
    assert_eq!(again.len(), 1);
    assert!(empereur::mail::archive::pending(&g.inbox()).unwrap().is_empty());
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    let said: Vec<&str> = journal[journal_before.len()..]
        .lines()
        .filter(|l| l.contains("was sent already"))
        .collect();
    // One line per relay sent before, none for what is queued now.
    assert_eq!(said.len(), relays.len(), "{journal}");
    for id in &relays {
        assert!(
            said.iter()
                .any(|l| l.ends_with(&format!("reply {id} was sent already; not queued again"))),
            "{journal}"
        );
    }
    let queued = empereur::mail::outbox::queued(&g).unwrap();
    assert!(queued.iter().all(|q| !relays.contains(q)), "{queued:?}");
    empereur::mail::transport::send_all(&g, Some(&sender), &[], now()).unwrap();
    assert_eq!(to_austria(&g), 1, "Austria got the press once");
}
