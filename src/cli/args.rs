//! The command line of each command that has its own options: a clap
//! struct here, read into the plain options struct of the same name that
//! its `ops::` function takes (`From`), as cargo's `commands/` read
//! arguments into `ops`' options. `ops` knows nothing of clap, and what
//! a flag is called, its help and its default live here only. The pure
//! core's types a flag names are mapped here too, instead of deriving
//! clap's traits there.

use crate::autoplay::balance::Policy;
use crate::ops::{self, Format};
use clap::builder::PossibleValue;
use std::path::PathBuf;

/// `--format` of `map`, `show` and `games`.
impl clap::ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &[Format::Text, Format::Json, Format::Toml]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Toml => "toml",
        }))
    }
}

/// `--policy` of `empereur balance`.
impl clap::ValueEnum for Policy {
    fn value_variants<'a>() -> &'a [Self] {
        &[Policy::Passive, Policy::Active, Policy::Mixed]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Policy::Passive => "Nobody orders anything: the defaults of every phase only (peaceful accrual, 4.23)",
            Policy::Active => "Every power orders what the autoplay generator proposes",
            Policy::Mixed => "Each power is active or passive, chosen per campaign from its seed",
        };
        Some(PossibleValue::new(self.id()).help(help))
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Examples:\n  empereur autoplay --game test-game --phases 20 --seed 7\n  empereur autoplay --game test-game --phases 400   # to the end"
)]
pub struct AutoplayArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// How many phases to resolve.
    #[arg(long, default_value_t = 1)]
    pub phases: u32,
    /// Seed of the order generator (the dice stay committed).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl From<AutoplayArgs> for ops::autoplay::AutoplayArgs {
    fn from(a: AutoplayArgs) -> Self {
        Self {
            game: a.game,
            phases: a.phases,
            seed: a.seed,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Examples:\n  empereur balance --scenario 1805 --campaigns 200 --policy passive\n  empereur balance --scenario 1805 --campaigns 200 --policy active --json"
)]
pub struct BalanceArgs {
    /// An embedded scenario name or a scenario directory.
    #[arg(long, default_value = "1805")]
    pub scenario: String,
    /// How many campaigns to play (seeds --seed .. --seed + N).
    #[arg(long, default_value_t = 50)]
    pub campaigns: u32,
    /// passive: nobody orders (peaceful accrual); active: every power
    /// orders what autoplay generates; mixed: each power one or the other.
    #[arg(long, value_enum, default_value_t = Policy::Active)]
    pub policy: Policy,
    /// The first campaign's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

impl From<BalanceArgs> for ops::balance::BalanceArgs {
    fn from(a: BalanceArgs) -> Self {
        Self {
            scenario: a.scenario,
            campaigns: a.campaigns,
            policy: a.policy,
            seed: a.seed,
        }
    }
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  empereur check --game campaign --power france orders.txt\n  empereur check --state austria-1805-fall.toml --scenario ./my-1805 - < orders.txt\n\nExit codes: 0 every order accepted, 1 some order rejected, 2 operational error."
)]
pub struct CheckArgs {
    /// The game directory (default: the current directory).
    #[arg(long, short = 'g', conflicts_with = "state")]
    pub game: Option<PathBuf>,
    /// A state file (as mailed to a player) to check against instead of a game.
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// With --state: the scenario (embedded name or directory); default: the state's own.
    #[arg(long, requires = "state")]
    pub scenario: Option<String>,
    /// The power giving the orders (default: the POWER line).
    #[arg(long)]
    pub power: Option<String>,
    /// The order file, or `-` for standard input.
    pub file: String,
}

impl From<CheckArgs> for ops::check::CheckArgs {
    fn from(a: CheckArgs) -> Self {
        Self {
            game: a.game,
            state: a.state,
            scenario: a.scenario,
            power: a.power,
            file: a.file,
        }
    }
}

