//! 5.6 Land battles, in the structure of the Battle Sequence (2.41):
//!
//! 1. withdrawal before battle (standing order `withdraw`, default stand);
//! 2. Approach to Battlefield: each side rolls die + leader rating; the
//!    Approach table may add ghost divisions (2.25) and the higher total
//!    wins the operational edge (QA01); an intrinsic garrison in the
//!    battle province fights for its original owner as ghost divisions
//!    (2.25);
//! 3. combat options: each leader rolls on the Combat Options table and
//!    may choose any option of his rating's column or a lower one (FAQ98
//!    2.6), chosen by standing order or the default (see `standing`);
//! 4. auxiliary options, massed batteries and attack modifiers;
//! 5. combat rounds: die + modifiers on the loss table, losses taken from
//!    ghosts first then by `loss_order`, returned to the force pool (2.51);
//!    Additional Troops may join the defender before round 2;
//! 6. the winner; pursuit (5.59); commander casualties; the loser retreats
//!    (standing order `retreat`, default in `standing`) or, with nowhere
//!    to go, is destroyed.
//!
//! Every number comes from `tables/battle.toml`. Dice purposes:
//! `land-battle/<province>/<n>/<step>/<side>`.

use super::control::{friendly, hostile, name, same_side, to_pool};
use super::standing::{self, Decided};
use crate::dice::{Dice, DiceError};
use crate::ids::{Nation, PowerId};
use crate::map::Owner;
use crate::orders::ast::Situation;
use crate::rules::Outcome;
use crate::scenario::tables_war::{BattleTable, lookup};
use crate::scenario::{Arm, Scenario};
use crate::state::{State, UnitKey};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Attacker,
    Defender,
}

impl Side {
    fn id(self) -> &'static str {
        match self {
            Side::Attacker => "attacker",
            Side::Defender => "defender",
        }
    }
}

struct Force {
    side: Side,
    corps: Vec<UnitKey>,
    powers: BTreeSet<PowerId>,
    /// The power whose leader and standing orders speak for the side.
    principal: Option<PowerId>,
    leader: Option<(String, u8)>,
    ghosts: u32,
    modifier: i32,
    option: Option<String>,
    loss_shift: i32,
    inflicted: u32,
    lost: u32,
}

fn divisions(state: &State, corps: &[UnitKey]) -> (u32, u32, u32) {
    let mut t = (0, 0, 0);
    for k in corps {
        if let Some(c) = state.corps(&k.nation, k.number) {
            for d in &c.divisions {
                match d.arm {
                    Arm::Infantry => t.0 += 1,
                    Arm::Cavalry => t.1 += 1,
                    Arm::Artillery => t.2 += 1,
                }
            }
        }
    }
    t
}

fn count(state: &State, corps: &[UnitKey]) -> u32 {
    let (i, c, a) = divisions(state, corps);
    i + c + a
}

fn describe(state: &State, f: &Force) -> String {
    let (i, c, a) = divisions(state, &f.corps);
    let names: Vec<String> = f.corps.iter().map(|k| k.to_string()).collect();
    format!(
        "{} ({} inf, {} cav, {} art{})",
        names.join(", "),
        i,
        c,
        a,
        if f.ghosts > 0 {
            format!(", {} ghost", f.ghosts)
        } else {
            String::new()
        }
    )
}

/// The best commander of `powers` in `province`.
fn leader(state: &State, province: &str, powers: &BTreeSet<PowerId>) -> Option<(String, u8)> {
    state
        .commanders
        .iter()
        .filter(|c| c.location.as_deref() == Some(province) && powers.contains(&c.nation))
        .max_by(|a, b| a.rating.cmp(&b.rating).then(b.name.cmp(&a.name)))
        .map(|c| (c.name.clone(), c.rating))
}

/// Options open to a leader of `rating` who rolled `die` (FAQ98 2.6:
/// his column and every lower one), in table order.
pub fn available(t: &BattleTable, side: &str, rating: u8, die: u32) -> Vec<String> {
    let opened: BTreeSet<&str> = t
        .columns
        .iter()
        .filter(|c| c.side == side && c.rating <= rating && die >= c.from && die <= c.to)
        .flat_map(|c| c.options.iter().map(String::as_str))
        .collect();
    t.options
        .iter()
        .filter(|o| o.side == side && opened.contains(o.id.as_str()))
        .map(|o| o.id.clone())
        .collect()
}

