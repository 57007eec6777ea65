//! Sieges, garrisons and control (2.11, 2.12, 2.23, 2.25, 4.21).
//!
//! A siege is one roll on the Siege Combat table (FAQ98 2.4, REP97): the
//! die plus modifiers must reach a target; against the province's original owner
//! the intrinsic garrison is added to the target (2.11); a garrison
//! division adds to it too. On success the besieger leaves one infantry
//! division as garrison of occupation (home province of another power) or
//! of conquest (minor province) (2.12, 2.23, REP97); an original owner
//! retaking its own home province needs none. A white-named province is
//! immune while a corps holds it (2.11). A rebellion's ghost division
//! (2.25) is ousted by a siege against `rebellion_target`. Dice:
//! `siege/<province>`, one a phase (all the besiegers roll together).

use super::control::{hostile, name, original_owner, to_pool_arm};
use super::movement::{orders_corps, orders_for};
use crate::diagnostic::Problem;
use crate::dice::{Dice, DiceError};
use crate::ids::{Nation, PowerId};
use crate::map::Owner;
use crate::orders::ast::Arg;
use crate::rules::Kind;
use crate::rules::Why;
use crate::rules::{Outcome, Rejection};
use crate::scenario::{Arm, Scenario};
use crate::state::{Division, Garrison, State, UnitKey};

/// Check a siege order (before or at resolution).
pub fn check(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    corps: &[UnitKey],
    province: &str,
) -> Result<(), Rejection> {
    let Some(p) = scenario.map.province(province) else {
        return Err(Rejection::new("2.13", format!("'{province}' is not a province")));
    };
    if corps.is_empty() {
        return Err(Rejection::new("5.5", "a siege names at least one corps"));
    }
    for k in corps {
        let unit = k.name(scenario);
        let Some(c) = state.corps(&k.nation, k.number) else {
            return Err(Rejection::new("5.5", format!("there is no {unit}")).at(Arg::Unit(k.clone())));
        };
        if !orders_corps(state, power, c) {
            return Err(super::movement::not_yours(scenario, power, k));
        }
        if c.location.as_deref() != Some(province) {
            return Err(
                Rejection::coded(Problem::NotThere, "5.5", format!("{unit} is not in {}", p.name))
                    .at(Arg::Unit(k.clone())),
            );
        }
    }
    let ps = state.provinces.get(province).cloned().unwrap_or_default();
    let me = Nation::Major(power);
    if ps.rebellion {
        return Ok(());
    }
    let held_by_enemy = match &ps.controller {
        None => true,
        Some(n) => hostile(state, &me, n),
    };
    if !held_by_enemy {
        return Err(Rejection::new(
            "2.11",
            format!("{} is not held by an enemy of {}", p.name, power.name()),
        )
        .at(Arg::Province(province.to_string())));
    }
    // 2.11: white-named provinces are immune while a corps holds them
    if p.white
        && state
            .corps_in(province)
            .any(|c| !c.divisions.is_empty() && hostile(state, &me, c))
    {
        return Err(Rejection::new(
            "2.11",
            format!("{} is white-named and immune while an enemy corps holds it", p.name),
        )
        .at(Arg::Province(province.to_string())));
    }
    if state
        .corps_in(province)
        .any(|c| !c.divisions.is_empty() && hostile(state, &me, c))
    {
        return Err(Rejection::new("5.5", format!("an enemy army still holds {}", p.name))
            .at(Arg::Province(province.to_string())));
    }
    Ok(())
}

