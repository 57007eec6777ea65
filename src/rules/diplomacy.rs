//! Player Turn political steps (4.71, 5.1–5.3), the Winterphase NPC
//! Alliance Phase (4.4) and NPC status (3.31).
//!
//! Proposals and answers meet in one phase: a peace offered (5.1) or an
//! alliance proposed (5.2) in the mover's Player Turn takes effect if the
//! other Player Country orders `accept` in that same phase (every PC may
//! order in every Player Turn, see `sequence::roles`). An offer to an NPC
//! is answered by the engine: an NPC accepts peace when the offer carries
//! terms in its favour (any Gold or VP) — house.
//!
//! 3.31 NPC status is recomputed after every change of relations:
//! Allied NPCs stay allied (and share their ally's wars); an NPC at war
//! with a Player Country and without PC allies is Controlled by a PC not
//! allied with any of its enemies (its previous controller if still
//! eligible, else the first in prominence order, 3.0); otherwise Inactive.

use super::economy::rejected;
use super::outcome::Outcome;
use super::sequence::D10;
use super::side;
use super::{EngineError, PhaseOrders};
use crate::dice::Dice;
use crate::ids::{PowerId, Turn};
use crate::orders::ast::{Order, Terms};
use crate::rules::Kind;
use crate::scenario::Scenario;
use crate::state::{Control, EnforcedPeace, State};

fn is_npc(state: &State, p: PowerId) -> bool {
    !side::is_player_country(state, p)
}

/// The turn `seasons` seasons after `t`.
fn after(t: Turn, seasons: u32) -> Turn {
    (0..seasons).fold(t, |t, _| t.next())
}

/// 3.31: recompute every NPC's status; outcomes for each change.
pub fn refresh_npcs(state: &mut State, out: &mut Vec<Outcome>) {
    for n in PowerId::ALL {
        let old = state.power(n).control.clone();
        if old.is_player() {
            continue;
        }
        let new = match old {
            Control::Allied { with } if state.relations.allied(n, with) => {
                // 3.31: an Allied NPC is at war with the same countries as its ally.
                for e in state.relations.enemies(with) {
                    if e != n && !state.relations.at_war(n, e) {
                        state.relations.set_war(n, e, true);
                    }
                }
                Control::Allied { with }
            }
            _ => {
                let enemies: Vec<PowerId> = state
                    .relations
                    .enemies(n)
                    .into_iter()
                    .filter(|e| side::is_player_country(state, *e))
                    .collect();
                let pc_allies = state
                    .relations
                    .allies(n)
                    .into_iter()
                    .any(|a| side::is_player_country(state, a));
                if enemies.is_empty() || pc_allies {
                    Control::Inactive
                } else {
                    let eligible = |c: PowerId| {
                        side::is_player_country(state, c)
                            && !enemies.contains(&c)
                            && !enemies.iter().any(|e| state.relations.allied(*e, c))
                    };
                    let keep = match old {
                        Control::Controlled { by } if eligible(by) => Some(by),
                        _ => None,
                    };
                    match keep.or_else(|| PowerId::ALL.into_iter().find(|c| eligible(*c))) {
                        Some(by) => Control::Controlled { by },
                        // No eligible player: the NPC stays without a
                        // controller and takes no Player Turn.
                        None => Control::Inactive,
                    }
                }
            }
        };
        if new != old {
            let what = match &new {
                Control::Inactive => "becomes an Inactive NPC".to_string(),
                Control::Controlled { by } => format!("becomes a Controlled NPC, run by {}", by.name()),
                Control::Allied { with } => format!("becomes an Allied NPC of {}", with.name()),
                Control::Player => String::new(),
            };
            state.power_mut(n).control = new;
            out.push(Outcome::new("3.31", Kind::NpcStatus, format!("{} {what}", n.name())).power(n));
        }
    }
}

/// What asked for an NPC Alliance roll: the order line's text (or the
/// event's), the rule it is made under (4.4, 4.71, 4.72), and `asker`,
/// naming the order line or event ([`super::asked_by_order`], `event`) so
/// the die's purpose is unique.
pub struct AllianceRoll<'a> {
    pub text: &'a str,
    pub rule: &'a str,
    pub asker: &'a str,
}

