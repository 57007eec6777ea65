//! The command line: clap definitions, each command read into an options
//! struct and handed to one `ops::` function (STYLE 1). Exit codes: 0
//! success, 1 a domain "no" (orders rejected, verify mismatch), 2 an
//! operational failure (unreadable file, bad arguments).
#![allow(clippy::disallowed_methods)] // adapter: the cli owns arguments and the terminal

use crate::ops::{self, Done};
use clap::{Args, CommandFactory, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "empereur",
    version,
    about = "Play-by-email adjudicator for La Guerre de l'Empereur",
    long_about = "Play-by-email adjudicator for La Guerre de l'Empereur (2nd edition), with the optional rules of Empires in Arms.\n\nStart with `empereur demo`.",
    after_help = "Exit codes: 0 success, 1 the answer is no (orders rejected, verify mismatch), 2 operational error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

pub mod args;
pub mod print;
pub mod progress;
pub mod shell;

use print::{print, print_as};

pub use crate::ops::Format;

#[derive(Args, Debug, Clone)]
pub struct GameArg {
    /// The game directory.
    #[arg(long, short = 'g', default_value = ".")]
    pub game: PathBuf,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the scenarios embedded in the binary.
    #[command(after_help = "Example:\n  empereur scenarios")]
    Scenarios,

    /// Print the map of a scenario, or draw a game's map as a picture.
    #[command(
        after_help = "Examples:\n  empereur map\n  empereur map --scenario ./my-1805 --format json\n  empereur map --game campaign --power france --png france.png"
    )]
    Map {
        /// Embedded scenario name or scenario directory.
        #[arg(long, default_value = "1805", conflicts_with = "game")]
        scenario: String,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Draw this game's map now (with the last phase's moves).
        #[arg(long)]
        game: Option<PathBuf>,
        /// Draw only what this power may see (default: the moderator's map).
        #[arg(long, requires = "game")]
        power: Option<String>,
        /// Write the picture as SVG to this file.
        #[arg(long, requires = "game")]
        svg: Option<PathBuf>,
        /// Write the picture as PNG to this file (1600 px wide).
        #[arg(long, requires = "game")]
        png: Option<PathBuf>,
    },

    /// Scenario tools.
    #[command(subcommand)]
    Scenario(ScenarioCmd),

    /// Create a game directory from a scenario and a players file.
    #[command(
        after_help = "Example:\n  empereur new campaign --scenario 1805 --players players.toml\n\nWith two players the powers are France and Great Britain, then Russia, Austria, Prussia, Spain, the Ottoman Empire (3.0); `bid = true` in the players file opens the country bid (3.1).\n\nExit codes: 0 created, 1 refused (a seating 3.0 does not allow, an address that cannot be mailed), 2 an operational error."
    )]
    New {
        /// Directory to create (must not hold a game already).
        dir: PathBuf,
        /// Embedded scenario name or scenario directory.
        #[arg(long, default_value = "1805")]
        scenario: String,
        /// The players file (see README).
        #[arg(long)]
        players: PathBuf,
        /// Switch on an optional rules module (repeatable).
        #[arg(long = "option")]
        options: Vec<String>,
        /// The game id (the GAME line of orders); default: the directory name.
        #[arg(long)]
        id: Option<String>,
        /// Create the game even when the powers played are not those 3.0
        /// gives for that many players (a house seating).
        #[arg(long)]
        house_seating: bool,
        /// Once the passwords are hashed into game.toml, remove them from
        /// the players file (each line becomes a comment).
        #[arg(long)]
        wipe_passwords: bool,
    },

    /// Show the current state of a game.
    #[command(
        after_help = "Examples:\n  empereur show --game campaign\n  empereur show --game campaign --power austria --format json"
    )]
    Show {
        #[command(flatten)]
        game: GameArg,
        /// Show only what this power may see (2.5).
        #[arg(long)]
        power: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },

    /// Create the demo game from the embedded scenario and play it.
    #[command(after_help = "Example:\n  empereur demo --out /tmp/demo")]
    Demo {
        /// Where to create the demo game (default: a new temporary directory).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    // == orders: check, submit ==
    /// Check an order file offline: print the normalised orders and every problem.
    Check(args::CheckArgs),
    /// Enter a power's orders by hand (moderator); store the accepted ones.
    Submit(args::SubmitArgs),
    // == end orders ==

    // == dice: verify, dice ==
    /// Check the dice, the commitments and the history's hash chain.
    Verify(args::VerifyArgs),
    /// Write a tarball of the history for players to verify (no secrets of the open phase).
    ExportHistory(args::ExportArgs),
    /// Write the game's public site: history, public reports and a dice verifier that runs in the page.
    Site(args::SiteArgs),

    /// Derive dice by hand (auditors, docs/dice.md).
    #[command(subcommand)]
    Dice(args::DiceCmd),

    /// Resolve the open phase with committed (or manual) dice and open the next.
    Resolve(args::ResolveArgs),
    // == end dice ==

    // == rules: resolve, autoplay ==
    /// Generate legal orders for every power that has none, and resolve N phases.
    Autoplay(args::AutoplayArgs),
    /// Play N seeded campaigns in process: win shares, winning seasons, VP by source.
    Balance(args::BalanceArgs),

    // == end rules ==

    // == mail: ingest, send, fetch ==
    /// Read order mails (Maildir, mbox, .eml, stdin), archive and answer them.
    Ingest(args::IngestArgs),
    /// Deliver the outbox (file, sendmail or SMTP, per game.toml).
    Send(args::SendArgs),
    /// Pull new mail from the game's IMAP mailbox (TLS) and ingest it.
    Fetch(args::FetchArgs),
    // == end mail ==

    // == workflow: run, status, pause, resume, extend, undo, preview, replace-player ==
    /// The one command for cron: fetch, ingest, resolve what is due, mail.
    Run(args::RunArgs),
    /// The open phase, its deadline, who is in, who is late, what is queued.
    #[command(
        after_help = "Examples:\n  empereur status --game campaign\n  empereur status --games /srv/empereur   # every hosted game, one line each"
    )]
    Status(args::StatusArgs),
    /// Every game hosted under a directory, one line each: phase, deadline, who is late, paused or over.
    Games(args::GamesArgs),
    /// Stop the clock (deadlines wait until `resume`).
    #[command(after_help = "Example:\n  empereur pause --game campaign")]
    Pause(args::GameOnly),
    /// Restart the clock; the deadline moves by the time paused.
    #[command(after_help = "Example:\n  empereur resume --game campaign")]
    Resume(args::GameOnly),
    /// Extend the open phase's deadline.
    #[command(after_help = "Example:\n  empereur extend --game campaign --hours 24 --reason \"holiday\"")]
    Extend(args::ExtendArgs),
    /// Hand a power to a new player (name, address, password).
    #[command(
        after_help = "Example:\n  empereur replace-player --game campaign --power spain --players new-spain.toml"
    )]
    ReplacePlayer(args::ReplacePlayerArgs),
    /// Print a shell completion script (bash, zsh, fish).
    Completions(shell::CompletionsArgs),
    /// Write a man page per command into a directory.
    Man(shell::ManArgs),
    /// Seat a new player on a power without one (a join request); an NPC becomes a Player Country at the next Turn Start (3.2).
    Seat(args::SeatArgs),
    /// Mail every history entry not mailed yet (reports, openings), in order, and deliver.
    Mail(args::MailArgs),
    /// Send a power's report and phase opening again (the last entry, or --entry N).
    Resend(args::ResendArgs),
    /// Roll back the last resolution, in the open (an entry in the hash chain).
    Undo(args::UndoArgs),
    /// Resolve a scratch copy of the game with a throwaway seed (never the real dice).
    Preview(args::PreviewArgs),
    /// Announce, before a phase opens, that it will be resolved with physical dice.
    PhysicalDice(args::PhysicalDiceArgs),
    // == end workflow ==
}

