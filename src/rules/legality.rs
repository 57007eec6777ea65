//! Legality: which orders of a power's set the engine will carry out,
//! decided once. The order checker (`check`, `submit`, mail ingest) and
//! the engine ([`super::resolve`]) both call [`judge`], so an order the
//! checker accepts is one the engine takes, and an order the checker
//! refuses is refused by the engine for the same typed reason.
//!
//! Orders are judged against the state *as the phase will have changed it
//! by the time each order runs*: the set is walked in the engine's order
//! of execution (3.7, 5.0: political steps, then the Naval Phase, then the
//! Land Phase; in the Winterphase purchases after the Economic Phase's
//! income and expenses), and every deterministic effect of an accepted
//! order (a war declared, a gift paid, a corps built or moved, a squadron
//! sailed) is applied to a projected state before the next order is
//! judged. Deterministic steps run the engine's own functions on the
//! projection, so they cannot drift from what resolution does. What needs
//! dice or other powers' orders (a declaration cancelled, a peace
//! refused, a battle that stops a march) cannot be known here; such an
//! order fails at resolution with an outcome that names the die or the
//! power.

use super::Kind;
use super::{Outcome, Rejection, builds, diplomacy, economy, embargo, npc_surrender, war};
use crate::diagnostic::Problem;
use crate::ids::{PhaseId, PowerId, Step};
use crate::orders::ast::{Arg, EmbargoAction, Order};
use crate::scenario::Scenario;
use crate::state::{Location, State, UnitKey};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// Why an order is refused: the typed reason the checker and the engine
/// both report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// 7.1: nothing is ordered after the end of the game.
    GameOver,
    /// 3.7: the open phase does not take this kind of order.
    WrongPhase {
        kind: &'static str,
        phase: PhaseId,
        takes: String,
    },
    /// 3.7: political, naval and land orders belong to the mover's turn.
    NotYourTurn { mover: PowerId },
    /// 5.1, 5.2: an answer to a proposal counts only in the proposer's
    /// Player Turn, where the proposal is made and decided.
    AnswerOutOfTurn {
        /// The answer as written (`ACCEPT PEACE FROM France`).
        answer: String,
        proposer: PowerId,
        /// The proposer's Player Turn of this season.
        counts_in: PhaseId,
        phase: PhaseId,
        /// What the open phase takes from this power.
        takes: String,
    },
    /// 4.221: a deficit larger than the treasury blocks every expenditure.
    Deficit { payer: PowerId, debt: i64 },
    /// The Gold an order spends is not in the treasury when it runs.
    CannotPay {
        payer: PowerId,
        cost: i64,
        /// Gold left when the order runs (after the deficit is repaid and
        /// the earlier orders of the set are paid).
        left: i64,
    },
    /// 6.0: the force pool holds fewer units than ordered.
    PoolEmpty {
        pool: String,
        what: String,
        left: u32,
        wanted: u32,
        /// The item of a BUILD the pool cannot fill.
        item: Option<Arg>,
    },
    /// 4.4: the NPC Alliance Table allies NPCs; a Player Country is
    /// proposed an alliance instead (5.2).
    NotAnNpc { npc: PowerId },
    /// A unit given a second order of a kind it can carry out once.
    AlreadyOrdered {
        rule: &'static str,
        /// The unit's name, as the reason shows it.
        unit: String,
        key: UnitKey,
    },
    /// Any other rule, with its section.
    Rule(Rejection),
}

impl Illegal {
    fn rule_of(rule: &str, reason: impl Into<String>) -> Illegal {
        Illegal::Rule(Rejection::new(rule, reason))
    }

    /// [`Illegal::rule_of`], the fault of one argument of the order.
    fn rule_at(rule: &str, arg: Arg, reason: impl Into<String>) -> Illegal {
        Illegal::Rule(Rejection::new(rule, reason).at(arg))
    }

    /// The rule section the reason cites.
    pub fn rule(&self) -> &str {
        match self {
            Illegal::GameOver => "7.1",
            Illegal::WrongPhase { .. } | Illegal::NotYourTurn { .. } => "3.7",
            Illegal::AnswerOutOfTurn { answer, .. } if answer.contains("ALLIANCE") => "5.2",
            Illegal::AnswerOutOfTurn { .. } => "5.1",
            Illegal::Deficit { .. } => "4.221",
            Illegal::NotAnNpc { .. } => "4.4",
            Illegal::CannotPay { .. } => "4.2",
            Illegal::PoolEmpty { .. } => "6.0",
            Illegal::AlreadyOrdered { rule, .. } => rule,
            Illegal::Rule(r) => r.rule.as_str(),
        }
    }

