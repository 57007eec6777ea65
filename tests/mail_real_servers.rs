//! End to end against real mail servers: Postfix and Dovecot on
//! 127.0.0.1, started by `.ci/mailrig.sh` (run `.ci/mailrig.sh test`).
//! Players send orders over SMTP (lettre and swaks), Postfix delivers
//! them into the moderator's Maildir, `ingest` reads them, `send` delivers
//! the acknowledgements over submission (STARTTLS + AUTH), the turn
//! reports over implicit TLS, and the test reads them back from the
//! players' Maildirs. Mail to the rig's game address goes through
//! Postfix's `pipe(8)` to `empereur ingest --game DIR -`, set up as
//! docs/mail.md says (exit codes, locked game, mail loops, reply cap).
//! Ignored unless run by the rig script, which sets
//! `EMPEREUR_MAIL_RIG` to the rig directory.
#![allow(clippy::disallowed_methods)] // tests read files, the environment and the clock

use chrono::Utc;
use empereur::ids::PowerId;
use empereur::mail::compose::{self, Resolved};
use empereur::mail::ingest::Verdict;
use empereur::mail::transport::Delivery;
use empereur::ops;
use empereur::report::Templates;
use empereur::rules::Kind;
use empereur::rules::Outcome;
use empereur::store::GameDir;
use empereur::store::config::{ImapConfig, Security, SmtpConfig, Transport};
use lettre::Transport as _;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

struct Rig {
    dir: PathBuf,
    env: BTreeMap<String, String>,
}

impl Rig {
    fn from_env() -> Rig {
        let dir = PathBuf::from(std::env::var("EMPEREUR_MAIL_RIG").expect(
            "EMPEREUR_MAIL_RIG is not set: run this test with .ci/mailrig.sh test (it starts Postfix and Dovecot on loopback)",
        ));
        let text = std::fs::read_to_string(dir.join("rig.env")).expect("rig.env in the rig directory");
        let env = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Rig { dir, env }
    }
    fn port(&self, key: &str) -> u16 {
        self.env[key].parse().unwrap()
    }
    fn maildir(&self, user: &str) -> PathBuf {
        self.dir.join("vmail/rig.test").join(user)
    }
}

fn maildir_files(rig: &Rig, user: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["new", "cur"] {
        let dir = rig.maildir(user).join(sub);
        out.extend(std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()));
    }
    out
}

/// The unique part of a Maildir file name (without the `:2,` flags that
/// change when Dovecot moves it to cur/).
fn unique(p: &Path) -> String {
    let n = p.file_name().unwrap().to_string_lossy();
    n.split(':').next().unwrap().to_string()
}

/// What each mailbox held before this test (the rig may be reused).
fn baseline(rig: &Rig) -> BTreeMap<String, Vec<PathBuf>> {
    ["gm", "france", "austria", "russia"]
        .into_iter()
        .map(|u| (u.to_string(), maildir_files(rig, u)))
        .collect()
}

