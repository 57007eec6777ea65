//! Order words of the EiA naval option (12.2.x): `SORTIE squadron 2`
//! (12.2.9.2, 12.2.6.2), `RAID squadron 1 AT Brest` (12.2.6.3), and the
//! standing orders `STANDING TACTIC ATTACKING melee` (12.2.6.1.1) and
//! `STANDING NELSON CLOSE 2` (12.2.6.1.4.2), with the choices after a
//! battle `STANDING CHASE OFF` (12.2.6.1.7), `STANDING AFTER VICTORY
//! BLOCKADE` / `STANDING AFTER DRAW PORT` (12.2.6.1.8), `STANDING EVADE
//! OFF` (12.2.7.3), `STANDING DISABLED TO Brest, Ireland` (12.2.6.1.9.1) and
//! `STANDING PORTS CLOSED TO Spain` (12.2.9.3, 12.2.6.3.1); in the Mutual Build Phase
//! `REFIT 2 HULKS IN Brest` (12.2.8.3; or IN West Indies, 12.2.7.3), `CONVERT 3 SHIPS OF squadron 2`
//! and `CONVERT 8 NEW SHIPS IN Brest` (12.2.8.4). The option being in play is the rules engine's question,
//! not the parser's.

use super::{Cur, LineParser, PResult};
use crate::diagnostic::{Diagnostic, Problem};
use crate::orders::ast::{Arg, NavalOrder, Order, Standing};
use crate::scenario::tables_naval::Chit;
use crate::state::naval_standing::AfterBattle;

impl LineParser<'_, '_> {
    /// `SORTIE <squadron>`: attack the blockaders of its port.
    pub(super) fn sortie(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let units = self.units(cur)?;
        let squadron = self.one_squadron(&units)?;
        Ok(Order::Naval(NavalOrder::Sortie { squadron }))
    }

    /// `RAID <squadron> AT <port>`: raid the enemy ships in a port.
    pub(super) fn raid(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let units = self.units(cur)?;
        let squadron = self.one_squadron(&units)?;
        let port = self.port_arg(cur, "raid")?;
        Ok(Order::Naval(NavalOrder::Raid { squadron, port }))
    }

    /// `REFIT <n> [HULK|HULKS] IN|AT <port or off-board area>`: refit
    /// hulks (12.2.8.3); hulks left in the West Indies or the Canaries
    /// "may be refitted normally" there (12.2.7.3, second numbering).
    pub(super) fn refit(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let count = self.amount(cur, "how many hulks, e.g. REFIT 2 HULKS IN Brest")?;
        cur.eat_any(&["hulk", "hulks"]);
        let start = cur.pos;
        cur.eat_any(&["in", "at"]);
        if let Some((text, span)) = cur.name()
            && let Ok(area) = self.ctx.scenario.map.resolve_sea(&text)
            && area.is_off_board()
        {
            self.args.push(Arg::Sea(area.id.clone()), span);
            return Ok(Order::Naval(NavalOrder::Refit {
                port: area.id.clone(),
                count,
            }));
        }
        cur.pos = start;
        let port = self.port_arg(cur, "refit hulks in")?;
        Ok(Order::Naval(NavalOrder::Refit { port, count }))
    }

    /// `CONVERT <n> [SHIP|SHIPS] [OF|FROM] <squadron>`: put ships in
    /// ordinary (12.2.8.4); `CONVERT <n> NEW SHIPS IN <port>`: ships built
    /// this phase, as hulks in a port of the home country.
    pub(super) fn convert(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let ships = self.amount(cur, "how many ships, e.g. CONVERT 3 SHIPS OF squadron 2")?;
        if cur.eat("new") {
            cur.eat_any(&["ship", "ships"]);
            let port = self.port_arg(cur, "put new ships in ordinary in")?;
            return Ok(Order::Naval(NavalOrder::ConvertNew { port, ships }));
        }
        cur.eat_any(&["ship", "ships"]);
        cur.eat_any(&["of", "from", "in"]);
        let units = self.units(cur)?;
        let squadron = self.one_squadron(&units)?;
        Ok(Order::Naval(NavalOrder::Convert { squadron, ships }))
    }

