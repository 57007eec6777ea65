//! 12.2.7 The West Indies (seed 003, the second section numbered 12.2.7:
//! 12.2.7.1–.3; EiA option `naval`): three areas off the board, the
//! Canaries, the Mid-Atlantic and the West Indies (`seas.toml`,
//! `off_board`).
//!
//! - 12.2.7.1 movement: only British, French and Spanish fleets go there;
//!   they leave the board from the two southern board-edge zones (the
//!   zones next to the Canaries on the map) with at least one movement
//!   point left (the allowance counts the Canaries as a zone). From the
//!   Canaries a fleet returns to the board only as its whole move (it
//!   spends all its movement), or sails on to the Mid-Atlantic; from the
//!   Mid-Atlantic it must go on to the West Indies or back to the
//!   Canaries: a move that begins there may not end there. From the West
//!   Indies the only way is the Mid-Atlantic. Every fleet off the board
//!   pays $5 at each economic step ("as if at sea").
//! - 12.2.7.2 colonial trade: a French or Spanish fleet at war with
//!   Britain in the West Indies at the end of a Naval Phase cuts $10 from
//!   Britain's colonial trade at the next economic step.
//! - 12.2.7.3 combat: a fleet that ends its move in the Canaries or the
//!   West Indies may ATTACK enemy fleets there; fleets in the Mid-Atlantic
//!   may not be attacked; nobody intercepts off the board; each attacked
//!   fleet evades on a d6 of 1–3; no retreat or pursuit after the battle;
//!   disabled ships are lost on 1–3, else stay in the area as hulks.
//!
//! House (the seed is silent; `docs/rules-coverage.md`):
//! - La Guerre has no "economic phase" of its own each season: the $5 and
//!   the $10 fall due at the Money and Manpower step that the option
//!   already reads as every Mutual Build Phase and Winterphase (12.2.9.3);
//!   Britain loses the $10 once however many Naval Phases the raid lasted.
//! - A fleet of the moving power that began its Naval Phase in the
//!   Mid-Atlantic and was given no order that takes it out sails on to the
//!   West Indies at the end of the phase (the rule forbids it to stay;
//!   which way it goes is the house choice).
//! - An attacked fleet tries to evade unless its power's standing order
//!   is `EVADE OFF` (the seed's "may"; `standing::evades`).
//!
//! Dice: `evade/<area>/<attacking squadron>/<attacked squadron>`, and the battle's own
//! `naval-battle/<area>/<n>/…/disabled/<holder>/<i>`.

use super::combat::{Fight, Force};
use super::report;
use crate::dice::DiceError;
use crate::ids::{Nation, PowerId};
use crate::map::OffBoard;
use crate::rules::war::control::name;
use crate::rules::war::naval::Phase;
use crate::rules::war::standing;
use crate::rules::{Kind, Outcome, Rejection};
use crate::scenario::Scenario;
use crate::state::{Location, Squadron, State, UnitKey};

/// 12.2.7.1: "Only Britain, France and Spain may send fleets to the West
/// Indies."
pub const POWERS: [PowerId; 3] = [PowerId::Britain, PowerId::France, PowerId::Spain];
/// 12.2.7.1: maintenance "as if they were at sea (i.e. $5 per fleet)".
pub const UPKEEP_DOLLARS: i64 = 5;
/// 12.2.7.2: Britain's colonial trade "is reduced by $10".
pub const TRADE_LOSS_DOLLARS: i64 = 10;
/// 12.2.7.2: the powers whose fleets cut Britain's colonial trade.
pub const RAIDERS: [PowerId; 2] = [PowerId::France, PowerId::Spain];
/// 12.2.7.3: an attacked fleet "may evade on a roll of 1-3".
pub const EVADE_AT_MOST: u32 = 3;
/// 12.2.7.3: "Disabled ships are lost on a roll of 1-3".
pub const LOST_AT_MOST: u32 = 3;
/// The die of this section.
const D6: u32 = 6;

fn no(rule: &str, reason: impl Into<String>) -> Rejection {
    Rejection::new(rule, reason)
}

