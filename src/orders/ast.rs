//! Orders after name resolution: the contract between the parser and the
//! rules engine. Every id here has been checked against the map and the
//! state; the rules engine never sees order text.

use crate::diagnostic::Span;
use crate::ids::{Nation, PhaseId, PowerId};
use crate::scenario::Arm;
use crate::state::UnitKey;
use serde::{Deserialize, Serialize};

/// The header lines of an order file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub game: Option<String>,
    pub power: Option<PowerId>,
    pub password: Option<String>,
    pub phase: Option<PhaseId>,
    pub entropy: Option<String>,
    /// A `NO ORDERS` (or `PASS`) line: the power means to do nothing
    /// this phase, which is a submission (it counts as in).
    #[serde(default)]
    pub no_orders: bool,
    /// READY / WAIT lines (orders/README.md, "Ready and wait"): no
    /// order, a word on the early close, with the line it stood on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readiness: Option<(Readiness, usize)>,
    /// A TIMEZONE line (orders/README.md, "Your time zone"): no order,
    /// the zone the player reads deadlines in, as its IANA name, with the
    /// line it stood on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<(String, usize)>,
}

/// `READY`: my orders are final, do not wait for me. `WAIT`: do not close
/// the phase early on my account. Kept per power for the open phase
/// (`store::clock::Schedule`), honoured by `schedule::with_readiness`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Readiness {
    Ready,
    Wait,
}

impl Readiness {
    /// As written in an order mail.
    pub fn word(self) -> &'static str {
        match self {
            Readiness::Ready => "READY",
            Readiness::Wait => "WAIT",
        }
    }
}

/// Continental System actions (4.24, 4.243, 4.256).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EmbargoAction {
    Declare,
    Join,
    Leave,
    Cancel,
}

/// Terms offered with a peace (5.1) or a surrender (5.12).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Terms {
    /// Gold paid by the power that makes peace or surrenders.
    #[serde(default)]
    pub gold: u32,
    /// VP transferred to the other side.
    #[serde(default)]
    pub vp: u32,
    /// Provinces ceded (the receiver garrisons them).
    #[serde(default)]
    pub provinces: Vec<String>,
    /// 11.9.2.2 peace condition C.6 (EiA option `political`): leaders of
    /// the power making peace removed from the game.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove_leaders: Vec<String>,
    /// 11.9.2.2 condition C.1.c: squadrons of the power making peace
    /// removed to its force pool.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub remove_squadrons: u32,
    /// 11.9.2.2 condition C.5: the other side's forces get access to the
    /// provinces of the power making peace.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub access: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// When a standing combat choice applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Situation {
    Attacking,
    Defending,
    Any,
}

/// Orders of the EiA naval option (seed 003, 12.2.x; `--option naval`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "naval", rename_all = "snake_case")]
pub enum NavalOrder {
    /// 12.2.6.2 / 12.2.9.2: a squadron in a blockaded port attacks the
    /// blockaders (a blockade battle); it covers SAILs from the same port.
    Sortie { squadron: UnitKey },
    /// 12.2.6.3: a squadron at sea raids the enemy ships and hulks in a
    /// port its zone borders.
    Raid { squadron: UnitKey, port: String },
    /// 12.2.8.3: refit `count` of the power's hulks in a port (Build Phase).
    Refit { port: String, count: u32 },
    /// 12.2.8.4: put `ships` ships of a squadron in port "in ordinary"
    /// (hulks; Build Phase).
    Convert { squadron: UnitKey, ships: u32 },
    /// 12.2.8.4: put `ships` of the ships built this phase in ordinary:
    /// hulks "placed in a port in the ship's home country" (Build Phase).
    ConvertNew { port: String, ships: u32 },
}

impl NavalOrder {
    pub fn kind(&self) -> &'static str {
        match self {
            NavalOrder::Sortie { .. } => "sortie",
            NavalOrder::Raid { .. } => "raid",
            NavalOrder::Refit { .. } => "refit",
            // one verb, CONVERT, for ships of a squadron or new ships
            NavalOrder::Convert { .. } | NavalOrder::ConvertNew { .. } => "convert",
        }
    }

    /// Given in the Mutual Build Phase (12.2.8.3, 12.2.8.4), not in a
    /// Naval Phase.
    pub fn in_build_phase(&self) -> bool {
        matches!(
            self,
            NavalOrder::Refit { .. } | NavalOrder::Convert { .. } | NavalOrder::ConvertNew { .. }
        )
    }
}

