//! Empereur: a play-by-email adjudicator for *La Guerre de l'Empereur*.
//!
//! # Modules
//!
//! Pure core (no files, clock, environment or OS randomness; enforced by
//! `clippy.toml`):
//!
//! | module | owns |
//! |---|---|
//! | [`ids`] | power ids, nations, seasons, phase ids |
//! | [`diagnostic`] | errors with a span, rendered in one place |
//! | `vocabulary` | the written names of closed vocabularies (outcome kinds, problem codes) |
//! | [`map`] | provinces, sea zones, arrows, name resolution |
//! | [`scenario`] | scenario TOML schema, loading and checks, rules tables |
//! | [`state`] | the game state, its TOML form, per-power views |
//! | [`orders`] | the order language: lexer, parser, resolution, validation |
//! | [`dice`] | the dice trait and its sources, the commit-reveal protocol |
//! | [`rules`] | the engine: state + orders + dice -> state + outcomes |
//! | [`picture`] | map pictures: geometry, SVG, PNG (per-power views) |
//! | [`schedule`] | deadlines, grace, reminders, absences (time passed in) |
//! | [`zone`] | time zones as players name them (`TIMEZONE`), the one way a deadline is written |
//! | [`autoplay`] | generated orders and seeded dice for simulated powers (not the engine) |
//! | `testing` | scripted dice for tests (feature `testing`, never shipped) |
//!
//! Adapters:
//!
//! | module | owns | reads / writes in a game directory |
//! |---|---|---|
//! | [`store`] | layout, atomic writes, lock, config, passwords | everything below, through `atomic_write` |
//! | [`mail`] | ingest, authentication, outbox, sending | `mail/`, journal; submissions via store |
//! | [`report`] | view models and templates of mails and reports | reads `templates/` overrides |
//! | [`site`] | the public site's files from what `ops::site` read (no I/O) | — |
//! | [`ops`] | one function per command: its options in, its summary out | — (calls store) |
//! | [`cli`] | argument parsing (feature `cli`), printing every summary, progress bars, exit codes, completions, man pages | — |
//!
//! Files of a game directory and who writes them: `game.toml` (ops::new,
//! replace-player, the moderator), `state.toml` (ops::new, ops::resolve,
//! undo), `phase/` seed, commitment and `clock.toml` (store::phase,
//! ops::resolve, ops::workflow), `phase/seed-chain` (the seed chain's
//! secret end: ops::new, read by store::phase), `phase/physical-dice.toml`
//! (ops::physical_dice), `phase/orders/` (store::submission via
//! submit and mail ingest), `history/` (store::history via ops::new's
//! genesis entry 0, ops::resolve, preview and undo, append only), `schedule.toml` (lateness, absences, seconds:
//! ops::run, mail ingest), `mail/inbox` (mail::archive, never deleted),
//! `mail/outbox`, `mail/sent`, `mail/mailed.toml` (mail::outbox,
//! mail::transport, mail::mailed via ops::mailing), `mail/quarantine/`
//! (mail ingest: messages that could not be answered, with the reason),
//! `press/` (mail::press: every press message relayed between players),
//! `history/NNNN-*/lock.toml` (the orders lock, ops::lock), `.wake`
//! (store::wake: a cache that lets a quiet `run` return early),
//! `journal.log` (every command that decides something), `.lock` (every
//! command that writes). `empereur site` (ops::site) reads the history,
//! `press/` and the journal, writes the site where it is told and, in the
//! game directory, only `.site-cache/pages` (store::site_cache: each
//! entry's public page, so that it is made once).

// STYLE: every function a reader can hold, in the core and the adapters
// alike (clippy.toml sets the threshold, 120 lines; CI denies warnings).
#![warn(clippy::too_many_lines)]

pub mod autoplay;
mod big;
#[cfg(feature = "cli")]
pub mod cli;
pub mod diagnostic;
pub mod dice;
pub mod ids;
pub mod mail;
pub mod map;
pub mod ops;
pub mod orders;
pub mod picture;
pub mod report;
pub mod rules;
pub mod scenario;
pub mod schedule;
pub mod site;
pub mod state;
pub mod store;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod vocabulary;
pub mod zone;