/// 4.4, 4.71: Player Countries seek NPC alliances ("An NPC can only be
/// Allied with one PC at a time", 3.31): why `p` may not.
pub fn npc_alliance_asker_refused(state: &State, p: PowerId) -> Option<String> {
    (!side::is_player_country(state, p))
        .then(|| format!("{} is an NPC: only a Player Country seeks an NPC alliance", p.name()))
}

/// 4.4 / 4.71: `p` tries to ally the NPC `npc` on the NPC Alliance Table.
pub fn npc_alliance(
    scenario: &Scenario,
    state: &mut State,
    p: PowerId,
    npc: PowerId,
    roll: &AllianceRoll,
    dice: &mut dyn Dice,
    out: &mut Vec<Outcome>,
) -> Result<(), EngineError> {
    let AllianceRoll { text, rule, asker } = *roll;
    let t = &scenario.tables.diplomacy;
    if let Some(r) = npc_alliance_asker_refused(state, p) {
        out.push(rejected(rule, p, text, &r));
        return Ok(());
    }
    if !is_npc(state, npc) || npc == p {
        out.push(rejected(rule, p, text, &format!("{} is not an NPC", npc.name())));
        return Ok(());
    }
    if state.relations.at_war(p, npc) {
        out.push(rejected(
            rule,
            p,
            text,
            &format!("{} is at war with {}", p.name(), npc.name()),
        ));
        return Ok(());
    }
    if state.power(p).debt > 0 {
        out.push(rejected("4.221", p, text, "a deficit must be repaid first"));
        return Ok(());
    }
    let current = match state.power(npc).control {
        Control::Allied { with } => Some(with),
        _ => None,
    };
    if current == Some(p) {
        out.push(rejected(
            rule,
            p,
            text,
            &format!("{} is already allied with {}", npc.name(), p.name()),
        ));
        return Ok(());
    }
    let target = if current.is_some() {
        t.break_target
    } else {
        t.target(p, npc)
    };
    let cost = t.attempt_cost.min(state.power(p).gold.max(0));
    state.power_mut(p).gold -= cost;
    let purpose = format!("npc-alliance/{}/{p}/{npc}/{asker}", state.phase);
    let v = dice.roll(&purpose, D10)?;
    let mut o = Outcome::new(rule, Kind::NpcAlliance, "")
        .power(p)
        .order(text)
        .die(&purpose, v)
        .gold(p, -cost)
        .why(format!(
            "NPC Alliance Table: {} -> {} needs {target}+ on a d10{}",
            p.name(),
            npc.name(),
            if current.is_some() {
                " (breaking an existing alliance)"
            } else {
                ""
            }
        ));
    if v >= target {
        if let Some(old) = current {
            state.relations.set_alliance(npc, old, false);
        }
        state.relations.set_alliance(p, npc, true);
        state.power_mut(npc).control = Control::Allied { with: p };
        o.summary = format!("{} allies with {} (rolled {v})", npc.name(), p.name());
        out.push(o);
        refresh_npcs(state, out);
    } else {
        o.summary = format!("{} refuses an alliance with {} (rolled {v})", npc.name(), p.name());
        out.push(o);
    }
    Ok(())
}

fn accepts(orders: &PhaseOrders, who: PowerId, pred: impl Fn(&Order) -> bool) -> bool {
    orders.get(&who).is_some_and(|v| v.iter().any(|l| pred(&l.order)))
}

fn apply_terms(
    scenario: &Scenario,
    state: &mut State,
    from: PowerId,
    to: PowerId,
    terms: &Terms,
    o: Outcome,
) -> Outcome {
    // 5.1: only what `from` holds as peace is made can be ceded
    let held: std::collections::BTreeSet<String> =
        super::economy::controlled(scenario, state, from).into_iter().collect();
    let gold = i64::from(terms.gold).min(state.power(from).gold.max(0));
    let vp = i64::from(terms.vp);
    state.power_mut(from).gold -= gold;
    state.power_mut(to).gold += gold;
    state.power_mut(from).vp -= vp;
    state.power_mut(to).vp += vp;
    let mut o = o;
    if gold != 0 {
        o = o.gold(from, -gold).gold(to, gold);
    }
    if vp != 0 {
        o = o.vp(from, -vp).vp(to, vp);
    }
    for prov in &terms.provinces {
        let (_, why) = super::war::surrender::cede(scenario, state, from, to, prov, &held);
        o = o.why(why);
    }
    super::political::peace::carry_out(state, from, to, terms, o) // 11.9.2.2
}