    /// What the player may do instead, if the rule says.
    pub fn help(&self) -> Option<&str> {
        match self {
            Illegal::Rule(r) => r.help.as_deref(),
            _ => None,
        }
    }

    /// The one argument of `order` (the order refused) at fault, if one
    /// is: the order checker points at it, else at the whole order.
    pub fn arg(&self, order: &Order) -> Option<Arg> {
        match (self, order) {
            (Illegal::Rule(r), _) => r.at.clone(),
            (Illegal::NotAnNpc { npc }, _) => Some(Arg::Power(*npc)),
            (Illegal::AlreadyOrdered { key, .. }, _) => Some(Arg::Unit(key.clone())),
            // the amount paid, where the order names one
            (
                Illegal::CannotPay { .. },
                Order::Gift { gold, .. } | Order::Loan { gold, .. } | Order::BuyVp { gold },
            ) => Some(Arg::Number(*gold)),
            (Illegal::PoolEmpty { item, .. }, _) => item.clone(),
            (Illegal::CannotPay { .. }, Order::BuildSquadron { count, .. }) => Some(Arg::Number(*count)),
            // the phase, the deficit, a build's cost or pools: the order
            _ => None,
        }
    }

    /// Which writing of [`Illegal::arg`] is at fault, when the line
    /// writes it more than once ([`Rejection::later`]).
    pub fn later(&self) -> Option<usize> {
        match self {
            Illegal::Rule(r) => r.later.map(usize::from),
            _ => None,
        }
    }

    /// The diagnostic code an order checker shows.
    pub fn code(&self) -> Problem {
        match self {
            Illegal::WrongPhase { .. } | Illegal::NotYourTurn { .. } | Illegal::AnswerOutOfTurn { .. } => {
                Problem::WrongPhase
            }
            Illegal::Deficit { .. } | Illegal::CannotPay { .. } => Problem::CannotPay,
            Illegal::PoolEmpty { .. } => Problem::PoolEmpty,
            Illegal::AlreadyOrdered { .. } => Problem::AlreadyOrdered,
            Illegal::NotAnNpc { .. } => Problem::NotAnNpc,
            Illegal::Rule(r) => r.problem,
            Illegal::GameOver => Problem::Illegal,
        }
    }
}

impl fmt::Display for Illegal {
    /// The reason, without its section (see [`Illegal::rule`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegal::GameOver => write!(f, "the game is over"),
            Illegal::WrongPhase { kind, phase, takes } => {
                write!(f, "{kind} orders are not given in phase {phase} (it takes {takes})")
            }
            Illegal::NotYourTurn { mover } => write!(
                f,
                "it is {m}'s Player Turn; only {m} (or whoever runs it) gives political, naval and land orders now, others only accept or reject its offers",
                m = mover.name()
            ),
            Illegal::AnswerOutOfTurn {
                answer,
                proposer,
                counts_in,
                phase,
                takes,
            } => write!(
                f,
                "{answer} counts only in {p}'s Player Turn (phase {counts_in}), where {p}'s offer is made and decided; sent in phase {phase} it would never apply (phase {phase} takes {takes})",
                p = proposer.name()
            ),
            Illegal::Deficit { payer, debt } => write!(
                f,
                "{} has a deficit of {debt} Gold that the treasury cannot repay; nothing else may be bought until it is made up",
                payer.name()
            ),
            Illegal::CannotPay { payer, cost, left } => write!(
                f,
                "this costs {cost} Gold but {} will have only {left} left when it is paid",
                payer.name()
            ),
            Illegal::PoolEmpty {
                pool,
                what,
                left,
                wanted,
                ..
            } => write!(
                f,
                "the {pool} force pool holds {left} {what}; {wanted} more cannot be built"
            ),
            Illegal::NotAnNpc { npc } => {
                write!(f, "{} is a Player Country; use PROPOSE ALLIANCE (5.2)", npc.name())
            }
            Illegal::AlreadyOrdered { unit, .. } => write!(f, "{unit} already has an order of this kind in this phase"),
            Illegal::Rule(r) => write!(f, "{}", r.reason),
        }
    }
}

/// Accepted, or refused with a reason.
pub type Verdict = Result<(), Illegal>;

