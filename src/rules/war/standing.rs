//! Standing orders and their documented defaults.
//!
//! Every question a battle, interception or retreat asks of a power is
//! answered here, and the answer says what decided it: the power's
//! standing order, or the default. Standing orders are stored in
//! `state.standing` and persist until replaced (`standing clear` resets
//! them). Defaults:
//!
//! | question | default |
//! |---|---|
//! | intercept (5.4) | yes, every enemy squadron in reach |
//! | combat option (5.6) | the legal option with the highest modifier (ties: lowest loss shift, then the first in the table) |
//! | withdraw before battle (5.6) | never: stand and fight |
//! | retreat (5.6) | the mover's own province it came from; else an adjacent friendly province, home first, then the fewest enemy neighbours, then by id |
//! | naval tactical chit (12.2.6.1.1, option `naval`) | linear attack when attacking, linear defence when defending |
//! | Nelson's closing modifier (12.2.6.1.4.2) | 0: he takes no extra risk |
//! | general chase (12.2.6.1.7, option `naval`) | the victor chases |
//! | after a victory (12.2.6.1.8) | the victor remains in the sea zone |
//! | after a battle with no victor (12.2.6.1.8) | both remain in the sea zone |
//! | evade when attacked off the board (12.2.7.3) | yes, on a d6 of 1–3 |
//! | port for disabled ships (12.2.6.1.9.1) | the nearest usable port |
//! | access to the power's ports (12.2.9.3, 12.2.6.3.1) | open to every power it is not at war with |

use crate::ids::PowerId;
use crate::orders::ast::{Situation, Standing};
use crate::rules::Kind;
use crate::rules::Outcome;
use crate::scenario::tables_naval::Chit;
use crate::state::naval_standing::AfterBattle;
use crate::state::{StandingOrders, State};

/// What decided a question: shown in every outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decided {
    Standing(String),
    Default(String),
}

impl std::fmt::Display for Decided {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Decided::Standing(s) => write!(f, "standing order: {s}"),
            Decided::Default(s) => write!(f, "default: {s}"),
        }
    }
}

fn situation_key(s: Situation) -> &'static str {
    match s {
        Situation::Attacking => "attacking",
        Situation::Defending => "defending",
        Situation::Any => "any",
    }
}

/// Store one standing order of `power`; `None` when it changes nothing
/// (the same order recorded twice reports once).
pub fn record(state: &mut State, power: PowerId, order: &Standing) -> Option<Outcome> {
    let before = state.standing.get(&power).cloned();
    let entry = state.standing.entry(power).or_default();
    let text = match order {
        Standing::Intercept { enabled } => {
            entry.intercept = Some(*enabled);
            format!("intercept {}", on_off(*enabled))
        }
        Standing::CombatOption { situation, option } => {
            entry
                .combat
                .insert(situation_key(*situation).to_string(), option.clone());
            format!("combat option {option} when {}", situation_key(*situation))
        }
        Standing::Withdraw { ratio } => {
            entry.withdraw_ratio = *ratio;
            match ratio {
                Some(r) => format!("withdraw when outnumbered more than {r}:1"),
                None => "always stand".to_string(),
            }
        }
        Standing::Retreat { provinces } => {
            entry.retreat = provinces.clone();
            format!("retreat to {}", provinces.join(", "))
        }
        Standing::NavalTactic { situation, chit } => {
            entry.naval_tactic.insert(situation_key(*situation).to_string(), *chit);
            format!("naval tactic {} when {}", chit.name(), situation_key(*situation))
        }
        Standing::NelsonClosing { minus } => {
            entry.nelson_closing = Some(*minus);
            format!("Nelson takes {minus} off his closing roll")
        }
        Standing::NavalChase { on } => {
            entry.naval.chase = Some(*on);
            format!("general chase {}", on_off(*on))
        }
        Standing::NavalAfter { victory, then } => {
            let (slot, when) = if *victory {
                (&mut entry.naval.after_victory, "victory")
            } else {
                (&mut entry.naval.after_draw, "draw")
            };
            *slot = Some(*then);
            format!("after a {when}: {}", then.word())
        }
        Standing::NavalEvade { on } => {
            entry.naval.evade = Some(*on);
            format!("evade off the board {}", on_off(*on))
        }
        Standing::DisabledTo { ports } => {
            entry.naval.disabled_to = ports.clone();
            if ports.is_empty() {
                "disabled ships to the nearest port".to_string()
            } else {
                format!("disabled ships to {}", ports.join(", "))
            }
        }
        Standing::PortAccess { to, open } => {
            if *open {
                entry.naval.ports_closed_to.remove(to);
            } else {
                entry.naval.ports_closed_to.insert(*to);
            }
            format!("ports {} to {}", if *open { "open" } else { "closed" }, to.name())
        }
        Standing::Clear => {
            *entry = StandingOrders::default();
            "standing orders cleared".to_string()
        }
    };
    if state.standing.get(&power) == Some(&StandingOrders::default()) {
        state.standing.remove(&power);
    }
    if state.standing.get(&power) == before.as_ref() {
        return None;
    }
    Some(
        Outcome::new("5.6", Kind::StandingOrder, format!("{}: {text}", power.name()))
            .power(power)
            .only(vec![power]),
    )
}

