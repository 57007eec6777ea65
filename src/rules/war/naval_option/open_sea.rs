//! 12.2.6.1 Open sea combat (EiA option `naval`): every naval battle at
//! sea that is neither a blockade battle nor a port raid, that is the
//! battles of an interception and of an ATTACK order (5.4). It replaces
//! the house Naval Combat table of `naval::battle` when the option is on.
//!
//! The nine steps: (1) each side selects a naval tactical chit, by its
//! power's standing order for the situation (the interceptor or the
//! squadron ordered to ATTACK is attacking) or its default
//! (`standing::naval_tactic`); in games that begin in 1805 only a fleet
//! Nelson commands may select melee until he has used it (12.2.6.1.1.1).
//! (2) Both chits are revealed and cross-indexed on the Tactical Naval
//! Chart (`tables/naval_option.toml` `[[tactics]]`). (3) Forces and final
//! morale are revealed. (4) The chart gives each side its table, and its
//! melee tables once a melee side has closed; −1 a fleet after the second;
//! Nelson's closing modifier (12.2.6.1.4.2). (5) Rounds as in `combat`.
//! (6) Victory, defeat, three rounds at most, political points as VP.
//! (7) The victor's general chase (−1 when it used linear defence).
//! (8) The loser retreats to its nearest usable port (EiA 6.3.5 is not in
//! the seeds: house; at sea when it has none); the victor remains, pursues
//! to blockade or returns to port, and with no victor each side remains
//! or retreats, by standing order (`standing::after_battle`, default
//! remain). The chase of (7) is declared by standing order too
//! (`standing::naval_chase`, default yes). (9) Disabled ships captured and sent home.
//! Nelson's casualty roll follows every battle his fleet fights (12.2.7).
//!
//! Who sees what: the battle outcome (chits revealed, forces, morale,
//! dice, losses) goes to both sides; how a power's chit was decided (its
//! standing order or the default) goes to that power only. Dice:
//! `naval-battle/<sea>/<n>/round-<r>/<side>`, `…/close-<r>/<side>`,
//! `…/chase`, `…/disabled/<owner>/<i>`, `…/nelson/1|2|fate`.

use super::combat::{Ending, Fight, Force, Melee, Rules};
use super::ports::{From, nearest_friendly_port};
use super::{aftermath, nelson, report, west_indies};
use crate::dice::DiceError;
use crate::ids::{Nation, PowerId};
use crate::orders::ast::Situation;
use crate::rules::war::control::name;
use crate::rules::war::naval::Phase;
use crate::rules::war::standing::{self, Decided};
use crate::rules::{Kind, Outcome};
use crate::scenario::Scenario;
use crate::scenario::tables_naval::{Chit, NavalOptionTable};
use crate::state::naval_standing::AfterBattle;
use crate::state::{Location, State, UnitKey};

/// An open sea combat about to be fought.
pub struct Engagement<'a> {
    pub sea: &'a str,
    /// The side that attacks: the interceptors, or the squadrons of an
    /// ATTACK order.
    pub attackers: &'a [UnitKey],
    pub defenders: &'a [UnitKey],
    /// The order that brought it on.
    pub text: &'a str,
}