/// The order kinds a phase step takes, by [`Order::kind`], for the power
/// that moves (`mover`) or for the others. The one phase gate (3.7).
fn kinds_taken(step: Step, mover: bool) -> &'static [&'static str] {
    match step {
        Step::Bid => &["bid", "standing"],
        Step::TurnStart => &["cooperate", "move-first", "standing"],
        Step::PlayerTurn(_) if mover => &[
            "offer-peace",
            "accept-peace",
            "reject-peace",
            "surrender",
            "propose-alliance",
            "accept-alliance",
            "break-alliance",
            "declare-war",
            "npc-alliance",
            "embargo",
            "gift",
            "loan",
            "naval-move",
            "naval-attack",
            "blockade",
            "sortie",
            "raid",
            "move",
            "besiege",
            "garrison",
            "withdraw-garrison",
            "standing",
        ],
        // 5.1, 5.2: the other side answers an offer made in this turn.
        Step::PlayerTurn(_) => &["accept-peace", "reject-peace", "accept-alliance", "standing"],
        Step::Build => &["build", "build-squadron", "refit", "convert", "standing"],
        Step::Winter => &[
            "buy-vp",
            "gift",
            "loan",
            "npc-alliance",
            "embargo",
            "create-kingdom",
            "add-to-kingdom",
            "cede-kingdom",
            "accept-kingdom", // 11.1.4, 11.4.4: the receiver's answer
            "refuse-kingdom",
            "dissolve-kingdom",
            "improve-leader", // 11.8.2.5
            "standing",
        ],
    }
}

/// How an order kind is written, for the list of what a phase takes.
fn written(kind: &str) -> &'static str {
    match kind {
        "bid" => "BID",
        "cooperate" => "COOPERATE",
        "move-first" => "MOVE FIRST",
        "offer-peace" => "OFFER PEACE",
        "accept-peace" => "ACCEPT PEACE",
        "reject-peace" => "REJECT PEACE",
        "surrender" => "SURRENDER",
        "propose-alliance" => "PROPOSE ALLIANCE",
        "accept-alliance" => "ACCEPT ALLIANCE",
        "break-alliance" => "BREAK ALLIANCE",
        "declare-war" => "DECLARE WAR",
        "npc-alliance" => "NPC ALLIANCE",
        "embargo" => "Continental System orders",
        "gift" => "GIFT",
        "loan" => "LOAN",
        "naval-move" => "SAIL",
        "naval-attack" => "ATTACK (naval)",
        "blockade" => "BLOCKADE",
        "sortie" => "SORTIE",
        "raid" => "RAID",
        "refit" => "REFIT",
        "convert" => "CONVERT",
        "move" => "MOVE",
        "besiege" => "BESIEGE",
        "garrison" => "GARRISON",
        "withdraw-garrison" => "WITHDRAW GARRISON",
        "build" => "BUILD",
        "build-squadron" => "BUILD SQUADRON",
        "buy-vp" => "BUY VP",
        "create-kingdom" => "CREATE",
        "add-to-kingdom" => "ADD … TO",
        "cede-kingdom" => "CEDE",
        "accept-kingdom" => "ACCEPT <kingdom> FROM",
        "refuse-kingdom" => "REFUSE <kingdom> FROM",
        "dissolve-kingdom" => "DISSOLVE",
        "improve-leader" => "IMPROVE",
        _ => "STANDING",
    }
}

/// The optional module an order kind belongs to, if any: a game without
/// it is not told of the order (its gate still names the module when one
/// is given anyway).
fn option_of(kind: &str) -> Option<&'static str> {
    match kind {
        // 12.2.9.2, 12.2.6.3, 12.2.8.3, 12.2.8.4
        "sortie" | "raid" | "refit" | "convert" => Some(crate::rules::war::option_naval::ID),
        // 11.x, 11.8.2.5
        "create-kingdom" | "add-to-kingdom" | "cede-kingdom" | "accept-kingdom" | "dissolve-kingdom"
        | "improve-leader" => Some(crate::rules::political::ID),
        _ => None,
    }
}

/// How the orders of `step` that this game takes are written, in the
/// book's order: the list a player is told (3.7).
fn listed(state: &State, step: Step, mover: bool) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = kinds_taken(step, mover)
        .iter()
        .filter(|k| option_of(k).is_none_or(|o| state.options.contains(o)))
        .map(|k| written(k))
        .collect();
    v.dedup();
    v
}

/// How the orders the open phase takes from `power` are written (3.7),
/// for a player's HELP by mail: the same gate [`phase_gate`] applies.
pub fn orders_taken(state: &State, power: PowerId) -> Vec<&'static str> {
    if state.over.is_some() {
        return Vec::new();
    }
    listed(state, state.phase.step, is_mover(state, power))
}

/// Whether `power` moves in the open phase (only a Player Turn has one
/// mover: the power whose turn it is, or whoever runs it).
fn is_mover(state: &State, power: PowerId) -> bool {
    match state.phase.step {
        Step::PlayerTurn(p) => state.ordered_by(p) == Some(power),
        _ => true,
    }
}

