//! Benchmark of the military rules: a busy Player Turn — 40
//! corps moving, 10 battles, 5 sieges — on a generated 10×12 grid map,
//! and a generated 1805–1815 campaign (41 turns × 7 powers, naval and
//! land phases, random legal orders) on the test map. Target: the busy
//! turn under 5 ms in process. Run with `cargo bench --bench turn`.
#![allow(clippy::disallowed_methods)] // a bench reads the clock and files

mod common;
use empereur::autoplay;
use empereur::autoplay::SeededDice;
use empereur::diagnostic::Span;
use empereur::ids::{Nation, PowerId, Step};
use empereur::orders::ast::{Order, OrderLine};
use empereur::rules::Kind;
use empereur::rules::war;
use empereur::scenario::{Arm, Scenario, ScenarioFiles};
use empereur::state::{Corps, Division, State, UnitKey};
use std::collections::BTreeSet;
use std::time::Instant;

const ROWS: usize = 10;
const COLS: usize = 12;

/// Province ids are letters only: `g_<row letter><column letter>`.
fn pid(r: usize, c: usize) -> String {
    let l = |i: usize| char::from(b'a' + i as u8);
    format!("g_{}{}", l(r), l(c))
}

/// A grid map: rows 0–4 French home, rows 5–9 Austrian home, one
/// province each for the other powers, the shipped 1805 tables.
fn grid() -> Scenario {
    let mut files: ScenarioFiles = empereur::scenario::embedded("1805")
        .expect("1805 is embedded")
        .into_iter()
        .filter(|(k, _)| k.starts_with("tables/"))
        .collect();
    files.insert(
        "scenario.toml".into(),
        "id = \"grid\"\nname = \"Grid\"\nstart = \"1805-fall\"\nend = \"1815-fall\"\nsource = \"house: bench\"\n"
            .into(),
    );
    let mut p = String::from("source = \"house: bench\"\n");
    for r in 0..ROWS {
        for c in 0..COLS {
            let owner = if r < 5 { "france" } else { "austria" };
            let mut adj = Vec::new();
            if r > 0 {
                adj.push(pid(r - 1, c));
            }
            if r + 1 < ROWS {
                adj.push(pid(r + 1, c));
            }
            if c > 0 {
                adj.push(pid(r, c - 1));
            }
            if c + 1 < COLS {
                adj.push(pid(r, c + 1));
            }
            let adj: Vec<String> = adj.iter().map(|a| format!("\"{a}\"")).collect();
            let capital = (r == 0 || r == ROWS - 1) && c == 0;
            p.push_str(&format!(
                "[[province]]\nid = \"{}\"\nname = \"P {r} {c}\"\necon = 2\npol = 1\ngarrison = 1\nkind = \"home\"\nowner = \"{owner}\"\ncapital = {capital}\nregion = \"grid\"\nadjacent = [{}]\n",
                pid(r, c),
                adj.join(", ")
            ));
        }
    }
    let others = [
        ("britain", "lon"),
        ("russia", "mos"),
        ("prussia", "ber"),
        ("spain", "mad"),
        ("ottoman", "con"),
    ];
    for (o, id) in others {
        p.push_str(&format!(
            "[[province]]\nid = \"{id}\"\nname = \"{id}\"\necon = 2\npol = 1\ngarrison = 1\nkind = \"home\"\nowner = \"{o}\"\ncapital = true\nregion = \"x\"\nseas = [\"sea\"]\nport = true\n"
        ));
    }
    files.insert("provinces.toml".into(), p);
    files.insert(
        "seas.toml".into(),
        "source = \"house: bench\"\n[[sea]]\nid = \"sea\"\nname = \"Sea\"\n".into(),
    );
    files.insert("arrows.toml".into(), "source = \"house: bench\"\n".into());
    files.insert("minors.toml".into(), "source = \"house: bench\"\n".into());
    let mut w = String::from("source = \"house: bench\"\n");
    let caps = [
        ("france", pid(0, 0)),
        ("austria", pid(ROWS - 1, 0)),
        ("britain", "lon".into()),
        ("russia", "mos".into()),
        ("prussia", "ber".into()),
        ("spain", "mad".into()),
        ("ottoman", "con".into()),
    ];
    for (p, c) in caps {
        w.push_str(&format!(
            "[[power]]\nid = \"{p}\"\ncapital = \"{c}\"\nvp_goal = 300\ngold = 30\ncosts = {{ infantry = 2, cavalry = 3, artillery = 3, squadron = 5 }}\npool = {{ infantry = 50, cavalry = 10, artillery = 10, squadrons = 2 }}\n[[power.commander]]\nname = \"General {p}\"\nrating = 2\nat = \"{c}\"\nprimary = true\n"
        ));
    }
    files.insert("powers.toml".into(), w);
    match Scenario::load(&files) {
        Ok(s) => s,
        Err(e) => panic!("grid does not load: {:?}", e.first()),
    }
}

fn corps(state: &mut State, p: PowerId, number: u32, at: &str) -> UnitKey {
    let nation = Nation::Major(p);
    state.corps.push(Corps {
        nation: nation.clone(),
        number,
        location: Some(at.to_string()),
        divisions: [Arm::Infantry, Arm::Infantry, Arm::Cavalry]
            .into_iter()
            .map(|arm| Division {
                arm,
                nation: nation.clone(),
            })
            .collect(),
        arrives: None,
        held_by: None,
    });
    UnitKey::corps(nation, number)
}

