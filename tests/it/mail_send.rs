//! Sending the outbox: the file transport, failures left queued with the
//! error, messages held after a crash (and `mail` exiting 1 for them),
//! plain SMTP refused off loopback; and the mails the game composes (phase
//! opening, turn reports).
#![allow(clippy::disallowed_methods)] // tests read and write files

use chrono::{DateTime, Utc};
use empereur::ids::PowerId;
use empereur::mail::compose::{self, Resolved};
use empereur::mail::outbox::{self, Addr, OutMail};
use empereur::mail::transport::{self, Delivery};
use empereur::report::Templates;
use empereur::rules::Kind;
use empereur::rules::Outcome;
use empereur::store::GameDir;
use empereur::store::config::{Security, SmtpConfig, Transport};
use std::path::Path;

fn now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-30T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn mail(id: &str) -> OutMail {
    OutMail {
        id: id.into(),
        from: Addr::new(Some("Empereur demo"), "gm@demo.example.org"),
        to: vec![Addr::new(Some("Ann"), "ann@example.org")],
        cc: vec![],
        subject: format!("test {id}"),
        in_reply_to: None,
        body: "hello\n".into(),
        attachments: vec![],
        date: now(),
    }
}

fn files_in(p: &Path) -> usize {
    std::fs::read_dir(p).map(|d| d.count()).unwrap_or(0)
}

#[test]
fn the_file_transport_delivers_once_and_moves_to_sent() {
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(tmp.path());
    outbox::queue(&g, &mail("a1")).unwrap();
    outbox::queue(&g, &mail("b2")).unwrap();
    let s = transport::sender(&g, &Transport::default()).unwrap();
    let d = transport::send_all(&g, Some(&s), &[], now()).unwrap();
    assert_eq!(d.len(), 2);
    assert!(d.iter().all(|x| matches!(x, Delivery::Sent { .. })), "{d:?}");
    assert_eq!(files_in(&g.outbox()), 0);
    assert!(g.sent().join("a1.eml").exists() && g.sent().join("a1.json").exists());
    assert_eq!(files_in(&tmp.path().join("mail/files")), 2);
    let env = outbox::read_envelope(&g.sent().join("a1.json")).unwrap();
    assert_eq!(env.sent.as_deref(), Some("2026-11-30T10:00:00+00:00"));
    assert_eq!(env.attempts, 1);
    // A second send finds nothing; queuing the same message again is a no-op.
    assert!(transport::send_all(&g, Some(&s), &[], now()).unwrap().is_empty());
    assert_eq!(outbox::queue(&g, &mail("a1")).unwrap(), outbox::Queued::AlreadySent);
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert!(journal.contains("send: a1 to ann@example.org accepted"), "{journal}");
}

/// A run that died after the server took a message and its `sent/`
/// envelope was written, but before the message left the outbox: the
/// next send records it as sent (it went out), neither holds it nor
/// sends it again, and queuing it again (the orders lock of a resolution
/// run again) queues nothing.
#[test]
fn a_message_the_server_took_before_a_crash_is_recorded_as_sent_not_sent_again() {
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(tmp.path());
    outbox::queue(&g, &mail("d4")).unwrap();
    let s = transport::sender(&g, &Transport::default()).unwrap();
    transport::send_all(&g, Some(&s), &[], now()).unwrap();
    assert_eq!(files_in(&tmp.path().join("mail/files")), 1);
    // Put the message back as the crash left it: in the outbox, marked
    // leaving, with its sent/ envelope already written.
    std::fs::rename(g.sent().join("d4.eml"), outbox::eml_path(&g, "d4")).unwrap();
    let mut env = outbox::read_envelope(&g.sent().join("d4.json")).unwrap();
    env.sending = true;
    env.batch = Some(format!("{}/1/1", empereur::store::checkpoint::boot_id()));
    outbox::write_envelope(&outbox::env_path(&g, "d4"), &env).unwrap();

    assert_eq!(outbox::queue(&g, &mail("d4")).unwrap(), outbox::Queued::AlreadySent);
    let d = transport::send_all(&g, Some(&s), &[], now()).unwrap();
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(files_in(&tmp.path().join("mail/files")), 1, "sent twice");
    assert_eq!(files_in(&g.outbox()), 0);
    assert!(g.sent().join("d4.eml").exists());
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert!(
        journal.contains("send: d4 was accepted by the server before a run stopped"),
        "{journal}"
    );
}

