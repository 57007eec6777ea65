//! Mail that must not stop, flood or fool a game: poison senders, pipe
//! delivery, races, loops, reflection, echo limits, replays, forged
//! seconds, routing across games, password guessing, empty mails. Each
//! message is generated here, so each test says exactly what it sends.
#![allow(clippy::disallowed_methods)] // tests read and write files

use assert_cmd::Command;
use chrono::{DateTime, Duration, Utc};
use empereur::ids::PowerId;
use empereur::mail::auth::Refusal;
use empereur::mail::ingest::{self, GameCtx, Run, Verdict};
use empereur::ops::new::{NewOptions, create_from};
use empereur::store::{GameDir, players, submission};
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

fn new_game(parent: &Path, id: &str) -> PathBuf {
    new_game_with(parent, id, PLAYERS)
}

fn new_game_with(parent: &Path, id: &str, players: &str) -> PathBuf {
    let dir = parent.join(id);
    let players = players::parse("players.toml", players).unwrap();
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

/// The demo game in a fresh temporary directory, with its ingest context
/// and a run at [`now`]: the set-up most tests here share.
fn demo() -> (tempfile::TempDir, PathBuf, GameCtx, Run) {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let ctx = GameCtx::load(&game).unwrap();
    (tmp, game, ctx, Run::new(now()))
}

/// An order mail from France's player, with France's password.
fn from_france(id: &str, lines: &str) -> Vec<u8> {
    mail(
        "france@demo.example.org",
        id,
        "",
        &orders("france", "austerlitz", lines),
    )
}

/// A plain-text message.
fn mail(from: &str, id: &str, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: gm@demo.example.org\r\nSubject: orders\r\nMessage-ID: <{id}@x.example.org>\r\nDate: Mon, 30 Nov 2026 09:15:00 +0000\r\n{headers}Content-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    )
    .replace("\r\n", "\n")
    .replace('\n', "\r\n")
    .into_bytes()
}

fn orders(power: &str, password: &str, lines: &str) -> String {
    format!("GAME demo\nPOWER {power}\nPASSWORD {password}\nPHASE 1805-fall-turn-start\n{lines}\nEND\n")
}

fn outbox_body(dir: &Path, id: &str) -> String {
    let raw = std::fs::read(GameDir::new(dir).outbox().join(format!("{id}.eml"))).unwrap();
    let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
    m.body_text(0).unwrap().into_owned()
}

fn outbox_raw(dir: &Path, id: &str) -> String {
    String::from_utf8(std::fs::read(GameDir::new(dir).outbox().join(format!("{id}.eml"))).unwrap()).unwrap()
}

fn queued(dir: &Path) -> usize {
    empereur::mail::outbox::queued(&GameDir::new(dir)).unwrap().len()
}

fn bin() -> Command {
    let mut c = Command::cargo_bin("empereur").unwrap();
    c.env("EMPEREUR_NOW", "2026-11-30T10:00:00Z");
    c
}

const POISON: [&str; 6] = [
    "<alice@>",
    "a@b@c.org",
    "a..b@x.org",
    "\"a b\"@x.org",
    "a@[1.2.3.4]",
    "Bob <bob>",
];

// Item 1: a sender no server can answer never stops processing.
#[test]
fn poison_senders_are_quarantined_and_the_rest_is_processed() {
    let (_tmp, game, ctx, mut run) = demo();
    for (i, from) in POISON.iter().enumerate() {
        let raw = mail(
            from,
            &format!("p{i}"),
            "",
            &orders("france", "austerlitz", "MOVE FIRST"),
        );
        let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
        match &h.verdict {
            Verdict::Quarantined { reason } => assert!(reason.contains("cannot be mailed"), "{from}: {reason}"),
            other => panic!("{from}: {other:?}"),
        }
        let hash = empereur::mail::sha256_hex(&raw);
        let q = game.join("mail/quarantine");
        assert_eq!(std::fs::read(q.join(format!("{hash}.eml"))).unwrap(), raw);
        assert!(
            std::fs::read_to_string(q.join(format!("{hash}.reason")))
                .unwrap()
                .contains("cannot be mailed")
        );
        // The moderator is told, once.
        assert_eq!(h.replies.len(), 1, "{from}");
        assert!(outbox_raw(&game, &h.replies[0]).contains("To: \"Demo Moderator\" <gm@demo.example.org>"));
        let again = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
        assert_eq!(again.verdict, Verdict::Duplicate, "{from}");
    }
    run.flush().unwrap();
    // Nothing is left for the next run to trip over.
    assert!(
        std::fs::read_dir(GameDir::new(&game).inbox().join("new"))
            .unwrap()
            .next()
            .is_none()
    );
    let journal = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    assert_eq!(journal.matches("quarantined").count(), POISON.len(), "{journal}");

    // Through the command line, in one run with a good message after them:
    // no exit 2, and the good one is stored.
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let mut files = Vec::new();
    for (i, from) in POISON.iter().enumerate() {
        let p = tmp.path().join(format!("{i}.eml"));
        std::fs::write(&p, mail(from, &format!("c{i}"), "", "hello")).unwrap();
        files.push(p);
    }
    let good = tmp.path().join("good.eml");
    std::fs::write(&good, from_france("good", "MOVE FIRST")).unwrap();
    files.push(good);
    let out = bin()
        .args(["ingest", "--game"])
        .arg(&game)
        .args(&files)
        .assert()
        .code(1);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(stdout.contains("accepted for france"), "{stdout}");
    assert!(
        submission::load_all(&GameDir::new(&game))
            .unwrap()
            .contains_key(&PowerId::France)
    );
    // And `run` over a Maildir holding them exits 0.
    let md = tmp.path().join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(md.join(sub)).unwrap();
    }
    std::fs::write(md.join("new/1.poison"), mail("<alice@>", "m1", "", "x")).unwrap();
    bin()
        .args(["run", "--game"])
        .arg(&game)
        .arg("--maildir")
        .arg(&md)
        .assert()
        .code(0);
    bin()
        .args(["run", "--game"])
        .arg(&game)
        .arg("--maildir")
        .arg(&md)
        .assert()
        .code(0);

    // A host of games: the same.
    let host = tempfile::tempdir().unwrap();
    new_game(host.path(), "demo");
    let p = host.path().join("x.eml");
    std::fs::write(&p, mail("a@b@c.org", "h1", "", "hello")).unwrap();
    bin()
        .args(["ingest", "--games"])
        .arg(host.path())
        .arg(&p)
        .assert()
        .code(1);
    bin()
        .args(["ingest", "--games"])
        .arg(host.path())
        .arg(&p)
        .assert()
        .code(0);
}

#[test]
fn new_refuses_an_address_that_cannot_be_mailed() {
    let tmp = tempfile::tempdir().unwrap();
    for bad in ["a..b@x.org", "\\\"a b\\\"@x.org", "a@[1.2.3.4]", "alice@"] {
        let players = tmp.path().join("players.toml");
        std::fs::write(&players, PLAYERS.replace("france@demo.example.org", bad)).unwrap();
        let dir = tmp.path().join("g");
        let out = bin()
            .args(["new"])
            .arg(&dir)
            .args(["--scenario", "1805", "--players"])
            .arg(&players)
            .assert()
            .code(1);
        let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(err.contains("email"), "{bad}: {err}");
        assert!(!dir.join("game.toml").exists());
    }
}

