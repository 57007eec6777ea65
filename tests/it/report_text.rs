//! What reports quote is what a player would write: every order an
//! outcome answers, autoplayed ones included, is in the order language
//! (it parses back for its power), and build lines speak of one cost in
//! Gold.
#![allow(clippy::disallowed_methods)] // tests use files freely

use empereur::ops::autoplay::autoplay;
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::new::{NewOptions, create_from};
use empereur::rules::Kind;
use empereur::state::State;
use empereur::store::{self, GameDir, history};
use std::path::PathBuf;

#[test]
fn every_order_a_report_quotes_parses_back_and_builds_show_one_cost() {
    let tmp = tempfile::tempdir().unwrap();
    let players = store::players::parse("players.toml", DEMO_PLAYERS).unwrap();
    let dir = tmp.path().join("g");
    let o = NewOptions {
        dir: dir.clone(),
        scenario: "1805".into(),
        players: PathBuf::new(),
        options: vec![],
        id: Some("demo".into()),
        house_seating: true,
    };
    create_from(&o, players).unwrap();
    let g = GameDir::new(&dir);
    autoplay(&g, 24, 3, Some("2026-01-05T10:00:00Z")).unwrap();
    let config = g.load_config().unwrap();
    let scenario = g.load_scenario(&config).unwrap();
    let (mut quoted, mut moves, mut builds) = (0, 0, 0);
    for (_, name) in history::list(&g).unwrap() {
        let edir = history::entry_dir(&g, &name);
        let before = State::from_toml(&std::fs::read_to_string(edir.join("state-before.toml")).unwrap()).unwrap();
        let outcomes: history::OutcomesFile =
            toml::from_str(&std::fs::read_to_string(edir.join("outcomes.toml")).unwrap()).unwrap();
        for o in &outcomes.outcomes {
            if o.kind == Kind::Build {
                builds += 1;
                for line in std::iter::once(o.summary.clone()).chain(o.why.iter().map(ToString::to_string)) {
                    assert!(!line.contains('$'), "{name}: a build line in two units: {line}");
                }
                assert!(
                    o.why.iter().any(|w| w.contains(" Gold for this order")),
                    "{name}: the Gold this build pays is said: {:?}",
                    o.why
                );
            }
            let (Some(order), Some(power)) = (&o.order, o.power) else {
                continue;
            };
            // One outcome may answer several orders (a siege rolls once
            // for all its besiegers): they are joined with "; ".
            for order in order.split("; ") {
                quoted += 1;
                moves += usize::from(order.starts_with("MOVE "));
                let checked = empereur::orders::check(order, &scenario, &before, Some(power));
                assert_eq!(
                    checked.accepted.len() + checked.refused.len(),
                    1,
                    "{name}: '{order}' ({power}) is not in the order language: {:?}",
                    checked
                        .diagnostics
                        .iter()
                        .map(|d| d.message.clone())
                        .collect::<Vec<_>>()
                );
            }
        }
    }
    assert!(quoted > 20 && moves > 0, "{quoted} orders quoted, {moves} moves");
    assert!(builds > 0, "no build in 24 phases");
}
