//! EiA political option: a kingdom's own counters (11.2.2.1, 11.2.2.2,
//! 11.3.2.1, 11.5.2.1) are named as the seed names them wherever players
//! read about them, while orders, keys and files keep the nation's handle.

use empereur::ids::{Nation, PowerId};
use empereur::scenario::Scenario;
use empereur::state::{Corps, Division, Location, Squadron, State, UnitKey};

fn rhenish(n: u32) -> UnitKey {
    UnitKey::corps(Nation::Minor("rhine".into()), n)
}

/// Reports (every outcome builds its unit names with `UnitKey::name`)
/// read "Hesse corps (Rhenish corps 2)"; the order text keeps the handle
/// the checker reads back; the key stays an id.
#[test]
fn reports_name_the_counters_as_the_seed_does() {
    let s = Scenario::embedded("1805").unwrap();
    for (n, seed) in [
        (1, "Hanover corps"),
        (2, "Hesse corps"),
        (3, "Baden corps"),
        (4, "Württemberg corps"),
    ] {
        assert_eq!(rhenish(n).name(&s), format!("{seed} (Rhenish corps {n})"));
        assert_eq!(rhenish(n).handle(&s), format!("Rhenish corps {n}"));
        assert_eq!(rhenish(n).to_string(), format!("rhine corps {n}"));
    }
    let italian = Nation::Minor("italy".into());
    assert_eq!(
        UnitKey::corps(italian.clone(), 1).name(&s),
        "Lombardy corps (Italian corps 1)"
    );
    assert_eq!(
        UnitKey::corps(italian.clone(), 2).name(&s),
        "Venetian corps (Italian corps 2)"
    );
    assert_eq!(
        UnitKey::squadron(italian, 1).name(&s),
        "Venetia fleet (Italian squadron 1)"
    );
    // every other unit keeps its plain name
    let saxon = UnitKey::corps(Nation::Minor("saxony".into()), 1);
    assert_eq!(saxon.name(&s), "Saxon corps 1");
    assert_eq!(
        UnitKey::corps(Nation::Major(PowerId::France), 1).name(&s),
        "French corps 1"
    );
}

/// The state view (`empereur show`) adds the seed's name to a kingdom
/// counter's line, and the phase-opening unit list gives the kingdom's
/// controller the Venetia fleet it commands (11.2.2.2).
#[test]
fn views_name_the_counters_and_list_the_kingdoms_fleet() {
    let s = Scenario::embedded("1805").unwrap();
    let players = PowerId::ALL.into_iter().collect();
    let mut st = State::initial(&s, "t", &players, ["political".to_string()].into());
    st.corps.push(Corps {
        nation: Nation::Minor("rhine".into()),
        number: 2,
        location: Some("hesse".into()),
        divisions: Vec::new(),
        arrives: None,
        held_by: None,
    });
    let italian = Nation::Minor("italy".into());
    st.squadrons.push(Squadron {
        nation: italian.clone(),
        number: 1,
        location: Location::Port("venetia".into()),
        blockading: None,
        ships: None,
        held_by: None,
    });
    st.political.fleets.push(empereur::state::political::KingdomFleet {
        kingdom: "italy".into(),
        nation: italian,
        number: 1,
    });
    st.political.kingdoms.insert(
        "italy".into(),
        empereur::state::Kingdom {
            controller: PowerId::France,
            components: ["lombardy", "papacy", "venetia", "illyria"].map(String::from).into(),
            created: st.turn(),
            gold: 12,
            ceded: false,
        },
    );
    // The treasury is the controller's record (2.5): another power's state
    // file says it is unknown, not that it is empty.
    let austria = st.view_text_for(PowerId::Austria);
    assert!(
        austria.contains("gold = \"unknown\" # another power's kingdom: its treasury is not shown (2.5)"),
        "{austria}"
    );
    assert_eq!(State::from_toml(&austria).unwrap().political.kingdoms["italy"].gold, 0);
    let france = State::from_toml(&st.view_text_for(PowerId::France)).unwrap();
    assert_eq!(france.political.kingdoms["italy"].gold, 12);
    let text = empereur::ops::show::to_text(&s, &st, None);
    let hesse = text
        .lines()
        .find(|l| l.contains("rhine") && l.contains("corps  2"))
        .unwrap();
    assert!(hesse.ends_with("(Hesse corps)"), "{hesse}");
    let fleet = text
        .lines()
        .find(|l| l.contains("italy") && l.contains("squadron"))
        .unwrap();
    assert!(fleet.ends_with("(Venetia fleet)"), "{fleet}");
    let french = empereur::report::unit_lines(&s, &st, PowerId::France);
    assert!(
        french.contains(&"Venetia fleet (Italian squadron 1) in port Venetia".to_string()),
        "{french:?}"
    );
    assert!(
        !empereur::report::unit_lines(&s, &st, PowerId::Austria)
            .iter()
            .any(|l| l.contains("Italian"))
    );
}

