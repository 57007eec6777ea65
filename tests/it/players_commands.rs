//! Player commands by mail (STATUS, STATE, RESEND, HISTORY, SET
//! PASSWORD, ORDERS, HELP) through the real ingest path: each mail is
//! archived, authenticated and answered as any order mail is, and the
//! answers are read back from the outbox.
#![allow(clippy::disallowed_methods)] // tests read and write files

use empereur::ids::PowerId;
use empereur::mail::auth::Refusal;
use empereur::mail::ingest::{self, GameCtx, Run, Verdict};
use empereur::ops::resolve::{ResolveOptions, Resolved, resolve_game};
use empereur::store::{GameDir, players, submission};
use mail_parser::MimeHeaders;
use std::path::Path;

use crate::players_common::{PLAYERS, mail, new_game, now, text};

/// One mail of the outbox: recipients, subject, body, attachments.
struct Out {
    to: Vec<String>,
    subject: String,
    body: String,
    attachments: Vec<(String, String)>,
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
        attachments: m
            .attachments()
            .map(|a| {
                (
                    a.attachment_name().unwrap_or("").to_string(),
                    String::from_utf8_lossy(a.contents()).replace("\r\n", "\n"),
                )
            })
            .collect(),
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

fn resolve(game: &Path) {
    let opts = ResolveOptions {
        now: Some("2026-11-30T09:30:00Z".into()),
        ..ResolveOptions::default()
    };
    assert!(matches!(
        resolve_game(&GameDir::new(game), &opts).unwrap(),
        Resolved::Done(_)
    ));
}

#[test]
fn status_help_and_orders_are_answered_in_the_acknowledgement_and_store_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "s1",
        &text("france", "austerlitz", "STATUS\nHELP\nORDERS"),
    );
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
    assert_eq!(mails.len(), 1, "the answers are in the acknowledgement");
    let body = &ack(&mails).body;
    assert!(
        body.contains("STATUS of game demo, phase 1805-fall-turn-start:"),
        "{body}"
    );
    assert!(body.contains("In: none"), "{body}");
    // Only France orders at the Turn Start (4.6).
    assert!(body.contains("Not in yet: France\n"), "{body}");
    assert!(
        body.contains("HELP for France in phase 1805-fall-turn-start:"),
        "{body}"
    );
    // The Turn Start takes COOPERATE and MOVE FIRST (3.7, 4.6).
    assert!(body.contains("COOPERATE, MOVE FIRST"), "{body}");
    assert!(body.contains("PRESS TO"), "{body}");
    assert!(body.contains("ORDERS: nothing is stored for France"), "{body}");
    assert!(!body.contains("NO  STATUS"), "a command is no rejected order: {body}");
    // None of them is an order: nothing stored, France is not in.
    assert!(submission::load_all(&GameDir::new(&game)).unwrap().is_empty());
    let journal = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    for c in ["STATUS", "HELP", "ORDERS"] {
        assert!(journal.contains(&format!("france asked {c}\n")), "{journal}");
    }
    // A mail with neither orders that count nor commands is still empty.
    let (v, _) = send(
        &game,
        "france@demo.example.org",
        "s2",
        &text("france", "austerlitz", "MAYBE LATER"),
    );
    assert_eq!(
        v,
        Verdict::Empty {
            power: PowerId::France,
            rejected: 1
        }
    ); // Nor is a mail of header lines alone: nothing was asked.
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "s3",
        &text("france", "austerlitz", ""),
    );
    assert_eq!(
        v,
        Verdict::Empty {
            power: PowerId::France,
            rejected: 0
        }
    );
    assert!(ack(&mails).body.contains("NOTHING was stored"));
}

