//! The order template of the opening mail: each unit with its place,
//! commanders, movement allowance and where it can go this phase, and
//! example orders with real names that the checker accepts.
#![allow(clippy::disallowed_methods)] // tests read files

use empereur::ids::{PhaseId, PowerId};
use empereur::orders;
use empereur::report::guide::guide;
use empereur::scenario::Scenario;
use empereur::state::State;
use std::collections::BTreeSet;
use std::sync::Arc;

fn scenario() -> Arc<Scenario> {
    empereur::store::load_scenario("1805").unwrap()
}

fn state_at(s: &Scenario, phase: &str) -> State {
    let players: BTreeSet<PowerId> = [PowerId::France, PowerId::Austria].into();
    let mut st = State::initial(s, "demo", &players, BTreeSet::new());
    st.phase = phase.parse::<PhaseId>().unwrap();
    st
}

/// The "can reach" list that follows a unit's line.
fn reach_of<'a>(lines: &'a [String], unit: &str) -> &'a str {
    let i = lines
        .iter()
        .position(|l| l.starts_with(unit))
        .unwrap_or_else(|| panic!("{unit}: {lines:#?}"));
    lines[i + 1].split_once(": ").unwrap().1
}

#[test]
fn in_its_player_turn_each_unit_shows_commanders_allowance_and_reach() {
    let s = scenario();
    let st = state_at(&s, "1805-fall-france");
    let g = guide(&s, &st, PowerId::France);
    // 2.24: Napoleon stands with corps 1 in Paris and adds to its allowance.
    assert!(
        g.contains(
            &"French corps 1 in Paris [inf inf art cav]; moves 3; with Napoleon (rating 3, moves 5)".to_string()
        ),
        "{g:#?}"
    );
    assert!(g.iter().any(|l| l == "  can reach (with Napoleon): Normandy, Brittany, Gascony, Burgundy, Lorraine, Flanders, Provence, Savoy, Switzerland, Palatinate, Baden, Holland, Kleves, Piedmont, Lombardy, Tuscany, Württemberg, Berg, Hesse, Venetia, Papacy, Bavaria, Hanover, Thuringia, Naples, Brindisi, Oldenburg, Brunswick, Hamburg, Mecklenburg, Saxony"), "{g:#?}");
    // Without a commander, 3 provinces: Brittany's corps does not reach
    // Bavaria, and nobody reaches Moscow.
    let brittany = reach_of(&g, "French corps 7 in Brittany");
    assert!(
        brittany.contains("Normandy") && !brittany.contains("Bavaria"),
        "{brittany}"
    );
    assert!(!g.iter().any(|l| l.contains("Moscow")));
    // Squadrons list sea zones; the port's own zone first.
    let sq = reach_of(&g, "French squadron 1 in port Brittany; sails 4");
    assert!(sq.starts_with("British Isles Zone, Bay of Biscay"), "{sq}");
    // Every example is accepted by the order checker as it stands.
    let ex: Vec<&String> = g.iter().skip_while(|l| !l.starts_with("Examples")).skip(1).collect();
    assert!(
        ex.iter().any(|e| e.trim() == "MOVE French corps 1 -> Normandy"),
        "{ex:?}"
    );
    assert!(ex.iter().any(|e| e.trim().starts_with("SAIL ")), "{ex:?}");
    for e in &ex {
        let c = orders::check(e.trim(), &s, &st, Some(PowerId::France));
        assert!(c.all_accepted() && c.accepted.len() == 1, "{e}: {:?}", c.diagnostics);
    }
    // Austria, not the mover, is offered no move.
    let a = guide(&s, &st, PowerId::Austria);
    assert!(!a.iter().any(|l| l.contains("can reach")), "{a:#?}");
}

#[test]
fn in_a_build_phase_the_template_lists_the_builds_that_can_be_afforded_and_where() {
    let s = scenario();
    let mut st = state_at(&s, "1805-fall-build");
    let g = guide(&s, &st, PowerId::France);
    let builds: Vec<&str> = g.iter().map(|l| l.trim()).filter(|l| l.starts_with("BUILD")).collect();
    // Corps 1 is full (four divisions, 2.22); corps 7 has room.
    assert!(builds.contains(&"BUILD 1 inf IN French corps 7"), "{builds:?}");
    assert!(!builds.iter().any(|b| b.ends_with("corps 1")), "{builds:?}");
    for b in &builds {
        assert!(orders::check(b, &s, &st, Some(PowerId::France)).all_accepted(), "{b}");
    }
    // No reach outside a Player Turn.
    assert!(!g.iter().any(|l| l.contains("can reach")));
    // Without Gold nothing can be afforded, and the template says so.
    st.powers.get_mut(&PowerId::France).unwrap().gold = 0;
    let g = guide(&s, &st, PowerId::France);
    assert!(!g.iter().any(|l| l.trim().starts_with("BUILD")), "{g:#?}");
    assert!(g.iter().any(|l| l.contains("no build can be afforded")), "{g:#?}");
}

#[test]
fn the_opening_mail_template_carries_the_guide_wrapped_as_comments() {
    let s = scenario();
    let st = state_at(&s, "1805-fall-france");
    let players = empereur::store::players::parse(
        "players.toml",
        "[moderator]\nname = \"GM\"\nemail = \"gm@x.example.org\"\n[[player]]\npower = \"france\"\nname = \"N\"\nemail = \"n@x.example.org\"\npassword = \"p\"\n",
    )
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let o = empereur::ops::new::NewOptions {
        dir: tmp.path().join("g"),
        scenario: "1805".into(),
        players: std::path::PathBuf::new(),
        options: vec![],
        id: Some("demo".into()),
        house_seating: true,
    };
    empereur::ops::new::create_from(&o, players).unwrap();
    let config = empereur::store::GameDir::new(tmp.path().join("g"))
        .load_config()
        .unwrap();
    let t = empereur::mail::compose::order_template(&config, &s, &st, PowerId::France);
    assert!(
        t.starts_with("GAME demo\nPOWER france\nPASSWORD \nPHASE 1805-fall-france\n"),
        "{t}"
    );
    assert!(t.contains("# French corps 1 in Paris"), "{t}");
    assert!(t.contains("#   can reach (with Napoleon): Normandy,"), "{t}");
    assert!(
        t.contains("#     MOVE French corps 1 -> Normandy") || t.contains("#   MOVE French corps 1 -> Normandy"),
        "{t}"
    );
    for l in t.lines() {
        assert!(l.chars().count() <= 72, "too long for a mail: {l}");
        assert!(l.is_empty() || l.starts_with('#') || !l.contains("can reach"), "{l}");
    }
    assert!(t.trim_end().ends_with("END"));
    // The template parses: only header lines and comments.
    let c = orders::check(
        &t.replace("PASSWORD \n", "PASSWORD x\n"),
        &s,
        &st,
        Some(PowerId::France),
    );
    assert!(c.all_accepted() && c.accepted.is_empty(), "{:?}", c.diagnostics);
}