/// 4.71: the optional NPC Alliance roll of `mover`'s Turn Preparation,
/// before its Random Event (4.72).
pub fn npc_roll(
    scenario: &Scenario,
    state: &mut State,
    mover: PowerId,
    orders: &PhaseOrders,
    dice: &mut dyn Dice,
    out: &mut Vec<Outcome>,
) -> Result<(), EngineError> {
    let mine: Vec<_> = orders.get(&mover).cloned().unwrap_or_default();
    // 4.71 optional NPC alliance roll (Turn Preparation).
    for (i, l) in mine.iter().enumerate() {
        if let Order::NpcAlliance { npc } = &l.order {
            let asker = super::asked_by_order(i);
            let roll = AllianceRoll {
                text: &l.text,
                rule: "4.71",
                asker: &asker,
            };
            npc_alliance(scenario, state, mover, *npc, &roll, dice, out)?;
        }
    }
    Ok(())
}

/// 5.1 the Peace Step of `mover`'s Player Turn: negotiated peace (a
/// surrender, 5.12, follows in the same step).
pub fn peace_step(
    scenario: &Scenario,
    state: &mut State,
    mover: PowerId,
    orders: &PhaseOrders,
    out: &mut Vec<Outcome>,
) {
    let now = state.turn();
    let mine: Vec<_> = orders.get(&mover).cloned().unwrap_or_default();
    let seasons = scenario.tables.diplomacy.peace_enforced_seasons;
    // 5.1 Peace Step.
    for l in &mine {
        if let Order::OfferPeace { to, terms } = &l.order {
            if !state.relations.at_war(mover, *to) {
                out.push(rejected(
                    "5.1",
                    mover,
                    &l.text,
                    &format!("not at war with {}", to.name()),
                ));
                continue;
            }
            if let Some(r) = peace_with_npc_refused(state, *to) {
                out.push(rejected("3.31", mover, &l.text, &r));
                continue;
            }
            // 11.9.1.1, 11.9.2.2 (EiA option political)
            if let Some(r) = super::political::peace::terms_refused(scenario, state, mover, *to, terms) {
                out.push(rejected(r.rule.as_str(), mover, &l.text, &r.reason));
                continue;
            }
            let yes = if is_npc(state, *to) {
                terms.gold > 0 || terms.vp > 0
            } else {
                accepts(
                    orders,
                    *to,
                    |o| matches!(o, Order::AcceptPeace { from } if *from == mover),
                )
            };
            if yes {
                state.relations.set_war(mover, *to, false);
                let pair = if mover <= *to { [mover, *to] } else { [*to, mover] };
                let until = after(now, seasons);
                state.relations.enforced_peace.retain(|e| e.powers != pair);
                state
                    .relations
                    .enforced_peace
                    .push(EnforcedPeace { powers: pair, until });
                state.relations.enforced_peace.sort();
                let o = Outcome::new(
                    "5.1",
                    Kind::Peace,
                    format!("{} and {} make peace", mover.name(), to.name()),
                )
                .power(mover)
                .order(&l.text)
                .why(format!(
                    "enforced peace until {until} (table diplomacy: {seasons} seasons)"
                ));
                let o = apply_terms(scenario, state, mover, *to, terms, o);
                out.push(o);
                if !state.options.contains(FAQ_NPC_PEACE) {
                    allied_npcs_make_peace(state, mover, *to, until, &l.text, out);
                }
                separate_peace(state, mover, *to, &l.text, out);
            } else {
                out.push(
                    Outcome::new(
                        "5.1",
                        Kind::PeaceRefused,
                        format!("{} does not accept {}'s peace", to.name(), mover.name()),
                    )
                    .power(mover)
                    .order(&l.text),
                );
            }
        }
    }
}

