//! EiA political option, 11.9.2.1 at game creation: `empereur new
//! --option political` starts France and Great Britain at war in the 1805
//! campaign; without the option nobody starts at war (QA01).
#![allow(clippy::disallowed_methods)] // tests use files freely

use empereur::ids::PowerId;
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::new::{NewOptions, create_from};
use empereur::store::{self, GameDir};
use std::path::PathBuf;

fn new_game(options: &[&str]) -> empereur::state::State {
    let root = tempfile::tempdir().unwrap();
    let players = store::players::parse("players.toml", DEMO_PLAYERS).unwrap();
    let dir = root.path().join("g");
    let o = NewOptions {
        dir: dir.clone(),
        scenario: "1805".into(),
        players: PathBuf::new(),
        options: options.iter().map(|s| s.to_string()).collect(),
        id: Some("pol".into()),
        house_seating: false,
    };
    create_from(&o, players).unwrap();
    GameDir::new(&dir).load_state().unwrap()
}

#[test]
fn france_and_britain_start_at_war_with_the_political_option() {
    let st = new_game(&["political"]);
    assert!(st.relations.at_war(PowerId::France, PowerId::Britain));
    assert_eq!(st.relations.enemies(PowerId::France), vec![PowerId::Britain]);
    let plain = new_game(&[]);
    assert!(!plain.relations.at_war_with_any(PowerId::France));
}
