//! 6.0 The Mutual Build Phase and 2.71 Build Costs Abroad.
//!
//! - Divisions are built into a corps on the map (2.22: three boxes, four
//!   for French corps 1–4) from the force pool of their nation: the
//!   builder's own, or a minor power it has conquered or controls (3.44).
//! - Squadrons are built in a port the builder controls (4.21).
//! - 2.71: the list cost of everything built in one province is raised by
//!   the LOC length from the nearest home province (exclusive) to that
//!   province (inclusive), provinces with `double_loc` counting double,
//!   by `percent_per_step` % a step, rounded as `build_costs.toml` says.
//!   Several orders in one province are charged the increase of the
//!   province total, so the total charged is the 2.71 cost of the total.
//! - 4.221: nothing is built while a deficit is unpaid.
//! - 3.3 / 2.5: reinforcements and commanders with an arrival date appear
//!   in the Build Phase of that turn (Wellington: Spring 1807).

use super::Rejection;
use super::economy::{conqueror, controller, rejected, repay_debt};
use super::outcome::Outcome;
use super::side;
use crate::ids::{Nation, PowerId};
use crate::orders::ast::{Arg, BuildItem, Order};
use crate::rules::Kind;
use crate::rules::Why;
use crate::scenario::{MinorKind, Scenario};
use crate::state::{Location, State, UnitKey};
use std::collections::BTreeMap;

/// Whether `power` may build units of `nation` (3.44). A minor power or
/// a minor province with forces is built only by the power that holds
/// every one of its provinces now, or by a power of the same player's
/// own (that player and his Allied NPCs, 3.44) (3.41: "if even one province is
/// controlled by another player, that minor's units may not be built");
/// a Loyal Minor Power by the power it is loyal to (3.42).
fn may_build_nation(scenario: &Scenario, state: &State, power: PowerId, nation: &Nation) -> bool {
    match nation {
        Nation::Major(p) => *p == power,
        Nation::Minor(m) => match scenario.minors.get(m).map(|s| s.kind) {
            Some(MinorKind::Loyal) => state.minors.get(m).is_some_and(|s| s.controller == Some(power)),
            // 3.44: "a player (or one of that player's Allied NPCs) must
            // first have conquered it"
            Some(_) => conqueror(scenario, state, m).is_some_and(|c| side::same_player(state, power, c)),
            None => false,
        },
    }
}

/// 3.46: where a minor corps that has never been on the map (the
/// Bavarian corps) enters it when `power` first builds into it, and the
/// rule: the first province of its minor that `power` controls; a
/// kingdom's own corps counter its home province (11.2.2.1, 11.3.2.1,
/// 11.5.2.1, the counter row's rule).
pub fn entry_province(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    c: &crate::state::Corps,
) -> Option<(String, String)> {
    let Nation::Minor(m) = &c.nation else { return None };
    if c.location.is_some() || !c.divisions.is_empty() || c.arrives.is_some() {
        return None;
    }
    scenario
        .map
        .owned_by(m)
        .find(|p| controller(scenario, state, &p.id) == Some(power))
        .map(|p| (p.id.clone(), "3.46".to_string()))
        .or_else(|| crate::rules::political::forces::entry_province(scenario, state, power, c))
}

/// Gold already charged for builds per province this phase: (list cost
/// built so far, Gold charged so far), for 2.71.
pub type Spent = BTreeMap<String, (u32, u32)>;

/// Who a build order of `p` builds for. 3.31 puts an Allied NPC's units
/// "completely under the control of the PC" and is silent on who buys
/// them; our reading: the Allied PC orders its Allied NPC's builds, with
/// its own orders, paid from the NPC's treasury and pool. So an order of
/// `p` naming a corps of its Allied NPC (or that NPC's squadrons) builds
/// for the NPC; any other order builds for `p` (whose refusal then says
/// the unit is not `p`'s).
pub fn builder(state: &State, p: PowerId, order: &Order) -> PowerId {
    let named = match order {
        Order::Build { corps, .. } => state.unit_power(corps),
        Order::BuildSquadron {
            nation: Some(Nation::Major(q)),
            ..
        } => Some(*q),
        _ => None,
    };
    named
        .filter(|q| *q != p && side::allied_pc(state, *q) == Some(p))
        .unwrap_or(p)
}

