//! Peace conditions of the EiA political option (11.9.2.2) inside the
//! terms of OFFER PEACE and SURRENDER: `REMOVE Napoleon` (condition C.6,
//! a leader of the power making peace leaves the game), `REMOVE 2
//! SQUADRONS` (C.1.c, its squadrons go back to its force pool) and
//! `ACCESS` (C.5, the other side's forces may enter its provinces). The
//! option being in play is the rules engine's question, not the parser's.

use super::{Cur, LineParser, PResult, or_list, suggest};
use crate::diagnostic::{Diagnostic, Problem, Span};
use crate::map::normalise;
use crate::orders::ast::{Arg, Terms};

impl LineParser<'_, '_> {
    /// One peace condition at the cursor, added to `terms`; `None` when
    /// the cursor is not at one.
    pub(super) fn peace_condition(&mut self, cur: &mut Cur<'_, '_>, terms: &mut Terms) -> Option<PResult<()>> {
        if cur.eat("access") {
            terms.access = true;
            return Some(Ok(()));
        }
        if !cur.eat("remove") {
            return None;
        }
        if cur.peek().is_some_and(|t| matches!(t.kind, super::Tok::Number(_))) {
            let n = match cur.number("the squadrons removed") {
                Ok((n, _)) => n,
                Err(e) => return Some(Err(e)),
            };
            if !cur.eat_any(&["squadrons", "squadron", "fleets", "fleet"]) {
                return Some(Err(cur.expected("'SQUADRONS' after the number (REMOVE 2 SQUADRONS)")));
            }
            terms.remove_squadrons = n;
            return Some(Ok(()));
        }
        let Some((text, span)) = cur.name() else {
            return Some(Err(cur.expected("a leader's name or '<n> SQUADRONS' after REMOVE")));
        };
        if let Some(name) = self.own_leader(&text, span) {
            terms.remove_leaders.push(name);
        }
        Some(Ok(()))
    }

    /// A leader of the power giving the order, by name or surname; an
    /// error (with suggestions) when there is none of that name.
    pub(super) fn own_leader(&mut self, text: &str, span: Span) -> Option<String> {
        let key = normalise(text);
        let me = self.ctx.power;
        let mine: Vec<&str> = self
            .ctx
            .state
            .commanders
            .iter()
            .filter(|c| c.nation == me)
            .map(|c| c.name.as_str())
            .collect();
        let hit = mine
            .iter()
            .find(|n| normalise(n) == key || n.split_whitespace().last().is_some_and(|w| normalise(w) == key));
        if let Some(n) = hit {
            self.args.push(Arg::Commander((*n).to_string()), span);
            return Some((*n).to_string());
        }
        let close: Vec<String> = suggest(text, mine).into_iter().map(str::to_string).collect();
        let d = Diagnostic::error(
            Problem::UnknownCommander,
            format!("{} has no leader '{text}'", me.name()),
            span,
        );
        self.errs.push(if close.is_empty() {
            d
        } else {
            d.with_help(format!("did you mean {}?", or_list(&close)))
        });
        None
    }
}
