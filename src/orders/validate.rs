//! Checks on resolved orders that need the whole message or the phase:
//! which orders the open phase allows (3.7), who may give them, and
//! whether the power can pay for everything it orders (4.221, 6.0).

use super::ast::{EmbargoAction, Order};
use crate::ids::{Nation, PowerId, Step};
use crate::scenario::{Arm, Scenario};
use crate::state::State;
use std::collections::BTreeMap;

/// Which orders a step allows, for messages.
fn allowed_in(step: Step) -> &'static str {
    match step {
        Step::Bid => "BID and standing orders",
        Step::TurnStart => "COOPERATE, MOVE FIRST and standing orders",
        Step::PlayerTurn(_) => {
            "political orders (peace, alliances, war, NPC alliance, Continental System, gifts, loans), naval and land orders, standing orders"
        }
        Step::Build => "BUILD and standing orders",
        Step::Winter => "BUY VP, gifts, loans, NPC alliances, diplomacy and standing orders",
    }
}

fn is_political(o: &Order) -> bool {
    matches!(
        o,
        Order::OfferPeace { .. }
            | Order::AcceptPeace { .. }
            | Order::RejectPeace { .. }
            | Order::Surrender { .. }
            | Order::ProposeAlliance { .. }
            | Order::AcceptAlliance { .. }
            | Order::BreakAlliance { .. }
            | Order::DeclareWar { .. }
            | Order::NpcAlliance { .. }
            | Order::Embargo { .. }
            | Order::Gift { .. }
            | Order::Loan { .. }
    )
}

fn is_military(o: &Order) -> bool {
    matches!(
        o,
        Order::NavalMove { .. }
            | Order::NavalAttack { .. }
            | Order::Blockade { .. }
            | Order::Move { .. }
            | Order::Besiege { .. }
            | Order::Garrison { .. }
            | Order::WithdrawGarrison { .. }
    )
}

/// Is `order` allowed for `power` in the open phase (3.7)? The error is
/// the message for the acknowledgement.
pub fn phase_allows(state: &State, power: PowerId, order: &Order) -> Result<(), String> {
    if matches!(order, Order::Standing(_)) {
        return Ok(()); // standing orders are accepted in any phase
    }
    let step = state.phase.step;
    let ok = match step {
        Step::Bid => matches!(order, Order::Bid { .. }),
        Step::TurnStart => matches!(order, Order::Cooperate { .. } | Order::MoveFirst),
        Step::PlayerTurn(p) => {
            // 5.1, 5.2: the other side answers an offer made in this turn.
            let answer = matches!(
                order,
                Order::AcceptPeace { .. } | Order::RejectPeace { .. } | Order::AcceptAlliance { .. }
            );
            if is_political(order) || is_military(order) {
                if !answer && power != p && state.ordered_by(p) != Some(power) {
                    return Err(format!(
                        "it is {}'s Player Turn; only {} (or whoever runs it) gives political, naval and land orders now, others only accept or reject its offers (3.7)",
                        p.name(),
                        p.name()
                    ));
                }
                true
            } else {
                false
            }
        }
        Step::Build => matches!(order, Order::Build { .. } | Order::BuildSquadron { .. }),
        Step::Winter => {
            matches!(order, Order::BuyVp { .. }) || (is_political(order) && !matches!(order, Order::DeclareWar { .. }))
        }
    };
    if !ok {
        return Err(format!(
            "{} orders are not given in phase {} (it takes {})",
            order.kind(),
            state.phase,
            allowed_in(step)
        ));
    }
    match order {
        // 4.6: only the French player may opt to go first.
        Order::MoveFirst if power != PowerId::France => Err("only France may choose to move first (4.6)".into()),
        // 4.24: France declares and cancels; others join and leave (4.243).
        Order::Embargo {
            action: EmbargoAction::Declare | EmbargoAction::Cancel,
        } if power != PowerId::France => Err("only France declares or cancels the Continental System (4.24)".into()),
        Order::Embargo {
            action: EmbargoAction::Join | EmbargoAction::Leave,
        } if power == PowerId::France => {
            Err("France declares or cancels the Continental System; it does not join or leave (4.24)".into())
        }
        Order::Embargo {
            action: EmbargoAction::Join | EmbargoAction::Leave | EmbargoAction::Cancel,
        } if !state.embargo.active => Err("the Continental System has not been declared (4.24)".into()),
        Order::Embargo {
            action: EmbargoAction::Declare,
        } if state.embargo.active => Err("the Continental System is already in force (4.24)".into()),
        _ => Ok(()),
    }
}

