//! Blockades under the EiA option: running a blockade (12.2.9.1), the
//! covering sortie (12.2.9.2), the blockade battle (12.2.6.2) and the
//! upkeep of blockading fleets (12.2.9.3).
//!
//! In a power's Naval Phase, before any squadron sails, every SAIL from a
//! port an enemy blockades rolls to run the blockade (one d6, slips past
//! on 2 or less; −1 when carrying corps, −1 when a covering sortie from the
//! same port has at least as many ships). Runners that fail are
//! intercepted and fight one blockade battle together with the covering
//! squadrons. A runner whose side did not lose may go on with its move
//! (12.2.6.1.8, last sentence); one whose side lost stays in port
//! (12.2.6.2). Dice: `blockade-run/<port>/<squadron>`,
//! `blockade-battle/<port>/<n>/…`.

use super::combat::{self, Ending, Fight, Force, Log, Rules};
use super::ports::{From, nearest_friendly_port};
use super::{aftermath, report};
use crate::dice::DiceError;
use crate::ids::PowerId;
use crate::rules::war::control::{hostile, name};
use crate::rules::war::naval::Phase;
use crate::rules::{Kind, Outcome};
use crate::scenario::Scenario;
use crate::state::{Location, State, UnitKey};
use std::collections::{BTreeMap, BTreeSet};

/// 12.2.9.1: the run succeeds on a d6 total of at most this.
pub const RUN_AT_MOST: i32 = 2;

/// The squadrons blockading `port` that are hostile to `runner`.
pub fn blockaders(state: &State, port: &str, runner: &UnitKey) -> Vec<UnitKey> {
    state
        .squadrons
        .iter()
        .filter(|&b| b.blockading.as_deref() == Some(port) && hostile(state, runner, b))
        .map(|b| UnitKey::squadron(b.nation.clone(), b.number))
        .collect()
}

/// A squadron's port, if it is in one.
fn port_of(state: &State, k: &UnitKey) -> Option<String> {
    match state.squadron(&k.nation, k.number).map(|s| &s.location) {
        Some(Location::Port(p)) => Some(p.clone()),
        _ => None,
    }
}

/// One SAIL order from a blockaded port.
#[derive(Clone, Debug)]
pub struct Runner {
    pub squadron: UnitKey,
    pub carrying: bool,
    pub text: String,
}

/// A covering squadron (12.2.9.2) and its order text.
#[derive(Clone, Debug)]
pub struct Cover {
    pub squadron: UnitKey,
    pub text: String,
}

/// 12.2.9: the blockade step of `ph.power`'s Naval Phase. Returns the
/// squadrons whose SAIL is over (turned back or sunk); the others move
/// with no further blockade roll.
pub fn step(
    ph: &mut Phase<'_>,
    state: &mut State,
    runners: &[Runner],
    covers: &[Cover],
    out: &mut Vec<Outcome>,
) -> Result<BTreeSet<UnitKey>, DiceError> {
    let (scenario, power) = (ph.scenario, ph.power);
    let t = &scenario.tables.naval_option;
    // ports in play, in the order their first order was given
    let mut ports: Vec<String> = Vec::new();
    let mut by_port: BTreeMap<String, (Vec<&Runner>, Vec<&Cover>)> = BTreeMap::new();
    for r in runners {
        if let Some(p) = port_of(state, &r.squadron)
            && !blockaders(state, &p, &r.squadron).is_empty()
        {
            if !by_port.contains_key(&p) {
                ports.push(p.clone());
            }
            by_port.entry(p).or_default().0.push(r);
        }
    }
    for c in covers {
        if let Some(p) = port_of(state, &c.squadron)
            && !blockaders(state, &p, &c.squadron).is_empty()
        {
            if !by_port.contains_key(&p) {
                ports.push(p.clone());
            }
            by_port.entry(p).or_default().1.push(c);
        }
    }
    let mut held = BTreeSet::new();
    for port in ports {
        let (rs, cs) = &by_port[&port];
        let cover_keys: Vec<UnitKey> = cs.iter().map(|c| c.squadron.clone()).collect();
        let cover_ships: u32 = cover_keys.iter().map(|k| combat::ships_of(state, t, k)).sum();
        let mut failed: Vec<&Runner> = Vec::new();
        for r in rs {
            let odds = Odds {
                covers: !cover_keys.is_empty(),
                cover_ships,
                ships: combat::ships_of(state, t, &r.squadron),
            };
            let (ok, o) = roll_run(ph, state, &port, r, odds)?;
            out.push(o);
            if !ok {
                failed.push(r);
            }
        }
        if failed.is_empty() && cover_keys.is_empty() {
            continue;
        }
        // 12.2.9.2: failed runners join the covering fleet's battle
        let mut side: Vec<UnitKey> = cover_keys.clone();
        side.extend(failed.iter().map(|r| r.squadron.clone()));
        let texts: Vec<&str> = cs
            .iter()
            .map(|c| c.text.as_str())
            .chain(failed.iter().map(|r| r.text.as_str()))
            .collect();
        let ending = battle(ph, state, &port, &side, &texts.join("; "), out)?;
        let lost = ending == Some(Ending::Victor(1));
        for r in &failed {
            let gone = state.squadron(&r.squadron.nation, r.squadron.number).is_none();
            if lost || gone {
                held.insert(r.squadron.clone());
                out.push(
                    Outcome::new(
                        "12.2.6.2",
                        Kind::OrderFailed,
                        format!(
                            "{} {} the blockade battle off {} and does not sail",
                            r.squadron.name(scenario),
                            if gone {
                                "is lost in"
                            } else {
                                "is beaten back into port by"
                            },
                            name(scenario, &port)
                        ),
                    )
                    .power(power)
                    .order(&r.text)
                    .only(vec![power]),
                );
            }
        }
    }
    Ok(held)
}