fn line(order: Order) -> OrderLine {
    OrderLine {
        text: order.kind().to_string(),
        order,
        span: Span::new(0, 0, 0),
    }
}

/// 40 French corps moving (10 into Austrian armies), 5 sieges.
fn busy(s: &Scenario) -> (State, Vec<OrderLine>) {
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut st = State::initial(s, "bench", &players, BTreeSet::new());
    st.phase.step = Step::PlayerTurn(PowerId::France);
    st.relations.set_war(PowerId::France, PowerId::Austria, true);
    let mut orders = Vec::new();
    let mut n = 1;
    // 10 attacks: row 4 -> row 5, an Austrian corps waiting in each
    for c in 0..10 {
        let k = corps(&mut st, PowerId::France, n, &pid(4, c));
        n += 1;
        corps(&mut st, PowerId::Austria, c as u32 + 1, &pid(5, c));
        orders.push(line(Order::Move {
            corps: vec![k],
            commander: None,
            path: vec![pid(4, c), pid(5, c)],
        }));
    }
    // 30 marches of three provinces inside France
    for i in 0..30 {
        let (r, c) = (i % 4, (i / 4) % 8);
        let k = corps(&mut st, PowerId::France, n, &pid(r, c));
        n += 1;
        orders.push(line(Order::Move {
            corps: vec![k],
            commander: None,
            path: vec![pid(r, c), pid(r, c + 1), pid(r, c + 2), pid(r, c + 3)],
        }));
    }
    // 5 sieges deep in Austria
    for c in 0..5 {
        let k = corps(&mut st, PowerId::France, n, &pid(8, c * 2));
        n += 1;
        orders.push(line(Order::Besiege {
            corps: vec![k],
            province: pid(8, c * 2),
        }));
    }
    (st, orders)
}

fn main() {
    let s = grid();
    let (st, orders) = busy(&s);
    for l in &orders {
        war::check_order(&s, &st, PowerId::France, &l.order).expect("bench orders are legal");
    }
    let reps = common::size(300, 2);
    let mut times = Vec::with_capacity(reps);
    let (mut battles, mut sieges) = (0, 0);
    for i in 0..reps {
        let mut state = st.clone();
        let mut dice = SeededDice::new(i as u64);
        let mut out = Vec::new();
        let t0 = Instant::now();
        for l in &orders {
            let _ = war::check_order(&s, &state, PowerId::France, &l.order);
        }
        war::land_phase(&s, &mut state, PowerId::France, &orders, &mut dice, &mut out).expect("land phase");
        times.push(t0.elapsed());
        battles = out.iter().filter(|o| o.kind == Kind::Battle).count();
        sieges = out.iter().filter(|o| o.kind == Kind::Siege).count();
    }
    times.sort();
    println!(
        "busy turn (40 corps moving, {battles} battles, {sieges} sieges, orders validated): median {:?}, min {:?}, max {:?} over {reps} runs; target: under 5 ms in process: {}",
        times[reps / 2],
        times[0],
        times[reps - 1],
        if times[reps / 2] < std::time::Duration::from_millis(5) {
            "met"
        } else {
            "NOT met"
        }
    );

    // a generated campaign on the test map: 41 turns x 7 powers
    let mut files: ScenarioFiles = empereur::scenario::embedded("1805")
        .expect("1805 is embedded")
        .into_iter()
        .filter(|(k, _)| k.starts_with("tables/"))
        .collect();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/war");
    for f in [
        "scenario.toml",
        "provinces.toml",
        "seas.toml",
        "arrows.toml",
        "powers.toml",
        "minors.toml",
    ] {
        files.insert(f.to_string(), std::fs::read_to_string(dir.join(f)).expect("fixture"));
    }
    let fx = Scenario::load(&files).expect("fixture loads");
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut state = State::initial(&fx, "bench", &players, BTreeSet::new());
    state.relations.set_war(PowerId::France, PowerId::Austria, true);
    state.relations.set_war(PowerId::France, PowerId::Prussia, true);
    state.relations.set_war(PowerId::Britain, PowerId::France, true);
    state.relations.set_war(PowerId::Russia, PowerId::Prussia, true);
    let t0 = Instant::now();
    let mut outcomes = 0;
    let mut kinds: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    let mut ser = 0usize;
    for turn in 0..common::size(41u64, 1) {
        for p in PowerId::ALL {
            state.phase.step = Step::PlayerTurn(p);
            let mut dice = SeededDice::new(turn * 17 + p as u64);
            let orders = autoplay::war::generate(&fx, &state, p, turn * 5 + p as u64);
            let mut out = Vec::new();
            war::naval_phase(&fx, &mut state, p, &orders, &mut dice, &mut out).expect("naval");
            war::land_phase(&fx, &mut state, p, &orders, &mut dice, &mut out).expect("land");
            outcomes += out.len();
            for o in &out {
                *kinds.entry(o.kind.to_string()).or_default() += 1;
            }
            // what a history file costs: the state serialised each phase
            ser += state.to_toml().len();
        }
    }
    println!(
        "generated campaign (41 turns x 7 powers, naval + land, state serialised each phase): {:?}, {outcomes} outcomes, {} KiB of state text; target: a whole campaign under 2 s including its history files (this is its rules part; the whole is the autoplay bench)",
        t0.elapsed(),
        ser / 1024
    );
    println!("outcomes by kind: {kinds:?}");
}