/// 5.2, 5.3 and the embargo and Gold orders of `mover`'s Player Turn, plus
/// the answers other powers sent in the same phase.
pub fn political_steps(
    scenario: &Scenario,
    state: &mut State,
    mover: PowerId,
    orders: &PhaseOrders,
    dice: &mut dyn Dice,
    out: &mut Vec<Outcome>,
) -> Result<(), EngineError> {
    let mine: Vec<_> = orders.get(&mover).cloned().unwrap_or_default();
    // 5.2 Alliance Step.
    for l in &mine {
        match &l.order {
            Order::ProposeAlliance { to } => {
                match super::political::peace::alliance_barred(scenario, state, mover, *to) {
                    // 11.9.2.1 (EiA option political)
                    Some(r) => out.push(rejected(r.rule.as_str(), mover, &l.text, &r.reason)),
                    None => propose_alliance(state, mover, *to, orders, &l.text, out),
                }
            }
            Order::BreakAlliance { with } => break_alliance(state, mover, *with, &l.text, out),
            _ => {}
        }
    }
    refresh_npcs(state, out);
    // 5.3 War Declaration Step.
    for (i, l) in mine.iter().enumerate() {
        if let Order::DeclareWar { on } = &l.order {
            declare_war(scenario, state, mover, *on, (i, &l.text), dice, out)?;
        }
    }
    // 4.24 embargo orders and 4.212 gifts during the turn.
    for l in &mine {
        match &l.order {
            Order::Embargo { action } => super::embargo::order(scenario, state, mover, *action, &l.text, out),
            Order::Gift { to, gold } => super::economy::gift(state, mover, *to, *gold, false, &l.text, out),
            Order::Loan { to, gold } => super::economy::gift(state, mover, *to, *gold, true, &l.text, out),
            _ => {}
        }
    }
    Ok(())
}

/// 5.2: `mover` proposes an alliance to `to`, made when `to` accepts it
/// in the same phase.
fn propose_alliance(
    state: &mut State,
    mover: PowerId,
    to: PowerId,
    orders: &PhaseOrders,
    text: &str,
    out: &mut Vec<Outcome>,
) {
    if is_npc(state, to) {
        out.push(rejected(
            "5.2",
            mover,
            text,
            "NPCs are allied through the NPC Alliance Table (npc alliance)",
        ));
    } else if state.relations.at_war(mover, to) {
        out.push(rejected("5.2", mover, text, &format!("at war with {}", to.name())));
    } else if accepts(
        orders,
        to,
        |o| matches!(o, Order::AcceptAlliance { from } if *from == mover),
    ) {
        state.relations.set_alliance(mover, to, true);
        out.push(
            Outcome::new(
                "5.2",
                Kind::Alliance,
                format!("{} and {} are allied", mover.name(), to.name()),
            )
            .power(mover)
            .order(text),
        );
    } else {
        out.push(
            Outcome::new(
                "5.2",
                Kind::AllianceRefused,
                format!("{} does not accept {}'s alliance", to.name(), mover.name()),
            )
            .power(mover)
            .order(text),
        );
    }
}

/// The house option that extends FAQ98 5.11 (a separate peace breaks the
/// accepting power's alliances with powers still at war) to an Allied
/// NPC: the NPC leaves its PC and stays at war alone. Off by default: the
/// seed (3.31) keeps the NPC at war with the same countries as its PC,
/// and breaks its alliance only per the NPC Alliance Table.
pub const FAQ_NPC_PEACE: &str = "faq-npc-peace";

/// 3.31: "The NPC is at war with the same countries as the Allied PC":
/// when `a` and `b` make peace (enforced `until`), so do their Allied
/// NPCs with the other side (the PC and its Allied NPCs), under the same
/// enforced peace; their alliances stand.
fn allied_npcs_make_peace(state: &mut State, a: PowerId, b: PowerId, until: Turn, text: &str, out: &mut Vec<Outcome>) {
    let own = |state: &State, p: PowerId| -> Vec<PowerId> {
        PowerId::ALL
            .into_iter()
            .filter(|n| *n == p || super::side::allied_pc(state, *n) == Some(p))
            .collect()
    };
    let (xs, ys) = (own(state, a), own(state, b));
    for x in &xs {
        for y in &ys {
            if (*x == a && *y == b) || !state.relations.at_war(*x, *y) {
                continue;
            }
            state.relations.set_war(*x, *y, false);
            let powers = if x <= y { [*x, *y] } else { [*y, *x] };
            state.relations.enforced_peace.retain(|e| e.powers != powers);
            state.relations.enforced_peace.push(EnforcedPeace { powers, until });
            state.relations.enforced_peace.sort();
            let npc = if *x == a { *y } else { *x };
            let pc = if npc == *x { a } else { b };
            let other = if npc == *x { *y } else { *x };
            out.push(
                Outcome::new(
                    "3.31",
                    Kind::Peace,
                    format!("{} and {} make peace", x.name(), y.name()),
                )
                .power(npc)
                .order(text)
                .why(format!(
                    "{} is {}'s Allied NPC, at war with the same countries as its Allied PC (3.31); its alliance stands",
                    npc.name(),
                    pc.name()
                ))
                .why(format!("enforced peace with {} until {until}", other.name())),
            );
        }
    }
}

