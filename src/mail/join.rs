//! Join requests: mail to a game from an address that is no player's
//! (nor a second's, nor the moderator's) is taken as a request to join.
//! The moderator gets it forwarded (the sender, the subject, the power
//! asked for in a `JOIN <power>` line, and the first lines of the text,
//! escaped), at most once a day per sender and within the moderator's
//! daily allowance of mail (`mail.max_replies_per_day`); the sender gets
//! one short fixed answer a day that echoes nothing and names no game
//! ([`JOIN_REPLY`]), so the game cannot be used to send text to someone
//! whose address was forged. The moderator seats the sender on a power
//! without a player with `empereur seat` (an NPC becomes a Player
//! Country at the next Turn Start, 3.2), or hands a played power over
//! with `empereur replace-player`. A `PASSWORD` line in the request is
//! the password the sender chose (`seat --password-from-mail` takes it);
//! it is never shown in the forward.

use super::escape;
use super::ingest::{GameCtx, Run};
use super::outbox::{self, Addr, OutMail};
use super::parse::Incoming;
use crate::ids::PowerId;
use anyhow::Result;

/// The one answer a sender who is no player gets (at most once a day).
pub const JOIN_REPLY: &str = "This address takes orders for a play-by-email game from its players only.\nYour message was not read as orders and nothing was stored. It was passed\nto the game's moderator as a request to join; the moderator decides who\nplays, and answers you.\n\nIf you are a player, write from the address the moderator has on record\nfor you, with your POWER and PASSWORD lines. To join, you may write again with the\nlines JOIN <power> and PASSWORD <a secret of your choice>.\n\nThis is an automatic reply; there will be no other today.\n";

/// Most lines of the sender's text forwarded to the moderator.
pub const FORWARD_LINES: usize = 40;

/// The power a `JOIN <power>` line asks for, if the text has one.
pub fn asked_power(text: &str) -> Option<PowerId> {
    text.lines().find_map(|l| {
        let t = l.trim();
        let (kw, rest) = t.split_once(char::is_whitespace)?;
        kw.eq_ignore_ascii_case("JOIN")
            .then(|| PowerId::parse(rest.trim().trim_end_matches('.')))
            .flatten()
    })
}

/// The password a join request offers: the rest of its first line whose
/// first word is `PASSWORD`.
pub fn offered_password(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let (kw, rest) = l.trim().split_once(char::is_whitespace)?;
        let rest = rest.trim();
        (kw.eq_ignore_ascii_case("PASSWORD") && !rest.is_empty()).then(|| rest.to_string())
    })
}

/// The text with the secret of every `PASSWORD` line masked (what the
/// moderator is shown of a join request).
fn masked(text: &str) -> String {
    text.lines()
        .map(|l| match l.trim().split_once(char::is_whitespace) {
            Some((kw, _)) if kw.eq_ignore_ascii_case("PASSWORD") => "PASSWORD (given; not shown)".to_string(),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Forward a stranger's message to the moderator as a join request;
/// `why` is why it was not taken as orders. Returns the id queued, or
/// `None` when the moderator's allowance for the day is used up.
pub fn forward(ctx: &GameCtx, inc: &Incoming, hash: &str, why: &str, run: &mut Run) -> Result<Option<String>> {
    let game = &ctx.config.game;
    let from = inc.from.as_deref().unwrap_or("-");
    let text = inc.text.as_ref().map(|(t, _)| t.as_str()).unwrap_or("");
    let mut body = format!(
        "A message to game {game} came from an address that is no player's.\nIt is taken as a request to join; the sender was told it was passed to\nyou, and nothing else.\n\n  From:    {}{}\n  Subject: {}\n",
        escape::line(from, 120),
        inc.from_name
            .as_deref()
            .map(|n| format!(" ({})", escape::line(n, 60)))
            .unwrap_or_default(),
        escape::line(inc.subject.as_deref().unwrap_or("-"), 120),
    );
    let asked = asked_power(text);
    if let Some(p) = asked {
        let seat = match ctx.config.player(p) {
            Some(_) => "has a player",
            None => "has no player (an NPC)",
        };
        body.push_str(&format!("  Asks for: {} ({} {seat})\n", p.name(), p.name()));
    }
    body.push_str(&format!(
        "  Not taken as orders because: {}\n\n",
        escape::line(why, 200)
    ));
    body.push_str("The message begins:\n\n");
    body.push_str(
        &escape::lines(&masked(text), FORWARD_LINES, 200)
            .lines()
            .map(|l| format!("  | {l}\n"))
            .collect::<String>(),
    );
    let power = asked.map(|p| p.id()).unwrap_or("<power>");
    let flag = if offered_password(text).is_some() {
        " --password-from-mail"
    } else {
        ""
    };
    body.push_str(&format!(
        "\nTo seat this sender on a power without a player (an NPC becomes a\nPlayer Country at the next Turn Start, 3.2):\n  empereur seat --game <dir> --power {power} --name \"<name>\" --email {}{flag}\n(without --password-from-mail a password is generated and mailed to them;\nthe new player is mailed the state, the order template and the deadline).\nTo hand a power whose player leaves to this sender:\n  empereur replace-player --game <dir> --power {power} --players <file with their [[player]] entry>\n",
        escape::line(from, 120),
    ));
    let m = OutMail {
        id: outbox::stable_id(&["join-request", game, hash]),
        from: Addr::new(Some(&format!("Empereur {game}")), ctx.config.mail_address()),
        to: vec![Addr::new(Some(&ctx.config.moderator.name), &ctx.config.moderator.email)],
        cc: vec![],
        subject: format!("Empereur {game}: join request from {}", escape::line(from, 80)),
        in_reply_to: None,
        body,
        attachments: vec![],
        date: run.now,
    };
    super::ingest::send_unauthenticated(ctx, m, run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_join_line_names_the_power_asked_for() {
        assert_eq!(asked_power("Hello\nJOIN Prussia\n"), Some(PowerId::Prussia));
        assert_eq!(asked_power("join   turkey."), Some(PowerId::Ottoman));
        assert_eq!(asked_power("I'd like to join\nJOIN CONTINENTAL SYSTEM"), None);
        assert_eq!(asked_power("no request here"), None);
    }

    #[test]
    fn a_password_line_is_offered_and_masked_in_the_forward() {
        let t = "JOIN Spain\npassword   my own secret \nthanks";
        assert_eq!(offered_password(t).as_deref(), Some("my own secret"));
        assert_eq!(offered_password("PASSWORD\nJOIN Spain"), None);
        assert_eq!(masked(t), "JOIN Spain\nPASSWORD (given; not shown)\nthanks");
    }
}
