//! `empereur demo`: create the demo game from the embedded scenario and
//! show it. (Grows into a whole played campaign in the workflow issue.)

use super::Done;
use super::new::{NewOptions, create_from};
use crate::store;
use anyhow::Result;
use std::path::PathBuf;

/// The demo's players, embedded so the demo needs nothing but the binary.
pub const DEMO_PLAYERS: &str = include_str!("../../games/demo/players.toml");

pub fn run(out: Option<PathBuf>) -> Result<Done> {
    let dir = match out {
        Some(d) => d,
        None => tempfile::Builder::new().prefix("empereur-demo-").tempdir()?.keep(),
    };
    let players = store::players::parse("games/demo/players.toml", DEMO_PLAYERS).map_err(anyhow::Error::msg)?;
    let opts = NewOptions {
        dir: dir.join("game"),
        scenario: "1805".into(),
        players: PathBuf::new(),
        options: vec![],
        id: Some("demo".into()),
    };
    let (_, state) = create_from(&opts, players)?;
    let scenario = store::load_scenario("1805")?;
    print!("{}", super::show::to_text(&scenario, &state, None));
    println!("\nThe demo game is in {}", opts.dir.display());
    Ok(Done::Yes)
}
