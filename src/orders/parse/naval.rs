//! Order words of the EiA naval option (12.2.x): `SORTIE squadron 2`
//! (12.2.9.2, 12.2.6.2) and `RAID squadron 1 AT Brest` (12.2.6.3). The
//! option being in play is the rules engine's question, not the parser's.

use super::{Cur, LineParser, PResult};
use crate::diagnostic::{Diagnostic, Problem};
use crate::orders::ast::{NavalOrder, Order};

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
        cur.eat_any(&["in", "at", "on"]);
        cur.eat("port");
        cur.eat("of");
        let (p, span) = self.province_arg(cur)?;
        if !p.port {
            self.errs.push(Diagnostic::error(
                Problem::NotAPort,
                format!("{} has no port to raid", p.name),
                span,
            ));
        }
        Ok(Order::Naval(NavalOrder::Raid {
            squadron,
            port: p.id.clone(),
        }))
    }
}