/// What a runner's die is modified by (12.2.9.2): whether covering
/// squadrons sortie from its port, their ships and the runner's.
#[derive(Clone, Copy)]
struct Odds {
    covers: bool,
    cover_ships: u32,
    ships: u32,
}

impl Odds {
    /// 12.2.9.2: a covering force of at least as many ships.
    fn covered(self) -> bool {
        self.covers && self.cover_ships >= self.ships
    }
}

/// 12.2.9.1 / 12.2.9.2: one runner's die.
fn roll_run(
    ph: &mut Phase<'_>,
    state: &State,
    port: &str,
    r: &Runner,
    odds: Odds,
) -> Result<(bool, Outcome), DiceError> {
    let k = &r.squadron;
    let covered = odds.covered();
    let purpose = format!("blockade-run/{port}/{}-{}", k.nation, k.number);
    let d = ph.dice.roll(&purpose, 6)?;
    let total = d as i32 - i32::from(r.carrying) - i32::from(covered);
    let ok = total <= RUN_AT_MOST;
    let mut keys = blockaders(state, port, k);
    keys.push(k.clone());
    let mut o = Outcome::new(
        "12.2.9.1",
        Kind::BlockadeRun,
        format!(
            "{} {} the blockade of {}",
            k.name(ph.scenario),
            if ok { "slips through" } else { "is intercepted running" },
            name(ph.scenario, port)
        ),
    )
    .power(ph.power)
    .order(&r.text)
    .die(&purpose, d)
    .only(report::seers(state, &keys))
    .why(format!(
        "12.2.9.1: d6 {d}{}{} = {total} against at most {RUN_AT_MOST}",
        if r.carrying { " -1 (carrying land forces)" } else { "" },
        if covered { " -1 (covering fleet, 12.2.9.2)" } else { "" }
    ));
    if odds.covers && !covered {
        o = o.why(format!(
            "12.2.9.2: the covering force's {} ships are fewer than the runner's {}: no modifier",
            odds.cover_ships, odds.ships
        ));
    }
    if !ok {
        o = o.why("12.2.9.1: 3-6 is intercepted: a blockade battle follows (12.2.6.2)");
    }
    Ok((ok, o))
}

