//! The rules engine: state + orders + dice -> new state + outcomes.
//!
//! Pure: no files, clock, mail or randomness but the [`Dice`] it is
//! handed. [`resolve`] runs the open phase; [`legality::judge`] decides,
//! for the checker and for [`resolve`] alike, which orders of a set the
//! phase can carry out. One concern per file, citing the book.
// A function a reader can hold: over `too-many-lines-threshold`
// (clippy.toml) it is split by the steps the book names.

pub mod bid;
pub mod builds;
pub mod diplomacy;
pub mod draw;
pub mod economy;
pub mod embargo;
pub mod events;
pub mod legality;
pub mod npc_surrender;
pub mod outcome;
pub mod political;
pub mod seating;
pub mod sequence;
pub mod setup;
pub mod side;
pub mod victory;
pub mod war;

use crate::diagnostic::Problem;
use crate::dice::{Dice, DiceError};
use crate::ids::{PowerId, Step};
use crate::orders::ast::{Arg, Order, OrderLine};
use crate::scenario::Scenario;
use crate::state::State;
use std::collections::BTreeMap;
use std::fmt;

pub use outcome::{Kind, Outcome, Section, Visibility, Why};

/// Accepted orders of the open phase, by power.
pub type PhaseOrders = BTreeMap<PowerId, Vec<OrderLine>>;

/// What resolving a phase produced.
#[derive(Clone, Debug)]
pub struct Resolution {
    pub state: State,
    pub outcomes: Vec<Outcome>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    Dice(DiceError),
    /// The game is over; nothing more can be resolved.
    GameOver,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Dice(e) => write!(f, "{e}"),
            EngineError::GameOver => write!(f, "the game is over"),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<DiceError> for EngineError {
    fn from(e: DiceError) -> Self {
        EngineError::Dice(e)
    }
}

/// Why an order cannot be carried out (shown in the acknowledgement).
///
/// `problem` is the code an order checker shows (`error[not-your-unit]`),
/// the same whether the parser, the legality gate or the engine finds it;
/// `reason` is the sentence naming the units and places involved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// What kind of refusal: `illegal` unless a rule has a closer code.
    pub problem: Problem,
    /// Rule section, e.g. `2.13`.
    pub rule: Section,
    pub reason: String,
    /// What the player may do instead, for the order checker's `help`
    /// line (the engine's outcome shows only the reason).
    pub help: Option<String>,
    /// The one argument of the order at fault, if one is (the unit not
    /// the power's, the province that cannot be reached): the order
    /// checker points at it. `None`: the order as a whole.
    pub at: Option<Arg>,
    /// Which writing of `at` is at fault when the line writes it more
    /// than once (a corps named twice, a path that comes back): how many
    /// writings of it follow on the line. `None`: the first writing.
    /// Counted from the end because the parser may drop a leading
    /// writing (the sea zone a squadron's path starts from). A byte,
    /// which keeps the refusal small (no line writes a word 255 times).
    pub later: Option<u8>,
}

impl Rejection {
    /// The refusal of rule section `rule` (numbers joined by dots), with
    /// its reason.
    #[track_caller]
    pub fn new(rule: impl Into<Section>, reason: impl Into<String>) -> Rejection {
        Rejection::coded(Problem::Illegal, rule, reason)
    }