/// Messages delivered to `user` during this test, waiting up to 20 s for `n`.
fn wait_for(rig: &Rig, before: &BTreeMap<String, Vec<PathBuf>>, user: &str, n: usize) -> Vec<Vec<u8>> {
    let start = Instant::now();
    loop {
        let mut files: Vec<PathBuf> = maildir_files(rig, user)
            .into_iter()
            .filter(|p| !before[user].iter().any(|b| unique(b) == unique(p)))
            .collect();
        if files.len() >= n || start.elapsed() > Duration::from_secs(20) {
            files.sort();
            assert!(files.len() >= n, "{user}: {} of {n} messages after 20 s", files.len());
            return files.into_iter().map(|p| std::fs::read(p).unwrap()).collect();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn send_plain(rig: &Rig, from: &str, subject: &str, body: &str) {
    let m = lettre::Message::builder()
        .from(from.parse().unwrap())
        .to("Empereur <gm@rig.test>".parse().unwrap())
        .subject(subject)
        .body(body.to_string())
        .unwrap();
    let t = lettre::SmtpTransport::builder_dangerous("127.0.0.1")
        .port(rig.port("EMPEREUR_RIG_SMTP_PORT"))
        .timeout(Some(Duration::from_secs(10)))
        .build();
    t.send(&m).unwrap();
}

fn players_toml() -> &'static str {
    "[moderator]\nname = \"GM\"\nemail = \"gm@rig.test\"\n\
     [[player]]\npower = \"france\"\nname = \"Napoleon's Player\"\nemail = \"france@rig.test\"\npassword = \"austerlitz\"\n\
     [[player]]\npower = \"austria\"\nname = \"Francis's Player\"\nemail = \"austria@rig.test\"\npassword = \"aspern\"\n"
}

/// A new 1805 game `id` in `root` with the players of `players` (a
/// players.toml), sending by submission (STARTTLS + AUTH) as the rig's
/// moderator.
fn new_game(rig: &Rig, root: &Path, id: &str, players: &str) {
    let players = empereur::store::players::parse("players", players).unwrap();
    ops::new::create_from(
        &ops::new::NewOptions {
            dir: root.to_path_buf(),
            scenario: "1805".into(),
            players: PathBuf::new(),
            options: vec![],
            id: Some(id.into()),
            house_seating: true,
        },
        players,
    )
    .unwrap();
    std::fs::write(root.join("smtp-password"), "gm-pw\n").unwrap();
    set_transport(root, rig, Security::Starttls, "EMPEREUR_RIG_SUB_PORT");
}

fn set_transport(root: &Path, rig: &Rig, security: Security, port_key: &str) {
    let g = GameDir::new(root);
    let mut cfg = g.load_config().unwrap();
    cfg.mail.address = Some("gm@rig.test".into());
    cfg.mail.transport = Transport::Smtp(SmtpConfig {
        host: "127.0.0.1".into(),
        port: Some(rig.port(port_key)),
        security,
        user: Some("gm@rig.test".into()),
        password_env: None,
        password_file: Some("smtp-password".into()),
        ca_file: Some(rig.env["EMPEREUR_RIG_CA"].clone()),
        tls_name: Some("localhost".into()),
        timeout_secs: Some(20),
    });
    std::fs::write(g.config(), cfg.to_toml()).unwrap();
}

fn parse(raw: &[u8]) -> mail_parser::Message<'_> {
    mail_parser::MessageParser::default().parse(raw).unwrap()
}

fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
#[ignore = "needs real mail servers: run .ci/mailrig.sh test"]
fn orders_acks_and_reports_travel_through_postfix_and_dovecot() {
    let rig = Rig::from_env();
    let t0 = Instant::now();
    let before = baseline(&rig);
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("demo");
    new_game(&rig, &root, "demo", players_toml());

    // Players send: France right, Austria with a wrong password, then
    // Austria right through swaks (a real SMTP client).
    send_plain(
        &rig,
        "Napoleon's Player <france@rig.test>",
        "orders",
        "GAME demo\nPOWER france\nPASSWORD austerlitz\n\nMOVE FIRST\nEND\n",
    );
    send_plain(
        &rig,
        "austria@rig.test",
        "orders",
        "GAME demo\nPOWER austria\nPASSWORD wagram\nEND\n",
    );
    let swaks = std::process::Command::new("timeout")
        .args(["20", "swaks", "--silent", "2", "--server"])
        .arg(format!("127.0.0.1:{}", rig.port("EMPEREUR_RIG_SMTP_PORT")))
        .args([
            "--from",
            "austria@rig.test",
            "--to",
            "gm@rig.test",
            "--header",
            "Subject: orders again",
        ])
        .args(["--body", "GAME demo\nPOWER austria\nPASSWORD aspern\nNO ORDERS\nEND\n"])
        .status()
        .expect("swaks runs");
    assert!(swaks.success());
    let delivered = wait_for(&rig, &before, "gm", 3);
    // The rig may hold earlier runs' mail: hand ingest a Maildir of this
    // run's messages (as fetchmail or a Postfix per-game address would).
    let inbox = tmp.path().join("delivered");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(inbox.join(sub)).unwrap();
    }
    for (i, raw) in delivered.iter().enumerate() {
        std::fs::write(inbox.join("new").join(format!("{i}.rig")), raw).unwrap();
    }

    // Ingest the moderator's Maildir (as Postfix delivered it).
    let args = ops::ingest::IngestArgs {
        game: Some(root.clone()),
        games: None,
        maildir: Some(inbox.clone()),
        mbox: None,
        files: vec![],
    };
    let handled = ops::ingest::ingest(&args, Utc::now()).unwrap();
    assert_eq!(handled.len(), 3);
    let mut by_power: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
    for h in &handled {
        let tag = match &h.verdict {
            Verdict::Accepted { .. } | Verdict::NotStored { .. } => "authenticated",
            Verdict::Refused(r) => r.code(),
            other => panic!("unexpected {other:?}"),
        };
        by_power.entry(h.from.clone().unwrap()).or_default().push(tag);
    }
    assert_eq!(by_power["france@rig.test"], vec!["authenticated"]);
    let mut au = by_power["austria@rig.test"].clone();
    au.sort();
    assert_eq!(au, vec!["authenticated", "wrong-password"]);
    // Ingesting the same Maildir again processes nothing twice.
    let again = ops::ingest::ingest(&args, Utc::now()).unwrap();
    assert!(
        again
            .iter()
            .all(|h| matches!(h.verdict, Verdict::Duplicate | Verdict::NotStored { .. })),
        "{again:?}"
    );

    // The same messages fetched over IMAPS from Dovecot into a second
    // copy of the game: the same decisions; a second fetch finds nothing.
    let root2 = tmp.path().join("fetched");
    let players = empereur::store::players::parse("players", players_toml()).unwrap();
    ops::new::create_from(
        &ops::new::NewOptions {
            dir: root2.clone(),
            scenario: "1805".into(),
            players: PathBuf::new(),
            options: vec![],
            id: Some("demo".into()),
            house_seating: true,
        },
        players,
    )
    .unwrap();
    std::fs::write(root2.join("imap-password"), "gm-pw\n").unwrap();
    let g2 = GameDir::new(&root2);
    let mut cfg2 = g2.load_config().unwrap();
    cfg2.mail.imap = Some(ImapConfig {
        host: "127.0.0.1".into(),
        port: Some(rig.port("EMPEREUR_RIG_IMAPS_PORT")),
        user: "gm@rig.test".into(),
        password_env: None,
        password_file: Some("imap-password".into()),
        mailbox: None,
        ca_file: Some(rig.env["EMPEREUR_RIG_CA"].clone()),
        tls_name: Some("localhost".into()),
    });
    std::fs::write(g2.config(), cfg2.to_toml()).unwrap();
    let fetch = ops::fetch::FetchArgs { game: root2.clone() };
    let verdicts = ops::fetch::fetch(&fetch, Utc::now()).unwrap();
    let codes: Vec<&str> = verdicts.iter().map(|v| v.code()).collect();
    assert!(codes.len() >= 3, "{codes:?}");
    assert!(codes.contains(&"wrong-password"), "{codes:?}");
    assert!(
        ops::fetch::fetch(&fetch, Utc::now()).unwrap().is_empty(),
        "fetched messages are flagged seen"
    );
    let archived = std::fs::read_dir(g2.inbox().join("cur")).unwrap().count()
        + std::fs::read_dir(g2.inbox().join("new")).unwrap().count();
    assert_eq!(archived, codes.len());

    // Send the acknowledgements over submission (STARTTLS + AUTH).
    let send = ops::send::SendArgs {
        game: root.clone(),
        dry_run: false,
        release: vec![],
        drop: vec![],
    };
    let sent = ops::send::send(&send, Utc::now()).unwrap();
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(sent.iter().all(|d| matches!(d, Delivery::Sent { .. })), "{sent:?}");
    assert!(
        ops::send::send(&send, Utc::now()).unwrap().is_empty(),
        "nothing is sent twice"
    );

    let fr = wait_for(&rig, &before, "france", 1);
    let m = parse(&fr[0]);
    assert_eq!(m.subject(), Some("Re: orders"));
    assert_eq!(m.from().unwrap().first().unwrap().address(), Some("gm@rig.test"));
    let body = flat(&m.body_text(0).unwrap());
    assert!(body.contains("Your orders for France in game demo"), "{body}");
    let au = wait_for(&rig, &before, "austria", 2);
    let bodies: Vec<String> = au.iter().map(|r| flat(&parse(r).body_text(0).unwrap())).collect();
    assert!(
        bodies.iter().any(|b| b.contains("wrong password for Austria")),
        "{bodies:?}"
    );
    assert!(
        bodies
            .iter()
            .any(|b| b.contains("Your orders for Austria in game demo")),
        "{bodies:?}"
    );

    // Turn reports over implicit TLS, with attachments.
    set_transport(&root, &rig, Security::Tls, "EMPEREUR_RIG_SMTPS_PORT");
    let g = GameDir::new(&root);
    let cfg = g.load_config().unwrap();
    let state = g.load_state().unwrap();
    let outcomes = vec![
        Outcome::new("4.21", Kind::Tax, "France collects 20 Gold")
            .power(PowerId::France)
            .only(vec![PowerId::France]),
        Outcome::new("4.6", Kind::TurnOrder, "France moves first"),
    ];
    let r = Resolved {
        phase: state.phase.to_string(),
        entry: format!("0001-{}", state.phase),
        after: &state,
        outcomes: &outcomes,
        seed: Some("cd".repeat(32)),
        entropy: vec![],
        dice_log: Some(b"# no dice this phase\n".to_vec()),
        pictures: None,
        lock: None,
        map_unchanged: Default::default(),
    };
    let ids = compose::turn_reports(&g, &Templates::load(&root).unwrap(), &cfg, &r, Utc::now()).unwrap();
    assert_eq!(ids.len(), 3);
    let sent = ops::send::send(&send, Utc::now()).unwrap();
    assert!(sent.iter().all(|d| matches!(d, Delivery::Sent { .. })), "{sent:?}");
    let fr = wait_for(&rig, &before, "france", 2);
    let report = fr
        .iter()
        .map(|r| parse(r))
        .find(|m| m.subject().is_some_and(|s| s.contains("report")))
        .expect("France's report");
    let body = report.body_text(0).unwrap().into_owned();
    assert!(body.contains("France collects 20 Gold"), "{body}");
    assert!(body.contains("France moves first"), "{body}");
    let names: Vec<_> = report
        .attachments()
        .filter_map(|a| mail_parser::MimeHeaders::attachment_name(a).map(str::to_string))
        .collect();
    assert_eq!(names, vec!["state-france.toml", "dice-log.txt", "report.json"]);
    let au = wait_for(&rig, &before, "austria", 3);
    let au_report = au
        .iter()
        .map(|r| parse(r))
        .find(|m| m.subject().is_some_and(|s| s.contains("report")))
        .expect("Austria's report");
    let body = au_report.body_text(0).unwrap();
    assert!(
        !body.contains("France collects"),
        "Austria sees only what it may: {body}"
    );
    wait_for(&rig, &before, "gm", 4); // the moderator's full report
    eprintln!("mail e2e: {:.1} s", t0.elapsed().as_secs_f64());
}

