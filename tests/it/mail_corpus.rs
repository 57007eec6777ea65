//! The email corpus (`orders/emails/`): every message ingested into a
//! fresh demo game, with its expected decision, reply and journal line.
#![allow(clippy::disallowed_methods)] // tests read and write files

use chrono::{DateTime, Utc};
use empereur::ids::PowerId;
use empereur::mail::auth::Refusal;
use empereur::mail::ingest::{self, GameCtx, Run, Verdict};
use empereur::mail::parse::{self, TextSource};
use empereur::ops::new::{NewOptions, create_from};
use empereur::store::{GameDir, players};
use std::path::{Path, PathBuf};

const PLAYERS: &str = r#"
[moderator]
name = "Demo Moderator"
email = "gm@demo.example.org"

[[player]]
power = "france"
name = "Napoleon's Player"
email = "france@demo.example.org"
password = "austerlitz"

[[player]]
power = "austria"
name = "Francis's Player"
email = "austria@demo.example.org"
password = "aspern"
"#;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-30T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn corpus(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("orders/emails").join(name)).unwrap()
}

fn new_game(parent: &Path, id: &str) -> PathBuf {
    let dir = parent.join(id);
    let players = players::parse("players.toml", PLAYERS).unwrap();
    let o = NewOptions {
        dir: dir.clone(),
        scenario: "1805".into(),
        players: PathBuf::new(),
        options: vec![],
        id: Some(id.into()),
        house_seating: true,
    };
    create_from(&o, players).unwrap();
    dir
}

/// The orders of `power` were authenticated and stored (a mail that
/// authenticates but whose orders were not stored is a failure here).
fn authenticated(v: &Verdict) -> Option<(PowerId, bool)> {
    match v {
        Verdict::Accepted {
            power,
            sender_on_record,
            ..
        } => Some((*power, *sender_on_record)),
        _ => None,
    }
}

/// (display name, address) of the first `To:` of a mail, or `From:`.
fn first_addr(list: Option<&mail_parser::Address<'_>>) -> (Option<String>, Option<String>) {
    let a = list.and_then(|l| l.first());
    (
        a.and_then(|a| a.name()).map(str::to_string),
        a.and_then(|a| a.address()).map(str::to_string),
    )
}

fn outbox_mail(dir: &Path, id: &str) -> String {
    let raw = std::fs::read(GameDir::new(dir).outbox().join(format!("{id}.eml"))).unwrap();
    String::from_utf8(raw).unwrap()
}

fn reply_body(dir: &Path, id: &str) -> String {
    let raw = std::fs::read(GameDir::new(dir).outbox().join(format!("{id}.eml"))).unwrap();
    let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
    m.body_text(0).unwrap().into_owned()
}

