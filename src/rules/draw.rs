//! House rule `draws` (game option, off by default): La Guerre de
//! l'Empereur has no draw but the one of the final ranking (7.1); veterans
//! of njudge and Diplicity expect to end a game by agreement. With the
//! option on, `DRAW` is an order of any phase: the power's vote counts
//! when the phase resolves and stands, secret, until it orders `NODRAW`.
//! When every Player Country still in the game has voted, the game ends
//! as a draw after that phase (the victory of 1.1 checked first). Only
//! the voter sees its vote (its outcome, its state file); the end is
//! public. Without the option the gate refuses both orders, naming it.

use super::PhaseOrders;
use super::legality::Illegal;
use super::outcome::{Kind, Outcome};
use super::sequence::players;
use crate::ids::PowerId;
use crate::orders::ast::Order;
use crate::state::State;

/// The option id in `game.toml` / `state.options`.
pub const ID: &str = "draws";

/// Whether the game has the house rule.
pub fn on(state: &State) -> bool {
    state.options.contains(ID)
}

/// Whether a game takes DRAW and NODRAW: only with the option.
pub fn gate(state: &State) -> Result<(), Illegal> {
    if on(state) {
        return Ok(());
    }
    Err(Illegal::Rule(
        super::Rejection::new(
            "7.1",
            "this game has no draw: a draw by vote is a house rule (game option 'draws'), off in this game; La Guerre itself ends only by victory or the final ranking (7.1)",
        )
        .with_help("the option is chosen when the game is created (empereur new --option draws)"),
    ))
}

/// Record the votes of this phase's orders: DRAW adds the power's vote,
/// NODRAW takes it back; each told to the voter alone.
pub fn record_votes(state: &mut State, orders: &PhaseOrders, out: &mut Vec<Outcome>) {
    for (p, lines) in orders {
        for l in lines {
            let (vote, summary) = match l.order {
                Order::Draw => (
                    true,
                    format!(
                        "{}'s vote for a draw stands until it orders NODRAW; it stays secret unless every power still in the game votes for one",
                        p.name()
                    ),
                ),
                Order::NoDraw => (false, format!("{} withdraws its vote for a draw", p.name())),
                _ => continue,
            };
            if vote {
                state.draw_votes.insert(*p);
            } else {
                state.draw_votes.remove(p);
            }
            out.push(
                Outcome::new("7.1", Kind::DrawVote, summary)
                    .power(*p)
                    .order(&l.text)
                    .why("house rule 'draws' (game option)")
                    .only(vec![*p]),
            );
        }
    }
}

/// End the game as a draw when every Player Country still in it has
/// voted for one; says so to all. Returns whether it did.
pub fn agreed(state: &mut State, out: &mut Vec<Outcome>) -> bool {
    let voters: Vec<PowerId> = players(state);
    if !on(state) || voters.is_empty() || !voters.iter().all(|p| state.draw_votes.contains(p)) {
        return false;
    }
    let names: Vec<&str> = voters.iter().map(|p| p.name()).collect();
    out.push(
        Outcome::new(
            "7.1",
            Kind::Draw,
            "The game ends in a draw: every power still in the game voted for one",
        )
        .why(format!("voted: {}", names.join(", ")))
        .why("house rule 'draws' (game option); La Guerre itself has no draw"),
    );
    state.over = Some("draw".to_string());
    true
}
