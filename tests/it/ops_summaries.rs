//! The operations return what they found, as data: these tests call an
//! `ops::` function and check the fields of its summary and the exit it
//! asks for, not the text `cli` prints from it (tests/it/cli_output.rs and
//! the command tests hold the text).
#![allow(clippy::disallowed_methods)] // tests read and write game files

use crate::players_common::new_game;
use empereur::ops::{self, Done, Format, Structured, Summary};
use std::path::PathBuf;

#[test]
fn scenarios_and_scenario_check_return_names_counts_and_problems() {
    assert!(ops::scenarios().names.iter().any(|n| n == "1805"));

    let ok = ops::scenario_check(&PathBuf::from("games/scenarios/1805")).unwrap();
    let counts = ok.found.as_ref().expect("the 1805 scenario loads");
    assert!(counts.provinces > 0 && counts.powers == 7, "{counts:?}");
    assert_eq!(ok.done(), Done::Yes);

    // The 1805 scenario with a province that borders one that is not there.
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(std::path::Path::new("games/scenarios/1805"), tmp.path());
    let provinces = tmp.path().join("provinces.toml");
    let text = std::fs::read_to_string(&provinces).unwrap();
    std::fs::write(
        &provinces,
        text.replacen("adjacent = [", "adjacent = [\"atlantis\", ", 1),
    )
    .unwrap();
    let bad = ops::scenario_check(tmp.path()).unwrap();
    let problems = bad.found.as_ref().expect_err("a border with no province");
    assert!(!problems.is_empty());
    assert_eq!(bad.done(), Done::No);
}

#[test]
fn map_and_show_return_the_data_each_format_is_written_from() {
    let map = ops::map::run("1805").unwrap();
    let json: serde_json::Value = serde_json::from_str(&map.json().unwrap()).unwrap();
    assert_eq!(
        json["provinces"].as_array().map(Vec::len),
        Some(map.scenario.map.provinces.len())
    );

    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let as_json = ops::show::run(&game, Some("austria"), Format::Json).unwrap();
    assert_eq!(as_json.viewer, Some(empereur::ids::PowerId::Austria));
    assert!(as_json.orders.is_none(), "only the text form reads the stored orders");
    let as_text = ops::show::run(&game, None, Format::Text).unwrap();
    assert_eq!(as_text.viewer, None);
    assert!(as_text.orders.is_some());
    assert_eq!(as_text.state.phase, as_json.state.phase);
}

#[test]
fn dice_roll_returns_the_key_the_die_and_the_roll() {
    let cmd = ops::dice_cmd::DiceCmd::Roll(ops::dice_cmd::RollArgs {
        seed: "00".repeat(32),
        purpose: "land-battle/ulm/1/round-1/attacker".into(),
        sides: 6,
        entropy: vec![],
    });
    match ops::dice_cmd::run(&cmd).unwrap() {
        ops::dice_cmd::Derived::Roll { key, sides, roll, .. } => {
            assert_eq!(key.len(), 64);
            assert_eq!(sides, 6);
            assert!((1..=6).contains(&roll), "{roll}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn pause_resume_and_extend_return_what_the_clock_did() {
    use ops::workflow::{Clocked, ExtendArgs, GameOnly};
    let tmp = tempfile::tempdir().unwrap();
    let game = GameOnly {
        game: new_game(tmp.path()),
    };
    assert_eq!(ops::workflow::pause(&game).unwrap(), Clocked::Paused);
    let again = ops::workflow::pause(&game).unwrap();
    assert_eq!(again, Clocked::AlreadyPaused);
    assert_eq!(again.done(), Done::No);
    assert!(matches!(ops::workflow::resume(&game).unwrap(), Clocked::Resumed { .. }));
    assert_eq!(ops::workflow::resume(&game).unwrap(), Clocked::NotPaused);
    let extended = ops::workflow::extend(&ExtendArgs {
        game: game.game.clone(),
        hours: 24,
        reason: "holiday".into(),
    })
    .unwrap();
    assert!(matches!(extended, Clocked::Extended { hours: 24, .. }), "{extended:?}");
    assert_eq!(extended.done(), Done::Yes);
}

#[test]
fn undo_verify_mail_and_send_return_their_findings() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());

    let undo = ops::moderate::undo(&ops::moderate::UndoArgs {
        game: game.clone(),
        reason: "a mistake".into(),
    })
    .unwrap();
    assert_eq!(undo.0, None, "a new game has no resolution to undo");
    assert_eq!(undo.done(), Done::No);

    let verified = ops::verify::run(
        &ops::verify::VerifyArgs {
            game: game.clone(),
            ..Default::default()
        },
        &mut ops::progress::Silent,
    )
    .unwrap();
    assert!(verified.report.ok(), "{:?}", verified.report.problems);
    assert!(!verified.replay);
    assert_eq!(verified.done(), Done::Yes);

    let mailed = ops::mailing::mail(&ops::mailing::MailArgs {
        game: game.clone(),
        no_send: true,
    })
    .unwrap();
    assert!(
        matches!(mailed.queued, ops::mailing::Asked::Entries { .. }),
        "{mailed:?}"
    );
    assert_eq!(mailed.delivered, None, "--no-send delivers nothing");
    assert_eq!((mailed.done(), mailed.failure()), (Done::Yes, None));

    let sent = ops::send::run(&ops::send::SendArgs {
        game,
        dry_run: true,
        release: vec![],
        drop: vec![],
    })
    .unwrap();
    assert!(
        sent.deliveries
            .iter()
            .all(|d| matches!(d, empereur::mail::transport::Delivery::WouldSend { .. })),
        "{sent:?}"
    );
    assert_eq!(sent.done(), Done::Yes);
}

#[test]
fn seat_refusal_is_data_and_a_no_said_on_standard_error() {
    let tmp = tempfile::tempdir().unwrap();
    let game = new_game(tmp.path());
    let run = ops::seat::run(&ops::seat::SeatArgs {
        game,
        power: "france".into(),
        name: "Ana".into(),
        email: " ana@else.example.net ".into(),
        password_from_mail: false,
        timezone: None,
        house_seating: true,
    })
    .unwrap();
    assert_eq!(run.email, "ana@else.example.net");
    assert!(
        matches!(run.seat, Err(ops::seat::SeatRefusal::HasPlayer { .. })),
        "{:?}",
        run.seat
    );
    assert_eq!(run.done(), Done::No);
    assert!(run.stderr().starts_with("no: "), "{}", run.stderr());
    assert_eq!(run.to_string(), "", "a refusal prints nothing on standard output");
}

#[test]
fn games_lists_every_game_and_fails_after_listing_an_unreadable_one() {
    let tmp = tempfile::tempdir().unwrap();
    new_game(tmp.path());
    let broken = tmp.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    std::fs::write(broken.join("game.toml"), "not toml [").unwrap();
    let games = ops::games::run(&ops::games::GamesArgs {
        root: tmp.path().to_path_buf(),
    })
    .unwrap();
    assert_eq!(games.lines.len(), 2, "{games:?}");
    assert!(
        games
            .lines
            .iter()
            .any(|l| matches!(l, ops::games::Listed::Game(g) if g.game == "demo"))
    );
    assert_eq!(games.failure().as_deref(), Some("1 game(s) could not be read: broken"));
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in std::fs::read_dir(from).unwrap() {
        let f = f.unwrap().path();
        let target = to.join(f.file_name().unwrap());
        if f.is_dir() {
            copy_dir(&f, &target);
        } else {
            std::fs::copy(&f, &target).unwrap();
        }
    }
}