// Item 2: pipe delivery follows sysexits.
#[test]
fn a_piped_message_waits_for_the_lock_then_asks_the_server_to_retry() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let raw = from_france("pipe1", "MOVE FIRST");
    let lock = GameDir::new(&game).lock().unwrap();
    let t = std::time::Instant::now();
    bin()
        .env("EMPEREUR_LOCK_WAIT", "1")
        .args(["ingest", "--game"])
        .arg(&game)
        .arg("-")
        .write_stdin(raw.clone())
        .assert()
        .code(75);
    assert!(t.elapsed() >= std::time::Duration::from_secs(1), "it waited");
    // Archived before the lock was needed: nothing is lost.
    let hash = empereur::mail::sha256_hex(&raw);
    assert!(GameDir::new(&game).inbox().join("new").join(&hash).exists());
    drop(lock);
    // The server's retry is processed and answered: 0.
    bin()
        .args(["ingest", "--game"])
        .arg(&game)
        .arg("-")
        .write_stdin(raw)
        .assert()
        .code(0);
    assert!(
        GameDir::new(&game)
            .inbox()
            .join("cur")
            .join(format!("{hash}:2,S"))
            .exists()
    );
    // A game directory that is not there: the server keeps the message.
    bin()
        .args(["ingest", "--game"])
        .arg(tmp.path().join("nowhere/at/all"))
        .arg("-")
        .write_stdin(b"From: a@b.org\r\n\r\nx".to_vec())
        .assert()
        .code(75);
}

// Item 4: the state is read under the lock.
#[test]
fn a_message_waiting_for_the_lock_is_checked_against_the_state_it_finds() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let g = GameDir::new(&game);
    let lock = g.lock().unwrap();
    let raw = from_france("race1", "MOVE FIRST");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("empereur"))
        .env("EMPEREUR_LOCK_WAIT", "30")
        .env("EMPEREUR_NOW", "2026-11-30T10:00:00Z")
        .args(["ingest", "--game"])
        .arg(&game)
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.as_ref().unwrap();
        stdin.write_all(&raw).unwrap();
    }
    // While it waits, the phase moves on (as a resolution would).
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let mut state = g.load_state().unwrap();
    state.phase = "1805-fall-france".parse().unwrap();
    state.turn_order = vec![PowerId::France];
    g.save_state(&state).unwrap();
    empereur::store::phase::open(&g, &state, None).unwrap();
    drop(lock);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("refused: the PHASE line names 1805-fall-turn-start"),
        "{stdout}"
    );
    assert!(submission::load_all(&g).unwrap().is_empty());
}

// Item 9: never answer automatic mail; mark what we send.
#[test]
fn out_of_office_and_list_mail_get_no_reply() {
    let (_tmp, game, ctx, mut run) = demo();
    let from = "austria@demo.example.org";
    let body = "I am away until Monday.\nPOWER austria\nPASSWORD wrong\n";
    let cases: Vec<(&str, &str)> = vec![
        ("Auto-Submitted: auto-replied\n", "Automatic reply: orders"),
        ("Auto-Submitted: auto-generated\n", "orders"),
        ("Auto-Submitted: auto-notified; owner-email=\"x@y.org\"\n", "orders"),
        ("X-Autoreply: yes\n", "orders"),
        ("X-Autorespond: Out of office\n", "orders"),
        ("Precedence: bulk\n", "orders"),
        ("Precedence: junk\n", "orders"),
        ("Precedence: list\n", "orders"),
        ("Precedence: auto_reply\n", "orders"),
        ("List-Id: <players.lists.example.org>\n", "orders"),
        ("List-Unsubscribe: <mailto:leave@lists.example.org>\n", "orders"),
        ("Return-Path: <>\n", "orders"),
        ("", "Out of Office: orders"),
        ("", "Automatic reply: orders"),
        ("", "AutoReply: orders"),
        ("", "Réponse automatique : orders"),
        ("", "Abwesenheitsnotiz: orders"),
        ("X-Loop: gm@demo.example.org\n", "orders"),
        ("", "auto: away"),
        ("X-Autoreply: yes\nAuto-Submitted: auto-replied\n", "Re: orders"),
    ];
    assert_eq!(cases.len(), 20);
    for (i, (headers, subject)) in cases.iter().enumerate() {
        let raw = String::from_utf8(mail(from, &format!("ooo{i}"), headers, body))
            .unwrap()
            .replace("Subject: orders", &format!("Subject: {subject}"));
        let h = ingest::ingest_game(&ctx, raw.as_bytes(), &mut run).unwrap();
        assert_eq!(h.verdict, Verdict::Ignored, "{i}: {headers} {subject}");
        assert!(h.replies.is_empty(), "{i}");
    }
    // A delivery report, by content, from an ordinary-looking sender.
    let dsn = "From: relay@mx.example.org\r\nTo: gm@demo.example.org\r\nSubject: Undelivered\r\nMessage-ID: <dsn@x>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nGAME demo\r\nPOWER austria\r\nPASSWORD x\r\n--b\r\nContent-Type: message/delivery-status\r\n\r\nStatus: 5.1.1\r\n--b--\r\n";
    let h = ingest::ingest_game(&ctx, dsn.as_bytes(), &mut run).unwrap();
    assert_eq!(h.verdict, Verdict::Ignored);
    // Mail from the game's own address.
    let h = ingest::ingest_game(&ctx, &mail("gm@demo.example.org", "self", "", body), &mut run).unwrap();
    assert_eq!(h.verdict, Verdict::Ignored);
    assert_eq!(queued(&game), 0, "no reply at all");

    // What we send carries X-Loop and Auto-Submitted.
    let h = ingest::ingest_game(&ctx, &mail(from, "real", "", body), &mut run).unwrap();
    let raw = outbox_raw(&game, &h.replies[0]);
    assert!(raw.contains("X-Loop: gm@demo.example.org"), "{raw}");
    assert!(raw.contains("Auto-Submitted: auto-replied"), "{raw}");
    // ... so our own reply fed back in is not answered.
    let h = ingest::ingest_game(&ctx, raw.as_bytes(), &mut run).unwrap();
    assert_eq!(h.verdict, Verdict::Ignored);
}

#[test]
fn at_most_ten_replies_a_day_to_one_address() {
    let (_tmp, game, ctx, mut run) = demo();
    let mut replied = 0;
    for i in 0..15 {
        let raw = mail(
            "austria@demo.example.org",
            &format!("r{i}"),
            "",
            "POWER austria\nhello\n",
        );
        let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
        assert!(matches!(h.verdict, Verdict::Refused(_)));
        replied += h.replies.len();
    }
    assert_eq!(replied, 10);
    run.flush().unwrap();
    let journal = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    assert_eq!(journal.matches("replies to that address today already").count(), 5);
    // The next day, the count starts again (and survives the run).
    let ctx = GameCtx::load(&game).unwrap();
    let mut run = Run::new(now() + Duration::days(1));
    let h = ingest::ingest_game(
        &ctx,
        &mail("austria@demo.example.org", "next", "", "POWER austria\n"),
        &mut run,
    )
    .unwrap();
    assert_eq!(h.replies.len(), 1);
}

