//! The normalised one-line form of a resolved order: canonical keywords,
//! full unit names, display names of places. It parses back to the same
//! order (tested), so a player may paste an acknowledgement line.

use super::ast::{EmbargoAction, NavalOrder, Order, PoliticalOrder, Situation, Standing, Terms};
use crate::ids::PowerId;
use crate::scenario::Scenario;
use crate::state::UnitKey;
use crate::state::nation_adjective;

fn prov(s: &Scenario, id: &str) -> String {
    s.map
        .province(id)
        .map(|p| p.name.clone())
        .unwrap_or_else(|| id.to_string())
}

fn sea(s: &Scenario, id: &str) -> String {
    s.map.sea(id).map(|p| p.name.clone()).unwrap_or_else(|| id.to_string())
}

fn units(s: &Scenario, ks: &[UnitKey]) -> String {
    ks.iter().map(|k| k.handle(s)).collect::<Vec<_>>().join(", ")
}

fn terms(s: &Scenario, t: &Terms) -> String {
    let mut out = String::new();
    if t.gold > 0 {
        out.push_str(&format!(" {} GOLD", t.gold));
    }
    if t.vp > 0 {
        out.push_str(&format!(" {} VP", t.vp));
    }
    if !t.provinces.is_empty() {
        let names: Vec<String> = t.provinces.iter().map(|p| prov(s, p)).collect();
        out.push_str(&format!(" CEDE {}", names.join(", ")));
    }
    // 11.9.2.2 peace conditions (EiA option political)
    for l in &t.remove_leaders {
        out.push_str(&format!(" REMOVE {l}"));
    }
    if t.remove_squadrons > 0 {
        out.push_str(&format!(" REMOVE {} SQUADRONS", t.remove_squadrons));
    }
    if t.access {
        out.push_str(" ACCESS");
    }
    out
}

fn name(p: PowerId) -> &'static str {
    p.name()
}

/// A kingdom's display name (its id if unknown).
fn kingdom(s: &Scenario, id: &str) -> String {
    s.tables
        .political
        .kingdom(id)
        .map_or_else(|| id.to_string(), |k| k.name.clone())
}

fn political(s: &Scenario, o: &PoliticalOrder) -> String {
    let list = |ps: &[String]| ps.iter().map(|p| prov(s, p)).collect::<Vec<_>>().join(", ");
    match o {
        PoliticalOrder::Create { kingdom: k, provinces } if provinces.is_empty() => {
            format!("CREATE {}", kingdom(s, k))
        }
        PoliticalOrder::Create { kingdom: k, provinces } => {
            format!("CREATE {} WITH {}", kingdom(s, k), list(provinces))
        }
        PoliticalOrder::Add { kingdom: k, provinces } => format!("ADD {} TO {}", list(provinces), kingdom(s, k)),
        PoliticalOrder::Cede { kingdom: k, to } => format!("CEDE {} TO {}", kingdom(s, k), name(*to)),
        PoliticalOrder::Accept { kingdom: k, from } => format!("ACCEPT {} FROM {}", kingdom(s, k), name(*from)),
        PoliticalOrder::Refuse { kingdom: k, from } => format!("REFUSE {} FROM {}", kingdom(s, k), name(*from)),
        PoliticalOrder::Dissolve { kingdom: k } => format!("DISSOLVE {}", kingdom(s, k)),
        PoliticalOrder::Improve { leader } => format!("IMPROVE {leader}"),
    }
}