/// Press (`mail::press`): a player's PRESS mail, once ingested, reaches
/// the other player's mailbox through the real servers, naming its
/// sender.
#[test]
#[ignore = "needs real mail servers: run .ci/mailrig.sh test"]
fn press_from_one_player_arrives_in_the_others_mailbox() {
    let rig = Rig::from_env();
    let before = baseline(&rig);
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("press");
    new_game(&rig, &root, "demo", players_toml());
    let nonce = format!("bavaria-{}", Utc::now().timestamp_nanos_opt().unwrap_or(0));
    send_plain(
        &rig,
        "Napoleon's Player <france@rig.test>",
        "a word with Vienna",
        &format!(
            "GAME demo\nPOWER france\nPASSWORD austerlitz\nPRESS TO Austria\nShall we talk about {nonce}?\nENDPRESS\n"
        ),
    );
    let delivered: Vec<Vec<u8>> = wait_for(&rig, &before, "gm", 1)
        .into_iter()
        .filter(|m| String::from_utf8_lossy(m).contains(&nonce))
        .collect();
    assert_eq!(delivered.len(), 1);
    let inbox = tmp.path().join("delivered");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(inbox.join(sub)).unwrap();
    }
    std::fs::write(inbox.join("new").join("0.rig"), &delivered[0]).unwrap();
    let handled = ops::ingest::ingest(
        &ops::ingest::IngestArgs {
            game: Some(root.clone()),
            games: None,
            maildir: Some(inbox),
            mbox: None,
            files: vec![],
        },
        Utc::now(),
    )
    .unwrap();
    assert_eq!(handled[0].verdict, Verdict::Noted { power: PowerId::France });
    let sent = ops::send::send(
        &ops::send::SendArgs {
            game: root.clone(),
            dry_run: false,
            release: vec![],
            drop: vec![],
        },
        Utc::now(),
    )
    .unwrap();
    // The acknowledgement to France, the press to Austria, the copy to
    // the moderator.
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert!(sent.iter().all(|d| matches!(d, Delivery::Sent { .. })), "{sent:?}");
    let press: Vec<Vec<u8>> = wait_for(&rig, &before, "austria", 1)
        .into_iter()
        .filter(|m| String::from_utf8_lossy(m).contains(&nonce))
        .collect();
    assert_eq!(press.len(), 1);
    let m = parse(&press[0]);
    assert_eq!(m.subject(), Some("Empereur demo: press from France"));
    let body = m.body_text(0).unwrap();
    assert!(
        flat(&body).contains(&format!("from France to Austria: Shall we talk about {nonce}?")),
        "{body}"
    );
    assert!(!body.contains("austerlitz"), "{body}");
}