fn area(scenario: &Scenario, loc: &Location) -> Option<OffBoard> {
    match loc {
        Location::Sea(z) => scenario.map.off_board(z),
        Location::Port(_) => None,
    }
}

/// 12.2.7.1: the off-board part of a naval move's check. `zones` are the
/// zones the squadron enters, in order; `to_port` the port it would end
/// in. Moves that touch no off-board area pass untouched.
pub fn check_path(
    scenario: &Scenario,
    state: &State,
    s: &Squadron,
    zones: &[String],
    to_port: Option<&str>,
) -> Result<(), Rejection> {
    let start = area(scenario, &s.location);
    let touches = start.is_some() || zones.iter().any(|z| scenario.map.off_board(z).is_some());
    if !touches {
        return Ok(());
    }
    if !crate::rules::war::option_naval::enabled(state) {
        return Err(no(
            "12.2.7.1",
            "the areas off the board are used only with the EiA naval option",
        ));
    }
    if !matches!(&s.nation, Nation::Major(p) if POWERS.contains(p)) {
        return Err(no(
            "12.2.7.1",
            "only Britain, France and Spain may send fleets off the board to the West Indies",
        ));
    }
    let end = zones
        .last()
        .and_then(|z| scenario.map.off_board(z))
        .or(if zones.is_empty() { start } else { None });
    if start == Some(OffBoard::MidAtlantic) && end == Some(OffBoard::MidAtlantic) {
        return Err(no(
            "12.2.7.1",
            "a fleet may not begin and end the same Naval Phase in the Mid-Atlantic: it must go on to the West Indies or the Canaries",
        ));
    }
    let mut prev = start;
    for (i, z) in zones.iter().enumerate() {
        let here = scenario.map.off_board(z);
        if prev == Some(OffBoard::Canaries) && here.is_none() && (i != 0 || i + 1 != zones.len() || to_port.is_some()) {
            return Err(no(
                "12.2.7.1",
                format!(
                    "returning from the Canaries to {} spends all the fleet's movement: it must be the whole move, from the start of the phase in the Canaries",
                    name(scenario, z)
                ),
            ));
        }
        prev = here;
    }
    Ok(())
}

/// 12.2.7.3: nobody intercepts in an off-board area.
pub fn no_interception(scenario: &Scenario, zone: &str) -> bool {
    scenario.map.off_board(zone).is_some()
}

/// 12.2.7.3: the off-board part of an ATTACK's check: fleets in the
/// Mid-Atlantic may not be attacked.
pub fn check_attack(scenario: &Scenario, sea: &str) -> Result<(), Rejection> {
    match scenario.map.off_board(sea) {
        Some(OffBoard::MidAtlantic) => Err(no("12.2.7.3", "fleets in the Mid-Atlantic may not be attacked")),
        _ => Ok(()),
    }
}

/// What the attacked fleets did: those that stay to fight, and the
/// outcomes (the rolls, then each private note).
pub type Evasion = (Vec<UnitKey>, Vec<Outcome>);