#[derive(Debug, Clone, clap::Subcommand)]
pub enum DiceCmd {
    /// Derive one roll from a revealed seed, the entropies and a purpose.
    #[command(
        after_help = "Example (docs/dice.md's worked example; it gives 7):\n  empereur dice roll --seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f \\\n      --entropy \"france=Vive l'Empereur\" --entropy \"britain=Rule, Britannia\" \\\n      --purpose land-battle/ulm/1/round-1/attacker --sides 10\n\nThe result stands alone on the last line. A game's roll: the seed is the\n`seed` file of its history entry, the entropies are in its entropy.toml,\nthe purpose and the result in its dice.toml."
    )]
    Roll(RollArgs),
    /// Compute the commitment to a seed for a game and phase.
    #[command(
        after_help = "Example:\n  empereur dice commit --game-id demo --phase 1805-fall-turn-start --seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    )]
    Commit(CommitArgs),
}

impl From<DiceCmd> for ops::dice_cmd::DiceCmd {
    fn from(c: DiceCmd) -> Self {
        match c {
            DiceCmd::Roll(a) => Self::Roll(a.into()),
            DiceCmd::Commit(a) => Self::Commit(a.into()),
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
pub struct RollArgs {
    /// The revealed seed, 64 hex digits.
    #[arg(long)]
    pub seed: String,
    /// The roll's purpose string, exactly as in the dice log.
    #[arg(long)]
    pub purpose: String,
    /// Faces of the die (10 for the rules, 6 for the EiA modules).
    #[arg(long, default_value_t = 10)]
    pub sides: u32,
    /// A power's entropy line, `POWER=TEXT` (repeatable; absent = empty).
    #[arg(long = "entropy", value_name = "POWER=TEXT")]
    pub entropy: Vec<String>,
}

impl From<RollArgs> for ops::dice_cmd::RollArgs {
    fn from(a: RollArgs) -> Self {
        Self {
            seed: a.seed,
            purpose: a.purpose,
            sides: a.sides,
            entropy: a.entropy,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
pub struct CommitArgs {
    /// The game id.
    #[arg(long = "game-id")]
    pub game_id: String,
    /// The phase id, e.g. 1805-fall-turn-start.
    #[arg(long)]
    pub phase: String,
    /// The seed, 64 hex digits.
    #[arg(long)]
    pub seed: String,
}

impl From<CommitArgs> for ops::dice_cmd::CommitArgs {
    fn from(a: CommitArgs) -> Self {
        Self {
            game_id: a.game_id,
            phase: a.phase,
            seed: a.seed,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Example:\n  empereur export-history --game campaign --out campaign-history.tar\n  tar xf campaign-history.tar -C copy && empereur verify --game copy --mails ~/Mail/empereur --power russia"
)]
pub struct ExportArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// The tar file to write.
    #[arg(long)]
    pub out: PathBuf,
}

impl From<ExportArgs> for ops::export::ExportArgs {
    fn from(a: ExportArgs) -> Self {
        Self {
            game: a.game,
            out: a.out,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Example:\n  empereur site --game campaign --out public\n  (then open public/index.html, or publish the directory on any static host)\n\ngame.toml, to refresh it after every phase `run` resolves:\n  [site]\n  out = \"public\""
)]
pub struct SiteArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// The directory to write the site into (created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

impl From<SiteArgs> for ops::site::SiteArgs {
    fn from(a: SiteArgs) -> Self {
        Self {
            game: a.game,
            out: a.out,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Example:\n  empereur fetch --game campaign\n\ngame.toml:\n  [mail.imap]\n  host = \"imap.example.org\"\n  user = \"empereur@example.org\"\n  password_env = \"EMPEREUR_IMAP_PASSWORD\"\n  port = 993   # the default; any port the server uses\n\nImplicit TLS only (no STARTTLS, no plain IMAP). Messages are flagged seen, never deleted.\nWithout IMAP: mbsync or fetchmail into a Maildir, then `empereur ingest --maildir`."
)]
pub struct FetchArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
}

impl From<FetchArgs> for ops::fetch::FetchArgs {
    fn from(a: FetchArgs) -> Self {
        Self { game: a.game }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Example:\n  empereur games --root /srv/empereur\n\nOne line per game: directory, game id, open phase, deadline (the game's time zone), then what it waits for. Exit 2 when a game could not be read (its line says why; the others are listed)."
)]
pub struct GamesArgs {
    /// The directory holding the games (each subdirectory with a game.toml).
    #[arg(long)]
    pub root: PathBuf,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

impl From<GamesArgs> for ops::games::GamesArgs {
    fn from(a: GamesArgs) -> Self {
        Self { root: a.root }
    }
}

/// `empereur status`: one game, or with `--games` every game under a directory.
#[derive(Debug, Clone, clap::Args)]
pub struct StatusArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".", conflicts_with = "games")]
    pub game: PathBuf,
    /// A directory of games: one line each, as `empereur games --root`.
    #[arg(long)]
    pub games: Option<PathBuf>,
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Examples:\n  empereur ingest --game campaign --maildir ~/Maildir/.empereur\n  empereur ingest --game campaign orders.eml\n  formail -s empereur ingest --game campaign -   (one message on stdin)\n  empereur ingest --games /srv/games --mbox /var/mail/empereur\n\nExit code 1 when a message was refused (wrong password, stale phase, …).\nFrom standard input (`-`, a mail server's pipe): 0 once the message is archived\nand answered, 75 (EX_TEMPFAIL, retry later) if the game stayed locked or the\nmessage could not be archived."
)]
pub struct IngestArgs {
    /// The game directory.
    #[arg(long, short = 'g', conflicts_with = "games")]
    pub game: Option<PathBuf>,
    /// A directory of games: route each message by its GAME line or the
    /// address it was sent to.
    #[arg(long)]
    pub games: Option<PathBuf>,
    /// Read every message of this Maildir (new/ and cur/; nothing is
    /// moved or deleted there).
    #[arg(long)]
    pub maildir: Option<PathBuf>,
    /// Read every message of this mbox file.
    #[arg(long)]
    pub mbox: Option<PathBuf>,
    /// Message files (`.eml`); `-` reads one message from standard input.
    pub files: Vec<PathBuf>,
}

impl From<IngestArgs> for ops::ingest::IngestArgs {
    fn from(a: IngestArgs) -> Self {
        Self {
            game: a.game,
            games: a.games,
            maildir: a.maildir,
            mbox: a.mbox,
            files: a.files,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Example:\n  empereur mail --game campaign\n\nQueues the reports and openings of every history entry not yet mailed (phases resolved by hand, autoplay, undo), in order, then delivers the outbox. `run` does the same on every call."
)]
pub struct MailArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// Queue only; leave delivery to `send` or the next `run`.
    #[arg(long)]
    pub no_send: bool,
}

impl From<MailArgs> for ops::mailing::MailArgs {
    fn from(a: MailArgs) -> Self {
        Self {
            game: a.game,
            no_send: a.no_send,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Examples:\n  empereur resend --game campaign --power austria --last\n  empereur resend --game campaign --power austria --entry 14\n\nQueues again, under new message ids, the report of the entry for the power and the opening it made (default: the last entry), and delivers the outbox."
)]
pub struct ResendArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// The power whose player gets the mail again.
    #[arg(long)]
    pub power: String,
    /// The history entry: its number (`14`) or directory name.
    #[arg(long, conflicts_with = "last")]
    pub entry: Option<String>,
    /// The last history entry (the default), or the first phase's
    /// opening when nothing has been resolved yet.
    #[arg(long)]
    pub last: bool,
    /// Queue only; leave delivery to `send` or the next `run`.
    #[arg(long)]
    pub no_send: bool,
}

impl From<ResendArgs> for ops::mailing::ResendArgs {
    fn from(a: ResendArgs) -> Self {
        Self {
            game: a.game,
            power: a.power,
            entry: a.entry,
            last: a.last,
            no_send: a.no_send,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Example:\n  empereur undo --game campaign --reason \"Austria's orders were entered for the wrong corps\""
)]
pub struct UndoArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// Why (recorded in the history and told to the players).
    #[arg(long)]
    pub reason: String,
}

impl From<UndoArgs> for ops::moderate::UndoArgs {
    fn from(a: UndoArgs) -> Self {
        Self {
            game: a.game,
            reason: a.reason,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Example:\n  empereur preview --game campaign\n\nThe preview rolls with a throwaway seed, never the phase's real one: its dice say nothing about the real result."
)]
pub struct PreviewArgs {
    /// The game directory (never changed, except that the preview is
    /// counted and journalled).
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
}

impl From<PreviewArgs> for ops::moderate::PreviewArgs {
    fn from(a: PreviewArgs) -> Self {
        Self { game: a.game }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Example:\n  empereur physical-dice --game campaign --phase 1806-spring-turn-start\n\nOnly a phase announced before it opens may be resolved with --manual-dice; the announcement is journalled and mailed to every player."
)]
pub struct PhysicalDiceArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// The phase (not open yet) to be resolved with physical dice.
    #[arg(long)]
    pub phase: String,
}

impl From<PhysicalDiceArgs> for ops::physical_dice::PhysicalDiceArgs {
    fn from(a: PhysicalDiceArgs) -> Self {
        Self {
            game: a.game,
            phase: a.phase,
        }
    }
}

/// `empereur resolve` arguments.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(
    after_help = "Examples:\n  empereur resolve --game campaign\n  empereur resolve --game campaign --phase 1805-fall-france\n  empereur resolve --game campaign --manual-dice 7,3,10,1"
)]
pub struct ResolveArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// Resolve only if this is the open phase (a guard for cron).
    #[arg(long)]
    pub phase: Option<String>,
    /// Physical dice rolled by the moderator, in the order the engine asks
    /// (a d10 may be entered as 0 for 10); logged as manual.
    #[arg(long = "manual-dice")]
    pub manual_dice: Option<String>,
}

impl From<ResolveArgs> for ops::resolve::ResolveArgs {
    fn from(a: ResolveArgs) -> Self {
        Self {
            game: a.game,
            phase: a.phase,
            manual_dice: a.manual_dice,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Examples:\n  empereur run --game campaign\n  empereur run --games /srv/empereur --maildir ~/Maildir\n\ncrontab:\n  * * * * *  empereur run --games /srv/empereur --maildir /var/mail/empereur-maildir\n\nQuiet unless something needs the moderator; exit 2 only for operational failures."
)]
pub struct RunArgs {
    /// The game directory.
    #[arg(long, short = 'g', conflicts_with = "games")]
    pub game: Option<PathBuf>,
    /// A directory of games: run each one (one failing game never stops the others).
    #[arg(long)]
    pub games: Option<PathBuf>,
    /// A Maildir to read new messages from (each message is processed once).
    #[arg(long)]
    pub maildir: Option<PathBuf>,
    /// Say what was done, not only what needs the moderator.
    #[arg(long, short = 'v')]
    pub verbose: bool,
}

impl From<RunArgs> for ops::run::RunArgs {
    fn from(a: RunArgs) -> Self {
        Self {
            game: a.game,
            games: a.games,
            maildir: a.maildir,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Examples:\n  empereur seat --game campaign --power spain --name \"Ana\" --email ana@example.org --password-from-mail\n  empereur seat --game campaign --power spain --name \"Ana\" --email ana@example.org\n\nExit codes: 0 seated, 1 refused (the power has a player, 3.0 gives another power to that many players, the address is taken or cannot be mailed, no join mail with a PASSWORD line), 2 an operational error."
)]
pub struct SeatArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// The power to seat the player on (one without a player).
    #[arg(long)]
    pub power: String,
    /// The player's name.
    #[arg(long)]
    pub name: String,
    /// The player's address: the game's mail goes there. Orders need the
    /// password from any address; from another one they are taken with
    /// a copy of the answer to this one.
    #[arg(long)]
    pub email: String,
    /// Take the password from the PASSWORD line of the player's own join
    /// mail in the inbox (default: generate one and mail it).
    #[arg(long)]
    pub password_from_mail: bool,
    /// IANA time zone the player reads deadlines in (default: the game's).
    #[arg(long)]
    pub timezone: Option<String>,
    /// Seat even when the powers played would not be those 3.0 gives for
    /// that many players (a house seating).
    #[arg(long)]
    pub house_seating: bool,
}

impl From<SeatArgs> for ops::seat::SeatArgs {
    fn from(a: SeatArgs) -> Self {
        Self {
            game: a.game,
            power: a.power,
            name: a.name,
            email: a.email,
            password_from_mail: a.password_from_mail,
            timezone: a.timezone,
            house_seating: a.house_seating,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
#[command(
    after_help = "Examples:\n  empereur send --game campaign\n  empereur send --game campaign --dry-run\n  empereur send --game campaign --release 3f2a…   (a message held after a crash, or refused: fix the address first)\n  empereur send --game campaign --drop 3f2a…      (give up a refused message; the journal records it)\n  empereur send --game campaign --drop ann@example.org   (dismiss a dead address a bounce reported)\n\nThe transport is [mail.transport] in game.toml (default: .eml files in mail/files).\nExit code 1 when a message failed or is held; it stays queued."
)]
pub struct SendArgs {
    /// The game directory (or a host directory of `ingest --games`).
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// List what would be sent; send nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Send a held message again: one an earlier send was interrupted in
    /// (it may have been delivered once already) or one the server
    /// refused for good (5xx).
    #[arg(long)]
    pub release: Vec<String>,
    /// Give up a message the server refused for good (or one held after
    /// an interrupted send): never sent, recorded in the journal. Given
    /// an address a bounce reported dead: dismiss it (no longer listed).
    #[arg(long)]
    pub drop: Vec<String>,
}

impl From<SendArgs> for ops::send::SendArgs {
    fn from(a: SendArgs) -> Self {
        Self {
            game: a.game,
            dry_run: a.dry_run,
            release: a.release,
            drop: a.drop,
        }
    }
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  empereur submit --game campaign --power spain phoned-in.txt\n\nExit codes: 0 every order accepted and stored, 1 some order rejected (the rest stored), 2 operational error."
)]
pub struct SubmitArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// The power whose orders these are.
    #[arg(long)]
    pub power: String,
    /// The order file, or `-` for standard input.
    pub file: String,
}

impl From<SubmitArgs> for ops::submit::SubmitArgs {
    fn from(a: SubmitArgs) -> Self {
        Self {
            game: a.game,
            power: a.power,
            file: a.file,
        }
    }
}

/// `empereur verify` arguments.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(
    after_help = "Examples:\n  empereur verify --game campaign\n  empereur verify --game campaign --replay\n  empereur verify --game campaign 0003 0004-1805-fall-russia\n\nExit 0 when everything matches, 1 on any mismatch."
)]
pub struct VerifyArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// Also re-adjudicate every resolved phase and compare the states.
    #[arg(long)]
    pub replay: bool,
    /// Only report on these history entries (number or directory name).
    #[arg(value_name = "ENTRY")]
    pub entries: Vec<String>,
    /// A player's mailbox (a Maildir, a directory of .eml files, an mbox
    /// or one .eml): check every anchor the game mailed against the history.
    #[arg(long, value_name = "DIR|MBOX", requires = "power")]
    pub mails: Option<PathBuf>,
    /// Whose mailbox `--mails` is (the power the player plays).
    #[arg(long, requires = "mails")]
    pub power: Option<String>,
}