#[derive(Subcommand, Debug)]
pub enum ScenarioCmd {
    /// Validate a scenario directory and list its house values.
    #[command(after_help = "Example:\n  empereur scenario check games/scenarios/1805")]
    Check {
        /// The scenario directory.
        dir: PathBuf,
    },
}

/// Parse arguments, run, and map the result to an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = run(cli);
    match result {
        Ok(Done::Yes) => ExitCode::SUCCESS,
        Ok(Done::No) => ExitCode::from(1),
        Ok(Done::TempFail) => ExitCode::from(75),
        // `empereur map | head -1`: the reader has had enough; that is
        // no failure of the command.
        Err(e) if closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Whether `e` is a write to a standard output whose reader went away.
fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .filter_map(|c| c.downcast_ref::<std::io::Error>())
        .any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

/// The game directory (or the root of several) a command writes, if it
/// writes one: a run as another user than its owner is warned
/// (`store::owner`).
fn written_dir(c: &Command) -> Option<&std::path::Path> {
    match c {
        Command::Run(a) => a.game.as_deref().or(a.games.as_deref()),
        Command::Ingest(a) => a.game.as_deref().or(a.games.as_deref()),
        Command::Send(a) => Some(&a.game),
        Command::Mail(a) => Some(&a.game),
        Command::Resend(a) => Some(&a.game),
        Command::Fetch(a) => Some(&a.game),
        Command::Resolve(a) => Some(&a.game),
        Command::Submit(a) => Some(&a.game),
        Command::Seat(a) => Some(&a.game),
        Command::ReplacePlayer(a) => Some(&a.game),
        Command::Extend(a) => Some(&a.game),
        Command::Undo(a) => Some(&a.game),
        Command::Pause(a) | Command::Resume(a) => Some(&a.game),
        _ => None,
    }
}

pub fn run(cli: Cli) -> anyhow::Result<Done> {
    if let Some(w) = written_dir(&cli.command).and_then(crate::store::owner::warning) {
        eprintln!("{w}");
    }
    match cli.command {
        Command::Scenarios => print(ops::scenarios()),
        Command::Map {
            game: Some(game),
            power,
            svg,
            png,
            ..
        } => print(ops::map::draw(&game, power.as_deref(), svg.as_deref(), png.as_deref())?),
        Command::Map { scenario, format, .. } => print_as(ops::map::run(&scenario)?, format),
        Command::Scenario(ScenarioCmd::Check { dir }) => print(ops::scenario_check(&dir)?),
        Command::New {
            dir,
            scenario,
            players,
            options,
            id,
            house_seating,
            wipe_passwords,
        } => print(ops::new::run_with(
            &ops::new::NewOptions {
                dir,
                scenario,
                players,
                options,
                id,
                house_seating,
            },
            wipe_passwords,
        )?),
        Command::Show { game, power, format } => {
            print_as(ops::show::run(&game.game, power.as_deref(), format)?, format)
        }
        Command::Demo { out } => print(ops::demo::run(out)?),
        // == orders ==
        Command::Check(a) => print(ops::check::run(&a.into())?),
        Command::Submit(a) => print(ops::submit::run(&a.into())?),
        // == end orders ==

        // == dice ==
        Command::Verify(a) => print(ops::verify::run(&a.into(), &mut progress::Bar::on_terminal())?),
        Command::ExportHistory(a) => print(ops::export::run(&a.into())?),
        Command::Site(a) => print(ops::site::run(&a.into())?),
        Command::Dice(c) => print(ops::dice_cmd::run(&c.into())?),
        Command::Resolve(a) => print(ops::resolve::run(&a.into())?),
        // == end dice ==

        // == rules ==
        Command::Autoplay(a) => print(ops::autoplay::run(&a.into(), &mut progress::Bar::on_terminal())?),
        Command::Balance(a) => {
            let format = if a.json { Format::Json } else { Format::Text };
            print_as(ops::balance::run(&a.into())?, format)
        }

        // == end rules ==

        // == mail ==
        Command::Ingest(a) => print(ops::ingest::run(&a.into())?),
        Command::Send(a) => print(ops::send::run(&a.into())?),
        Command::Mail(a) => print(ops::mailing::mail(&a.into())?),
        Command::Resend(a) => print(ops::mailing::resend(&a.into())?),
        Command::Fetch(a) => print(ops::fetch::run(&a.into())?),
        // == end mail ==

        // == workflow ==
        Command::Run(a) => {
            let verbose = a.verbose;
            ops::run::run(
                &a.into(),
                &mut print::game_ran(verbose),
                &mut progress::Bar::on_terminal(),
            )
        }
        Command::Status(a) => match &a.games {
            Some(root) => print(ops::games::status_of_games(root)?),
            None => print(ops::workflow::status(&ops::workflow::GameOnly { game: a.game })?),
        },
        Command::Games(a) => {
            let format = a.format;
            print_as(ops::games::run(&a.into())?, format)
        }
        Command::Pause(a) => print(ops::workflow::pause(&a.into())?),
        Command::Resume(a) => print(ops::workflow::resume(&a.into())?),
        Command::Extend(a) => print(ops::workflow::extend(&a.into())?),
        Command::ReplacePlayer(a) => print(ops::workflow::replace_player(&a.into())?),
        Command::Seat(a) => print(ops::seat::run(&a.into())?),
        Command::Completions(a) => print(shell::completions(Cli::command(), &a)),
        Command::Man(a) => print(shell::man(Cli::command(), &a)?),
        Command::Undo(a) => print(ops::moderate::undo(&a.into())?),
        Command::Preview(a) => print(ops::moderate::preview(&a.into())?),
        Command::PhysicalDice(a) => print(ops::physical_dice::run(&a.into())?),
        // == end workflow ==
    }
}
