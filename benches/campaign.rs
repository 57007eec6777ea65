//! Benchmark: a whole 1805–1815 campaign with generated orders (rules
//! engine I + whatever rules II resolves), seven Player Countries, in
//! process: the rules' part of the target of a whole campaign under 2 s
//! with its history files (`autoplay` bench).
//! `cargo bench --bench campaign`
#![allow(clippy::disallowed_methods)] // a bench measures time

mod common;
use empereur::autoplay::{self, SeededDice};
use empereur::ids::PowerId;
use empereur::rules::{self, PhaseOrders};
use empereur::scenario::Scenario;
use empereur::state::State;
use std::collections::BTreeSet;
use std::time::Instant;

fn main() {
    let mut s = Scenario::embedded("1805").expect("scenario");
    for spec in s.powers.values_mut() {
        spec.vp_goal = 1_000_000; // play the whole calendar
    }
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let runs = common::size(5u64, 1);
    let mut phases = 0u64;
    let t = Instant::now();
    for seed in 0..runs {
        let mut st = State::initial(&s, "bench", &players, BTreeSet::new());
        let mut i = 0u64;
        while st.over.is_none() && (!common::smoke() || i < 10) {
            let mut o = PhaseOrders::new();
            for p in rules::roles(&s, &st).may {
                o.insert(p, autoplay::political::generate(&s, &st, p, seed * 100_000 + i));
            }
            let mut dice = SeededDice::new(seed ^ (i << 16));
            st = rules::resolve(&s, &st, &o, &mut dice).expect("resolves").state;
            i += 1;
        }
        phases += i;
    }
    let el = t.elapsed();
    let per = el.as_secs_f64() / runs as f64;
    println!(
        "{runs} campaigns, {phases} phases in {:.3} s: {:.1} ms per campaign, {:.1} µs per phase; target: a whole campaign under 2 s including its history files (this is its rules part, {:.1}% of that; the whole is the autoplay bench): {}",
        el.as_secs_f64(),
        per * 1000.0,
        el.as_secs_f64() * 1e6 / phases as f64,
        per * 100.0 / 2.0,
        if per < 2.0 { "met" } else { "NOT met" }
    );
}