// Item 10: reflection.
#[test]
fn a_stranger_gets_one_fixed_reply_a_day_and_the_moderator_a_digest() {
    let (_tmp, game, ctx, mut run) = demo();
    let evil = "GAME demo\nPOWER \u{202e}france\nPASSWORD guess\nBuy cheap watches at http://spam.example\n";
    let mut replies = Vec::new();
    for i in 0..3 {
        let raw = String::from_utf8(mail("victim@else.example.net", &format!("s{i}"), "", evil))
            .unwrap()
            .replace("Subject: orders", "Subject: CLICK http://spam.example");
        let h = ingest::ingest_game(&ctx, raw.as_bytes(), &mut run).unwrap();
        assert!(matches!(h.verdict, Verdict::Refused(_)));
        replies.extend(h.replies);
    }
    // One fixed reply to the sender, and the first message forwarded to
    // the moderator as a join request (`mail::join`).
    assert_eq!(replies.len(), 2);
    assert!(outbox_raw(&game, &replies[1]).contains("To: \"Demo Moderator\" <gm@demo.example.org>"));
    let raw = outbox_raw(&game, &replies[0]);
    let body = outbox_body(&game, &replies[0]);
    assert_eq!(
        body.replace("\r\n", "\n").trim_end(),
        empereur::mail::join::JOIN_REPLY.trim_end()
    );
    for leak in ["spam", "watches", "demo", "france", "guess", "CLICK"] {
        assert!(!body.contains(leak), "{leak} in {body}");
    }
    assert!(!raw.contains("spam.example"), "{raw}");
    run.flush().unwrap();
    let digests = |game: &Path| -> Vec<String> {
        empereur::mail::outbox::queued(&GameDir::new(game))
            .unwrap()
            .into_iter()
            .map(|id| outbox_raw(game, &id))
            .filter(|m| m.contains("mail from non-players"))
            .collect()
    };
    // A run in the day's last minute sends none: the day is not over.
    let mut run = Run::new(now() + Duration::hours(13) + Duration::minutes(59));
    let ctx = GameCtx::load(&game).unwrap();
    ingest::ingest_pending(&ctx, &mut run).unwrap();
    run.flush().unwrap();
    assert_eq!(digests(&game).len(), 0, "a digest of a day not over yet");
    // The next day's run sends the moderator one digest of yesterday.
    let mut run = Run::new(now() + Duration::days(1));
    let ctx = GameCtx::load(&game).unwrap();
    ingest::ingest_pending(&ctx, &mut run).unwrap();
    run.flush().unwrap();
    let digests = digests(&game);
    assert_eq!(digests.len(), 1);
    assert_eq!(
        digests[0].matches("victim@else.example.net").count(),
        3,
        "{}",
        digests[0]
    );
}

// Item 11: echo limits.
#[test]
fn replies_escape_what_they_echo_and_quote_at_most_200_lines() {
    let (_tmp, game, ctx, mut run) = demo();
    let mut lines = String::from("MOVE FIRST\nFROBNICATE \u{202e}evil\u{1b}[31m\n");
    for i in 0..500 {
        lines.push_str(&format!("NONSENSE {i}\n"));
    }
    let h = ingest::ingest_game(
        &ctx,
        &mail(
            "france@demo.example.org",
            "e1",
            "",
            &orders("france", "austerlitz", &lines),
        ),
        &mut run,
    )
    .unwrap();
    assert!(matches!(h.verdict, Verdict::Accepted { .. }), "{:?}", h.verdict);
    // Accepted orders and their acknowledgement are written with the batch.
    run.flush().unwrap();
    let body = outbox_body(&game, &h.replies[0]);
    assert!(!body.contains('\u{202e}') && !body.contains('\u{1b}'), "{body}");
    assert!(body.contains("\\u{202e}"), "{body}");
    // Lines quoted from the original: "NONSENSE <n>" (a rejected row, or a
    // diagnostic's source line).
    let quoted = body
        .lines()
        .filter(|l| {
            l.split("NONSENSE ")
                .nth(1)
                .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        })
        .count();
    assert!(quoted <= 200, "{quoted} lines quoted");
    assert!(body.contains("not quoted"), "{body}");
    // ENTROPY over 200 characters is refused, with the reason.
    let long = format!("ENTROPY {}\nMOVE FIRST", "x".repeat(201));
    let h = ingest::ingest_game(
        &ctx,
        &mail(
            "france@demo.example.org",
            "e2",
            "",
            &orders("france", "austerlitz", &long),
        ),
        &mut run,
    )
    .unwrap();
    assert_eq!(
        h.verdict,
        Verdict::Refused(Refusal::EntropyTooLong { chars: 201, limit: 200 })
    );
    assert!(outbox_body(&game, &h.replies[0]).contains("at most 200"));
}

// Item 7: replays and reply markers.

/// France's orders without a PHASE line, as an old mail sent again.
const NO_PHASE: &str = "GAME demo\nPOWER france\nPASSWORD austerlitz\nMOVE FIRST\nEND\n";

/// The demo game, its first phase opened at noon on 30 November; the
/// game, its context and that time.
fn demo_opened_at_noon(parent: &Path) -> (PathBuf, GameCtx, DateTime<Utc>) {
    let game = new_game(parent, "demo");
    let opened = DateTime::parse_from_rfc3339("2026-11-30T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    empereur::ops::run::run_game(&game, &[], opened).unwrap();
    let ctx = GameCtx::load(&game).unwrap();
    (game, ctx, opened)
}
#[test]
fn an_old_mail_sent_again_is_stale_unless_it_answers_this_phase() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, ctx, opened) = demo_opened_at_noon(tmp.path());
    let mut run = Run::new(opened + Duration::hours(1));
    let no_phase = NO_PHASE;
    // Dated 09:15, before the phase opened at 12:00: stale.
    let h = ingest::ingest_game(&ctx, &mail("france@demo.example.org", "old", "", no_phase), &mut run).unwrap();
    assert!(
        matches!(h.verdict, Verdict::Refused(Refusal::StaleMail { .. })),
        "{:?}",
        h.verdict
    );
    assert!(submission::load_all(&GameDir::new(&game)).unwrap().is_empty());
    // Answering another power's opening, or a mail that is not the game's,
    // does not vouch for it: still stale.
    let austrias = empereur::mail::outbox::stable_id(&["phase-opening", "demo", "1805-fall-turn-start", "austria"]);
    for reference in [
        format!("{austrias}@demo.example.org"),
        "elsewhere-1@mail.example.org".into(),
    ] {
        let headers = format!("In-Reply-To: <{reference}>\nReferences: <{reference}>\n");
        let h = ingest::ingest_game(
            &ctx,
            &mail("france@demo.example.org", "old-reply", &headers, no_phase),
            &mut run,
        )
        .unwrap();
        assert!(
            matches!(h.verdict, Verdict::Refused(Refusal::StaleMail { .. })),
            "answering <{reference}>: {:?}",
            h.verdict
        );
    }
    assert!(submission::load_all(&GameDir::new(&game)).unwrap().is_empty());
    // The same answering this phase's opening mail: taken.
    let opening = empereur::mail::outbox::stable_id(&["phase-opening", "demo", "1805-fall-turn-start", "france"]);
    let headers = format!("In-Reply-To: <{opening}@demo.example.org>\n");
    let h = ingest::ingest_game(
        &ctx,
        &mail("france@demo.example.org", "answer", &headers, no_phase),
        &mut run,
    )
    .unwrap();
    assert!(matches!(h.verdict, Verdict::Accepted { .. }), "{:?}", h.verdict);
    // Dated after the opening: taken; a PHASE line: taken whatever the date.
    let new = String::from_utf8(mail("france@demo.example.org", "new", "", no_phase))
        .unwrap()
        .replace("09:15:00", "13:15:00");
    let h = ingest::ingest_game(&ctx, new.as_bytes(), &mut run).unwrap();
    assert!(matches!(h.verdict, Verdict::Accepted { .. }), "{:?}", h.verdict);
    // Below a reply marker, a quoted PASSWORD and orders are ignored.
    let quoted = orders("france", "austerlitz", "MOVE FIRST")
        + "\n-----Original Message-----\nPOWER austria\nPASSWORD aspern\nNONSENSE\n";
    let h = ingest::ingest_game(&ctx, &mail("france@demo.example.org", "q", "", &quoted), &mut run).unwrap();
    match h.verdict {
        Verdict::Accepted { rejected, .. } => assert_eq!(rejected, 0),
        other => panic!("{other:?}"),
    }
}