/// Default choice: highest modifier, then lowest loss shift, then table order.
fn best(t: &BattleTable, legal: &[String]) -> Option<String> {
    let mut bestv: Option<(&str, i32, i32)> = None;
    for id in legal {
        if let Some(o) = t.option(id) {
            let better = match bestv {
                None => true,
                Some((_, m, l)) => o.modifier > m || (o.modifier == m && o.loss_shift < l),
            };
            if better {
                bestv = Some((&o.id, o.modifier, o.loss_shift));
            }
        }
    }
    bestv.map(|b| b.0.to_string())
}

/// Take `n` losses from a force: ghosts first, then by `loss_order`, from
/// the largest corps first (ties by corps id). Returns what was lost.
fn take_losses(t: &BattleTable, state: &mut State, f: &mut Force, n: u32) -> Vec<String> {
    let mut lost = Vec::new();
    let mut left = n;
    let g = left.min(f.ghosts);
    if g > 0 {
        f.ghosts -= g;
        left -= g;
        lost.push(format!("{g} ghost"));
    }
    for arm_id in &t.loss_order {
        let Some(arm) = Arm::parse(arm_id) else { continue };
        while left > 0 {
            let target = f
                .corps
                .iter()
                .filter_map(|k| state.corps(&k.nation, k.number).map(|c| (k, c)))
                .filter(|(_, c)| c.divisions.iter().any(|d| d.arm == arm))
                .max_by(|a, b| a.1.divisions.len().cmp(&b.1.divisions.len()).then(b.0.cmp(a.0)))
                .map(|(k, _)| k.clone());
            let Some(k) = target else { break };
            let Some(c) = state.corps_mut(&k.nation, k.number) else {
                break;
            };
            let Some(pos) = c.divisions.iter().rposition(|d| d.arm == arm) else {
                break;
            };
            let d = c.divisions.remove(pos);
            to_pool(state, &d);
            lost.push(format!("{} {} from {k}", d.nation, arm.short()));
            left -= 1;
        }
    }
    f.lost += n - left;
    lost
}

fn side_mods(
    t: &BattleTable,
    state: &State,
    own: &Force,
    enemy: &Force,
    defender_home: bool,
    edge: Option<Side>,
) -> (i32, Vec<String>) {
    let m = &t.modifiers;
    let mut total = 0;
    let mut why = Vec::new();
    let mut add = |v: i32, what: String| {
        if v != 0 {
            total += v;
            why.push(format!("{v:+} {what}"));
        }
    };
    if let Some((n, r)) = &own.leader {
        add(m.leader_rating * *r as i32, format!("leader {n} rating {r}"));
    }
    let (oi, oc, oa) = divisions(state, &own.corps);
    let (ei, ec, ea) = divisions(state, &enemy.corps);
    let diff = (oi + oc + oa + own.ghosts) as i32 - (ei + ec + ea + enemy.ghosts) as i32;
    let cap = m.division_difference_cap;
    add(
        (diff * m.per_division_difference).clamp(-cap, cap),
        format!("division difference {diff:+} (capped at {cap})"),
    );
    if oc > ec {
        add(
            m.cavalry_superiority,
            format!("auxiliary: cavalry superiority {oc} to {ec}"),
        );
    }
    if oa >= m.massed_batteries_min {
        add(m.massed_batteries, format!("massed batteries ({oa} artillery)"));
    }
    if own.side == Side::Defender && defender_home {
        add(m.home_defence, "defending its own province (2.11)".into());
    }
    if edge == Some(own.side) {
        add(t.approach.edge_modifier, "operational edge from the approach".into());
    }
    if let Some(o) = own.option.as_ref().and_then(|id| t.option(id)) {
        add(o.modifier, format!("combat option {}", o.id));
    }
    (total, why)
}