/// The stored submissions of the open phase: file name -> bytes.
fn stored_orders(game: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(GameDir::new(game).phase_orders())
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().to_string(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Text with every run of whitespace made one space (mail is wrapped).
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn every_corpus_message_gets_its_expected_decision() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let ctx = GameCtx::load(&game).unwrap();
    let mut run = Run::new(now());
    let authed = [
        ("plain.eml", PowerId::France),
        ("quoted-printable.eml", PowerId::France),
        ("base64.eml", PowerId::Austria),
        ("html-only.eml", PowerId::Austria),
        ("multipart-alternative.eml", PowerId::France),
        ("attachment.eml", PowerId::Austria),
        ("reply-quoting-report.eml", PowerId::France),
        ("phone-signature.eml", PowerId::Austria),
        ("latin1.eml", PowerId::France),
    ];
    for (file, power) in authed {
        let h = ingest::ingest_game(&ctx, &corpus(file), &mut run).unwrap();
        assert_eq!(
            authenticated(&h.verdict),
            Some((power, true)),
            "{file}: {:?}",
            h.verdict
        );
        assert_eq!(h.replies.len(), 1, "{file}");
        // Accepted orders and their acknowledgement are written with the batch.
        run.flush().unwrap();
        // The acknowledgement goes to the sender, by name and address.
        let raw = outbox_mail(&game, &h.replies[0]);
        let parser = mail_parser::MessageParser::default();
        let reply = parser.parse(raw.as_bytes()).unwrap();
        let incoming = corpus(file);
        let sent = parser.parse(&incoming).unwrap();
        let sender = first_addr(sent.from());
        assert_eq!(
            sender.1.as_deref(),
            Some(format!("{}@demo.example.org", power.id()).as_str()),
            "{file}"
        );
        assert!(sender.0.is_some(), "{file}: the corpus mail names its sender");
        assert_eq!(first_addr(reply.to()), sender, "{file}: {raw}");
        let body = reply_body(&game, &h.replies[0]);
        assert!(
            body.contains(&format!("for {} in game demo", power.name())),
            "{file}: {body}"
        );
    }
    let accepted_orders = stored_orders(&game);
    assert_eq!(
        accepted_orders.keys().collect::<Vec<_>>(),
        ["austria.toml", "france.toml"],
        "each power's latest submission is stored"
    );
    let refused = [
        ("huge.eml", "too-large", "over this game's limit of 262144 bytes"),
        ("no-text.eml", "no-text", "the message has no text"),
        ("wrong-password.eml", "wrong-password", "wrong password for Austria"),
        (
            "other-game.eml",
            "wrong-game",
            "the GAME line names 'waterloo', but this address is game 'demo'",
        ),
        (
            "stale-phase.eml",
            "stale-phase",
            "the PHASE line names 1805-fall-france, but the open phase is 1805-fall-turn-start",
        ),
        ("unknown-power.eml", "unknown-power", "no power 'bavaria'"),
    ];
    for (file, code, says) in refused {
        let h = ingest::ingest_game(&ctx, &corpus(file), &mut run).unwrap();
        match &h.verdict {
            Verdict::Refused(r) => assert_eq!(r.code(), code, "{file}"),
            other => panic!("{file}: expected a refusal, got {other:?}"),
        }
        assert_eq!(h.replies.len(), 1, "{file}");
        let body = reply_body(&game, &h.replies[0]);
        assert!(
            body.contains("NOT taken as orders, and nothing was stored"),
            "{file}: {body}"
        );
        assert!(flat(&body).contains(says), "{file}: {body}");
    }
    // Nothing refused reached the stored orders: France's and Austria's
    // last accepted submissions are there, byte for byte as before.
    assert_eq!(
        stored_orders(&game),
        accepted_orders,
        "a refused mail changed the stored orders"
    );

    // A vacation reply is archived and never answered.
    let h = ingest::ingest_game(&ctx, &corpus("auto-reply.eml"), &mut run).unwrap();
    assert_eq!(h.verdict, Verdict::Ignored);
    assert!(h.replies.is_empty());

    // Every message is in the archive, byte for byte.
    let inbox = GameDir::new(&game).inbox();
    let archived =
        std::fs::read_dir(inbox.join("cur")).unwrap().count() + std::fs::read_dir(inbox.join("new")).unwrap().count();
    assert_eq!(archived, authed.len() + refused.len() + 1);
    let plain = corpus("plain.eml");
    let hash = empereur::mail::sha256_hex(&plain);
    let p = if inbox.join("new").join(&hash).exists() {
        inbox.join("new").join(&hash)
    } else {
        inbox.join("cur").join(format!("{hash}:2,S"))
    };
    assert_eq!(std::fs::read(p).unwrap(), plain);

    // Every decision is in the journal (committed with the batch).
    run.flush().unwrap();
    let journal = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    assert!(
        journal.contains("refused (wrong-password): wrong password for Austria"),
        "{journal}"
    );
    assert!(journal.contains("refused (too-large)"), "{journal}");
    assert!(journal.contains("not answered (automatic mail: "), "{journal}");
    assert!(
        journal.lines().all(|l| l.starts_with("2026-11-30T10:00:00")),
        "{journal}"
    );
}

#[test]
fn a_forged_sender_with_the_right_password_is_accepted_and_the_owner_told() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let ctx = GameCtx::load(&game).unwrap();
    let mut run = Run::new(now());
    let h = ingest::ingest_game(&ctx, &corpus("forged-from.eml"), &mut run).unwrap();
    // Accepted (the password is right), but flagged as not from the
    // address on record.
    assert_eq!(
        authenticated(&h.verdict),
        Some((PowerId::France, false)),
        "{:?}",
        h.verdict
    );
    run.flush().unwrap();
    let raw = outbox_mail(&game, &h.replies[0]);
    let m = mail_parser::MessageParser::default().parse(raw.as_bytes()).unwrap();
    let to: Vec<_> = m.to().unwrap().iter().filter_map(|a| a.address()).collect();
    assert_eq!(to, vec!["mallory@evil.example.net"]);
    // The forger never learns the player's address (issue 33 point 7).
    assert!(m.cc().is_none());
    let head = &raw[..raw.find("\r\n\r\n").unwrap()];
    assert!(!head.contains("france@demo.example.org"), "{head}");
    let body = m.body_text(0).unwrap();
    assert!(flat(&body).contains("not from the address on record"), "{body}");
    // Nor in the body: the note names the sender, never the address on
    // record (issue 33, first contact).
    assert!(!body.contains("france@demo.example.org"), "{body}");
    assert!(!raw.contains("france@demo"), "{raw}");
    assert_eq!(m.in_reply_to().as_text(), Some("forged-1@mail.example.org"));
    // The player of record gets a copy of their own.
    let copy = empereur::mail::outbox::stable_id(&[&h.replies[0], "france@demo.example.org"]);
    let craw = outbox_mail(&game, &copy);
    let c = mail_parser::MessageParser::default().parse(craw.as_bytes()).unwrap();
    let to: Vec<_> = c.to().unwrap().iter().filter_map(|a| a.address()).collect();
    assert_eq!(to, vec!["france@demo.example.org"]);
    let chead = &craw[..craw.find("\r\n\r\n").unwrap()];
    assert!(!chead.contains("mallory@evil.example.net"), "{chead}");
    assert!(flat(&c.body_text(0).unwrap()).contains("not from the address on record"));
    // Each envelope carries its own recipient.
    let env = |id: &str| {
        empereur::mail::outbox::read_envelope(&GameDir::new(&game).outbox().join(format!("{id}.json"))).unwrap()
    };
    assert_eq!(env(&h.replies[0]).to, vec!["mallory@evil.example.net"]);
    assert_eq!(env(&copy).to, vec!["france@demo.example.org"]);
}

