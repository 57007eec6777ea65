//! The order checker at the exact limit of what a power can pay (issue
//! 36: a mistake there survived every test). 4.2: an order is paid from
//! the treasury; 4.221: a deficit is repaid from it first, and a deficit
//! larger than the treasury blocks every purchase. What a player sees is
//! the checker's verdict and its message; the engine must charge the same
//! (an order the checker accepts is carried out).

use empereur::ids::{PhaseId, PowerId};
use empereur::orders::{self, Checked};
use empereur::rules::{self, Kind, PhaseOrders};
use empereur::scenario::Scenario;
use empereur::state::State;
use empereur::testing::ScriptedDice;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

const BUILD: &str = "BUILD 1 SQUADRON IN Brest";

fn scenario() -> &'static Scenario {
    static S: OnceLock<Scenario> = OnceLock::new();
    S.get_or_init(|| Scenario::embedded("1805").unwrap())
}

/// The Fall 1805 Build Phase with France's treasury and deficit set.
fn france_with(gold: i64, debt: i64) -> State {
    let all: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let mut s = State::initial(scenario(), "pay", &all, BTreeSet::new());
    s.phase = "1805-fall-build".parse::<PhaseId>().unwrap();
    let france = s.power_mut(PowerId::France);
    france.gold = gold;
    france.debt = debt;
    s
}

fn check(state: &State, text: &str) -> Checked {
    orders::check(text, scenario(), state, Some(PowerId::France))
}

/// What the squadron costs France, as the checker words it to a player
/// who cannot pay at all.
fn price() -> i64 {
    let c = check(&france_with(0, 0), BUILD);
    let m = &c.diagnostics[0].message;
    let cost = m
        .strip_prefix("this costs ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no price in {m:?}"));
    assert!(cost > 1, "{m}");
    cost
}

/// The engine's outcomes for the orders the checker accepted.
fn carried_out(state: &State, c: &Checked) -> Vec<Kind> {
    let orders: PhaseOrders = [(PowerId::France, c.accepted.clone())].into();
    let mut dice = ScriptedDice::new(BTreeMap::new(), Some(5));
    let r = rules::resolve(scenario(), state, &orders, &mut dice).unwrap();
    assert!(
        !r.outcomes.iter().any(|o| o.kind == Kind::OrderRejected),
        "the engine refused what the checker took: {:?}",
        r.outcomes
    );
    r.outcomes.iter().map(|o| o.kind).collect()
}

#[test]
fn a_treasury_of_exactly_the_price_pays_and_one_gold_less_does_not() {
    let cost = price();
    let exact = france_with(cost, 0);
    let c = check(&exact, BUILD);
    assert!(
        c.all_accepted(),
        "{cost} Gold for a {cost}-Gold squadron: {:?}",
        c.diagnostics
    );
    carried_out(&exact, &c);

    let c = check(&france_with(cost - 1, 0), BUILD);
    assert_eq!(c.diagnostics.len(), 1, "{:?}", c.diagnostics);
    assert_eq!(c.diagnostics[0].code, "cannot-pay");
    assert_eq!(
        c.diagnostics[0].message,
        format!(
            "this costs {cost} Gold but France will have only {} left when it is paid (4.2)",
            cost - 1
        )
    );
}

#[test]
fn a_deficit_is_repaid_first_leaving_exactly_the_price_or_one_gold_less() {
    // 4.221: 3 Gold of deficit come out of the treasury before the build.
    let cost = price();
    let state = france_with(cost + 3, 3);
    let c = check(&state, BUILD);
    assert!(c.all_accepted(), "{:?}", c.diagnostics);
    carried_out(&state, &c);

    let c = check(&france_with(cost + 2, 3), BUILD);
    assert_eq!(c.diagnostics[0].code, "cannot-pay");
    assert!(
        c.diagnostics[0]
            .message
            .contains(&format!("will have only {} left", cost - 1)),
        "{}",
        c.diagnostics[0].message
    );
}

#[test]
fn a_deficit_the_treasury_exactly_repays_leaves_nothing_but_blocks_nothing() {
    // Gold equal to the deficit: it is repaid (4.221) and 0 Gold is left,
    // so the build cannot be paid, but no deficit stands in the way.
    let c = check(&france_with(7, 7), BUILD);
    let m = &c.diagnostics[0].message;
    assert_eq!(c.diagnostics[0].code, "cannot-pay");
    assert!(m.contains("will have only 0 left"), "{m}");
    assert!(!m.contains("deficit"), "{m}");
    // One Gold short of the deficit: the deficit itself is the reason.
    let c = check(&france_with(6, 7), BUILD);
    let m = &c.diagnostics[0].message;
    assert_eq!(
        m,
        "France has a deficit of 7 Gold that the treasury cannot repay; nothing else may be bought until it is made up (4.221)"
    );
}