#[test]
fn a_command_in_the_same_mail_as_orders_sees_them_stored() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "o1",
        &text("france", "austerlitz", "ORDERS\nMOVE FIRST\nSTATUS"),
    );
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
    let body = &ack(&mails).body;
    assert!(
        body.contains("ORDERS stored for France in phase 1805-fall-turn-start"),
        "{body}"
    );
    assert!(body.contains("  MOVE FIRST"), "{body}");
    assert!(body.contains("In: France"), "{body}");
    assert!(body.contains("Not in yet: none"), "{body}");
    assert!(body.contains("1 accepted, 0 rejected"), "{body}");
}

#[test]
fn commands_need_the_right_password_and_a_player_power() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    // Wrong password: refused, nothing of the game told.
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "w1",
        &text("france", "waterloo", "STATUS\nSTATE"),
    );
    assert_eq!(v, Verdict::Refused(Refusal::WrongPassword { power: PowerId::France }));
    assert_eq!(mails.len(), 1);
    assert!(!mails[0].body.contains("STATUS of game"), "{}", mails[0].body);
    assert!(mails[0].attachments.is_empty());
    // Another power's password: refused too.
    let (v, _) = send(
        &game,
        "france@demo.example.org",
        "w2",
        &text("austria", "austerlitz", "STATUS"),
    );
    assert_eq!(
        v,
        Verdict::Refused(Refusal::WrongPassword {
            power: PowerId::Austria
        })
    );
    // A power without a player (an NPC).
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "w3",
        &text("prussia", "austerlitz", "STATUS"),
    );
    assert_eq!(
        v,
        Verdict::Refused(Refusal::NotAPlayer {
            power: PowerId::Prussia
        })
    );
    assert!(!mails[0].body.contains("STATUS of game"));
}

#[test]
fn state_is_mailed_as_the_power_sees_it() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "st1",
        &text("france", "austerlitz", "STATE"),
    );
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
    assert!(
        ack(&mails)
            .body
            .contains("STATE: your state file and a summary follow in a separate mail.")
    );
    let m = mails.iter().find(|m| m.subject.contains("state of France")).unwrap();
    assert_eq!(m.to, vec!["france@demo.example.org".to_string()]);
    assert!(m.body.contains("France:"), "{}", m.body);
    assert!(m.body.contains("Your units:"), "{}", m.body);
    // Units by the names players write back, never the files' ids
    // (issue 33: "france corps 1 in paris").
    assert!(m.body.contains("French corps 1 in Paris ["), "{}", m.body);
    assert!(m.body.contains("French squadron 1 in port Brittany"), "{}", m.body);
    assert!(
        !m.body.contains("france corps") && !m.body.contains(" in paris"),
        "{}",
        m.body
    );
    let (name, toml) = &m.attachments[0];
    assert_eq!(name, "state-france.toml");
    let state = GameDir::new(&game).load_state().unwrap();
    assert_eq!(*toml, state.view_text_for(PowerId::France));
    // Not the moderator's whole state: Austria's corps are shown without
    // their divisions (2.5).
    assert_ne!(*toml, state.to_toml());
}