/// 3.7: does the open phase take this order from `power`?
pub fn phase_gate(state: &State, power: PowerId, order: &Order) -> Verdict {
    if state.over.is_some() {
        return Err(Illegal::GameOver);
    }
    // House rule 'draws': a vote is taken in any phase, from any power.
    if matches!(order, Order::Draw | Order::NoDraw) {
        return super::draw::gate(state);
    }
    let step = state.phase.step;
    let mover = is_mover(state, power);
    let kind = order.kind();
    // 5.1, 5.2: an answer applies only where the proposal is decided.
    let answer = match order {
        Order::AcceptPeace { from } => Some((*from, format!("ACCEPT PEACE FROM {}", from.name()))),
        Order::RejectPeace { from } => Some((*from, format!("REJECT PEACE FROM {}", from.name()))),
        Order::AcceptAlliance { from } => Some((*from, format!("ACCEPT ALLIANCE FROM {}", from.name()))),
        _ => None,
    };
    if let Some((proposer, answer)) = answer
        && step != Step::PlayerTurn(proposer)
    {
        let takes = listed(state, step, mover);
        return Err(Illegal::AnswerOutOfTurn {
            answer,
            proposer,
            counts_in: PhaseId {
                turn: state.phase.turn,
                step: Step::PlayerTurn(proposer),
            },
            phase: state.phase,
            takes: takes.join(", "),
        });
    }
    if kinds_taken(step, mover).contains(&kind) {
        return Ok(());
    }
    if let Step::PlayerTurn(p) = step
        && !mover
        && kinds_taken(step, true).contains(&kind)
    {
        return Err(Illegal::NotYourTurn { mover: p });
    }
    let takes = listed(state, step, mover);
    Err(Illegal::WrongPhase {
        kind,
        phase: state.phase,
        takes: takes.join(", "),
    })
}

/// When an order runs within its phase, for walking a set in the engine's
/// order (3.7 A for the Winterphase: embargo, the Economic Phase,
/// purchases, gifts, NPC alliances; 4.71 and 5.1–5.5 for a Player Turn).
/// Orders of one stage run in the order given.
fn stage(order: &Order, winter: bool) -> u8 {
    match order {
        Order::Standing(_) => 0,
        Order::Embargo { .. } if winter => 1, // 4.24: before the assessment
        Order::BuyVp { .. } | Order::Political(_) => 2, // 11.x: before purchases
        Order::NpcAlliance { .. } if winter => 9, // 4.4 closes the Winterphase
        Order::NpcAlliance { .. } => 3,       // 4.71 opens a Player Turn
        Order::OfferPeace { .. } => 4,        // 5.1
        Order::Surrender { .. } => 5,         // 5.12, in the Peace Step (5.1)
        Order::SurrenderNpc { .. } => 5,      // 5.122, in the ally\'s Peace Step
        Order::ProposeAlliance { .. } | Order::BreakAlliance { .. } => 6, // 5.2
        Order::DeclareWar { .. } => 7,        // 5.3
        Order::Embargo { .. } | Order::Gift { .. } | Order::Loan { .. } => 8,
        Order::Naval(n) if n.in_build_phase() => 16, // 12.2.8.3-.4: after the builds
        Order::NavalMove { .. } | Order::NavalAttack { .. } | Order::Blockade { .. } | Order::Naval(_) => 10, // 5.4
        Order::WithdrawGarrison { .. } => 11,        // 5.5
        Order::Move { .. } => 12,
        Order::Besiege { .. } => 13,
        Order::Garrison { .. } => 14,
        _ => 15,
    }
}

/// The state a power's orders are judged against, changed by each order
/// accepted so far as the phase will change it.
struct Projection<'a> {
    scenario: &'a Scenario,
    state: State,
    power: PowerId,
    /// 2.71 totals so far, per builder (`builds::builder`)
    spent: BTreeMap<PowerId, builds::Spent>,
    marched: BTreeSet<UnitKey>,
    sailed: BTreeSet<UnitKey>,
}

impl<'a> Projection<'a> {
    fn new(scenario: &'a Scenario, state: &State, power: PowerId) -> Self {
        let mut state = state.clone();
        let mut scratch = Vec::new();
        // What the phase does before any order of the set runs.
        match state.phase.step {
            Step::Winter => {
                diplomacy::expire_peaces(&mut state, &mut scratch);
            }
            Step::Build => {
                // the option's upkeep and finished refits come before the
                // builds (12.2.9.3, 12.2.7.1-.2, 12.2.8.3)
                super::war::naval_option::expenditure(scenario, &mut state, &mut scratch);
                super::war::naval_option::refit::complete(scenario, &mut state, &mut scratch);
                builds::arrivals(scenario, &mut state, &mut scratch)
            }
            _ => {}
        }
        Projection {
            scenario,
            state,
            power,
            spent: BTreeMap::new(),
            marched: BTreeSet::new(),
            sailed: BTreeSet::new(),
        }
    }

