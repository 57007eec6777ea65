//! France's Continental System (4.24–4.258).
//!
//! - Declaring (4.24) needs French troops (a corps or garrison) in Berlin
//!   or a French–Prussian alliance during the turn; France may cancel at
//!   any time.
//! - Participants (4.243): France, France's allies, powers under an
//!   enforced peace with France, and powers that joined voluntarily (not
//!   allied with, at war with, or at enforced peace with France; they may
//!   leave again). Britain never takes part. A power takes part only
//!   while it controls a port of trade (4.242): the embargo closes ports,
//!   so a nation without one closes nothing, pays nothing and costs
//!   Britain nothing.
//! - Each Winter (4.256–4.258), per participating Player Country (4.24:
//!   "all player countries participating"; an NPC's ports are closed but
//!   it is not assessed): it loses the Gold of its
//!   next year on the British Embargo Track (in the Tax Collection Step),
//!   Britain loses that year's VP (end of the VP Collection Step), and its
//!   marker advances. A marker that stopped resumes where it was.
//! - 4.257: each minor power port of trade held (4.21) by a participant
//!   costs Britain `minor_port_vp` more.

use super::economy::{controller, rejected};
use super::outcome::Outcome;
use super::side;
use crate::ids::{Nation, PowerId};
use crate::map::{Owner, ProvinceKind};
use crate::orders::ast::EmbargoAction;
use crate::rules::Kind;
use crate::rules::Why;
use crate::scenario::Scenario;
use crate::state::State;

/// 4.24: may France declare the Continental System now? (Berlin is the
/// Prussian capital of the scenario.)
pub fn may_declare(scenario: &Scenario, state: &State) -> bool {
    let french = Nation::Major(PowerId::France);
    let berlin = scenario.power(PowerId::Prussia).capital.as_str();
    let in_berlin = state.corps_in(berlin).any(|c| c.nation == french)
        || state
            .provinces
            .get(berlin)
            .and_then(|p| p.garrison.as_ref())
            .is_some_and(|g| g.nation == french);
    in_berlin || state.relations.allied(PowerId::France, PowerId::Prussia)
}

/// 4.243: whether `p` is bound to the Continental System now (France,
/// its allies and powers at enforced peace with it) or has joined it
/// voluntarily, whether or not it has ports to close.
fn bound_or_joined(state: &State, p: PowerId) -> bool {
    if !state.embargo.active || p == PowerId::Britain {
        return false;
    }
    let f = PowerId::France;
    p == f
        || state.relations.allied(p, f)
        || state.relations.enforced(p, f, state.turn()).is_some()
        || (state.power(p).in_embargo && !state.relations.at_war(p, f))
}

/// 4.242, 4.243: whether `p` controls (4.21) a port of trade with Britain.
pub fn has_trade_port(scenario: &Scenario, state: &State, p: PowerId) -> bool {
    scenario
        .map
        .provinces
        .iter()
        .any(|pr| pr.trade_port && controller(scenario, state, &pr.id) == Some(p))
}

/// 4.243: whether `p` is in the Continental System now: bound to it or
/// joined, and holding a port of trade the embargo closes.
pub fn participates(scenario: &Scenario, state: &State, p: PowerId) -> bool {
    bound_or_joined(state, p) && has_trade_port(scenario, state, p)
}

/// Refresh every power's `in_embargo` flag from 4.243 (voluntary members
/// keep theirs while they have a port to close).
pub fn refresh(scenario: &Scenario, state: &mut State) {
    for p in PowerId::ALL {
        let v = participates(scenario, state, p);
        state.power_mut(p).in_embargo = v;
    }
}