/// 12.2.6.1: fight an open sea combat. Returns its outcomes (the battle,
/// then each power's private note of its chit) and how it ended, side 0
/// being the attackers.
pub fn battle(ph: &mut Phase<'_>, state: &mut State, e: &Engagement<'_>) -> Result<(Vec<Outcome>, Ending), DiceError> {
    let scenario = ph.scenario;
    let t = &scenario.tables.naval_option;
    let mut out = Vec::new();
    let mut fight = Fight::open(ph, "naval-battle", e.sea);
    if let Some(l) = nelson::follow(scenario, state) {
        fight.line(l);
    }
    let keys = [e.attackers, e.defenders];
    let mut sides = [
        Force::new(scenario, state, "attacker", e.attackers),
        Force::new(scenario, state, "defender", e.defenders),
    ];
    let chits = select_chits(scenario, state, e.sea, &sides, keys, &mut out);
    // step two: reveal and cross-index
    fight.line(format!(
        "12.2.6.1.2: the attacker ({}) reveals {}, the defender ({}) {}",
        report::side_name(&sides[0]),
        chits[0].name(),
        report::side_name(&sides[1]),
        chits[1].name()
    ));
    let nelson_side = (0..2).find(|&i| nelson::commands(scenario, state, keys[i]));
    let minus = nelson_minus(state, nelson_side, chits, keys, &mut fight, &mut out);
    let Some(rules) = chart(t, chits, minus, &mut fight) else {
        return Ok((out, Ending::Inconclusive));
    };
    // steps three to six
    let ending = fight.rounds(&mut sides, &rules)?;
    if let Some(i) = nelson_side
        && chits[i] == Chit::Melee
        && !state.naval.melee_free
    {
        state.naval.melee_free = true;
        fight.line("12.2.6.1.1.1: Nelson has used melee: from now on every fleet may select it");
    }
    // step seven: the general chase
    if let Some(v) = ending.victor() {
        let linear_defence = i32::from(chits[v] == Chit::LinearDefence);
        fight.declare_chase(state, &mut sides, v, linear_defence)?;
    }
    let vp = aftermath::settle(state, t, &sides, ending, &mut fight.log);
    // step nine (before the loser sails away: the ships are taken here)
    aftermath::disabled_ships(&mut fight, state, &sides, ending, &From::Sea(e.sea))?;
    if let Some(i) = nelson_side {
        nelson::casualty(
            scenario,
            state,
            &mut *fight.ph.dice,
            &fight.purpose,
            minus[i],
            &mut fight.log,
        )?;
    }
    // step eight (12.2.7.3: not off the board)
    let stays = west_indies::stays(&mut fight, e.sea);
    match ending.victor() {
        _ if stays => {}
        Some(v) => {
            let fled = retreat(scenario, state, e.sea, &sides[1 - v].fleets, &mut fight);
            after_victory(state, e.sea, &sides[v], fled.first().map(String::as_str), &mut fight);
        }
        None => after_draw(state, e.sea, &sides, &mut fight),
    }
    let notes = std::mem::take(&mut fight.notes);
    out.insert(0, outcome(state, e, &sides, ending, fight, vp));
    out.extend(notes);
    Ok((out, ending))
}

/// 12.2.6.1.8: "the victor may either remain in the sea area, pursue to
/// blockade, or retreat to his own nearest controlled port as if he were
/// the loser": each fleet by its power's standing order (default:
/// remain). A pursuit follows the loser to the port it retreated to
/// (`fled`) and blockades it from the zone of that port nearest the
/// battle; with no such port the victor remains.
fn after_victory(state: &mut State, sea: &str, victor: &Force, fled: Option<&str>, fight: &mut Fight<'_, '_>) {
    let scenario = fight.scenario();
    let mut remain = Vec::new();
    for f in &victor.fleets {
        let Some(p) = state.unit_power(&f.key) else {
            remain.push(f);
            continue;
        };
        let (choice, decided) = standing::after_battle(state, p, true);
        let did = match (choice, fled) {
            (AfterBattle::Port, _) => {
                retreat(scenario, state, sea, std::slice::from_ref(f), fight);
                "retreats to port"
            }
            (AfterBattle::Blockade, Some(port)) => {
                pursue(scenario, state, sea, f, port, fight);
                "pursues to blockade"
            }
            (AfterBattle::Blockade, None) => {
                fight.line(format!(
                    "12.2.6.1.8: {} has no port to pursue the beaten fleet to",
                    f.name
                ));
                remain.push(f);
                "remains: no port to pursue to"
            }
            (AfterBattle::Remain, _) => {
                remain.push(f);
                "remains"
            }
        };
        fight.told(
            state,
            Some(p),
            "12.2.6.1.8",
            format!("{} {did} after its victory", f.name),
            &decided,
        );
    }
    if remain.len() == victor.fleets.len() {
        fight.line(format!(
            "12.2.6.1.8: the {} remains in {}",
            victor.role,
            name(scenario, sea)
        ));
    } else {
        for f in remain {
            fight.line(format!("12.2.6.1.8: {} remains in {}", f.name, name(scenario, sea)));
        }
    }
}