/// A message marked leaving by a send that did not finish may have gone
/// out: queuing it again keeps it as it is, mark included, so the next
/// send holds it for the moderator instead of sending it a second time.
#[test]
fn queuing_again_a_message_an_unfinished_send_marked_keeps_the_mark() {
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(tmp.path());
    outbox::queue(&g, &mail("e5")).unwrap();
    // Unmarked, a message queued again is replaced as before.
    assert_eq!(outbox::queue(&g, &mail("e5")).unwrap(), outbox::Queued::Replaced);
    let mut env = outbox::read_envelope(&outbox::env_path(&g, "e5")).unwrap();
    env.sending = true;
    env.batch = Some(format!("{}/1/1", empereur::store::checkpoint::boot_id()));
    outbox::write_envelope(&outbox::env_path(&g, "e5"), &env).unwrap();

    assert_eq!(outbox::queue(&g, &mail("e5")).unwrap(), outbox::Queued::InFlight);
    assert!(outbox::read_envelope(&outbox::env_path(&g, "e5")).unwrap().sending);
    let s = transport::sender(&g, &Transport::default()).unwrap();
    let d = transport::send_all(&g, Some(&s), &[], now()).unwrap();
    assert!(matches!(&d[..], [Delivery::Held { id }] if id == "e5"), "{d:?}");
    assert_eq!(files_in(&tmp.path().join("mail/files")), 0);
}

#[test]
fn a_failure_stays_queued_with_its_error_and_a_crash_holds_the_message() {
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(tmp.path());
    outbox::queue(&g, &mail("c3")).unwrap();
    // Nothing listens on this loopback port.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cfg = Transport::Smtp(SmtpConfig {
        host: "127.0.0.1".into(),
        port: Some(port),
        security: Security::Plain,
        user: None,
        password_env: None,
        password_file: None,
        ca_file: None,
        tls_name: None,
        timeout_secs: Some(5),
    });
    let s = transport::sender(&g, &cfg).unwrap();
    let d = transport::send_all(&g, Some(&s), &[], now()).unwrap();
    assert!(matches!(&d[0], Delivery::Failed { id, .. } if id == "c3"), "{d:?}");
    let env = outbox::read_envelope(&g.outbox().join("c3.json")).unwrap();
    assert_eq!(env.attempts, 1);
    assert!(env.last_error.is_some());
    assert!(!env.sending);
    assert!(g.outbox().join("c3.eml").exists());
    assert!(!g.sent().join("c3.eml").exists());

    // A crash after the hand-over: the envelope still says `sending`.
    let mut env = env;
    env.sending = true;
    outbox::write_envelope(&g.outbox().join("c3.json"), &env).unwrap();
    let file = transport::sender(&g, &Transport::default()).unwrap();
    let d = transport::send_all(&g, Some(&file), &[], now()).unwrap();
    assert_eq!(d, vec![Delivery::Held { id: "c3".into() }]);
    assert_eq!(files_in(&tmp.path().join("mail/files")), 0);
    // The moderator releases it.
    let d = transport::send_all(&g, Some(&file), &["c3".into()], now()).unwrap();
    assert!(matches!(&d[0], Delivery::Sent { .. }), "{d:?}");
    assert_eq!(files_in(&tmp.path().join("mail/files")), 1);
}

#[test]
fn plain_smtp_is_refused_off_loopback_and_dry_run_sends_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(tmp.path());
    let cfg = Transport::Smtp(SmtpConfig {
        host: "mail.example.org".into(),
        port: Some(25),
        security: Security::Plain,
        user: None,
        password_env: None,
        password_file: None,
        ca_file: None,
        tls_name: None,
        timeout_secs: None,
    });
    let err = transport::sender(&g, &cfg).err().unwrap().to_string();
    assert!(err.contains("plain SMTP is allowed only to a loopback host"), "{err}");
    outbox::queue(&g, &mail("d4")).unwrap();
    let d = transport::send_all(&g, None, &[], now()).unwrap();
    assert!(matches!(&d[0], Delivery::WouldSend { id, .. } if id == "d4"));
    assert!(g.outbox().join("d4.eml").exists());
}

