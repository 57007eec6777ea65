//! Order words of the EiA political option (11.1–11.7), given in the
//! New Political Combinations Step of the Winterphase:
//! `CREATE Poland WITH Masovia, West Galicia` (11.1.1, 11.1.1.1),
//! `ADD East Galicia TO Poland` (11.1.1.1), `CEDE Poland TO Russia`
//! (11.1.4, 11.4.4) with the receiver's `ACCEPT Poland FROM France` or
//! `REFUSE Poland FROM France`, `DISSOLVE Poland` (11.1.4, 8.8.5) and, in the same
//! step, `IMPROVE Kutuzov` (11.8.2.5: the leader a power that becomes
//! dominant improves; without it the engine picks). Kingdoms are
//! named as `tables/political.toml` names them. The option being in play
//! is the rules engine's question, not the parser's.

use super::{Cur, LineParser, PResult};
use crate::diagnostic::{Diagnostic, Problem, Span};
use crate::orders::ast::{Order, PoliticalOrder};
use crate::orders::lexer::Tok;

impl LineParser<'_, '_> {
    /// A kingdom's name (`Poland`, `Kingdom of Italy`, `the Ottoman Empire`).
    fn kingdom_arg(&mut self, cur: &mut Cur<'_, '_>) -> PResult<String> {
        let Some((text, span)) = cur.name() else {
            return Err(cur.expected("a kingdom (Poland, Italy, Westphalia, Bavaria, Rhine, Ottoman Empire)"));
        };
        self.kingdom_named(&text, span)
    }

    fn kingdom_named(&self, text: &str, span: Span) -> PResult<String> {
        let t = &self.ctx.scenario.tables.political;
        let bare = text
            .split_whitespace()
            .skip_while(|w| w.eq_ignore_ascii_case("kingdom") || w.eq_ignore_ascii_case("of"))
            .collect::<Vec<_>>()
            .join(" ");
        match t.find(text).or_else(|| t.find(&bare)) {
            Some(k) => Ok(k.id.clone()),
            None => {
                let names: Vec<&str> = t.kingdoms.iter().map(|k| k.name.as_str()).collect();
                Err(
                    Diagnostic::error(Problem::UnknownNation, format!("no kingdom '{text}'"), span)
                        .with_help(format!("kingdoms: {}", names.join(", "))),
                )
            }
        }
    }

    /// Provinces separated by commas or `and`.
    fn province_list(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Vec<String>> {
        let mut out = Vec::new();
        loop {
            let (p, _) = self.province_arg(cur)?;
            out.push(p.id.clone());
            if !(cur.peek().is_some_and(|t| t.kind == Tok::Comma) || cur.is("and")) {
                return Ok(out);
            }
            cur.next();
        }
    }

    /// `CREATE <kingdom> [WITH <province>, …]` (11.x.1, 11.1.1.1).
    pub(super) fn create_kingdom(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let kingdom = self.kingdom_arg(cur)?;
        let provinces = if cur.eat_any(&["with", "of"]) {
            self.province_list(cur)?
        } else {
            Vec::new()
        };
        cur.finish()?;
        Ok(Order::Political(PoliticalOrder::Create { kingdom, provinces }))
    }

    /// `ADD <province>, … TO <kingdom>` (11.1.1.1).
    pub(super) fn add_to_kingdom(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let provinces = self.province_list(cur)?;
        if !cur.eat("to") {
            return Err(cur.expected("'TO <kingdom>'"));
        }
        let kingdom = self.kingdom_arg(cur)?;
        cur.finish()?;
        Ok(Order::Political(PoliticalOrder::Add { kingdom, provinces }))
    }

    /// `CEDE <kingdom> TO <power>` (11.1.4, 11.4.4).
    pub(super) fn cede_kingdom(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let kingdom = self.kingdom_arg(cur)?;
        if !cur.eat("to") {
            return Err(cur.expected("'TO <power>'"));
        }
        let (to, _) = self.power_arg(cur)?;
        cur.finish()?;
        Ok(Order::Political(PoliticalOrder::Cede { kingdom, to }))
    }

    /// `ACCEPT <kingdom> FROM <power>` / `REFUSE <kingdom> FROM <power>`
    /// (11.1.4, 11.4.4): the receiver's answer to a `CEDE`.
    pub(super) fn answer_kingdom(&mut self, cur: &mut Cur<'_, '_>, yes: bool) -> PResult<Order> {
        if cur.peek().is_none() {
            return Err(cur.expected("'peace', 'alliance' or a kingdom ceded to you (ACCEPT Poland FROM France)"));
        }
        let kingdom = self.kingdom_arg(cur)?;
        if !cur.eat("from") {
            return Err(cur.expected("'FROM <power>'"));
        }
        let (from, _) = self.power_arg(cur)?;
        cur.finish()?;
        Ok(Order::Political(if yes {
            PoliticalOrder::Accept { kingdom, from }
        } else {
            PoliticalOrder::Refuse { kingdom, from }
        }))
    }

    /// `IMPROVE <leader>` (11.8.2.5): one of the power's own leaders.
    pub(super) fn improve_leader(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let Some((text, span)) = cur.name() else {
            return Err(cur.expected("a leader of yours to improve (IMPROVE Kutuzov)"));
        };
        cur.finish()?;
        match self.own_leader(&text, span) {
            Some(leader) => Ok(Order::Political(PoliticalOrder::Improve { leader })),
            // `own_leader` recorded the error (with its suggestions)
            None => Err(self
                .errs
                .pop()
                .unwrap_or_else(|| Diagnostic::error(Problem::UnknownCommander, format!("no leader '{text}'"), span))),
        }
    }

    /// `DISSOLVE <kingdom>` (11.1.4, 8.8.5).
    pub(super) fn dissolve_kingdom(&mut self, cur: &mut Cur<'_, '_>) -> PResult<Order> {
        let kingdom = self.kingdom_arg(cur)?;
        cur.finish()?;
        Ok(Order::Political(PoliticalOrder::Dissolve { kingdom }))
    }
}