    /// 4.21–4.23 and the embargo losses run between the Winter embargo
    /// orders and the purchases; they are deterministic.
    fn winter_economy(&mut self) {
        let (scenario, state) = (self.scenario, &mut self.state);
        let mut scratch = Vec::new();
        economy::tax(scenario, state, &mut scratch);
        super::political::dominance::income(scenario, state, &mut scratch); // 11.8.2.4
        embargo::income_loss(scenario, state, &mut scratch);
        economy::expenses(state, scenario, &mut scratch);
        economy::collect_vp(scenario, state, &mut scratch);
        embargo::vp_losses(scenario, state, &mut scratch);
    }

    fn pay(&self, cost: i64) -> Verdict {
        self.pay_from(self.power, cost)
    }

    /// Whether `payer` can spend `cost` now: its treasury once the deficit
    /// is repaid from it (4.221); the power's own, or its Allied NPC's for
    /// a build it orders (3.31).
    fn pay_from(&self, payer: PowerId, cost: i64) -> Verdict {
        let ps = self.state.power(payer);
        if ps.debt > ps.gold {
            return Err(Illegal::Deficit { payer, debt: ps.debt });
        }
        let left = ps.gold - ps.debt;
        if cost > left {
            return Err(Illegal::CannotPay { payer, cost, left });
        }
        Ok(())
    }

    /// Run an engine step on the projection; an `order-rejected` outcome
    /// it produces is the order's reason.
    fn run(&mut self, step: impl FnOnce(&Scenario, &mut State, &mut Vec<Outcome>)) -> Verdict {
        let mut out = Vec::new();
        let before = self.state.clone();
        step(self.scenario, &mut self.state, &mut out);
        match out.iter().find(|o| o.kind == Kind::OrderRejected) {
            Some(o) => {
                self.state = before;
                let reason = o.summary.strip_prefix("not carried out: ").unwrap_or(&o.summary);
                Err(Illegal::rule_of(o.rule.as_str(), reason))
            }
            None => Ok(()),
        }
    }

    /// Judge one order and, when it is accepted, apply what it will do.
    fn judge(&mut self, order: &Order) -> Verdict {
        phase_gate(&self.state, self.power, order)?;
        let (s, p) = (self.scenario, self.power);
        match order {
            // 4.6: only the French player may opt to go first (11.8.2.3:
            // or the one power that took France's place as dominant power).
            Order::MoveFirst if !super::political::dominance::may_opt_first(&self.state, p) => Err(Illegal::Rule(
                super::political::dominance::move_first_refusal(&self.state),
            )),
            Order::BuyVp { .. }
            | Order::Gift { .. }
            | Order::Loan { .. }
            | Order::NpcAlliance { .. }
            | Order::Embargo { .. } => self.economy(order),
            Order::Build { .. } | Order::BuildSquadron { .. } => self.build(order),
            Order::OfferPeace { .. }
            | Order::Surrender { .. }
            | Order::SurrenderNpc { .. }
            | Order::ProposeAlliance { .. }
            | Order::BreakAlliance { .. } => self.diplomacy(order),
            // 11.1-11.7: the engine's own step on the projection, after
            // its own check, whose refusal keeps its code and argument
            Order::Political(o) => {
                super::political::check(s, &self.state, p, o).map_err(Illegal::Rule)?;
                let o = o.clone();
                self.run(|scenario, state, out| super::political::order(scenario, state, p, &o, "", out))
            }
            // 12.2.8.3, 12.2.8.4: the engine's own step on the projection
            Order::Naval(n) if n.in_build_phase() => {
                war::naval_option::refit::check(s, &self.state, p, n).map_err(Illegal::Rule)?;
                let n = n.clone();
                self.run(|scenario, state, out| war::naval_option::refit::order(scenario, state, p, &n, "", None, out))
            }
            Order::DeclareWar { on } => self.declare_war(*on),
            o if is_military(o) => self.military(o),
            _ => Ok(()),
        }
    }

