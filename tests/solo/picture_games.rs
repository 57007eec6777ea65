//! One view mailed in many games: a first `run --games` opens the same
//! phase of the same scenario in every game, so each power's picture
//! differs from game to game only in its title, which names the game.
//! The rows under the title are encoded once; each game's picture is
//! still the one drawn for that game alone, byte for byte. In a binary
//! apart (`tests/solo/`): it counts encodings, which are process-wide.

use empereur::ids::PowerId;
use empereur::picture::{self, Scene};
use empereur::scenario::Scenario;
use empereur::state::State;
use resvg::tiny_skia::Pixmap;
use std::collections::BTreeSet;

#[test]
fn a_view_mailed_in_many_games_is_encoded_once_and_names_each_game() {
    let _alone = crate::alone();
    let s = Scenario::embedded("1805").expect("embedded scenario loads");
    let players: BTreeSet<PowerId> = [PowerId::France, PowerId::Britain].into_iter().collect();
    let state = |game: &str| State::initial(&s, game, &players, BTreeSet::new());
    let games = ["game-000", "game-001", "game-002"];
    let mailed = |game: &str, viewer| {
        let st = state(game);
        let files = Scene::new(&s, &st, None, &[], Some(viewer), "1805-fall-turn-start")
            .files()
            .expect("pictures");
        assert_eq!(files[0].1, "image/png");
        files[0].2.clone()
    };

    // As `run --games` does: the pictures held over all its games.
    picture::release();
    let held = picture::hold();
    let before = picture::bodies_encoded();
    let france: Vec<Vec<u8>> = games.iter().map(|g| mailed(g, PowerId::France)).collect();
    let britain: Vec<Vec<u8>> = games.iter().map(|g| mailed(g, PowerId::Britain)).collect();
    assert_eq!(
        picture::bodies_encoded() - before,
        2,
        "the rows under the title are encoded once per view, not once per game"
    );
    drop(held);

    // A single run mails one game: nothing is kept for other games.
    let before = picture::bodies_encoded();
    mailed("game-003", PowerId::France);
    mailed("game-004", PowerId::France);
    assert_eq!(picture::bodies_encoded() - before, 2, "kept without a hold");

    // Each game's picture is the one drawn for it with nothing shared.
    for (i, g) in games.iter().enumerate() {
        for (viewer, got) in [(PowerId::France, &france[i]), (PowerId::Britain, &britain[i])] {
            picture::release();
            let st = state(g);
            let alone = Scene::new(&s, &st, None, &[], Some(viewer), "1805-fall-turn-start")
                .png_at(picture::Effort::Small, false)
                .expect("png");
            assert!(
                *got == alone,
                "{g}, {viewer:?}: the shared picture differs from the one drawn alone"
            );
        }
    }

    // The titles differ (each names its game), the map under them does not.
    let decode = |b: &[u8]| Pixmap::decode_png(b).expect("decodes");
    let (a, b) = (decode(&france[0]), decode(&france[1]));
    let row = a.width() as usize * 4;
    let title = 46 * row;
    assert!(a.data()[..title] != b.data()[..title], "the title names the game");
    assert!(
        a.data()[title..] == b.data()[title..],
        "the map under the title is the same view"
    );
    assert!(
        decode(&britain[0]).data()[title..] != a.data()[title..],
        "the two powers' views differ"
    );
}