/// The canonical text of an order.
pub fn normalise(s: &Scenario, order: &Order) -> String {
    match order {
        Order::Bid { vp, preferences } => {
            if preferences.is_empty() {
                format!("BID {vp} VP")
            } else {
                let ps: Vec<&str> = preferences.iter().map(|p| name(*p)).collect();
                format!("BID {vp} VP: {}", ps.join(", "))
            }
        }
        Order::Cooperate { with } => format!("COOPERATE WITH {}", name(*with)),
        Order::MoveFirst => "MOVE FIRST".to_string(),
        Order::Draw => "DRAW".to_string(),
        Order::NoDraw => "NODRAW".to_string(),
        Order::OfferPeace { to, terms: t } => format!("OFFER PEACE TO {}{}", name(*to), terms(s, t)),
        Order::AcceptPeace { from } => format!("ACCEPT PEACE FROM {}", name(*from)),
        Order::RejectPeace { from } => format!("REJECT PEACE FROM {}", name(*from)),
        Order::Surrender { to, terms: t } => format!("SURRENDER TO {}{}", name(*to), terms(s, t)),
        Order::SurrenderNpc { npc, to, terms: t } => {
            format!("SURRENDER {} TO {}{}", name(*npc), name(*to), terms(s, t))
        }
        Order::ProposeAlliance { to } => format!("PROPOSE ALLIANCE TO {}", name(*to)),
        Order::AcceptAlliance { from } => format!("ACCEPT ALLIANCE FROM {}", name(*from)),
        Order::BreakAlliance { with } => format!("BREAK ALLIANCE WITH {}", name(*with)),
        Order::DeclareWar { on } => format!("DECLARE WAR ON {}", name(*on)),
        Order::NpcAlliance { npc } => format!("NPC ALLIANCE WITH {}", name(*npc)),
        Order::Embargo { action } => {
            let verb = match action {
                EmbargoAction::Declare => "DECLARE",
                EmbargoAction::Join => "JOIN",
                EmbargoAction::Leave => "LEAVE",
                EmbargoAction::Cancel => "CANCEL",
            };
            format!("{verb} CONTINENTAL SYSTEM")
        }
        Order::Gift { to, gold } => format!("GIFT {gold} GOLD TO {}", name(*to)),
        Order::Loan { to, gold } => format!("LOAN {gold} GOLD TO {}", name(*to)),
        Order::NavalMove {
            squadron,
            path,
            carrying,
            to_port,
        } => {
            let mut out = format!("SAIL {}", squadron.handle(s));
            for z in path {
                out.push_str(&format!(" -> {}", sea(s, z)));
            }
            if let Some(p) = to_port {
                out.push_str(&format!(" INTO {}", prov(s, p)));
            }
            if !carrying.is_empty() {
                out.push_str(&format!(" CARRYING {}", units(s, carrying)));
            }
            out
        }
        Order::NavalAttack { squadron, sea: z } => {
            format!("ATTACK {} IN {}", squadron.handle(s), sea(s, z))
        }
        Order::Blockade { squadron, port } => format!("BLOCKADE {} AT {}", squadron.handle(s), prov(s, port)),
        Order::Naval(NavalOrder::Sortie { squadron }) => format!("SORTIE {}", squadron.handle(s)),
        Order::Naval(NavalOrder::Raid { squadron, port }) => {
            format!("RAID {} AT {}", squadron.handle(s), prov(s, port))
        }
        // 12.2.7.3: hulks off the board are refitted where they lie
        Order::Naval(NavalOrder::Refit { port, count }) if s.map.sea(port).is_some() => {
            format!("REFIT {count} HULKS IN {}", sea(s, port))
        }
        Order::Naval(NavalOrder::Refit { port, count }) => format!("REFIT {count} HULKS IN {}", prov(s, port)),
        Order::Naval(NavalOrder::Convert { squadron, ships }) => {
            format!("CONVERT {ships} SHIPS OF {}", squadron.handle(s))
        }
        Order::Naval(NavalOrder::ConvertNew { port, ships }) => {
            format!("CONVERT {ships} NEW SHIPS IN {}", prov(s, port))
        }
        Order::Political(o) => political(s, o),
        Order::Move { corps, commander, path } => {
            let mut out = format!("MOVE {}", units(s, corps));
            if let Some(c) = commander {
                out.push_str(&format!(" WITH {c}"));
            }
            for p in path {
                out.push_str(&format!(" -> {}", prov(s, p)));
            }
            out
        }
        Order::Besiege { corps, province } => format!("BESIEGE {} IN {}", units(s, corps), prov(s, province)),
        Order::Garrison { corps, province } => {
            format!("GARRISON {} IN {}", corps.handle(s), prov(s, province))
        }
        Order::WithdrawGarrison { province, corps } => {
            format!("WITHDRAW GARRISON FROM {} INTO {}", prov(s, province), corps.handle(s))
        }
        Order::Build { corps, items } => {
            let list: Vec<String> = items
                .iter()
                .map(|it| {
                    if it.nation == corps.nation {
                        format!("{} {}", it.count, it.arm.short())
                    } else {
                        format!("{} {} {}", it.count, nation_adjective(s, &it.nation), it.arm.short())
                    }
                })
                .collect();
            format!("BUILD {}: {}", corps.handle(s), list.join(", "))
        }
        Order::BuildSquadron { port, count, nation } => {
            let word = if *count == 1 { "SQUADRON" } else { "SQUADRONS" };
            let whose = nation
                .as_ref()
                .map(|n| format!("{} ", crate::state::nation_adjective(s, n).to_uppercase()))
                .unwrap_or_default();
            format!("BUILD {count} {whose}{word} IN {}", prov(s, port))
        }
        Order::BuyVp { gold } => format!("BUY VP WITH {gold} GOLD"),
        Order::Standing(st) => standing(s, st),
    }
}