/// 12.2.6.1.8: "If neither side is declared the victor, both forces may
/// retreat or remain in the sea zone and no pursuit is allowed": each
/// fleet by its power's standing order (default: remain).
fn after_draw(state: &mut State, sea: &str, sides: &[Force; 2], fight: &mut Fight<'_, '_>) {
    let scenario = fight.scenario();
    let mut leaving = Vec::new();
    for f in sides.iter().flat_map(|s| &s.fleets) {
        let Some(p) = state.unit_power(&f.key) else {
            continue;
        };
        let (choice, decided) = standing::after_battle(state, p, false);
        let go = choice == AfterBattle::Port;
        let did = if go { "retreats to port" } else { "remains" };
        fight.told(
            state,
            Some(p),
            "12.2.6.1.8",
            format!("{} {did} after a battle without a victor", f.name),
            &decided,
        );
        if go {
            leaving.push(f.clone());
        }
    }
    if leaving.is_empty() {
        fight.line("12.2.6.1.8: no victor: both forces remain in the sea zone, no pursuit");
        return;
    }
    fight.line("12.2.6.1.8: no victor, no pursuit: each force may retreat or remain");
    retreat(scenario, state, sea, &leaving, fight);
}

/// 12.2.6.1.8 (pursue to blockade): fleet `f` blockades `port` from the
/// zone of the port nearest `sea` (ties by id).
fn pursue(
    scenario: &Scenario,
    state: &mut State,
    sea: &str,
    f: &super::combat::Fleet,
    port: &str,
    fight: &mut Fight<'_, '_>,
) {
    let steps = scenario.map.sea_steps(&[sea]);
    let Some(zone) = scenario.map.province(port).and_then(|p| {
        p.seas
            .iter()
            .filter_map(|z| steps.get(z).map(|d| (*d, z.clone())))
            .min()
            .map(|(_, z)| z)
    }) else {
        return;
    };
    if let Some(s) = state.squadron_mut(&f.key.nation, f.key.number) {
        s.location = Location::Sea(zone.clone());
        s.blockading = Some(port.to_string());
        fight.line(format!(
            "12.2.6.1.8: {} pursues to {} and blockades {}",
            f.name,
            name(scenario, &zone),
            name(scenario, port)
        ));
    }
}

/// Step one (12.2.6.1.1): each side's chit, by its power's standing
/// order or the default; a melee it may not select yet (12.2.6.1.1.1)
/// becomes linear attack. Each power is told how its own was decided.
fn select_chits(
    scenario: &Scenario,
    state: &State,
    sea: &str,
    sides: &[Force; 2],
    keys: [&[UnitKey]; 2],
    out: &mut Vec<Outcome>,
) -> [Chit; 2] {
    let mut chits = [Chit::LinearAttack, Chit::LinearDefence];
    for (i, side) in sides.iter().enumerate() {
        let situation = if i == 0 {
            Situation::Attacking
        } else {
            Situation::Defending
        };
        let (mut chit, decided) = match side.power {
            Some(p) => standing::naval_tactic(state, p, situation),
            None => (chits[i], Decided::Default("a minor power's fleet".into())),
        };
        let mut why = vec![format!("12.2.6.1.1: {decided}")];
        if chit == Chit::Melee && !nelson::melee_allowed(scenario, state, keys[i]) {
            chit = Chit::LinearAttack;
            why.push(
                "12.2.6.1.1.1: until Nelson has used melee only a fleet he commands may select it: linear attack instead"
                    .into(),
            );
        }
        chits[i] = chit;
        if let Some(p) = side.power {
            let mut o = Outcome::new(
                "12.2.6.1.1",
                Kind::NavalTactic,
                format!(
                    "{} selects {} as the {} in {}",
                    p.name(),
                    chit.name(),
                    side.role,
                    name(scenario, sea)
                ),
            )
            .power(p)
            .only(report::seers_of(state, [p]));
            for w in why {
                o = o.why(w);
            }
            out.push(o);
        }
    }
    chits
}

/// 12.2.6.1.4.2: a purely British force under Nelson that selected melee
/// may take 1 or 2 off its closing roll (Britain's standing order).
fn nelson_minus(
    state: &State,
    nelson_side: Option<usize>,
    chits: [Chit; 2],
    keys: [&[UnitKey]; 2],
    fight: &mut Fight<'_, '_>,
    out: &mut Vec<Outcome>,
) -> [u32; 2] {
    let mut minus = [0, 0];
    let Some(i) = nelson_side else {
        return minus;
    };
    if chits[i] != Chit::Melee || !keys[i].iter().all(|k| k.nation == Nation::Major(PowerId::Britain)) {
        return minus;
    }
    let (m, decided) = standing::nelson_closing(state, PowerId::Britain);
    minus[i] = m;
    if m > 0 {
        fight.line(format!(
            "12.2.6.1.4.2: Nelson takes {m} off his closing roll, and adds it to his casualty roll"
        ));
    }
    out.push(
        Outcome::new(
            "12.2.6.1.4.2",
            Kind::NavalTactic,
            format!("Nelson's closing modifier: -{m}"),
        )
        .power(PowerId::Britain)
        .why(format!("{decided}"))
        .only(report::seers_of(state, [PowerId::Britain])),
    );
    minus
}