fn game(parent: &Path) -> std::path::PathBuf {
    let players = empereur::store::players::parse(
        "p",
        "[moderator]\nname = \"GM\"\nemail = \"gm@demo.example.org\"\n[[player]]\npower = \"austria\"\nname = \"Francis's Player\"\nemail = \"austria@demo.example.org\"\npassword = \"aspern\"\n",
    )
    .unwrap();
    let dir = parent.join("g");
    empereur::ops::new::create_from(
        &empereur::ops::new::NewOptions {
            dir: dir.clone(),
            scenario: "1805".into(),
            players: Default::default(),
            options: vec![],
            id: Some("demo".into()),
            house_seating: true,
        },
        players,
    )
    .unwrap();
    dir
}

fn parse_eml(p: &Path) -> mail_parser::Message<'static> {
    let raw = std::fs::read(p).unwrap();
    mail_parser::MessageParser::default().parse(&raw).unwrap().into_owned()
}

#[test]
fn phase_opening_and_turn_reports_read_well_and_respect_visibility() {
    let tmp = tempfile::tempdir().unwrap();
    let root = game(tmp.path());
    let g = GameDir::new(&root);
    let cfg = g.load_config().unwrap();
    let scen = g.load_scenario(&cfg).unwrap();
    let state = g.load_state().unwrap();
    let t = Templates::load(&root).unwrap();
    let ids = compose::phase_opening(
        &g,
        &t,
        &cfg,
        &scen,
        &state,
        Some(DateTime::parse_from_rfc3339("2026-12-03T20:00:00Z").unwrap().to_utc()),
        now(),
    )
    .unwrap();
    assert_eq!(ids.len(), 1);
    let m = parse_eml(&g.outbox().join(format!("{}.eml", ids[0])));
    let body = m.body_text(0).unwrap().replace("\r\n", "\n");
    assert!(
        body.contains("Game demo: phase 1805-fall-turn-start is open."),
        "{body}"
    );
    assert!(body.contains("Austria may send orders"), "{body}");
    assert!(
        body.contains("GAME demo\nPOWER austria\nPASSWORD\nPHASE 1805-fall-turn-start"),
        "{body}"
    );
    assert!(
        body.contains("Deadline: Thursday 3 December 2026, 20:00 UTC\n"),
        "{body}"
    );
    assert!(body.lines().all(|l| l.chars().count() <= 72), "{body}");
    let r = compose::reminders(&g, &t, &cfg, &state, &[PowerId::Austria, PowerId::France], None, now()).unwrap();
    assert_eq!(r.len(), 1, "France has no player");
    let m = parse_eml(&g.outbox().join(format!("{}.eml", r[0])));
    assert!(
        m.body_text(0)
            .unwrap()
            .contains("no orders from Austria yet for phase 1805-fall-turn-start")
    );
    // Same phase composed again: the same id, nothing new.
    assert_eq!(
        compose::phase_opening(&g, &t, &cfg, &scen, &state, None, now()).unwrap(),
        ids
    );

    let outcomes = vec![
        Outcome::new("4.21", Kind::Tax, "Austria collects 12 Gold in taxes")
            .power(PowerId::Austria)
            .why("Vienna 4, Bohemia 3, Hungary 5"),
        Outcome::new("5.6", Kind::Battle, "A secret French matter").only(vec![PowerId::France]),
    ];
    let r = Resolved {
        phase: "1805-fall-turn-start".into(),
        entry: "0001-1805-fall-turn-start".into(),
        after: &state,
        outcomes: &outcomes,
        seed: Some("ab".repeat(32)),
        entropy: vec!["austria: kaiserschmarrn".into()],
        dice_log: Some(
            b"[[roll]]\npurpose = \"land-battle/x\"\nsides = 10\nresult = 7\nsource = \"committed\"\n".to_vec(),
        ),
        pictures: None,
        lock: None,
        map_unchanged: Default::default(),
    };
    let ids = compose::turn_reports(&g, &t, &cfg, &r, now()).unwrap();
    assert_eq!(ids.len(), 2, "Austria and the moderator");
    let au = parse_eml(&g.outbox().join(format!("{}.eml", ids[0])));
    let body = au.body_text(0).unwrap().replace("\r\n", "\n");
    assert!(body.contains("Austria collects 12 Gold in taxes (4.21)"), "{body}");
    assert!(body.contains("Vienna 4, Bohemia 3, Hungary 5"), "{body}");
    assert!(!body.contains("secret"), "{body}");
    assert!(
        body.contains(&format!(
            "Dice seed (revealed; check it against the commitment you were sent):\n  {}",
            "ab".repeat(32)
        )),
        "{body}"
    );
    assert!(body.lines().all(|l| l.chars().count() <= 72), "{body}");
    let names: Vec<_> = au
        .attachments()
        .filter_map(|a| mail_parser::MimeHeaders::attachment_name(a).map(str::to_string))
        .collect();
    assert_eq!(names, vec!["state-austria.toml", "dice-log.txt", "report.json"]);
    let json = au
        .attachments()
        .find(|a| mail_parser::MimeHeaders::attachment_name(*a) == Some("report.json"))
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(json.contents()).unwrap();
    assert_eq!(v["outcomes"].as_array().unwrap().len(), 1);
    let gm = parse_eml(&g.outbox().join(format!("{}.eml", ids[1])));
    assert!(gm.body_text(0).unwrap().contains("A secret French matter"));
}