/// 12.2.6.2: a blockade battle off `port` between `blockaded` (the
/// runners and covering squadrons) and every enemy squadron blockading
/// it. Returns how it ended (None: nobody blockades any more).
pub fn battle(
    ph: &mut Phase<'_>,
    state: &mut State,
    port: &str,
    blockaded: &[UnitKey],
    text: &str,
    out: &mut Vec<Outcome>,
) -> Result<Option<Ending>, DiceError> {
    let scenario = ph.scenario;
    let t = &scenario.tables.naval_option;
    let Some(first) = blockaded.first() else {
        return Ok(None);
    };
    let blockading = blockaders(state, port, first);
    if blockading.is_empty() {
        return Ok(None);
    }
    let (Some(t_in), Some(t_out)) = (t.crt(&t.blockade_battle.blockaded), t.crt(&t.blockade_battle.blockader)) else {
        return Ok(None);
    };
    let mut fight = Fight::open(ph, "blockade-battle", port);
    let mut sides = [
        Force::new(scenario, state, "blockaded", blockaded),
        Force::new(scenario, state, "blockader", &blockading),
    ];
    fight.line(format!(
        "12.2.6.2: no tactical chits; the blockaded force fights on table {}, the blockaders on table {}",
        t_in.id, t_out.id
    ));
    let rules = Rules {
        tables: [t_in, t_out],
        rounds: 3,
        raid: false,
        melee: None,
    };
    let ending = fight.rounds(&mut sides, &rules)?;
    match ending {
        // 12.2.6.1.7: the general chase; 12.2.6.2: none for a victorious
        // blockader
        Ending::Victor(0) => fight.declare_chase(state, &mut sides, 0, 0)?,
        Ending::Victor(_) => fight.line("12.2.6.2: the blockaders won: no general chase"),
        _ => {}
    }
    let vp = aftermath::settle(state, t, &sides, ending, &mut fight.log);
    aftermath::disabled_ships(&mut fight, state, &sides, ending, &From::Port(port))?;
    match ending {
        Ending::Victor(0) => retreat_blockaders(scenario, state, port, &blockading, &mut fight.log),
        Ending::Victor(_) => fight.line(format!(
            "12.2.6.2: the surviving blockaded ships return to {}",
            name(scenario, port)
        )),
        _ => fight.line("12.2.6.1.8: no victor: both forces remain, the blockade stands"),
    }
    let mut all = blockaded.to_vec();
    all.extend(blockading.iter().cloned());
    let summary = match ending {
        Ending::Victor(i) => format!(
            "Blockade battle off {}: {} defeats {}",
            name(scenario, port),
            report::side_name(&sides[i]),
            report::side_name(&sides[1 - i])
        ),
        Ending::BothBroken => format!("Blockade battle off {}: both sides break", name(scenario, port)),
        Ending::Inconclusive => format!("Blockade battle off {}: inconclusive", name(scenario, port)),
    };
    let power = fight.ph.power;
    let b = report::Battle {
        rule: "12.2.6.2",
        summary,
        power,
        text,
        at: port,
        seen_by: report::seers(state, &all),
    };
    let notes = std::mem::take(&mut fight.notes);
    out.push(b.outcome(fight.log, vp));
    out.extend(notes);
    Ok(Some(ending))
}

/// 12.2.6.1.8 (6.3.5 is not in the seeds; house): beaten blockaders lift
/// the blockade and make for their power's nearest usable port; with
/// none in reach they stay at sea in their zone.
fn retreat_blockaders(scenario: &Scenario, state: &mut State, port: &str, keys: &[UnitKey], log: &mut Log) {
    for k in keys {
        let Some(p) = state.unit_power(k) else {
            continue;
        };
        let to = nearest_friendly_port(scenario, state, p, &From::Port(port)).map(|(q, _)| q);
        let Some(s) = state.squadron_mut(&k.nation, k.number) else {
            continue;
        };
        s.blockading = None;
        match to {
            Some(q) => {
                s.location = Location::Port(q.clone());
                log.push(format!(
                    "12.2.6.1.8: {} lifts the blockade and retires to {}",
                    k.name(scenario),
                    name(scenario, &q)
                ));
            }
            None => log.push(format!(
                "12.2.6.1.8: {} lifts the blockade and stays at sea",
                k.name(scenario)
            )),
        }
    }
}

/// 12.2.9.3: at the end of `power`'s Naval Phase it pays $1 per fleet
/// blockading a port, $2 when the port is more than two naval movement
/// points from a port it (or an ally) controls.
pub fn upkeep(scenario: &Scenario, state: &mut State, power: PowerId, out: &mut Vec<Outcome>) {
    let t = &scenario.tables.naval_option;
    let mut dollars = 0i64;
    let mut why = Vec::new();
    for s in &state.squadrons {
        let Some(port) = &s.blockading else {
            continue;
        };
        if state.squadron_power(s) != Some(power) {
            continue;
        }
        let near = nearest_friendly_port(scenario, state, power, &From::Port(port));
        let cost = match &near {
            Some((_, d)) if *d <= 2 => 1,
            _ => 2,
        };
        dollars += cost;
        why.push(format!(
            "{} blockading {}: ${cost} ({})",
            UnitKey::squadron(s.nation.clone(), s.number).name(scenario),
            name(scenario, port),
            match near {
                Some((q, d)) => format!("{} is {d} naval MP away", name(scenario, &q)),
                None => "no port of its own or an ally within reach".into(),
            }
        ));
    }
    if dollars == 0 {
        return;
    }
    out.push(report::pay(
        state,
        power,
        dollars * t.gold_per_dollar,
        ("12.2.9.3", "blockade upkeep"),
        why,
    ));
}

