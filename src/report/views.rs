//! View models: what the templates see. Built from the engine's values
//! (checked orders, outcomes, state) by the functions here, so templates
//! never depend on engine internals.

use crate::diagnostic::Diagnostic;
use crate::ids::PowerId;
use crate::orders::Checked;
use crate::orders::ast::{Order, OrderLine, PoliticalOrder};
use crate::rules::{Kind, Outcome};
use crate::scenario::Scenario;
use crate::state::{Location, State, UnitKey};
use serde::Serialize;
use std::collections::BTreeMap;

/// One order line of an acknowledgement.
#[derive(Clone, Debug, Serialize)]
pub struct AckOrder {
    pub ok: bool,
    pub text: String,
}

/// The acknowledgement of one message.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AckView {
    pub game: String,
    pub phase: String,
    pub deadline: Option<String>,
    /// The power's name, if known.
    pub power: Option<String>,
    /// `accepted`, `refused` or `not-stored`.
    pub verdict: String,
    pub refusal: Option<String>,
    pub store_error: Option<String>,
    /// Where the orders were read from (text/plain body, …).
    pub source: String,
    pub orders: Vec<AckOrder>,
    pub accepted_count: usize,
    pub rejected_count: usize,
    /// Rendered diagnostics (source line, caret, help).
    pub diagnostics: Vec<String>,
    pub receipt: Option<String>,
    /// Said when From is not the address on record.
    pub forged_note: Option<String>,
    /// What the message's ABSENT / SECOND lines did.
    #[serde(default)]
    pub notes: Vec<String>,
    /// The answers to the message's commands and press
    /// (`mail::commands`), one block each.
    #[serde(default)]
    pub answers: Vec<String>,
    /// How many powers the message's press reached, when it held press.
    #[serde(default)]
    pub press_sent: Option<usize>,
    /// The top lines: whether the power is now in for the phase, and
    /// what still holds the phase open (`mail::compose::ack_standing`).
    #[serde(default)]
    pub standing: Option<String>,
}

impl AckView {
    /// Fill the order lines and diagnostics from a checked order text:
    /// accepted lines (normalised) and rejected lines (as written), in
    /// the order of the text.
    pub fn with_checked(mut self, checked: &Checked, source: &str) -> AckView {
        let lines: Vec<&str> = source.lines().collect();
        let mut rows: Vec<(usize, AckOrder)> = checked
            .accepted
            .iter()
            .map(|o| {
                (
                    o.span.line,
                    AckOrder {
                        ok: true,
                        text: o.text.clone(),
                    },
                )
            })
            .collect();
        // NO ORDERS / PASS is no order, but the sender is told it was read.
        if checked.header.no_orders
            && let Some(i) = lines.iter().position(|l| {
                let w: Vec<String> = l.split_whitespace().map(str::to_ascii_uppercase).collect();
                w == ["PASS"] || w == ["NO", "ORDERS"]
            })
        {
            let said = lines[i]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_ascii_uppercase();
            rows.push((
                i + 1,
                AckOrder {
                    ok: true,
                    text: format!("{said} (nothing ordered, on purpose)"),
                },
            ));
        }
        // READY / WAIT is no order either, but it is acknowledged as one.
        if let Some((r, line)) = checked.header.readiness {
            rows.push((
                line,
                AckOrder {
                    ok: true,
                    text: r.word().to_string(),
                },
            ));
        }
        // So is TIMEZONE (a zone no IANA name has is an error row).
        if let Some((zone, line)) = &checked.header.timezone {
            rows.push((
                *line,
                AckOrder {
                    ok: true,
                    text: format!("TIMEZONE {zone}"),
                },
            ));
        }
        let errors: Vec<&Diagnostic> = checked.diagnostics.iter().filter(|d| d.is_error()).collect();
        let mut error_lines: Vec<usize> = errors.iter().map(|d| d.span.line).collect();
        error_lines.sort();
        error_lines.dedup();
        for l in &error_lines {
            let text = lines
                .get(l.saturating_sub(1))
                .map(|s| s.trim())
                .unwrap_or("")
                .to_string();
            rows.push((*l, AckOrder { ok: false, text }));
        }
        rows.sort_by_key(|(l, _)| *l);
        self.accepted_count = checked.accepted.len()
            + usize::from(checked.header.readiness.is_some())
            + usize::from(checked.header.timezone.is_some());
        self.rejected_count = error_lines.len();
        self.orders = rows.into_iter().map(|(_, o)| o).collect();
        let lines = crate::diagnostic::Lines::new(source);
        self.diagnostics = checked
            .diagnostics
            .iter()
            .map(|d| d.render_in("your orders", &lines).trim_end().to_string())
            .collect();
        self
    }
}