#[cfg(unix)]
#[test]
fn the_sendmail_transport_pipes_the_message_with_its_envelope() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(tmp.path().join("g"));
    outbox::queue(&g, &mail("e5")).unwrap();
    // A stand-in sendmail: records its arguments and the message.
    let script = tmp.path().join("fake-sendmail");
    let log = tmp.path().join("sendmail.log");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$@\" > '{0}.args'\ncat > '{0}'\n", log.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cfg = Transport::Sendmail {
        command: Some(script.display().to_string()),
    };
    let s = transport::sender(&g, &cfg).unwrap();
    let d = transport::send_all(&g, Some(&s), &[], now()).unwrap();
    assert!(matches!(&d[0], Delivery::Sent { .. }), "{d:?}");
    let args = std::fs::read_to_string(format!("{}.args", log.display())).unwrap();
    assert!(
        args.contains("gm@demo.example.org") && args.contains("ann@example.org"),
        "{args}"
    );
    let msg = std::fs::read_to_string(&log).unwrap();
    assert!(msg.contains("Subject: test e5"), "{msg}");
    assert!(g.sent().join("e5.eml").exists());
}

/// A loopback SMTP server that refuses `refuse` at RCPT with a 550 and
/// takes everything else; it counts the RCPT commands it refused.
fn refusing_server(refuse: &'static str) -> (u16, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let refused = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = refused.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let mut out = stream.try_clone().unwrap();
            let mut lines = BufReader::new(stream);
            let _ = out.write_all(b"220 fake ESMTP\r\n");
            let mut data = false;
            let mut line = String::new();
            while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
                let cmd = line.trim_end().to_ascii_uppercase();
                let reply: &[u8] = if data {
                    if cmd == "." {
                        data = false;
                        b"250 queued\r\n"
                    } else {
                        b""
                    }
                } else if cmd.starts_with("EHLO") || cmd.starts_with("HELO") {
                    b"250 fake\r\n"
                } else if cmd.starts_with("RCPT") && cmd.contains(&refuse.to_ascii_uppercase()) {
                    count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    b"550 5.1.1 no such user\r\n"
                } else if cmd == "DATA" {
                    data = true;
                    b"354 go on\r\n"
                } else if cmd == "QUIT" {
                    let _ = out.write_all(b"221 bye\r\n");
                    break;
                } else {
                    b"250 ok\r\n"
                };
                let _ = out.write_all(reply);
                line.clear();
            }
        }
    });
    (port, refused)
}

