//! The turn report's shape as a player reads it (issue 34): the
//! `Standings` table carries every power's Gold and VP, so the old
//! `Now: France: 35 Gold, 100 VP` block is gone; what the table does not
//! say (the power's units on the map) stays under `<Power> now:`, and the
//! phase mail still says whose turn it is.
#![allow(clippy::disallowed_methods)] // tests use files freely

use crate::table_common::{find, game, orders, t};
use empereur::ops::run::run_game;

#[test]
fn the_report_says_gold_and_vp_once_in_its_standings_table() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path(), "", |_| {});
    run_game(
        &g.root,
        &[orders("france", "o1", "MOVE FIRST")],
        t("2026-01-05T10:30:00Z"),
    )
    .unwrap();
    let r = run_game(&g.root, &[], t("2026-01-05T11:05:00Z")).unwrap();
    assert_eq!(r.resolved.len(), 1);
    let state = g.load_state().unwrap();
    let france = find(&g, "france@demo.example.org", "report of 1805-fall-turn-start").text;
    let gold = state.power(empereur::ids::PowerId::France).gold;
    // The table's row, and no line of the old block.
    let row = france
        .lines()
        .find(|l| l.starts_with("  France "))
        .unwrap_or_else(|| panic!("no Standings row:\n{france}"));
    assert!(row.ends_with(&format!(" {gold}")), "{row}");
    assert!(!france.contains(&format!("France: {gold} Gold")), "{france}");
    assert!(!france.contains(" Gold, 100 VP"), "{france}");
    assert!(!france.contains("\nNow:\n"), "{france}");
    // What the table does not carry stays.
    assert!(france.contains("France now:\n  9 corps on the map, "), "{france}");
    // The mail-shape line that says whose turn it is stays.
    assert!(
        france.contains("\nNow: France to move (phase 1805-fall-france)."),
        "{france}"
    );
    // The moderator's report: the table alone (it had one line a power).
    let gm = find(
        &g,
        "gm@demo.example.org",
        "report of 1805-fall-turn-start for the moderator",
    )
    .text;
    assert!(gm.contains("Standings after 1805-fall-turn-start:"), "{gm}");
    assert!(!gm.contains("\nNow:\n") && !gm.contains(" Gold, 100 VP"), "{gm}");
}
