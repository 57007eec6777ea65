//! A draw by vote (orders/README.md, "A draw by vote"): the house rule
//! `draws`, a game option off by default. Every power plays by mail
//! through `run`; the tests read what each mailbox holds, the votes'
//! secrecy included: a power learns of no vote but its own until every
//! power still in the game has voted.
#![allow(clippy::disallowed_methods)] // tests use files freely

use crate::table_common::{ack, flat, game, game_with, mailbox, orders, t};
use empereur::ids::PowerId;
use empereur::ops::games::{Listed, Standing, overview};
use empereur::ops::run::run_game;
use empereur::store::GameDir;

/// Everything `who` (a power id) received: bodies and attachments.
fn everything(g: &GameDir, who: &str) -> String {
    let mut all = String::new();
    for m in mailbox(g, &format!("{who}@demo.example.org")) {
        all.push_str(&m.text);
        for (name, bytes) in &m.attachments {
            if !name.ends_with(".png") {
                all.push_str(&String::from_utf8_lossy(bytes));
            }
        }
    }
    all
}

/// The powers that must order in the open phase.
fn movers(g: &GameDir) -> Vec<PowerId> {
    let cfg = g.load_config().unwrap();
    let scenario = g.load_scenario(&cfg).unwrap();
    empereur::rules::roles(&scenario, &g.load_state().unwrap()).must
}

#[test]
fn draw_needs_every_power_still_in_the_game_a_vote_stands_until_withdrawn_and_stays_secret() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game_with(tmp.path(), "", &["draws"], |_| {});
    // The Turn Start: six of the seven vote (Austria does not).
    let mut mails = vec![orders("france", "f1", "MOVE FIRST\nDRAW")];
    for p in ["britain", "russia", "prussia", "spain", "ottoman"] {
        mails.push(orders(p, &format!("{p}1"), "DRAW"));
    }
    run_game(&g.root, &mails, t("2026-01-05T10:30:00Z")).unwrap();
    let a = ack(&g, "f1");
    assert!(a.contains("  ok  DRAW"), "{a}");
    let h = orders("britain", "h1", "HELP");
    run_game(&g.root, &[h], t("2026-01-05T10:40:00Z")).unwrap();
    assert!(flat(&ack(&g, "h1")).contains("DRAW / NODRAW: your secret vote for a draw"));
    assert!(flat(&a).contains("(2 accepted, 0 rejected;"), "{a}");
    assert!(
        flat(&a).contains("Your vote for a draw counts when phase 1805-fall-turn-start resolves"),
        "{a}"
    );
    let r = run_game(&g.root, &[], t("2026-01-05T11:05:00Z")).unwrap();
    assert_eq!(r.resolved.len(), 1);
    assert!(g.load_state().unwrap().over.is_none(), "six votes of seven end nothing");
    let france = everything(&g, "france");
    assert!(
        france.contains("France's vote for a draw stands until it orders NODRAW"),
        "{france}"
    );
    assert!(!france.contains("Britain's vote"), "{france}");
    // Austria, who did not vote, learns nothing of the others' votes:
    // not in its acknowledgements, reports, state file or anything else.
    let austria = everything(&g, "austria");
    assert!(!austria.to_lowercase().contains("vote"), "{austria}");
    assert!(!austria.contains("draw_votes"), "{austria}");

    // France's turn: France withdraws its vote, Austria votes. (The
    // mails, dated before the phase opened, name it.)
    let mails = vec![
        orders("france", "f2", "PHASE 1805-fall-france\nPASS\nNODRAW"),
        orders("austria", "a2", "PHASE 1805-fall-france\nDRAW"),
    ];
    run_game(&g.root, &mails, t("2026-01-05T11:10:00Z")).unwrap();
    let r = run_game(&g.root, &[], t("2026-01-05T11:45:00Z")).unwrap();
    assert_eq!(r.resolved.len(), 1);
    assert!(
        g.load_state().unwrap().over.is_none(),
        "France withdrew: six votes again"
    );
    assert!(everything(&g, "france").contains("France withdraws its vote for a draw"));
    assert!(!everything(&g, "britain").contains("withdraws its vote"));

    // The next Player Turn: France votes again, and its mover passes.
    let phase = format!("PHASE {}", g.load_state().unwrap().phase);
    let mut mails = Vec::new();
    for p in movers(&g).into_iter().filter(|p| *p != PowerId::France) {
        mails.push(orders(p.id(), &format!("{}3", p.id()), &format!("{phase}\nPASS")));
    }
    let france_lines = if movers(&g).contains(&PowerId::France) {
        format!("{phase}\nPASS\nDRAW")
    } else {
        format!("{phase}\nDRAW")
    };
    mails.push(orders("france", "f3", &france_lines));
    run_game(&g.root, &mails, t("2026-01-05T11:50:00Z")).unwrap();
    let r = run_game(&g.root, &[], t("2026-01-05T12:25:00Z")).unwrap();
    assert_eq!(r.resolved.len(), 1);
    assert_eq!(g.load_state().unwrap().over.as_deref(), Some("draw"));
    // Every report says so, and names the voters.
    for p in PowerId::ALL {
        let all = everything(&g, p.id());
        assert!(
            all.contains("The game ends in a draw: every power still in the game voted for one"),
            "{p:?}"
        );
    }
    // The game is over: for the moderator's overview and by mail.
    match &overview(tmp.path(), t("2026-01-05T12:30:00Z")).unwrap()[..] {
        [Listed::Game(l)] => assert_eq!(l.standing, Standing::Over { why: "draw".into() }),
        other => panic!("{other:?}"),
    }
    run_game(
        &g.root,
        &[orders(
            "austria",
            "s4",
            &format!("PHASE {}\nSTATUS", g.load_state().unwrap().phase),
        )],
        t("2026-01-05T12:40:00Z"),
    )
    .unwrap();
    let s = flat(&ack(&g, "s4"));
    assert!(s.contains("The game is over: draw"), "{s}");
}

#[test]
fn without_the_house_rule_draw_is_refused_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path(), "", |_| {});
    run_game(
        &g.root,
        &[orders("france", "f1", "MOVE FIRST\nDRAW")],
        t("2026-01-05T10:30:00Z"),
    )
    .unwrap();
    let a = ack(&g, "f1");
    assert!(a.contains("  NO  DRAW"), "{a}");
    assert!(flat(&a).contains("(1 accepted, 1 rejected;"), "{a}");
    assert!(flat(&a).contains("this game has no draw"), "{a}");
    assert!(flat(&a).contains("house rule (game option 'draws')"), "{a}");
    assert!(!flat(&a).contains("Your vote for a draw"), "{a}");
}
