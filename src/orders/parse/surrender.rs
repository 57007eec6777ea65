//! `SURRENDER <npc> TO <power> [terms]` (5.122): a Player Country
//! surrenders the NPC allied with it. Whether that NPC is its ally and at
//! war with the victor is the rules engine's question (`rules::legality`).

use super::{Cur, LineParser, PResult};
use crate::ids::PowerId;
use crate::orders::ast::Order;

impl LineParser<'_, '_> {
    /// The rest of `SURRENDER <npc> TO …`, after `TO`.
    pub(super) fn surrender_npc(&mut self, npc: PowerId, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let (to, _) = self.power_arg(cur)?;
        let terms = self.terms(cur)?;
        Ok(Order::SurrenderNpc { npc, to, terms })
    }
}