/// Where a beaten (or withdrawing) group of `power` goes: (province,
/// what decided). `None`: nowhere, the group is destroyed.
pub fn retreat_to(
    scenario: &Scenario,
    state: &State,
    power: Option<PowerId>,
    nation: &Nation,
    province: &str,
    came_from: Option<&str>,
) -> Option<(String, Decided)> {
    let safe =
        |p: &str| !state.corps_in(p).any(|c| hostile(state, nation, &c.nation)) && scenario.map.province(p).is_some();
    let ok_ground = |p: &str| match power {
        Some(pw) => friendly(state, pw, p),
        None => state.provinces.get(p).and_then(|ps| ps.controller.as_ref()) == Some(nation),
    };
    let neighbours: Vec<&str> = scenario.map.land_neighbours(province).collect();
    if let Some(pw) = power {
        for pref in standing::retreat_preferences(state, pw) {
            if neighbours.contains(&pref.as_str()) && safe(&pref) && (ok_ground(&pref) || came_from == Some(&pref)) {
                return Some((pref.clone(), Decided::Standing(format!("retreat to {pref}"))));
            }
        }
    }
    if let Some(c) = came_from
        && c != province
        && safe(c)
    {
        return Some((
            c.to_string(),
            Decided::Default("back to the province it came from".into()),
        ));
    }
    let mut cands: Vec<(bool, usize, &str)> = neighbours
        .iter()
        .filter(|p| safe(p) && ok_ground(p))
        .map(|p| {
            let home = power.is_some_and(|pw| {
                scenario
                    .map
                    .province(p)
                    .is_some_and(|x| x.kind.is_home() && x.owner == Owner::Major(pw))
            });
            let threats = scenario
                .map
                .land_neighbours(p)
                .filter(|q| state.corps_in(q).any(|c| hostile(state, nation, &c.nation)))
                .count();
            (!home, threats, *p)
        })
        .collect();
    cands.sort();
    cands.first().map(|(_, _, p)| {
        (
            p.to_string(),
            Decided::Default("adjacent friendly province, home first, fewest enemy neighbours".into()),
        )
    })
}

fn commanding(state: &State, k: &UnitKey) -> Option<PowerId> {
    state.commanding_power(&k.nation)
}

/// Move a beaten force out of `province` (or destroy it), with its
/// commanders. Returns why-lines.
fn retreat(
    scenario: &Scenario,
    state: &mut State,
    f: &Force,
    province: &str,
    came_from: &BTreeMap<UnitKey, String>,
) -> Vec<String> {
    let mut why = Vec::new();
    // group by nation (each nation's corps retreat together)
    let mut groups: BTreeMap<Nation, Vec<UnitKey>> = BTreeMap::new();
    for k in &f.corps {
        groups.entry(k.nation.clone()).or_default().push(k.clone());
    }
    let mut dest_of_power: BTreeMap<Option<PowerId>, String> = BTreeMap::new();
    for (nation, keys) in groups {
        let power = state.commanding_power(&nation);
        let cf = keys.iter().find_map(|k| came_from.get(k)).cloned();
        // 12.2.1 (EiA option `naval`): an invader beaten in the turn it
        // crossed an arrow surrenders instead of retreating
        let crossed = cf.as_deref().is_some_and(|c| {
            c != province && !scenario.map.adjacent(c, province) && scenario.map.arrow(c, province).is_some()
        });
        let dest = if crossed && super::option_naval::enabled(state) {
            why.push(format!(
                "12.2.1: {nation} crossed an arrow this turn and may not retreat"
            ));
            None
        } else {
            retreat_to(scenario, state, power, &nation, province, cf.as_deref())
        };
        match dest {
            Some((dest, decided)) => {
                for k in &keys {
                    if let Some(c) = state.corps_mut(&k.nation, k.number) {
                        c.location = Some(dest.clone());
                    }
                }
                why.push(format!("{nation} retreats to {} ({decided})", name(scenario, &dest)));
                dest_of_power.entry(power).or_insert(dest);
            }
            None => {
                for k in &keys {
                    let divs = state
                        .corps_mut(&k.nation, k.number)
                        .map(|c| {
                            c.location = None;
                            std::mem::take(&mut c.divisions)
                        })
                        .unwrap_or_default();
                    for d in &divs {
                        to_pool(state, d);
                    }
                }
                why.push(format!(
                    "{nation} has no province to retreat to and is destroyed (house: divisions return to the pool, 2.51)"
                ));
            }
        }
    }
    for cm in state.commanders.iter_mut() {
        if cm.location.as_deref() == Some(province) && f.powers.contains(&cm.nation) {
            match dest_of_power.get(&Some(cm.nation)) {
                Some(d) => cm.location = Some(d.clone()),
                None => {
                    cm.location = None;
                    why.push(format!("{} is captured with his army", cm.name));
                }
            }
        }
    }
    why
}