/// 12.2.7.3: each fleet attacked in the Canaries or the West Indies "may
/// evade": unless its power's standing order says `EVADE OFF` it rolls
/// (1–3). Returns the fleets that stay to fight and the outcome of the
/// rolls (seen by both sides) followed by each power's private note of a
/// standing order that decided, or `None` when the zone is on the board.
pub fn evade(
    ph: &mut Phase<'_>,
    state: &State,
    sea: &str,
    attacker: PowerId,
    by: &UnitKey,
    defenders: &[UnitKey],
) -> Result<Option<Evasion>, DiceError> {
    let scenario = ph.scenario;
    if scenario.map.off_board(sea).is_none() {
        return Ok(None);
    }
    let mut stay = Vec::new();
    let mut rolls = Vec::new();
    let mut o = Outcome::new("12.2.7.3", Kind::NavalBattle, String::new());
    let mut seers = vec![attacker];
    let mut notes = Vec::new();
    for k in defenders {
        // "may evade": the attacked power's standing order (default yes)
        let owner = state.unit_power(k);
        let (tries, decided) = match owner {
            Some(q) => standing::evades(state, q),
            None => (true, standing::Decided::Default("a minor power's fleet evades".into())),
        };
        if let (Some(q), standing::Decided::Standing(_)) = (owner, &decided) {
            notes.push(
                Outcome::new(
                    "12.2.7.3",
                    Kind::NavalTactic,
                    format!(
                        "{} {} to evade in {}",
                        k.name(scenario),
                        if tries { "tries" } else { "does not try" },
                        name(scenario, sea)
                    ),
                )
                .power(q)
                .why(format!("12.2.7.3: {decided}"))
                .only(report::seers_of(state, [q])),
            );
        }
        seers.extend(owner);
        if !tries {
            rolls.push(format!("{}: stays to fight", k.name(scenario)));
            stay.push(k.clone());
            continue;
        }
        // one roll a defender for each attack (the attacking squadron)
        let p = format!("evade/{sea}/{}-{}/{}-{}", by.nation, by.number, k.nation, k.number);
        let d = ph.dice.roll(&p, D6)?;
        o = o.die(&p, d);
        let gone = d <= EVADE_AT_MOST;
        rolls.push(format!(
            "{} {d}: {}",
            k.name(ph.scenario),
            if gone { "evades" } else { "is caught" }
        ));
        if !gone {
            stay.push(k.clone());
        }
    }
    o.summary = format!(
        "{} in {}: {} of {} attacked fleet(s) evade",
        attacker.name(),
        name(scenario, sea),
        defenders.len() - stay.len(),
        defenders.len()
    );
    o = o
        .power(attacker)
        .why(format!(
            "12.2.7.3: an attacked fleet evades on a d6 of {EVADE_AT_MOST} or less: {}",
            rolls.join("; ")
        ))
        .only(report::seers_of(state, seers));
    notes.insert(0, o);
    Ok(Some((stay, notes)))
}

/// 12.2.7.3: after a battle off the board nobody retreats or pursues.
pub fn stays(fight: &mut Fight<'_, '_>, sea: &str) -> bool {
    if fight.scenario().map.off_board(sea).is_none() {
        return false;
    }
    fight.line("12.2.7.3: off the board fleets neither retreat nor pursue: both remain in the area");
    true
}

/// 12.2.7.3: `n` disabled ships held by `side` in the off-board area
/// `sea`: one d6 each, lost on 1–3, else a hulk of the holder in the
/// area (refitted like any hulk, 12.2.8.3). `None` when `sea` is on the
/// board.
pub fn disabled(
    fight: &mut Fight<'_, '_>,
    state: &mut State,
    side: &Force,
    n: u32,
    sea: &str,
) -> Option<Result<(), DiceError>> {
    fight.scenario().map.off_board(sea)?;
    Some(disabled_here(fight, state, side, n, sea))
}

fn disabled_here(
    fight: &mut Fight<'_, '_>,
    state: &mut State,
    side: &Force,
    n: u32,
    sea: &str,
) -> Result<(), DiceError> {
    let area = name(fight.scenario(), sea);
    let Some(power) = side.power else {
        fight.line(format!("12.2.7.3: the {}'s {n} disabled ship(s) are lost", side.role));
        return Ok(());
    };
    let mut kept = 0;
    let mut rolls = Vec::new();
    for k in 1..=n {
        let d = fight.roll(&format!("disabled/{}/{k}", power.id()))?;
        let lost = d <= LOST_AT_MOST;
        rolls.push(format!("{d}{}", if lost { " lost" } else { " kept" }));
        if !lost {
            kept += 1;
        }
    }
    state.add_hulks(sea, power, kept);
    fight.line(format!(
        "12.2.7.3: {} rolls for {n} disabled ship(s) in {area} (lost on {LOST_AT_MOST} or less): {}; {kept} remain there as hulks",
        power.name(),
        rolls.join(", ")
    ));
    Ok(())
}