/// The mail that opens a phase, for one power.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PhaseOpeningView {
    pub game: String,
    pub phase: String,
    pub deadline: Option<String>,
    pub power: String,
    /// `must`, `may` or `none`; `observer` for an observer's public
    /// opening (`power` is then the observer's name).
    pub role: String,
    /// The powers that must order in this phase.
    #[serde(default)]
    pub movers: Vec<String>,
    pub units: Vec<String>,
    /// The order template, header filled in.
    pub template: String,
    pub commitment: Option<String>,
    /// The later history entry that closed this phase, when the opening
    /// is mailed only after the phase was resolved (by hand, between runs).
    #[serde(default)]
    pub closed_by: Option<String>,
    /// Diplomatic proposals pending for and from this power.
    #[serde(default)]
    pub proposals: Vec<String>,
    /// Sent again on request (`empereur resend`).
    #[serde(default)]
    pub resent: bool,
}

/// A reminder that a power's orders are due.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReminderView {
    pub game: String,
    pub phase: String,
    pub power: String,
    pub deadline: Option<String>,
    /// Set past the deadline: when grace ends and the phase resolves
    /// with defaults for the powers still missing.
    #[serde(default)]
    pub grace_ends: Option<String>,
    /// Set before the deadline: when grace would end (the reminder before
    /// the deadline stands for the first day of grace too).
    #[serde(default)]
    pub grace_after: Option<String>,
}

/// One outcome as a report shows it (kept in the site's cache of pages,
/// `ops::site`, hence `Deserialize`).
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct EventView {
    pub rule: String,
    pub summary: String,
    pub why: Vec<String>,
    pub dice: Vec<String>,
}

impl EventView {
    pub fn from_outcome(o: &Outcome) -> EventView {
        EventView {
            rule: o.rule.to_string(),
            summary: match &o.order {
                Some(order) => format!("{order}: {}", o.summary),
                None => o.summary.clone(),
            },
            why: o.why.iter().map(ToString::to_string).collect(),
            dice: o.dice.iter().map(|d| format!("{} = {}", d.purpose, d.result)).collect(),
        }
    }
}

/// A turn report, for one power (`power` set) or the moderator (all).
#[derive(Clone, Debug, Default, Serialize)]
pub struct TurnReportView {
    pub game: String,
    pub phase: String,
    pub power: Option<String>,
    pub events: Vec<EventView>,
    pub summary: Vec<String>,
    /// The `Standings` section's lines (`report::standings`): every
    /// power as this recipient may see it.
    #[serde(default)]
    pub standings: Vec<String>,
    pub seed: Option<String>,
    pub entropy: Vec<String>,
    pub next_phase: Option<String>,
    pub attachments: Vec<String>,
    /// Diplomatic proposals pending for and from this power.
    #[serde(default)]
    pub proposals: Vec<String>,
    /// Sent again on request (`empereur resend`).
    #[serde(default)]
    pub resent: bool,
}

impl TurnReportView {
    /// The outcomes `viewer` may see (all for the moderator, `None`).
    /// A battle's public one-line result (5.6) restates the summary of
    /// its detailed report: a viewer who sees the report (its sides, the
    /// moderator) is shown the battle once, not twice.
    pub fn events_for(outcomes: &[Outcome], viewer: Option<PowerId>) -> Vec<EventView> {
        let sees = |o: &Outcome| viewer.is_none_or(|p| o.visibility.sees(p));
        let restated = |o: &Outcome| {
            o.kind == Kind::BattleResult
                && outcomes
                    .iter()
                    .any(|d| d.kind == Kind::Battle && d.at == o.at && d.summary == o.summary && sees(d))
        };
        outcomes
            .iter()
            .filter(|o| sees(o) && !restated(o))
            .map(EventView::from_outcome)
            .collect()
    }
}

/// A short summary of a power's position: Gold, VP, units on the map.
pub fn state_summary(scenario: &Scenario, state: &State, power: PowerId) -> Vec<String> {
    let mut v = vec![money_line(state, power)];
    v.extend(position_lines(scenario, state, power));
    v
}

