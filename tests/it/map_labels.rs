//! The map's names where it is crowded (issue 34): on the 1805 set-up and
//! on a position after a few phases of autoplay, at the picture's own
//! size, no two names overlap and no name lies over a unit counter or a
//! capital's star, in the moderator's picture and in a power's.
#![allow(clippy::disallowed_methods)] // tests use files freely

use crate::players_common::new_game;
use empereur::ids::PowerId;
use empereur::ops::autoplay::autoplay;
use empereur::picture::Scene;
use empereur::picture::layout::{self, Label, Rect};
use empereur::scenario::Scenario;
use empereur::state::State;
use empereur::store::GameDir;
use std::collections::BTreeSet;

/// Every overlap of the layout of `state` as `viewer` sees it: name and
/// name, name and counter, name and star.
fn overlaps(scenario: &Scenario, state: &State, viewer: Option<PowerId>) -> (Vec<Label>, Vec<String>) {
    let scene = Scene::new(scenario, state, None, &[], viewer, "test");
    let (labels, counters) = scene.layout().unwrap();
    let mut bad = Vec::new();
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            if a.rect.overlaps(&b.rect) {
                bad.push(format!("'{}' over '{}'", a.text, b.text));
            }
        }
        for c in &counters {
            if a.rect.overlaps(c) {
                bad.push(format!("'{}' over a counter at {:.0},{:.0}", a.text, c.x0, c.y0));
            }
        }
    }
    let stars: Vec<Rect> = scenario
        .map
        .provinces
        .iter()
        .filter(|p| p.capital)
        .map(|p| labels.iter().find(|l| l.text == p.name).unwrap().anchor)
        .map(layout::star_rect)
        .collect();
    for a in &labels {
        for s in &stars {
            if a.rect.overlaps(s) {
                bad.push(format!("'{}' over a capital's star", a.text));
            }
        }
    }
    (labels, bad)
}

fn assert_clear(scenario: &Scenario, state: &State) {
    for viewer in [None, Some(PowerId::France), Some(PowerId::Austria)] {
        let (labels, bad) = overlaps(scenario, state, viewer);
        assert_eq!(
            labels.len(),
            scenario.map.provinces.len() + scenario.map.seas.iter().filter(|z| z.pos.is_some()).count()
        );
        assert!(
            bad.is_empty(),
            "{viewer:?}: {} overlaps:\n{}",
            bad.len(),
            bad.join("\n")
        );
        for l in &labels {
            assert!(l.size >= layout::MIN_SIZE, "{}: {}", l.text, l.size);
        }
    }
}

#[test]
fn the_1805_map_has_no_name_over_another_or_over_a_unit() {
    let scenario = Scenario::embedded("1805").unwrap();
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let state = State::initial(&scenario, "labels", &players, BTreeSet::new());
    assert_clear(&scenario, &state);
    // The pairs the issue names are apart, each near its place.
    let (labels, _) = overlaps(&scenario, &state, None);
    let of = |name: &str| {
        labels
            .iter()
            .find(|l| l.text == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    for (a, b) in [
        ("Baden", "Württemberg"),
        ("Savoy", "Piedmont"),
        ("Gulf of Cadiz", "Gibraltar"),
        ("Tyrrhenian Sea", "Sardinia"),
        ("Magdeburg", "Hanover"),
        ("Greece", "Aegean Sea"),
    ] {
        assert!(!of(a).rect.overlaps(&of(b).rect), "{a} / {b}");
    }
}

#[test]
fn a_mid_campaign_map_has_no_name_over_another_or_over_a_unit() {
    let tmp = tempfile::tempdir().unwrap();
    let g = GameDir::new(new_game(tmp.path()));
    autoplay(&g, 8, 11, Some("2026-01-05T10:00:00Z")).unwrap();
    let cfg = g.load_config().unwrap();
    let scenario = g.load_scenario(&cfg).unwrap();
    let state = g.load_state().unwrap();
    assert_clear(&scenario, &state);
}