    /// A refusal with a closer code than `illegal` (a unit not the
    /// power's to order, a stack apart, a path not joined...).
    #[track_caller]
    pub fn coded(problem: Problem, rule: impl Into<Section>, reason: impl Into<String>) -> Rejection {
        Rejection {
            problem,
            rule: rule.into(),
            reason: reason.into(),
            help: None,
            at: None,
            later: None,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Rejection {
        self.help = Some(help.into());
        self
    }

    /// The refusal concerns this argument of the order.
    pub fn at(mut self, arg: Arg) -> Rejection {
        self.at = Some(arg);
        self
    }

    /// The refusal concerns the writing of `arg` that `later` more
    /// writings of it follow on the line.
    pub fn at_writing(mut self, arg: Arg, later: usize) -> Rejection {
        self.at = Some(arg);
        self.later = Some(u8::try_from(later).unwrap_or(u8::MAX));
        self
    }
}

/// Which powers must or may order in the open phase.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Roles {
    pub must: Vec<PowerId>,
    pub may: Vec<PowerId>,
}

/// Who orders in the open phase (see [`sequence::roles`] for the
/// defaults applied to a power that sends nothing).
pub fn roles(_scenario: &Scenario, state: &State) -> Roles {
    if state.over.is_some() {
        return Roles::default();
    }
    sequence::roles(state)
}

/// 5.12 at the mover's Peace Step: a surrender the table forces (house
/// trigger: the capital held by an enemy, `surrender.toml`), or one the
/// mover offers with its terms.
fn surrender_step(scenario: &Scenario, state: &mut State, p: PowerId, theirs: &[OrderLine], out: &mut Vec<Outcome>) {
    // 5.122: the mover's allied NPCs surrender in its Peace Step, forced
    // or because the mover surrenders them
    npc_surrender::allied_npcs(scenario, state, p, out);
    for l in theirs {
        if let Order::SurrenderNpc { npc, to, terms } = &l.order {
            match npc_surrender::may_surrender(state, p, *npc, *to) {
                Ok(()) => out.extend(npc_surrender::voluntary(scenario, state, p, *npc, *to, terms, &l.text)),
                // legality accepted it when the phase opened; the forced
                // surrender or the NPC roll before it changed that
                Err(why) => out.push(
                    Outcome::new(
                        why.rule.as_str(),
                        Kind::OrderFailed,
                        format!("not carried out: {}", why.reason),
                    )
                    .power(p)
                    .order(&l.text),
                ),
            }
        }
    }
    if let Some(victor) = war::surrender::due(scenario, state, p) {
        // 11.9.1.2 (EiA option political): peace with every enemy instead
        // of civil disorder; otherwise the holder of the capital alone.
        let enemies = political::peace::civil_disorder(scenario, state, p).unwrap_or_else(|| vec![victor]);
        for e in enemies {
            let terms =
                political::peace::with_mandatory(scenario, state, p, e, war::surrender::default_terms(scenario));
            out.extend(war::surrender::surrender(scenario, state, p, e, &terms));
        }
        return;
    }
    for l in theirs {
        if let Order::Surrender { to, terms } = &l.order {
            if state.relations.at_war(p, *to) {
                let mut outs = war::surrender::surrender(scenario, state, p, *to, terms);
                if let Some(first) = outs.first_mut() {
                    first.order = Some(l.text.clone());
                }
                out.extend(outs);
                return;
            }
            out.push(economy::rejected(
                "5.12",
                p,
                &l.text,
                &format!("not at war with {}", to.name()),
            ));
        }
    }
}

fn is_military(order: &Order) -> bool {
    use Order::*;
    matches!(
        order,
        NavalMove { .. }
            | NavalAttack { .. }
            | Blockade { .. }
            | Naval(_)
            | Move { .. }
            | Besiege { .. }
            | Garrison { .. }
            | WithdrawGarrison { .. }
            | Surrender { .. }
            | SurrenderNpc { .. }
            | Standing(_)
    )
}

/// Resolve the open phase and open the next one.
///
/// Orders [`legality::judge`] refuses get an `order-rejected` outcome
/// and no effect. After every phase the immediate victory (1.1)
/// is checked; after the last Build Phase the final ranking is made.
pub fn resolve(
    scenario: &Scenario,
    before: &State,
    orders: &PhaseOrders,
    dice: &mut dyn Dice,
) -> Result<Resolution, EngineError> {
    if before.over.is_some() {
        return Err(EngineError::GameOver);
    }
    let mut state = before.clone();
    let mut out = Vec::new();
    let step = state.phase.step;
    // Orders the phase cannot carry out: the same judgement as the checker's.
    let mut accepted: PhaseOrders = PhaseOrders::new();
    for (p, lines) in orders {
        let set: Vec<&Order> = lines.iter().map(|l| &l.order).collect();
        for (l, verdict) in lines.iter().zip(legality::judge(scenario, &state, *p, &set)) {
            match verdict {
                Ok(()) => accepted.entry(*p).or_default().push(l.clone()),
                Err(why) => out.push(economy::rejected(why.rule(), *p, &l.text, &why.to_string())),
            }
        }
    }
    // Standing orders count from the phase they are given in, whoever
    // gives them (they answer questions asked in other powers' turns).
    for (p, lines) in &accepted {
        war::record_standing(&mut state, *p, lines, &mut out);
    }
    // House rule 'draws': the votes count from the phase they are cast in.
    draw::record_votes(&mut state, &accepted, &mut out);
    match step {
        Step::Bid => {
            bid::resolve(&mut state, &accepted, dice, &mut out)?;
        }
        Step::TurnStart => {
            diplomacy::expire_peaces(&mut state, &mut out);
            diplomacy::refresh_npcs(&mut state, &mut out);
            sequence::turn_start(&mut state, &accepted, dice, &mut out)?;
        }
        Step::PlayerTurn(p) => {
            let by = state.ordered_by(p);
            let theirs: Vec<OrderLine> = by.and_then(|b| accepted.get(&b).cloned()).unwrap_or_default();
            let player = crate::rules::side::is_player_country(&state, p);
            if player {
                // 4.7 Turn Preparation: the 4.71 NPC roll, then the 4.72 event.
                diplomacy::npc_roll(scenario, &mut state, p, &accepted, dice, &mut out)?;
                events::roll(scenario, &mut state, p, dice, &mut out)?;
                // 5.1 Peace Step: negotiated peace, then surrender (5.12).
                diplomacy::peace_step(scenario, &mut state, p, &accepted, &mut out);
            }
            surrender_step(scenario, &mut state, p, &theirs, &mut out);
            if player {
                // 5.2 Alliance Step, 5.3 War Declaration Step.
                diplomacy::political_steps(scenario, &mut state, p, &accepted, dice, &mut out)?;
            }
            let military: Vec<OrderLine> = theirs.into_iter().filter(|l| is_military(&l.order)).collect();
            war::naval_phase(scenario, &mut state, p, &military, dice, &mut out)?;
            war::land_phase(scenario, &mut state, p, &military, dice, &mut out)?;
            diplomacy::refresh_npcs(&mut state, &mut out);
            sequence::late_chits(&mut state, p, &mut out); // 3.31, 4.6
        }
        Step::Build => {
            war::naval_option::expenditure(scenario, &mut state, &mut out); // 12.2.9.3
            war::naval_option::refit::complete(scenario, &mut state, &mut out); // 12.2.8.3
            let (naval, builds) = war::naval_option::split_build_orders(&accepted);
            let before = war::naval_option::squadron_keys(&state); // 12.2.8.4 new ships
            builds::build_phase(scenario, &mut state, &builds, &mut out);
            war::naval_option::build_orders(scenario, &mut state, &naval, &before, &mut out); // 12.2.8.3, 12.2.8.4
            economy::update_capitals(scenario, &mut state, &mut out);
        }
        Step::Winter => winter(scenario, &mut state, &accepted, dice, &mut out)?,
    }
    if step != Step::Bid {
        political::after_phase(scenario, &mut state, &mut out); // 11.1.3, 11.2.3, … 11.7
    }
    war::naval_option::after_phase(scenario, &mut state, dice, &mut out)?; // 12.2.8.2
    if state.over.is_none()
        && step != Step::Bid
        && !victory::check_immediate(scenario, &mut state, &mut out)
        && !draw::agreed(&mut state, &mut out)
    {
        match sequence::next_phase(scenario, &state) {
            Some(next) => {
                if next.step == Step::TurnStart || next.step == Step::Winter {
                    state.turn_order.clear();
                }
                state.phase = next;
            }
            None => victory::final_ranking(scenario, &mut state, &mut out),
        }
    } else if step == Step::Bid
        && let Some(next) = sequence::next_phase(scenario, &state)
    {
        state.phase = next;
    }
    name_what_changed(&mut out);
    Ok(Resolution { state, outcomes: out })
}

/// The part of a die's purpose that names the order that asked for it:
/// the line's place in the power's orders (1-based). Two orders never
/// share a purpose, and an order never shares one with an event (which
/// names itself `event`), so a phase can always be resolved.
pub fn asked_by_order(line: usize) -> String {
    format!("order-{}", line + 1)
}

/// Outcomes a power's orders cannot foresee: dice, and other powers'
/// answers (7 A: an accepted peace or alliance needs the other side).
fn unforeseeable(o: &Outcome) -> bool {
    !o.dice.is_empty() || matches!(o.kind.as_str(), "peace" | "alliance")
}

/// An order legality accepted when the phase opened can still fail at
/// resolution, because dice or other powers' orders changed the situation
/// before it ran; its outcome names what did (the last such events that
/// concern its power).
fn name_what_changed(out: &mut [Outcome]) {
    for i in 0..out.len() {
        if out[i].kind != Kind::OrderFailed || !out[i].dice.is_empty() {
            continue;
        }
        let power = out[i].power;
        let causes: Vec<String> = out[..i]
            .iter()
            .filter(|o| unforeseeable(o) && o.kind != Kind::Event)
            .filter(|o| power.is_some_and(|p| o.power == Some(p) || o.visibility.sees(p)))
            .map(|o| o.summary.clone())
            .collect();
        let shown: Vec<String> = causes.iter().rev().take(3).rev().cloned().collect();
        out[i].why.push(if shown.is_empty() {
            Why::from("legal when the phase opened; nothing rolled or answered before it explains the change")
        } else {
            format!("legal when the phase opened; changed since by: {}", shown.join("; ")).into()
        });
    }
}

/// 4.0 The Winterphase: the Economic Phase (4.2), the Diplomacy Phase
/// (4.3) and the NPC Alliance Phase (4.4), in the order of 3.7 A.
fn winter(
    scenario: &Scenario,
    state: &mut State,
    orders: &PhaseOrders,
    dice: &mut dyn Dice,
    out: &mut Vec<Outcome>,
) -> Result<(), EngineError> {
    diplomacy::expire_peaces(state, out);
    // 4.24: France may cancel (and others join or leave) before the assessment.
    for (p, lines) in orders {
        for l in lines {
            if let Order::Embargo { action } = &l.order {
                embargo::order(scenario, state, *p, *action, &l.text, out);
            }
        }
    }
    political::treasury::year_end(scenario, state, out); // 8.5.5, 11.6.2.2
    economy::tax(scenario, state, out); // 4.21
    political::treasury::collect(scenario, state, out); // 11.x.2, 8.2.3
    political::dominance::income(scenario, state, out); // 11.8.2.4
    embargo::income_loss(scenario, state, out); // 4.258
    economy::expenses(state, scenario, out); // 4.22
    war::naval_option::expenditure(scenario, state, out); // 12.2.9.3
    economy::collect_vp(scenario, state, out); // 4.23
    embargo::vp_losses(scenario, state, out); // 4.257, 4.256
    political::combinations_step(scenario, state, orders, out); // 11.1-11.7
    political::dominance::political_step(scenario, state, orders, out); // 11.8.1, same step
    for (p, lines) in orders {
        for l in lines {
            if let Order::BuyVp { gold } = &l.order {
                economy::buy_vp(scenario, state, *p, *gold, &l.text, out); // 4.25
            }
        }
    }
    for (p, lines) in orders {
        for l in lines {
            match &l.order {
                Order::Gift { to, gold } => economy::gift(state, *p, *to, *gold, false, &l.text, out), // 4.3, 4.212
                Order::Loan { to, gold } => economy::gift(state, *p, *to, *gold, true, &l.text, out),
                _ => {}
            }
        }
    }
    for (p, lines) in orders {
        for (i, l) in lines.iter().enumerate() {
            if let Order::NpcAlliance { npc } = &l.order {
                let asker = asked_by_order(i);
                let roll = diplomacy::AllianceRoll {
                    text: &l.text,
                    rule: "4.4",
                    asker: &asker,
                };
                diplomacy::npc_alliance(scenario, state, *p, *npc, &roll, dice, out)?; // 4.4
            }
        }
    }
    economy::minor_conquests(scenario, state, out); // 3.41, 3.43
    economy::desertion(scenario, state, out); // 3.41
    Ok(())
}

/// The bookkeeping invariant: every Gold and VP change between `before`
/// and `after` is explained by the outcomes' `gold`/`vp` maps, and no
/// treasury is negative (a deficit is kept as `debt`, 4.221).
pub fn audit(before: &State, after: &State, outcomes: &[Outcome]) -> Result<(), String> {
    let mut problems = Vec::new();
    for p in PowerId::ALL {
        let dg: i64 = outcomes.iter().filter_map(|o| o.gold.get(&p)).sum();
        let dv: i64 = outcomes.iter().filter_map(|o| o.vp.get(&p)).sum();
        let (b, a) = (before.power(p), after.power(p));
        if a.gold - b.gold != dg {
            problems.push(format!(
                "{p}: Gold {} -> {} but outcomes explain {dg:+}",
                b.gold, a.gold
            ));
        }
        if a.vp - b.vp != dv {
            problems.push(format!("{p}: VP {} -> {} but outcomes explain {dv:+}", b.vp, a.vp));
        }
        if a.gold < 0 {
            problems.push(format!("{p}: negative Gold {}", a.gold));
        }
        if a.debt < 0 {
            problems.push(format!("{p}: negative deficit {}", a.debt));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use legality::judge_one;
    use std::collections::BTreeSet;

    #[test]
    fn audit_catches_an_unexplained_change() {
        let s = Scenario::embedded("1805").unwrap();
        let before = State::initial(
            &s,
            "t",
            &PowerId::ALL.into_iter().collect::<BTreeSet<_>>(),
            BTreeSet::new(),
        );
        let mut after = before.clone();
        after.power_mut(PowerId::Spain).gold += 3;
        assert!(audit(&before, &after, &[]).is_err());
        let explained = Outcome::new("4.21", Kind::Tax, "t").gold(PowerId::Spain, 3);
        assert!(audit(&before, &after, &[explained]).is_ok());
        after.power_mut(PowerId::Spain).gold = -1;
        let o = Outcome::new("4.2", Kind::Expenses, "x").gold(PowerId::Spain, -1 - before.power(PowerId::Spain).gold);
        assert!(audit(&before, &after, &[o]).unwrap_err().contains("negative Gold"));
    }

    #[test]
    fn the_game_over_refuses_resolution_and_orders() {
        let s = Scenario::embedded("1805").unwrap();
        let mut state = State::initial(
            &s,
            "t",
            &PowerId::ALL.into_iter().collect::<BTreeSet<_>>(),
            BTreeSet::new(),
        );
        state.over = Some("france".into());
        let mut d = crate::testing::ScriptedDice::default();
        assert_eq!(
            resolve(&s, &state, &PhaseOrders::new(), &mut d).unwrap_err(),
            EngineError::GameOver
        );
        // What `resolve` and `verify --replay` print when the engine stops.
        assert_eq!(EngineError::GameOver.to_string(), "the game is over");
        let repeated = crate::dice::DiceError::Repeated {
            purpose: "siege/vienna".into(),
        };
        assert_eq!(
            EngineError::Dice(repeated).to_string(),
            "roll 'siege/vienna' was asked for twice"
        );
        assert_eq!(
            judge_one(&s, &state, PowerId::France, &Order::MoveFirst),
            Err(legality::Illegal::GameOver)
        );
        assert_eq!(roles(&s, &state), Roles::default());
    }

    #[test]
    fn orders_out_of_phase_are_rejected() {
        let s = Scenario::embedded("1805").unwrap();
        let state = State::initial(
            &s,
            "t",
            &PowerId::ALL.into_iter().collect::<BTreeSet<_>>(),
            BTreeSet::new(),
        );
        // 1805-fall-turn-start: a VP purchase belongs to the Winterphase.
        let r = judge_one(&s, &state, PowerId::Britain, &Order::BuyVp { gold: 8 }).unwrap_err();
        assert_eq!(r.rule(), "3.7");
        assert!(judge_one(&s, &state, PowerId::France, &Order::MoveFirst).is_ok());
        assert!(judge_one(&s, &state, PowerId::Britain, &Order::MoveFirst).is_err());
    }
}