/// Resolve every build order of the phase: each for its builder
/// ([`builder`]), 2.71 totals kept per builder.
pub fn build_phase(scenario: &Scenario, state: &mut State, orders: &super::PhaseOrders, out: &mut Vec<Outcome>) {
    arrivals(scenario, state, out);
    for (p, lines) in orders {
        let mut spent: BTreeMap<PowerId, Spent> = BTreeMap::new();
        for line in lines {
            let b = builder(state, *p, &line.order);
            match build(scenario, state, b, &line.order, spent.entry(b).or_default(), out) {
                Ok(o) => out.push(ordered_by(o, b, *p).order(&line.text)),
                Err(r) => out.push(rejected(r.rule.as_str(), *p, &line.text, &r.reason)),
            }
        }
    }
}

/// A build of `b` ordered by its Allied PC `p` is seen by both and says
/// who ordered it (3.31).
fn ordered_by(o: Outcome, b: PowerId, p: PowerId) -> Outcome {
    if b == p {
        return o;
    }
    o.only(vec![b, p]).why(Why::rule(
        "3.31",
        format!("ordered by {}, {}'s Allied PC", p.name(), b.name()),
    ))
}

/// Carry out one build order of `p` (the Build Phase loop, and the
/// legality check on a projected state, both call this). A deficit is
/// repaid first (4.221); nothing changes when the order is refused.
pub fn build(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    order: &Order,
    spent: &mut Spent,
    out: &mut Vec<Outcome>,
) -> Result<Outcome, Rejection> {
    if !matches!(order, Order::Build { .. } | Order::BuildSquadron { .. }) {
        return Err(Rejection::new("6.0", "only builds are ordered in the Build Phase"));
    }
    // 4.221: nothing is built while a deficit is unpaid.
    if !repay_debt(state, p, out) {
        return Err(Rejection::new(
            "4.221",
            "a deficit must be repaid before anything is built",
        ));
    }
    match order {
        Order::Build { corps, items } => build_divisions(scenario, state, p, corps, items, spent),
        Order::BuildSquadron {
            port,
            count,
            nation: Some(Nation::Minor(m)),
        } => build_kingdom_fleet(scenario, state, p, port, m, *count, spent),
        Order::BuildSquadron {
            nation: Some(Nation::Major(q)),
            ..
        } if *q != p => Err(Rejection::new(
            "6.0",
            format!("{} builds only its own squadrons", p.name()),
        )),
        Order::BuildSquadron { port, count, .. } => build_squadrons(scenario, state, p, port, *count, spent),
        _ => unreachable!("checked above"),
    }
}

/// The 2.71 price of `list` more Gold of builds in `province`, given what
/// was built there already this phase: (the increase to pay, the new
/// province total, why).
pub fn price(
    scenario: &Scenario,
    state: &State,
    p: PowerId,
    province: &str,
    list: u32,
    spent: &Spent,
) -> Result<(u32, (u32, u32), String), Rejection> {
    // The province as players read it; the id stays the key of `spent`.
    let shown = super::war::control::name(scenario, province);
    // 12.2.1: the line crosses only the arrows no enemy fleet interdicts
    let loc = super::war::arrows::loc_length(scenario, state, p, province).ok_or_else(|| {
        let cut = scenario.loc_length(p, province, |_| true).is_some();
        Rejection::new(
            if cut { "12.2.1" } else { "2.71" },
            if cut {
                format!(
                    "no line of communication from {}'s home provinces to {shown}: every line crosses an arrow an enemy fleet interdicts",
                    p.name()
                )
            } else {
                format!(
                    "no line of communication from {}'s home provinces to {shown}",
                    p.name()
                )
            },
        )
    })?;
    let (old_list, old_cost) = spent.get(province).copied().unwrap_or((0, 0));
    let new_cost = scenario.tables.build_costs.cost(old_list + list, loc);
    Ok((
        new_cost - old_cost,
        (old_list + list, new_cost),
        // One unit throughout (Gold), and the one sum this order pays
        // said as such: the province's running totals are context.
        format!(
            "2.71: {} Gold for this order; builds in {shown} this phase list {} Gold and cost {new_cost} Gold in all at LOC {loc} ({}% a step, {})",
            new_cost - old_cost,
            old_list + list,
            scenario.tables.build_costs.percent_per_step,
            scenario.tables.build_costs.rounding
        ),
    ))
}