/// An old-dated mail without a PHASE line that answers this phase's
/// reminder to its own power (a phone whose clock is wrong) is taken; one
/// answering another power's reminder is still stale.
#[test]
fn an_old_dated_answer_to_this_phases_reminder_is_taken() {
    let tmp = tempfile::tempdir().unwrap();
    let (_game, ctx, opened) = demo_opened_at_noon(tmp.path());
    // Two days on: the reminders of the 30th, the 1st and the 2nd.
    let mut run = Run::new(opened + Duration::days(2));
    let no_phase = NO_PHASE;
    let reminder = |power: &str, day: &str| {
        empereur::mail::outbox::stable_id(&["reminder", "demo", "1805-fall-turn-start", power, day])
    };
    let answering = |id: String| format!("In-Reply-To: <{id}@demo.example.org>\nReferences: <{id}@demo.example.org>\n");
    let h = ingest::ingest_game(
        &ctx,
        &mail(
            "france@demo.example.org",
            "r1",
            &answering(reminder("austria", "2026-12-01")),
            no_phase,
        ),
        &mut run,
    )
    .unwrap();
    assert!(
        matches!(h.verdict, Verdict::Refused(Refusal::StaleMail { .. })),
        "{:?}",
        h.verdict
    );
    let h = ingest::ingest_game(
        &ctx,
        &mail(
            "france@demo.example.org",
            "r2",
            &answering(reminder("france", "2026-12-01")),
            no_phase,
        ),
        &mut run,
    )
    .unwrap();
    assert!(matches!(h.verdict, Verdict::Accepted { .. }), "{:?}", h.verdict);
}

// Item 5: a forged SECOND line cannot vouch for itself.
#[test]
fn a_second_named_by_a_forged_sender_is_copied_to_the_player_of_record() {
    let (_tmp, game, ctx, mut run) = demo();
    let body = "GAME demo\nPOWER france\nPASSWORD austerlitz\nSECOND mallory@evil.example.net\nABSENT 2026-12-20 TO 2026-12-27\n";
    let h = ingest::ingest_game(&ctx, &mail("mallory@evil.example.net", "f2", "", body), &mut run).unwrap();
    assert_eq!(h.verdict, Verdict::Noted { power: PowerId::France });
    let raw = outbox_raw(&game, &h.replies[0]);
    let m = mail_parser::MessageParser::default().parse(raw.as_bytes()).unwrap();
    // The forger's reply shows no other address; the player of record
    // gets a copy of their own (issue 33 point 7).
    assert!(m.cc().is_none(), "{raw}");
    let text = m.body_text(0).unwrap().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains("not from the address on record"), "{text}");
    let copy = outbox_raw(
        &game,
        &empereur::mail::outbox::stable_id(&[&h.replies[0], "france@demo.example.org"]),
    );
    let c = mail_parser::MessageParser::default().parse(copy.as_bytes()).unwrap();
    let to: Vec<_> = c.to().unwrap().iter().filter_map(|a| a.address()).collect();
    assert_eq!(to, vec!["france@demo.example.org"]);
}

// Item 6: routing across games.
#[test]
fn a_host_routes_by_sender_and_refuses_an_ambiguous_message() {
    let host = tempfile::tempdir().unwrap();
    new_game(host.path(), "demo");
    let other = PLAYERS.replace("france@demo.example.org", "napoleon@else.example.org");
    new_game_with(host.path(), "elba", &other);
    let h = |raw: &[u8]| {
        let host = ingest::Host::load(host.path()).unwrap();
        let mut run = Run::new(now());
        let h = ingest::ingest_host(&host, raw, &mut run).unwrap();
        run.flush().unwrap();
        h
    };
    // "Game on!" in a greeting names no game; the sender plays in elba only.
    let greet = "Game on!\nPOWER france\nPASSWORD austerlitz\nNO ORDERS\n";
    let r = h(&mail("napoleon@else.example.org", "g1", "", greet));
    assert_eq!(r.game.as_deref(), Some("elba"), "{:?}", r.verdict);
    assert!(matches!(r.verdict, Verdict::Accepted { .. }), "{:?}", r.verdict);
    // Austria plays in both: no GAME line is ambiguous; stored nowhere.
    let amb = "POWER austria\nPASSWORD aspern\nNO ORDERS\n";
    let r = h(&mail("austria@demo.example.org", "g2", "", amb));
    assert_eq!(r.verdict, Verdict::Refused(Refusal::AmbiguousGame));
    for g in ["demo", "elba"] {
        let subs = submission::load_all(&GameDir::new(host.path().join(g))).unwrap();
        assert!(!subs.contains_key(&PowerId::Austria), "{g}");
    }
    assert_eq!(r.replies.len(), 1);
}

// Item 8, and issue 33 point 5: password guessing locks the guesser's
// address, never the power; its player and the moderator are told.
#[test]
fn guessing_passwords_locks_the_guessing_address_and_tells_the_player_and_moderator_once() {
    let (_tmp, game, ctx, mut run) = demo();
    let mut told = Vec::new();
    for i in 0..8 {
        let raw = mail(
            "guesser@evil.example.net",
            &format!("g{i}"),
            "",
            &orders("france", &format!("guess{i}"), "MOVE FIRST"),
        );
        let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
        // Exactly five are checked: the fifth locks, the sixth is refused unread.
        let want = if i < 5 { "wrong-password" } else { "locked" };
        assert_eq!(h.verdict.code(), want, "{i}");
        told.extend(
            h.replies
                .into_iter()
                .filter(|id| outbox_raw(&game, id).contains("wrong passwords for France")),
        );
    }
    assert_eq!(run.cache.verifications, 5);
    // One notice to the player of record, one to the moderator.
    assert_eq!(told.len(), 2, "{told:?}");
    let to_line = |m: &str| m.lines().find(|l| l.starts_with("To: ")).unwrap_or("").to_string();
    let to_player = told
        .iter()
        .map(|id| outbox_raw(&game, id))
        .find(|m| to_line(m).contains("<france@demo.example.org>"))
        .expect("the player of record is told");
    assert!(to_player.contains("guesser@evil.example.net"), "{to_player}");
    let to_gm = told
        .iter()
        .map(|id| outbox_raw(&game, id))
        .find(|m| to_line(m).contains("<gm@demo.example.org>"))
        .expect("the moderator is told");
    assert!(to_gm.contains("guesser@evil.example.net"), "{to_gm}");
    // The lock is the guesser's: France's player is taken during it.
    let right = from_france("ok1", "MOVE FIRST");
    assert_eq!(
        ingest::ingest_game(&ctx, &right, &mut run).unwrap().verdict.code(),
        "accepted"
    );
    // Another stranger is not locked by the first one's guesses.
    let other = mail(
        "other@evil.example.net",
        "o1",
        "",
        &orders("france", "guess-again", "MOVE FIRST"),
    );
    assert_eq!(
        ingest::ingest_game(&ctx, &other, &mut run).unwrap().verdict.code(),
        "wrong-password"
    );
    run.flush().unwrap();
    // The guesser's lock ends after an hour; its next five lock it for two.
    let mut later = Run::new(now() + Duration::hours(1));
    let raw = mail(
        "guesser@evil.example.net",
        "g9",
        "",
        &orders("france", "guess9", "MOVE FIRST"),
    );
    assert_eq!(
        ingest::ingest_game(&ctx, &raw, &mut later).unwrap().verdict.code(),
        "wrong-password"
    );
}

