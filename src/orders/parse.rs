//! The parser: tokens of one order line into a resolved [`Order`].
//!
//! Recursive descent over the tokens of a line. Names are resolved as they
//! are read (provinces and seas through the map, units and commanders
//! through the state), because only then can a span point at the exact
//! word that is wrong. Whether the state lets the order be carried out
//! (the phase, whose unit, where a stack or its commander stands, whether
//! a path joins the unit's position, whose garrison, a corps' free boxes,
//! who holds a port or a minor, payment) is not the parser's: `rules::legality` judges the whole
//! set, for the checker and the engine alike. A syntax error ends the line; a
//! name error is recorded and parsing goes on, so one line can report
//! several bad names.

use super::ast::{Arg, Args, BuildItem, EmbargoAction, Order, Situation, Standing, Terms};
use super::lexer::{Tok, Token, roman};
use crate::diagnostic::Problem;
use crate::diagnostic::{Diagnostic, Span, or_list, suggest};
use crate::ids::{Nation, PowerId};
use crate::map::{NameError, Province, Sea, normalise};
use crate::scenario::{Arm, Scenario};
use crate::state::{Location, State, UnitKey, UnitKind};

/// Order words of the EiA naval option.
mod naval;
/// Peace conditions of the EiA political option (11.9.2.2).
mod peace_conditions;
/// Order words of the EiA political option.
mod political;
/// 5.122: a Player Country surrenders its allied NPC.
mod surrender;
/// What the parser needs to resolve names.
pub struct Ctx<'a> {
    pub scenario: &'a Scenario,
    pub state: &'a State,
    /// The power giving the orders.
    pub power: PowerId,
}

/// Every order keyword, for "did you mean" on an unknown first word.
pub const KEYWORDS: &[&str] = &[
    "draw",
    "nodraw",
    "accept",
    "ally",
    "attack",
    "besiege",
    "bid",
    "blockade",
    "add",
    "break",
    "build",
    "buy",
    "cancel",
    "cede",
    "continental",
    "convert",
    "cooperate",
    "create",
    "declare",
    "dissolve",
    "embargo",
    "gift",
    "garrison",
    "improve",
    "join",
    "leave",
    "loan",
    "move",
    "npc",
    "offer",
    "propose",
    "raid",
    "refit",
    "reject",
    "sail",
    "sortie",
    "standing",
    "surrender",
    "withdraw",
];

/// Words that end a name (a province, sea, power or commander).
const STOP: &[&str] = &[
    "to",
    "then",
    "via",
    "with",
    "carrying",
    "transporting",
    "into",
    "and",
    "in",
    "at",
    "from",
    "gold",
    "vp",
    "cede",
    "ceding",
    // 11.9.2.2 peace conditions
    "remove",
    "access",
];

type PResult<T> = Result<T, Diagnostic>;

/// A cursor over the tokens of one line.
pub struct Cur<'t, 'a> {
    toks: &'t [Token<'a>],
    pos: usize,
    /// The whole order, for errors about it as a whole.
    pub line_span: Span,
}