/// Resolve the siege of `province`: one roll a phase, with all the
/// besieging corps (the land phase merges the power's BESIEGE lines).
pub fn besiege(
    scenario: &Scenario,
    state: &mut State,
    dice: &mut dyn Dice,
    power: PowerId,
    corps: &[UnitKey],
    province: &str,
    text: &str,
) -> Result<Outcome, DiceError> {
    if let Err(r) = check(scenario, state, power, corps, province) {
        return Ok(Outcome::new(&r.rule, Kind::OrderFailed, r.reason)
            .power(power)
            .order(text)
            .only(vec![power]));
    }
    let t = &scenario.tables.siege;
    let Some(p) = scenario.map.province(province) else {
        return Ok(Outcome::new("2.13", Kind::OrderFailed, "no such province").power(power));
    };
    let siege = Siege {
        power,
        corps,
        province,
        p,
    };
    let ps = state.provinces.get(province).cloned().unwrap_or_default();
    let o = Outcome::new("5.5", Kind::Siege, String::new())
        .power(power)
        .order(text)
        .at(province);
    let (mut o, mods) = siege.modifiers(scenario, state, o);
    let purpose = format!("siege/{province}");
    let die = dice.roll(&purpose, t.die)?;
    o = o.die(&purpose, die);
    let total = die as i32 + mods;

    // 2.25: ousting a rebellion
    if ps.rebellion {
        let ok = total >= t.rebellion_target;
        o = o.why(format!(
            "rebellion: die {die} {mods:+} = {total} against {} (tables/siege.toml)",
            t.rebellion_target
        ));
        if ok {
            if let Some(x) = state.provinces.get_mut(province) {
                x.rebellion = false;
            }
            o.summary = format!("{} ousts the rebels from {}", power.name(), p.name);
        } else {
            o.summary = format!("{} fails to oust the rebels from {}", power.name(), p.name);
        }
        return Ok(o);
    }

    let (target, tw) = siege.target(scenario, &ps);
    o = o.why(format!("{tw} = {target}; die {die} {mods:+} = {total}"));
    if total < target {
        o.summary = format!("{} fails to take {} ({total} < {target})", power.name(), p.name);
        return Ok(o);
    }
    Ok(siege.take(scenario, state, &ps, o))
}

/// A siege being resolved: the besieger, its corps and the province.
struct Siege<'a> {
    power: PowerId,
    corps: &'a [UnitKey],
    province: &'a str,
    p: &'a crate::map::Province,
}