// Issue 33 point 5: fifteen forged mails under the player's own address
// never lock the power out of its deadline.
#[test]
fn forged_guesses_under_the_player_s_own_address_never_lock_the_player() {
    let (_tmp, game, ctx, mut run) = demo();
    let mut notices = 0;
    for i in 0..15 {
        let raw = mail(
            "france@demo.example.org",
            &format!("f{i}"),
            "",
            &orders("france", &format!("guess{i}"), "MOVE FIRST"),
        );
        let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
        assert_eq!(h.verdict.code(), "wrong-password", "{i}");
        notices += h
            .replies
            .iter()
            .filter(|id| outbox_raw(&game, id).contains("wrong passwords for France"))
            .count();
    }
    // Told once that day (player and moderator), the rest in the digest.
    assert_eq!(notices, 2);
    let h = ingest::ingest_game(&ctx, &from_france("real", "MOVE FIRST"), &mut run).unwrap();
    assert_eq!(h.verdict.code(), "accepted");
    // Ten junk replies did not use up the receipt of the real orders.
    run.flush().unwrap();
    assert_eq!(h.replies.len(), 1, "{:?}", h.replies);
    let body = outbox_body(&game, &h.replies[0]);
    assert!(body.contains("were received and stored"), "{body}");
    assert!(body.contains("Receipt"), "{body}");
}

// Issue 33 point 5: a SECOND address belongs to the player who set it.
#[test]
fn a_second_address_does_not_survive_replace_player() {
    let (tmp, game, ctx, mut run) = demo();
    let set = from_france("s1", "SECOND deputy@demo.example.org");
    assert_eq!(
        ingest::ingest_game(&ctx, &set, &mut run).unwrap().verdict.code(),
        "noted"
    );
    run.flush().unwrap();
    drop(run);
    let entry = tmp.path().join("new-france.toml");
    std::fs::write(
        &entry,
        "[[player]]\npower = \"france\"\nname = \"Marie\"\nemail = \"marie@demo.example.org\"\npassword = \"wagram\"\n",
    )
    .unwrap();
    empereur::ops::workflow::replace_player(&empereur::ops::workflow::ReplacePlayerArgs {
        game: game.clone(),
        power: "france".into(),
        players: entry,
    })
    .unwrap();
    let ctx = GameCtx::load(&game).unwrap();
    let mut run = Run::new(now());
    let raw = mail(
        "deputy@demo.example.org",
        "d1",
        "",
        &orders("france", "wagram", "MOVE FIRST"),
    );
    let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
    run.flush().unwrap();
    assert_eq!(h.verdict.code(), "accepted");
    // Taken for the right password, but as from an address not on record:
    // the new player gets the copy and the warning.
    // (A copy of its own: the sender is not shown the player's address.)
    let copy = empereur::mail::outbox::stable_id(&[&h.replies[0], "marie@demo.example.org"]);
    let ack = outbox_raw(&game, &copy);
    assert!(ack.contains("To: marie@demo.example.org"), "{ack}");
    let body = outbox_body(&game, &h.replies[0])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(body.contains("not from the address on record"), "{body}");
}

// A mail with no accepted order is no submission.
#[test]
fn a_mail_with_no_accepted_order_leaves_the_stored_orders_and_no_orders_is_a_submission() {
    let (_tmp, game, ctx, mut run) = demo();
    let g = GameDir::new(&game);
    let first = from_france("n1", "MOVE FIRST");
    ingest::ingest_game(&ctx, &first, &mut run).unwrap();
    // Accepted orders are written with the batch.
    run.flush().unwrap();
    let before = std::fs::read(submission::path(&g, PowerId::France)).unwrap();
    let bad = from_france("n2", "MAYBE\nFROBNICATE");
    let h = ingest::ingest_game(&ctx, &bad, &mut run).unwrap();
    assert_eq!(
        h.verdict,
        Verdict::Empty {
            power: PowerId::France,
            rejected: 2
        }
    );
    assert_eq!(std::fs::read(submission::path(&g, PowerId::France)).unwrap(), before);
    let body = outbox_body(&game, &h.replies[0]);
    assert!(body.contains("NOTHING was stored"), "{body}");
    // Austria with nothing accepted is not in.
    let h = ingest::ingest_game(
        &ctx,
        &mail(
            "austria@demo.example.org",
            "n3",
            "",
            &orders("austria", "aspern", "MAYBE"),
        ),
        &mut run,
    )
    .unwrap();
    assert_eq!(h.verdict.code(), "empty");
    assert!(!submission::load_all(&g).unwrap().contains_key(&PowerId::Austria));
    // NO ORDERS is a submission: Austria is in, with no orders.
    let h = ingest::ingest_game(
        &ctx,
        &mail(
            "austria@demo.example.org",
            "n4",
            "",
            &orders("austria", "aspern", "NO ORDERS"),
        ),
        &mut run,
    )
    .unwrap();
    assert!(
        matches!(h.verdict, Verdict::Accepted { accepted: 0, .. }),
        "{:?}",
        h.verdict
    );
    run.flush().unwrap();
    assert!(submission::load_all(&g).unwrap()[&PowerId::Austria].orders.is_empty());
}

// HTML keeps its lines; no reply quotes a password.
#[test]
fn html_only_orders_keep_their_lines_and_no_reply_quotes_a_password() {
    let (_tmp, game, ctx, mut run) = demo();
    let html = "From: austria@demo.example.org\r\nTo: gm@demo.example.org\r\nSubject: o\r\nMessage-ID: <h1@x>\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body><div>GAME demo</div><div>POWER austria</div><div>PASSWORD aspern</div><div>FROBNICATE</div><div>END</div></body></html>\r\n";
    let h = ingest::ingest_game(&ctx, html.as_bytes(), &mut run).unwrap();
    assert_eq!(h.verdict.code(), "empty", "{:?}", h.verdict);
    let body = outbox_body(&game, &h.replies[0]);
    assert!(body.contains("FROBNICATE"), "{body}");
    assert!(!body.contains("aspern"), "{body}");
    // A password glued to another line is not echoed in a refusal either.
    let glued = mail("austria@demo.example.org", "h2", "", "POWER austria PASSWORD aspern\n");
    let h = ingest::ingest_game(&ctx, &glued, &mut run).unwrap();
    assert_eq!(h.verdict.code(), "unknown-power");
    let body = outbox_body(&game, &h.replies[0]);
    assert!(!body.contains("aspern"), "{body}");
}

// Item 17: ingest honours EMPEREUR_NOW.
#[test]
fn ingest_takes_its_time_from_empereur_now() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let p = tmp.path().join("m.eml");
    std::fs::write(&p, mail("austria@demo.example.org", "t1", "", "POWER austria\n")).unwrap();
    bin()
        .env("EMPEREUR_NOW", "2031-05-06T07:08:09Z")
        .args(["ingest", "--game"])
        .arg(&game)
        .arg(&p)
        .assert()
        .code(1);
    let journal = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    assert!(
        journal.lines().all(|l| l.starts_with("2031-05-06T07:08:09")),
        "{journal}"
    );
}

