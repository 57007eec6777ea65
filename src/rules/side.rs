//! Whose side a power is on, and whether it is a Player Country: the two
//! questions the book asks whenever it says *player*, *PC*, *player
//! country*, *his Allies*, *Allied NPC* or *Controlled NPC*. Every rule
//! that needs either asks it here, citing its section.
//!
//! - 3.2: a Player Country is a power represented by a player.
//! - 3.31: an Allied NPC is an extension of its Player Country: "the
//!   units of the NPC are completely under the control of the PC", "the
//!   Allied PC (and any of his Allies) can move through the NPC and move
//!   and fight in conjunction with its Armies", and its units "can move
//!   and attack anywhere that their Allied PC can move and attack".
//!   A Controlled NPC is not on its controller's side: the controller
//!   only runs its units (3.31), which stay in their own territory.
//!
//! Leaf module: it reads the state only, so every rule may ask it.

use crate::ids::PowerId;
use crate::state::{Control, State};

/// 3.2: whether `p` is a Player Country (represented by a player).
pub fn is_player_country(state: &State, p: PowerId) -> bool {
    state.power(p).control.is_player()
}

/// 3.31: the Player Country `p` is an Allied NPC of, if it is one (its
/// alliance with that PC standing).
pub fn allied_pc(state: &State, p: PowerId) -> Option<PowerId> {
    match state.power(p).control {
        Control::Allied { with } if state.relations.allied(p, with) && is_player_country(state, with) => Some(with),
        _ => None,
    }
}

/// 3.31: the Player Country whose own side `p` is, its Allied NPCs
/// included: `p` itself if a PC, its Allied PC if an Allied NPC; none
/// for an Inactive or Controlled NPC.
pub fn player_of(state: &State, p: PowerId) -> Option<PowerId> {
    if is_player_country(state, p) {
        Some(p)
    } else {
        allied_pc(state, p)
    }
}

/// 3.31, 3.44: whether `a` and `b` are one player's own: the same power,
/// or a Player Country and one of its Allied NPCs, or two Allied NPCs of
/// one PC ("a player (or one of that player's Allied NPCs)", 3.44). A
/// direct ally, PC or not, is not.
pub fn same_player(state: &State, a: PowerId, b: PowerId) -> bool {
    a == b || player_of(state, a).is_some_and(|x| player_of(state, b) == Some(x))
}

/// The power that answers for `p` on the Alliance Display: its Allied PC
/// for an Allied NPC (3.31), else `p` itself.
fn anchor(state: &State, p: PowerId) -> PowerId {
    allied_pc(state, p).unwrap_or(p)
}

/// 3.31, 2.7: whether `a` and `b` fight on the same side: the same power,
/// directly allied, or joined through an Allied NPC (an Allied NPC and its
/// PC; the PC's allies and the NPC; two Allied NPCs of one PC or of two
/// allied PCs).
pub fn same_side(state: &State, a: PowerId, b: PowerId) -> bool {
    if a == b || state.relations.allied(a, b) {
        return true;
    }
    let (x, y) = (anchor(state, a), anchor(state, b));
    x == y || state.relations.allied(x, y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Relations;

    fn state(controls: &[(PowerId, Control)], alliances: &[[PowerId; 2]]) -> State {
        let sc = crate::scenario::Scenario::embedded("1805").unwrap();
        let players = PowerId::ALL.into_iter().collect();
        let mut s = State::initial(&sc, "t", &players, Default::default());
        for (p, c) in controls {
            s.power_mut(*p).control = c.clone();
        }
        s.relations = Relations::default();
        for [a, b] in alliances {
            s.relations.set_alliance(*a, *b, true);
        }
        s
    }

    use PowerId::{Austria, Britain, France, Prussia, Russia, Spain};

    #[test]
    fn an_allied_npc_is_on_its_pcs_side_and_his_allies() {
        let s = state(
            &[
                (Austria, Control::Allied { with: Britain }),
                (Prussia, Control::Inactive),
            ],
            &[[Austria, Britain], [Britain, Russia]],
        );
        assert!(same_side(&s, Russia, Austria));
        assert!(same_side(&s, Austria, Russia));
        assert!(same_side(&s, Austria, Britain));
        assert!(!same_side(&s, Austria, France));
        assert!(!same_side(&s, Prussia, Russia));
        assert_eq!(player_of(&s, Austria), Some(Britain));
        assert_eq!(player_of(&s, Prussia), None);
        assert!(same_player(&s, Britain, Austria));
        assert!(same_player(&s, Austria, Britain));
        // a direct ally is on the side but not the player's own
        assert!(!same_player(&s, Britain, Russia));
        assert!(!same_player(&s, Prussia, France));
    }

    #[test]
    fn two_allied_npcs_of_allied_pcs_are_on_one_side() {
        let s = state(
            &[
                (Austria, Control::Allied { with: Britain }),
                (Spain, Control::Allied { with: Russia }),
            ],
            &[[Austria, Britain], [Britain, Russia], [Spain, Russia]],
        );
        assert!(same_side(&s, Spain, Austria));
    }

    #[test]
    fn a_controlled_npc_is_nobodys_side_and_a_lapsed_alliance_counts_for_nothing() {
        let s = state(
            &[
                (Austria, Control::Controlled { by: Britain }),
                (Spain, Control::Allied { with: France }),
            ],
            &[[Britain, Russia]],
        );
        assert!(!same_side(&s, Austria, Russia));
        assert!(!same_side(&s, Austria, Britain));
        assert_eq!(allied_pc(&s, Spain), None);
        assert!(!same_player(&s, France, Spain));
        assert!(is_player_country(&s, France));
        assert!(!is_player_country(&s, Austria));
    }
}