// A permanent refusal (5xx) is held, not retried on every run and not
// lost; the moderator is told once; `send --release` sends it again.
#[test]
fn a_permanent_refusal_is_held_the_moderator_told_and_release_sends_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let g = GameDir::new(&dir);
    for id in outbox::queued(&g).unwrap() {
        std::fs::remove_file(outbox::eml_path(&g, &id)).unwrap();
        std::fs::remove_file(outbox::env_path(&g, &id)).unwrap();
    }
    outbox::queue(&g, &mail("r5")).unwrap();
    let (port, refused) = refusing_server("ann@example.org");
    let cfg = Transport::Smtp(SmtpConfig {
        host: "127.0.0.1".into(),
        port: Some(port),
        security: Security::Plain,
        user: None,
        password_env: None,
        password_file: None,
        ca_file: None,
        tls_name: None,
        timeout_secs: Some(5),
    });
    let s = transport::sender(&g, &cfg).unwrap();
    let d = transport::send_all(&g, Some(&s), &[], now()).unwrap();
    assert!(
        matches!(&d[0], Delivery::Refused { id, error } if id == "r5" && error.contains("550")),
        "{d:?}"
    );
    assert_eq!(refused.load(std::sync::atomic::Ordering::SeqCst), 1);
    let env = outbox::read_envelope(&outbox::env_path(&g, "r5")).unwrap();
    assert!(env.refused.as_deref().is_some_and(|e| e.contains("550")), "{env:?}");
    assert!(outbox::eml_path(&g, "r5").exists(), "kept in the outbox");
    // The moderator's note is queued beside it, and goes out.
    let queued = outbox::queued(&g).unwrap();
    assert_eq!(queued.len(), 2, "{queued:?}");
    let note = queued.iter().find(|id| *id != "r5").unwrap().clone();
    let text = std::fs::read_to_string(outbox::eml_path(&g, &note)).unwrap();
    assert!(
        text.contains("gm@demo.example.org") && text.contains("--release r5"),
        "{text}"
    );
    // Later runs neither retry it nor tell the moderator again: it is
    // still refused, not refused anew.
    for _ in 0..3 {
        let d = transport::send_all(&g, Some(&s), &[], now()).unwrap();
        assert!(
            d.iter()
                .any(|x| matches!(x, Delivery::StillRefused { id, .. } if id == "r5")),
            "{d:?}"
        );
        assert!(!d.iter().any(|x| matches!(x, Delivery::Refused { .. })), "{d:?}");
    }
    assert_eq!(refused.load(std::sync::atomic::Ordering::SeqCst), 1, "not retried");
    assert_eq!(
        outbox::queued(&g).unwrap(),
        vec!["r5".to_string()],
        "the note went once"
    );
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert_eq!(
        journal.matches("r5 to ann@example.org refused for good").count(),
        1,
        "{journal}"
    );
    // Released (the address fixed on the server's side): sent.
    let file = transport::sender(&g, &Transport::default()).unwrap();
    let d = transport::send_all(&g, Some(&file), &["r5".into()], now()).unwrap();
    assert!(matches!(&d[0], Delivery::Sent { id, .. } if id == "r5"), "{d:?}");
    assert!(g.sent().join("r5.eml").exists());
}

// `mail` exits 1 when a message needs the moderator (here one held after
// an interrupted send), so that a cron job's wrapper notices; a delivery
// with nothing to report exits 0.
#[test]
fn mail_exits_1_when_a_delivery_needs_the_moderator() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let g = GameDir::new(&dir);
    let mail_cmd = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_empereur"))
            .args(["mail", "--game"])
            .arg(&dir)
            .output()
            .unwrap()
    };
    let out = mail_cmd();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(!stdout.contains("held"), "{stdout}");

    outbox::queue(&g, &mail("h6")).unwrap();
    let mut env = outbox::read_envelope(&outbox::env_path(&g, "h6")).unwrap();
    env.sending = true;
    outbox::write_envelope(&outbox::env_path(&g, "h6"), &env).unwrap();
    let out = mail_cmd();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("message h6 is held"), "{stdout}");
    assert!(outbox::eml_path(&g, "h6").exists(), "kept in the outbox");
}

fn plain_smtp(port: u16) -> Transport {
    Transport::Smtp(SmtpConfig {
        host: "127.0.0.1".into(),
        port: Some(port),
        security: Security::Plain,
        user: None,
        password_env: None,
        password_file: None,
        ca_file: None,
        tls_name: None,
        timeout_secs: Some(5),
    })
}

fn empty_outbox(g: &GameDir) {
    for id in outbox::queued(g).unwrap() {
        std::fs::remove_file(outbox::eml_path(g, &id)).unwrap();
        std::fs::remove_file(outbox::env_path(g, &id)).unwrap();
    }
}

/// A mail to several players: its copies, one per recipient.
fn group_mail(id: &str) -> OutMail {
    OutMail {
        to: vec![
            Addr::new(Some("Ann"), "ann@example.org"),
            Addr::new(Some("Bob"), "bob@example.org"),
            Addr::new(Some("Cy"), "cy@example.org"),
        ],
        cc: vec![Addr::new(Some("Di"), "di@example.org")],
        ..mail(id)
    }
}