/// Charge the 2.71 increase for `list` more Gold of builds in `province`;
/// returns the Gold charged and why, or the reason it cannot be paid.
fn charge(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    province: &str,
    list: u32,
    spent: &mut Spent,
    kingdom: Option<(String, i64)>,
) -> Result<(u32, String), Rejection> {
    let (inc, total, mut why) = price(scenario, state, p, province, list, spent)?;
    // 11.x.2: the treasury of the kingdom whose units these are pays first
    let from_kingdom = kingdom.as_ref().map_or(0, |(_, g)| (*g).min(i64::from(inc)));
    let own = i64::from(inc) - from_kingdom;
    if own > state.power(p).gold {
        return Err(Rejection::new(
            "6.0",
            format!("costs {inc} Gold, treasury has {}", state.power(p).gold),
        ));
    }
    spent.insert(province.to_string(), total);
    state.power_mut(p).gold -= own;
    if let Some((id, _)) = kingdom.filter(|_| from_kingdom > 0) {
        super::political::treasury::spend(state, &id, from_kingdom);
        why.push_str(&format!(
            "; 11.x.2: {from_kingdom} Gold of it from the {id} kingdom's treasury"
        ));
    }
    Ok((u32::try_from(own).unwrap_or(0), why))
}

/// The list cost of a division build (before 2.71).
pub fn list_cost(scenario: &Scenario, items: &[BuildItem]) -> Result<u32, Rejection> {
    let mut list = 0;
    for it in items {
        let Some(costs) = scenario.costs(&it.nation) else {
            return Err(Rejection::new("6.0", format!("no costs for {}", it.nation)));
        };
        let unit = match it.arm {
            crate::scenario::Arm::Infantry => costs.infantry,
            crate::scenario::Arm::Cavalry => costs.cavalry,
            crate::scenario::Arm::Artillery => costs.artillery,
        };
        list += unit * it.count;
    }
    Ok(list)
}

/// Each item of a BUILD into a corps of `corps_nation`: a nation `p` may
/// build (3.44), one a minor's corps holds (3.43), and divisions left in
/// its pool (6.0).
fn check_items(
    scenario: &Scenario,
    state: &State,
    p: PowerId,
    corps_nation: &Nation,
    items: &[BuildItem],
) -> Result<(), Rejection> {
    for it in items {
        if !may_build_nation(scenario, state, p, &it.nation) {
            return Err(Rejection::new(
                "3.44",
                format!(
                    "{} may not build {} units",
                    p.name(),
                    crate::state::nation_adjective(scenario, &it.nation)
                ),
            )
            .at(Arg::Nation(it.nation.clone())));
        }
        if let Nation::Minor(_) = &it.nation
            && *corps_nation != it.nation
            && matches!(corps_nation, Nation::Minor(_))
        {
            return Err(
                Rejection::new("3.43", "a minor power corps holds only its own divisions")
                    .at(Arg::Nation(it.nation.clone())),
            );
        }
        let pool = pool_of(state, &it.nation, Some(it.arm));
        if pool < it.count {
            return Err(Rejection::new(
                "6.0",
                format!(
                    "only {pool} {} {} division(s) in the force pool",
                    it.nation,
                    it.arm.short()
                ),
            )
            .at(Arg::Division {
                arm: it.arm,
                nation: it.nation.clone(),
            }));
        }
    }
    Ok(())
}

