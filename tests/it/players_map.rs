//! What the moderator's and players' text tools show: `map` has a legend
//! and the sea zones each port touches (for SAIL); `show` has the
//! commanders (for WITH), each province's controller and garrison, and
//! the diplomatic proposals pending; `new` says once which values of the
//! scenario are house values and where to replace them.
#![allow(clippy::disallowed_methods)] // tests read and write files

use assert_cmd::Command;
use std::path::{Path, PathBuf};

const NOW: &str = "2026-11-30T10:00:00Z";

fn empereur(args: &[&str]) -> (i32, String) {
    let o = Command::cargo_bin("empereur")
        .unwrap()
        .args(args)
        .env("EMPEREUR_NOW", NOW)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

/// France and Great Britain played (3.0), the rest NPCs.
const PLAYERS: &str = include_str!("../fixtures/players/france_britain.toml");

fn new_game(root: &Path) -> (PathBuf, String) {
    let players = root.join("players.toml");
    std::fs::write(&players, PLAYERS).unwrap();
    let game = root.join("g");
    let (code, out) = empereur(&["new", game.to_str().unwrap(), "--players", players.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    (game, out)
}

#[test]
fn the_map_text_has_a_legend_and_the_sea_zones_of_each_port() {
    let (code, text) = empereur(&["map"]);
    assert_eq!(code, 0);
    assert!(text.contains("\nLegend: "), "{text}");
    assert!(text.contains("~> the sea zones its port touches (SAIL"), "{text}");
    let (_, json) = empereur(&["map", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let sea_name = |id: &str| {
        v["seas"].as_array().unwrap().iter().find(|z| z["id"] == id).unwrap()["name"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let mut ports = 0;
    for p in v["provinces"].as_array().unwrap() {
        let seas: Vec<String> = p["seas"]
            .as_array()
            .unwrap()
            .iter()
            .map(|z| sea_name(z.as_str().unwrap()))
            .collect();
        let name = p["name"].as_str().unwrap();
        let block: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with(&format!("  {name} ")))
            .take(3)
            .collect();
        assert!(!block.is_empty(), "{name} is listed");
        let line = format!("      ~> {}", seas.join(", "));
        if p["port"] == true && !seas.is_empty() {
            ports += 1;
            assert_eq!(block.get(2).copied(), Some(line.as_str()), "{name}: {block:?}");
        } else {
            assert!(
                block.get(2).is_none_or(|l| !l.starts_with("      ~>")),
                "{name}: {block:?}"
            );
        }
    }
    assert!(ports > 10, "{ports} ports");
}

#[test]
fn new_says_once_which_values_are_house_values_and_where_to_replace_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, out) = new_game(tmp.path());
    assert_eq!(out.matches("house values").count(), 1, "{out}");
    assert!(out.contains("provinces.toml ("), "{out}");
    assert!(out.contains("copy games/scenarios/1805 in the source"), "{out}");
    assert!(out.contains("empereur scenario check DIR"), "{out}");
}

#[test]
fn show_lists_commanders_provinces_and_pending_proposals_as_each_sees_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, _) = new_game(tmp.path());
    let g = game.to_str().unwrap();
    let (code, text) = empereur(&["show", "--game", g]);
    assert_eq!(code, 0, "{text}");
    let commanders: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "Commanders:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(
        commanders
            .iter()
            .any(|l| l.contains("Napoleon") && l.starts_with("  france")),
        "{commanders:?}"
    );
    let provinces: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "Provinces (controller, garrison):")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(provinces.len(), 122, "every province of the map");
    assert!(
        provinces
            .iter()
            .any(|l| l.starts_with("  Paris ") && l.ends_with(" france")),
        "{provinces:?}"
    );
    assert!(text.ends_with("Pending proposals:\n  none\n"), "{text}");

    // Play to France's Player Turn and propose an alliance.
    let phase = |g: &Path| {
        std::fs::read_to_string(g.join("state.toml"))
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("phase = ").map(|p| p.trim_matches('"').to_string()))
            .unwrap()
    };
    for _ in 0..12 {
        if phase(&game).ends_with("-france") {
            break;
        }
        assert_eq!(empereur(&["resolve", "-g", g]).0, 0);
    }
    let ph = phase(&game);
    assert!(ph.ends_with("-france"), "{ph}");
    let orders = tmp.path().join("f.txt");
    std::fs::write(&orders, "POWER France\nPROPOSE ALLIANCE TO Britain\n").unwrap();
    let (code, out) = empereur(&["submit", "-g", g, "--power", "france", orders.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let (_, all) = empereur(&["show", "--game", g]);
    assert!(
        all.ends_with(
            "Pending proposals:\n  France to Great Britain: PROPOSE ALLIANCE TO Great Britain (no answer yet)\n"
        ),
        "{all}"
    );
    let (_, britain) = empereur(&["show", "--game", g, "--power", "britain"]);
    assert!(
        britain.contains(&format!(
            "  France: PROPOSE ALLIANCE TO Great Britain. Answer ACCEPT ALLIANCE FROM France in phase {ph}"
        )),
        "{britain}"
    );
    let (_, russia) = empereur(&["show", "--game", g, "--power", "russia"]);
    assert!(russia.ends_with("Pending proposals:\n  none\n"), "{russia}");
}