// Item 4: resolve never carries out orders stored for another phase.
#[test]
fn resolve_refuses_a_submission_of_another_phase() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let g = GameDir::new(&game);
    let sub = submission::Submission {
        power: PowerId::France,
        phase: "1805-fall-france".parse().unwrap(),
        by: "mail:france@demo.example.org".into(),
        received: "2026-11-30T10:00:00Z".into(),
        entropy: None,
        passed: false,
        orders: vec![],
    };
    submission::save(&g, &sub).unwrap();
    let out = bin().args(["resolve", "--game"]).arg(&game).assert().code(1);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        stdout.contains("holds orders for phase 1805-fall-france, but the open phase is 1805-fall-turn-start"),
        "{stdout}"
    );
    // Only the genesis entry of the new game (docs/dice.md 1a).
    assert!(
        empereur::store::history::list(&g).unwrap().is_empty(),
        "nothing resolved"
    );
}

// Item 13: a game directory is private, whatever the user's umask, and
// verify warns about anything looser.
#[cfg(unix)]
#[test]
fn a_game_directory_is_private_and_verify_warns_about_loose_modes() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let players = tmp.path().join("players.toml");
    std::fs::write(&players, PLAYERS).unwrap();
    let game = tmp.path().join("g");
    // The test runner's umask is usually 022: the program sets its own.
    bin()
        .args(["new", "--house-seating"])
        .arg(&game)
        .args(["--scenario", "1805", "--players"])
        .arg(&players)
        .assert()
        .code(0);
    let p = tmp.path().join("m.eml");
    std::fs::write(&p, from_france("perm", "MOVE FIRST")).unwrap();
    // (Refused: this game is called "g"; it is archived and journalled.)
    bin().args(["ingest", "--game"]).arg(&game).arg(&p).assert().code(1);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&game), 0o700);
    assert!(
        empereur::store::loose_modes(&game).is_empty(),
        "{:?}",
        empereur::store::loose_modes(&game)
    );
    let journal = GameDir::new(&game).journal();
    assert_eq!(mode(&journal), 0o600);
    std::fs::set_permissions(&journal, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = bin().args(["verify", "--game"]).arg(&game).assert();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(
        stdout.contains("warning: ") && stdout.contains("journal.log is mode 0644"),
        "{stdout}"
    );
}

// Item 3: Austria need not order at a Turn Start; its mails every 25
// minutes do not hold the phase open (only France's restart the delay).
#[test]
fn a_power_that_need_not_order_cannot_stall_the_phase() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let at = |m: i64| now() + Duration::minutes(m);
    let run = |m: i64, raw: Vec<Vec<u8>>| empereur::ops::run::run_game(&game, &raw, at(m)).unwrap();
    assert!(run(0, vec![]).resolved.is_empty());
    let france = from_france("s0", "MOVE FIRST");
    assert!(run(1, vec![france]).resolved.is_empty());
    let austria = |i: i64| {
        mail(
            "austria@demo.example.org",
            &format!("s{i}"),
            "",
            &orders("austria", "aspern", "NO ORDERS"),
        )
    };
    let r = run(26, vec![austria(1)]);
    assert!(r.resolved.is_empty());
    assert!(
        submission::load_all(&GameDir::new(&game))
            .unwrap()
            .contains_key(&PowerId::Austria)
    );
    // France's delay ends at 10:31, whatever Austria sends meanwhile.
    let r = run(31, vec![austria(2)]);
    assert_eq!(r.resolved, vec!["0001-1805-fall-turn-start".to_string()], "{r:?}");
}

// A batch writes each power's submission once (the last accepted mail
// wins), and no acknowledgement is queued before the orders it announces
// are written: when they cannot be, the batch stays unprocessed and
// unanswered, and the next run takes it again.
#[test]
fn a_batch_stores_each_power_once_and_acknowledges_only_what_is_written() {
    let (_tmp, game, ctx, mut run) = demo();
    let g = GameDir::new(&game);
    let first = from_france("b1", "MOVE FIRST");
    let second = from_france("b2", "NO ORDERS");
    let h1 = ingest::ingest_game(&ctx, &first, &mut run).unwrap();
    let h2 = ingest::ingest_game(&ctx, &second, &mut run).unwrap();
    assert_eq!((h1.verdict.code(), h2.verdict.code()), ("accepted", "accepted"));
    let acks = [h1.replies[0].clone(), h2.replies[0].clone()];
    // Nothing announced before it is stored.
    assert!(!submission::path(&g, PowerId::France).exists());
    for id in &acks {
        assert!(!g.outbox().join(format!("{id}.eml")).exists(), "ack {id} queued early");
    }
    run.flush().unwrap();
    let stored = &submission::load_all(&g).unwrap()[&PowerId::France];
    assert!(stored.orders.is_empty(), "the later mail (NO ORDERS) wins: {stored:?}");
    let Verdict::Accepted { receipt, .. } = &h2.verdict else {
        unreachable!()
    };
    assert_eq!(
        submission::receipt(&g, PowerId::France).unwrap().as_deref(),
        Some(receipt.as_str()),
        "the receipt acknowledged is the file's"
    );
    let queued = empereur::mail::outbox::queued(&g).unwrap();
    assert_eq!(queued, acks.to_vec(), "both acknowledged, in the order decided");

    // Orders that cannot be written: nothing acknowledged, nothing marked
    // processed; once the disk is repaired the next run takes them.
    let orders_dir = g.phase_orders();
    std::fs::remove_dir_all(&orders_dir).unwrap();
    std::fs::write(&orders_dir, "not a directory").unwrap();
    let third = from_france("b3", "MOVE FIRST");
    let h3 = ingest::ingest_game(&ctx, &third, &mut run).unwrap();
    assert!(run.flush().is_err(), "the submission could not be written");
    drop(run);
    assert!(!g.outbox().join(format!("{}.eml", h3.replies[0])).exists());
    assert_eq!(
        empereur::mail::archive::pending(&g.inbox()).unwrap(),
        vec![h3.hash.clone()],
        "left unprocessed"
    );
    std::fs::remove_file(&orders_dir).unwrap();
    let mut run = Run::new(now());
    let again = ingest::ingest_pending(&ctx, &mut run).unwrap();
    run.flush().unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].verdict.code(), "accepted");
    assert_eq!(submission::load_all(&g).unwrap()[&PowerId::France].orders.len(), 1);
    assert!(g.outbox().join(format!("{}.eml", h3.replies[0])).exists());
    assert!(empereur::mail::archive::pending(&g.inbox()).unwrap().is_empty());
}