/// The canonical text of a standing order.
fn standing(s: &Scenario, st: &Standing) -> String {
    match st {
        Standing::Intercept { enabled } => {
            format!("STANDING INTERCEPT {}", if *enabled { "ON" } else { "OFF" })
        }
        Standing::CombatOption { situation, option } => {
            let when = match situation {
                Situation::Attacking => "ATTACKING",
                Situation::Defending => "DEFENDING",
                Situation::Any => "ANY",
            };
            format!("STANDING COMBAT {when} {option}")
        }
        Standing::Withdraw { ratio: Some(r) } => format!("STANDING WITHDRAW {r}:1"),
        Standing::Withdraw { ratio: None } => "STANDING WITHDRAW NEVER".to_string(),
        Standing::Retreat { provinces } => {
            let names: Vec<String> = provinces.iter().map(|p| prov(s, p)).collect();
            format!("STANDING RETREAT {}", names.join(", "))
        }
        Standing::NavalTactic { situation, chit } => {
            let when = match situation {
                Situation::Attacking => "ATTACKING",
                Situation::Defending => "DEFENDING",
                Situation::Any => "ANY",
            };
            format!("STANDING TACTIC {when} {}", chit.name().to_ascii_uppercase())
        }
        Standing::NelsonClosing { minus } => format!("STANDING NELSON CLOSE {minus}"),
        Standing::NavalChase { on } => format!("STANDING CHASE {}", if *on { "ON" } else { "OFF" }),
        Standing::NavalAfter { victory, then } => format!(
            "STANDING AFTER {} {}",
            if *victory { "VICTORY" } else { "DRAW" },
            then.word().to_ascii_uppercase()
        ),
        Standing::NavalEvade { on } => format!("STANDING EVADE {}", if *on { "ON" } else { "OFF" }),
        Standing::DisabledTo { ports } if ports.is_empty() => "STANDING DISABLED TO NEAREST".to_string(),
        Standing::DisabledTo { ports } => {
            let names: Vec<String> = ports.iter().map(|p| prov(s, p)).collect();
            format!("STANDING DISABLED TO {}", names.join(", "))
        }
        Standing::PortAccess { to, open } => format!(
            "STANDING PORTS {} TO {}",
            if *open { "OPEN" } else { "CLOSED" },
            to.name()
        ),
        Standing::Clear => "STANDING CLEAR".to_string(),
    }
}