fn build_divisions(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    key: &UnitKey,
    items: &[BuildItem],
    spent: &mut Spent,
) -> Result<Outcome, Rejection> {
    let unit = key.name(scenario);
    let Some(c) = state.corps(&key.nation, key.number) else {
        return Err(Rejection::new("6.0", format!("no {unit}")));
    };
    // 3.46: the Bavarian corps starts off the map; whoever controls
    // Bavaria builds it onto the map with its divisions.
    let entering = entry_province(scenario, state, p, c).filter(|_| may_build_nation(scenario, state, p, &c.nation));
    if entering.is_none() && state.corps_power(c) != Some(p) {
        return Err(Rejection::coded(
            crate::diagnostic::Problem::NotYourUnit,
            "6.0",
            format!("{unit} is not {}'s", p.name()),
        )
        .at(Arg::Unit(key.clone())));
    }
    let Some(at) = c.location.clone().or(entering.as_ref().map(|(at, _)| at.clone())) else {
        return Err(Rejection::new("6.0", format!("{unit} is not on the map")));
    };
    let count: u32 = items.iter().map(|i| i.count).sum();
    if c.divisions.len() + count as usize > c.capacity() {
        // what the checker shows the player too (rules::legality)
        return Err(Rejection::new(
            "2.22",
            format!(
                "{unit} holds {} division(s); {count} more would pass its {} boxes",
                c.divisions.len(),
                c.capacity()
            ),
        )
        .at(Arg::Unit(key.clone())));
    }
    // 2.22, 2.5: three boxes of any kind; the fourth box of French corps
    // 1–4 takes only a cavalry division
    let cav = crate::scenario::Arm::Cavalry;
    let not_cav = c.divisions.iter().filter(|d| d.arm != cav).count()
        + items
            .iter()
            .filter(|i| i.arm != cav)
            .map(|i| i.count as usize)
            .sum::<usize>();
    if not_cav > 3 {
        return Err(Rejection::new(
            "2.22",
            format!("{unit} holds at most three divisions that are not cavalry; its fourth box takes only cavalry"),
        )
        .at(Arg::Unit(key.clone())));
    }
    check_items(scenario, state, p, &c.nation, items)?;
    let list = list_cost(scenario, items)?;
    let nations: Vec<&Nation> = items.iter().map(|i| &i.nation).collect();
    let kingdom = super::political::treasury::paying(scenario, state, p, &nations, Some(key));
    let (paid, why) = charge(scenario, state, p, &at, list, spent, kingdom)?;
    for it in items {
        match &it.nation {
            Nation::Major(q) => *state.power_mut(*q).pool.of_mut(it.arm) -= it.count,
            Nation::Minor(m) => {
                if let Some(s) = state.minors.get_mut(m) {
                    *s.pool.of_mut(it.arm) -= it.count;
                }
            }
        }
    }
    if let (Some((at, _)), Nation::Minor(m)) = (&entering, &key.nation)
        && let Some(c) = state.corps_mut(&key.nation, key.number)
    {
        c.location = Some(at.clone());
        if let Some(ms) = state.minors.get_mut(m) {
            ms.controller = Some(p);
        }
    }
    if let Some(c) = state.corps_mut(&key.nation, key.number) {
        for it in items {
            for _ in 0..it.count {
                c.divisions.push(crate::state::Division {
                    arm: it.arm,
                    nation: it.nation.clone(),
                });
            }
        }
    }
    let mut o = Outcome::new(
        "6.0",
        Kind::Build,
        format!("{} builds {count} division(s) into {unit} for {paid} Gold", p.name()),
    )
    .power(p)
    .gold(p, -i64::from(paid))
    .why(why)
    .only(vec![p]);
    if let Some((at, rule)) = &entering {
        let at = super::war::control::name(scenario, at);
        o = o.why(Why::rule(rule.as_str(), format!("{unit} enters the map in {at}")));
    }
    Ok(o)
}

/// Divisions of `arm` (squadrons for `None`) left in `nation`'s force pool.
pub fn pool_of(state: &State, nation: &Nation, arm: Option<crate::scenario::Arm>) -> u32 {
    let pool = match nation {
        Nation::Major(q) => Some(state.power(*q).pool),
        Nation::Minor(m) => state.minors.get(m).map(|s| s.pool),
    };
    match (pool, arm) {
        (Some(p), Some(a)) => p.of(a),
        (Some(p), None) => p.squadrons,
        (None, _) => 0,
    }
}

fn build_squadrons(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    port: &str,
    count: u32,
    spent: &mut Spent,
) -> Result<Outcome, Rejection> {
    if !scenario.map.province(port).is_some_and(|x| x.port) || controller(scenario, state, port) != Some(p) {
        return Err(
            Rejection::new("6.0", format!("{port} is not a port {} controls", p.name()))
                .at(Arg::Province(port.to_string())),
        );
    }
    if state.power(p).pool.squadrons < count || count == 0 {
        return Err(Rejection::new(
            "6.0",
            format!("only {} squadron(s) in the force pool", state.power(p).pool.squadrons),
        ));
    }
    let list = scenario.power(p).costs.squadron * count;
    let (paid, why) = charge(scenario, state, p, port, list, spent, None)?;
    state.power_mut(p).pool.squadrons -= count;
    let nation = Nation::Major(p);
    for _ in 0..count {
        state.new_squadron(&nation, Location::Port(port.to_string()), None);
    }
    Ok(Outcome::new(
        "6.0",
        Kind::BuildSquadron,
        format!("{} builds {count} squadron(s) in {port} for {paid} Gold", p.name()),
    )
    .power(p)
    .gold(p, -i64::from(paid))
    .why(why)
    .only(vec![p]))
}

