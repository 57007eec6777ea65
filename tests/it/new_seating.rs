//! `empereur new` and the rules of set-up on the real binary: 3.0 (the
//! number of players decides which powers are played; anything else is
//! refused unless the moderator asks for a house seating) and 3.1 (a
//! players file with `bid = true` opens the country bid, and its
//! resolution seats each player on the power it won).
#![allow(clippy::disallowed_methods)] // tests use files freely

use assert_cmd::Command;
use empereur::ids::PowerId;
use empereur::store::GameDir;
use std::path::Path;

fn bin() -> Command {
    Command::cargo_bin("empereur").unwrap()
}

const MODERATOR: &str = "[moderator]\nname = \"Moderator\"\nemail = \"gm@example.org\"\n";

fn player(name: &str, power: Option<&str>) -> String {
    let power = power.map(|p| format!("power = \"{p}\"\n")).unwrap_or_default();
    format!(
        "\n[[player]]\n{power}name = \"{name}\"\nemail = \"{}@example.org\"\npassword = \"secret of {name}\"\n",
        name.to_lowercase()
    )
}

fn new(root: &Path, players: &str, extra: &[&str]) -> std::process::Output {
    let file = root.join("players.toml");
    std::fs::write(&file, players).unwrap();
    bin()
        .arg("new")
        .arg(root.join("g"))
        .args(extra)
        .arg("--players")
        .arg(&file)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

fn powers_of(root: &Path) -> Vec<(String, PowerId)> {
    let c = GameDir::new(root.join("g")).load_config().unwrap();
    c.players.iter().map(|p| (p.name.clone(), p.power)).collect()
}

#[test]
fn two_players_who_are_not_france_and_britain_are_refused_by_3_0() {
    let tmp = tempfile::tempdir().unwrap();
    let file = format!(
        "{MODERATOR}{}{}",
        player("Alice", Some("france")),
        player("Bob", Some("austria"))
    );
    let out = new(tmp.path(), &file, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr).trim(),
        "error: 3.0: with 2 players the Player Countries are France, Great Britain; nobody plays Great Britain; Austria would be an NPC; --house-seating creates the game anyway"
    );
    assert!(out.stdout.is_empty());
    assert!(
        !tmp.path().join("g").exists(),
        "nothing is written for a refused seating"
    );

    // the moderator asks for it: a house seating
    let out = new(tmp.path(), &file, &["--house-seating"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        powers_of(tmp.path()),
        vec![("Alice".into(), PowerId::France), ("Bob".into(), PowerId::Austria)]
    );
}

#[test]
fn the_seatings_3_0_gives_are_created_without_asking() {
    let tmp = tempfile::tempdir().unwrap();
    let file = format!(
        "{MODERATOR}{}{}{}",
        player("Alice", Some("britain")),
        player("Bob", Some("france")),
        player("Carol", Some("russia"))
    );
    let out = new(tmp.path(), &file, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let st = GameDir::new(tmp.path().join("g")).load_state().unwrap();
    assert_eq!(st.phase.to_string(), "1805-fall-turn-start");
    // three players but Spain instead of Russia
    let tmp = tempfile::tempdir().unwrap();
    let file = file.replace("russia", "spain");
    let out = new(tmp.path(), &file, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("3.0: with 3 players the Player Countries are France, Great Britain, Russia"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_players_file_that_asks_for_the_bid_opens_on_it_and_the_bid_seats_the_players() {
    let tmp = tempfile::tempdir().unwrap();
    // no powers named: the provisional seats are those 3.0 gives, in order
    let file = format!(
        "bid = true\n{MODERATOR}{}{}",
        player("Alice", None),
        player("Bob", None)
    );
    let out = new(tmp.path(), &file, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let game = tmp.path().join("g");
    let g = GameDir::new(&game);
    assert_eq!(g.load_state().unwrap().phase.to_string(), "1805-bid");
    assert_eq!(
        powers_of(tmp.path()),
        vec![("Alice".into(), PowerId::France), ("Bob".into(), PowerId::Britain)]
    );
    // Alice (seat France) bids 10 for Britain; Bob (seat Britain) 5 for
    // Britain then France: the higher bid picks first (3.1).
    for (seat, orders) in [
        ("france", "BID 10 VP: Great Britain\n"),
        ("britain", "BID 5 VP: Great Britain, France\n"),
    ] {
        let f = tmp.path().join(format!("{seat}.txt"));
        std::fs::write(&f, orders).unwrap();
        let out = bin()
            .args(["submit", "--game"])
            .arg(&game)
            .args(["--power", seat])
            .arg(&f)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    }
    let out = bin().args(["resolve", "--game"]).arg(&game).output().unwrap();
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(
        powers_of(tmp.path()),
        vec![("Alice".into(), PowerId::Britain), ("Bob".into(), PowerId::France)],
        "each player plays the power the bid gave it"
    );
    let st = g.load_state().unwrap();
    assert_eq!(st.phase.to_string(), "1805-fall-turn-start");
    assert_eq!(st.power(PowerId::Britain).vp, 90, "3.5: 100 - 10");
    assert_eq!(st.power(PowerId::France).vp, 95, "3.5: 100 - 5");
    // verify replays the bid and finds the seats recorded in the entry
    let out = bin().args(["verify", "--game"]).arg(&game).output().unwrap();
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));

    // each player is mailed, through the outbox, which power it now plays
    let out = bin().args(["mail", "--no-send", "--game"]).arg(&game).output().unwrap();
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    let seat_mail = |who: &str| -> Vec<String> {
        outbox(&game)
            .into_iter()
            .filter(|m| m.contains("the bid is resolved") && m.contains(&format!("<{who}@example.org>")))
            .collect()
    };
    let alice = seat_mail("alice");
    assert_eq!(alice.len(), 1, "one seat mail for Alice");
    assert!(alice[0].contains("you play Great Britain"), "{}", alice[0]);
    assert!(alice[0].contains("POWER britain"), "{}", alice[0]);
    assert!(
        alice[0].contains("state-britain.toml"),
        "her new power's view: {}",
        alice[0]
    );
    let bob = seat_mail("bob");
    assert_eq!(bob.len(), 1, "one seat mail for Bob");
    assert!(bob[0].contains("you play France"), "{}", bob[0]);
    assert!(bob[0].contains("POWER france"), "{}", bob[0]);
    // mailing again queues nothing new
    let before = outbox(&game).len();
    let out = bin().args(["mail", "--no-send", "--game"]).arg(&game).output().unwrap();
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(outbox(&game).len(), before);
}

/// Every queued message of a game, decoded enough to read (the bodies are
/// 7-bit or quoted-printable text).
fn outbox(game: &Path) -> Vec<String> {
    let dir = game.join("mail/outbox");
    let mut v = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "eml") {
            let raw = std::fs::read_to_string(e.path()).unwrap();
            // undo quoted-printable soft breaks so phrases read whole
            v.push(raw.replace("=\r\n", "").replace("=\n", "").replace("\r\n", "\n"));
        }
    }
    v
}

#[test]
fn without_the_bid_every_player_names_its_power() {
    let tmp = tempfile::tempdir().unwrap();
    let file = format!("{MODERATOR}{}{}", player("Alice", Some("france")), player("Bob", None));
    let out = new(tmp.path(), &file, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("players.toml:11: missing field `power` (only a game with `bid = true`"),
        "{}",
        text(&out.stderr)
    );
}