#[test]
fn history_resend_and_state_recover_a_players_files_by_mail_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    send(
        &game,
        "france@demo.example.org",
        "h0",
        &text("france", "austerlitz", "MOVE FIRST"),
    );
    resolve(&game);
    // The player lost every file: one mail asks for all of it.
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "h1",
        &text("france", "austerlitz", "STATE\nRESEND REPORT\nHISTORY"),
    );
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
    let body = &ack(&mails).body;
    assert!(body.contains("RESEND: 1 mail(s) queued"), "{body}");
    let state = GameDir::new(&game).load_state().unwrap();
    let st = mails.iter().find(|m| m.subject.contains("state of France")).unwrap();
    assert_eq!(st.attachments[0].1, state.view_text_for(PowerId::France));
    let report = mails
        .iter()
        .find(|m| m.subject.contains("report of 1805-fall-turn-start for France (resent)"))
        .unwrap();
    assert_eq!(report.to, vec!["france@demo.example.org".to_string()]);
    assert!(report.attachments.iter().any(|(n, _)| n == "state-france.toml"));
    let hist = mails.iter().find(|m| m.subject.contains("history for France")).unwrap();
    assert!(
        hist.body.contains("1  1805-fall-turn-start: resolved, opened"),
        "{}",
        hist.body
    );
    assert!(
        hist.body.contains(&format!("The open phase is {}.", state.phase)),
        "{}",
        hist.body
    );
    // RESEND OPENING of the open phase, by name.
    let (_, mails) = send(
        &game,
        "france@demo.example.org",
        "h2",
        &text("france", "austerlitz", &format!("RESEND OPENING {}", state.phase)),
    );
    assert!(
        mails
            .iter()
            .any(|m| m.subject.contains(&format!("phase {} is open (resent)", state.phase)))
    );
    // A phase with nothing to resend is said so, not an error.
    let (_, mails) = send(
        &game,
        "france@demo.example.org",
        "h3",
        &text("france", "austerlitz", "RESEND REPORT 1809-fall-build"),
    );
    let body = &ack(&mails).body;
    assert!(
        body.contains("RESEND: not sent: nothing to resend for phase 1809-fall-build"),
        "{body}"
    );
}

#[test]
fn set_password_changes_it_and_the_address_on_record_is_copied() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    // Sent from another address: taken (the password is right), with the
    // acknowledgement copied to the address on record.
    let (v, mails) = send(
        &game,
        "elsewhere@example.net",
        "p1",
        &text("france", "austerlitz", "SET PASSWORD marengo 1800"),
    );
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
    // The copy to the address on record is a mail of its own.
    assert_eq!(ack(&mails).to, ["elsewhere@example.net"]);
    let a = empereur::mail::outbox::queued(&GameDir::new(&game))
        .unwrap()
        .into_iter()
        .map(|id| out(&game, &id))
        .find(|m| m.subject.starts_with("Re:") && m.to == ["france@demo.example.org"])
        .expect("a copy to the address on record");
    assert!(
        a.body.contains("SET PASSWORD: the password of France is changed"),
        "{}",
        a.body
    );
    assert!(
        !a.body.contains("marengo"),
        "the new password is never echoed: {}",
        a.body
    );
    let (v, _) = send(
        &game,
        "france@demo.example.org",
        "p2",
        &text("france", "austerlitz", "STATUS"),
    );
    assert_eq!(v, Verdict::Refused(Refusal::WrongPassword { power: PowerId::France }));
    let (v, _) = send(
        &game,
        "france@demo.example.org",
        "p3",
        &text("france", "marengo 1800", "STATUS"),
    );
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
    let journal = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    assert!(journal.contains("france changed its password by mail"));
    assert!(!journal.contains("marengo"));
    assert!(journal.contains("france asked SET PASSWORD [hidden]"), "{journal}");
}

#[test]
fn after_set_password_the_old_one_is_refused_in_the_same_run() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    // One run (one context, one password cache), three mails: a cron run
    // that finds them all in the mailbox at once.
    let ctx = GameCtx::load(&game).unwrap();
    let mut run = Run::new(now());
    let mut one = |id: &str, pw: &str, lines: &str| {
        ingest::ingest_game(
            &ctx,
            &mail("france@demo.example.org", id, &text("france", pw, lines)),
            &mut run,
        )
        .unwrap()
        .verdict
    };
    assert_eq!(
        one("r1", "austerlitz", "SET PASSWORD jena"),
        Verdict::Noted { power: PowerId::France }
    );
    assert_eq!(
        one("r2", "austerlitz", "STATUS"),
        Verdict::Refused(Refusal::WrongPassword { power: PowerId::France })
    );
    assert_eq!(one("r3", "jena", "STATUS"), Verdict::Noted { power: PowerId::France });
    assert_eq!(
        one("r4", "jena", "SET PASSWORD wagram"),
        Verdict::Noted { power: PowerId::France }
    );
    assert_eq!(
        one("r5", "jena", "STATUS"),
        Verdict::Refused(Refusal::WrongPassword { power: PowerId::France })
    );
    assert_eq!(one("r6", "wagram", "STATUS"), Verdict::Noted { power: PowerId::France });
    run.flush().unwrap();
}