/// 11.2.2, 11.2.2.2: a kingdom's sunk fleet counter built again in its
/// home port by the kingdom's controller, with the kingdom's money first
/// (the seed's "purchase ... ship factors for the ... fleets of ...
/// Venetia"). La Guerre's minors build no other squadrons (4.21 builds a
/// power's own). It costs the minor's squadron price (`minors.toml`), with
/// 2.71, and takes the counter from the minor's pool, where its sinking
/// put it. It comes back under its number, so it is the kingdom's fleet
/// again ([`State::squadron_power`](crate::state::State::squadron_power)).
fn build_kingdom_fleet(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    port: &str,
    minor: &str,
    count: u32,
    spent: &mut Spent,
) -> Result<Outcome, Rejection> {
    let nation = Nation::Minor(minor.to_string());
    let adjective = crate::state::nation_adjective(scenario, &nation).to_string();
    let Some(row) = super::political::forces::fleet_to_rebuild(scenario, state, p, minor, port) else {
        return Err(Rejection::new(
            "11.2.2.2",
            format!(
                "no sunk {adjective} fleet of a kingdom {} controls has its home port in {}: minor powers build no other squadrons",
                p.name(),
                super::war::control::name(scenario, port)
            ),
        ));
    };
    let number = row.number;
    if count != 1 {
        return Err(Rejection::new("11.2.2.2", "a kingdom's fleet is one counter: build 1"));
    }
    if controller(scenario, state, port) != Some(p) {
        return Err(Rejection::new(
            "6.0",
            format!("{port} is not a port {} controls", p.name()),
        ));
    }
    if pool_of(state, &nation, None) == 0 {
        return Err(Rejection::new(
            "6.0",
            format!("no {adjective} squadron in the force pool"),
        ));
    }
    let list = scenario.costs(&nation).map_or(0, |c| c.squadron);
    let kingdom = super::political::treasury::paying(scenario, state, p, &[&nation], None);
    let (paid, why) = charge(scenario, state, p, port, list, spent, kingdom)?;
    if let Some(ms) = state.minors.get_mut(minor) {
        ms.pool.squadrons -= 1;
    }
    state.squadrons.push(crate::state::Squadron {
        nation: nation.clone(),
        number,
        location: Location::Port(port.to_string()),
        blockading: None,
        ships: None,
        held_by: None,
    });
    let unit = UnitKey::squadron(nation, number).name(scenario);
    Ok(Outcome::new(
        "11.2.2.2",
        Kind::BuildSquadron,
        format!(
            "{} builds the {unit} in {} for {paid} Gold",
            p.name(),
            super::war::control::name(scenario, port)
        ),
    )
    .power(p)
    .gold(p, -i64::from(paid))
    .why(why)
    .why(Why::rule(
        row.rule.as_str(),
        format!("the {unit} is the kingdom's again, commanded by its controller only"),
    ))
    .only(vec![p]))
}

/// 3.3, 2.5: corps and commanders whose date has come appear now, at
/// their mat location or the capital.
pub fn arrivals(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let now = state.turn();
    for c in state.corps.iter_mut() {
        if let Some(t) = c.arrives
            && t <= now
            && c.location.is_none()
        {
            let at = match &c.nation {
                Nation::Major(p) => scenario
                    .power(*p)
                    .corps
                    .iter()
                    .find(|s| s.number == c.number)
                    .and_then(|s| s.at.clone())
                    .or_else(|| Some(scenario.power(*p).capital.clone())),
                Nation::Minor(m) => scenario
                    .minors
                    .get(m)
                    .and_then(|s| s.corps.iter().find(|s| s.number == c.number))
                    .and_then(|s| s.at.clone()),
            };
            if let Some(at) = at {
                c.location = Some(at.clone());
                c.arrives = None;
                out.push(Outcome::new(
                    "3.3",
                    Kind::Reinforcement,
                    format!("{} corps {} arrives in {at}", c.nation, c.number),
                ));
            }
        }
    }
    for c in state.commanders.iter_mut() {
        if let Some(t) = c.arrives
            && t <= now
            && c.location.is_none()
        {
            let spec = scenario.power(c.nation).commanders.iter().find(|s| s.name == c.name);
            let at = spec
                .and_then(|s| s.at.clone())
                .unwrap_or_else(|| scenario.power(c.nation).capital.clone());
            c.location = Some(at.clone());
            c.arrives = None;
            out.push(
                Outcome::new(
                    "2.5",
                    Kind::CommanderArrives,
                    format!("{} commander {} arrives in {at}", c.nation.adjective(), c.name),
                )
                .power(c.nation),
            );
        }
    }
}
