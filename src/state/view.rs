//! What one power may see of the state (2.5): everything on the map, but
//! not the divisions inside other powers' corps, nor their force pools.

use super::{PoolState, State};
use crate::ids::PowerId;

impl State {
    /// The state as `viewer` may see it: foreign corps keep their position
    /// but their divisions are removed (2.5: "the composition of each
    /// player's Corps is not open to inspection"); foreign force pools are
    /// zeroed. Units `viewer` gives orders for (its Allied or Controlled
    /// NPCs, 3.31) stay visible.
    pub fn view_for(&self, viewer: PowerId) -> State {
        self.view_where(|p| p.is_some_and(|p| self.sees_records_of(Some(viewer), p)))
    }

    /// Whether `viewer` (`None`: the moderator, who sees all) may see
    /// `p`'s own records (2.5): its corps' compositions, its force pool,
    /// its standing orders, its kingdoms' treasuries. A power sees its
    /// own and those of the NPCs it gives orders for (3.31).
    pub fn sees_records_of(&self, viewer: Option<PowerId>, p: PowerId) -> bool {
        viewer.is_none_or(|v| p == v || self.ordered_by(p) == Some(v))
    }

    /// The state file `viewer` receives (2.5): [`State::view_for`] as
    /// TOML, where another power's corps says `divisions = "unknown"`
    /// (an empty list would read as an empty corps), another power's
    /// force pool `pool = "unknown"` (zeros would read as an empty pool)
    /// and its kingdoms' treasuries `gold = "unknown"`, each with a
    /// comment; they load back as nothing known.
    pub fn view_text_for(&self, viewer: PowerId) -> String {
        // Every other power's corps, empty or not: an empty list for the
        // empty ones only would tell them apart.
        let hidden: Vec<bool> = self
            .corps
            .iter()
            .map(|c| {
                !self
                    .corps_power(c)
                    .is_some_and(|p| self.sees_records_of(Some(viewer), p))
            })
            .collect();
        let text = self.view_for(viewer).to_toml();
        let mut out = String::with_capacity(text.len() + 64 * hidden.len());
        // The powers whose force pool the viewer may not see: the headers
        // of their tables, and of their pools' tables.
        let hidden_powers: Vec<(String, String)> = self
            .powers
            .keys()
            .filter(|p| !self.sees_records_of(Some(viewer), **p))
            .map(|p| (format!("[powers.{}]", p.id()), format!("[powers.{}.pool]", p.id())))
            .collect();
        // The kingdoms whose treasury the viewer may not see: their
        // tables' headers.
        let hidden_treasuries: Vec<String> = self
            .political
            .kingdoms
            .iter()
            .filter(|(_, k)| !self.sees_records_of(Some(viewer), k.controller))
            .map(|(id, _)| format!("[political.kingdoms.{id}]"))
            .collect();
        let mut in_hidden_treasury = false;
        // The `[[corps]]` table the line is in (its index), if any.
        let mut seen = 0;
        let mut corps: Option<usize> = None;
        // Within a hidden pool's table: its lines are left out.
        let mut in_hidden_pool = false;
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with('[') {
                corps = (t == "[[corps]]").then_some(seen);
                seen += usize::from(t == "[[corps]]");
                in_hidden_pool = hidden_powers.iter().any(|(_, pool)| pool == t);
                in_hidden_treasury = hidden_treasuries.iter().any(|h| h == t);
                if in_hidden_pool {
                    continue;
                }
                if hidden_powers.iter().any(|(power, _)| power == t) {
                    // First in the power's own table: its sub-tables
                    // (control, pool) come after its plain keys.
                    out.push_str(line);
                    out.push_str(&format!(
                        "\npool = \"{}\" # another power's force pool is not shown (2.5)\n",
                        super::UNKNOWN
                    ));
                    continue;
                }
            }
            if in_hidden_pool {
                if t.is_empty() {
                    out.push('\n');
                }
                continue;
            }
            if in_hidden_treasury && t.starts_with("gold = ") {
                out.push_str(&format!(
                    "gold = \"{}\" # another power's kingdom: its treasury is not shown (2.5)\n",
                    super::UNKNOWN
                ));
                continue;
            }
            if t == "divisions = []" && corps.is_some_and(|i| hidden.get(i) == Some(&true)) {
                out.push_str(&format!(
                    "divisions = \"{}\" # another power's corps: its composition is not shown (2.5)\n",
                    super::UNKNOWN
                ));
            } else {
                out.push_str(line);
                out.push('\n');
            }
        }
        out
    }

    /// The state as the public sees it (the game's public site): what
    /// every power sees of the others, and nothing of anyone's own.
    pub fn public_view(&self) -> State {
        self.view_where(|_| false)
    }

    /// The state with everything hidden of the powers `mine` does not
    /// accept (2.5).
    fn view_where(&self, mine: impl Fn(Option<PowerId>) -> bool) -> State {
        let mut s = self.clone();
        for c in &mut s.corps {
            if !mine(self.corps_power(c)) {
                c.divisions.clear();
            }
        }
        for (p, ps) in s.powers.iter_mut() {
            if !mine(Some(*p)) {
                ps.pool = PoolState::default();
            }
        }
        // standing orders are the owner's secret (rules::war::standing)
        s.standing.retain(|p, _| mine(Some(*p)));
        // so is a vote for a draw (rules::draw)
        s.draw_votes.retain(|p| mine(Some(*p)));
        // EiA option: a fleet's ships are revealed only in battle
        // (12.2.6.1.3.1); hulks are the port owner's knowledge (12.2.8)
        for q in &mut s.squadrons {
            if !mine(self.squadron_power(q)) {
                q.ships = None;
            }
        }
        for owners in s.hulks.values_mut() {
            owners.retain(|n, _| n.parse().ok().is_some_and(|p: PowerId| mine(Some(p))));
        }
        s.hulks.retain(|_, owners| !owners.is_empty());
        // EiA political option: a kingdom's marker and flag are on the
        // map; its treasury is its controller's record, like a pool
        for k in s.political.kingdoms.values_mut() {
            if !mine(Some(k.controller)) {
                k.gold = 0;
            }
        }
        s
    }
}
