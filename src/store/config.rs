//! `game.toml`: a game's configuration. Written by `new`, edited by the
//! moderator (deadlines, transport), read by every command.

use crate::ids::PowerId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Person {
    pub name: String,
    pub email: String,
}

/// A power's player: name, address, and the salted hash of the password
/// (never the password itself).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerEntry {
    pub power: PowerId,
    pub name: String,
    pub email: String,
    /// PHC string (argon2id).
    pub password_hash: String,
    /// IANA time zone the player reads deadlines in (STATUS by mail);
    /// the game's when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameConfig {
    pub format: u32,
    /// The game id (the `GAME` line of orders).
    pub game: String,
    /// Embedded scenario name (a game created from a directory keeps its
    /// own copy in `scenario/`).
    pub scenario: String,
    #[serde(default)]
    pub options: BTreeSet<String>,
    pub moderator: Person,
    #[serde(default, rename = "player")]
    pub players: Vec<PlayerEntry>,
    /// `[[observer]]`: addresses that receive the public reports, map and
    /// press, and nothing secret; their mail is never orders.
    #[serde(default, rename = "observer", skip_serializing_if = "Vec::is_empty")]
    pub observers: Vec<Person>,
    /// IANA time zone of the game's deadlines, e.g. `Europe/Paris`.
    #[serde(default = "default_tz")]
    pub timezone: String,
    /// Deadlines per phase kind, grace, reminders.
    #[serde(default)]
    pub deadlines: crate::schedule::DeadlineConfig,
    /// Mail: the game's address, size limit, outgoing transport, IMAP.
    #[serde(default)]
    pub mail: MailConfig,
    /// `[dice]`: the optional public beacon (docs/dice.md 2a).
    #[serde(default, skip_serializing_if = "DiceConfig::is_off")]
    pub dice: DiceConfig,
    /// Press between players (`mail::press`).
    #[serde(default, skip_serializing_if = "PressConfig::is_default")]
    pub press: PressConfig,
    /// `[site]`: the public site `run` refreshes after each phase it
    /// resolves (docs/site.md); off by default.
    #[serde(default, skip_serializing_if = "SiteConfig::is_off")]
    pub site: SiteConfig,
}

/// `[site]` in game.toml.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteConfig {
    /// Where to write the site (relative to the game directory unless
    /// absolute). Without it `run` writes no site.
    #[serde(default)]
    pub out: Option<String>,
}

impl SiteConfig {
    fn is_off(&self) -> bool {
        self.out.is_none()
    }
}

/// `[dice]` in game.toml. Without it, or without `beacon`, the dice are
/// those of seed and entropy alone.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiceConfig {
    /// A drand network (`"drand-quicknet"`): each phase's commitment names
    /// the first round after its deadline and the key folds in that
    /// round's signature.
    #[serde(default)]
    pub beacon: Option<String>,
    /// Where to fetch rounds: `<beacon_url>/<chain hash>/public/<round>`
    /// (default: drand's public relay; a test serves recorded rounds).
    #[serde(default)]
    pub beacon_url: Option<String>,
}

impl DiceConfig {
    fn is_off(&self) -> bool {
        self == &DiceConfig::default()
    }
}

/// `[press]` in game.toml: whether players may send each other messages
/// through the game, signed (`white`), optionally unsigned (`grey`), or
/// not at all (`none`); and whether the moderator gets a copy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PressConfig {
    pub mode: PressMode,
    /// A copy of every press message to the moderator, naming its real
    /// sender (default true).
    pub moderator_copy: bool,
}

impl Default for PressConfig {
    fn default() -> Self {
        PressConfig {
            mode: PressMode::White,
            moderator_copy: true,
        }
    }
}

