//! 3.1 Country Representation Bid and 3.5 starting VP.
//!
//! The bid phase (`1805-bid`) comes before Fall 1805. The number of
//! players fixed the Player Countries (3.0, `State::initial`); in the bid
//! phase each player orders under a provisional *seat* (a Player Country
//! id the workflow gave it) `bid N` with a preference list. Bids are
//! sorted highest first; ties are broken by a d10 per tied seat
//! (`bid/tie/<seat>`, re-rolled `…/<round>` while tied, then seat order).
//! In that order each seat takes its first available preference (or the
//! most prominent available Player Country). The power taken starts with
//! 100 − bid VP (3.5). The outcomes (`bid-assignment`, order = the seat)
//! tell the workflow which player now plays which power.

use super::outcome::Outcome;
use super::sequence::{D10, players};
use super::{EngineError, PhaseOrders};
use crate::dice::Dice;
use crate::ids::PowerId;
use crate::orders::ast::Order;
use crate::rules::Kind;
use crate::rules::Why;
use crate::state::State;

/// Base of the VP track before the bid is subtracted (3.5).
pub const START_VP: i64 = 100;

/// Resolve the bid: returns (seat, power taken, bid) in picking order.
pub fn resolve(
    state: &mut State,
    orders: &PhaseOrders,
    dice: &mut dyn Dice,
    out: &mut Vec<Outcome>,
) -> Result<Vec<(PowerId, PowerId, u32)>, EngineError> {
    let seats = players(state);
    let mut bids: Vec<(PowerId, u32, Vec<PowerId>, Vec<u32>)> = seats
        .iter()
        .map(|s| {
            let (vp, prefs) = orders
                .get(s)
                .and_then(|v| {
                    v.iter().find_map(|l| match &l.order {
                        Order::Bid { vp, preferences } => Some((*vp, preferences.clone())),
                        _ => None,
                    })
                })
                .unwrap_or((0, Vec::new()));
            (*s, vp.min(START_VP as u32), prefs, Vec::new())
        })
        .collect();
    let mut dice_used = Vec::new();
    for round in 0..3 {
        let tied: Vec<PowerId> = bids
            .iter()
            .filter(|(s, b, _, t)| bids.iter().any(|(s2, b2, _, t2)| s2 != s && b2 == b && t2 == t))
            .map(|x| x.0)
            .collect();
        if tied.is_empty() {
            break;
        }
        for (s, _, _, t) in bids.iter_mut() {
            if tied.contains(s) {
                let purpose = if round == 0 {
                    format!("bid/tie/{s}")
                } else {
                    format!("bid/tie/{s}/{round}")
                };
                let v = dice.roll(&purpose, D10)?;
                dice_used.push((purpose, v));
                t.push(v);
            }
        }
    }
    bids.sort_by(|a, b| (b.1, &b.3).cmp(&(a.1, &a.3)));
    let mut available = seats.clone();
    let mut result = Vec::new();
    for (seat, bid, prefs, _) in &bids {
        let take = prefs
            .iter()
            .copied()
            .find(|p| available.contains(p))
            .or_else(|| available.first().copied());
        let Some(take) = take else { break };
        available.retain(|p| *p != take);
        let ps = state.power_mut(take);
        ps.bid = *bid;
        let delta = START_VP - i64::from(*bid) - ps.vp;
        ps.vp = START_VP - i64::from(*bid);
        let mut o = Outcome::new(
            "3.1",
            Kind::BidAssignment,
            format!("The player of seat {seat} takes {} with a bid of {bid} VP", take.name()),
        )
        .power(take)
        .order(seat.id())
        .vp(take, delta)
        .why(Why::rule(
            "3.5",
            format!("starts with {START_VP} − {bid} = {} VP", START_VP - i64::from(*bid)),
        ));
        for (purpose, v) in &dice_used {
            if purpose.starts_with(&format!("bid/tie/{seat}")) {
                o = o.die(purpose, *v);
            }
        }
        out.push(o);
        result.push((*seat, take, *bid));
    }
    Ok(result)
}