/// Orders read a kingdom's counter by the seed's name that reports show
/// (11.3.2.1: `Hesse corps`, alone or with its handle in brackets as
/// reports print it) as well as by its handle; brackets naming another
/// unit are an error, not a silent pick.
#[test]
fn orders_read_the_seeds_name_of_a_counter() {
    let s = Scenario::embedded("1805").unwrap();
    let st = rhine_under_france(&s, &[(1, "hesse"), (2, "hesse")]);
    let orders = |line: &str| france_orders(&s, &st, line);
    let plain = orders("MOVE Rhenish corps 2 TO Hanover");
    assert!(plain.all_accepted(), "{:?}", plain.diagnostics);
    for line in [
        "MOVE Hesse corps TO Hanover",
        "MOVE hesse CORPS (Rhenish corps 2) TO Hanover",
        "MOVE Hesse corps (rhine corps II) TO Hanover",
    ] {
        let c = orders(line);
        assert!(c.all_accepted(), "{line}: {:?}", c.diagnostics);
        assert_eq!(c.accepted[0].order, plain.accepted[0].order, "{line}");
    }
    let hanover = orders("MOVE Hanover corps TO Hanover");
    assert!(hanover.all_accepted(), "{:?}", hanover.diagnostics);
    assert_ne!(hanover.accepted[0].order, plain.accepted[0].order);
    for wrong in [
        "MOVE Hesse corps (Rhenish corps 1) TO Hanover",
        "MOVE Hesse corps (Rhenish corps 2 TO Hanover",
    ] {
        let c = orders(wrong);
        assert!(!c.all_accepted(), "{wrong} was accepted");
    }
}

/// Issue 33, first contact: Württemberg is spelt one way wherever a
/// player reads it (its id keeps an old misspelling, as saved games do),
/// and orders read it in every common spelling, the id included.
#[test]
fn wurttemberg_is_spelt_one_way_and_read_in_every_spelling() {
    let s = Scenario::embedded("1805").unwrap();
    let p = s.map.province("wurttemburg").unwrap();
    assert_eq!(p.name, "Württemberg");
    assert_eq!(
        UnitKey::corps(Nation::Minor("rhine".into()), 4).name(&s),
        "Württemberg corps (Rhenish corps 4)"
    );
    for spelling in [
        "Württemberg",
        "Wurttemberg",
        "Wuerttemberg",
        "Wurttemburg",
        "wurttemburg",
        "Württemburg",
        "Wurtemberg",
        "Wurtemburg",
    ] {
        assert_eq!(
            s.map.resolve_province(spelling).map(|p| p.id.as_str()),
            Ok("wurttemburg"),
            "{spelling}"
        );
    }
    // The counter by the seed's name in any spelling of its province.
    let st = rhine_under_france(&s, &[(4, "wurttemburg")]);
    let orders = |line: &str| france_orders(&s, &st, line);
    let plain = orders("MOVE Rhenish corps 4 TO Baden");
    assert!(plain.all_accepted(), "{:?}", plain.diagnostics);
    for line in [
        "MOVE Württemberg corps TO Baden",
        "MOVE Wurttemburg corps TO Baden",
        "MOVE Wurtemberg corps (Rhenish corps 4) TO Baden",
        "MOVE Rhenish corps 4 FROM wurttemburg TO Baden",
    ] {
        let c = orders(line);
        assert!(c.all_accepted(), "{line}: {:?}", c.diagnostics);
    }
    for line in ["MOVE Württemberg corps TO Baden", "MOVE Wurttemburg corps TO Baden"] {
        assert_eq!(orders(line).accepted[0].order, plain.accepted[0].order, "{line}");
    }
    // What a player reads of it: the map's name, the counter's, the list.
    let french = empereur::report::unit_lines(&s, &st, PowerId::France);
    assert!(
        french.contains(&"Württemberg corps (Rhenish corps 4) in Württemberg [inf]".to_string()),
        "{french:?}"
    );
    let names: Vec<&str> = s
        .map
        .provinces
        .iter()
        .map(|p| p.name.as_str())
        .chain(
            s.tables
                .political
                .kingdoms
                .iter()
                .flat_map(|k| &k.counters)
                .map(|c| c.name.as_str()),
        )
        .collect();
    assert!(!names.iter().any(|n| n.contains("Wurttemburg")), "{names:?}");
}

/// A political game in France's spring 1806 turn with the Rhine under
/// France and its `corps` (number, province), one infantry each.
fn rhine_under_france(s: &Scenario, corps: &[(u32, &str)]) -> State {
    let players = PowerId::ALL.into_iter().collect();
    let mut st = State::initial(s, "t", &players, ["political".to_string()].into());
    st.phase = "1806-spring-france".parse().unwrap();
    st.minors.get_mut("rhine").unwrap().controller = Some(PowerId::France);
    for (number, at) in corps {
        st.corps.push(Corps {
            nation: Nation::Minor("rhine".into()),
            number: *number,
            location: Some(at.to_string()),
            divisions: vec![Division {
                arm: empereur::scenario::Arm::Infantry,
                nation: Nation::Minor("rhine".into()),
            }],
            arrives: None,
            held_by: None,
        });
    }
    st
}

/// France's orders `line` in that turn, checked.
fn france_orders(s: &Scenario, st: &State, line: &str) -> empereur::orders::Checked {
    let text = format!("POWER France\nPHASE 1806-spring-france\n{line}\n");
    empereur::orders::check(&text, s, st, Some(PowerId::France))
}