#[test]
fn status_shows_the_deadline_in_the_players_time_zone() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let g = GameDir::new(&game);
    let config = g.load_config().unwrap();
    let opened = now() - chrono::Duration::hours(2);
    let clock = empereur::ops::workflow::ensure_clock(&g, &config, opened).unwrap();
    let (_, mails) = send(
        &game,
        "france@demo.example.org",
        "tz1",
        &text("france", "austerlitz", "STATUS"),
    );
    let deadline = clock.deadline(now(), &config.deadlines, config.tz(), &[]);
    let ny: chrono_tz::Tz = "America/New_York".parse().unwrap();
    let shown = empereur::zone::shown(deadline, ny);
    let body = &ack(&mails).body;
    assert!(
        body.contains(&format!("Deadline: {shown} (your time zone: America/New_York)")),
        "{body}"
    );
    assert!(body.contains("Grace: 24 hour(s)"), "{body}");
    // Austria has no time zone of its own: the game's (UTC).
    let (_, mails) = send(
        &game,
        "austria@demo.example.org",
        "tz2",
        &text("austria", "aspern", "STATUS"),
    );
    let utc = format!(
        "Deadline: {} (your time zone: UTC)",
        empereur::zone::shown(deadline, chrono_tz::Tz::UTC)
    );
    assert!(ack(&mails).body.contains(&utc), "{}", ack(&mails).body);
}

#[test]
fn a_bad_time_zone_in_players_toml_is_refused_with_its_line() {
    let bad = PLAYERS.replace("America/New_York", "Mars/Olympus");
    let e = players::parse("players.toml", &bad).err().unwrap();
    assert!(e.starts_with("players.toml:11: timezone 'Mars/Olympus'"), "{e}");
}

#[test]
fn commands_written_wrong_are_said_so_and_not_read_as_orders() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "x1",
        &text("france", "austerlitz", "RESEND REPORT OF LAST WEEK\nSET PASSWORD"),
    );
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
    let body = &ack(&mails).body;
    assert!(body.contains("Not understood: line 4: write RESEND"), "{body}");
    assert!(
        body.contains("Not understood: line 5: SET PASSWORD needs the new password"),
        "{body}"
    );
}

/// Every example of the README's commands and press sections is read
/// as commands or press, entirely (no line left for the order checker
/// but the header).
#[test]
fn every_command_and_press_example_in_the_readme_is_understood() {
    use empereur::mail::commands::{self, Command};
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("orders/README.md")).unwrap();
    let start = readme.find("## Commands by mail").expect("a commands section");
    let end = readme[start..].find("## The normalised form").unwrap() + start;
    let section = &readme[start..end];
    let (mut commands, mut press, mut blocks) = (Vec::new(), 0, 0);
    for block in section.split("```text\n").skip(1) {
        let block = block.split("```").next().unwrap();
        blocks += 1;
        let ex = commands::extract(block);
        assert!(ex.problems.is_empty(), "{block}: {:?}", ex.problems);
        for line in ex.text.lines() {
            let first = line.split_whitespace().next().unwrap_or("").to_ascii_uppercase();
            assert!(
                line.trim().is_empty() || ["GAME", "POWER", "PASSWORD"].contains(&first.as_str()),
                "not read as a command: {line}"
            );
        }
        commands.extend(ex.commands);
        press += ex.press.len();
    }
    assert_eq!(blocks, 4);
    assert_eq!(press, 2);
    for c in [
        Command::Status,
        Command::State,
        Command::Orders,
        Command::History,
        Command::Help,
    ] {
        assert!(commands.contains(&c), "{c:?} has no example");
    }
    assert!(commands.contains(&Command::SetPassword("a new secret".into())));
    assert!(commands.iter().filter(|c| matches!(c, Command::Resend { .. })).count() >= 4);
}