/// 5.2: `mover` breaks its alliance with `with`.
/// FAQ98 5.11: peace may be made with one member of an alliance; the
/// power that accepts it (`to`) leaves its alliances with every power
/// still at war with the one that offered it (`mover`).
fn separate_peace(state: &mut State, mover: PowerId, to: PowerId, text: &str, out: &mut Vec<Outcome>) {
    for ally in PowerId::ALL {
        if ally == to || ally == mover || !state.relations.allied(to, ally) || !state.relations.at_war(ally, mover) {
            continue;
        }
        end_alliance(state, to, ally);
        out.push(
            Outcome::new(
                "5.1",
                Kind::AllianceBroken,
                format!(
                    "{}'s separate peace with {} breaks its alliance with {}",
                    to.name(),
                    mover.name(),
                    ally.name()
                ),
            )
            .power(to)
            .order(text)
            .why(format!(
                "FAQ98 5.11: accepting a peace offered to one member of an alliance breaks that alliance ({} is still at war with {})",
                ally.name(),
                mover.name()
            )),
        );
    }
}

/// The state changes of an alliance between `a` and `b` ending.
fn end_alliance(state: &mut State, a: PowerId, b: PowerId) {
    state.relations.set_alliance(a, b, false);
    // 4.256: an ally of France leaves the embargo by leaving the alliance.
    if (a == PowerId::France || b == PowerId::France) && state.embargo.active {
        let other = if a == PowerId::France { b } else { a };
        state.power_mut(other).in_embargo = false;
    }
    // 3.31: an Allied NPC whose ally it was is Inactive again
    for (npc, with) in [(b, a), (a, b)] {
        if state.power(npc).control == (Control::Allied { with }) {
            state.power_mut(npc).control = Control::Inactive;
        }
    }
}

fn break_alliance(state: &mut State, mover: PowerId, with: PowerId, text: &str, out: &mut Vec<Outcome>) {
    if !state.relations.allied(mover, with) {
        out.push(rejected(
            "5.2",
            mover,
            text,
            &format!("not allied with {}", with.name()),
        ));
    } else {
        end_alliance(state, mover, with);
        out.push(
            Outcome::new(
                "5.2",
                Kind::AllianceBroken,
                format!("{} breaks its alliance with {}", mover.name(), with.name()),
            )
            .power(mover)
            .order(text),
        );
    }
}

/// 3.31: why `mover` may not declare war on `on`, which the book puts on
/// a side: an Allied NPC "is at war with the same countries as the Allied
/// PC", so war is declared on its PC (which brings the NPC in); and a
/// power on `mover`'s own side (an ally's Allied NPC, an Allied NPC's PC
/// ally) is no enemy while the alliances stand. A direct ally is refused
/// by 5.3 itself.
pub fn war_on_side_refused(state: &State, mover: PowerId, on: PowerId) -> Option<String> {
    if on == mover || state.relations.allied(mover, on) {
        return None;
    }
    if side::same_side(state, mover, on) {
        return Some(format!(
            "{} is on {}'s side (3.31: an Allied NPC fights with its PC and his Allies): break the alliance first (5.2)",
            on.name(),
            mover.name()
        ));
    }
    side::allied_pc(state, on).map(|pc| {
        format!(
            "{} is {}'s Allied NPC, at war with the same countries as {} (3.31): declare war on {}",
            on.name(),
            pc.name(),
            pc.name(),
            pc.name()
        )
    })
}

