//! Any bytes, as lossy text, through `orders::check`: it must not panic
//! and every diagnostic must point inside the input
//! (`empereur::testing::check_any_bytes`, which `tests/it/fuzz_corpus.rs`
//! also runs over a corpus on stable, in CI).
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
    empereur::testing::check_any_bytes(scenario, state, data);
});