/// Corps left with no division leave the map (house: an empty corps
/// counter goes back to the mat).
fn clear_empty(state: &mut State, province: &str) -> Vec<String> {
    let mut why = Vec::new();
    for c in state.corps.iter_mut() {
        if c.location.as_deref() == Some(province) && c.divisions.is_empty() {
            c.location = None;
            why.push(format!("{} is destroyed (no divisions left)", c.key()));
        }
    }
    why
}

/// Fight the battle in `province`, the `n`th this phase, started by the
/// moving power `active`. No battle (empty result) if either side is
/// missing.
pub fn fight(
    scenario: &Scenario,
    state: &mut State,
    dice: &mut dyn Dice,
    active: PowerId,
    province: &str,
    n: u32,
    came_from: &BTreeMap<UnitKey, String>,
) -> Result<Vec<Outcome>, DiceError> {
    let t = &scenario.tables.battle;
    let me = Nation::Major(active);
    let mut atk_keys = Vec::new();
    let mut def_keys = Vec::new();
    for c in state.corps_in(province) {
        if c.divisions.is_empty() {
            continue;
        }
        match state.commanding_power(&c.nation) {
            Some(p) if same_side(state, active, p) => atk_keys.push(c.key()),
            _ if hostile(state, &me, &c.nation) => def_keys.push(c.key()),
            _ => {}
        }
    }
    if atk_keys.is_empty() || def_keys.is_empty() {
        return Ok(Vec::new());
    }
    let pname = name(scenario, province);
    let purpose = |step: &str, side: &str| format!("land-battle/{province}/{n}/{step}/{side}");
    let powers_of =
        |keys: &[UnitKey]| -> BTreeSet<PowerId> { keys.iter().filter_map(|k| commanding(state, k)).collect() };
    let principal_of = |keys: &[UnitKey]| -> Option<PowerId> {
        let mut by: BTreeMap<PowerId, usize> = BTreeMap::new();
        for k in keys {
            if let (Some(p), Some(c)) = (commanding(state, k), state.corps(&k.nation, k.number)) {
                *by.entry(p).or_default() += c.divisions.len();
            }
        }
        by.into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|x| x.0)
    };
    let a_powers = powers_of(&atk_keys);
    let d_powers = powers_of(&def_keys);
    let mut atk = Force {
        side: Side::Attacker,
        principal: Some(active),
        leader: leader(state, province, &a_powers),
        powers: a_powers,
        corps: atk_keys,
        ghosts: 0,
        modifier: 0,
        option: None,
        loss_shift: 0,
        inflicted: 0,
        lost: 0,
    };
    let mut def = Force {
        side: Side::Defender,
        principal: principal_of(&def_keys),
        leader: leader(state, province, &d_powers),
        powers: d_powers,
        corps: def_keys,
        ghosts: 0,
        modifier: 0,
        option: None,
        loss_shift: 0,
        inflicted: 0,
        lost: 0,
    };
    // Who sees the battle: both sides and the players who order them.
    let mut seers: BTreeSet<PowerId> = atk.powers.union(&def.powers).copied().collect();
    for p in seers.clone() {
        if let Some(o) = state.ordered_by(p) {
            seers.insert(o);
        }
    }
    let seers: Vec<PowerId> = seers.into_iter().collect();
    let side_name = |f: &Force| match f.principal {
        Some(p) => p.name().to_string(),
        None => f.corps.first().map(|k| k.nation.to_string()).unwrap_or_default(),
    };
    let (aname, dname) = (side_name(&atk), side_name(&def));
    let mut o = Outcome::new("5.6", "battle", String::new())
        .power(active)
        .only(seers.clone());
    o = o.why(format!("attacker {aname}: {}", describe(state, &atk)));
    o = o.why(format!("defender {dname}: {}", describe(state, &def)));

    // 1. withdrawal before battle (standing order)
    if let Some(dp) = def.principal {
        let (own, enemy) = (count(state, &def.corps), count(state, &atk.corps));
        let (w, decided) = standing::withdraws(state, dp, own, enemy);
        if w {
            let lines = retreat(scenario, state, &def, province, &BTreeMap::new());
            o.summary = format!("{dname} withdraws from {pname} before battle with {aname}");
            o = o.why(format!("withdrawal before battle ({decided})"));
            for l in lines {
                o = o.why(l);
            }
            let public = Outcome::new("5.6", "battle-result", o.summary.clone()).power(active);
            return Ok(vec![o, public]);
        }
        o = o.why(format!("{dname} stands ({decided})"));
    } else {
        o = o.why("the defender has no standing orders (default: stand and fight)");
    }

    // 2. Approach to Battlefield
    let mut totals = [0i32; 2];
    for (i, f) in [&mut atk, &mut def].into_iter().enumerate() {
        let p = purpose("approach", f.side.id());
        let d = dice.roll(&p, t.die)?;
        o = o.die(&p, d);
        let r = f.leader.as_ref().map(|l| l.1).unwrap_or(0);
        let total = d as i32 + r as i32;
        totals[i] = total;
        let (g, row) = lookup(&t.approach.ghosts, total);
        f.ghosts += g;
        o = o.why(format!(
            "approach {}: die {d} + rating {r} = {total} -> {g} ghost division(s){}",
            f.side.id(),
            row.map(|r| format!(" (row {}..{})", r.from, r.to)).unwrap_or_default()
        ));
    }
    let edge = match totals[0].cmp(&totals[1]) {
        std::cmp::Ordering::Greater => Some(Side::Attacker),
        std::cmp::Ordering::Less => Some(Side::Defender),
        std::cmp::Ordering::Equal => None,
    };
    if let Some(e) = edge {
        o = o.why(format!("operational edge: {}", e.id()));
    }
    // 2.25: the intrinsic garrison fights for the province's original owner
    let prov = scenario.map.province(province);
    let ps = state.provinces.get(province).cloned().unwrap_or_default();
    let owner_nation = prov.and_then(super::control::original_owner);
    let defender_home = owner_nation.as_ref().is_some_and(|on| {
        ps.controller.as_ref() == Some(on)
            && (def.corps.iter().any(|k| &k.nation == on)
                || state.commanding_power(on).is_some_and(|p| def.powers.contains(&p)))
    });
    if defender_home
        && let Some(p) = prov
        && p.garrison > 0
    {
        def.ghosts += p.garrison;
        o = o.why(format!(
            "2.25: the intrinsic garrison of {} ({}) fights as ghost divisions",
            p.name, p.garrison
        ));
    }

    // 3. combat options
    for f in [&mut atk, &mut def] {
        let (table_side, situation) = match f.side {
            Side::Attacker => ("offensive", Situation::Attacking),
            Side::Defender => ("defensive", Situation::Defending),
        };
        let p = purpose("options", f.side.id());
        let d = dice.roll(&p, t.die)?;
        o = o.die(&p, d);
        let rating = f.leader.as_ref().map(|l| l.1).unwrap_or(0);
        let (_, cav, art) = divisions(state, &f.corps);
        let legal: Vec<String> = available(t, table_side, rating, d)
            .into_iter()
            .filter(|id| {
                t.option(id)
                    .is_some_and(|op| (!op.needs_cavalry || cav > 0) && (!op.needs_artillery || art > 0))
            })
            .collect();
        let wanted = f.principal.and_then(|pw| standing::wanted_option(state, pw, situation));
        let (choice, decided) = match wanted {
            Some(w) if legal.contains(&w) => (Some(w.clone()), Decided::Standing(format!("combat option {w}"))),
            Some(w) => (
                best(t, &legal),
                Decided::Default(format!(
                    "standing option {w} is not open (rating {rating}, die {d}); best open option"
                )),
            ),
            None => (best(t, &legal), Decided::Default("best open option".into())),
        };
        o = o.why(format!(
            "{} options (rating {rating} column and lower, die {d}): {} -> {} by {} ({decided})",
            f.side.id(),
            if legal.is_empty() {
                "none".to_string()
            } else {
                legal.join(", ")
            },
            choice.clone().unwrap_or_else(|| "none".into()),
            f.leader
                .as_ref()
                .map(|l| l.0.clone())
                .unwrap_or_else(|| "no leader".into()),
        ));
        if let Some(op) = choice.as_ref().and_then(|c| t.option(c)) {
            f.loss_shift = op.loss_shift;
        }
        f.option = choice;
    }

    // 4.–5. modifiers and rounds
    let mut additional_done = false;
    for k in 1..=t.rounds {
        if k == 2 && !additional_done && t.additional_troops_target > 0 {
            additional_done = true;
            // Additional Troops (house): stacks of the defending principal
            // in adjacent provinces march to the guns.
            if let Some(dp) = def.principal {
                let neighbours: Vec<String> = scenario.map.land_neighbours(province).map(str::to_string).collect();
                for nb in neighbours {
                    let joiners: Vec<UnitKey> = state
                        .corps_in(&nb)
                        .filter(|c| commanding(state, &c.key()) == Some(dp) && !c.divisions.is_empty())
                        .map(|c| c.key())
                        .collect();
                    if joiners.is_empty()
                        || state
                            .corps_in(&nb)
                            .any(|c| hostile(state, &Nation::Major(dp), &c.nation))
                    {
                        continue;
                    }
                    let p = purpose(&format!("additional/{nb}"), "defender");
                    let d = dice.roll(&p, t.die)?;
                    o = o.die(&p, d);
                    if d >= t.additional_troops_target {
                        for j in &joiners {
                            if let Some(c) = state.corps_mut(&j.nation, j.number) {
                                c.location = Some(province.to_string());
                            }
                            def.corps.push(j.clone());
                        }
                        o = o.why(format!(
                            "additional troops: die {d} >= {}: {} join from {}",
                            t.additional_troops_target,
                            joiners.iter().map(|j| j.to_string()).collect::<Vec<_>>().join(", "),
                            name(scenario, &nb)
                        ));
                    } else {
                        o = o.why(format!(
                            "additional troops: die {d} < {}: the stack in {} does not arrive",
                            t.additional_troops_target,
                            name(scenario, &nb)
                        ));
                    }
                }
            }
        }
        if count(state, &atk.corps) == 0 || count(state, &def.corps) + def.ghosts == 0 {
            break;
        }
        let (am, awhy) = side_mods(t, state, &atk, &def, defender_home, edge);
        let (dm, dwhy) = side_mods(t, state, &def, &atk, defender_home, edge);
        atk.modifier = am;
        def.modifier = dm;
        let pa = purpose(&format!("round-{k}"), "attacker");
        let pd = purpose(&format!("round-{k}"), "defender");
        let da = dice.roll(&pa, t.die)?;
        let dd = dice.roll(&pd, t.die)?;
        o = o.die(&pa, da).die(&pd, dd);
        let (at, dt) = (da as i32 + am, dd as i32 + dm);
        let (to_def, arow) = lookup(&t.losses, at);
        let (to_atk, drow) = lookup(&t.losses, dt);
        let row = |r: Option<&crate::scenario::tables_war::Row>| {
            r.map(|r| format!("loss table row {}..{}", r.from, r.to))
                .unwrap_or_else(|| "below the loss table".into())
        };
        let (arow, drow) = (row(arow), row(drow));
        let to_def = (to_def as i32 + def.loss_shift).max(0) as u32;
        let to_atk = (to_atk as i32 + atk.loss_shift).max(0) as u32;
        o = o.why(format!(
            "round {k}: attacker die {da} {} = {at} ({arow}{}) -> defender loses {to_def}; defender die {dd} {} = {dt} ({drow}{}) -> attacker loses {to_atk}",
            if awhy.is_empty() { "(no modifiers)".to_string() } else { awhy.join(" ") },
            if def.loss_shift != 0 { format!(", defender's option shifts losses {:+}", def.loss_shift) } else { String::new() },
            if dwhy.is_empty() { "(no modifiers)".to_string() } else { dwhy.join(" ") },
            if atk.loss_shift != 0 { format!(", attacker's option shifts losses {:+}", atk.loss_shift) } else { String::new() },
        ));
        let la = take_losses(t, state, &mut atk, to_atk);
        let ld = take_losses(t, state, &mut def, to_def);
        atk.inflicted += to_def;
        def.inflicted += to_atk;
        if !la.is_empty() {
            o = o.why(format!("attacker losses: {}", la.join(", ")));
        }
        if !ld.is_empty() {
            o = o.why(format!("defender losses: {}", ld.join(", ")));
        }
    }

    // 6. the winner
    let a_left = count(state, &atk.corps);
    let d_left = count(state, &def.corps);
    let winner = if a_left > 0 && (d_left == 0 || atk.inflicted > def.inflicted) {
        Side::Attacker
    } else {
        Side::Defender
    };
    o = o.why(format!(
        "result: attacker inflicted {} and lost {}; defender inflicted {} and lost {}; {} wins (house: more losses inflicted wins, ties to the defender)",
        atk.inflicted,
        atk.lost,
        def.inflicted,
        def.lost,
        winner.id()
    ));
    let (win, lose) = match winner {
        Side::Attacker => (&mut atk, &mut def),
        Side::Defender => (&mut def, &mut atk),
    };
    // pursuit (5.59)
    let (_, wc, _) = divisions(state, &win.corps);
    let (_, lc, _) = divisions(state, &lose.corps);
    if count(state, &lose.corps) > 0 && (!t.pursuit.needs_cavalry || wc > 0) {
        let p = purpose("pursuit", win.side.id());
        let d = dice.roll(&p, t.die)?;
        o = o.die(&p, d);
        let diff = wc as i32 - lc as i32;
        let total = d as i32 + diff * t.pursuit.per_cavalry_difference;
        let (extra, _) = lookup(&t.pursuit.losses, total);
        let lost = take_losses(t, state, lose, extra);
        o = o.why(format!(
            "pursuit: die {d} {:+} cavalry difference = {total} -> {extra} more loss(es){}",
            diff * t.pursuit.per_cavalry_difference,
            if lost.is_empty() {
                String::new()
            } else {
                format!(": {}", lost.join(", "))
            }
        ));
    } else {
        o = o.why("no pursuit (the winner has no cavalry or the loser is gone)");
    }
    // commander casualties
    let present: Vec<(String, PowerId)> = state
        .commanders
        .iter()
        .filter(|c| c.location.as_deref() == Some(province))
        .map(|c| (c.name.clone(), c.nation))
        .collect();
    for (cname, cn) in present {
        let losing = lose.powers.contains(&cn);
        if !losing && !win.powers.contains(&cn) {
            continue;
        }
        let target = if losing {
            t.commander_casualty_loser
        } else {
            t.commander_casualty_winner
        };
        let key: String = cname
            .to_ascii_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("-");
        let p = purpose(
            &format!("commander/{key}"),
            if losing { lose.side.id() } else { win.side.id() },
        );
        let d = dice.roll(&p, t.die)?;
        o = o.die(&p, d);
        if d >= target {
            if let Some(c) = state.commanders.iter_mut().find(|c| c.name == cname) {
                c.location = None;
                c.arrives = None;
            }
            o = o.why(format!("commander casualty: {cname} falls (die {d} >= {target})"));
        }
    }
    let (wname, lname) = match winner {
        Side::Attacker => (aname.clone(), dname.clone()),
        Side::Defender => (dname.clone(), aname.clone()),
    };
    for l in clear_empty(state, province) {
        o = o.why(l);
    }
    // retreat of the loser
    let survivors: Vec<UnitKey> = lose
        .corps
        .iter()
        .filter(|k| {
            state
                .corps(&k.nation, k.number)
                .is_some_and(|c| c.location.as_deref() == Some(province))
        })
        .cloned()
        .collect();
    lose.corps = survivors;
    for l in retreat(scenario, state, lose, province, came_from) {
        o = o.why(l);
    }
    // VP (house)
    if let Some(wp) = win.principal {
        state.power_mut(wp).vp += t.vp_winner;
        o = o.vp(wp, t.vp_winner);
    }
    if let Some(lp) = lose.principal {
        state.power_mut(lp).vp += t.vp_loser;
        o = o.vp(lp, t.vp_loser);
    }
    o.summary = format!(
        "Battle of {pname}: {wname} defeats {lname} (losses: attacker {}, defender {})",
        atk.lost, def.lost
    );
    let public = Outcome::new("5.6", "battle-result", o.summary.clone()).power(active);
    Ok(vec![o, public])
}
