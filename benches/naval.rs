//! Benchmark of a busy Naval Phase under the EiA naval option: ten
//! fleets in four open sea combats (12.2.6.1: chits, up to three rounds,
//! melee closing, chase, disabled ships sent home, Nelson's roll) on the
//! shipped 1805 map, beside its baseline measured in the same run: the
//! same phase without the option (the house Naval Combat table, one roll
//! a side). Target: the option's phase under 5 ms. Numbers on a shared
//! machine are noisy: compare the ratio.
//!
//!     cargo bench --bench naval [-- REPEATS]
#![allow(clippy::disallowed_methods)] // a benchmark reads the clock

use empereur::autoplay::SeededDice;
use empereur::diagnostic::Span;
use empereur::ids::{Nation, PowerId};
use empereur::orders::ast::{Order, OrderLine, Standing};
use empereur::rules::{Kind, war};
use empereur::scenario::Scenario;
use empereur::scenario::tables_naval::Chit;
use empereur::state::{Location, Squadron, State, UnitKey};
use std::collections::BTreeSet;
use std::time::Instant;

/// The four battles: sea zone, British squadrons, French squadrons (ten
/// fleets in all).
const BATTLES: [(&str, u32, u32); 4] = [
    ("bay_of_biscay", 2, 1),
    ("western_med", 1, 2),
    ("north_sea", 1, 1),
    ("atlantic", 1, 1),
];

fn setup(s: &Scenario, option: bool) -> (State, Vec<OrderLine>) {
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut st = State::initial(s, "bench", &players, BTreeSet::new());
    if option {
        st.options.insert("naval".into());
    }
    st.relations.set_war(PowerId::France, PowerId::Britain, true);
    st.squadrons.clear();
    let (mut gb, mut fr) = (0, 0);
    let mut orders = Vec::new();
    let line = |order: Order, n: usize| OrderLine {
        text: format!("{} #{n}", order.kind()),
        order,
        span: Span::new(n, 1, 1),
    };
    for (zone, british, french) in BATTLES {
        for (nation, count, next) in [
            (Nation::Major(PowerId::Britain), british, &mut gb),
            (Nation::Major(PowerId::France), french, &mut fr),
        ] {
            for _ in 0..count {
                *next += 1;
                st.squadrons.push(Squadron {
                    nation: nation.clone(),
                    number: *next,
                    location: Location::Sea(zone.into()),
                    blockading: None,
                    ships: None,
                    held_by: None,
                });
            }
        }
        let attacker = UnitKey::squadron(Nation::Major(PowerId::Britain), gb);
        orders.push(line(
            Order::NavalAttack {
                squadron: attacker,
                sea: zone.into(),
            },
            orders.len() + 1,
        ));
    }
    // melee where it may be chosen: the busiest battles
    orders.push(line(
        Order::Standing(Standing::NavalTactic {
            situation: empereur::orders::ast::Situation::Attacking,
            chit: Chit::Melee,
        }),
        orders.len() + 1,
    ));
    (st, orders)
}

/// Median and mean microseconds of `repeats` phases, and the battles of
/// the last.
fn measure(s: &Scenario, option: bool, repeats: usize) -> (f64, f64, usize) {
    let (st, orders) = setup(s, option);
    let mut times = Vec::with_capacity(repeats);
    let mut battles = 0;
    for i in 0..repeats {
        let mut state = st.clone();
        let mut dice = SeededDice::new(i as u64);
        let mut out = Vec::new();
        let t = Instant::now();
        war::naval_phase(s, &mut state, PowerId::Britain, &orders, &mut dice, &mut out).expect("naval phase");
        times.push(t.elapsed().as_secs_f64() * 1e6);
        battles = out.iter().filter(|o| o.kind == Kind::NavalBattle).count();
    }
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    (times[times.len() / 2], mean, battles)
}

fn main() {
    let repeats: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(300);
    let s = Scenario::embedded("1805").expect("1805 is embedded");
    let (med, mean, battles) = measure(&s, true, repeats);
    let (bmed, bmean, bbattles) = measure(&s, false, repeats);
    assert_eq!(battles, 4, "four battles with the option");
    assert_eq!(bbattles, 4, "four battles without it");
    println!("busy naval phase, 10 fleets in 4 battles, {repeats} runs (shared machine: noisy)");
    println!("  EiA naval option (12.2.6.1): median {med:.0} us, mean {mean:.0} us");
    println!("  baseline, house naval combat: median {bmed:.0} us, mean {bmean:.0} us");
    println!("  ratio option / baseline: {:.1}", med / bmed.max(1e-9));
    println!(
        "  target: under 5 ms -> {}",
        if med < 5000.0 { "met" } else { "NOT met" }
    );
}