/// 3.31: why `mover` may not offer peace to `to`: an Allied NPC is at war
/// with the same countries as its PC, so peace is made with the PC (and
/// the NPC follows, [`allied_npcs_make_peace`]).
pub fn peace_with_npc_refused(state: &State, to: PowerId) -> Option<String> {
    side::allied_pc(state, to).map(|pc| {
        format!(
            "{} is {}'s Allied NPC, at war with the same countries as {} (3.31): offer peace to {}",
            to.name(),
            pc.name(),
            pc.name(),
            pc.name()
        )
    })
}

/// 5.3: `mover` declares war on `on` with the order line `(index, text)`;
/// the Cancel Declaration Table may cancel it.
fn declare_war(
    scenario: &Scenario,
    state: &mut State,
    mover: PowerId,
    on: PowerId,
    (i, text): (usize, &str),
    dice: &mut dyn Dice,
    out: &mut Vec<Outcome>,
) -> Result<(), EngineError> {
    let now = state.turn();
    let reason = if on == mover {
        Some("a power cannot declare war on itself".to_string())
    } else if state.relations.at_war(mover, on) {
        Some(format!("already at war with {}", on.name()))
    } else if state.relations.allied(mover, on) {
        Some(format!("allied with {}: break the alliance first (5.2)", on.name()))
    } else if let Some(r) = war_on_side_refused(state, mover, on) {
        out.push(rejected("3.31", mover, text, &r));
        return Ok(());
    } else {
        state
            .relations
            .enforced(mover, on, now)
            .map(|e| format!("enforced peace with {} until {}", on.name(), e.until))
    };
    if let Some(r) = reason {
        out.push(rejected("5.3", mover, text, &r));
        return Ok(());
    }
    let purpose = format!(
        "war-declaration/{}/{mover}/{on}/{}",
        state.phase,
        super::asked_by_order(i)
    );
    let v = dice.roll(&purpose, D10)?;
    let cancel = &scenario.tables.diplomacy.cancel_declaration;
    if cancel.contains(&v) {
        out.push(
            Outcome::new(
                "5.3",
                Kind::DeclarationCancelled,
                format!("{}'s declaration of war on {} is cancelled", mover.name(), on.name()),
            )
            .power(mover)
            .order(text)
            .die(&purpose, v)
            .why(format!("Cancel Declaration Table: {v} cancels (rows {cancel:?})")),
        );
        return Ok(());
    }
    state.relations.set_war(mover, on, true);
    // 3.31: the target's Allied NPCs share its wars; so do the mover's.
    out.push(
        Outcome::new(
            "5.3",
            Kind::WarDeclared,
            format!("{} declares war on {}", mover.name(), on.name()),
        )
        .power(mover)
        .order(text)
        .die(&purpose, v)
        .why(format!("Cancel Declaration Table: {v} lets it stand")),
    );
    refresh_npcs(state, out);
    Ok(())
}

/// 4.256: enforced peaces that have expired are removed; a country at
/// enforced peace with France leaves the embargo with it.
pub fn expire_peaces(state: &mut State, out: &mut Vec<Outcome>) {
    let now = state.turn();
    let (gone, keep): (Vec<_>, Vec<_>) = state.relations.enforced_peace.drain(..).partition(|e| e.until <= now);
    state.relations.enforced_peace = keep;
    for e in gone {
        // 4.256: a country at enforced peace with France leaves the
        // Continental System when the peace expires.
        if e.powers.contains(&PowerId::France) {
            let other = if e.powers[0] == PowerId::France {
                e.powers[1]
            } else {
                e.powers[0]
            };
            if state.power(other).in_embargo && !state.relations.allied(other, PowerId::France) {
                state.power_mut(other).in_embargo = false;
                out.push(
                    Outcome::new(
                        "4.256",
                        Kind::EmbargoLeft,
                        format!(
                            "{} leaves the Continental System with the end of its enforced peace",
                            other.name()
                        ),
                    )
                    .power(other),
                );
            }
        }
        out.push(Outcome::new(
            "2.7",
            Kind::EnforcedPeaceExpired,
            format!(
                "The enforced peace between {} and {} expires",
                e.powers[0].name(),
                e.powers[1].name()
            ),
        ));
    }
}