#[test]
fn a_stranger_asking_to_join_is_forwarded_to_the_moderator_once_and_answered_once() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let ctx = GameCtx::load(&game).unwrap();
    let mut run = Run::new(now());
    let ask = mail(
        "newcomer@else.example.net",
        "j1",
        "Hello,\nJOIN Prussia\nI would like to play.\u{7}\n",
    );
    let h = ingest::ingest_game(&ctx, &ask, &mut run).unwrap();
    assert_eq!(h.verdict, Verdict::Refused(Refusal::NoPower));
    assert_eq!(h.replies.len(), 2);
    let answer = out(&game, &h.replies[0]);
    assert_eq!(answer.to, ["newcomer@else.example.net"]);
    assert_eq!(answer.body.trim_end(), empereur::mail::join::JOIN_REPLY.trim_end());
    assert!(!answer.body.contains("demo") && !answer.body.contains("Prussia"));
    let fwd = out(&game, &h.replies[1]);
    assert_eq!(fwd.to, ["gm@demo.example.org"]);
    assert_eq!(
        fwd.subject,
        "Empereur demo: join request from newcomer@else.example.net"
    );
    assert!(
        fwd.body.contains("Asks for: Prussia (Prussia has no player (an NPC))"),
        "{}",
        fwd.body
    );
    assert!(fwd.body.contains("  | I would like to play.\\u{7}"), "{}", fwd.body);
    assert!(
        fwd.body
            .contains("empereur replace-player --game <dir> --power prussia"),
        "{}",
        fwd.body
    );
    // The same sender again that day: neither answered nor forwarded.
    let again = mail("newcomer@else.example.net", "j2", "JOIN Prussia please\n");
    let h = ingest::ingest_game(&ctx, &again, &mut run).unwrap();
    assert!(h.replies.is_empty(), "{:?}", h.replies);
    run.flush().unwrap();
    let journal = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    assert!(journal.contains("forwarded to the moderator as a join request"));
}

/// 3.31 (reading: the Allied PC orders its Allied NPC's builds): in one
/// mail France orders its own build and one for Spain, its Allied NPC,
/// through the same gate; a build for an NPC France does not run (Prussia,
/// Inactive) is refused. At resolution Spain's build is paid from Spain's
/// treasury into Spain's corps.
#[test]
fn the_allied_pc_orders_its_allied_npcs_builds_in_its_own_mail() {
    use empereur::state::Control;
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let g = GameDir::new(&game);
    let mut state = g.load_state().unwrap();
    state.phase = "1805-fall-build".parse().unwrap();
    state.power_mut(PowerId::Spain).control = Control::Allied { with: PowerId::France };
    state.relations.set_alliance(PowerId::France, PowerId::Spain, true);
    g.save_state(&state).unwrap();
    // the Build phase opened with its own dice commitment
    empereur::store::phase::open(&g, &state, None).unwrap();
    let (france_gold, spain_gold) = (state.power(PowerId::France).gold, state.power(PowerId::Spain).gold);
    let spanish = state
        .corps(&empereur::ids::Nation::Major(PowerId::Spain), 2)
        .unwrap()
        .divisions
        .len();
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "b1",
        &text(
            "france",
            "austerlitz",
            "PHASE 1805-fall-build\nBUILD corps 3: 1 cav\nBUILD Spanish corps 2: 1 inf\nBUILD Prussian corps 3: 1 inf",
        ),
    );
    assert!(
        matches!(
            v,
            Verdict::Accepted {
                power: PowerId::France,
                accepted: 2,
                rejected: 1,
                ..
            }
        ),
        "{v:?}"
    );
    let body = &ack(&mails).body;
    assert!(body.contains("not France's"), "{body}");
    send(
        &game,
        "austria@demo.example.org",
        "b2",
        &text("austria", "aspern", "PHASE 1805-fall-build\nPASS"),
    );
    resolve(&game);
    let after = g.load_state().unwrap();
    let spain = empereur::ids::Nation::Major(PowerId::Spain);
    assert_eq!(after.corps(&spain, 2).unwrap().divisions.len(), spanish + 1);
    assert!(
        after.power(PowerId::Spain).gold < spain_gold,
        "Spain pays for its own build"
    );
    // France pays only for its cavalry division
    let cav = i64::from(
        empereur::scenario::Scenario::embedded("1805")
            .unwrap()
            .power(PowerId::France)
            .costs
            .cavalry,
    );
    assert_eq!(after.power(PowerId::France).gold, france_gold - cav);
}

