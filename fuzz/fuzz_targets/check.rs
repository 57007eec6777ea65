//! Any bytes, as lossy text, through `orders::check`: it must not panic
//! and every diagnostic must point inside the input.
#![no_main]

use empereur::ids::PowerId;
use empereur::scenario::Scenario;
use empereur::state::State;
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeSet;
use std::sync::OnceLock;

fn setup() -> &'static (Scenario, State) {
    static S: OnceLock<(Scenario, State)> = OnceLock::new();
    S.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/orders-scenario");
        let scenario = empereur::store::load_scenario_dir(std::path::Path::new(dir)).expect("fixture scenario");
        let players: BTreeSet<PowerId> = [PowerId::France, PowerId::Britain, PowerId::Austria].into();
        let mut state = State::initial(&scenario, "fuzz", &players, BTreeSet::new());
        state.phase = "1805-fall-france".parse().expect("phase id");
        (scenario, state)
    })
}

fuzz_target!(|data: &[u8]| {
    let (scenario, state) = setup();
    let text = String::from_utf8_lossy(data);
    let checked = empereur::orders::check(&text, scenario, state, Some(PowerId::France));
    let lines: Vec<&str> = text.lines().collect();
    for d in &checked.diagnostics {
        let s = d.span;
        if lines.is_empty() {
            assert_eq!((s.line, s.col, s.len), (1, 1, 0));
            continue;
        }
        let line = lines.get(s.line.wrapping_sub(1)).expect("span line inside the input");
        assert!(s.col >= 1 && s.col - 1 + s.len <= line.chars().count().max(1), "{d:?}");
        let _ = d.render("fuzz", &text);
    }
});
