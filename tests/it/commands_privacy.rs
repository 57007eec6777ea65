//! What a mail command returns, and to whom (issue 36: a command once
//! sent a power information that was not its own and no test noticed).
//! France's player stores orders; Austria's player asks ORDERS, STATUS
//! and STATE: each answer goes to Austria's sender alone and shows
//! Austria's own, never France's orders or France's hidden units.
#![allow(clippy::disallowed_methods)] // tests read and write files

use crate::players_common::{mail, new_game, now, text};
use empereur::ids::PowerId;
use empereur::mail::ingest::{self, GameCtx, Run, Verdict};
use empereur::store::GameDir;
use std::path::Path;

/// One queued mail: every recipient (To and Cc), subject, body and the
/// attachments' text.
struct Out {
    to: Vec<String>,
    subject: String,
    text: String,
}

fn out(dir: &Path, id: &str) -> Out {
    let g = GameDir::new(dir);
    let raw = std::fs::read(g.outbox().join(format!("{id}.eml"))).unwrap();
    let env = empereur::mail::outbox::read_envelope(&g.outbox().join(format!("{id}.json"))).unwrap();
    let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
    let mut text = m.body_text(0).unwrap().replace("\r\n", "\n");
    for a in m.attachments() {
        text.push_str(&String::from_utf8_lossy(a.contents()).replace("\r\n", "\n"));
    }
    Out {
        to: env.to,
        subject: env.subject,
        text,
    }
}

fn send(game: &Path, from: &str, id: &str, body: &str) -> (Verdict, Vec<Out>) {
    let ctx = GameCtx::load(game).unwrap();
    let mut run = Run::new(now());
    let h = ingest::ingest_game(&ctx, &mail(from, id, body), &mut run).unwrap();
    run.flush().unwrap();
    let mails = h.replies.iter().map(|r| out(game, r)).collect();
    (h.verdict, mails)
}

#[test]
fn orders_status_and_state_show_the_asker_its_own_and_go_to_it_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    // France orders at the Turn Start (4.6): MOVE FIRST is stored.
    let (v, _) = send(
        &game,
        "france@demo.example.org",
        "f1",
        &text("france", "austerlitz", "PHASE 1805-fall-turn-start\nMOVE FIRST"),
    );
    assert!(matches!(v, Verdict::Accepted { .. }), "{v:?}");

    let (v, mails) = send(
        &game,
        "austria@demo.example.org",
        "a1",
        &text("austria", "aspern", "ORDERS\nSTATUS\nSTATE"),
    );
    assert_eq!(
        v,
        Verdict::Noted {
            power: PowerId::Austria
        }
    );
    assert!(!mails.is_empty());
    for m in &mails {
        assert_eq!(m.to, vec!["austria@demo.example.org".to_string()], "{}", m.subject);
        assert!(
            !m.text.contains("MOVE FIRST"),
            "{}: France's orders shown to Austria:\n{}",
            m.subject,
            m.text
        );
        assert!(
            !m.text.contains("france@"),
            "{}: France's address shown:\n{}",
            m.subject,
            m.text
        );
    }
    let ack = mails
        .iter()
        .find(|m| m.subject.starts_with("Re:"))
        .expect("an acknowledgement");
    assert!(
        ack.text
            .contains("ORDERS: nothing is stored for Austria in phase 1805-fall-turn-start"),
        "{}",
        ack.text
    );
    // STATUS says who is in, not what they ordered.
    assert!(ack.text.contains("In: France\n"), "{}", ack.text);
    assert!(
        ack.text.contains("Austria may send orders in this phase."),
        "{}",
        ack.text
    );
    // STATE is Austria's view of the state, not France's nor the whole.
    let state = GameDir::new(&game).load_state().unwrap();
    let st = mails
        .iter()
        .find(|m| m.subject.contains("state of Austria"))
        .expect("a STATE mail");
    assert!(st.text.contains(&state.view_text_for(PowerId::Austria)), "{}", st.text);
    assert!(!st.text.contains(&state.view_text_for(PowerId::France)));

    // France asking ORDERS sees its own, with its receipt.
    let (_, mails) = send(
        &game,
        "france@demo.example.org",
        "f2",
        &text("france", "austerlitz", "ORDERS"),
    );
    let ack = mails.iter().find(|m| m.subject.starts_with("Re:")).unwrap();
    assert_eq!(ack.to, vec!["france@demo.example.org".to_string()]);
    assert!(
        ack.text
            .contains("ORDERS stored for France in phase 1805-fall-turn-start:"),
        "{}",
        ack.text
    );
    assert!(ack.text.contains("  MOVE FIRST"), "{}", ack.text);
}