/// A power's Gold and VP: `France: 12 Gold, 3 VP`.
pub fn money_line(state: &State, power: PowerId) -> String {
    let p = state.power(power);
    format!("{}: {} Gold, {} VP", power.name(), p.gold, p.vp)
}

/// What a turn report says of a power's position besides its `Standings`
/// row (which carries its Gold and VP): its units on the map, the
/// kingdoms, the Polish loyalty marker.
pub fn position_lines(scenario: &Scenario, state: &State, power: PowerId) -> Vec<String> {
    let corps = state
        .corps
        .iter()
        .filter(|c| c.location.is_some() && state.corps_power(c) == Some(power))
        .count();
    let squadrons = state
        .squadrons
        .iter()
        .filter(|s| s.nation.major() == Some(power))
        .count();
    let mut v = vec![format!("{corps} corps on the map, {squadrons} squadrons")];
    // EiA political option: the kingdoms' markers are on the map for all
    // to see; a treasury only for its controller (11.x.2)
    // by the names players read (`Kingdom of Italy under France:
    // Lombardy, …`), as the map and the outcomes name them, never the ids
    for (id, k) in &state.political.kingdoms {
        let kingdom = scenario
            .tables
            .political
            .kingdom(id)
            .map_or(id.as_str(), |d| d.name.as_str());
        let parts: Vec<String> = k.components.iter().map(|c| place(scenario, c)).collect();
        let mut line = format!("{kingdom} under {}: {}", k.controller.name(), parts.join(", "));
        if k.controller == power {
            line.push_str(&format!("; treasury {} Gold", k.gold));
        }
        v.push(line);
    }
    if let Some(h) = state.political.polish_loyalty {
        v.push(format!("Polish loyalty marker: {}", h.name()));
    }
    v
}

/// The units `power` gives orders for, one line each, for the
/// phase-opening mail, a welcome and STATUS: `French corps 1 in Paris
/// [inf inf art cav]`, `French squadron 1 in port Brittany`.
pub fn unit_lines(scenario: &Scenario, state: &State, power: PowerId) -> Vec<String> {
    let mut out = Vec::new();
    for c in &state.corps {
        if state.corps_power(c) != Some(power) {
            continue;
        }
        let Some(loc) = &c.location else { continue };
        let divs: Vec<String> = c.divisions.iter().map(|d| d.arm.short().to_string()).collect();
        out.push(format!("{} [{}]", corps_in(scenario, &c.key(), loc), divs.join(" ")));
    }
    for s in &state.squadrons {
        // a kingdom's fleet is its controller's (11.2.2.2)
        if state.squadron_power(s) != Some(power) {
            continue;
        }
        let key = UnitKey::squadron(s.nation.clone(), s.number);
        out.push(squadron_at(scenario, &key, &s.location));
    }
    out
}

/// A corps where it stands, as every list a player reads writes it: its
/// name ([`UnitKey::name`]: `French corps 3`, `Hesse corps (Rhenish
/// corps 2)`) and the province's (`in Paris`), the names orders read
/// back; never the ids files keep (`france corps 3 in paris`).
pub fn corps_in(scenario: &Scenario, key: &UnitKey, province: &str) -> String {
    format!("{} in {}", key.name(scenario), place(scenario, province))
}

/// A squadron where it is, as [`corps_in`] writes a corps: `French
/// squadron 1 in port Brittany`, `… at sea North Sea`.
pub fn squadron_at(scenario: &Scenario, key: &UnitKey, at: &Location) -> String {
    match at {
        Location::Port(p) => format!("{} in port {}", key.name(scenario), place(scenario, p)),
        Location::Sea(z) => format!("{} at sea {}", key.name(scenario), place(scenario, z)),
    }
}

/// The display name of a province or sea zone (its id if unknown).
pub fn place(scenario: &Scenario, id: &str) -> String {
    crate::rules::war::control::name(scenario, id)
}

/// One diplomatic proposal among the orders stored for the open phase:
/// who makes it, to whom, and what the recipient may answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proposal {
    pub from: PowerId,
    pub to: PowerId,
    /// The order as the proposer's submission holds it.
    pub text: String,
    /// The answers that count (`ACCEPT PEACE FROM France`, …); empty for
    /// gifts and loans, which need none.
    pub answers: Vec<String>,
    /// The recipient's answer among its stored orders, if any.
    pub answered: Option<String>,
}