    /// The orders that spend or pledge Gold: VP bought, gifts and loans,
    /// the NPC alliance roll and the Continental System.
    fn economy(&mut self, order: &Order) -> Verdict {
        let (s, p) = (self.scenario, self.power);
        match order {
            Order::BuyVp { gold } => {
                let per = s.tables.economy.gold_per_vp;
                if *gold < per {
                    return Err(Illegal::rule_at(
                        "4.25",
                        Arg::Number(*gold),
                        format!("{gold} Gold buys no VP ({per} Gold per VP)"),
                    ));
                }
                self.pay(i64::from(*gold))?;
                let gold = *gold;
                self.run(|scenario, state, out| economy::buy_vp(scenario, state, p, gold, "", out))
            }
            Order::Gift { to, gold } | Order::Loan { to, gold } => {
                self.pay(i64::from(*gold))?;
                let (to, gold, loan) = (*to, *gold, matches!(order, Order::Loan { .. }));
                self.run(|_, state, out| economy::gift(state, p, to, gold, loan, "", out))
            }
            Order::NpcAlliance { npc } => {
                if let Some(r) = diplomacy::npc_alliance_asker_refused(&self.state, p) {
                    return Err(Illegal::rule_of("4.4", &r));
                }
                if crate::rules::side::is_player_country(&self.state, *npc) {
                    return Err(Illegal::NotAnNpc { npc: *npc });
                }
                // The engine rolls on the table only without a deficit.
                let debt = self.state.power(p).debt;
                if debt > 0 {
                    return Err(Illegal::Deficit { payer: p, debt });
                }
                Ok(())
            }
            Order::Embargo { action } => {
                let action = *action;
                // 4.24: a refusal is the fault of the action written
                let at = |e: Illegal| match e {
                    Illegal::Rule(r) => Illegal::Rule(r.at(Arg::Embargo(action))),
                    e => e,
                };
                embargo_who(&self.state, p, action).map_err(at)?;
                self.run(|scenario, state, out| embargo::order(scenario, state, p, action, "", out))
                    .map_err(at)
            }
            _ => Ok(()),
        }
    }