/// The moving power's fleets in the Mid-Atlantic as its Naval Phase
/// begins (12.2.7.1: they may not end it there).
pub fn lingering(scenario: &Scenario, state: &State, power: PowerId) -> Vec<UnitKey> {
    state
        .squadrons
        .iter()
        .filter(|s| {
            area(scenario, &s.location) == Some(OffBoard::MidAtlantic) && state.squadron_power(s) == Some(power)
        })
        .map(|s| UnitKey::squadron(s.nation.clone(), s.number))
        .collect()
}

/// The end of `power`'s Naval Phase: 12.2.7.1 (house) fleets that began
/// it in the Mid-Atlantic and are still there sail on to the West
/// Indies; 12.2.7.2 a French or Spanish fleet at war with Britain in the
/// West Indies marks Britain's colonial trade as cut.
pub fn end_of_naval_phase(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    began_mid: &[UnitKey],
    out: &mut Vec<Outcome>,
) {
    let (Some(mid), Some(wi)) = (
        scenario.map.off_board_area(OffBoard::MidAtlantic),
        scenario.map.off_board_area(OffBoard::WestIndies),
    ) else {
        return;
    };
    for k in began_mid {
        let Some(s) = state
            .squadrons
            .iter_mut()
            .find(|s| s.nation == k.nation && s.number == k.number && s.location == Location::Sea(mid.id.clone()))
        else {
            continue;
        };
        s.location = Location::Sea(wi.id.clone());
        out.push(
            Outcome::new(
                "12.2.7.1",
                Kind::NavalMove,
                format!("{} may not stay in {}: it sails on to {}", k.name(scenario), mid.name, wi.name),
            )
            .power(power)
            .why(crate::rules::Why::house(
                "a fleet that began the Naval Phase in the Mid-Atlantic and was not ordered out sails on to the West Indies",
            )),
        );
    }
    let raider = state.squadrons.iter().find(|s| {
        s.location == Location::Sea(wi.id.clone())
            && matches!(&s.nation, Nation::Major(p) if RAIDERS.contains(p)
                && state.relations.at_war(*p, PowerId::Britain))
    });
    if let Some(s) = raider
        && !state.naval.colonial_raid
    {
        let o = Outcome::new(
            "12.2.7.2",
            Kind::NavalMove,
            format!(
                "{} is in {} at the end of a Naval Phase: Britain's colonial trade is cut by ${TRADE_LOSS_DOLLARS} at the next economic step",
                UnitKey::squadron(s.nation.clone(), s.number).name(scenario),
                wi.name
            ),
        )
        .power(PowerId::Britain);
        state.naval.colonial_raid = true;
        out.push(o);
    }
}

/// The economic step (every Mutual Build Phase and Winterphase, as for
/// 12.2.9.3): $5 a fleet off the board (12.2.7.1), and Britain's $10 of
/// colonial trade when a raid was marked (12.2.7.2).
pub fn economic_step(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let per_dollar = scenario.tables.naval_option.gold_per_dollar;
    for power in PowerId::ALL {
        let fleets: Vec<String> = state
            .squadrons
            .iter()
            .filter(|s| area(scenario, &s.location).is_some() && state.squadron_power(s) == Some(power))
            .map(|s| format!("{}-{}", s.nation, s.number))
            .collect();
        if fleets.is_empty() {
            continue;
        }
        let gold = UPKEEP_DOLLARS * fleets.len() as i64 * per_dollar;
        let why = vec![format!(
            "12.2.7.1: ${UPKEEP_DOLLARS} for each of {} ({per_dollar} Gold per $, tables/naval_option.toml)",
            fleets.join(", ")
        )];
        out.push(report::pay(
            state,
            power,
            gold,
            ("12.2.7.1", "fleets off the board"),
            why,
        ));
    }
    if std::mem::take(&mut state.naval.colonial_raid) {
        let why = vec![format!(
            "12.2.7.2: a French or Spanish fleet was in the West Indies at the end of a Naval Phase: ${TRADE_LOSS_DOLLARS} ({per_dollar} Gold per $)"
        )];
        out.push(report::pay(
            state,
            PowerId::Britain,
            TRADE_LOSS_DOLLARS * per_dollar,
            ("12.2.7.2", "colonial trade lost in the West Indies"),
            why,
        ));
    }
}
