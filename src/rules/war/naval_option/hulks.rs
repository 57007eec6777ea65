//! 12.2.8 Hulks (EiA option `naval`) outside battle: what happens to the
//! hulks of a port that falls to someone else (12.2.8.2).
//!
//! After every phase the engine looks at each port holding hulks: an
//! enemy land force (a corps of a power at war with the owner) in the
//! port destroys them all; a port now controlled by a power not on the
//! owner's side (conquest, cession, an alliance broken) has each hulk
//! rolled for: 1–3 destroyed, 4–6 to the port's new controller, unless
//! troops of the owner's side still garrison it, in which case they are
//! sunk. Dice: `hulks/<port>/<owner>/<i>`.

use crate::dice::{Dice, DiceError};
use crate::ids::PowerId;
use crate::rules::side::same_side;
use crate::rules::war::control::name;
use crate::rules::{Kind, Outcome};
use crate::scenario::Scenario;
use crate::state::State;

/// 12.2.8.2: a hulk rolled for goes to the new owner on 4 or more.
pub const TRANSFER_AT_LEAST: u32 = 4;

/// 12.2.8.2 for every port with hulks.
pub fn sweep(
    scenario: &Scenario,
    state: &mut State,
    dice: &mut dyn Dice,
    out: &mut Vec<Outcome>,
) -> Result<(), DiceError> {
    let ports: Vec<(String, String, u32)> = state
        .hulks
        .iter()
        .flat_map(|(p, m)| m.iter().map(move |(o, n)| (p.clone(), o.clone(), *n)))
        .filter(|(_, _, n)| *n > 0)
        .collect();
    for (port, owner_id, n) in ports {
        let Ok(owner) = owner_id.parse::<PowerId>() else {
            continue;
        };
        if let Some(o) = occupied(scenario, state, &port, owner, n) {
            out.push(o);
            continue;
        }
        let Some(new) = state
            .provinces
            .get(&port)
            .and_then(|p| p.controller.as_ref())
            .and_then(|c| state.commanding_power(c))
        else {
            continue;
        };
        if same_side(state, owner, new) {
            continue;
        }
        out.push(changed_hands(scenario, state, dice, &port, (owner, new), n)?);
    }
    state.hulks.retain(|_, m| {
        m.retain(|_, n| *n > 0);
        !m.is_empty()
    });
    Ok(())
}

/// 12.2.8.2, first sentence: an enemy land force in the port destroys
/// every hulk there.
fn occupied(scenario: &Scenario, state: &mut State, port: &str, owner: PowerId, n: u32) -> Option<Outcome> {
    let enemy = state.corps.iter().find(|c| {
        c.location.as_deref() == Some(port)
            && !c.divisions.is_empty()
            && state
                .corps_power(c)
                .is_some_and(|p| p != owner && state.relations.at_war(p, owner))
    })?;
    let who = format!("{} corps {}", enemy.nation, enemy.number);
    set(state, port, owner, 0);
    Some(
        Outcome::new(
            "12.2.8.2",
            Kind::Hulks,
            format!(
                "{n} hulk(s) of {} in {} are destroyed",
                owner.name(),
                name(scenario, port)
            ),
        )
        .power(owner)
        .why(format!("12.2.8.2: an enemy land force ({who}) occupies the port"))
        .at(port),
    )
}

/// 12.2.8.2, second sentence: the port changed hands to `new`.
fn changed_hands(
    scenario: &Scenario,
    state: &mut State,
    dice: &mut dyn Dice,
    port: &str,
    (owner, new): (PowerId, PowerId),
    n: u32,
) -> Result<Outcome, DiceError> {
    let scuttled = state
        .provinces
        .get(port)
        .and_then(|p| p.garrison.as_ref())
        .and_then(|g| state.commanding_power(&g.nation))
        .is_some_and(|g| same_side(state, owner, g));
    let mut o = Outcome::new(
        "12.2.8.2",
        Kind::Hulks,
        format!(
            "{} now holds {}: {n} hulk(s) of {} are rolled for",
            new.name(),
            name(scenario, port),
            owner.name()
        ),
    )
    .power(owner)
    .at(port);
    let mut moved = 0;
    let mut rolls = Vec::new();
    for i in 1..=n {
        let p = format!("hulks/{port}/{}/{i}", owner.id());
        let d = dice.roll(&p, 6)?;
        o = o.die(&p, d);
        let to_new = d >= TRANSFER_AT_LEAST && !scuttled;
        rolls.push(format!(
            "{d} {}",
            if d < TRANSFER_AT_LEAST {
                "destroyed"
            } else if scuttled {
                "sunk"
            } else {
                "taken"
            }
        ));
        moved += u32::from(to_new);
    }
    set(state, port, owner, 0);
    state.add_hulks(port, new, moved);
    o = o.why(format!(
        "12.2.8.2: one die a hulk, 1-3 destroyed, 4-6 to {}{}: {}",
        new.name(),
        if scuttled {
            " (but the owner's side still garrisons the port: sunk)"
        } else {
            ""
        },
        rolls.join(", ")
    ));
    Ok(o)
}

fn set(state: &mut State, port: &str, owner: PowerId, n: u32) {
    if let Some(m) = state.hulks.get_mut(port) {
        m.insert(owner.id().to_string(), n);
    }
}