/// Lines Postfix logged for deliveries through the `empereur` pipe(8)
/// transport, with `status=<what>`.
fn pipe_log(rig: &Rig, status: &str) -> Vec<String> {
    let log = std::fs::read_to_string(rig.dir.join("postfix/maillog")).unwrap_or_default();
    log.lines()
        .filter(|l| l.contains("relay=empereur") && l.contains(&format!("status={status}")))
        .map(str::to_string)
        .collect()
}

/// Wait up to 30 s until Postfix has logged `n` more pipe deliveries
/// with `status` than `before`.
fn wait_pipe(rig: &Rig, status: &str, before: usize, n: usize) -> Vec<String> {
    let start = Instant::now();
    loop {
        let lines = pipe_log(rig, status);
        if lines.len() >= before + n || start.elapsed() > Duration::from_secs(30) {
            assert!(
                lines.len() >= before + n,
                "{} of {n} pipe deliveries with status={status} after 30 s; maillog:\n{}",
                lines.len() - before,
                std::fs::read_to_string(rig.dir.join("postfix/maillog"))
                    .unwrap_or_default()
                    .lines()
                    .rev()
                    .take(20)
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            return lines[before..].to_vec();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Hand a raw message to Postfix's plain SMTP port.
fn send_raw(rig: &Rig, envelope_from: Option<&str>, to: &str, raw: &str) {
    let env =
        lettre::address::Envelope::new(envelope_from.map(|f| f.parse().unwrap()), vec![to.parse().unwrap()]).unwrap();
    let t = lettre::SmtpTransport::builder_dangerous("127.0.0.1")
        .port(rig.port("EMPEREUR_RIG_SMTP_PORT"))
        .timeout(Some(Duration::from_secs(10)))
        .build();
    t.send_raw(&env, raw.replace('\n', "\r\n").as_bytes()).unwrap();
}

/// The pipe runs as nobody (docs/mail.md: `user=` owns the game); what
/// this test (root) wrote into the game goes back to that user.
fn give_to_pipe_user(dir: &Path) {
    let ok = std::process::Command::new("chown")
        .args(["-R", "nobody:"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(ok.success());
}

fn archived(dir: &Path) -> Vec<Vec<u8>> {
    let inbox = GameDir::new(dir).inbox();
    ["new", "cur"]
        .iter()
        .flat_map(|s| std::fs::read_dir(inbox.join(s)).unwrap())
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect()
}

fn from_mailer_daemon(raw: &[u8]) -> bool {
    let m = parse(raw);
    m.from()
        .and_then(|f| f.first())
        .and_then(|a| a.address())
        .is_some_and(|a| a.to_ascii_lowercase().starts_with("mailer-daemon"))
        || mail_parser::MimeHeaders::content_type(&m)
            .is_some_and(|c| c.ctype() == "multipart" && c.subtype() == Some("report"))
}

/// Pipe delivery (item 2 of docs/mail.md's set-up, exactly as documented:
/// Postfix `pipe(8)`, `flags=Rq user=…`) and mail loops, end to end.
/// - A refused order is answered by the game and delivered by Postfix
///   (exit 0): the sender gets the game's reply and no bounce.
/// - A message for a locked game is deferred (exit 75), archived all the
///   same, and delivered and processed when Postfix retries.
/// - Twenty automatic mails (vacation replies, bulk, lists, our own
///   X-Loop, our own address, a delivery report by content, and a real
///   Postfix bounce) get no reply at all.
/// - What the game sends carries `X-Loop` and `Auto-Submitted`, and one
///   address gets at most `max_replies_per_day` replies.
#[test]
#[ignore = "needs real mail servers: run .ci/mailrig.sh test"]
fn pipe_delivery_follows_sysexits_and_automatic_mail_gets_no_reply() {
    let rig = Rig::from_env();
    let before = baseline(&rig);
    let game_addr = rig.env["EMPEREUR_RIG_PIPE_ADDR"].clone();
    let pipe_dir = PathBuf::from(&rig.env["EMPEREUR_RIG_PIPE_DIR"]);
    let root = pipe_dir.join("game");
    if root.exists() {
        std::fs::remove_dir_all(&root).unwrap();
    }
    let bin = pipe_dir.join("empereur");
    std::fs::copy(env!("CARGO_BIN_EXE_empereur"), &bin).unwrap();
    new_game(&rig, &root, "demo", players_toml());
    let g = GameDir::new(&root);
    let mut cfg = g.load_config().unwrap();
    cfg.mail.address = Some(game_addr.clone());
    cfg.mail.max_replies_per_day = Some(3);
    std::fs::write(g.config(), cfg.to_toml()).unwrap();
    give_to_pipe_user(&root);
    let sent0 = pipe_log(&rig, "sent").len();
    let deferred0 = pipe_log(&rig, "deferred").len();
    let bounced0 = pipe_log(&rig, "bounced").len();
    let send = ops::send::SendArgs {
        game: root.clone(),
        dry_run: false,
        release: vec![],
        drop: vec![],
    };
    let send_all = || {
        let out = ops::send::send(&send, Utc::now()).unwrap();
        assert!(out.iter().all(|d| matches!(d, Delivery::Sent { .. })), "{out:?}");
        give_to_pipe_user(&root);
        out.len()
    };

    // 1. A refused order (wrong password): delivered, answered, no bounce.
    send_raw(
        &rig,
        Some("france@rig.test"),
        &game_addr,
        &format!(
            "From: Napoleon's Player <france@rig.test>\nTo: {game_addr}\nSubject: orders\nMessage-ID: <refused-{}@rig.test>\n\nGAME demo\nPOWER france\nPASSWORD wagram\nMOVE FIRST\nEND\n",
            Utc::now().timestamp_nanos_opt().unwrap_or(0)
        ),
    );
    wait_pipe(&rig, "sent", sent0, 1);
    assert_eq!(archived(&root).len(), 1);
    assert_eq!(send_all(), 1, "the refusal is the answer");
    let fr = wait_for(&rig, &before, "france", 1);
    assert!(fr.iter().all(|m| !from_mailer_daemon(m)), "no bounce");
    let reply = parse(&fr[0]);
    assert!(
        flat(&reply.body_text(0).unwrap()).contains("wrong password for France"),
        "{:?}",
        reply.body_text(0)
    );
    let head = String::from_utf8_lossy(&fr[0]);
    let head = head.split("\r\n\r\n").next().unwrap();
    assert!(head.contains(&format!("X-Loop: {game_addr}")), "{head}");
    assert!(head.contains("Auto-Submitted: auto-replied"), "{head}");

    // 2. A locked game: deferred (75), archived already, delivered on retry.
    let nonce = format!("locked-{}", Utc::now().timestamp_nanos_opt().unwrap_or(0));
    let lock = g.lock().unwrap();
    send_raw(
        &rig,
        Some("france@rig.test"),
        &game_addr,
        &format!(
            "From: france@rig.test\nTo: {game_addr}\nSubject: {nonce}\nMessage-ID: <{nonce}@rig.test>\n\nGAME demo\nPOWER france\nPASSWORD austerlitz\nMOVE FIRST\nEND\n"
        ),
    );
    let deferred = wait_pipe(&rig, "deferred", deferred0, 1);
    assert!(
        archived(&root)
            .iter()
            .any(|m| String::from_utf8_lossy(m).contains(&nonce)),
        "archived before the lock was needed: {deferred:?}"
    );
    assert_eq!(pipe_log(&rig, "sent").len(), sent0 + 1, "not delivered while locked");
    drop(lock);
    give_to_pipe_user(&root);
    let flush = std::process::Command::new("timeout")
        .args(["20", "postqueue", "-c"])
        .arg(rig.dir.join("postfix"))
        .arg("-f")
        .status()
        .unwrap();
    assert!(flush.success());
    wait_pipe(&rig, "sent", sent0, 2);
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert!(
        journal.lines().any(|l| l.contains("accepted") && l.contains("france")),
        "{journal}"
    );
    assert_eq!(send_all(), 1);
    let fr = wait_for(&rig, &before, "france", 2);
    assert!(fr.iter().all(|m| !from_mailer_daemon(m)), "no bounce");
    assert!(
        fr.iter()
            .any(|m| flat(&parse(m).body_text(0).unwrap()).contains("Your orders for France in game demo")),
        "the order that waited is answered"
    );

    // 3. Mail loops: twenty automatic mails, none answered.
    let quoted = "> GAME demo\n> POWER france\n> PASSWORD wagram\n> MOVE FIRST\n";
    let mut auto: Vec<(String, String)> = Vec::new(); // (from, extra headers)
    for (from, headers) in [
        (
            "france@rig.test",
            "Auto-Submitted: auto-replied\nSubject: Out of Office: orders",
        ),
        (
            "austria@rig.test",
            "Auto-Submitted: auto-generated\nSubject: Re: orders",
        ),
        ("france@rig.test", "Auto-Submitted: auto-notified\nSubject: orders"),
        ("austria@rig.test", "X-Autoreply: yes\nSubject: Re: orders"),
        ("france@rig.test", "X-Autorespond: vacation\nSubject: Re: orders"),
        ("austria@rig.test", "Precedence: bulk\nSubject: orders"),
        ("france@rig.test", "Precedence: junk\nSubject: orders"),
        ("austria@rig.test", "Precedence: list\nSubject: orders"),
        ("france@rig.test", "Precedence: auto_reply\nSubject: orders"),
        ("austria@rig.test", "List-Id: <diplomacy.rig.test>\nSubject: orders"),
        (
            "france@rig.test",
            "List-Unsubscribe: <mailto:leave@rig.test>\nSubject: orders",
        ),
        ("austria@rig.test", "X-Loop: GAMEADDR\nSubject: Re: orders"),
        // Our X-Loop in capitals is still ours.
        ("france@rig.test", "X-Loop: UPPERADDR\nSubject: orders"),
        ("GAMEADDR", "Subject: Re: orders"),
        (
            "austria@rig.test",
            "Subject: Automatic reply: orders\nAuto-Submitted: auto-replied",
        ),
        (
            "france@rig.test",
            "Subject: Abwesenheitsnotiz\nX-Autoreply: yes\nPrecedence: bulk",
        ),
        ("MAILER-DAEMON@rig.test", "Subject: Undelivered Mail Returned to Sender"),
        ("postmaster@rig.test", "Subject: Delivery Status Notification (Failure)"),
    ] {
        let from = from.replace("GAMEADDR", &game_addr);
        auto.push((
            from,
            headers
                .replace("GAMEADDR", &game_addr)
                .replace("UPPERADDR", &game_addr.to_uppercase()),
        ));
    }
    for (i, (from, headers)) in auto.iter().enumerate() {
        send_raw(
            &rig,
            Some(from),
            &game_addr,
            &format!(
                "From: {from}\nTo: {game_addr}\nMessage-ID: <auto-{i}-{nonce}@rig.test>\n{headers}\n\nI am away until Monday.\n\n{quoted}"
            ),
        );
    }
    // A delivery report by its content, from a player's own address.
    send_raw(
        &rig,
        Some("france@rig.test"),
        &game_addr,
        &format!(
            "From: france@rig.test\nTo: {game_addr}\nSubject: orders\nMessage-ID: <dsn-{nonce}@rig.test>\nMIME-Version: 1.0\nContent-Type: multipart/report; report-type=delivery-status; boundary=\"b\"\n\n--b\nContent-Type: text/plain\n\nGAME demo\nPOWER france\nPASSWORD wagram\n--b\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; rig.test\n\nFinal-Recipient: rfc822; x@rig.test\nAction: failed\nStatus: 5.1.1\n--b--\n"
        ),
    );
    // A real bounce made by Postfix: mail from the game's address to a
    // place the rig cannot deliver comes back to the game as a DSN.
    // (Through sendmail(1): smtpd would refuse the address at once.)
    let mut sendmail = std::process::Command::new("timeout")
        .args(["20", "sendmail", "-C"])
        .arg(rig.dir.join("postfix"))
        .args(["-f", &game_addr, "nobody@elsewhere.test"])
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = sendmail.stdin.take().unwrap();
        write!(
            stdin,
            "From: {game_addr}\nTo: nobody@elsewhere.test\nSubject: report\n\nGAME demo\nPOWER france\n"
        )
        .unwrap();
    }
    assert!(sendmail.wait().unwrap().success());
    let n_auto = auto.len() + 2;
    assert_eq!(n_auto, 20);
    wait_pipe(&rig, "sent", sent0 + 2, n_auto);
    assert_eq!(pipe_log(&rig, "bounced").len(), bounced0, "the pipe never bounced");
    assert_eq!(archived(&root).len(), 2 + n_auto, "every automatic mail is archived");
    assert_eq!(send_all(), 0, "no reply to any automatic mail");
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    let ignored: Vec<&str> = journal.lines().filter(|l| l.contains(": not answered (")).collect();
    assert_eq!(ignored.len(), n_auto, "{journal}");
    assert!(
        ignored
            .iter()
            .any(|l| l.contains("from mailer-daemon@") && !l.contains(&nonce)),
        "Postfix's own bounce came back through the pipe: {journal}"
    );
    assert!(
        ignored.iter().any(|l| l.contains("a delivery or read report")),
        "{journal}"
    );

    // 4. At most max_replies_per_day (3) replies to one address a day.
    for i in 0..5 {
        send_raw(
            &rig,
            Some("austria@rig.test"),
            &game_addr,
            &format!(
                "From: austria@rig.test\nTo: {game_addr}\nSubject: orders {i}\nMessage-ID: <cap-{i}-{nonce}@rig.test>\n\nGAME demo\nPOWER austria\nMOVE FIRST\nEND\n"
            ),
        );
    }
    wait_pipe(&rig, "sent", sent0 + 2 + n_auto, 5);
    assert_eq!(send_all(), 3, "three replies, then the journal only");
    wait_for(&rig, &before, "austria", 3);
    std::thread::sleep(Duration::from_secs(1));
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert_eq!(
        journal
            .lines()
            .filter(|l| l.contains("replies to that address today already"))
            .count(),
        2,
        "{journal}"
    );
    let au = maildir_files(&rig, "austria")
        .into_iter()
        .filter(|p| !before["austria"].iter().any(|b| unique(b) == unique(p)))
        .count();
    assert_eq!(au, 3, "no fourth reply arrived");
    assert_eq!(pipe_log(&rig, "bounced").len(), bounced0, "the pipe never bounced");
}

/// The game of the refusal test: France and Austria read their mail on
/// the rig, Russia's player gave an address the rig has no user for
/// (refused at RCPT), Prussia's one the rig takes and then bounces (a
/// delivery status notification comes back later).
fn players_with_dead_addresses() -> String {
    format!(
        "{}[[player]]\npower = \"russia\"\nname = \"Alexander's Player\"\nemail = \"tsar@rig.test\"\npassword = \"borodino\"\n\
         [[player]]\npower = \"prussia\"\nname = \"Frederick's Player\"\nemail = \"prussia@rig.test\"\npassword = \"jena\"\n",
        players_toml()
    )
}

/// Lines of Postfix's log where smtpd refused `rcpt` at RCPT.
fn rejected_rcpt(rig: &Rig, rcpt: &str) -> usize {
    std::fs::read_to_string(rig.dir.join("postfix/maillog"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("NOQUEUE: reject: RCPT") && l.contains(&format!("<{rcpt}>")))
        .count()
}

/// The messages delivered to `user` during this test (bounces apart)
/// whose subject or text contains `needle`, waiting up to 20 s for `n` of them.
fn wait_for_text(
    rig: &Rig,
    before: &BTreeMap<String, Vec<PathBuf>>,
    user: &str,
    needle: &str,
    n: usize,
) -> Vec<Vec<u8>> {
    let start = Instant::now();
    loop {
        let got: Vec<Vec<u8>> = maildir_files(rig, user)
            .into_iter()
            .filter(|p| !before[user].iter().any(|b| unique(b) == unique(p)))
            .filter_map(|p| std::fs::read(p).ok())
            .filter(|raw| !from_mailer_daemon(raw))
            .filter(|raw| {
                let m = parse(raw);
                let body = m.body_text(0).map(|b| flat(&b)).unwrap_or_default();
                m.subject().is_some_and(|s| s.contains(needle)) || body.contains(needle)
            })
            .collect();
        if got.len() >= n || start.elapsed() > Duration::from_secs(20) {
            assert!(
                got.len() >= n,
                "{user}: {} of {n} messages with '{needle}' after 20 s",
                got.len()
            );
            return got;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn to_addresses(raw: &[u8]) -> Vec<String> {
    parse(raw)
        .to()
        .map(|a| a.iter().filter_map(|x| x.address()).map(str::to_string).collect())
        .unwrap_or_default()
}

/// Issue 33 points 3, 4 and 8 through the real servers. A mail to every
/// player (the announcement of physical dice) reaches each player whose
/// address works, while the server refuses Russia's (550 at RCPT) and
/// bounces Prussia's later. The refused copy is reported once and held,
/// never tried again on its own; the moderator is told by mail, drops it
/// (journalled, never reported again) or, once the address is fixed,
/// releases the next one to the new address. The bounce (RFC 3464, made
/// by Postfix) is ingested, never answered, recorded in
/// mail/bounces.toml, told to the moderator once per address, and listed
/// by `status`.
#[test]
#[ignore = "needs real mail servers: run .ci/mailrig.sh test"]
fn one_refused_address_never_blocks_a_mail_to_every_player_and_its_bounce_reaches_the_moderator() {
    let rig = Rig::from_env();
    let before = baseline(&rig);
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("refusals");
    new_game(&rig, &root, "refusals", &players_with_dead_addresses());
    let g = GameDir::new(&root);
    let send = |drop: Vec<String>, release: Vec<String>| {
        ops::send::send(
            &ops::send::SendArgs {
                game: root.clone(),
                dry_run: false,
                release,
                drop,
            },
            Utc::now(),
        )
        .unwrap()
    };
    let rejected0 = rejected_rcpt(&rig, "tsar@rig.test");

    // The mail to every player, one copy each.
    let first: empereur::ids::PhaseId = "1806-spring-turn-start".parse().unwrap();
    ops::physical_dice::announce(&g, first, Utc::now()).unwrap();
    let d = send(vec![], vec![]);
    let refused: Vec<&String> = d
        .iter()
        .filter_map(|x| match x {
            Delivery::Refused { id, error } => {
                assert!(error.contains("550"), "{error}");
                Some(id)
            }
            _ => None,
        })
        .collect();
    assert_eq!(refused.len(), 1, "{d:?}");
    let refused_id = refused[0].clone();
    assert_eq!(
        d.iter().filter(|x| matches!(x, Delivery::Sent { .. })).count(),
        4,
        "France, Austria, Prussia (accepted, bounced later) and the moderator: {d:?}"
    );
    assert_eq!(rejected_rcpt(&rig, "tsar@rig.test"), rejected0 + 1);
    // Each working address has its copy, showing only its own address.
    let subject = "1806-spring-turn-start will be resolved with physical dice";
    for (user, addr) in [
        ("france", "france@rig.test"),
        ("austria", "austria@rig.test"),
        ("gm", "gm@rig.test"),
    ] {
        let got = wait_for_text(&rig, &before, user, subject, 1);
        assert_eq!(got.len(), 1, "{user}");
        assert_eq!(to_addresses(&got[0]), [addr]);
        let raw = String::from_utf8_lossy(&got[0]);
        assert!(!raw.contains("tsar@") && !raw.contains("prussia@"), "{raw}");
    }
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert!(
        journal.contains(&format!("send: {refused_id} to tsar@rig.test refused for good, held")),
        "{journal}"
    );

    // The next send: the moderator's note goes out; the refused copy is
    // not tried again, nor reported as new.
    let d = send(vec![], vec![]);
    assert!(
        d.iter()
            .any(|x| matches!(x, Delivery::StillRefused { id, .. } if *id == refused_id)),
        "{d:?}"
    );
    assert!(!d.iter().any(|x| matches!(x, Delivery::Refused { .. })), "{d:?}");
    let note = wait_for_text(&rig, &before, "gm", "the mail server refused a message", 1);
    let body = flat(&parse(&note[0]).body_text(0).unwrap());
    assert!(body.contains("to: tsar@rig.test"), "{body}");
    assert!(body.contains(&format!("--drop {refused_id}")), "{body}");
    assert_eq!(rejected_rcpt(&rig, "tsar@rig.test"), rejected0 + 1, "held, not retried");

    // The moderator drops it: journalled, never sent, never reported again.
    let d = send(vec![refused_id.clone()], vec![]);
    assert!(
        matches!(&d[..], [Delivery::Dropped { id, to }] if *id == refused_id && to == &["tsar@rig.test"]),
        "{d:?}"
    );
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert!(
        journal.contains(&format!(
            "send: {refused_id} to tsar@rig.test dropped by the moderator, never sent"
        )),
        "{journal}"
    );
    assert!(send(vec![], vec![]).is_empty(), "nothing left to report");
    assert_eq!(rejected_rcpt(&rig, "tsar@rig.test"), rejected0 + 1);

    // Prussia's copy bounced: Postfix's report comes back to the game's
    // address; the moderator's mail is ingested.
    let bounce = |n: usize| -> Vec<Vec<u8>> {
        let start = Instant::now();
        loop {
            let got: Vec<Vec<u8>> = maildir_files(&rig, "gm")
                .into_iter()
                .filter(|p| !before["gm"].iter().any(|b| unique(b) == unique(p)))
                .map(|p| std::fs::read(p).unwrap())
                .filter(|raw| from_mailer_daemon(raw))
                .collect();
            if got.len() >= n || start.elapsed() > Duration::from_secs(20) {
                assert_eq!(got.len(), n, "bounces after 20 s");
                return got;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let ingest_bounces = |bounces: &[Vec<u8>], tag: &str| {
        let inbox = tmp.path().join(format!("bounces-{tag}"));
        for sub in ["new", "cur", "tmp"] {
            std::fs::create_dir_all(inbox.join(sub)).unwrap();
        }
        for (i, raw) in bounces.iter().enumerate() {
            std::fs::write(inbox.join("new").join(format!("{i}.rig")), raw).unwrap();
        }
        let args = ops::ingest::IngestArgs {
            game: Some(root.clone()),
            games: None,
            maildir: Some(inbox),
            mbox: None,
            files: vec![],
        };
        ops::ingest::ingest(&args, Utc::now()).unwrap()
    };
    let dsn = bounce(1);
    let handled = ingest_bounces(&dsn, "1");
    assert!(
        matches!(&handled[..], [h] if h.verdict == Verdict::Ignored),
        "{handled:?}"
    );
    let dead = empereur::mail::dsn::load(&g).unwrap();
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert_eq!(dead[0].address, "prussia@rig.test");
    assert_eq!(dead[0].power, PowerId::Prussia);
    assert!(dead[0].status.starts_with("5."), "{dead:?}");
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert!(
        journal.contains("not answered (a delivery or read report: prussia@rig.test failed 5."),
        "{journal}"
    );
    let status = ops::workflow::status(&ops::workflow::GameOnly { game: root.clone() }).unwrap();
    assert!(
        status
            .to_string()
            .contains("dead address: prussia@rig.test (prussia): 5."),
        "{status}"
    );
    // The note is the only mail the bounce makes: MAILER-DAEMON gets no answer.
    let d = send(vec![], vec![]);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(matches!(&d[0], Delivery::Sent { .. }), "{d:?}");
    let dead_note = wait_for_text(&rig, &before, "gm", "address prussia@rig.test is dead", 1);
    let body = flat(&parse(&dead_note[0]).body_text(0).unwrap());
    assert!(
        body.contains("mail to prussia@rig.test (Prussia's player) cannot be delivered"),
        "{body}"
    );

    // The next mail to every player: the refused copy is held on its own
    // again; the moderator fixes Russia's address and releases it, and
    // it reaches the new address. Prussia's second bounce is recorded,
    // but the moderator is not told twice.
    let second: empereur::ids::PhaseId = "1807-spring-turn-start".parse().unwrap();
    ops::physical_dice::announce(&g, second, Utc::now()).unwrap();
    let d = send(vec![], vec![]);
    let held: Vec<String> = d
        .iter()
        .filter_map(|x| match x {
            Delivery::Refused { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(held.len(), 1, "{d:?}");
    assert_eq!(
        d.iter().filter(|x| matches!(x, Delivery::Sent { .. })).count(),
        4,
        "{d:?}"
    );
    let subject2 = "1807-spring-turn-start will be resolved with physical dice";
    for user in ["france", "austria", "gm"] {
        wait_for_text(&rig, &before, user, subject2, 1);
    }
    let mut cfg = g.load_config().unwrap();
    let russia = cfg.players.iter_mut().find(|p| p.power == PowerId::Russia).unwrap();
    russia.email = "russia@rig.test".into();
    empereur::store::atomic_write(&g.config(), cfg.to_toml().as_bytes()).unwrap();
    let d = send(vec![], held.clone());
    assert!(
        d.iter()
            .any(|x| matches!(x, Delivery::Sent { id, .. } if *id == held[0])),
        "{d:?}"
    );
    let ru = wait_for_text(&rig, &before, "russia", subject2, 1);
    assert_eq!(to_addresses(&ru[0]), ["russia@rig.test"]);
    let ru_all = maildir_files(&rig, "russia")
        .into_iter()
        .filter(|p| !before["russia"].iter().any(|b| unique(b) == unique(p)))
        .count();
    assert_eq!(ru_all, 1, "the dropped announcement never arrived");
    let dsn = bounce(2);
    let handled = ingest_bounces(&dsn, "2");
    assert!(
        handled
            .iter()
            .all(|h| matches!(h.verdict, Verdict::Ignored | Verdict::Duplicate)),
        "{handled:?}"
    );
    let dead = empereur::mail::dsn::load(&g).unwrap();
    assert_eq!(dead[0].reports, 2, "{dead:?}");
    let notes = send(vec![], vec![]);
    assert!(notes.is_empty(), "told once per dead address: {notes:?}");

    // `send` lists the dead address until the moderator dismisses it,
    // for good and journalled (`send --drop ADDRESS`).
    let report = |drop: Vec<String>| {
        ops::send::run(&ops::send::SendArgs {
            game: root.clone(),
            dry_run: false,
            release: vec![],
            drop,
        })
        .unwrap()
    };
    let listed = report(vec![]).to_string();
    assert!(listed.contains("DEAD ADDRESS prussia@rig.test (prussia)"), "{listed}");
    let dismissed = report(vec!["prussia@rig.test".into()]);
    assert!(
        matches!(&dismissed.deliveries[..], [Delivery::Dismissed { address, power }] if address == "prussia@rig.test" && *power == PowerId::Prussia),
        "{dismissed:?}"
    );
    assert!(!dismissed.to_string().contains("DEAD ADDRESS"), "{dismissed}");
    let journal = std::fs::read_to_string(g.journal()).unwrap();
    assert!(
        journal.contains("send: dead address prussia@rig.test (prussia) dismissed by the moderator"),
        "{journal}"
    );
    let status = ops::workflow::status(&ops::workflow::GameOnly { game: root.clone() }).unwrap();
    assert!(!status.to_string().contains("dead address"), "{status}");
}