/// The proposals among `orders` (the open phase's stored submissions):
/// peace offers and alliance proposals, answered only in this phase (the
/// proposer's Player Turn, 5.1, 5.2), cessions (11.1.4, 11.4.4), and
/// gifts and loans (4.212), which need no answer. An answer counts only
/// from the recipient, naming the proposer (and, for a cession, the
/// kingdom ceded): a third power's ACCEPT, or one for another kingdom,
/// answers nothing.
pub fn proposals(orders: &BTreeMap<PowerId, Vec<OrderLine>>) -> Vec<Proposal> {
    let mut out = Vec::new();
    for (from, lines) in orders {
        for l in lines {
            let (to, answers): (PowerId, Vec<String>) = match &l.order {
                Order::OfferPeace { to, .. } => (
                    *to,
                    vec![
                        format!("ACCEPT PEACE FROM {}", from.name()),
                        format!("REJECT PEACE FROM {}", from.name()),
                    ],
                ),
                Order::ProposeAlliance { to } => (*to, vec![format!("ACCEPT ALLIANCE FROM {}", from.name())]),
                Order::Gift { to, .. } | Order::Loan { to, .. } => (*to, vec![]),
                // 11.1.4, 11.4.4: a cession takes effect only if the
                // receiver accepts it in the same step.
                Order::Political(PoliticalOrder::Cede { to, .. }) => {
                    let kingdom = l
                        .text
                        .get(5..)
                        .and_then(|t| t.rsplit_once(" TO "))
                        .map_or(String::new(), |(k, _)| k.to_string());
                    (
                        *to,
                        vec![
                            format!("ACCEPT {kingdom} FROM {}", from.name()),
                            format!("REFUSE {kingdom} FROM {}", from.name()),
                        ],
                    )
                }
                _ => continue,
            };
            let answered = orders
                .get(&to)
                .and_then(|theirs| theirs.iter().find_map(|t| answer_to(&l.order, *from, &t.order)))
                .map(str::to_string);
            out.push(Proposal {
                from: *from,
                to,
                text: l.text.clone(),
                answers,
                answered,
            });
        }
    }
    out
}

/// How `answer` (an order of the proposal's recipient) answers
/// `proposal`, made by `from`, if it does: it must name `from` and, for a
/// cession, the same kingdom (11.1.4).
fn answer_to(proposal: &Order, from: PowerId, answer: &Order) -> Option<&'static str> {
    use PoliticalOrder::{Accept, Cede, Refuse};
    match (proposal, answer) {
        (Order::OfferPeace { .. }, Order::AcceptPeace { from: f }) if *f == from => Some("accepted"),
        (Order::OfferPeace { .. }, Order::RejectPeace { from: f }) if *f == from => Some("rejected"),
        (Order::ProposeAlliance { .. }, Order::AcceptAlliance { from: f }) if *f == from => Some("accepted"),
        (Order::Political(Cede { kingdom, .. }), Order::Political(Accept { kingdom: k, from: f }))
            if *f == from && k == kingdom =>
        {
            Some("accepted")
        }
        (Order::Political(Cede { kingdom, .. }), Order::Political(Refuse { kingdom: k, from: f }))
            if *f == from && k == kingdom =>
        {
            Some("refused")
        }
        _ => None,
    }
}

/// The proposals among `orders` (the open phase's stored submissions)
/// that hold the phase open until its deadline (issue 33): each needs an
/// answer in this phase from a power with a player (`players`; an NPC
/// answers through the rules, 5.1, 4.71), has none yet, and its
/// recipient has not passed (a `NO ORDERS` / `PASS`, whatever else its
/// mail carried: `passed`; or a submission of no order at all, ends the
/// wait).
pub fn awaited_answers(
    orders: &BTreeMap<PowerId, Vec<OrderLine>>,
    players: &[PowerId],
    passed: &[PowerId],
) -> Vec<Proposal> {
    proposals(orders)
        .into_iter()
        .filter(|p| {
            !p.answers.is_empty()
                && p.answered.is_none()
                && players.contains(&p.to)
                && !passed.contains(&p.to)
                && !orders.get(&p.to).is_some_and(|o| o.is_empty())
        })
        .collect()
}