/// Every delivered file of the file transport, decoded: (To addresses,
/// Cc addresses, whole raw text).
fn delivered_files(g: &GameDir) -> Vec<(Vec<String>, Vec<String>, String)> {
    let d = g.root.join("mail/files");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&d).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "eml") {
            let m = parse_eml(&p);
            let list = |a: Option<&mail_parser::Address>| -> Vec<String> {
                a.map(|a| a.iter().filter_map(|x| x.address()).map(str::to_string).collect())
                    .unwrap_or_default()
            };
            out.push((list(m.to()), list(m.cc()), std::fs::read_to_string(&p).unwrap()));
        }
    }
    out.sort();
    out
}

// Issue 33 point 3: one refused recipient does not stop a group mail
// from reaching the others; each copy is refused and retried on its own.
#[test]
fn one_refused_recipient_never_blocks_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(game(tmp.path()));
    empty_outbox(&g);
    outbox::queue(&g, &group_mail("g1")).unwrap();
    assert_eq!(outbox::queued(&g).unwrap().len(), 4, "one copy per recipient");
    let (port, refused) = refusing_server("bob@example.org");
    let s = transport::sender(&g, &plain_smtp(port)).unwrap();
    let d = transport::send_all(&g, Some(&s), &[], now()).unwrap();
    let sent: Vec<&Delivery> = d.iter().filter(|x| matches!(x, Delivery::Sent { .. })).collect();
    assert_eq!(sent.len(), 3, "{d:?}");
    let bob: Vec<&Delivery> = d.iter().filter(|x| matches!(x, Delivery::Refused { .. })).collect();
    assert_eq!(bob.len(), 1, "{d:?}");
    assert_eq!(refused.load(std::sync::atomic::Ordering::SeqCst), 1);
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    for who in ["ann", "cy", "di"] {
        assert!(journal.contains(&format!("to {who}@example.org accepted")), "{journal}");
    }
    assert!(journal.contains("to bob@example.org refused for good"), "{journal}");
    // The copy to Bob is held alone: the others are not sent twice; the
    // moderator's note about Bob goes out.
    let again = transport::send_all(&g, Some(&s), &[], now()).unwrap();
    assert_eq!(again.len(), 2, "{again:?}");
    assert!(
        again.iter().any(|x| matches!(x, Delivery::StillRefused { .. })),
        "{again:?}"
    );
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert_eq!(journal.matches("to ann@example.org accepted").count(), 1, "{journal}");
    assert!(journal.contains("to gm@demo.example.org accepted"), "{journal}");
}

// Issue 33 point 7: a mail to several players shows each only their own
// address, unless the game discloses them.
#[test]
fn players_addresses_stay_private_unless_the_game_discloses_them() {
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(game(tmp.path()));
    empty_outbox(&g);
    outbox::queue(&g, &group_mail("p1")).unwrap();
    let file = transport::sender(&g, &Transport::default()).unwrap();
    transport::send_all(&g, Some(&file), &[], now()).unwrap();
    let files = delivered_files(&g);
    assert_eq!(files.len(), 4);
    let all = ["ann@example.org", "bob@example.org", "cy@example.org", "di@example.org"];
    for (to, cc, raw) in &files {
        assert_eq!(to.len(), 1, "{raw}");
        assert!(cc.is_empty(), "{raw}");
        for other in all.iter().filter(|a| **a != to[0]) {
            assert!(!raw.contains(other), "{} sees {other}:\n{raw}", to[0]);
        }
    }
    let got: Vec<&str> = files.iter().map(|(to, _, _)| to[0].as_str()).collect();
    assert_eq!(got, all);
    // Disclosed: each copy still goes to one recipient, and shows all.
    std::fs::remove_dir_all(g.root.join("mail/files")).unwrap();
    let mut c = g.load_config().unwrap();
    c.mail.disclose_addresses = true;
    empereur::store::atomic_write(&g.config(), c.to_toml().as_bytes()).unwrap();
    assert!(
        std::fs::read_to_string(g.config())
            .unwrap()
            .contains("disclose_addresses = true")
    );
    outbox::queue(&g, &group_mail("p2")).unwrap();
    let file = transport::sender(&g, &Transport::default()).unwrap();
    let d = transport::send_all(&g, Some(&file), &[], now()).unwrap();
    assert_eq!(d.len(), 4, "{d:?}");
    for (to, cc, raw) in delivered_files(&g) {
        assert_eq!((to.len(), cc.len()), (3, 1), "{raw}");
    }
    // One To and one Cc are two addresses: disclosed as well.
    std::fs::remove_dir_all(g.root.join("mail/files")).unwrap();
    let pair = OutMail {
        cc: vec![Addr::new(Some("Bob"), "bob@example.org")],
        ..mail("p3")
    };
    outbox::queue(&g, &pair).unwrap();
    let file = transport::sender(&g, &Transport::default()).unwrap();
    let d = transport::send_all(&g, Some(&file), &[], now()).unwrap();
    assert_eq!(d.len(), 2, "{d:?}");
    for (to, cc, raw) in delivered_files(&g) {
        assert_eq!(
            (to, cc),
            (vec!["ann@example.org".to_string()], vec!["bob@example.org".to_string()]),
            "{raw}"
        );
    }
}