impl PressConfig {
    fn is_default(&self) -> bool {
        *self == PressConfig::default()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PressMode {
    /// Every press message names its sender.
    White,
    /// A sender may write ANONYMOUS: the recipients are not told who.
    Grey,
    /// No press.
    None,
}

/// `[mail]` in game.toml. Every field has a default, so a game
/// without the table sends through the file transport.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MailConfig {
    /// The game's own address: the From of outgoing mail and the address
    /// `ingest --games` routes by. Default: the moderator's address.
    #[serde(default)]
    pub address: Option<String>,
    /// Largest message accepted as orders, in bytes (default 256 KiB).
    #[serde(default)]
    pub max_bytes: Option<u64>,
    #[serde(default)]
    pub transport: Transport,
    #[serde(default)]
    pub imap: Option<ImapConfig>,
    /// Most replies to one address in a day (default 10); past that,
    /// the journal only (a mail loop or a flood stops there).
    #[serde(default)]
    pub max_replies_per_day: Option<u32>,
    /// Days a refused message is kept whole in the archive for the audit
    /// (default 30); then only its headers and the SHA-256 of its bytes.
    #[serde(default)]
    pub refused_keep_days: Option<u32>,
    /// Whether a mail to several players shows them each other's
    /// addresses (default: no; each gets a copy addressed to them alone).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disclose_addresses: bool,
    /// The authserv-id of the game's own mail server, whose
    /// `Authentication-Results` header (RFC 8601) is then trusted as a
    /// second factor for the sender's address (`mail::authres`): a mail
    /// from a player's address counts as theirs only when that server
    /// saw the sender's domain pass DMARC or an aligned DKIM signature.
    /// Off by default (docs/mail.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication_results: Option<String>,
}

/// Default size limit of an incoming message (orders are a few KiB; a
/// reply quoting a whole report is well under this).
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024;

/// Default of `mail.max_replies_per_day`.
pub const DEFAULT_MAX_REPLIES_PER_DAY: u32 = 10;

/// Default of `mail.refused_keep_days`: a month to look into a refusal a
/// player asks about, without keeping a 50 MB junk mail for ever.
pub const DEFAULT_REFUSED_KEEP_DAYS: u32 = 30;

impl MailConfig {
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes.unwrap_or(DEFAULT_MAX_BYTES)
    }
    pub fn max_replies_per_day(&self) -> u32 {
        self.max_replies_per_day.unwrap_or(DEFAULT_MAX_REPLIES_PER_DAY)
    }
    pub fn refused_keep_days(&self) -> u32 {
        self.refused_keep_days.unwrap_or(DEFAULT_REFUSED_KEEP_DAYS)
    }
}

/// How `send` delivers the outbox.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Transport {
    /// Write each message as a `.eml` file into `dir` (relative to the
    /// game directory; default `mail/files`), for sending by hand.
    File {
        #[serde(default)]
        dir: Option<String>,
    },
    /// Pipe to the local sendmail (`command`, default `sendmail` on PATH).
    Sendmail {
        #[serde(default)]
        command: Option<String>,
    },
    /// SMTP: STARTTLS (port 587) or implicit TLS (465), with
    /// authentication; `plain` only to a loopback host.
    Smtp(SmtpConfig),
}