/// 12.2.9.3 (8.5.1.2): $5 per fleet in a blockade box at the Money and
/// Manpower Expenditure Step, which La Guerre's Mutual Build Phase and
/// Winterphase economy stand for (rules-notes §6.3).
pub fn expenditure_step(scenario: &Scenario, state: &mut State, out: &mut Vec<Outcome>) {
    let t = &scenario.tables.naval_option;
    for power in PowerId::ALL {
        let fleets: Vec<String> = state
            .squadrons
            .iter()
            .filter(|s| s.blockading.is_some() && state.squadron_power(s) == Some(power))
            .map(|s| format!("{}-{}", s.nation, s.number))
            .collect();
        if fleets.is_empty() {
            continue;
        }
        let why = vec![format!("$5 for each of {}", fleets.join(", "))];
        let gold = 5 * fleets.len() as i64 * t.gold_per_dollar;
        out.push(report::pay(
            state,
            power,
            gold,
            ("12.2.9.3", "fleets in blockade boxes"),
            why,
        ));
    }
}

/// The blockade step (12.2.9) for `power`'s military orders: every SAIL
/// is a possible runner (only those in a blockaded port roll).
pub fn step_orders(
    ph: &mut crate::rules::war::naval::Phase<'_>,
    state: &mut State,
    orders: &[crate::orders::ast::OrderLine],
    out: &mut Vec<Outcome>,
) -> Result<BTreeSet<UnitKey>, DiceError> {
    let (scenario, power) = (ph.scenario, ph.power);
    use crate::orders::ast::{NavalOrder, Order};
    let mut runners = Vec::new();
    let mut covers = Vec::new();
    let mut seen = BTreeSet::new();
    for l in orders {
        if let Order::NavalMove { squadron, carrying, .. } = &l.order
            && seen.insert(squadron.clone())
            && crate::rules::war::check_order(scenario, state, power, &l.order).is_ok()
        {
            runners.push(Runner {
                squadron: squadron.clone(),
                carrying: !carrying.is_empty(),
                text: l.text.clone(),
            });
        }
    }
    for l in orders {
        let Order::Naval(NavalOrder::Sortie { squadron }) = &l.order else {
            continue;
        };
        let refused = if seen.contains(squadron) {
            Some(crate::rules::Rejection::new(
                "12.2.9.2",
                format!(
                    "{} sails this phase: it runs the blockade and cannot also cover",
                    squadron.name(ph.scenario)
                ),
            ))
        } else {
            check_sortie(ph.scenario, state, power, squadron).err()
        };
        match refused {
            Some(r) => out.push(
                Outcome::new(&r.rule, Kind::OrderFailed, r.reason)
                    .power(power)
                    .order(&l.text)
                    .only(vec![power]),
            ),
            None => {
                seen.insert(squadron.clone());
                covers.push(Cover {
                    squadron: squadron.clone(),
                    text: l.text.clone(),
                });
            }
        }
    }
    step(ph, state, &runners, &covers, out)
}

/// Check a SORTIE order (12.2.6.2, 12.2.9.2): the option is on and the
/// squadron lies in a port enemy squadrons blockade.
pub fn check_sortie(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    squadron: &UnitKey,
) -> Result<(), crate::rules::Rejection> {
    let rej = |rule: &str, reason: String| crate::rules::Rejection::new(rule, reason);
    if !crate::rules::war::option_naval::enabled(state) {
        return Err(rej(
            "12.2.9.2",
            "a sortie against a blockade belongs to the EiA naval option, not in play in this game".into(),
        ));
    }
    let Some(s) = state.squadron(&squadron.nation, squadron.number) else {
        return Err(rej("5.4", format!("there is no {}", squadron.name(scenario))));
    };
    if !crate::rules::war::movement::orders_for(state, power, &s.nation) {
        return Err(crate::rules::war::movement::not_yours(scenario, power, squadron));
    }
    let Location::Port(port) = &s.location else {
        return Err(rej("12.2.6.2", format!("{} is not in port", squadron.name(scenario))));
    };
    if blockaders(state, port, squadron).is_empty() {
        return Err(rej(
            "12.2.6.2",
            format!("no enemy squadron blockades the port of {}", squadron.name(scenario)),
        ));
    }
    Ok(())
}