impl Siege<'_> {
    /// The Siege Combat modifiers: extra corps, the best commander
    /// present, artillery. Each is a why line of `o`; returns their sum.
    fn modifiers(&self, scenario: &Scenario, state: &State, mut o: Outcome) -> (Outcome, i32) {
        let t = &scenario.tables.siege;
        let (power, corps, province) = (self.power, self.corps, self.province);
        let mut mods = 0i32;
        let mut add = |o: Outcome, v: i32, what: String| -> Outcome {
            if v != 0 {
                mods += v;
                o.why(Why::modifier(v, what))
            } else {
                o
            }
        };
        o = add(
            o,
            t.per_extra_corps * (corps.len() as i32 - 1),
            format!("{} besieging corps", corps.len()),
        );
        let best = state
            .commanders
            .iter()
            .filter(|c| c.location.as_deref() == Some(province) && orders_for(state, power, &Nation::Major(c.nation)))
            .map(|c| (c.rating, c.name.clone()))
            .max();
        if let Some((r, nm)) = &best {
            o = add(o, t.leader_rating * *r as i32, format!("commander {nm} rating {r}"));
        }
        let arts = corps
            .iter()
            .filter_map(|k| state.corps(&k.nation, k.number))
            .flat_map(|c| c.divisions.iter())
            .filter(|d| d.arm == Arm::Artillery)
            .count() as i32;
        o = add(o, t.per_artillery * arts, format!("{arts} artillery division(s)"));
        (o, mods)
    }

    /// The target the roll must reach, and its why line: home or minor
    /// province, the intrinsic garrison against its original owner
    /// (2.11), a garrison division (2.23).
    fn target(&self, scenario: &Scenario, ps: &crate::state::ProvinceState) -> (i32, String) {
        let t = &scenario.tables.siege;
        let p = self.p;
        let owner = original_owner(p);
        // 2.11: the intrinsic garrison defends while no other power holds the
        // province: its original owner, or nobody (an ownerless minor)
        let from_owner = p.garrison > 0 && (ps.controller.is_none() || ps.controller == owner);
        let mut target = if p.kind.is_home() {
            t.home_target
        } else {
            t.minor_target
        };
        let mut tw = format!(
            "target {} ({} province)",
            target,
            if p.kind.is_home() { "home" } else { "minor" }
        );
        if from_owner {
            target += p.garrison as i32;
            tw.push_str(&format!(
                " + intrinsic garrison {} (2.11: not yet taken from its original owner)",
                p.garrison
            ));
        }
        if ps.garrison.is_some() {
            target += t.garrison_division;
            tw.push_str(&format!(" + {} garrison division (2.23)", t.garrison_division));
        }
        (target, tw)
    }

    /// A successful siege: the old garrison to its pool (2.51); an owner
    /// retakes its home province, anyone else leaves a garrison (2.23).
    fn take(
        &self,
        scenario: &Scenario,
        state: &mut State,
        ps: &crate::state::ProvinceState,
        mut o: Outcome,
    ) -> Outcome {
        let (power, corps, province, p) = (self.power, self.corps, self.province, self.p);
        // success: the old garrison division returns to its pool (2.51)
        if let Some(g) = &ps.garrison {
            to_pool_arm(state, &g.nation, Arm::Infantry);
            o = o.why(format!(
                "the {} garrison division is destroyed (2.51: to its pool)",
                crate::state::nation_adjective(scenario, &g.nation)
            ));
        }
        let retaking_home = p.kind.is_home() && p.owner == Owner::Major(power);
        if retaking_home {
            if let Some(x) = state.provinces.get_mut(province) {
                x.controller = Some(Nation::Major(power));
                x.garrison = None;
            }
            o.summary = format!("{} retakes its home province {}", power.name(), p.name);
            return capture_award(state, p, power, o);
        }
        // 2.23: a garrison is one infantry division from a besieging corps
        let donor = corps.iter().find(|k| {
            state.corps(&k.nation, k.number).is_some_and(|c| {
                c.divisions
                    .iter()
                    .any(|d| d.arm == Arm::Infantry && d.nation == Nation::Major(power))
            })
        });
        let Some(donor) = donor.cloned() else {
            if let Some(x) = state.provinces.get_mut(province) {
                // the old garrison is gone: the province reverts to its
                // original owner (house)
                x.controller = original_owner(p);
                x.garrison = None;
            }
            o.summary = format!(
                "{} breaks the defence of {} but has no {} infantry division to garrison it (2.23)",
                power.name(),
                p.name,
                power.adjective()
            );
            return o;
        };
        if let Some(c) = state.corps_mut(&donor.nation, donor.number)
            && let Some(pos) = c
                .divisions
                .iter()
                .rposition(|d| d.arm == Arm::Infantry && d.nation == Nation::Major(power))
        {
            c.divisions.remove(pos);
        }
        let kind = if p.kind.is_home() { "occupation" } else { "conquest" };
        if let Some(x) = state.provinces.get_mut(province) {
            x.controller = Some(Nation::Major(power));
            x.garrison = Some(Garrison::of(Nation::Major(power)));
        }
        o = o.why(Why::rule(
            "2.23",
            format!(
                "an infantry division of {} stays as garrison of {kind}",
                donor.name(scenario)
            ),
        ));
        o.summary = format!("{} takes {} and leaves a garrison of {kind}", power.name(), p.name);
        capture_award(state, p, power, o)
    }
}

fn capture_award(state: &mut State, p: &crate::map::Province, power: PowerId, o: Outcome) -> Outcome {
    if p.capture_vp == 0 {
        return o;
    }
    let vp = i64::from(p.capture_vp);
    state.power_mut(power).vp += vp;
    o.vp(power, vp).why(Why::rule(
        "2.5",
        format!("{} is worth {vp} VP to the power that captures it", p.name),
    ))
}