#[test]
fn the_same_message_twice_is_processed_once() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let ctx = GameCtx::load(&game).unwrap();
    let mut run = Run::new(now());
    let first = ingest::ingest_game(&ctx, &corpus("wrong-password.eml"), &mut run).unwrap();
    let second = ingest::ingest_game(&ctx, &corpus("wrong-password.eml"), &mut run).unwrap();
    run.flush().unwrap();
    let third = ingest::ingest_game(&ctx, &corpus("wrong-password.eml"), &mut run).unwrap();
    assert_eq!(third.verdict, Verdict::Duplicate);
    assert!(matches!(first.verdict, Verdict::Refused(Refusal::WrongPassword { .. })));
    assert_eq!(second.verdict, Verdict::Duplicate);
    assert!(second.replies.is_empty());
    assert_eq!(empereur::mail::outbox::queued(&GameDir::new(&game)).unwrap().len(), 1);
}

#[test]
fn orders_are_read_from_the_right_part_in_any_encoding() {
    let text = |f: &str| parse::parse(&corpus(f)).text.unwrap();
    let (t, s) = text("quoted-printable.eml");
    assert_eq!(s, TextSource::Plain);
    assert!(t.contains("l'Empereur décide: la Grande Armée marche = vite"), "{t}");
    let (t, _) = text("latin1.eml");
    assert!(t.starts_with("Mon Général,"), "{t}");
    assert_eq!(
        parse::parse(&corpus("latin1.eml")).subject.as_deref(),
        Some("ordres du Général")
    );
    let (t, _) = text("base64.eml");
    assert!(t.contains("COOPERATE WITH russia"));
    let (t, s) = text("html-only.eml");
    assert_eq!(s, TextSource::Html);
    assert!(t.contains("PASSWORD aspern"), "{t}");
    assert!(!t.contains('<'), "{t}");
    let (t, s) = text("multipart-alternative.eml");
    assert_eq!(s, TextSource::Plain);
    assert!(t.contains("PASSWORD austerlitz"));
    let (t, s) = text("attachment.eml");
    assert_eq!(s, TextSource::Attachment("orders.txt".into()));
    assert!(t.contains("POWER austria"));
    assert!(parse::parse(&corpus("no-text.eml")).text.is_none());
}

#[test]
fn a_host_routes_by_game_line_and_by_address() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = new_game(tmp.path(), "demo");
    // The demo game has its own address.
    let g = GameDir::new(&demo);
    let mut cfg = g.load_config().unwrap();
    cfg.mail.address = Some("demo@games.example.org".into());
    std::fs::write(g.config(), cfg.to_toml()).unwrap();
    let host = ingest::Host::load(tmp.path()).unwrap();
    let mut run = Run::new(now());
    // GAME line naming a game hosted nowhere.
    let h = ingest::ingest_host(&host, &corpus("other-game.eml"), &mut run).unwrap();
    assert_eq!(
        h.verdict,
        Verdict::Refused(Refusal::UnknownGame {
            named: "waterloo".into()
        })
    );
    let raw = std::fs::read(GameDir::new(tmp.path()).outbox().join(format!("{}.eml", h.replies[0]))).unwrap();
    let body = String::from_utf8_lossy(&raw);
    assert!(flat(&body).contains("no game 'waterloo' is hosted here"), "{body}");
    // A player is told why, and no list of the hosted games is given.
    assert!(!body.contains("hosted here:"), "{body}");
    // No GAME line, sent to the game's address: routed by recipient.
    let msg = b"From: france@demo.example.org\r\nTo: Demo <demo@games.example.org>\r\nMessage-ID: <r1@x>\r\nSubject: o\r\n\r\nPOWER france\r\nPASSWORD austerlitz\r\nNO ORDERS\r\n";
    let h = ingest::ingest_host(&host, msg, &mut run).unwrap();
    assert_eq!(h.game.as_deref(), Some("demo"));
    assert_eq!(authenticated(&h.verdict).map(|a| a.0), Some(PowerId::France));
    run.flush().unwrap();
    // Archived in the host's inbox and in the game's.
    let hash = empereur::mail::sha256_hex(msg);
    assert!(
        GameDir::new(tmp.path())
            .inbox()
            .join("cur")
            .join(format!("{hash}:2,S"))
            .exists()
    );
    let gi = GameDir::new(&demo).inbox();
    assert!(gi.join("cur").join(format!("{hash}:2,S")).exists() || gi.join("new").join(&hash).exists());
    // No GAME line, sent to an unknown address.
    let msg = b"From: a@b.example.org\r\nTo: nobody@games.example.org\r\n\r\nPOWER france\r\n";
    let h = ingest::ingest_host(&host, msg, &mut run).unwrap();
    assert_eq!(h.verdict, Verdict::Refused(Refusal::NoGame));
}