impl Default for Transport {
    fn default() -> Self {
        Transport::File { dir: None }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Security {
    Starttls,
    Tls,
    Plain,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpConfig {
    pub host: String,
    #[serde(default)]
    pub port: Option<u16>,
    pub security: Security,
    #[serde(default)]
    pub user: Option<String>,
    /// Name of an environment variable holding the password (kept out of
    /// game.toml, which may live in git).
    #[serde(default)]
    pub password_env: Option<String>,
    /// A file holding the password (first line).
    #[serde(default)]
    pub password_file: Option<String>,
    /// A PEM file of an extra CA to trust (a private relay, the test rig).
    #[serde(default)]
    pub ca_file: Option<String>,
    /// The name to verify the certificate against (default: `host`).
    #[serde(default)]
    pub tls_name: Option<String>,
    #[serde(default)]
    pub timeout_secs: Option<u64>,
}

/// `[mail.imap]`: where `fetch` pulls new messages from (TLS only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImapConfig {
    pub host: String,
    #[serde(default)]
    pub port: Option<u16>,
    pub user: String,
    #[serde(default)]
    pub password_env: Option<String>,
    #[serde(default)]
    pub password_file: Option<String>,
    #[serde(default)]
    pub mailbox: Option<String>,
    #[serde(default)]
    pub ca_file: Option<String>,
    #[serde(default)]
    pub tls_name: Option<String>,
}

fn default_tz() -> String {
    "UTC".to_string()
}

impl GameConfig {
    pub fn from_toml(text: &str) -> Result<GameConfig, String> {
        let c: GameConfig = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            match line {
                Some(l) => format!("line {l}: {}", e.message().trim()),
                None => e.message().trim().to_string(),
            }
        })?;
        c.deadlines.check()?;
        if let Some(b) = &c.dice.beacon
            && crate::dice::beacon::network(b).is_none()
        {
            return Err(format!(
                "dice.beacon '{b}' is not a beacon this build knows ({})",
                crate::dice::beacon::NETWORKS
                    .iter()
                    .map(|n| n.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        c.timezone
            .parse::<chrono_tz::Tz>()
            .map_err(|_| format!("timezone '{}' is not an IANA time zone (e.g. Europe/Paris)", c.timezone))?;
        for p in &c.players {
            if let Some(tz) = &p.timezone {
                tz.parse::<chrono_tz::Tz>().map_err(|_| {
                    format!(
                        "timezone '{tz}' of {}'s player is not an IANA time zone (e.g. Europe/Paris)",
                        p.power
                    )
                })?;
            }
        }
        if c.format != 1 {
            return Err(format!(
                "game.toml format {} is not supported (this build reads format 1)",
                c.format
            ));
        }
        let problems = c.problems();
        if !problems.is_empty() {
            let mut msg = format!("refused ({} problem(s); nothing was changed):", problems.len());
            for (key, why) in &problems {
                let at = super::keyline::key_line(text, key)
                    .map(|l| format!("line {l}: "))
                    .unwrap_or_default();
                msg.push_str(&format!("\n  {at}{key}: {why}"));
            }
            return Err(msg);
        }
        Ok(c)
    }

    /// What a hand edit can break that the types do not catch: two players
    /// for one power or one address, an address no server can take
    /// (see `mail::addressable`), a password hash no check can use. Each as (key, what is wrong).
    fn problems(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut check_address = |key: String, addr: &str| {
            if let Err(why) = crate::mail::addressable(addr.trim()) {
                out.push((key, why));
            }
        };
        check_address("moderator.email".into(), &self.moderator.email);
        if let Some(a) = &self.mail.address {
            check_address("mail.address".into(), a);
        }
        for (i, p) in self.players.iter().enumerate() {
            check_address(format!("player[{i}].email"), &p.email);
        }
        for (i, o) in self.observers.iter().enumerate() {
            check_address(format!("observer[{i}].email"), &o.email);
        }
        for (i, o) in self.observers.iter().enumerate() {
            // An observer's mail is never orders: a player's address
            // (or the moderator's) listed as an observer would lose them.
            let same = |e: &str| e.trim().eq_ignore_ascii_case(o.email.trim());
            if same(&self.moderator.email) || self.players.iter().any(|p| same(&p.email)) {
                out.push((
                    format!("observer[{i}].email"),
                    format!("'{}' is a player's or the moderator's address", o.email.trim()),
                ));
            }
        }
        if self.mail.refused_keep_days == Some(0) {
            out.push((
                "mail.refused_keep_days".into(),
                "0 would cut a refused message before anyone could read it; at least 1".into(),
            ));
        }
        for (i, p) in self.players.iter().enumerate() {
            if let Err(why) = super::password::check_stored(&p.password_hash) {
                out.push((
                    format!("player[{i}].password_hash"),
                    format!("{why}; set a new password with `empereur replace-player` (the hash is written for you)"),
                ));
            }
        }
        for (i, p) in self.players.iter().enumerate() {
            if let Some(j) = self.players[..i].iter().position(|q| q.power == p.power) {
                out.push((
                    format!("player[{i}].power"),
                    format!("{} has two players (player[{j}] too)", p.power.id()),
                ));
            }
            let same = |q: &PlayerEntry| q.email.trim().eq_ignore_ascii_case(p.email.trim());
            if let Some(j) = self.players[..i].iter().position(same) {
                out.push((
                    format!("player[{i}].email"),
                    format!("'{}' is the address of player[{j}] too", p.email.trim()),
                ));
            }
        }
        out
    }
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("config serialises")
    }
    pub fn tz(&self) -> chrono_tz::Tz {
        self.timezone.parse().unwrap_or(chrono_tz::Tz::UTC)
    }
    /// The time zone `p`'s player reads deadlines in: theirs, else the
    /// game's.
    pub fn player_tz(&self, p: PowerId) -> chrono_tz::Tz {
        self.player(p)
            .and_then(|x| x.timezone.as_deref())
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| self.tz())
    }
    /// The observer whose address `from` is, if it is one.
    pub fn observer(&self, from: &str) -> Option<&Person> {
        self.observers
            .iter()
            .find(|o| o.email.trim().eq_ignore_ascii_case(from.trim()))
    }
    pub fn player(&self, p: PowerId) -> Option<&PlayerEntry> {
        self.players.iter().find(|x| x.power == p)
    }
    /// The address outgoing mail comes from.
    pub fn mail_address(&self) -> &str {
        self.mail.address.as_deref().unwrap_or(&self.moderator.email)
    }
}