/// Running totals of what a message spends, order by order.
#[derive(Clone)]
pub struct Purse<'a> {
    scenario: &'a Scenario,
    state: &'a State,
    spent: BTreeMap<PowerId, i64>,
    /// Divisions taken from force pools: (nation, arm) -> count.
    drawn: BTreeMap<(Nation, Option<Arm>), u32>,
}

impl<'a> Purse<'a> {
    pub fn new(scenario: &'a Scenario, state: &'a State) -> Self {
        Purse {
            scenario,
            state,
            spent: BTreeMap::new(),
            drawn: BTreeMap::new(),
        }
    }

    /// Charge an order's cost to `power` (or, for builds into an NPC's
    /// corps, to that NPC). Errors leave the totals unchanged.
    /// The error is (code, message): `cannot-pay` or `pool-empty`.
    pub fn charge(&mut self, power: PowerId, order: &Order) -> Result<(), (&'static str, String)> {
        let mut gold: i64 = 0;
        let mut payer = power;
        let mut draws: Vec<((Nation, Option<Arm>), u32)> = Vec::new();
        match order {
            Order::Gift { gold: g, .. } | Order::Loan { gold: g, .. } | Order::BuyVp { gold: g } => {
                gold = i64::from(*g)
            }
            Order::Build { corps, items } => {
                if let Some(p) = self.state.commanding_power(&corps.nation) {
                    payer = p;
                }
                for it in items {
                    let Some(costs) = self.scenario.costs(&it.nation) else {
                        return Err(("cannot-pay", format!("no list costs for {} units", it.nation)));
                    };
                    let each = match it.arm {
                        Arm::Infantry => costs.infantry,
                        Arm::Cavalry => costs.cavalry,
                        Arm::Artillery => costs.artillery,
                    };
                    gold += i64::from(each) * i64::from(it.count);
                    draws.push(((it.nation.clone(), Some(it.arm)), it.count));
                }
            }
            Order::BuildSquadron { count, .. } => {
                let nation = Nation::Major(power);
                let each = self.scenario.costs(&nation).map(|c| c.squadron).unwrap_or(0);
                gold = i64::from(each) * i64::from(*count);
                draws.push(((nation, None), *count));
            }
            _ => return Ok(()),
        }
        let ps = self.state.power(payer);
        // 4.221: a deficit must be made up before anything else is bought.
        if ps.debt > 0 && gold > 0 {
            return Err((
                "cannot-pay",
                format!(
                    "{} has a deficit of {} Gold; no other expenditure is possible until it is made up (4.221)",
                    payer.name(),
                    ps.debt
                ),
            ));
        }
        let spent = self.spent.get(&payer).copied().unwrap_or(0);
        if spent + gold > ps.gold {
            return Err((
                "cannot-pay",
                format!(
                    "this costs {gold} Gold but {} has only {} left ({} in the treasury, {spent} already ordered)",
                    payer.name(),
                    (ps.gold - spent).max(0),
                    ps.gold
                ),
            ));
        }
        for (key, n) in &draws {
            let have = self.pool(&key.0, key.1);
            let used = self.drawn.get(key).copied().unwrap_or(0);
            if used + n > have {
                let what = key
                    .1
                    .map(|a| format!("{} divisions", a.short()))
                    .unwrap_or("squadrons".into());
                return Err((
                    "pool-empty",
                    format!(
                        "the {} force pool holds {} {what}; {} more cannot be built (6.0)",
                        super::parse::nation_adjective(self.scenario, &key.0),
                        have.saturating_sub(used),
                        n
                    ),
                ));
            }
        }
        for (key, n) in draws {
            *self.drawn.entry(key).or_default() += n;
        }
        *self.spent.entry(payer).or_default() += gold;
        Ok(())
    }

    fn pool(&self, nation: &Nation, arm: Option<Arm>) -> u32 {
        let pool = match nation {
            Nation::Major(p) => self.state.powers.get(p).map(|s| s.pool),
            Nation::Minor(m) => self.state.minors.get(m).map(|s| s.pool),
        };
        match (pool, arm) {
            (Some(p), Some(a)) => p.of(a),
            (Some(p), None) => p.squadrons,
            (None, _) => 0,
        }
    }
}