/// Reading stops at END and at a signature, for commands and the lines
/// about the player as for orders (orders/README.md, "Ignored"): what a
/// player keeps below END (a draft, notes) or a signature that holds a
/// command word asks nothing, and a SET PASSWORD or SECOND there changes
/// nothing.
#[test]
fn lines_after_end_or_a_signature_are_not_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let body = "GAME demo\nPOWER france\nPASSWORD austerlitz\nSTATUS\nEND\n\n\
                for next time:\nSET PASSWORD jena\nHISTORY\nSECOND deputy@example.net\n";
    let (v, mails) = send(&game, "france@demo.example.org", "e1", body);
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
    let body = &ack(&mails).body;
    assert!(body.contains("STATUS of game demo"), "{body}");
    assert!(!body.contains("password of France is changed"), "{body}");
    assert!(!body.contains("may now send orders"), "{body}");
    let body = "GAME demo\nPOWER france\nPASSWORD austerlitz\nORDERS\n-- \nSTATE\n";
    let (v, mails) = send(&game, "france@demo.example.org", "e2", body);
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
    assert_eq!(
        mails.len(),
        1,
        "no STATE mail: {:?}",
        mails.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    assert!(ack(&mails).attachments.is_empty());
    let journal = std::fs::read_to_string(GameDir::new(&game).journal()).unwrap();
    assert!(journal.contains("france asked STATUS\n"), "{journal}");
    assert!(journal.contains("france asked ORDERS\n"), "{journal}");
    for c in ["SET PASSWORD", "HISTORY", "STATE"] {
        assert!(!journal.contains(&format!("france asked {c}")), "{journal}");
    }
    // The password is still the old one.
    let (v, _) = send(
        &game,
        "france@demo.example.org",
        "e3",
        &text("france", "jena", "STATUS"),
    );
    assert_eq!(v, Verdict::Refused(Refusal::WrongPassword { power: PowerId::France }));
    let (v, _) = send(
        &game,
        "france@demo.example.org",
        "e4",
        &text("france", "austerlitz", "STATUS"),
    );
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
}

/// A new password of exactly 200 characters is taken; one of 201 is
/// refused with the limit, and the old password still holds.
#[test]
fn set_password_takes_200_characters_and_refuses_201() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let long = "w".repeat(201);
    let (_, mails) = send(
        &game,
        "france@demo.example.org",
        "l1",
        &text("france", "austerlitz", &format!("SET PASSWORD {long}")),
    );
    let body = &ack(&mails).body;
    assert!(
        body.contains("a password is at most 200 characters, without control characters; not changed"),
        "{body}"
    );
    let exact = "w".repeat(200);
    let (v, mails) = send(
        &game,
        "france@demo.example.org",
        "l2",
        &text("france", "austerlitz", &format!("SET PASSWORD {exact}")),
    );
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
    let body = &ack(&mails).body;
    assert!(
        body.contains("SET PASSWORD: the password of France is changed"),
        "{body}"
    );
    let (v, _) = send(
        &game,
        "france@demo.example.org",
        "l3",
        &text("france", &exact, "STATUS"),
    );
    assert_eq!(v, Verdict::Noted { power: PowerId::France });
}