/// Check a garrison order (2.23, 3.41).
pub fn check_garrison(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    corps: &UnitKey,
    province: &str,
) -> Result<(), Rejection> {
    let unit = corps.name(scenario);
    let Some(c) = state.corps(&corps.nation, corps.number) else {
        return Err(Rejection::new("5.5", format!("there is no {unit}")).at(Arg::Unit(corps.clone())));
    };
    if !orders_corps(state, power, c) {
        return Err(super::movement::not_yours(scenario, power, corps));
    }
    if c.location.as_deref() != Some(province) {
        return Err(Rejection::coded(
            Problem::NotThere,
            "2.23",
            format!("{unit} is not in {}", name(scenario, province)),
        )
        .at(Arg::Unit(corps.clone())));
    }
    let ps = state.provinces.get(province).cloned().unwrap_or_default();
    let me = Nation::Major(power);
    let kingdom = kingdom_division(scenario, state, power, c, province);
    if let Some(g) = &ps.garrison {
        // 11.1.2 etc.: a kingdom's division relieves the power's own garrison
        let own = g.nation == me && g.held_by.is_none();
        if kingdom.is_none() || !own {
            return Err(
                Rejection::new("2.23", format!("{} already has a garrison", name(scenario, province)))
                    .at(Arg::Province(province.to_string())),
            );
        }
        if c.nation != me {
            return Err(Rejection::new(
                "3.43",
                format!(
                    "{unit} holds only its own nation's divisions: it cannot take back the {} garrison",
                    power.adjective()
                ),
            )
            .at(Arg::Unit(corps.clone())));
        }
    }
    if !(ps.controller.is_none() || ps.controller.as_ref() == Some(&me)) {
        return Err(Rejection::new(
            "2.23",
            format!("{} is not controlled by {}", name(scenario, province), power.name()),
        )
        .at(Arg::Province(province.to_string())));
    }
    // 2.11: an uncontrolled province's intrinsic garrison must be besieged
    // first (a successful siege leaves the garrison itself, 2.23)
    if ps.controller.is_none()
        && !ps.rebellion
        && let Some(p) = scenario.map.province(province)
        && p.garrison > 0
    {
        return Err(Rejection::new(
            "2.11",
            format!(
                "{} has an intrinsic garrison of {}: besiege it first",
                p.name, p.garrison
            ),
        )
        .at(Arg::Province(province.to_string())));
    }
    if state
        .corps_in(province)
        .any(|x| !x.divisions.is_empty() && hostile(state, &me, x))
    {
        return Err(Rejection::new("2.23", "an enemy army is in the province").at(Arg::Province(province.to_string())));
    }
    // 3.41: minor units never serve as garrisons, but for a kingdom's
    if kingdom.is_none() && !c.divisions.iter().any(|d| d.arm == Arm::Infantry && d.nation == me) {
        return Err(
            Rejection::new("2.23", format!("{unit} has no {} infantry division", power.adjective()))
                .at(Arg::Unit(corps.clone())),
        );
    }
    Ok(())
}

/// Leave an infantry division of a corps as garrison (2.23) in a province
/// the power already controls (or an uncontrolled one it stands in).
pub fn garrison(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    corps: &UnitKey,
    province: &str,
    text: &str,
) -> Outcome {
    let unit = corps.name(scenario);
    let fail = |rule: &str, why: String| {
        Outcome::new(rule, Kind::OrderFailed, why)
            .power(power)
            .order(text)
            .only(vec![power])
    };
    if let Err(r) = check_garrison(scenario, state, power, corps, province) {
        return fail(r.rule.as_str(), r.reason);
    }
    let me = Nation::Major(power);
    let relief = state.provinces.get(province).is_some_and(|x| x.garrison.is_some());
    let Some(c) = state.corps(&corps.nation, corps.number) else {
        return fail("5.5", format!("there is no {unit}"));
    };
    let kingdom = kingdom_division(scenario, state, power, c, province);
    // 3.41: minor units never serve as garrisons, but for a kingdom's
    // (11.1.2 etc.), which alone may relieve the power's own garrison
    let own = c
        .divisions
        .iter()
        .rposition(|d| d.arm == Arm::Infantry && d.nation == me)
        .filter(|_| !relief);
    let Some((pos, rule)) = own.map(|p| (p, None)).or(kingdom.map(|(p, r)| (p, Some(r)))) else {
        return fail("2.23", format!("{unit} has no {} infantry division", power.adjective()));
    };
    let Some(cm) = state.corps_mut(&corps.nation, corps.number) else {
        return fail("5.5", format!("there is no {unit}"));
    };
    let d = cm.divisions.remove(pos);
    if relief {
        cm.divisions.push(Division {
            arm: Arm::Infantry,
            nation: me.clone(),
        });
    }
    let held_by = (d.nation != me).then_some(power);
    if let Some(x) = state.provinces.get_mut(province) {
        x.controller = Some(me.clone());
        x.garrison = Some(Garrison {
            nation: d.nation.clone(),
            held_by,
        });
    }
    let mut o = Outcome::new(
        "2.23",
        Kind::Garrison,
        format!("{} garrisons {} from {unit}", power.name(), name(scenario, province)),
    )
    .power(power)
    .order(text);
    if let Some(rule) = rule {
        o = o.why(Why::rule(
            rule.as_str(),
            format!(
                "a {} infantry division garrisons the kingdom's territory for {}",
                crate::state::nation_adjective(scenario, &d.nation),
                power.name()
            ),
        ));
    }
    if relief {
        o = o.why(format!(
            "the {} garrison it relieves goes back into {unit}",
            power.adjective()
        ));
    }
    o
}

