//! The integration tests, one binary (issue 36): each module was a
//! `tests/*.rs` of its own; one binary links the crate and its
//! dependencies once, which makes a mutant (and `cargo test`) cheap.
//! Run one module with `cargo test --test it NAME::`. The slow end-to-end
//! tests stay apart and out of the mutation sample: `tests/solo/` (crash
//! points, picture counts), `tests/mail_real_servers.rs` and the long
//! campaigns (`tests/campaigns/`).
//! A new test goes in a module here (`mod NAME;` below), never in a new
//! `tests/*.rs`.

// Helpers shared by several modules (used as `crate::NAME`).
mod case_harness;
mod cpu_clock;
mod dice_common;
mod players_common;
mod table_common;

mod autoplay_checkpoint;
mod boundaries;
mod cli_output;
mod commands_privacy;
mod dice_attacks;
mod dice_beacon;
mod dice_protocol;
mod dice_resolve;
mod diplomacy_mail;
mod foundation;
mod fuzz_corpus;
mod legality;
mod linear_text;
mod mail_cli;
mod mail_corpus;
mod mail_fold;
mod mail_hostile;
mod mail_hostile_corpus;
mod mail_load;
mod mail_loop;
mod mail_send;
mod mail_shape;
mod map_labels;
mod new_seating;
mod ops_summaries;
mod orders;
mod orders_cli;
mod password_guard;
mod pay_limits;
mod picture;
mod picture_switch;
mod players_commands;
mod players_games;
mod players_map;
mod players_press;
mod players_seat;
mod players_shell;
mod players_template;
mod political_dominance;
mod political_names;
mod report_snapshots;
mod report_text;
mod rules_cases;
mod rules_coverage;
mod run;
mod scenario;
mod schedule;
mod site;
mod standings;
mod state_view;
mod table_draw;
mod table_observers;
mod table_ready;
mod table_report;
mod table_timezone;
mod verify_checks;
mod verify_lock;
mod verify_tamper;
mod war;
mod workflow;