/// Orders of the EiA political option (seed 004, 11.1–11.7;
/// `--option political`), given in the New Political Combinations Step
/// of the Winterphase. A kingdom is named by its id in
/// `tables/political.toml` (`poland`, `italy`, `westphalia`, `bavaria`,
/// `rhine`, `ottoman`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "political", rename_all = "snake_case")]
pub enum PoliticalOrder {
    /// 11.x.1: declare a kingdom; for Poland the announced provinces
    /// (11.1.1.1; empty: every Polish province the creator controls).
    Create {
        kingdom: String,
        #[serde(default)]
        provinces: Vec<String>,
    },
    /// 11.1.1.1: add controlled Polish provinces to Poland.
    Add { kingdom: String, provinces: Vec<String> },
    /// 11.1.4, 11.4.4: cede a kingdom whole to another major power
    /// (it takes effect only if the receiver answers with [`Accept`] in
    /// the same step).
    ///
    /// [`Accept`]: PoliticalOrder::Accept
    Cede { kingdom: String, to: PowerId },
    /// 11.1.4, 11.4.4: the receiver's answer to a `CEDE`: accept the
    /// kingdom `from` cedes to it in this step.
    Accept { kingdom: String, from: PowerId },
    /// The receiver's refusal of a `CEDE` (no answer refuses too).
    Refuse { kingdom: String, from: PowerId },
    /// 11.1.4 (8.8.5): turn a Poland received by cession into conquered
    /// territory.
    Dissolve { kingdom: String },
    /// 11.8.2.5: the leader to improve should the power become dominant
    /// in this New Political Combinations Step.
    Improve { leader: String },
}

impl PoliticalOrder {
    pub fn kind(&self) -> &'static str {
        match self {
            PoliticalOrder::Create { .. } => "create-kingdom",
            PoliticalOrder::Add { .. } => "add-to-kingdom",
            PoliticalOrder::Cede { .. } => "cede-kingdom",
            PoliticalOrder::Accept { .. } => "accept-kingdom",
            PoliticalOrder::Refuse { .. } => "refuse-kingdom",
            PoliticalOrder::Dissolve { .. } => "dissolve-kingdom",
            PoliticalOrder::Improve { .. } => "improve-leader",
        }
    }
}

/// Standing orders (persist until replaced; answer the questions a battle
/// or interception asks of a power that is not at the keyboard).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "standing", rename_all = "snake_case")]
pub enum Standing {
    /// Intercept enemy squadrons passing a zone next to ours (5.4).
    Intercept { enabled: bool },
    /// Combat option to choose in a situation (5.6); the engine takes the
    /// best legal option at or below the leader's rating column.
    CombatOption { situation: Situation, option: String },
    /// Withdraw before battle when outnumbered by more than `ratio`:1
    /// (`None` = always stand).
    Withdraw { ratio: Option<u32> },
    /// Preferred retreat destinations, best first.
    Retreat { provinces: Vec<String> },
    /// 12.2.6.1.1 (EiA naval option): the naval tactical chit to select
    /// in a situation (`ANY`: the power's default).
    NavalTactic {
        situation: Situation,
        chit: crate::scenario::tables_naval::Chit,
    },
    /// 12.2.6.1.4.2: what Nelson takes off his closing roll (0, 1 or 2).
    NelsonClosing { minus: u8 },
    /// 12.2.6.1.7: the victor declares the general chase, or not.
    NavalChase { on: bool },
    /// 12.2.6.1.8: what a fleet does after a victory (`victory`) or after
    /// a battle with no victor.
    NavalAfter {
        victory: bool,
        then: crate::state::naval_standing::AfterBattle,
    },
    /// 12.2.7.3: an attacked fleet off the board tries to evade, or not.
    NavalEvade { on: bool },
    /// 12.2.6.1.9.1: the ports for disabled ships, best first (empty: the
    /// nearest).
    DisabledTo { ports: Vec<String> },
    /// 12.2.9.3, 12.2.6.3.1 (EiA 6.3.1.3): grant or deny a power access
    /// to this power's ports.
    PortAccess { to: PowerId, open: bool },
    /// Reset every standing order of this power to the defaults.
    Clear,
}