/// The last infantry division of a kingdom's minor in corps `c` that may
/// garrison `province` for `power` (`rules::political::garrisons`), and
/// the section allowing it.
fn kingdom_division(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    c: &crate::state::Corps,
    province: &str,
) -> Option<(usize, String)> {
    c.divisions.iter().enumerate().rev().find_map(|(i, d)| {
        if d.arm != Arm::Infantry {
            return None;
        }
        crate::rules::political::garrisons::allowed(scenario, state, power, &d.nation, province).map(|r| (i, r))
    })
}

/// Check a withdraw-garrison order (2.23, 2.22).
pub fn check_withdraw(
    scenario: &Scenario,
    state: &State,
    power: PowerId,
    province: &str,
    corps: &UnitKey,
) -> Result<(), Rejection> {
    let unit = corps.name(scenario);
    let ps = state.provinces.get(province).cloned().unwrap_or_default();
    if ps.garrison.as_ref().and_then(|g| state.garrison_power(g)) != Some(power) {
        return Err(Rejection::new(
            "2.23",
            format!("{} holds no {} garrison", name(scenario, province), power.adjective()),
        )
        .at(Arg::Province(province.to_string())));
    }
    let Some(c) = state.corps(&corps.nation, corps.number) else {
        return Err(Rejection::new("5.5", format!("there is no {unit}")).at(Arg::Unit(corps.clone())));
    };
    if !orders_corps(state, power, c) {
        return Err(super::movement::not_yours(scenario, power, corps));
    }
    if c.location.as_deref() != Some(province) {
        return Err(Rejection::coded(
            Problem::NotThere,
            "2.23",
            format!("{unit} is not a corps of {} in the province", power.name()),
        )
        .at(Arg::Unit(corps.clone())));
    }
    if c.divisions.len() >= c.capacity() {
        return Err(Rejection::new("2.22", format!("{unit} is full")).at(Arg::Unit(corps.clone())));
    }
    // 3.43: a minor's corps holds only its own divisions
    if let Some(g) = &ps.garrison
        && matches!(c.nation, Nation::Minor(_))
        && c.nation != g.nation
    {
        return Err(Rejection::new(
            "3.43",
            format!(
                "{unit} holds only its own nation's divisions, not the {} garrison",
                g.nation
            ),
        )
        .at(Arg::Unit(corps.clone())));
    }
    Ok(())
}

/// Take a garrison division back into a corps in the same province.
pub fn withdraw_garrison(
    scenario: &Scenario,
    state: &mut State,
    power: PowerId,
    province: &str,
    corps: &UnitKey,
    text: &str,
) -> Outcome {
    let unit = corps.name(scenario);
    if let Err(r) = check_withdraw(scenario, state, power, province, corps) {
        return Outcome::new(&r.rule, Kind::OrderFailed, r.reason)
            .power(power)
            .order(text)
            .only(vec![power]);
    }
    // the garrison's own division (a kingdom's, 11.1.2, stays its minor's)
    let nation = state
        .provinces
        .get(province)
        .and_then(|x| x.garrison.as_ref())
        .map_or(Nation::Major(power), |g| g.nation.clone());
    if let Some(cm) = state.corps_mut(&corps.nation, corps.number) {
        cm.divisions.push(Division {
            arm: Arm::Infantry,
            nation,
        });
    }
    let home = scenario
        .map
        .province(province)
        .is_some_and(|p| p.kind.is_home() && p.owner == Owner::Major(power));
    if let Some(x) = state.provinces.get_mut(province) {
        x.garrison = None;
        if !home {
            // 4.21: outside the home country control needs a garrison
            x.controller = scenario
                .map
                .province(province)
                .and_then(original_owner)
                .filter(|n| !matches!(n, Nation::Major(p) if *p == power));
        }
    }
    Outcome::new(
        "2.23",
        Kind::WithdrawGarrison,
        format!(
            "{} withdraws its garrison of {} into {unit}",
            power.name(),
            name(scenario, province)
        ),
    )
    .power(power)
    .order(text)
}
