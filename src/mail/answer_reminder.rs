//! The reminder a power owing an answer gets before the deadline (issue
//! 33): a proposal, offer or cession of the open phase holds the phase
//! open for its recipient's answer until the deadline, so the recipient
//! is reminded of it as a late power is reminded of its orders, in the
//! same slots (`schedule::PhaseClock::reminders_due`). It names only the
//! proposals addressed to that power (diplomacy is private).

use super::compose::{answer_by, game_mail, player_addr};
use super::outbox;
use crate::ids::PowerId;
use crate::report::Proposal;
use crate::state::State;
use crate::store::{GameConfig, GameDir};
use anyhow::Result;
use chrono::{DateTime, Utc};

/// Queue one reminder to each power of `due` that owes an answer among
/// `awaited` (the open phase's proposals still unanswered), with the
/// answers that count and the deadline in its time zone. `deadline`: the
/// deadline to say when the phase's clock cannot be read. Returns the ids
/// queued.
pub fn queue(
    dir: &GameDir,
    config: &GameConfig,
    state: &State,
    due: &[PowerId],
    awaited: &[Proposal],
    deadline: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<Vec<String>> {
    let phase = state.phase.to_string();
    let wrap = textwrap::Options::new(72).word_splitter(textwrap::WordSplitter::NoHyphenation);
    let mut ids = Vec::new();
    for player in config.players.iter().filter(|p| due.contains(&p.power)) {
        let mine: Vec<&Proposal> = awaited.iter().filter(|p| p.to == player.power).collect();
        if mine.is_empty() {
            continue;
        }
        let mut body = format!(
            "Game {}: {} has not yet answered, in phase {phase}:\n\n",
            config.game,
            player.power.name()
        );
        for p in &mine {
            body.push_str(&format!("  {}: {}\n", p.from.name(), p.text));
            body.push_str(&format!("    answer with: {}\n", p.answers.join(" or ")));
        }
        let by = answer_by(dir, config, state, player, now)?
            .or_else(|| deadline.map(|d| crate::zone::shown(d, config.player_tz(player.power))));
        if let Some(d) = &by {
            body.push_str(&format!("\nAnswer by: {d}\n"));
        }
        body.push('\n');
        body.push_str(&textwrap::fill(
            &format!(
                "The phase stays open for your answer until the deadline at the latest; without one the offer is refused. Send the answer in orders for phase {phase} (this phase); a PASS ends the wait too."
            ),
            &wrap,
        ));
        body.push_str(&format!("\n\n--\nEmpereur, for game {}.\n", config.game));
        let m = game_mail(
            config,
            outbox::stable_id(&[
                "answer-reminder",
                &config.game,
                &phase,
                player.power.id(),
                &now.format("%Y-%m-%d").to_string(),
            ]),
            vec![player_addr(player)],
            format!("Empereur {}: your answer is awaited in {phase}", config.game),
            body,
            now,
        );
        outbox::queue(dir, &m)?;
        ids.push(m.id);
    }
    Ok(ids)
}