/// One division to build: arm, nation (a minor's divisions, 3.44) and
/// how many.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildItem {
    pub count: u32,
    pub arm: Arm,
    pub nation: Nation,
}

/// A resolved order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "order", rename_all = "snake_case")]
pub enum Order {
    // Country bid (3.1)
    Bid {
        vp: u32,
        preferences: Vec<PowerId>,
    },

    // Turn Start (4.6)
    /// 4.61: move together with an ally this season.
    Cooperate {
        with: PowerId,
    },
    /// 4.6: France opts to move first.
    MoveFirst,

    // House rule 'draws' (rules::draw), any phase
    /// A vote for a draw; it stands until NODRAW.
    Draw,
    /// The power's vote for a draw withdrawn.
    NoDraw,

    // Player Turn political steps (5.1–5.3, 4.71, 4.24, 4.212)
    OfferPeace {
        to: PowerId,
        terms: Terms,
    },
    AcceptPeace {
        from: PowerId,
    },
    RejectPeace {
        from: PowerId,
    },
    Surrender {
        to: PowerId,
        terms: Terms,
    },
    /// 5.122: a Player Country surrenders its allied NPC.
    SurrenderNpc {
        npc: PowerId,
        to: PowerId,
        terms: Terms,
    },
    ProposeAlliance {
        to: PowerId,
    },
    AcceptAlliance {
        from: PowerId,
    },
    BreakAlliance {
        with: PowerId,
    },
    DeclareWar {
        on: PowerId,
    },
    /// 4.71 / 4.4: try to ally an NPC.
    NpcAlliance {
        npc: PowerId,
    },
    Embargo {
        action: EmbargoAction,
    },
    Gift {
        to: PowerId,
        gold: u32,
    },
    Loan {
        to: PowerId,
        gold: u32,
    },

    // Naval phase (5.4)
    /// Move a squadron along sea zones, carrying corps; a path ending in a
    /// port province enters that port.
    NavalMove {
        squadron: UnitKey,
        path: Vec<String>,
        carrying: Vec<UnitKey>,
        to_port: Option<String>,
    },
    /// Attack enemy squadrons in a sea zone.
    NavalAttack {
        squadron: UnitKey,
        sea: String,
    },
    /// Blockade the port of a province from its sea zone.
    Blockade {
        squadron: UnitKey,
        port: String,
    },
    /// Orders of the EiA naval option (12.2.x).
    Naval(NavalOrder),

    /// Orders of the EiA political option (11.1–11.7).
    Political(PoliticalOrder),

    // Land phase (5.5)
    /// Move a stack of corps (with the commander standing with them, if
    /// named) along a path of provinces.
    Move {
        corps: Vec<UnitKey>,
        commander: Option<String>,
        path: Vec<String>,
    },
    /// Besiege (attack the garrison of) the province the corps stand in.
    Besiege {
        corps: Vec<UnitKey>,
        province: String,
    },
    /// Leave an infantry division of a corps as garrison.
    Garrison {
        corps: UnitKey,
        province: String,
    },
    /// Take a garrison division back into a corps in the same province.
    WithdrawGarrison {
        province: String,
        corps: UnitKey,
    },

    // Mutual Build phase (6.0)
    Build {
        corps: UnitKey,
        items: Vec<BuildItem>,
    },
    BuildSquadron {
        port: String,
        count: u32,
        /// Whose squadron: the builder's own when absent; an Allied NPC's
        /// for its Allied PC (`BUILD SPANISH SQUADRON IN Andalusia`, 3.31);
        /// a minor's (`BUILD ITALIAN SQUADRON IN Venetia`) only to build a
        /// kingdom's sunk fleet counter again (11.2.2, 11.2.2.2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nation: Option<Nation>,
    },