/// Step four (12.2.6.1.4): the tables the Tactical Naval Chart gives each
/// side for the chits, and the melee tables and closing numbers when a
/// side selected melee. None when the chart lacks a cell (the scenario
/// check refuses such a table).
fn chart<'t>(
    t: &'t NavalOptionTable,
    chits: [Chit; 2],
    minus: [u32; 2],
    fight: &mut Fight<'_, '_>,
) -> Option<Rules<'t>> {
    let (r0, r1) = (t.tactic(chits[0], chits[1])?, t.tactic(chits[1], chits[0])?);
    let (a, d) = (t.crt(&r0.table)?, t.crt(&r1.table)?);
    let (ac, dc) = (t.crt(&r0.closed)?, t.crt(&r1.closed)?);
    let melee = chits.contains(&Chit::Melee);
    fight.line(format!(
        "12.2.6.1.4: Tactical Naval Chart: the attacker fires on table {}, the defender on table {}{}",
        a.id,
        d.id,
        if melee {
            format!("; once closed, {} and {} (12.2.6.1.4.1)", ac.id, dc.id)
        } else {
            String::new()
        }
    ));
    let close = |c: Chit, at_most: u32| if c == Chit::Melee { at_most } else { 0 };
    Some(Rules {
        tables: [a, d],
        rounds: 3,
        raid: false,
        melee: melee.then_some(Melee {
            closed: [ac, dc],
            close_at_most: [close(chits[0], r0.close_at_most), close(chits[1], r1.close_at_most)],
            minus,
        }),
    })
}

/// The battle's outcome, seen by both sides.
fn outcome(
    state: &State,
    e: &Engagement<'_>,
    sides: &[Force; 2],
    ending: Ending,
    fight: Fight<'_, '_>,
    vp: std::collections::BTreeMap<PowerId, i64>,
) -> Outcome {
    let scenario = fight.scenario();
    let summary = match ending {
        Ending::Victor(v) => format!(
            "Naval battle in {}: {} defeats {}",
            name(scenario, e.sea),
            report::side_name(&sides[v]),
            report::side_name(&sides[1 - v])
        ),
        Ending::BothBroken => format!("Naval battle in {}: both sides break", name(scenario, e.sea)),
        Ending::Inconclusive => format!("Naval battle in {}: inconclusive", name(scenario, e.sea)),
    };
    let mut all = e.attackers.to_vec();
    all.extend(e.defenders.iter().cloned());
    let b = report::Battle {
        rule: "12.2.6.1",
        summary,
        power: fight.ph.power,
        text: e.text,
        at: e.sea,
        seen_by: report::seers(state, &all),
    };
    b.outcome(fight.log, vp)
}

/// 12.2.6.1.8 (EiA 6.3.5 is not in the seeds; house): the beaten side's
/// squadrons still on the map (or a fleet that chose to retreat) make for
/// their power's nearest usable port from `sea`; with none in reach they
/// stay at sea. Returns the ports reached, in the fleets' order.
fn retreat(
    scenario: &crate::scenario::Scenario,
    state: &mut State,
    sea: &str,
    fleets: &[super::combat::Fleet],
    fight: &mut Fight<'_, '_>,
) -> Vec<String> {
    let mut reached = Vec::new();
    for f in fleets {
        let Some(p) = state.unit_power(&f.key) else {
            continue;
        };
        let to = nearest_friendly_port(scenario, state, p, &From::Sea(sea)).map(|(q, _)| q);
        let Some(s) = state.squadron_mut(&f.key.nation, f.key.number) else {
            continue;
        };
        s.blockading = None;
        match to {
            Some(q) => {
                s.location = Location::Port(q.clone());
                fight.line(format!("12.2.6.1.8: {} retreats to {}", f.name, name(scenario, &q)));
                reached.push(q);
            }
            None => fight.line(format!(
                "12.2.6.1.8: {} has no port to retreat to and stays at sea",
                f.name
            )),
        }
    }
    reached
}