/// An acknowledgement's text down to its signature (the anchors after it
/// name this game's random commitment), receipts masked: what a golden
/// file can hold.
fn ack_text(dir: &Path, id: &str) -> String {
    let body = outbox_body(dir, id).replace("\r\n", "\n");
    let cut = body.find("\n--\n").map_or(body.as_str(), |i| &body[..i]);
    cut.lines()
        .map(|l| {
            let t = l.trim();
            if t.len() == 64 && t.chars().all(|c| c.is_ascii_hexdigit()) {
                "  [receipt]".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// Issue 33 point 10: sign-offs are notes, not errors.
#[test]
fn sign_offs_after_the_orders_are_ignored_with_a_note() {
    let (_tmp, game, ctx, mut run) = demo();
    let raw = from_france(
        "so1",
        "MOVE FIRST\n\nThanks, Bob\n\nSent from my iPhone\nGet Outlook for Android",
    );
    let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
    run.flush().unwrap();
    assert!(
        matches!(h.verdict, Verdict::Accepted { rejected: 0, .. }),
        "{:?}",
        h.verdict
    );
    insta::assert_snapshot!("ack-sign-offs", ack_text(&game, &h.replies[0]));
    // A name alone after the orders, and a greeting and a name in one.
    let raw = from_france("so2", "MOVE FIRST\nCheers,\nJean-Baptiste");
    let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
    assert!(
        matches!(h.verdict, Verdict::Accepted { rejected: 0, .. }),
        "{:?}",
        h.verdict
    );
    // Prose that is no sign-off is still an error, even at the end.
    let raw = from_france("so3", "MOVE FIRST\nthanks for nothing, move my corps");
    let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
    assert!(
        matches!(h.verdict, Verdict::Accepted { rejected: 1, .. }),
        "{:?}",
        h.verdict
    );
}

// Issue 33 point 10: a press-only mail from a phone says where the press went.
#[test]
fn a_press_only_mail_from_a_phone_says_press_sent_not_nothing_stored() {
    let (_tmp, game, ctx, mut run) = demo();
    let raw = from_france(
        "p1",
        "PRESS TO Austria\nShall we share Bavaria?\nENDPRESS\n\nSent from my iPhone",
    );
    let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
    run.flush().unwrap();
    assert_eq!(h.verdict.code(), "noted", "{:?}", h.verdict);
    // The press to Austria, the moderator's copy, then the acknowledgement.
    assert_eq!(h.replies.len(), 3);
    let ack = ack_text(&game, h.replies.last().unwrap());
    assert!(ack.contains("press sent to 1 power."), "{ack}");
    assert!(!ack.contains("NOTHING was stored"), "{ack}");
    insta::assert_snapshot!("ack-press-from-a-phone", ack);
}

// Issue 33 point 10: PASS is echoed.
#[test]
fn pass_is_echoed_in_the_acknowledgement() {
    let (_tmp, game, ctx, mut run) = demo();
    let h = ingest::ingest_game(&ctx, &from_france("pass1", "pass"), &mut run).unwrap();
    run.flush().unwrap();
    assert_eq!(h.verdict.code(), "accepted");
    let ack = ack_text(&game, &h.replies[0]);
    assert!(ack.contains("ok  PASS (nothing ordered, on purpose)"), "{ack}");
    insta::assert_snapshot!("ack-pass", ack);
}

// Issue 33 point 9: HTML-only mail, entities and block elements.
#[test]
fn html_only_mail_decodes_named_entities_and_keeps_block_lines() {
    let (_tmp, game, ctx, mut run) = demo();
    let html = "<html><body><div>GAME demo</div><div>POWER france</div><div>PASSWORD austerlitz</div><p>PHASE 1805-fall-turn-start</p><p>MOVE&nbsp;FIRST</p><p>Bient&ocirc;t &rarr; Vienne</p><p>Merci,&nbsp;Fran&ccedil;ois</p></body></html>";
    let raw = format!(
        "From: france@demo.example.org\r\nTo: gm@demo.example.org\r\nSubject: orders\r\nMessage-ID: <html1@x.example.org>\r\nDate: Mon, 30 Nov 2026 09:15:00 +0000\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n"
    );
    let h = ingest::ingest_game(&ctx, raw.as_bytes(), &mut run).unwrap();
    run.flush().unwrap();
    // The arrow line is no order (rejected, quoted back decoded); the
    // sign-off is a note.
    assert!(
        matches!(
            h.verdict,
            Verdict::Accepted {
                accepted: 1,
                rejected: 1,
                ..
            }
        ),
        "{:?}",
        h.verdict
    );
    let ack = ack_text(&game, &h.replies[0]);
    assert!(ack.contains("read from the HTML body (as text)"), "{ack}");
    assert!(ack.contains("NO  Bientôt → Vienne"), "{ack}");
    assert!(ack.contains("not an order (line 11): Merci, François"), "{ack}");
}

// Issue 33 point 11: RFC 3834 §5 header values carry comments and any case.
#[test]
fn automatic_mail_headers_are_read_with_comments_and_any_case() {
    let (_tmp, game, ctx, mut run) = demo();
    let person = mail(
        "france@demo.example.org",
        "a1",
        "Auto-Submitted: No (sent by a person)\r\n",
        &orders("france", "austerlitz", "MOVE FIRST"),
    );
    let h = ingest::ingest_game(&ctx, &person, &mut run).unwrap();
    assert_eq!(h.verdict.code(), "accepted");
    assert_eq!(h.replies.len(), 1);
    run.flush().unwrap();
    for (i, header) in [
        "Precedence: Bulk ; comment\r\n",
        "Auto-Submitted: Auto-Replied (vacation)\r\n",
        "PRECEDENCE: (list mail) junk\r\n",
    ]
    .iter()
    .enumerate()
    {
        let before = queued(&game);
        let raw = mail(
            "france@demo.example.org",
            &format!("b{i}"),
            header,
            &orders("france", "austerlitz", "MOVE FIRST"),
        );
        let h = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
        assert_eq!(h.verdict, Verdict::Ignored, "{header}");
        assert!(h.replies.is_empty(), "{header}");
        run.flush().unwrap();
        assert_eq!(queued(&game), before, "{header}");
    }
}

// Issue 33 point 12: hand edits are caught on load, naming key and file.
#[test]
fn a_broken_password_hash_or_a_wrong_phase_is_refused_on_load() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path(), "demo");
    let cfg = game.join("game.toml");
    let good = std::fs::read_to_string(&cfg).unwrap();
    let first = good.find("password_hash = ").unwrap();
    let end = first + good[first..].find('\n').unwrap();
    std::fs::write(
        &cfg,
        format!("{}password_hash = \"nonsense\"{}", &good[..first], &good[end..]),
    )
    .unwrap();
    let out = bin().args(["status", "--game"]).arg(&game).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("game.toml"), "{err}");
    assert!(err.contains("player[0].password_hash"), "{err}");
    assert!(err.contains("not a PHC hash string"), "{err}");
    std::fs::write(&cfg, &good).unwrap();
    bin().args(["status", "--game"]).arg(&game).assert().success();
    // A phase that parses but no game of this scenario reaches.
    let st = game.join("state.toml");
    let state = std::fs::read_to_string(&st).unwrap();
    let edited = state.replace("phase = \"1805-fall-turn-start\"", "phase = \"1790-fall-turn-start\"");
    assert_ne!(edited, state);
    std::fs::write(&st, edited).unwrap();
    let out = bin().args(["status", "--game"]).arg(&game).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("state.toml"), "{err}");
    assert!(
        err.contains("phase: 1790-fall-turn-start is outside the scenario's years"),
        "{err}"
    );
}