// Issue 33 point 4: a mail refused for good is dropped by the moderator
// (journalled, never sent, never queued again, no longer reported), or
// released once the player's address is fixed, to the new address.
#[test]
fn a_refused_mail_is_dropped_or_released_to_the_fixed_address() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let g = GameDir::new(&dir);
    empty_outbox(&g);
    let to_player = |id: &str| OutMail {
        to: vec![Addr::new(Some("Francis's Player"), "austria@demo.example.org")],
        ..mail(id)
    };
    outbox::queue(&g, &mail("x1")).unwrap();
    outbox::queue(&g, &to_player("x2")).unwrap();
    let (port, _) = refusing_server("example.org");
    let s = transport::sender(&g, &plain_smtp(port)).unwrap();
    transport::send_all(&g, Some(&s), &[], now()).unwrap();
    // The moderator's two notes go out by file.
    let file = transport::sender(&g, &Transport::default()).unwrap();
    let d = transport::send_all(&g, Some(&file), &[], now()).unwrap();
    assert_eq!(
        d.iter().filter(|x| matches!(x, Delivery::Sent { .. })).count(),
        2,
        "{d:?}"
    );
    let notes = delivered_files(&g);
    assert!(
        notes
            .iter()
            .all(|(to, _, raw)| to[0] == "gm@demo.example.org" && raw.contains("--drop "))
    );
    // A run reports neither again.
    let r = empereur::ops::run::run_game(&dir, &[], now()).unwrap();
    assert!(
        !r.attention.iter().any(|l| l.contains("x1") || l.contains("x2")),
        "{:?}",
        r.attention
    );
    // Only a stuck message can be dropped.
    let x3 = OutMail {
        to: vec![Addr::new(None, "eve@other.test")],
        ..mail("x3")
    };
    outbox::queue(&g, &x3).unwrap();
    let send = |drop: Vec<String>, release: Vec<String>| {
        empereur::ops::send::send(
            &empereur::ops::send::SendArgs {
                game: dir.clone(),
                dry_run: false,
                release,
                drop,
            },
            now(),
        )
    };
    let err = send(vec!["x3".into()], vec![]).unwrap_err();
    assert!(format!("{err:#}").contains("neither refused nor held"), "{err:#}");
    // x3 went out with that send (file transport); x1 is dropped.
    let d = send(vec!["x1".into()], vec![]).unwrap();
    assert!(matches!(&d[0], Delivery::Dropped { id, .. } if id == "x1"), "{d:?}");
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert!(
        journal.contains("send: x1 to ann@example.org dropped by the moderator, never sent (permanent error (550)"),
        "{journal}"
    );
    assert_eq!(outbox::queue(&g, &mail("x1")).unwrap(), outbox::Queued::AlreadySent);
    let files = delivered_files(&g);
    assert!(files.iter().any(|(to, _, _)| to[0] == "eve@other.test"));
    assert!(!files.iter().any(|(to, _, _)| to[0] == "ann@example.org"));
    // The player's address fixed in game.toml, x2 released: it goes to
    // the new address, the old one nowhere.
    let mut c = g.load_config().unwrap();
    c.players[0].email = "francis@new.example.org".into();
    empereur::store::atomic_write(&g.config(), c.to_toml().as_bytes()).unwrap();
    let d = send(vec![], vec!["x2".into()]).unwrap();
    assert!(
        d.iter().any(|x| matches!(x, Delivery::Sent { id, .. } if id == "x2")),
        "{d:?}"
    );
    let x2: Vec<_> = delivered_files(&g)
        .into_iter()
        .filter(|(_, _, raw)| raw.contains("Subject: test x2"))
        .collect();
    assert_eq!(x2.len(), 1);
    assert_eq!(x2[0].0, ["francis@new.example.org"]);
    assert!(!x2[0].2.contains("austria@demo.example.org"), "{}", x2[0].2);
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert!(
        journal.contains("x2 readdressed from austria@demo.example.org to francis@new.example.org"),
        "{journal}"
    );
}