/// A power's standing orders; an NPC without its own uses those of the
/// player who runs it (3.31: Allied and Controlled NPCs are run by a PC).
fn of(state: &State, power: PowerId) -> Option<&StandingOrders> {
    state.standing.get(&power).or_else(|| {
        state
            .ordered_by(power)
            .filter(|p| *p != power)
            .and_then(|p| state.standing.get(&p))
    })
}

/// `on` or `off`, as a standing order's note says it.
fn on_off(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

/// A standing ON/OFF choice: what `set` says (noted as "`what` on|off"),
/// else on by default (noted as `default`).
fn switch(set: Option<bool>, what: &str, default: &str) -> (bool, Decided) {
    match set {
        Some(on) => (on, Decided::Standing(format!("{what} {}", on_off(on)))),
        None => (true, Decided::Default(default.into())),
    }
}

/// 5.4: does `power` intercept?
pub fn intercepts(state: &State, power: PowerId) -> (bool, Decided) {
    switch(
        of(state, power).and_then(|s| s.intercept),
        "intercept",
        "intercept every enemy squadron in reach",
    )
}

/// 5.6: the option `power` wants in `situation`, if it has a standing
/// order for it (the specific situation first, then `any`).
pub fn wanted_option(state: &State, power: PowerId, situation: Situation) -> Option<String> {
    let s = of(state, power)?;
    s.combat
        .get(situation_key(situation))
        .or_else(|| s.combat.get("any"))
        .cloned()
}

/// 12.2.6.1.1: the naval tactical chit `power` selects in `situation`
/// (its standing order for the situation, then for `any`, else the
/// default: linear attack attacking, linear defence defending).
pub fn naval_tactic(state: &State, power: PowerId, situation: Situation) -> (Chit, Decided) {
    let key = situation_key(situation);
    let s = of(state, power);
    if let Some(c) = s.and_then(|s| s.naval_tactic.get(key)) {
        return (*c, Decided::Standing(format!("naval tactic {} when {key}", c.name())));
    }
    if let Some(c) = s.and_then(|s| s.naval_tactic.get("any")) {
        return (
            *c,
            Decided::Standing(format!("naval tactic {} (any situation)", c.name())),
        );
    }
    let c = if situation == Situation::Attacking {
        Chit::LinearAttack
    } else {
        Chit::LinearDefence
    };
    (c, Decided::Default(format!("{} when {key}", c.name())))
}

/// 12.2.6.1.4.2: what Nelson takes off his closing roll (default 0).
pub fn nelson_closing(state: &State, power: PowerId) -> (u32, Decided) {
    match of(state, power).and_then(|s| s.nelson_closing) {
        Some(m) => (u32::from(m), Decided::Standing(format!("Nelson closing -{m}"))),
        None => (0, Decided::Default("Nelson takes no extra risk".into())),
    }
}

/// 12.2.6.1.7: does the victor `power` declare the general chase?
pub fn naval_chase(state: &State, power: PowerId) -> (bool, Decided) {
    switch(
        of(state, power).and_then(|s| s.naval.chase),
        "chase",
        "the victor chases",
    )
}

/// 12.2.6.1.8: what a fleet of `power` does after a victory (`victory`)
/// or a battle with no victor (default: remain in the sea zone).
pub fn after_battle(state: &State, power: PowerId, victory: bool) -> (AfterBattle, Decided) {
    let when = if victory { "victory" } else { "draw" };
    let set = of(state, power).and_then(|s| {
        if victory {
            s.naval.after_victory
        } else {
            s.naval.after_draw
        }
    });
    match set {
        Some(a) => (a, Decided::Standing(format!("after {when} {}", a.word()))),
        None => (AfterBattle::Remain, Decided::Default(format!("remain after a {when}"))),
    }
}

/// 12.2.7.3: does an attacked fleet of `power` off the board try to
/// evade? (default yes)
pub fn evades(state: &State, power: PowerId) -> (bool, Decided) {
    switch(
        of(state, power).and_then(|s| s.naval.evade),
        "evade",
        "an attacked fleet tries to evade",
    )
}

/// 12.2.6.1.9.1: the ports `power` wants its disabled ships taken to,
/// best first (empty: the nearest).
pub fn disabled_ports(state: &State, power: PowerId) -> Vec<String> {
    of(state, power)
        .map(|s| s.naval.disabled_to.clone())
        .unwrap_or_default()
}

/// 12.2.9.3, 12.2.6.3.1 (EiA 6.3.1.3): has `holder` denied `to` access
/// to its ports? (default: no)
pub fn denies_access(state: &State, holder: PowerId, to: PowerId) -> bool {
    holder != to && of(state, holder).is_some_and(|s| s.naval.ports_closed_to.contains(&to))
}

/// 5.6: does `power` withdraw before battle, outnumbered `enemy`:`own`?
pub fn withdraws(state: &State, power: PowerId, own: u32, enemy: u32) -> (bool, Decided) {
    match of(state, power).and_then(|s| s.withdraw_ratio) {
        Some(r) => {
            let w = enemy > own.saturating_mul(r);
            (
                w,
                Decided::Standing(format!("withdraw when outnumbered more than {r}:1 ({enemy} to {own})")),
            )
        }
        None => (false, Decided::Default("stand and fight".into())),
    }
}

/// Preferred retreat provinces of `power` (may be empty).
pub fn retreat_preferences(state: &State, power: PowerId) -> Vec<String> {
    of(state, power).map(|s| s.retreat.clone()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PowerId;

    fn bare() -> State {
        let s = crate::scenario::Scenario::embedded("1805").expect("embedded scenario");
        State::initial(&s, "t", &Default::default(), Default::default())
    }

    #[test]
    fn recording_twice_reports_once_and_clear_resets() {
        let mut state = bare();
        let o = Standing::Intercept { enabled: false };
        assert!(record(&mut state, PowerId::Britain, &o).is_some());
        assert!(record(&mut state, PowerId::Britain, &o).is_none());
        assert!(!intercepts(&state, PowerId::Britain).0);
        assert!(record(&mut state, PowerId::Britain, &Standing::Clear).is_some());
        assert!(!state.standing.contains_key(&PowerId::Britain));
        let (on, d) = intercepts(&state, PowerId::Britain);
        assert!(on);
        assert!(matches!(d, Decided::Default(_)));
    }

    #[test]
    fn a_specific_situation_beats_any() {
        let mut state = bare();
        let p = PowerId::France;
        record(
            &mut state,
            p,
            &Standing::CombatOption {
                situation: Situation::Any,
                option: "probe".into(),
            },
        );
        record(
            &mut state,
            p,
            &Standing::CombatOption {
                situation: Situation::Attacking,
                option: "grand_assault".into(),
            },
        );
        assert_eq!(
            wanted_option(&state, p, Situation::Attacking).as_deref(),
            Some("grand_assault")
        );
        assert_eq!(wanted_option(&state, p, Situation::Defending).as_deref(), Some("probe"));
    }

    #[test]
    fn withdrawal_compares_with_the_ratio() {
        let mut state = bare();
        let p = PowerId::Austria;
        assert!(!withdraws(&state, p, 1, 10).0, "default: stand");
        record(&mut state, p, &Standing::Withdraw { ratio: Some(2) });
        assert!(withdraws(&state, p, 3, 7).0);
        assert!(!withdraws(&state, p, 3, 6).0);
    }
}
