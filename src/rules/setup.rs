//! 3.0 Game Set-Up: which powers a number of players may play, and
//! 3.1: a game whose players bid for their powers opens on the bid.
//!
//! Pure: `empereur new` and `empereur seat` ask [`check_seating`] before
//! they write a game, and refuse (or, with a house seating the moderator
//! asks for explicitly, go on) when it says no.

use crate::ids::{PhaseId, PowerId, Step};
use crate::scenario::Scenario;
use crate::state::State;
use std::collections::BTreeSet;
use std::fmt;

/// Why a seating is not the one 3.0 gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatingError {
    /// The powers 3.0 makes Player Countries for this many players
    /// (empty when the number itself is wrong).
    pub expected: Vec<PowerId>,
    /// Seated powers 3.0 leaves to the NPCs.
    pub extra: Vec<PowerId>,
    /// Powers 3.0 requires that nobody plays.
    pub missing: Vec<PowerId>,
    pub players: usize,
}

impl fmt::Display for SeatingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |v: &[PowerId]| v.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ");
        if self.expected.is_empty() {
            return write!(
                f,
                "3.0: La Guerre de l'Empereur is played by 2 to 7 players, not {}",
                self.players
            );
        }
        write!(
            f,
            "3.0: with {} players the Player Countries are {}",
            self.players,
            names(&self.expected)
        )?;
        if !self.missing.is_empty() {
            write!(f, "; nobody plays {}", names(&self.missing))?;
        }
        if !self.extra.is_empty() {
            write!(f, "; {} would be an NPC", names(&self.extra))?;
        }
        Ok(())
    }
}

impl std::error::Error for SeatingError {}

/// 3.0: the Player Countries of a game of `players` players: France and
/// Great Britain, then Russia, Austria, Prussia, Spain and the Ottoman
/// Empire in that order.
pub fn player_countries(players: usize) -> Option<Vec<PowerId>> {
    (2..=PowerId::ALL.len())
        .contains(&players)
        .then(|| PowerId::ALL[..players].to_vec())
}

/// 3.0: whether the seated `powers` are those the rules give for that
/// number of players (the bid, 3.1, only decides who plays which).
pub fn check_seating(powers: &BTreeSet<PowerId>) -> Result<(), SeatingError> {
    let n = powers.len();
    let Some(expected) = player_countries(n) else {
        return Err(SeatingError {
            expected: Vec::new(),
            extra: Vec::new(),
            missing: Vec::new(),
            players: n,
        });
    };
    let extra: Vec<PowerId> = powers.iter().copied().filter(|p| !expected.contains(p)).collect();
    let missing: Vec<PowerId> = expected.iter().copied().filter(|p| !powers.contains(p)).collect();
    if extra.is_empty() && missing.is_empty() {
        Ok(())
    } else {
        Err(SeatingError {
            expected,
            extra,
            missing,
            players: n,
        })
    }
}

/// 3.1: open the Country Representation Bid: the game starts on the bid
/// phase of the scenario's first year instead of its first turn; each
/// player bids under the seat it was given (`bid::resolve`).
pub fn open_bid(scenario: &Scenario, state: &mut State) {
    state.phase = PhaseId {
        turn: scenario.start,
        step: Step::Bid,
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use PowerId::*;

    fn set(v: &[PowerId]) -> BTreeSet<PowerId> {
        v.iter().copied().collect()
    }

    #[test]
    fn two_players_are_france_and_britain() {
        assert_eq!(check_seating(&set(&[Britain, France])), Ok(()));
        let e = check_seating(&set(&[France, Russia])).unwrap_err();
        assert_eq!(e.missing, vec![Britain]);
        assert_eq!(e.extra, vec![Russia]);
        assert_eq!(
            e.to_string(),
            "3.0: with 2 players the Player Countries are France, Great Britain; nobody plays Great Britain; Russia would be an NPC"
        );
    }

    #[test]
    fn each_further_player_takes_the_next_power_in_3_0_order() {
        for n in 2..=7 {
            let powers = set(&PowerId::ALL[..n]);
            assert_eq!(check_seating(&powers), Ok(()), "{n} players");
        }
        // five players without Prussia but with Spain
        let e = check_seating(&set(&[France, Britain, Russia, Austria, Spain])).unwrap_err();
        assert_eq!((e.missing, e.extra), (vec![Prussia], vec![Spain]));
    }

    #[test]
    fn a_game_that_bids_opens_on_the_bid_of_its_first_year() {
        let sc = Scenario::embedded("1805").unwrap();
        let mut state = State::initial(&sc, "t", &set(&[France, Britain]), Default::default());
        assert_ne!(state.phase.step, Step::Bid);
        open_bid(&sc, &mut state);
        assert_eq!(state.phase.to_string(), "1805-bid");
        assert_eq!(state.phase.turn, sc.start);
    }

    #[test]
    fn one_player_or_none_is_not_a_game() {
        for v in [vec![], vec![France]] {
            let e = check_seating(&set(&v)).unwrap_err();
            assert!(e.expected.is_empty());
            assert!(e.to_string().contains("2 to 7 players"), "{e}");
        }
    }
}
