//! Order words of the EiA naval option (12.2.x): `SORTIE squadron 2`
//! (12.2.9.2, 12.2.6.2), `RAID squadron 1 AT Brest` (12.2.6.3), and the
//! standing orders `STANDING TACTIC ATTACKING melee` (12.2.6.1.1) and
//! `STANDING NELSON CLOSE 2` (12.2.6.1.4.2); in the Mutual Build Phase
//! `REFIT 2 HULKS IN Brest` (12.2.8.3; or IN West Indies, 12.2.7.3) and `CONVERT 3 SHIPS OF squadron 2`
//! (12.2.8.4). The option being in play is the rules engine's question,
//! not the parser's.

use super::{Cur, LineParser, PResult};
use crate::diagnostic::{Diagnostic, Problem};
use crate::orders::ast::{NavalOrder, Order, Standing};
use crate::scenario::tables_naval::Chit;

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
        let count = count_of(cur, &["hulk", "hulks"], "how many hulks, e.g. REFIT 2 HULKS IN Brest")?;
        let start = cur.pos;
        cur.eat_any(&["in", "at"]);
        if let Some((text, _)) = cur.name()
            && let Ok(area) = self.ctx.scenario.map.resolve_sea(&text)
            && area.is_off_board()
        {
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
    /// ordinary (12.2.8.4).
    pub(super) fn convert(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let ships = count_of(
            cur,
            &["ship", "ships"],
            "how many ships, e.g. CONVERT 3 SHIPS OF squadron 2",
        )?;
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

/// `<n> [<noun>]`: the count of REFIT and CONVERT, then its optional noun.
fn count_of(cur: &mut Cur<'_, '_>, nouns: &[&str], help: &str) -> PResult<u32> {
    let (n, _) = cur.number(help)?;
    cur.eat_any(nouns);
    Ok(n)
}
