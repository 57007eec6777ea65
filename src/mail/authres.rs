//! An optional second factor for "this mail is from the player's
//! address": the `Authentication-Results` header (RFC 8601) that the
//! game's own mail server adds when it receives the mail, read when
//! `[mail] authentication_results` names that server's authserv-id. The
//! sender's domain must pass DMARC (`dmarc=pass header.from=DOMAIN`) or
//! an aligned DKIM signature (`dkim=pass header.d=DOMAIN`, the From
//! domain or a parent of it). Only a header carrying the configured
//! authserv-id counts (RFC 8601 §5: anyone can write such a header; the
//! server must remove incoming ones that claim its id), and only the
//! topmost one, which the receiving server adds last.
//!
//! Why the local milter's header and not a DKIM check of our own (the
//! `mail-auth` crate): the server checks when the mail arrives, with the
//! DNS as it was then; `ingest` may read the mail later (cron, IMAP)
//! after a key rotated, and would need DNS in the pipe, with its
//! timeouts, where it is now offline and deterministic.

/// Whether the topmost `Authentication-Results` of `authserv_id` among
/// `headers` (their values, top first) vouches for `from`'s domain.
pub fn vouches(headers: &[String], authserv_id: &str, from: &str) -> bool {
    let Some((_, domain)) = from.rsplit_once('@') else {
        return false;
    };
    let domain = domain.trim().to_ascii_lowercase();
    let Some(ours) = headers.iter().find_map(|h| {
        let h = strip_comments(h);
        let (id, rest) = h.split_once(';').unwrap_or((h.as_str(), ""));
        let id = id.split_whitespace().next().unwrap_or("");
        id.eq_ignore_ascii_case(authserv_id.trim()).then(|| rest.to_string())
    }) else {
        return false;
    };
    ours.split(';').any(|resinfo| {
        let words: Vec<(String, String)> = resinfo
            .split_whitespace()
            .filter_map(|w| w.split_once('='))
            .map(|(k, v)| (k.to_ascii_lowercase(), v.trim_matches('"').to_ascii_lowercase()))
            .collect();
        let Some((method, result)) = words.first() else {
            return false;
        };
        let prop = |name: &str| words.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        match (method.as_str(), result.as_str()) {
            ("dmarc", "pass") => prop("header.from") == Some(domain.as_str()),
            // Relaxed alignment: the signing domain is the From domain or
            // a parent of it (RFC 7489 3.1.1).
            ("dkim", "pass") => prop("header.d").is_some_and(|d| domain == d || domain.ends_with(&format!(".{d}"))),
            _ => false,
        }
    })
}

/// `text` without its comments (RFC 5322 `(…)`, nested), which may hold
/// anything, `;` and `=` included.
fn strip_comments(text: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn only_our_servers_pass_for_the_senders_domain_vouches() {
        let ours = "mx.game.org";
        let from = "ann@players.example.org";
        for good in [
            "mx.game.org; dmarc=pass (p=none dis=none) header.from=players.example.org",
            "MX.game.org 1; spf=fail smtp.mailfrom=x.org; dkim=pass header.d=example.org header.s=s1",
            "mx.game.org; dkim=pass header.d=players.example.org",
        ] {
            assert!(vouches(&h(&[good]), ours, from), "{good}");
        }
        for bad in [
            "mx.game.org; dmarc=fail header.from=players.example.org",
            "mx.game.org; dmarc=pass header.from=other.org",
            "mx.game.org; dkim=pass header.d=ample.org",
            "mx.game.org; spf=pass smtp.mailfrom=players.example.org",
            "mx.evil.org; dmarc=pass header.from=players.example.org",
            "mx.game.org (dmarc=pass header.from=players.example.org); none",
            "mx.game.org; none",
        ] {
            assert!(!vouches(&h(&[bad]), ours, from), "{bad}");
        }
        // The topmost header of our id is the one our server added.
        let forged_below = h(&[
            "mx.game.org; dmarc=fail header.from=players.example.org",
            "mx.game.org; dmarc=pass header.from=players.example.org",
        ]);
        assert!(!vouches(&forged_below, ours, from));
        assert!(!vouches(&[], ours, from));
    }
}
