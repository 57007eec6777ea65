//! 12.2.6.3 Port raids (EiA option `naval`): squadrons at sea attack the
//! enemy ships and hulks in a port the zone borders.
//!
//! The harbour defences of a hostile port fire first (12.2.6.3.1: one
//! roll on the `harbour` table with the port's defence number as
//! strength, casualties only). The surviving raiders then fight the
//! ships and hulks in port on fixed tables (12.2.6.3.2), three rounds or
//! until the raiders break; a broken defender stops replying. Victory
//! needs the other side broken or eliminated and more losses inflicted
//! than taken (12.2.6.3.3). Afterwards the raiders stay at sea in their
//! zone, nobody chases, and each side keeps its own disabled ships
//! (12.2.6.3.4); hulks fight without morale (12.2.8.1).
//!
//! House: when ships or hulks of several enemy powers share the port, the
//! power of the first enemy squadron there defends (else the power with
//! most hulks there, then by id); the others' ships and hulks sit out.
//! Dice: `port-raid/<port>/<n>/harbour`, `port-raid/<port>/<n>/round-<r>/
//! <side>`, `port-raid/<port>/<n>/disabled/<owner>/<i>`.

use super::combat::{self, Fight, Force, Rules};
use super::ports::From;
use super::{aftermath, report};
use crate::dice::DiceError;
use crate::ids::PowerId;
use crate::rules::war::control::{hostile, name};
use crate::rules::war::naval::Phase;
use crate::rules::{Kind, Outcome, Rejection};
use crate::scenario::Scenario;
use crate::state::{Location, State, UnitKey};

fn rej(rule: &str, reason: impl Into<String>) -> Rejection {
    Rejection::new(rule, reason)
}

/// Whether powers `a` and `b` are at war (a neutral's ships and hulks in a
/// port are not raided).
fn at_war(state: &State, a: PowerId, b: PowerId) -> bool {
    a != b && state.relations.at_war(a, b)
}

/// The defending power of `port` against `raider`, its squadrons there
/// and its hulks there (see the module doc).
fn defenders(state: &State, port: &str, raider: PowerId) -> Option<(PowerId, Vec<UnitKey>, u32)> {
    let enemy_ship = state.squadrons.iter().find_map(|q| {
        let p = state.squadron_power(q)?;
        (q.location == Location::Port(port.to_string()) && at_war(state, raider, p)).then_some(p)
    });
    let hulks = state.hulks.get(port);
    let power = enemy_ship.or_else(|| {
        hulks?
            .iter()
            .filter_map(|(o, n)| Some((o.parse::<PowerId>().ok()?, *n)))
            .filter(|(p, n)| *n > 0 && at_war(state, raider, *p))
            .max_by_key(|(p, n)| (*n, std::cmp::Reverse(*p)))
            .map(|(p, _)| p)
    })?;
    let keys = state
        .squadrons
        .iter()
        .filter(|q| q.location == Location::Port(port.to_string()) && state.squadron_power(q) == Some(power))
        .map(|q| UnitKey::squadron(q.nation.clone(), q.number))
        .collect();
    let h = hulks.and_then(|m| m.get(power.id())).copied().unwrap_or(0);
    Some((power, keys, h))
}

/// Check a RAID order (12.2.6.3): the option is on, the squadron is at
/// sea in a zone the port borders, and enemy ships or hulks lie there.
pub fn check(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    squadron: &UnitKey,
    port: &str,
) -> Result<(), Rejection> {
    if !crate::rules::war::option_naval::enabled(state) {
        return Err(rej(
            "12.2.6.3",
            "port raids belong to the EiA naval option, not in play in this game",
        ));
    }
    let s = crate::rules::war::naval::ordered_squadron(scenario, state, power, squadron)?;
    let p = crate::rules::war::naval::port_from_sea(scenario, s, port, ("12.2.6.3", "raid a port"))?;
    let raider = state.squadron_power(s).unwrap_or(power);
    if defenders(state, port, raider).is_none() {
        return Err(rej(
            "12.2.6.3",
            format!(
                "no ship or hulk of a power at war with {} lies in {}",
                raider.name(),
                p.name
            ),
        ));
    }
    Ok(())
}