impl Proposal {
    /// What holds the phase open, as `viewer` may read it (`None`: the
    /// moderator, who reads everything): the proposer and the recipient
    /// read whose answer to what; any other power only that an answer to
    /// a proposal between other powers is awaited (diplomacy is private).
    pub fn awaiting(&self, viewer: Option<PowerId>) -> String {
        match viewer {
            Some(v) if v != self.from && v != self.to => "an answer to a proposal between other powers".to_string(),
            _ => format!("{}'s answer to {}'s {}", self.to.name(), self.from.name(), self.text),
        }
    }

    /// The line for `viewer` (the proposer or the recipient), naming the
    /// phase in which the answer counts.
    pub fn line_for(&self, viewer: PowerId, phase: &str) -> String {
        let by_me = viewer == self.from;
        match (&self.answered, self.answers.is_empty(), by_me) {
            (_, true, true) => format!("you: {} (takes effect when phase {phase} resolves)", self.text),
            (_, true, false) => format!(
                "{}: {} (needs no answer; takes effect when phase {phase} resolves)",
                self.from.name(),
                self.text
            ),
            (Some(a), _, true) => format!("you: {} ({} {a} it)", self.text, self.to.name()),
            (Some(a), _, false) => format!("{}: {} (you {a} it)", self.from.name(), self.text),
            (None, _, true) => format!(
                "you: {} ({}'s answer counts only in phase {phase}; none yet)",
                self.text,
                self.to.name()
            ),
            (None, _, false) => format!(
                "{}: {}. Answer {} in phase {phase} (this phase); an answer in any other phase does not count",
                self.from.name(),
                self.text,
                self.answers.join(" or ")
            ),
        }
    }
}