    // Winterphase (4.25)
    BuyVp {
        gold: u32,
    },

    Standing(Standing),
}

impl Order {
    /// A short name of the order kind, for messages and the order
    /// reference (`move`, `declare-war`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Order::Bid { .. } => "bid",
            Order::Cooperate { .. } => "cooperate",
            Order::MoveFirst => "move-first",
            Order::Draw => "draw",
            Order::NoDraw => "nodraw",
            Order::OfferPeace { .. } => "offer-peace",
            Order::AcceptPeace { .. } => "accept-peace",
            Order::RejectPeace { .. } => "reject-peace",
            Order::Surrender { .. } => "surrender",
            // 5.122: one order word, for the power itself or its allied NPC
            Order::SurrenderNpc { .. } => "surrender",
            Order::ProposeAlliance { .. } => "propose-alliance",
            Order::AcceptAlliance { .. } => "accept-alliance",
            Order::BreakAlliance { .. } => "break-alliance",
            Order::DeclareWar { .. } => "declare-war",
            Order::NpcAlliance { .. } => "npc-alliance",
            Order::Embargo { .. } => "embargo",
            Order::Gift { .. } => "gift",
            Order::Loan { .. } => "loan",
            Order::NavalMove { .. } => "naval-move",
            Order::NavalAttack { .. } => "naval-attack",
            Order::Blockade { .. } => "blockade",
            Order::Naval(n) => n.kind(),
            Order::Political(o) => o.kind(),
            Order::Move { .. } => "move",
            Order::Besiege { .. } => "besiege",
            Order::Garrison { .. } => "garrison",
            Order::WithdrawGarrison { .. } => "withdraw-garrison",
            Order::Build { .. } => "build",
            Order::BuildSquadron { .. } => "build-squadron",
            Order::BuyVp { .. } => "buy-vp",
            Order::Standing(_) => "standing",
        }
    }
}

/// An order with where it came from and its normalised text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderLine {
    pub order: Order,
    /// The canonical one-line form echoed in acknowledgements and reports.
    pub text: String,
    pub span: Span,
}

/// One argument an order names, by what it names: the unit, province,
/// sea zone, power, commander or number. A refusal that concerns one
/// argument names it this way ([`crate::rules::Rejection::at`]), and the
/// order checker finds where the line wrote it ([`Args`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Unit(UnitKey),
    /// A province, by its map id.
    Province(String),
    /// A sea zone (or an area off the board), by its map id.
    Sea(String),
    Power(PowerId),
    /// A commander, by his name in the state.
    Commander(String),
    /// An amount of Gold, VP, ships or squadrons.
    Number(u32),
    /// The nation written before an arm in a BUILD (`1 Bavarian inf`).
    Nation(Nation),
    /// One item of a BUILD (`2 inf`, `1 Bavarian inf`), by its arm and
    /// nation.
    Division {
        arm: Arm,
        nation: Nation,
    },
    /// A Continental System order's action, by the word that writes it
    /// (`JOIN` in `JOIN CONTINENTAL SYSTEM`).
    Embargo(EmbargoAction),
}

/// Where a parsed line wrote each of its arguments, in the order written.
/// The parser keeps them beside the [`OrderLine`] it produces; the rules
/// engine never sees them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Args(pub Vec<(Arg, Span)>);

impl Args {
    pub fn push(&mut self, arg: Arg, span: Span) {
        self.0.push((arg, span));
    }

    /// Where `arg` is written first on the line, if it is.
    pub fn span_of(&self, arg: &Arg) -> Option<Span> {
        self.0.iter().find(|(a, _)| a == arg).map(|(_, s)| *s)
    }

    /// Where `arg` is written with `later` more writings of it after
    /// (see [`crate::rules::Rejection::later`]); `None`: the first.
    pub fn span_of_writing(&self, arg: &Arg, later: Option<usize>) -> Option<Span> {
        match later {
            None => self.span_of(arg),
            Some(n) => self.0.iter().rev().filter(|(a, _)| a == arg).nth(n).map(|(_, s)| *s),
        }
    }
}