    /// `STANDING TACTIC [WHEN] ATTACKING|DEFENDING|ANY <chit>`.
    pub(super) fn standing_tactic(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Standing> {
        let situation = super::situation(cur)?;
        let help = "a naval tactical chit: LINEAR DEFENCE, LINEAR ATTACK or MELEE";
        let Some((text, span)) = cur.rest_of_words() else {
            return Err(cur.expected(help));
        };
        match Chit::parse(&text) {
            Some(chit) => Ok(Standing::NavalTactic { situation, chit }),
            None => Err(
                Diagnostic::error(Problem::Syntax, format!("'{text}' is not a naval tactical chit"), span)
                    .with_help(help),
            ),
        }
    }

    /// `STANDING NELSON CLOSE 0|1|2`.
    pub(super) fn standing_nelson(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Standing> {
        cur.eat_any(&["close", "closing", "closes"]);
        cur.eat_any(&["with", "at", "minus", "-"]);
        let (minus, span) = cur.number("0, 1 or 2")?;
        if minus > 2 {
            return Err(Diagnostic::error(
                Problem::Syntax,
                "Nelson takes 1 or 2 off his closing roll at most (12.2.6.1.4.2)",
                span,
            ));
        }
        Ok(Standing::NelsonClosing { minus: minus as u8 })
    }
}

impl LineParser<'_, '_> {
    /// `STANDING AFTER VICTORY REMAIN|BLOCKADE|PORT`, `STANDING AFTER DRAW
    /// REMAIN|PORT` (12.2.6.1.8: with no victor "no pursuit is allowed").
    pub(super) fn standing_after(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Standing> {
        let victory = match cur.peek() {
            Some(t) if t.is("victory") || t.is("win") || t.is("winning") => true,
            Some(t) if t.is("draw") || t.is("inconclusive") => false,
            _ => return Err(cur.expected("VICTORY or DRAW")),
        };
        cur.next();
        cur.eat_colon();
        let span = cur.here();
        let then = match cur.peek() {
            Some(t) if t.is("remain") || t.is("stay") => AfterBattle::Remain,
            Some(t) if t.is("blockade") || t.is("pursue") => AfterBattle::Blockade,
            Some(t) if t.is("port") || t.is("retreat") || t.is("return") => AfterBattle::Port,
            _ => return Err(cur.expected("REMAIN, BLOCKADE or PORT")),
        };
        cur.next();
        cur.eat_any(&["to", "in", "at"]);
        cur.eat_any(&["port", "blockade"]);
        if !victory && then == AfterBattle::Blockade {
            return Err(Diagnostic::error(
                Problem::Syntax,
                "with no victor no pursuit is allowed: REMAIN or PORT (12.2.6.1.8)",
                span,
            ));
        }
        Ok(Standing::NavalAfter { victory, then })
    }

    /// `STANDING DISABLED [SHIPS] TO <port>, <port>…` (best first), or
    /// `STANDING DISABLED TO NEAREST` (the default).
    pub(super) fn standing_disabled(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Standing> {
        cur.eat_any(&["ships", "ship"]);
        cur.eat_any(&["to", "into"]);
        cur.eat_colon();
        if cur.eat_any(&["nearest", "default"]) {
            cur.eat("port");
            return Ok(Standing::DisabledTo { ports: Vec::new() });
        }
        let mut ports = Vec::new();
        loop {
            ports.push(self.port_arg(cur, "take disabled ships to")?);
            if !(cur.eat_sep() || cur.eat("then") || cur.eat("and")) {
                break;
            }
        }
        Ok(Standing::DisabledTo { ports })
    }

    /// `STANDING PORTS CLOSED|OPEN TO <power>`.
    pub(super) fn standing_ports(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Standing> {
        let open = match cur.peek() {
            Some(t) if t.is("open") || t.is("granted") => true,
            Some(t) if t.is("closed") || t.is("close") || t.is("denied") => false,
            _ => return Err(cur.expected("OPEN or CLOSED")),
        };
        cur.next();
        cur.eat_any(&["to", "for"]);
        let (to, _) = self.power_arg(cur)?;
        Ok(Standing::PortAccess { to, open })
    }
}

#[cfg(test)]
mod tests {
    use crate::ids::PowerId;
    use crate::scenario::Scenario;
    use crate::state::State;

    fn check(text: &str) -> (Vec<String>, Vec<String>) {
        let s = Scenario::embedded("1805").expect("embedded scenario");
        let state = State::initial(&s, "t", &Default::default(), Default::default());
        let c = crate::orders::check(text, &s, &state, Some(PowerId::France));
        (
            c.accepted.iter().map(|o| o.text.clone()).collect(),
            c.diagnostics.iter().map(|d| d.message.clone()).collect(),
        )
    }

    #[test]
    fn the_naval_choices_echo_in_canonical_form() {
        let (ok, errs) = check(
            "standing chase off\nstanding after draw retreat\nstanding evade no\nstanding disabled ships to nearest\nstanding ports open to spain",
        );
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(
            ok,
            [
                "STANDING CHASE OFF",
                "STANDING AFTER DRAW PORT",
                "STANDING EVADE OFF",
                "STANDING DISABLED TO NEAREST",
                "STANDING PORTS OPEN TO Spain",
            ]
        );
    }

    #[test]
    fn no_pursuit_without_a_victor_and_clear_errors() {
        let (ok, errs) = check("standing after draw blockade");
        assert!(ok.is_empty());
        assert!(errs[0].contains("no pursuit is allowed"), "{errs:?}");
        let (_, errs) = check("standing after lunch remain");
        assert!(errs[0].contains("VICTORY or DRAW"), "{errs:?}");
        let (_, errs) = check("standing ports ajar to spain");
        assert!(errs[0].contains("OPEN or CLOSED"), "{errs:?}");
        let (_, errs) = check("standing disabled to bohemia");
        assert!(errs[0].contains("no port"), "{errs:?}");
    }
}
