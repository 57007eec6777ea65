//! TIMEZONE by mail (orders/README.md, "Your time zone"): a line of an
//! order mail, acknowledged like orders, kept with the seat; every
//! deadline the player reads is then in their zone, named, and once in
//! UTC. The game (crate::table_common) runs at 20:00 Paris time: the Turn
//! Start is due Tuesday 6 January 2026, 19:00 UTC; the next phase
//! Thursday 8 January, 19:00 UTC.
#![allow(clippy::disallowed_methods)] // tests use files freely

use crate::table_common::{ack, find, flat, game, orders, t};
use empereur::ids::PowerId;
use empereur::ops::run::run_game;
use empereur::ops::workflow::{ReplacePlayerArgs, replace_player};

const NEW_YORK: &str = "Deadline: Tuesday 6 January 2026, 14:00 EST (19:00 UTC)";
const PARIS: &str = "Deadline: Tuesday 6 January 2026, 20:00 CET (19:00 UTC)";

#[test]
fn timezone_is_an_accepted_line_and_every_deadline_france_reads_is_then_in_its_zone() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path(), "", |_| {});
    // The zone alone, then STATUS in a second mail of the same run.
    let mails = [
        orders("france", "z1", "TIMEZONE america/new_york"),
        orders("france", "s1", "STATUS"),
    ];
    run_game(&g.root, &mails, t("2026-01-05T10:30:00Z")).unwrap();
    let a = ack(&g, "z1");
    assert!(a.contains("  ok  TIMEZONE America/New_York"), "{a}");
    assert!(flat(&a).contains("(1 accepted, 0 rejected;"), "{a}");
    assert!(a.contains(NEW_YORK), "{a}");
    assert!(
        flat(&a).contains("TIMEZONE: France reads every deadline in America/New_York from now on"),
        "{a}"
    );
    // It is no order: France is not in.
    assert!(flat(&a).contains("held no orders, so your orders for phase"), "{a}");
    assert!(empereur::store::submission::load_all(&g).unwrap().is_empty());
    let s = flat(&ack(&g, "s1"));
    assert!(s.contains("Tuesday 6 January 2026, 14:00 EST (19:00 UTC)"), "{s}");
    let cfg = g.load_config().unwrap();
    assert_eq!(cfg.player_tz(PowerId::France).name(), "America/New_York");
    // The reminder (past half the phase), in France's zone.
    run_game(&g.root, &[], t("2026-01-06T03:00:00Z")).unwrap();
    let r = find(&g, "france@demo.example.org", "orders for 1805-fall-turn-start are due");
    assert!(r.text.contains(NEW_YORK), "{}", r.text);
    // The next opening: France's in New York time, Austria's in the game's.
    let o1 = orders("france", "o1", "MOVE FIRST");
    run_game(&g.root, &[o1], t("2026-01-06T03:10:00Z")).unwrap();
    let r = run_game(&g.root, &[], t("2026-01-06T03:41:00Z")).unwrap();
    assert_eq!(r.resolved.len(), 1);
    let next = "phase 1805-fall-france is open";
    let deadline = |who: &str| {
        let text = find(&g, &format!("{who}@demo.example.org"), next).text;
        let line = text.lines().find(|l| l.starts_with("Deadline: ")).map(str::to_string);
        line.unwrap_or_else(|| panic!("{text}"))
    };
    // Friday 9 January, 20:00 in Paris: 14:00 in New York.
    assert_eq!(
        deadline("france"),
        "Deadline: Friday 9 January 2026, 14:00 EST (19:00 UTC)"
    );
    assert_eq!(
        deadline("austria"),
        "Deadline: Friday 9 January 2026, 20:00 CET (19:00 UTC)"
    );
}

#[test]
fn a_misspelt_zone_gets_a_suggestion_is_not_counted_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path(), "", |_| {});
    let mails = [
        orders("france", "z1", "TIMEZONE Europe/Pari"),
        orders("france", "z2", "PASS\nTIMEZONE Paris"),
        orders("france", "h1", "HELP"),
    ];
    run_game(&g.root, &mails, t("2026-01-05T10:30:00Z")).unwrap();
    let a = ack(&g, "z1");
    assert!(a.contains("  NO  TIMEZONE Europe/Pari"), "{a}");
    assert!(flat(&a).contains("(0 accepted, 1 rejected;"), "{a}");
    assert!(flat(&a).contains("no time zone 'Europe/Pari'"), "{a}");
    assert!(flat(&a).contains("did you mean Europe/Paris?"), "{a}");
    assert!(a.contains(PARIS), "the game's zone still: {a}");
    // Beside an order: the order stands, the zone line is refused.
    let b = ack(&g, "z2");
    assert!(flat(&b).contains("France is IN for phase"), "{b}");
    assert!(flat(&b).contains("(0 accepted, 1 rejected;"), "{b}");
    assert!(flat(&b).contains("did you mean Europe/Paris?"), "{b}");
    assert!(!flat(&b).contains("reads every deadline in"), "{b}");
    assert_eq!(g.load_config().unwrap().player(PowerId::France).unwrap().timezone, None);
    // HELP says how.
    let h = flat(&ack(&g, "h1"));
    assert!(
        h.contains("TIMEZONE Europe/Paris (any IANA zone): your deadlines in your zone."),
        "{h}"
    );
}

#[test]
fn a_new_player_on_the_power_starts_with_the_games_zone() {
    let tmp = tempfile::tempdir().unwrap();
    let g = game(tmp.path(), "", |_| {});
    run_game(
        &g.root,
        &[orders("france", "z1", "TIMEZONE Asia/Tokyo")],
        t("2026-01-05T10:30:00Z"),
    )
    .unwrap();
    assert_eq!(g.load_config().unwrap().player_tz(PowerId::France).name(), "Asia/Tokyo");
    let file = tmp.path().join("new-player.toml");
    std::fs::write(
        &file,
        "[[player]]\npower = \"france\"\nname = \"Talleyrand\"\nemail = \"talleyrand@demo.example.org\"\npassword = \"benevento\"\n",
    )
    .unwrap();
    replace_player(&ReplacePlayerArgs {
        game: g.root.clone(),
        power: "france".into(),
        players: file,
    })
    .unwrap();
    assert_eq!(g.load_config().unwrap().player(PowerId::France).unwrap().timezone, None);
    let status = crate::table_common::raw(
        "talleyrand@demo.example.org",
        "s1",
        "GAME demo\nPOWER france\nPASSWORD benevento\nSTATUS",
    );
    run_game(&g.root, &[status], t("2026-01-05T11:00:00Z")).unwrap();
    let welcome = find(&g, "talleyrand@demo.example.org", "").text;
    assert!(welcome.contains(PARIS), "{welcome}");
    let s = flat(&ack(&g, "s1"));
    assert!(s.contains("Tuesday 6 January 2026, 20:00 CET (19:00 UTC)"), "{s}");
}