/// Per power, the lines of the proposals pending for and from it in the
/// open phase of `state`, given the stored orders.
pub fn pending_proposals(state: &State, orders: &BTreeMap<PowerId, Vec<OrderLine>>) -> BTreeMap<PowerId, Vec<String>> {
    let phase = state.phase.to_string();
    let mut out: BTreeMap<PowerId, Vec<String>> = BTreeMap::new();
    for p in proposals(orders) {
        for viewer in [p.from, p.to] {
            out.entry(viewer).or_default().push(p.line_for(viewer, &phase));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A battle as the engine reports it: the detailed report for its
    /// sides and the one-line public result (5.6).
    fn battle() -> Vec<Outcome> {
        let summary = "Battle of Tyrol: France defeats Austria";
        vec![
            Outcome::new("5.6", Kind::Battle, summary)
                .at("tyrol")
                .only(vec![PowerId::France, PowerId::Austria]),
            Outcome::new("5.6", Kind::BattleResult, summary).at("tyrol"),
        ]
    }

    #[test]
    fn a_battle_is_shown_once_to_every_viewer() {
        let outcomes = battle();
        for viewer in [None, Some(PowerId::France), Some(PowerId::Russia)] {
            let events = TurnReportView::events_for(&outcomes, viewer);
            assert_eq!(events.len(), 1, "{viewer:?}: {events:?}");
        }
        let russia = TurnReportView::events_for(&outcomes, Some(PowerId::Russia));
        assert_eq!(russia[0].summary, "Battle of Tyrol: France defeats Austria");
    }

    fn line(order: Order, text: &str) -> OrderLine {
        OrderLine {
            order,
            text: text.into(),
            span: crate::diagnostic::Span::new(1, 1, 1),
        }
    }

    // Issue 33: which answers hold the phase open. An answer or a PASS
    // (no order at all) ends the wait; an NPC answers through the rules;
    // a gift needs no answer; a cession waits for ACCEPT or REFUSE.
    #[test]
    fn an_answer_is_awaited_until_given_or_passed_and_only_from_a_player() {
        use PowerId::*;
        let ally = |to| line(Order::ProposeAlliance { to }, "PROPOSE ALLIANCE");
        let gift = line(Order::Gift { to: Austria, gold: 2 }, "GIFT 2 GOLD TO Austria");
        let cede = line(
            Order::Political(PoliticalOrder::Cede {
                kingdom: "poland".into(),
                to: Russia,
            }),
            "CEDE Poland TO Russia",
        );
        let players = [France, Prussia, Austria, Russia];
        let mut orders = BTreeMap::from([(France, vec![ally(Prussia), ally(Spain), gift, cede])]);
        let from = |o: &BTreeMap<PowerId, Vec<OrderLine>>| {
            awaited_answers(o, &players, &[])
                .iter()
                .map(|p| p.to)
                .collect::<Vec<_>>()
        };
        assert_eq!(from(&orders), [Prussia, Russia]);
        let cession = &proposals(&orders)[3];
        assert_eq!(
            cession.answers,
            ["ACCEPT Poland FROM France", "REFUSE Poland FROM France"]
        );
        // Prussia orders something else: still awaited. Then passes.
        orders.insert(Prussia, vec![line(Order::BuyVp { gold: 1 }, "BUY 1 VP")]);
        assert_eq!(from(&orders), [Prussia, Russia]);
        orders.insert(Prussia, vec![]);
        assert_eq!(from(&orders), [Russia]);
        // A PASS with a standing order ends it too.
        let standing = line(
            Order::Standing(crate::orders::ast::Standing::Withdraw { ratio: None }),
            "STANDING WITHDRAW NEVER",
        );
        orders.insert(Prussia, vec![standing]);
        assert_eq!(from(&orders), [Prussia, Russia]);
        assert_eq!(
            awaited_answers(&orders, &players, &[Prussia])
                .iter()
                .map(|p| p.to)
                .collect::<Vec<_>>(),
            [Russia]
        );
        orders.insert(Prussia, vec![]);
        // Russia refuses the cession: nothing is awaited.
        let refuse = Order::Political(PoliticalOrder::Refuse {
            kingdom: "poland".into(),
            from: France,
        });
        orders.insert(Russia, vec![line(refuse, "REFUSE Poland FROM France")]);
        assert!(from(&orders).is_empty());
        // An answer, not a pass, ends it too.
        orders.insert(Prussia, vec![line(Order::AcceptAlliance { from: France }, "ACCEPT")]);
        assert_eq!(proposals(&orders)[0].answered.as_deref(), Some("accepted"));
        assert!(from(&orders).is_empty());
    }

    // Issue 33: a cession's answer names the giver and the kingdom, and
    // comes from the receiver: an ACCEPT of another kingdom, or from
    // another giver, or a third power's, answers nothing.
    #[test]
    fn a_cession_is_answered_only_by_its_receiver_naming_giver_and_kingdom() {
        use PowerId::*;
        let cede = |kingdom: &str, to| {
            line(
                Order::Political(PoliticalOrder::Cede {
                    kingdom: kingdom.into(),
                    to,
                }),
                &format!("CEDE {kingdom} TO {}", to.name()),
            )
        };
        let accept = |kingdom: &str, from| {
            line(
                Order::Political(PoliticalOrder::Accept {
                    kingdom: kingdom.into(),
                    from,
                }),
                "ACCEPT",
            )
        };
        let players = [France, Prussia, Austria, Russia];
        let answered = |o: &BTreeMap<PowerId, Vec<OrderLine>>| {
            proposals(o)
                .into_iter()
                .map(|p| (p.text, p.answered))
                .collect::<Vec<_>>()
        };
        let mut orders = BTreeMap::from([
            (France, vec![cede("poland", Russia), cede("bavaria", Russia)]),
            (Austria, vec![cede("poland", Russia)]),
        ]);
        // Russia accepts France's Bavaria only: Poland (France's and
        // Austria's) is still awaited.
        orders.insert(Russia, vec![accept("bavaria", France)]);
        assert_eq!(
            answered(&orders),
            [
                ("CEDE poland TO Russia".to_string(), None),
                ("CEDE bavaria TO Russia".to_string(), Some("accepted".to_string())),
                ("CEDE poland TO Russia".to_string(), None),
            ]
        );
        assert_eq!(awaited_answers(&orders, &players, &[]).len(), 2);
        // Prussia, a third power, accepts France's Poland: still awaited.
        orders.insert(Prussia, vec![accept("poland", France)]);
        assert_eq!(awaited_answers(&orders, &players, &[]).len(), 2);
        // Russia accepts Austria's Poland: France's is still awaited.
        orders.get_mut(&Russia).unwrap().push(accept("poland", Austria));
        let left = awaited_answers(&orders, &players, &[]);
        assert_eq!(
            left.iter().map(|p| (p.from, p.to)).collect::<Vec<_>>(),
            [(France, Russia)]
        );
        assert_eq!(left[0].text, "CEDE poland TO Russia");
    }
}
