//! 3.2, 3.3: a Player Country is "always represented by a player"; a
//! power without one is an NPC. When the moderator seats a player on an
//! NPC (`empereur seat`), the power becomes a Player Country at the next
//! Turn Start, so a season's turn order (4.6) and its Player Turns are
//! never changed half-way. The caller (the resolution that opens that
//! Turn Start) names the powers; the entry records them and replay calls
//! this again, so the change is part of the hash chain.
//!
//! What carries over is what the NPC had: its units, Gold, VP, wars and
//! alliances (an Allied NPC's ally stays its ally, 3.31). The NPC status
//! of every other NPC is recomputed, as after any change of relations.

use super::Kind;
use super::outcome::Outcome;
use crate::ids::{PowerId, Step};
use crate::state::{Control, State};

/// The powers of `seated` (those with a player) that are NPCs when the
/// resolution of `before` opens `after`, and become Player Countries
/// there: only at a Turn Start, and never out of the country bid (3.1
/// seats the players itself).
pub fn due(before: &State, after: &State, seated: &[PowerId]) -> Vec<PowerId> {
    if after.phase.step != Step::TurnStart || before.phase.step == Step::Bid {
        return Vec::new();
    }
    seated
        .iter()
        .copied()
        .filter(|p| !crate::rules::side::is_player_country(after, *p))
        .collect()
}

/// Make each of `powers` that is still an NPC a Player Country, if
/// `state` is at a Turn Start; outcomes say who changed (and any NPC
/// status that changed with it). Powers already played are skipped.
pub fn seat_players(state: &mut State, powers: &[PowerId]) -> Vec<Outcome> {
    let mut out = Vec::new();
    if state.phase.step != Step::TurnStart {
        return out;
    }
    for &p in powers {
        if crate::rules::side::is_player_country(state, p) {
            continue;
        }
        state.power_mut(p).control = Control::Player;
        out.push(
            Outcome::new(
                "3.2",
                Kind::NpcStatus,
                format!(
                    "{} is a Player Country from this Turn Start: a player has taken its seat",
                    p.name()
                ),
            )
            .power(p),
        );
    }
    if !out.is_empty() {
        super::diplomacy::refresh_npcs(state, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{PhaseId, Season, Turn};

    fn state_at(step: Step) -> State {
        let sc = crate::scenario::Scenario::embedded("1805").unwrap();
        let players = [PowerId::France, PowerId::Britain].into_iter().collect();
        let mut s = State::initial(&sc, "t", &players, Default::default());
        s.phase = PhaseId {
            turn: Turn {
                year: 1806,
                season: Season::Spring,
            },
            step,
        };
        s
    }

    #[test]
    fn an_npc_becomes_a_player_country_at_a_turn_start_only() {
        let mut s = state_at(Step::TurnStart);
        assert!(!s.power(PowerId::Spain).control.is_player());
        let out = seat_players(&mut s, &[PowerId::Spain, PowerId::France]);
        assert!(s.power(PowerId::Spain).control.is_player());
        assert_eq!(out.len(), 1, "France was played already: {out:?}");
        assert_eq!(out[0].rule, "3.2");
        assert_eq!(out[0].power, Some(PowerId::Spain));

        let mut s = state_at(Step::Build);
        assert!(seat_players(&mut s, &[PowerId::Spain]).is_empty());
        assert!(!s.power(PowerId::Spain).control.is_player());
    }
}