// Issue 33 points 4 and 8: a bounce (RFC 3464) reports a player's address
// dead; `send` lists it on every run until the address is replaced or
// the moderator dismisses it with `send --drop ADDRESS` (journalled, for
// good: a later bounce is counted, not listed); an address not listed
// dead is refused with the reason.
#[test]
fn a_dead_address_is_listed_by_send_until_the_moderator_dismisses_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = game(tmp.path());
    let g = GameDir::new(&dir);
    let bounce = |n: u32| {
        let p = tmp.path().join(format!("bounce-{n}.eml"));
        std::fs::write(
            &p,
            format!(
                "From: MAILER-DAEMON@mx.example.org\r\nTo: gm@demo.example.org\r\nSubject: Undelivered Mail Returned to Sender\r\nMessage-ID: <bounce-{n}@mx.example.org>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nThe mail system: your message could not be delivered.\r\n--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.org\r\n\r\nFinal-Recipient: rfc822; austria@demo.example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n--b--\r\n"
            ),
        )
        .unwrap();
        let args = empereur::ops::ingest::IngestArgs {
            game: Some(dir.clone()),
            games: None,
            maildir: None,
            mbox: None,
            files: vec![p],
        };
        empereur::ops::ingest::ingest(&args, now()).unwrap();
    };
    let args = |drop: Vec<String>| empereur::ops::send::SendArgs {
        game: dir.clone(),
        dry_run: false,
        release: vec![],
        drop,
    };
    let status = || {
        empereur::ops::workflow::status(&empereur::ops::workflow::GameOnly { game: dir.clone() })
            .unwrap()
            .to_string()
    };
    bounce(1);
    for _ in 0..2 {
        let report = empereur::ops::send::run(&args(vec![])).unwrap().to_string();
        assert!(
            report.contains("DEAD ADDRESS austria@demo.example.org (austria): mail to it bounces (5.1.1, 1 report(s)"),
            "{report}"
        );
        assert!(report.contains("--drop austria@demo.example.org"), "{report}");
    }
    assert!(status().contains("dead address: austria@demo.example.org (austria)"));
    // Only a listed dead address can be dismissed.
    let err = empereur::ops::send::run(&args(vec!["ann@example.org".into()])).unwrap_err();
    assert!(
        format!("{err:#}").contains("no dead address ann@example.org"),
        "{err:#}"
    );
    let sent = empereur::ops::send::run(&args(vec!["Austria@demo.example.org".into()])).unwrap();
    assert_eq!(
        sent.deliveries,
        [Delivery::Dismissed {
            address: "austria@demo.example.org".into(),
            power: PowerId::Austria,
        }]
    );
    let report = sent.to_string();
    assert!(
        report.contains("dismissed the dead address austria@demo.example.org (austria): no longer listed"),
        "{report}"
    );
    assert!(!report.contains("DEAD ADDRESS"), "{report}");
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert!(
        journal.contains("send: dead address austria@demo.example.org (austria) dismissed by the moderator"),
        "{journal}"
    );
    // For good: a later bounce is counted, never listed again.
    bounce(2);
    let report = empereur::ops::send::run(&args(vec![])).unwrap().to_string();
    assert!(!report.contains("DEAD ADDRESS"), "{report}");
    assert!(!status().contains("dead address"), "{}", status());
    let dead = empereur::mail::dsn::load(&g).unwrap();
    assert_eq!((dead.len(), dead[0].reports), (1, 2), "{dead:?}");
    assert!(dead[0].dismissed.is_some());
    let err = empereur::ops::send::run(&args(vec!["austria@demo.example.org".into()])).unwrap_err();
    assert!(format!("{err:#}").contains("no dead address"), "{err:#}");
}