/// 12.2.6.3: one raid on `port` by `raiders` (squadrons of the phase
/// power's RAID orders against it).
pub fn raid(
    ph: &mut Phase<'_>,
    state: &mut State,
    port: &str,
    raiders: &[UnitKey],
    text: &str,
) -> Result<Vec<Outcome>, DiceError> {
    let (scenario, power) = (ph.scenario, ph.power);
    let t = &scenario.tables.naval_option;
    let raider = raiders.first().and_then(|k| state.unit_power(k)).unwrap_or(power);
    let Some((def_power, def_keys, hulks)) = defenders(state, port, raider) else {
        return Ok(vec![
            Outcome::new(
                "12.2.6.3",
                Kind::OrderFailed,
                format!("nothing of an enemy lies in {}", name(scenario, port)),
            )
            .power(power)
            .order(text)
            .only(vec![power]),
        ]);
    };
    let (Some(ta), Some(td)) = (t.crt(&t.port_raid.attacker), t.crt(&t.port_raid.defender)) else {
        return Ok(vec![
            Outcome::new("12.2.6.3", Kind::OrderFailed, "the port raid tables are missing").power(power),
        ]);
    };
    let mut fight = Fight::open(ph, "port-raid", port);
    let mut attack = Force::new(scenario, state, "raider", raiders);
    harbour_fire(&mut fight, state, port, raider, &mut attack)?;
    let mut defence = Force::new(scenario, state, "defender", &def_keys);
    defence.power = Some(def_power);
    // 12.2.8.1: hulks fight in the raid, without morale
    defence.hulks = hulks;
    if let Some(m) = state.hulks.get_mut(port) {
        m.remove(def_power.id());
    }
    let mut sides = [attack, defence];
    fight.line(format!(
        "12.2.6.3.2: no tactical chits; the raiders fight on table {}, the ships and hulks in port on table {}",
        ta.id, td.id
    ));
    let rules = Rules {
        tables: [ta, td],
        rounds: 3,
        raid: true,
        melee: None,
    };
    let ending = if sides[0].active() > 0 {
        fight.rounds(&mut sides, &rules)?
    } else {
        fight.line("12.2.6.3.1: no raider is left to engage the port");
        combat::Ending::Inconclusive
    };
    // hulks not disabled again stay in port as they were
    state.add_hulks(port, def_power, sides[1].hulks);
    let vp = aftermath::settle(state, t, &sides, ending, &mut fight.log);
    fight.line("12.2.6.3.4: no general chase; each side keeps its own disabled ships");
    // 12.2.6.3.4: the defender's disabled ships stay in the port (0 MP),
    // the raiders' make for port from the zone they raided from
    let zone = raiders
        .iter()
        .find_map(|k| match state.squadron(&k.nation, k.number).map(|s| &s.location) {
            Some(Location::Sea(z)) => Some(z.clone()),
            _ => None,
        })
        .or_else(|| scenario.map.province(port).and_then(|p| p.seas.first().cloned()))
        .unwrap_or_default();
    let [a, d] = &sides;
    aftermath::send_home(&mut fight, state, a, a.disabled(), &From::Sea(&zone))?;
    aftermath::send_home(&mut fight, state, d, d.disabled(), &From::Port(port))?;
    let summary = match ending {
        combat::Ending::Victor(0) => format!(
            "Port raid on {}: {} defeats {}",
            name(scenario, port),
            report::side_name(a),
            def_power.name()
        ),
        combat::Ending::Victor(_) => format!(
            "Port raid on {}: {} beats off {}",
            name(scenario, port),
            def_power.name(),
            report::side_name(a)
        ),
        _ => format!("Port raid on {}: a draw", name(scenario, port)),
    };
    let b = report::Battle {
        rule: "12.2.6.3",
        summary,
        power,
        text,
        at: port,
        seen_by: report::seers_of(state, [raider, def_power]),
    };
    let mut out = vec![];
    let notes = std::mem::take(&mut fight.notes);
    out.push(b.outcome(fight.log, vp));
    out.extend(notes);
    Ok(out)
}

/// 12.2.6.3.1: a port held by a power at war with the raider, or whose
/// holder has denied the raider access (standing order), fires once on
/// the harbour table with its defence number as strength.
fn harbour_fire(
    fight: &mut Fight<'_, '_>,
    state: &State,
    port: &str,
    raider: PowerId,
    attack: &mut Force,
) -> Result<(), DiceError> {
    let scenario = fight.scenario();
    let t = &scenario.tables.naval_option;
    let holder = state.provinces.get(port).and_then(|p| p.controller.clone());
    let hostile_port = holder
        .as_ref()
        .is_some_and(|h| hostile(state, &crate::ids::Nation::Major(raider), h));
    // "at war or has denied access to (see 6.3.1.3) the attacking naval
    // force": the holder's standing order PORTS CLOSED TO the raider
    let denied = !hostile_port && super::ports::denied(state, raider, port);
    if !hostile_port && !denied {
        fight.line("12.2.6.3.1: the port is not held by an enemy: its harbour defences stay silent");
        return Ok(());
    }
    if denied {
        fight.line(format!(
            "12.2.6.3.1: the holder of {} has denied {} access: its harbour defences fire",
            name(scenario, port),
            raider.name()
        ));
    }
    let Some(table) = t.crt(&t.port_raid.harbour) else {
        return Ok(());
    };
    let strength = t.harbour_defence.of(port);
    let d = fight.roll("harbour")?;
    let r = table.result(d as i32, strength);
    let hit = attack.take(r.disabled);
    fight.line(format!(
        "12.2.6.3.1: harbour defences of {} (strength {strength}, table {}): d6 {d}: {hit} raiding ship(s) disabled",
        name(scenario, port),
        table.id
    ));
    Ok(())
}

/// 12.2.6.3: the raids of `power`'s Naval Phase, after its moves: every
/// RAID line on one port makes one raid.
pub fn raids(
    ph: &mut crate::rules::war::naval::Phase<'_>,
    state: &mut State,
    orders: &[crate::orders::ast::OrderLine],
    out: &mut Vec<Outcome>,
) -> Result<(), DiceError> {
    use crate::orders::ast::{NavalOrder, Order};
    let (scenario, power) = (ph.scenario, ph.power);
    let mut by_port: Vec<(String, Vec<UnitKey>, Vec<String>)> = Vec::new();
    for l in orders {
        let Order::Naval(NavalOrder::Raid { squadron, port }) = &l.order else {
            continue;
        };
        if let Err(r) = check(scenario, state, power, squadron, port) {
            out.push(
                Outcome::new(&r.rule, Kind::OrderFailed, r.reason)
                    .power(power)
                    .order(&l.text)
                    .only(vec![power]),
            );
            continue;
        }
        match by_port.iter_mut().find(|(p, _, _)| p == port) {
            Some((_, keys, texts)) => {
                if !keys.contains(squadron) {
                    keys.push(squadron.clone());
                }
                texts.push(l.text.clone());
            }
            None => by_port.push((port.clone(), vec![squadron.clone()], vec![l.text.clone()])),
        }
    }
    for (port, keys, texts) in by_port {
        out.extend(raid(ph, state, &port, &keys, &texts.join("; "))?);
    }
    Ok(())
}