    /// Peace, surrender and alliance orders (5.1, 5.12, 5.2).
    fn diplomacy(&mut self, order: &Order) -> Verdict {
        let (s, p) = (self.scenario, self.power);
        match order {
            Order::OfferPeace { to, .. } | Order::Surrender { to, .. } if !self.state.relations.at_war(p, *to) => {
                let rule = if matches!(order, Order::OfferPeace { .. }) {
                    "5.1"
                } else {
                    "5.12"
                };
                Err(Illegal::rule_at(
                    rule,
                    Arg::Power(*to),
                    format!("not at war with {}", to.name()),
                ))
            }
            Order::OfferPeace { to, .. } if let Some(r) = diplomacy::peace_with_npc_refused(&self.state, *to) => {
                Err(Illegal::rule_at("3.31", Arg::Power(*to), r))
            }
            // 11.9.1.1, 11.9.2.2 (EiA option political): terms the option forbids
            Order::OfferPeace { to, terms } => {
                match super::political::peace::terms_refused(self.scenario, &self.state, p, *to, terms) {
                    Some(r) => Err(Illegal::Rule(r)),
                    None => Ok(()),
                }
            }
            // 5.12: a surrender is deterministic; what it changes (peace,
            // terms paid, corps repatriated, 5.123) counts for the rest of
            // the set.
            Order::Surrender { to, terms } => {
                // 11.1.4, 11.4.4: a kingdom ceded only whole
                if let Some(r) = super::political::ceding::terms_refused(s, &self.state, p, &terms.provinces) {
                    return Err(Illegal::Rule(r));
                }
                let (to, terms) = (*to, terms.clone());
                self.run(|scenario, state, out| out.extend(war::surrender::surrender(scenario, state, p, to, &terms)))
            }
            // 5.122: its allied NPC, at war with the victor
            Order::SurrenderNpc { npc, to, terms } => {
                npc_surrender::may_surrender(&self.state, p, *npc, *to).map_err(Illegal::Rule)?;
                let (npc, to, terms) = (*npc, *to, terms.clone());
                self.run(|scenario, state, out| {
                    out.extend(npc_surrender::voluntary(scenario, state, p, npc, to, &terms, ""))
                })
            }
            Order::ProposeAlliance { to } if !crate::rules::side::is_player_country(&self.state, *to) => {
                Err(Illegal::rule_at(
                    "5.2",
                    Arg::Power(*to),
                    "NPCs are allied through the NPC Alliance Table (npc alliance)",
                ))
            }
            Order::ProposeAlliance { to }
                if let Some(r) = super::political::peace::alliance_barred(s, &self.state, p, *to) =>
            {
                Err(Illegal::Rule(r)) // 11.9.2.1
            }
            Order::ProposeAlliance { to } if self.state.relations.at_war(p, *to) => Err(Illegal::rule_at(
                "5.2",
                Arg::Power(*to),
                format!("at war with {}", to.name()),
            )),
            Order::BreakAlliance { with } => {
                if !self.state.relations.allied(p, *with) {
                    return Err(Illegal::rule_at(
                        "5.2",
                        Arg::Power(*with),
                        format!("not allied with {}", with.name()),
                    ));
                }
                self.state.relations.set_alliance(p, *with, false);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn declare_war(&mut self, on: PowerId) -> Verdict {
        let (p, state) = (self.power, &self.state);
        let why = if on == p {
            Some("a power cannot declare war on itself".to_string())
        } else if state.relations.at_war(p, on) {
            Some(format!("already at war with {}", on.name()))
        } else if state.relations.allied(p, on) {
            Some(format!("allied with {}: break the alliance first (5.2)", on.name()))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(Illegal::rule_at("5.3", Arg::Power(on), why));
        }
        if let Some(why) = diplomacy::war_on_side_refused(state, p, on) {
            return Err(Illegal::rule_at("3.31", Arg::Power(on), why));
        }
        if let Some(r) = war::surrender::declaration_barred(state, p, on) {
            return Err(Illegal::Rule(r.at(Arg::Power(on))));
        }
        // 5.3 comes before 5.4 and 5.5: the war counts for the rest of the
        // set (unless the Cancel Declaration die stops it at resolution).
        self.state.relations.set_war(p, on, true);
        diplomacy::refresh_npcs(&mut self.state, &mut Vec::new());
        Ok(())
    }

    fn build(&mut self, order: &Order) -> Verdict {
        // 3.31: a build of an Allied NPC its PC orders is the NPC's
        let s = self.scenario;
        let p = builds::builder(&self.state, self.power, order);
        let spent = self.spent.entry(p).or_default().clone();
        // What a pool and the treasury hold, for the typed reasons.
        match order {
            Order::Build { corps, items } => {
                for it in items {
                    let left = builds::pool_of(&self.state, &it.nation, Some(it.arm));
                    if left < it.count {
                        return Err(Illegal::PoolEmpty {
                            pool: crate::state::nation_adjective(s, &it.nation).to_string(),
                            what: format!("{} divisions", it.arm.short()),
                            left,
                            wanted: it.count,
                            item: Some(Arg::Division {
                                arm: it.arm,
                                nation: it.nation.clone(),
                            }),
                        });
                    }
                }
                if let Some(at) = self
                    .state
                    .corps(&corps.nation, corps.number)
                    .and_then(|c| c.location.clone())
                    && let Ok(list) = builds::list_cost(s, items)
                    && let Ok((cost, _, _)) = builds::price(s, &self.state, p, &at, list, &spent)
                {
                    // 11.x.2: a kingdom's treasury pays first for its units
                    let nations: Vec<&crate::ids::Nation> = items.iter().map(|i| &i.nation).collect();
                    let kingdom = super::political::treasury::paying(s, &self.state, p, &nations, Some(corps))
                        .map_or(0, |(_, g)| g);
                    self.pay_from(p, i64::from(cost) - kingdom.min(i64::from(cost)))?;
                }
            }
            Order::BuildSquadron { port, count, nation } => {
                // 11.2.2.2: a minor's squadron is a kingdom's fleet built again
                let nation = nation.clone().unwrap_or(crate::ids::Nation::Major(p));
                let left = builds::pool_of(&self.state, &nation, None);
                if left < *count {
                    return Err(Illegal::PoolEmpty {
                        pool: crate::state::nation_adjective(s, &nation).to_string(),
                        what: "squadrons".to_string(),
                        left,
                        wanted: *count,
                        item: Some(Arg::Number(*count)),
                    });
                }
                let list = s.costs(&nation).map_or(0, |c| c.squadron) * count;
                if let Ok((cost, _, _)) = builds::price(s, &self.state, p, port, list, &spent) {
                    // 11.x.2: a kingdom's treasury pays first for its units
                    let kingdom =
                        super::political::treasury::paying(s, &self.state, p, &[&nation], None).map_or(0, |(_, g)| g);
                    self.pay_from(p, i64::from(cost) - kingdom.min(i64::from(cost)))?;
                }
            }
            _ => {}
        }
        let before = self.state.clone();
        match builds::build(
            s,
            &mut self.state,
            p,
            order,
            self.spent.entry(p).or_default(),
            &mut Vec::new(),
        ) {
            Ok(_) => Ok(()),
            Err(r) => {
                self.state = before;
                Err(Illegal::Rule(r))
            }
        }
    }

    fn military(&mut self, order: &Order) -> Verdict {
        let (s, p) = (self.scenario, self.power);
        match order {
            Order::Move { corps, .. } => {
                if let Some(k) = corps.iter().find(|k| self.marched.contains(*k)) {
                    return Err(Illegal::AlreadyOrdered {
                        rule: "5.5",
                        unit: k.name(s),
                        key: k.clone(),
                    });
                }
            }
            Order::NavalMove { squadron, .. } if self.sailed.contains(squadron) => {
                return Err(Illegal::AlreadyOrdered {
                    rule: "5.4",
                    unit: squadron.name(s),
                    key: squadron.clone(),
                });
            }
            Order::Blockade { port, .. } => {
                // 5.4: a blockade closes an enemy's port.
                if let Some(owner) = economy::controller(s, &self.state, port)
                    && owner != p
                    && !self.state.relations.at_war(p, owner)
                {
                    return Err(Illegal::rule_at(
                        "5.4",
                        Arg::Province(port.clone()),
                        format!(
                            "{} is held by {}, with which {} is not at war",
                            s.map.province(port).map_or(port.as_str(), |x| x.name.as_str()),
                            owner.name(),
                            p.name()
                        ),
                    ));
                }
            }
            _ => {}
        }
        war::check_order(s, &self.state, p, order).map_err(Illegal::Rule)?;
        self.apply_military(order);
        Ok(())
    }

    /// Where units will be once an accepted move runs (unless a battle or
    /// an interception stops them at resolution).
    fn apply_military(&mut self, order: &Order) {
        match order {
            Order::Move { corps, commander, path } => {
                let Some(end) = path.last() else { return };
                for k in corps {
                    self.marched.insert(k.clone());
                    if let Some(c) = self.state.corps_mut(&k.nation, k.number) {
                        c.location = Some(end.clone());
                    }
                }
                if let Some(n) = commander
                    && let Some(cm) = self
                        .state
                        .commanders
                        .iter_mut()
                        .find(|c| c.name.eq_ignore_ascii_case(n))
                {
                    cm.location = Some(end.clone());
                }
            }
            Order::NavalMove {
                squadron,
                path,
                to_port,
                ..
            } => {
                self.sailed.insert(squadron.clone());
                let end = match (to_port, path.last()) {
                    (Some(port), _) => Location::Port(port.clone()),
                    (None, Some(sea)) => Location::Sea(sea.clone()),
                    (None, None) => return,
                };
                if let Some(sq) = self.state.squadron_mut(&squadron.nation, squadron.number) {
                    sq.location = end;
                }
            }
            _ => {}
        }
    }
}

/// 4.24: France declares and cancels the Continental System; the others
/// join and leave it (4.243).
fn embargo_who(state: &State, p: PowerId, action: EmbargoAction) -> Verdict {
    let france = p == PowerId::France;
    match action {
        EmbargoAction::Declare | EmbargoAction::Cancel if !france => Err(Illegal::rule_of(
            "4.24",
            "only France declares or cancels the Continental System",
        )),
        EmbargoAction::Join | EmbargoAction::Leave if france => Err(Illegal::rule_of(
            "4.24",
            "France declares or cancels the Continental System; it does not join or leave",
        )),
        EmbargoAction::Join | EmbargoAction::Leave | EmbargoAction::Cancel if !state.embargo.active => {
            Err(Illegal::rule_of("4.24", "the Continental System has not been declared"))
        }
        _ => Ok(()),
    }
}

fn is_military(order: &Order) -> bool {
    matches!(
        order,
        Order::NavalMove { .. }
            | Order::NavalAttack { .. }
            | Order::Blockade { .. }
            | Order::Naval(_)
            | Order::Move { .. }
            | Order::Besiege { .. }
            | Order::Garrison { .. }
            | Order::WithdrawGarrison { .. }
            | Order::Standing(_)
    )
}

/// Judge the whole order set of `power` for the open phase of `state`:
/// one verdict per order, in the order given. Other powers' orders never
/// make an order illegal (they decide outcomes, at resolution).
pub fn judge(scenario: &Scenario, state: &State, power: PowerId, orders: &[&Order]) -> Vec<Verdict> {
    let mut projection = Projection::new(scenario, state, power);
    let winter = state.phase.step == Step::Winter;
    let key = |o: &Order| stage(o, winter);
    let mut by_stage: Vec<usize> = (0..orders.len()).collect();
    by_stage.sort_by_key(|&i| key(orders[i]));
    let mut verdicts: Vec<Verdict> = vec![Ok(()); orders.len()];
    let mut economy_done = !winter;
    for i in by_stage {
        if !economy_done && key(orders[i]) > 1 {
            projection.winter_economy();
            economy_done = true;
        }
        verdicts[i] = projection.judge(orders[i]);
    }
    verdicts
}

/// Judge one order as the only order of its power's set (order
/// generators try candidates one at a time this way).
pub fn judge_one(scenario: &Scenario, state: &State, power: PowerId, order: &Order) -> Verdict {
    judge(scenario, state, power, &[order]).remove(0)
}