impl From<VerifyArgs> for ops::verify::VerifyArgs {
    fn from(a: VerifyArgs) -> Self {
        Self {
            game: a.game,
            replay: a.replay,
            entries: a.entries,
            mails: a.mails,
            power: a.power,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
pub struct GameOnly {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
}

impl From<GameOnly> for ops::workflow::GameOnly {
    fn from(a: GameOnly) -> Self {
        Self { game: a.game }
    }
}

#[derive(Debug, Clone, clap::Args)]
pub struct ExtendArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// Hours to add to the open phase's deadline.
    #[arg(long)]
    pub hours: u32,
    /// Why (told to the players).
    #[arg(long, default_value = "moderator's decision")]
    pub reason: String,
}

impl From<ExtendArgs> for ops::workflow::ExtendArgs {
    fn from(a: ExtendArgs) -> Self {
        Self {
            game: a.game,
            hours: a.hours,
            reason: a.reason,
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
pub struct ReplacePlayerArgs {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
    /// The power whose player changes.
    #[arg(long)]
    pub power: String,
    /// A file with the new player's `[[player]]` entry (power, name, email, password); a whole players file does too.
    #[arg(long)]
    pub players: PathBuf,
}

impl From<ReplacePlayerArgs> for ops::workflow::ReplacePlayerArgs {
    fn from(a: ReplacePlayerArgs) -> Self {
        Self {
            game: a.game,
            power: a.power,
            players: a.players,
        }
    }
}