impl<'t, 'a> Cur<'t, 'a> {
    pub fn new(toks: &'t [Token<'a>]) -> Self {
        let line_span = match (toks.first(), toks.last()) {
            (Some(f), Some(l)) => Span::new(f.span.line, f.span.col, l.span.col + l.span.len - f.span.col),
            _ => Span::default(),
        };
        Cur {
            toks,
            pos: 0,
            line_span,
        }
    }
    fn peek(&self) -> Option<&Token<'a>> {
        self.toks.get(self.pos)
    }
    fn peek_at(&self, k: usize) -> Option<&Token<'a>> {
        self.toks.get(self.pos + k)
    }
    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
    /// Where the token just read is written.
    fn prev_span(&self) -> Span {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map_or(self.line_span, |t| t.span)
    }
    fn next(&mut self) -> Option<Token<'a>> {
        let t = self.toks.get(self.pos).copied();
        if t.is_some() {
            self.pos += 1;
        }
        t
    }
    fn is(&self, kw: &str) -> bool {
        self.peek().is_some_and(|t| t.is(kw))
    }
    fn eat(&mut self, kw: &str) -> bool {
        if self.is(kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_any(&mut self, kws: &[&str]) -> bool {
        kws.iter().any(|k| self.eat(k))
    }
    fn eat_colon(&mut self) {
        if self.peek().is_some_and(|t| t.kind == Tok::Colon) {
            self.pos += 1;
        }
    }
    /// Skip an arrow, comma, colon or `to`.
    fn eat_sep(&mut self) -> bool {
        if self.peek().is_some_and(|t| t.is_sep()) || self.is("to") || self.is("then") {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    /// Where the next token is, or just past the last one.
    fn here(&self) -> Span {
        match self.peek() {
            Some(t) => t.span,
            None => match self.toks.last() {
                Some(l) => l.span,
                None => self.line_span,
            },
        }
    }
    fn expect(&mut self, kw: &str, what: &str) -> PResult<()> {
        if self.eat(kw) { Ok(()) } else { Err(self.expected(what)) }
    }
    fn expected(&self, what: &str) -> Diagnostic {
        match self.peek() {
            Some(t) => Diagnostic::error(Problem::Syntax, format!("expected {what}, found '{}'", t.text), t.span),
            None => Diagnostic::error(
                Problem::Syntax,
                format!("expected {what} at the end of the order"),
                self.here(),
            ),
        }
    }
    fn number(&mut self, what: &str) -> PResult<(u32, Span)> {
        match self.peek().copied() {
            Some(Token {
                kind: Tok::Number(Some(n)),
                span,
                ..
            }) => {
                self.pos += 1;
                Ok((n, span))
            }
            Some(Token {
                kind: Tok::Number(None),
                span,
                ..
            }) => Err(Diagnostic::error(
                Problem::NumberTooLarge,
                "this number is too large",
                span,
            )),
            _ => Err(self.expected(what)),
        }
    }
    /// Words up to a separator or a stop word: a name. `None` if there is
    /// no word here.
    fn name(&mut self) -> Option<(String, Span)> {
        // A leading article is not part of the name (`the Channel`).
        if self.is("the") && self.peek_at(1).is_some_and(|t| t.kind == Tok::Word) {
            self.pos += 1;
        }
        let start = self.pos;
        while let Some(t) = self.peek() {
            let wordish = t.kind == Tok::Word;
            if !wordish || (self.pos > start && STOP.iter().any(|s| t.is(s))) {
                break;
            }
            if self.pos == start && STOP.iter().any(|s| t.is(s)) {
                break;
            }
            self.pos += 1;
        }
        if self.pos == start {
            return None;
        }
        let toks = &self.toks[start..self.pos];
        let text = toks.iter().map(|t| t.text).collect::<Vec<_>>().join(" ");
        Some((text, join(toks[0].span, toks[toks.len() - 1].span)))
    }
    /// Every word from here to the end of the line, as one name.
    fn rest_of_words(&mut self) -> Option<(String, Span)> {
        let start = self.pos;
        while self.peek().is_some_and(|t| t.kind == Tok::Word) {
            self.pos += 1;
        }
        if self.pos == start {
            return None;
        }
        let toks = &self.toks[start..self.pos];
        let text = toks.iter().map(|t| t.text).collect::<Vec<_>>().join(" ");
        Some((text, join(toks[0].span, toks[toks.len() - 1].span)))
    }
    fn finish(&self) -> PResult<()> {
        match self.peek() {
            None => Ok(()),
            Some(t) => Err(Diagnostic::error(
                Problem::Syntax,
                format!("unexpected '{}' after the end of the order", t.text),
                join(t.span, self.toks[self.toks.len() - 1].span),
            )),
        }
    }
}

/// The span from the start of `a` to the end of `b` (same line).
fn join(a: Span, b: Span) -> Span {
    if a.line != b.line || b.col + b.len < a.col {
        return a;
    }
    Span::new(a.line, a.col, b.col + b.len - a.col)
}

const CORPS_WORDS: &[&str] = &["corps", "corp", "army"];
const SQUADRON_WORDS: &[&str] = &["squadron", "squadrons", "sqn", "sq", "fleet"];

fn unit_number(t: &Token<'_>) -> Option<u32> {
    match t.kind {
        Tok::Number(n) => n,
        Tok::Word => {
            let w = t.text.to_ascii_lowercase();
            for suf in ["st", "nd", "rd", "th"] {
                if let Some(d) = w.strip_suffix(suf)
                    && !d.is_empty()
                    && d.bytes().all(|b| b.is_ascii_digit())
                {
                    return d.parse().ok();
                }
            }
            roman(t.text)
        }
        _ => None,
    }
}

fn kind_of(t: &Token<'_>) -> Option<UnitKind> {
    if CORPS_WORDS.iter().any(|w| t.is(w)) {
        Some(UnitKind::Corps)
    } else if SQUADRON_WORDS.iter().any(|w| t.is(w)) {
        Some(UnitKind::Squadron)
    } else {
        None
    }
}

/// `ON` or `OFF` (and their synonyms) of a standing order.
fn on_off(cur: &mut Cur<'_, '_>) -> PResult<bool> {
    match cur.next() {
        Some(t) if t.is("on") || t.is("yes") || t.is("always") => Ok(true),
        Some(t) if t.is("off") || t.is("no") || t.is("never") => Ok(false),
        _ => Err(Diagnostic::error(Problem::Syntax, "expected ON or OFF", cur.here())),
    }
}

/// `[WHEN] ATTACKING|DEFENDING|ANY` of a standing combat choice (a land
/// combat option, a naval tactical chit): when it applies. `ANY` may be
/// written `ALWAYS` or `DEFAULT`.
fn situation(cur: &mut Cur<'_, '_>) -> PResult<Situation> {
    cur.eat_any(&["when", "if"]);
    let s = match cur.next() {
        Some(t) if t.is("attacking") || t.is("attack") => Situation::Attacking,
        Some(t) if t.is("defending") || t.is("defend") => Situation::Defending,
        Some(t) if t.is("any") || t.is("always") || t.is("default") => Situation::Any,
        _ => {
            return Err(Diagnostic::error(
                Problem::Syntax,
                "expected ATTACKING, DEFENDING or ANY",
                cur.here(),
            ));
        }
    };
    cur.eat_sep();
    Ok(s)
}

/// The error for a line whose first word starts no order, with the
/// closest keyword as help.
fn unknown(kw: &str, first: &Token<'_>) -> Diagnostic {
    let close = suggest(kw, KEYWORDS.iter().copied());
    let d = Diagnostic::error(
        Problem::UnknownOrder,
        format!("'{}' does not start an order", first.text),
        first.span,
    );
    match close.first() {
        Some(k) => d.with_help(format!("did you mean {}?", k.to_uppercase())),
        None => d.with_help("orders start with a word such as MOVE, SAIL, BUILD, DECLARE, OFFER; see orders/README.md"),
    }
}

/// The parser of one line, with the diagnostics it found and where the
/// line wrote each name and amount it resolved.
pub struct LineParser<'c, 'a> {
    pub ctx: &'c Ctx<'a>,
    pub errs: Vec<Diagnostic>,
    pub args: Args,
}

impl<'c, 'a> LineParser<'c, 'a> {
    pub fn new(ctx: &'c Ctx<'a>) -> Self {
        LineParser {
            ctx,
            errs: Vec::new(),
            args: Args::default(),
        }
    }

    /// A number the order gives (Gold, VP, ships), kept as an argument.
    pub(super) fn amount(&mut self, cur: &mut Cur<'_, '_>, what: &str) -> PResult<u32> {
        let (n, span) = cur.number(what)?;
        self.args.push(Arg::Number(n), span);
        Ok(n)
    }

    /// Parse one order line; `None` if it has an error (recorded).
    pub fn order(&mut self, toks: &[Token<'_>]) -> Option<Order> {
        let mut cur = Cur::new(toks);
        match self.dispatch(&mut cur) {
            Ok(o) => {
                if let Err(e) = cur.finish() {
                    self.errs.push(e);
                }
                if self.errs.iter().any(Diagnostic::is_error) {
                    None
                } else {
                    Some(o)
                }
            }
            Err(e) => {
                self.errs.push(e);
                None
            }
        }
    }

    /// One method per order keyword: the first word picks it.
    fn dispatch(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let Some(first) = cur.next() else {
            return Err(Diagnostic::error(Problem::Syntax, "empty order", cur.line_span));
        };
        let kw = first.text.to_ascii_lowercase();
        match kw.as_str() {
            "bid" => self.bid(cur),
            "cooperate" | "co-operate" => self.cooperate(cur),
            "move" | "march" if cur.is("first") && cur.peek_at(1).is_none() => self.move_first(cur),
            // House rule 'draws' (rules::draw): a word alone.
            "draw" if cur.at_end() => Ok(Order::Draw),
            "nodraw" if cur.at_end() => Ok(Order::NoDraw),
            "move" | "march" | "sail" => self.movement(cur, &kw),
            "attack" => self.attack(cur),
            "blockade" => self.blockade(cur),
            "sortie" => self.sortie(cur),             // 12.2.9.2 (parse/naval.rs)
            "raid" => self.raid(cur),                 // 12.2.6.3
            "refit" => self.refit(cur),               // 12.2.8.3
            "convert" => self.convert(cur),           // 12.2.8.4
            "create" => self.create_kingdom(cur),     // 11.x.1 (parse/political.rs)
            "add" => self.add_to_kingdom(cur),        // 11.1.1.1
            "cede" => self.cede_kingdom(cur),         // 11.1.4, 11.4.4
            "dissolve" => self.dissolve_kingdom(cur), // 11.1.4
            "improve" => self.improve_leader(cur),    // 11.8.2.5
            "besiege" | "siege" => self.besiege(cur),
            "garrison" => self.garrison(cur),
            "withdraw" => self.withdraw(cur),
            "offer" => self.offer(cur),
            "accept" => self.accept(cur),
            "reject" | "refuse" => self.reject(cur),
            "surrender" => self.surrender(cur),
            "propose" => self.propose(cur),
            "break" => self.break_alliance(cur),
            "declare" => self.declare(cur),
            "join" | "leave" | "cancel" => self.embargo_verb(cur, &kw),
            "continental" | "embargo" => self.embargo(cur, &kw),
            "ally" | "npc" => self.npc_alliance(cur, &kw),
            "gift" | "give" | "loan" | "lend" => self.gift(cur, &kw),
            "buy" => self.buy(cur),
            "build" => self.build(cur),
            "standing" | "always" => self.standing(cur),
            _ => Err(unknown(&kw, &first)),
        }
    }

    /// COOPERATE WITH <power>
    fn cooperate(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        cur.eat("with");
        let (with, _) = self.power_arg(cur)?;
        Ok(Order::Cooperate { with })
    }

    /// MOVE FIRST: France opts to take the first Player Turn (4.6)
    fn move_first(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        cur.next();
        Ok(Order::MoveFirst)
    }

    /// MOVE, MARCH, SAIL: a land or naval move, by the units named
    fn movement(&mut self, cur: &mut Cur<'_, '_>, kw: &str) -> PResult<Order> {
        let units = self.units(cur)?;
        if units.first().is_some_and(|u| u.0.kind == UnitKind::Squadron) || kw == "sail" {
            self.naval_move(cur, units)
        } else {
            self.land_move(cur, units)
        }
    }

    /// ATTACK: a naval attack by a squadron, else a land move
    fn attack(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let units = self.units(cur)?;
        if units.first().is_some_and(|u| u.0.kind == UnitKind::Squadron) {
            let squadron = self.one_squadron(&units)?;
            cur.eat_any(&["in", "at"]);
            let sea = self.sea_arg(cur)?;
            Ok(Order::NavalAttack { squadron, sea })
        } else {
            self.land_move(cur, units)
        }
    }

    /// BLOCKADE <squadron> [PORT OF] <province>
    fn blockade(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let units = self.units(cur)?;
        let squadron = self.one_squadron(&units)?;
        let port = self.port_arg(cur, "blockade")?;
        Ok(Order::Blockade { squadron, port })
    }

    /// `[IN|AT|ON|OF] [PORT] [OF] <province>`, which must have a port
    /// (5.4, 12.2.6.3, 12.2.8.3); a province without one is reported
    /// ("no port to <verb>") and parsing goes on.
    pub(super) fn port_arg(&mut self, cur: &mut Cur<'_, '_>, verb: &str) -> PResult<String> {
        cur.eat_any(&["in", "at", "on", "of"]);
        cur.eat("port");
        cur.eat("of");
        let (p, span) = self.province_arg(cur)?;
        if !p.port {
            self.errs.push(Diagnostic::error(
                Problem::NotAPort,
                format!("{} has no port to {verb}", p.name),
                span,
            ));
        }
        Ok(p.id.clone())
    }

    /// BESIEGE <corps...> [IN <province>]
    fn besiege(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let units = self.units(cur)?;
        let corps = self.all_corps(&units)?;
        // Where the corps stand when the siege runs (after this
        // set's moves) is the legality gate's to judge, not the
        // start-of-phase state's.
        let province = if cur.eat_any(&["in", "at"]) || !cur.at_end() {
            self.province_arg(cur)?.0.id.clone()
        } else {
            self.stack_location(&units).unwrap_or_default()
        };
        Ok(Order::Besiege { corps, province })
    }

    /// GARRISON <corps> [IN <province>]
    fn garrison(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let units = self.units(cur)?;
        let corps = self.one_corps(&units)?;
        // As for BESIEGE: the legality gate judges where the corps
        // stands after this set's moves.
        let province = if cur.eat_any(&["in", "at"]) || !cur.at_end() {
            self.province_arg(cur)?.0.id.clone()
        } else {
            self.stack_location(&units).unwrap_or_default()
        };
        Ok(Order::Garrison { corps, province })
    }

    /// WITHDRAW GARRISON FROM <province> INTO <corps>
    fn withdraw(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        cur.expect(
            "garrison",
            "'garrison' (WITHDRAW GARRISON FROM <province> INTO <corps>)",
        )?;
        cur.eat_any(&["from", "in", "at", "of"]);
        let (p, _) = self.province_arg(cur)?;
        if !(cur.eat_any(&["into", "to", "in"]) || cur.eat_sep()) {
            return Err(cur.expected("'into' and a corps"));
        }
        let units = self.units(cur)?;
        let corps = self.one_corps(&units)?;
        Ok(Order::WithdrawGarrison {
            province: p.id.clone(),
            corps,
        })
    }

    /// OFFER PEACE TO <power> [terms]
    fn offer(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        cur.expect("peace", "'peace' (OFFER PEACE TO <power>)")?;
        cur.eat("to");
        let (to, _) = self.power_arg(cur)?;
        let terms = self.terms(cur)?;
        Ok(Order::OfferPeace { to, terms })
    }

    /// ACCEPT PEACE FROM <power> | ACCEPT ALLIANCE FROM <power>
    fn accept(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        if cur.eat("peace") {
            cur.eat_any(&["from", "with", "of"]);
            let (from, _) = self.power_arg(cur)?;
            Ok(Order::AcceptPeace { from })
        } else if cur.eat("alliance") {
            cur.eat_any(&["from", "with", "of"]);
            let (from, _) = self.power_arg(cur)?;
            Ok(Order::AcceptAlliance { from })
        } else {
            // 11.1.4, 11.4.4: ACCEPT <kingdom> FROM <power>
            self.answer_kingdom(cur, true)
        }
    }

    /// REJECT PEACE FROM <power>
    fn reject(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        if !cur.is("peace") {
            // 11.1.4, 11.4.4: REFUSE <kingdom> FROM <power>
            return self.answer_kingdom(cur, false);
        }
        cur.expect("peace", "'peace' (REJECT PEACE FROM <power>)")?;
        cur.eat_any(&["from", "with", "of"]);
        let (from, _) = self.power_arg(cur)?;
        Ok(Order::RejectPeace { from })
    }

    /// SURRENDER TO <power> [terms] | SURRENDER <allied NPC> TO <power> [terms]
    fn surrender(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let to_first = cur.eat("to");
        let (to, _) = self.power_arg(cur)?;
        if !to_first && cur.eat("to") {
            return self.surrender_npc(to, cur);
        }
        let terms = self.terms(cur)?;
        Ok(Order::Surrender { to, terms })
    }

    /// PROPOSE ALLIANCE TO <power>
    fn propose(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        cur.expect("alliance", "'alliance' (PROPOSE ALLIANCE TO <power>)")?;
        cur.eat_any(&["to", "with"]);
        let (to, _) = self.power_arg(cur)?;
        Ok(Order::ProposeAlliance { to })
    }

    /// BREAK ALLIANCE WITH <power>
    fn break_alliance(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        cur.expect("alliance", "'alliance' (BREAK ALLIANCE WITH <power>)")?;
        cur.eat_any(&["with", "to"]);
        let (with, _) = self.power_arg(cur)?;
        Ok(Order::BreakAlliance { with })
    }

    /// DECLARE WAR ON <power> | DECLARE CONTINENTAL SYSTEM
    fn declare(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let verb = cur.prev_span();
        if cur.eat("war") {
            cur.eat_any(&["on", "against", "with"]);
            let (on, _) = self.power_arg(cur)?;
            Ok(Order::DeclareWar { on })
        } else if self.embargo_words(cur) {
            self.args.push(Arg::Embargo(EmbargoAction::Declare), verb);
            Ok(Order::Embargo {
                action: EmbargoAction::Declare,
            })
        } else {
            Err(cur.expected("'war' or 'continental system'"))
        }
    }

    /// JOIN, LEAVE, CANCEL CONTINENTAL SYSTEM
    fn embargo_verb(&mut self, cur: &mut Cur<'_, '_>, kw: &str) -> PResult<Order> {
        let verb = cur.prev_span();
        if !self.embargo_words(cur) {
            return Err(cur.expected("'continental system'"));
        }
        let action = match kw {
            "join" => EmbargoAction::Join,
            "leave" => EmbargoAction::Leave,
            _ => EmbargoAction::Cancel,
        };
        self.args.push(Arg::Embargo(action), verb);
        Ok(Order::Embargo { action })
    }

    /// CONTINENTAL SYSTEM: <declare|join|leave|cancel>
    fn embargo(&mut self, cur: &mut Cur<'_, '_>, kw: &str) -> PResult<Order> {
        if kw == "continental" {
            cur.expect("system", "'system'")?;
        }
        cur.eat_colon();
        let Some(t) = cur.next() else {
            return Err(cur.expected("declare, join, leave or cancel"));
        };
        let action = if t.is("declare") {
            EmbargoAction::Declare
        } else if t.is("join") {
            EmbargoAction::Join
        } else if t.is("leave") {
            EmbargoAction::Leave
        } else if t.is("cancel") {
            EmbargoAction::Cancel
        } else {
            return Err(Diagnostic::error(
                Problem::Syntax,
                format!("expected declare, join, leave or cancel, found '{}'", t.text),
                t.span,
            ));
        };
        self.args.push(Arg::Embargo(action), t.span);
        Ok(Order::Embargo { action })
    }

    /// NPC ALLIANCE WITH <power> (4.4, 4.71)
    fn npc_alliance(&mut self, cur: &mut Cur<'_, '_>, kw: &str) -> PResult<Order> {
        if kw == "npc" {
            cur.expect("alliance", "'alliance' (NPC ALLIANCE WITH <power>)")?;
        }
        cur.eat_any(&["with", "to"]);
        let (npc, _) = self.power_arg(cur)?;
        Ok(Order::NpcAlliance { npc })
    }

    /// GIFT (LOAN) <n> GOLD TO <power>
    fn gift(&mut self, cur: &mut Cur<'_, '_>, kw: &str) -> PResult<Order> {
        let gold = self.amount(cur, "an amount of Gold")?;
        cur.eat("gold");
        cur.expect("to", "'to' and a power")?;
        let (to, _) = self.power_arg(cur)?;
        Ok(if kw == "loan" || kw == "lend" {
            Order::Loan { to, gold }
        } else {
            Order::Gift { to, gold }
        })
    }

    /// BUY VP WITH <n> GOLD
    fn buy(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        // BUY VP [WITH] n [GOLD]  |  BUY VP FOR n GOLD
        cur.expect("vp", "'vp' (BUY VP WITH <n> GOLD)")?;
        cur.eat_any(&["with", "for"]);
        let gold = self.amount(cur, "the Gold to spend")?;
        cur.eat("gold");
        Ok(Order::BuyVp { gold })
    }

    fn embargo_words(&self, cur: &mut Cur<'_, '_>) -> bool {
        if cur.eat("embargo") {
            return true;
        }
        if cur.is("continental") && cur.peek_at(1).is_some_and(|t| t.is("system")) {
            cur.next();
            cur.next();
            return true;
        }
        false
    }

    fn bid(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let vp = self.amount(cur, "the VP you bid")?;
        cur.eat("vp");
        let mut preferences: Vec<PowerId> = Vec::new();
        cur.eat_any(&["prefer", "preferring", "for"]);
        cur.eat_sep();
        while !cur.at_end() {
            let (p, span) = self.power_named(cur, true)?;
            if preferences.contains(&p) {
                self.errs.push(Diagnostic::error(
                    Problem::Duplicate,
                    format!("{} is already in the list", p.name()),
                    span,
                ));
            }
            preferences.push(p);
            if !(cur.eat_sep() || cur.eat("then") || cur.eat("and")) {
                break;
            }
        }
        Ok(Order::Bid { vp, preferences })
    }

    fn terms(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Terms> {
        let mut terms = Terms::default();
        loop {
            while cur.eat_sep() || cur.eat_any(&["and", "with", "paying", "pay"]) {}
            if cur.at_end() {
                break;
            }
            if let Some(Token {
                kind: Tok::Number(_), ..
            }) = cur.peek()
            {
                let n = self.amount(cur, "a number")?;
                if cur.eat("gold") {
                    terms.gold = n;
                } else if cur.eat("vp") {
                    terms.vp = n;
                } else {
                    return Err(cur.expected("'gold' or 'vp' after the number"));
                }
            } else if cur.eat("gold") {
                terms.gold = self.amount(cur, "the Gold paid")?;
            } else if cur.eat("vp") {
                terms.vp = self.amount(cur, "the VP transferred")?;
            } else if cur.eat_any(&["cede", "ceding", "provinces", "province"]) {
                loop {
                    let (p, _) = self.province_arg(cur)?;
                    terms.provinces.push(p.id.clone());
                    if !(cur.peek().is_some_and(|t| t.kind == Tok::Comma) || cur.is("and")) {
                        break;
                    }
                    cur.next();
                    if cur.is("gold") || cur.is("vp") || cur.at_end() {
                        break;
                    }
                    if cur.peek().is_some_and(|t| matches!(t.kind, Tok::Number(_))) {
                        break;
                    }
                }
            } else if let Some(done) = self.peace_condition(cur, &mut terms) {
                done?;
            } else {
                return Err(cur.expected(
                    "terms: '<n> GOLD', '<n> VP', 'CEDE <province>, …', 'REMOVE <leader>', 'REMOVE <n> SQUADRONS' or 'ACCESS'",
                ));
            }
        }
        Ok(terms)
    }

    fn power_arg(&mut self, cur: &mut Cur<'_, '_>) -> PResult<(PowerId, Span)> {
        self.power_named(cur, false)
    }

    /// A power; `self_ok` when the ordering power itself may be named.
    fn power_named(&mut self, cur: &mut Cur<'_, '_>, self_ok: bool) -> PResult<(PowerId, Span)> {
        let Some((text, span)) = cur.name() else {
            return Err(cur.expected("a power"));
        };
        match PowerId::parse(&text) {
            Some(p) => {
                self.args.push(Arg::Power(p), span);
                if p == self.ctx.power && !self_ok {
                    self.errs.push(Diagnostic::error(
                        Problem::SelfTarget,
                        format!("{} cannot do this with itself", p.name()),
                        span,
                    ));
                }
                Ok((p, span))
            }
            None => {
                let all: Vec<&str> = PowerId::ALL
                    .iter()
                    .flat_map(|p| p.spellings().iter().copied())
                    .collect();
                let close: Vec<String> = suggest(&text, all)
                    .into_iter()
                    .filter_map(PowerId::parse)
                    .map(|p| p.name().to_string())
                    .fold(Vec::new(), |mut v, n| {
                        if !v.contains(&n) {
                            v.push(n);
                        }
                        v
                    });
                let d = Diagnostic::error(Problem::UnknownPower, format!("no major power '{text}'"), span);
                Err(if close.is_empty() {
                    d.with_help("powers: France, Britain, Russia, Austria, Prussia, Spain, Ottoman")
                } else {
                    d.with_help(format!("did you mean {}?", or_list(&close)))
                })
            }
        }
    }

    pub fn unit_name(&self, k: &UnitKey) -> String {
        k.name(self.ctx.scenario)
    }

    /// Resolve a province name, recording an error (with suggestions)
    /// when it is unknown or ambiguous. A hyphenated name that is not a
    /// province splits into its parts (`Vienna-Bavaria`).
    fn provinces_named(&mut self, text: &str, span: Span) -> Vec<&'a Province> {
        let map = &self.ctx.scenario.map;
        match map.resolve_province(text) {
            Ok(p) => {
                self.args.push(Arg::Province(p.id.clone()), span);
                vec![p]
            }
            Err(e) => {
                if text.contains('-') && !text.contains(' ') {
                    let parts: Vec<_> = text.split('-').map(|w| (w, map.resolve_province(w))).collect();
                    if parts.iter().all(|(_, r)| r.is_ok()) {
                        let mut col = span.col;
                        let mut found = Vec::new();
                        for (word, r) in parts {
                            let len = word.chars().count();
                            if let Ok(p) = r {
                                self.args
                                    .push(Arg::Province(p.id.clone()), Span::new(span.line, col, len));
                                found.push(p);
                            }
                            col += len + 1;
                        }
                        return found;
                    }
                    // A path of names, one misspelt: say which, where.
                    if parts.iter().any(|(_, r)| r.is_ok()) {
                        let mut col = span.col;
                        for (word, r) in parts {
                            let len = word.chars().count();
                            if let Err(e) = r {
                                let at = Span::new(span.line, col, len.max(1));
                                self.errs.push(name_error(Named::Province, word, at, e, || None));
                            }
                            col += len + 1;
                        }
                        return Vec::new();
                    }
                }
                self.errs.push(name_error(Named::Province, text, span, e, || {
                    map.resolve_sea(text)
                        .ok()
                        .map(|s| format!("{} is a sea zone, not a province", s.name))
                }));
                Vec::new()
            }
        }
    }

    fn province_arg(&mut self, cur: &mut Cur<'_, '_>) -> PResult<(&'a Province, Span)> {
        let Some((text, span)) = cur.name() else {
            return Err(cur.expected("a province"));
        };
        let map = &self.ctx.scenario.map;
        match map.resolve_province(&text) {
            Ok(p) => {
                self.args.push(Arg::Province(p.id.clone()), span);
                Ok((p, span))
            }
            Err(e) => Err(name_error(Named::Province, &text, span, e, || {
                map.resolve_sea(&text)
                    .ok()
                    .map(|s| format!("{} is a sea zone, not a province", s.name))
            })),
        }
    }

    fn sea_arg(&mut self, cur: &mut Cur<'_, '_>) -> PResult<String> {
        let Some((text, span)) = cur.name() else {
            return Err(cur.expected("a sea zone"));
        };
        let map = &self.ctx.scenario.map;
        match map.resolve_sea(&text) {
            Ok(s) => {
                self.args.push(Arg::Sea(s.id.clone()), span);
                Ok(s.id.clone())
            }
            Err(e) => Err(name_error(Named::Sea, &text, span, e, || None)),
        }
    }

    fn nation(&self, text: &str, span: Span) -> PResult<Nation> {
        if let Some(p) = PowerId::parse(text) {
            return Ok(Nation::Major(p));
        }
        let key = normalise(text);
        for m in self.ctx.scenario.minors.values() {
            if normalise(&m.id) == key
                || normalise(&m.name) == key
                || normalise(&m.adjective) == key
                || m.aliases.iter().any(|a| normalise(a) == key)
            {
                return Ok(Nation::Minor(m.id.clone()));
            }
        }
        let mut names: Vec<&str> = PowerId::ALL.iter().map(|p| p.adjective()).collect();
        names.extend(self.ctx.scenario.minors.values().map(|m| m.adjective.as_str()));
        let close: Vec<String> = suggest(text, names).into_iter().map(str::to_string).collect();
        let d = Diagnostic::error(Problem::UnknownNation, format!("no nation '{text}'"), span);
        Err(if close.is_empty() {
            d
        } else {
            d.with_help(format!("did you mean {}?", or_list(&close)))
        })
    }

    /// Does a unit (a word such as `corps` or `squadron`) start here?
    fn unit_ahead(&self, cur: &Cur<'_, '_>) -> bool {
        (0..5)
            .map_while(|k| cur.peek_at(k).filter(|t| matches!(t.kind, Tok::Word | Tok::Number(_))))
            .any(|t| kind_of(t).is_some())
    }

    /// One unit: `corps 3`, `French corps 3`, `I Corps`, `3rd corps`,
    /// `squadron 2`, `British squadron 2`, `Portuguese corps 1`. Checks that
    /// it exists and that this power may order it.
    fn unit(&mut self, cur: &mut Cur<'_, '_>) -> PResult<(UnitKey, Span)> {
        let (key, span) = match self.counter_by_seed_name(cur) {
            Some(hit) => hit?,
            None => self.unit_handle(cur)?,
        };
        self.check_unit(&key, span);
        self.args.push(Arg::Unit(key.clone()), span);
        Ok((key, span))
    }

    /// Whether a word of an order is `name`'s word: the same letters
    /// (case and accents aside), or another spelling of the same province
    /// (`Wurttemburg corps` is the `Württemberg corps`).
    fn same_word(&self, word: &str, name: &str) -> bool {
        normalise(word) == normalise(name) || {
            let map = &self.ctx.scenario.map;
            matches!((map.province_named(word), map.province_named(name)), (Some(a), Some(b)) if a.id == b.id)
        }
    }

    /// A kingdom's own counter by the name the seed gives it and reports
    /// show (11.2.2.1, 11.2.2.2, 11.3.2.1, 11.5.2.1: `Hesse corps`, the
    /// counter rows of `tables/political.toml`), optionally followed by
    /// its handle in brackets as reports print it: `Hesse corps (Rhenish
    /// corps 2)`. `None` when no such name starts here.
    fn counter_by_seed_name(&mut self, cur: &mut Cur<'_, '_>) -> Option<PResult<(UnitKey, Span)>> {
        let start = cur.pos;
        let row = self
            .ctx
            .scenario
            .tables
            .political
            .kingdoms
            .iter()
            .flat_map(|k| &k.counters)
            .find(|r| {
                let words: Vec<&str> = r.name.split_whitespace().collect();
                words.iter().enumerate().all(|(i, w)| {
                    cur.peek_at(i)
                        .is_some_and(|t| t.kind == Tok::Word && self.same_word(t.text, w))
                }) && !cur
                    .peek_at(words.len())
                    .is_some_and(|t| matches!(t.kind, Tok::Number(_)))
            })?;
        let kind = match row.kind {
            crate::scenario::tables_political::CounterKind::Corps => UnitKind::Corps,
            crate::scenario::tables_political::CounterKind::Squadron => UnitKind::Squadron,
        };
        let key = UnitKey {
            kind,
            nation: Nation::Minor(row.nation.clone()),
            number: row.number,
        };
        cur.pos = start + row.name.split_whitespace().count();
        let mut span = join(cur.toks[start].span, cur.toks[cur.pos - 1].span);
        if cur.peek().is_some_and(|t| t.text == "(") {
            let open = cur.pos;
            let Some(close) = (open + 1..cur.toks.len()).find(|&i| cur.toks[i].text == ")") else {
                return Some(Err(Diagnostic::error(
                    Problem::Syntax,
                    "expected ')' after the unit in brackets",
                    cur.toks[open].span,
                )));
            };
            let mut inner = Cur::new(&cur.toks[open + 1..close]);
            let (handle, inner_span) = match self.unit_handle(&mut inner) {
                Ok(u) => u,
                Err(e) => return Some(Err(e)),
            };
            if handle != key || !inner.at_end() {
                return Some(Err(Diagnostic::error(
                    Problem::UnknownUnit,
                    format!(
                        "the {} is {}, not what the brackets say",
                        row.name,
                        key.handle(self.ctx.scenario)
                    ),
                    inner_span,
                )));
            }
            cur.pos = close + 1;
            span = join(span, cur.toks[close].span);
        }
        Some(Ok((key, span)))
    }

    /// A unit by its handle (`Rhenish corps 2`, `corps 3`): the key and
    /// where it is written, neither checked nor recorded.
    fn unit_handle(&mut self, cur: &mut Cur<'_, '_>) -> PResult<(UnitKey, Span)> {
        let start = cur.pos;
        let mut k = 0;
        let kind = loop {
            match cur.peek_at(k) {
                Some(t) if matches!(t.kind, Tok::Word | Tok::Number(_)) && k < 5 => {
                    if let Some(kind) = kind_of(t) {
                        break kind;
                    }
                    k += 1;
                }
                _ => {
                    return Err(cur
                        .expected("a unit such as 'corps 3' or 'British squadron 2'")
                        .with_help("units are named '<nation> corps <n>' or '<nation> squadron <n>'; the nation may be left out for your own"));
                }
            }
        };
        let Some(&kind_tok) = cur.peek_at(k) else {
            return Err(cur.expected("a unit"));
        };
        let (number, nation_end, end) = match cur.peek_at(k + 1).and_then(unit_number) {
            Some(n) => (n, k, k + 2),
            None => match k.checked_sub(1).and_then(|j| cur.peek_at(j)).and_then(unit_number) {
                Some(n) => (n, k - 1, k + 1),
                None => {
                    return Err(Diagnostic::error(
                        Problem::Syntax,
                        format!("which {}? give its number, e.g. '{} 3'", kind_tok.text, kind_tok.text),
                        kind_tok.span,
                    ));
                }
            },
        };
        let toks = &cur.toks[start..start + end];
        let span = join(toks[0].span, toks[toks.len() - 1].span);
        let nation = if nation_end == 0 {
            Nation::Major(self.ctx.power)
        } else {
            let nt = &cur.toks[start..start + nation_end];
            let text = nt.iter().map(|t| t.text).collect::<Vec<_>>().join(" ");
            self.nation(&text, join(nt[0].span, nt[nt.len() - 1].span))?
        };
        cur.pos = start + end;
        Ok((UnitKey { kind, nation, number }, span))
    }

    /// The unit exists (whether this power orders it is the legality
    /// gate's to judge, 3.31).
    fn check_unit(&mut self, key: &UnitKey, span: Span) {
        let state = self.ctx.state;
        let exists = match key.kind {
            UnitKind::Corps => state.corps(&key.nation, key.number).is_some(),
            UnitKind::Squadron => state.squadron(&key.nation, key.number).is_some(),
        };
        if !exists {
            let mut mine: Vec<String> = match key.kind {
                UnitKind::Corps => state
                    .corps
                    .iter()
                    .filter(|c| c.nation == key.nation)
                    .map(|c| c.number.to_string())
                    .collect(),
                UnitKind::Squadron => state
                    .squadrons
                    .iter()
                    .filter(|c| c.nation == key.nation)
                    .map(|c| c.number.to_string())
                    .collect(),
            };
            mine.dedup();
            let d = Diagnostic::error(
                Problem::UnknownUnit,
                format!("there is no {}", self.unit_name(key)),
                span,
            );
            self.errs.push(if mine.is_empty() {
                d
            } else {
                let kind = match key.kind {
                    UnitKind::Corps => "corps",
                    UnitKind::Squadron => "squadrons",
                };
                d.with_help(format!(
                    "{} {kind}: {}",
                    crate::state::nation_adjective(self.ctx.scenario, &key.nation),
                    mine.join(", ")
                ))
            });
        }
    }

    /// Units joined by `,`, `and`, `+`.
    fn units(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Vec<(UnitKey, Span)>> {
        let mut out = vec![self.unit(cur)?];
        loop {
            let save = cur.pos;
            if cur.peek().is_some_and(|t| matches!(t.kind, Tok::Comma | Tok::Plus)) || cur.is("and") {
                cur.next();
                if self.unit_ahead(cur) {
                    out.push(self.unit(cur)?);
                    continue;
                }
            }
            cur.pos = save;
            break;
        }
        Ok(out)
    }

    fn one_squadron(&mut self, units: &[(UnitKey, Span)]) -> PResult<UnitKey> {
        match units {
            [(k, _)] if k.kind == UnitKind::Squadron => Ok(k.clone()),
            [(_, s)] => Err(Diagnostic::error(Problem::Syntax, "this order is for a squadron", *s)),
            [_, (_, s), ..] => Err(Diagnostic::error(Problem::Syntax, "give one squadron per order", *s)),
            [] => Err(Diagnostic::error(Problem::Syntax, "no squadron", Span::default())),
        }
    }

    fn one_corps(&mut self, units: &[(UnitKey, Span)]) -> PResult<UnitKey> {
        match units {
            [(k, _)] if k.kind == UnitKind::Corps => Ok(k.clone()),
            [(_, s)] => Err(Diagnostic::error(Problem::Syntax, "this order is for a corps", *s)),
            [_, (_, s), ..] => Err(Diagnostic::error(Problem::Syntax, "give one corps per order", *s)),
            [] => Err(Diagnostic::error(Problem::Syntax, "no corps", Span::default())),
        }
    }

    fn all_corps(&mut self, units: &[(UnitKey, Span)]) -> PResult<Vec<UnitKey>> {
        for (k, s) in units {
            if k.kind != UnitKind::Corps {
                return Err(Diagnostic::error(
                    Problem::Syntax,
                    "only corps can do this; squadrons SAIL",
                    *s,
                ));
            }
        }
        Ok(units.iter().map(|u| u.0.clone()).collect())
    }

    /// Where a stack of corps stands, when every corps stands there:
    /// the province a path or a siege starts from. Whether the stack may
    /// move (on the map, together, 5.5) is the legality gate's to judge.
    fn stack_location(&self, units: &[(UnitKey, Span)]) -> Option<String> {
        let mut at: Option<&String> = None;
        for (k, _) in units {
            let l = self.ctx.state.corps(&k.nation, k.number)?.location.as_ref()?;
            if at.is_some_and(|a| a != l) {
                return None;
            }
            at = Some(l);
        }
        at.cloned()
    }

    fn land_move(&mut self, cur: &mut Cur<'_, '_>, units: Vec<(UnitKey, Span)>) -> PResult<Order> {
        let corps = self.all_corps(&units)?;
        let here = self.stack_location(&units);
        let mut commander = None;
        if cur.eat("with") {
            let Some((text, span)) = cur.name() else {
                return Err(cur.expected("a commander's name"));
            };
            commander = self.commander(&text, span);
        }
        let path = self.land_path(cur, here.as_deref())?;
        Ok(Order::Move { corps, commander, path })
    }

    /// The commander named (whether he commands these corps and stands
    /// with them is the legality gate's to judge, 2.24).
    fn commander(&mut self, text: &str, span: Span) -> Option<String> {
        let key = normalise(text);
        let state = self.ctx.state;
        let hits: Vec<_> = state
            .commanders
            .iter()
            .filter(|c| {
                normalise(&c.name) == key || c.name.split_whitespace().last().is_some_and(|w| normalise(w) == key)
            })
            .collect();
        let Some(c) = hits.first() else {
            let names: Vec<&str> = state.commanders.iter().map(|c| c.name.as_str()).collect();
            let close: Vec<String> = suggest(text, names).into_iter().map(str::to_string).collect();
            let d = Diagnostic::error(Problem::UnknownCommander, format!("no commander '{text}'"), span);
            self.errs.push(if close.is_empty() {
                d
            } else {
                d.with_help(format!("did you mean {}?", or_list(&close)))
            });
            return None;
        };
        self.args.push(Arg::Commander(c.name.clone()), span);
        Some(c.name.clone())
    }

    /// A path of provinces from `here`. A first name equal to `here` is
    /// dropped. Whether each is next to the one before (by land or a
    /// crossing arrow, 2.13, 12.2.1) is the legality gate's to judge.
    fn land_path(&mut self, cur: &mut Cur<'_, '_>, here: Option<&str>) -> PResult<Vec<String>> {
        cur.eat_sep();
        cur.eat("from");
        let mut items: Vec<(&Province, Span)> = Vec::new();
        let mut bad = false;
        loop {
            let Some((text, span)) = cur.name() else {
                return Err(cur.expected("a province"));
            };
            let found = self.provinces_named(&text, span);
            bad |= found.is_empty();
            items.extend(found.into_iter().map(|p| (p, span)));
            if !(cur.eat_sep() || cur.eat("via")) {
                break;
            }
        }
        if items.first().is_some_and(|(p, _)| Some(p.id.as_str()) == here) {
            items.remove(0);
        }
        if items.is_empty() && !bad {
            return Err(Diagnostic::error(
                Problem::Syntax,
                "the path has no province to move to",
                cur.line_span,
            ));
        }
        Ok(items.into_iter().map(|(p, _)| p.id.clone()).collect())
    }

    fn naval_move(&mut self, cur: &mut Cur<'_, '_>, units: Vec<(UnitKey, Span)>) -> PResult<Order> {
        let squadron = self.one_squadron(&units)?;
        let mut carrying = Vec::new();
        if cur.eat_any(&["carrying", "transporting", "with"]) {
            carrying = self.cargo(cur)?;
        }
        cur.eat_sep();
        let mut names: Vec<(String, Span)> = Vec::new();
        while let Some(n) = cur.name() {
            names.push(n);
            if !cur.eat_sep() {
                break;
            }
        }
        let mut to_port = None;
        if cur.eat("into") {
            cur.eat("port");
            let (p, span) = self.province_arg(cur)?;
            to_port = Some((p, span));
        }
        if cur.eat_any(&["carrying", "transporting", "with"]) {
            carrying = self.cargo(cur)?;
        }
        let map = &self.ctx.scenario.map;
        let mut path: Vec<(&Sea, Span)> = Vec::new();
        let mut bad = false;
        let last = names.len().saturating_sub(1);
        for (i, (text, span)) in names.iter().enumerate() {
            match map.resolve_sea(text) {
                Ok(s) => {
                    self.args.push(Arg::Sea(s.id.clone()), *span);
                    path.push((s, *span));
                }
                Err(e) => {
                    if i == last
                        && to_port.is_none()
                        && let Ok(p) = map.resolve_province(text)
                    {
                        self.args.push(Arg::Province(p.id.clone()), *span);
                        to_port = Some((p, *span));
                        continue;
                    }
                    bad = true;
                    self.errs.push(name_error(Named::Sea, text, *span, e, || {
                        map.resolve_province(text)
                            .ok()
                            .map(|p| format!("{} is a province; a port may end the path", p.name))
                    }));
                }
            }
        }
        let sq = self.ctx.state.squadron(&squadron.nation, squadron.number);
        let start = sq.map(|s| s.location.clone());
        if let (Some(Location::Sea(z)), Some((first, _))) = (&start, path.first())
            && first.id == *z
        {
            path.remove(0);
        }
        if path.is_empty() && to_port.is_none() && !bad {
            return Err(cur.expected("a sea zone to sail to"));
        }
        // Whether the path joins the squadron's position, the port its
        // last zone, and the cargo stands where it boards is the legality
        // gate's to judge (5.4); that a province has a port is the map's.
        if let Some((p, span)) = &to_port
            && !p.port
        {
            self.errs.push(Diagnostic::error(
                Problem::NotAPort,
                format!("{} has no port", p.name),
                *span,
            ));
        }
        Ok(Order::NavalMove {
            squadron,
            path: path.into_iter().map(|(s, _)| s.id.clone()).collect(),
            carrying,
            to_port: to_port.map(|(p, _)| p.id.clone()),
        })
    }

    fn cargo(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Vec<UnitKey>> {
        let units = self.units(cur)?;
        self.all_corps(&units)
    }

    fn build(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        // BUILD [n] [<nation>] SQUADRON(S) IN <port>; a minor's squadron
        // is a kingdom's fleet built again (11.2.2.2)
        let numbered = cur.peek().is_some_and(|t| matches!(t.kind, Tok::Number(_)));
        let at = usize::from(numbered);
        let sq_at = |k: usize| cur.peek_at(k).is_some_and(|t| SQUADRON_WORDS.iter().any(|w| t.is(w)));
        let whose = !sq_at(at) && sq_at(at + 1) && cur.peek_at(at).is_some_and(|t| t.kind == Tok::Word);
        if sq_at(at) || whose {
            let count = if numbered { self.amount(cur, "a count")? } else { 1 };
            let nation = match cur.peek().copied().filter(|_| whose) {
                Some(t) => {
                    cur.next();
                    Some(self.nation(t.text, t.span)?)
                }
                None => None,
            };
            cur.next();
            cur.eat_any(&["in", "at"]);
            let (p, span) = self.province_arg(cur)?;
            if !p.port {
                self.errs.push(Diagnostic::error(
                    Problem::NotAPort,
                    format!("{} has no port", p.name),
                    span,
                ));
            }
            if count == 0 {
                return Err(Diagnostic::error(
                    Problem::Syntax,
                    "build at least one squadron",
                    cur.line_span,
                ));
            }
            return Ok(Order::BuildSquadron {
                port: p.id.clone(),
                count,
                nation,
            });
        }
        // BUILD <corps>: items   |   BUILD items IN <corps>
        let (corps, cspan, items) =
            if self.unit_ahead(cur) && !cur.peek().is_some_and(|t| matches!(t.kind, Tok::Number(_))) {
                let (k, span) = self.unit(cur)?;
                cur.eat_sep();
                cur.eat("with");
                let items = self.build_items(cur, &k)?;
                (k, span, items)
            } else {
                let save = cur.pos;
                // Find the corps after IN/INTO first, so items can default to its nation.
                let mut k = 0;
                while cur
                    .peek_at(k)
                    .is_some_and(|t| !(t.is("in") || t.is("into") || t.is("for")))
                {
                    k += 1;
                }
                cur.pos += k;
                if !cur.eat_any(&["in", "into", "for"]) {
                    cur.pos = save;
                    return Err(cur.expected("'<n> <arm> IN <corps>' or '<corps>: <n> <arm>'"));
                }
                let (key, span) = self.unit(cur)?;
                let end = cur.pos;
                cur.pos = save;
                let sub = &cur.toks[save..save + k];
                let mut inner = Cur::new(sub);
                let items = self.build_items(&mut inner, &key)?;
                cur.pos = end;
                (key, span, items)
            };
        if corps.kind != UnitKind::Corps {
            return Err(Diagnostic::error(
                Problem::Syntax,
                "divisions are built into a corps",
                cspan,
            ));
        }
        Ok(Order::Build { corps, items })
    }

    fn build_items(&mut self, cur: &mut Cur<'_, '_>, corps: &UnitKey) -> PResult<Vec<BuildItem>> {
        let mut items: Vec<BuildItem> = Vec::new();
        loop {
            let first = cur.here();
            let count = if cur.peek().is_some_and(|t| matches!(t.kind, Tok::Number(_))) {
                cur.number("a count")?.0
            } else {
                1
            };
            let mut words: Vec<Token<'_>> = Vec::new();
            while let Some(t) = cur.peek().copied() {
                if t.kind != Tok::Word || t.is("and") {
                    break;
                }
                words.push(t);
                cur.next();
            }
            let Some(arm_tok) = words.pop() else {
                return Err(cur.expected("an arm: inf, cav or art"));
            };
            let arm_text = arm_tok.text.to_ascii_lowercase();
            let arm = Arm::parse(&arm_text)
                .or_else(|| arm_text.strip_suffix('s').and_then(Arm::parse))
                .ok_or_else(|| {
                    Diagnostic::error(
                        Problem::UnknownArm,
                        format!("'{}' is not an arm", arm_tok.text),
                        arm_tok.span,
                    )
                    .with_help("arms are inf (infantry), cav (cavalry) and art (artillery)")
                })?;
            let nation = if words.is_empty() {
                corps.nation.clone()
            } else {
                let text = words.iter().map(|t| t.text).collect::<Vec<_>>().join(" ");
                let at = join(words[0].span, words[words.len() - 1].span);
                let nation = self.nation(&text, at)?;
                self.args.push(Arg::Nation(nation.clone()), at);
                nation
            };
            let span = join(first, arm_tok.span);
            self.args.push(
                Arg::Division {
                    arm,
                    nation: nation.clone(),
                },
                span,
            );
            if count == 0 {
                return Err(Diagnostic::error(Problem::Syntax, "build at least one division", span));
            }
            // 3.43: a minor corps holds only its own divisions; 2.22: a
            // major corps its own and (3.44, judged by the legality gate
            // against who holds the minor) its conquered minors'.
            let fits = match (&corps.nation, &nation) {
                (Nation::Minor(c), n) => Nation::Minor(c.clone()) == *n,
                (Nation::Major(p), Nation::Major(q)) => p == q,
                (Nation::Major(_), Nation::Minor(_)) => true,
            };
            if !fits {
                self.errs.push(Diagnostic::error(
                    Problem::WrongNation,
                    format!(
                        "{} divisions cannot go into {} (2.22, 3.43)",
                        crate::state::nation_adjective(self.ctx.scenario, &nation),
                        self.unit_name(corps)
                    ),
                    span,
                ));
            }
            items.push(BuildItem { count, arm, nation });
            if !(cur.peek().is_some_and(|t| matches!(t.kind, Tok::Comma | Tok::Plus)) || cur.is("and")) {
                break;
            }
            cur.next();
        }
        Ok(items)
    }

    fn standing(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        cur.eat_colon();
        let Some(t) = cur.next() else {
            return Err(cur.expected("intercept, combat, withdraw, retreat or clear"));
        };
        let w = t.text.to_ascii_lowercase();
        let s = match w.as_str() {
            "intercept" => Standing::Intercept { enabled: on_off(cur)? },
            "combat" | "option" => {
                let situation = situation(cur)?;
                // An option's name runs to the end of the line: the table
                // names hold words that end other names (`defend in depth`).
                let Some((text, _)) = cur.rest_of_words() else {
                    return Err(cur.expected("a combat option, e.g. 'probe' or 'grand assault'"));
                };
                // The battle table's ids are snake_case (`grand_assault`).
                let option = text
                    .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
                    .filter(|w| !w.is_empty())
                    .map(str::to_ascii_lowercase)
                    .collect::<Vec<_>>()
                    .join("_");
                Standing::CombatOption { situation, option }
            }
            "withdraw" => {
                if cur.eat("never") || cur.eat("stand") {
                    Standing::Withdraw { ratio: None }
                } else {
                    cur.eat_any(&["if", "when"]);
                    cur.eat("outnumbered");
                    cur.eat_any(&["by", "at", "more", "over"]);
                    cur.eat("than");
                    let (ratio, span) = cur.number("a ratio such as 2:1, or NEVER")?;
                    if cur.peek().is_some_and(|t| t.kind == Tok::Colon) {
                        cur.next();
                        let (one, s1) = cur.number("'1' after the colon")?;
                        if one != 1 {
                            return Err(Diagnostic::error(Problem::Syntax, "write the ratio as N:1", s1));
                        }
                    } else {
                        cur.eat("to");
                        if cur.peek().is_some_and(|t| t.kind == Tok::Number(Some(1))) {
                            cur.next();
                        }
                    }
                    if ratio == 0 {
                        return Err(Diagnostic::error(Problem::Syntax, "the ratio must be at least 1", span));
                    }
                    Standing::Withdraw { ratio: Some(ratio) }
                }
            }
            "retreat" => {
                cur.eat_any(&["to", "towards"]);
                cur.eat_colon();
                let mut provinces = Vec::new();
                loop {
                    let (p, _) = self.province_arg(cur)?;
                    provinces.push(p.id.clone());
                    if !(cur.eat_sep() || cur.eat("then") || cur.eat("and")) {
                        break;
                    }
                }
                Standing::Retreat { provinces }
            }
            // 12.2.6.1.1, 12.2.6.1.4.2 (parse/naval.rs)
            "tactic" | "tactics" | "chit" => self.standing_tactic(cur)?,
            "nelson" => self.standing_nelson(cur)?,
            // 12.2.6.1.7-.9.1, 12.2.7.3, 12.2.9.3 (parse/naval.rs)
            "chase" => Standing::NavalChase { on: on_off(cur)? },
            "after" => self.standing_after(cur)?,
            "evade" | "evasion" => Standing::NavalEvade { on: on_off(cur)? },
            "disabled" | "hulks" => self.standing_disabled(cur)?,
            "ports" | "port" => self.standing_ports(cur)?,
            "clear" | "reset" => Standing::Clear,
            _ => {
                return Err(Diagnostic::error(
                    Problem::Syntax,
                    format!("'{}' is not a standing order", t.text),
                    t.span,
                )
                .with_help(
                    "standing orders: INTERCEPT, COMBAT, WITHDRAW, RETREAT, TACTIC, NELSON, CHASE, AFTER, EVADE, DISABLED, PORTS, CLEAR",
                ));
            }
        };
        Ok(Order::Standing(s))
    }
}

/// What a place name names.
#[derive(Clone, Copy)]
enum Named {
    Province,
    Sea,
}

/// A name error as a diagnostic, with "did you mean" or the candidates.
fn name_error(what: Named, text: &str, span: Span, e: NameError, other: impl FnOnce() -> Option<String>) -> Diagnostic {
    let (label, unknown, ambiguous) = match what {
        Named::Province => ("province", Problem::UnknownProvince, Problem::AmbiguousProvince),
        Named::Sea => ("sea zone", Problem::UnknownSea, Problem::AmbiguousSea),
    };
    match e {
        NameError::Unknown { suggestions } => {
            let d = Diagnostic::error(unknown, format!("no {label} '{text}'"), span);
            if !suggestions.is_empty() {
                d.with_help(format!("did you mean {}?", or_list(&suggestions)))
            } else if let Some(h) = other() {
                d.with_help(h)
            } else {
                d
            }
        }
        NameError::Ambiguous { candidates } => {
            Diagnostic::error(ambiguous, format!("'{text}' could be {}", or_list(&candidates)), span)
                .with_help("write the full name")
        }
    }
}