// Issue 33, first contact: `new` says what comes next, that the game's
// address is still the moderator's, and wipes the plaintext passwords
// when asked.
#[test]
fn new_prints_the_next_commands_and_wipes_the_plaintext_passwords_when_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let players = tmp.path().join("players.toml");
    std::fs::write(&players, PLAYERS).unwrap();
    let out = bin()
        .args([
            "new",
            "--scenario",
            "1805",
            "--id",
            "demo",
            "--house-seating",
            "--wipe-passwords",
            "--players",
        ])
        .arg(&players)
        .arg(tmp.path().join("g1"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("sets no [mail] address"), "{err}");
    assert!(err.contains("(gm@demo.example.org)"), "{err}");
    assert!(err.contains("2 plaintext password(s) removed"), "{err}");
    let next: Vec<&str> = err.lines().skip_while(|l| *l != "next:").skip(1).collect();
    assert_eq!(next.len(), 3, "{err}");
    for (line, cmd) in next
        .iter()
        .zip(["empereur status --game", "empereur mail --game", "empereur run --game"])
    {
        assert!(line.contains(cmd), "{line}");
    }
    let wiped = std::fs::read_to_string(&players).unwrap();
    assert!(!wiped.contains("austerlitz") && !wiped.contains("aspern"), "{wiped}");
    assert!(wiped.contains("email = \"france@demo.example.org\""), "{wiped}");
    // The hashes were taken before the wipe: France's password works.
    let ctx = GameCtx::load(&tmp.path().join("g1")).unwrap();
    let mut run = Run::new(now());
    let h = ingest::ingest_game(&ctx, &from_france("w1", "MOVE FIRST"), &mut run).unwrap();
    assert_eq!(h.verdict.code(), "accepted");
    // Without the flag the passwords stay, and `new` says so.
    let players2 = tmp.path().join("players2.toml");
    std::fs::write(&players2, PLAYERS).unwrap();
    let out = bin()
        .args(["new", "--scenario", "1805", "--house-seating", "--players"])
        .arg(&players2)
        .arg(tmp.path().join("g2"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("still holds the players' passwords in plain text"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&players2).unwrap(), PLAYERS);
}

// Issue 33, first contact: players have no `empereur check` and no
// repository; the opening says how to check orders by mail.
#[test]
fn the_opening_says_how_to_check_orders_by_mail_not_with_a_tool_players_lack() {
    let (_tmp, game, ctx, _run) = demo();
    let ids = empereur::mail::compose::phase_opening(
        &ctx.dir,
        &ctx.templates,
        &ctx.config,
        &ctx.scenario,
        &ctx.state,
        None,
        now(),
    )
    .unwrap();
    assert_eq!(ids.len(), 2);
    for id in ids {
        let body = outbox_body(&game, &id).split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            body.contains("How to check your orders: by mail, nothing to install."),
            "{body}"
        );
        assert!(
            body.contains("answered at once, each order marked accepted or rejected"),
            "{body}"
        );
        for absent in ["empereur check", "orders/README.md", "docs/dice.md"] {
            assert!(!body.contains(absent), "{absent}: {body}");
        }
    }
}

// Issue 33 point 12: a refused message is kept whole for
// `mail.refused_keep_days`, then only its headers and digest.
#[test]
fn a_refused_message_is_cut_to_headers_and_digest_after_its_retention() {
    let (_tmp, game, ctx, mut run) = demo();
    let limit = ctx.config.mail.max_bytes() as usize;
    let big = mail(
        "france@demo.example.org",
        "big1",
        "",
        &format!(
            "{}\n{}",
            orders("france", "austerlitz", "MOVE FIRST"),
            "x".repeat(limit)
        ),
    );
    let h = ingest::ingest_game(&ctx, &big, &mut run).unwrap();
    assert_eq!(h.verdict.code(), "too-large");
    run.flush().unwrap();
    drop(run);
    let archived = GameDir::new(&game).inbox().join("cur").join(format!("{}:2,S", h.hash));
    let keep = empereur::store::config::DEFAULT_REFUSED_KEEP_DAYS as i64;
    // One day short of the retention: kept byte for byte.
    let mut before = Run::new(now() + Duration::days(keep) - Duration::seconds(1));
    ingest::ingest_pending(&ctx, &mut before).unwrap();
    before.flush().unwrap();
    drop(before);
    assert_eq!(std::fs::read(&archived).unwrap(), big);
    // At the retention: headers and the digest of the whole.
    let mut at = Run::new(now() + Duration::days(keep));
    ingest::ingest_pending(&ctx, &mut at).unwrap();
    at.flush().unwrap();
    let cut = String::from_utf8(std::fs::read(&archived).unwrap()).unwrap();
    assert!(cut.contains("Message-ID: <big1@x.example.org>"), "{cut}");
    assert!(cut.contains(&format!("SHA-256 {}", h.hash)), "{cut}");
    assert!(cut.contains(&format!("was {} bytes", big.len())), "{cut}");
    assert!(!cut.contains("PASSWORD") && cut.len() < 2000, "{cut}");
    // The same message sent again is still known.
    assert_eq!(
        ingest::ingest_game(&ctx, &big, &mut at).unwrap().verdict,
        Verdict::Duplicate
    );
    // Accepted mail is never cut.
    let journal = std::fs::read_to_string(game.join("journal.log")).unwrap();
    assert_eq!(journal.matches("body removed").count(), 1, "{journal}");
}

// A mail too large to read whole is answered from its header alone, and
// the header ends at the first empty line whatever the line ends: a
// sender whose client writes bare LF, with From as the last header line,
// still gets the refusal at their whole address, naming their mail.
#[test]
fn a_too_large_mail_with_bare_lf_is_answered_at_the_whole_address_of_its_last_header() {
    let (_tmp, game, ctx, mut run) = demo();
    let limit = ctx.config.mail.max_bytes() as usize;
    let big = format!(
        "To: gm@demo.example.org\nSubject: orders\nMessage-ID: <big2@x.example.org>\nDate: Mon, 30 Nov 2026 09:15:00 +0000\nFrom: france@demo.example.org\n\n{}\n{}",
        orders("france", "austerlitz", "MOVE FIRST"),
        "x".repeat(limit)
    )
    .into_bytes();
    let h = ingest::ingest_game(&ctx, &big, &mut run).unwrap();
    assert_eq!(h.verdict.code(), "too-large");
    assert_eq!(h.from.as_deref(), Some("france@demo.example.org"));
    assert_eq!(h.message_id.as_deref(), Some("big2@x.example.org"));
    run.flush().unwrap();
    assert_eq!(h.replies.len(), 1, "{:?}", h.replies);
    let raw = outbox_raw(&game, &h.replies[0]);
    assert!(raw.contains("To: france@demo.example.org\r\n"), "{raw}");
    assert!(raw.contains("In-Reply-To: <big2@x.example.org>"), "{raw}");
}

// A quarantined message the moderator processes again before its cause
// is fixed is put aside again and stays held: a later retry, once the
// cause is fixed, still processes it (it is not taken for a message
// already done), and the moderator is not told a second time.
#[test]
fn a_quarantined_message_that_fails_again_stays_held_for_the_next_retry() {
    let (_tmp, game, ctx, mut run) = demo();
    let raw = mail(POISON[0], "q1", "", &orders("france", "austerlitz", "MOVE FIRST"));
    let hash = empereur::mail::sha256_hex(&raw);
    let first = ingest::ingest_game(&ctx, &raw, &mut run).unwrap();
    assert!(matches!(first.verdict, Verdict::Quarantined { .. }), "{first:?}");
    run.flush().unwrap();
    drop(run);
    for attempt in 1..=2 {
        // Each retry is a command of its own (`ingest` of the file).
        let mut retry = Run::new(now());
        retry.retry_quarantined = true;
        let again = ingest::ingest_game(&ctx, &raw, &mut retry).unwrap();
        retry.flush().unwrap();
        assert!(
            matches!(&again.verdict, Verdict::Quarantined { reason } if reason.contains("cannot be mailed")),
            "retry {attempt}: {again:?}"
        );
        assert!(
            again.replies.is_empty(),
            "retry {attempt}: the moderator was told already"
        );
        assert!(
            empereur::mail::quarantine::holds(&GameDir::new(&game), &hash),
            "retry {attempt}: still held"
        );
    }
    // Without a retry, the held message is a duplicate, as before.
    let mut plain = Run::new(now());
    assert_eq!(
        ingest::ingest_game(&ctx, &raw, &mut plain).unwrap().verdict,
        Verdict::Duplicate
    );
}