/// An embargo order (4.24 declare/cancel by France, 4.243 join/leave).
pub fn order(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    action: EmbargoAction,
    text: &str,
    out: &mut Vec<Outcome>,
) {
    let f = PowerId::France;
    match action {
        EmbargoAction::Declare => {
            if p != f {
                out.push(rejected("4.24", p, text, "only France declares the Continental System"));
            } else if state.embargo.active {
                out.push(rejected("4.24", p, text, "the Continental System is already in force"));
            } else if !may_declare(scenario, state) {
                out.push(rejected(
                    "4.24",
                    p,
                    text,
                    "France needs troops in Berlin or an alliance with Prussia",
                ));
            } else {
                state.embargo.active = true;
                out.push(
                    Outcome::new("4.24", Kind::EmbargoDeclared, "France declares the Continental System")
                        .power(p)
                        .order(text),
                );
            }
        }
        EmbargoAction::Cancel => {
            if p != f || !state.embargo.active {
                out.push(rejected(
                    "4.24",
                    p,
                    text,
                    "only France cancels a Continental System in force",
                ));
            } else {
                state.embargo.active = false;
                out.push(
                    Outcome::new("4.24", Kind::EmbargoCancelled, "France cancels the Continental System")
                        .power(p)
                        .order(text),
                );
            }
        }
        // 4.243: "a player country ... may voluntarily join the embargo"
        EmbargoAction::Join if !side::is_player_country(state, p) => out.push(rejected(
            "4.243",
            p,
            text,
            &format!(
                "only a Player Country joins the Continental System voluntarily; {} is an NPC",
                p.name()
            ),
        )),
        EmbargoAction::Join => {
            let bound = state.relations.allied(p, f)
                || state.relations.at_war(p, f)
                || state.relations.enforced(p, f, state.turn()).is_some();
            if p == f || p == PowerId::Britain || bound || !state.embargo.active {
                out.push(rejected(
                    "4.243",
                    p,
                    text,
                    "only a power not allied with, at war with or at enforced peace with France may join a Continental System in force",
                ));
            } else {
                state.power_mut(p).in_embargo = true;
                out.push(
                    Outcome::new(
                        "4.243",
                        Kind::EmbargoJoined,
                        format!("{} joins the Continental System", p.name()),
                    )
                    .power(p)
                    .order(text),
                );
            }
        }
        EmbargoAction::Leave => {
            let bound =
                p == f || state.relations.allied(p, f) || state.relations.enforced(p, f, state.turn()).is_some();
            if bound || !state.power(p).in_embargo {
                out.push(rejected(
                    "4.256",
                    p,
                    text,
                    "an ally of France leaves only by leaving the alliance, an enforced peace only when it expires",
                ));
            } else {
                state.power_mut(p).in_embargo = false;
                out.push(
                    Outcome::new(
                        "4.256",
                        Kind::EmbargoLeft,
                        format!("{} leaves the Continental System", p.name()),
                    )
                    .power(p)
                    .order(text),
                );
            }
        }
    }
}

/// 4.24, 4.256: whether `p` is assessed in the Winter: a participating
/// Player Country ("all player countries participating in the
/// Continental System inflict VP losses on Britain, pay penalties to the
/// bank and advance their Embargo marker"; "the marker only moves if a
/// PC is participating"). An NPC in the system (France's Allied NPC, say)
/// only has its ports closed (4.243, and 4.244's minor ports).
fn assessed(state: &State, p: PowerId) -> bool {
    state.power(p).in_embargo && side::is_player_country(state, p)
}

/// 4.258: the participants' income loss, in the Tax Collection Step.
pub fn income_loss(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    refresh(scenario, state);
    for p in PowerId::ALL {
        if !assessed(state, p) {
            continue;
        }
        let year = state.power(p).embargo_years + 1;
        let (_, gold) = scenario.tables.embargo.lookup(p, year);
        let ps = state.power_mut(p);
        // Taken from the taxes just collected; what cannot be paid is a
        // deficit (4.221).
        let pay = gold.min(ps.gold.max(0));
        ps.gold -= pay;
        ps.debt += gold - pay;
        out.push(
            Outcome::new(
                "4.258",
                Kind::EmbargoIncomeLoss,
                format!("{} loses {gold} Gold to the Continental System", p.name()),
            )
            .power(p)
            .gold(p, -pay)
            .why(format!("British Embargo Track, {}, year {year}: ${gold}", p.name())),
        );
    }
}

/// 4.257 and 4.256: Britain's VP losses and the markers, at the end of
/// the VP Collection Step.
pub fn vp_losses(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let b = PowerId::Britain;
    for p in PowerId::ALL {
        if !assessed(state, p) {
            continue;
        }
        let year = state.power(p).embargo_years + 1;
        let (vp, _) = scenario.tables.embargo.lookup(p, year);
        state.power_mut(b).vp -= vp;
        state.power_mut(p).embargo_years = year;
        out.push(
            Outcome::new(
                "4.257",
                Kind::EmbargoVpLoss,
                format!("Britain loses {vp} VP to {}'s embargo (year {year})", p.name()),
            )
            .power(b)
            .vp(b, -vp)
            .why(format!("British Embargo Track, {}, year {year}: ({vp})", p.name()))
            .why(Why::rule(
                "4.256",
                format!("{}'s marker advances to year {year}", p.name()),
            )),
        );
    }
    // 4.257: minor power ports of trade held by participants.
    let per = scenario.tables.embargo.minor_port_vp;
    let ports: Vec<(String, PowerId)> = scenario
        .map
        .provinces
        .iter()
        .filter(|pr| pr.trade_port && !matches!(pr.owner, Owner::Major(_)) && pr.kind != ProvinceKind::Home)
        .filter_map(|pr| {
            let c = controller(scenario, state, &pr.id)?;
            state.power(c).in_embargo.then(|| (pr.name.clone(), c))
        })
        .collect();
    if !ports.is_empty() {
        let vp = per * ports.len() as i64;
        state.power_mut(b).vp -= vp;
        let mut o = Outcome::new(
            "4.257",
            Kind::EmbargoMinorPorts,
            format!(
                "Britain loses {vp} VP for {} minor ports of trade closed to her",
                ports.len()
            ),
        )
        .power(b)
        .vp(b, -vp);
        for (name, c) in ports {
            o = o.why(format!("{name} (held by {}): {per}", c.name()));
        }
        out.push(o);
    }
}
