//! Map pictures: the whole 1805 map with 64 corps on it, 1600 px wide, on
//! one core. Prints the first picture of a process (regions and shared
//! overlay computed) and the later ones (reused) against the issue's
//! 100 ms, the SVG text alone, and baselines measured in the same run: an
//! empty canvas of the same size rasterised and encoded, and the way a
//! picture was made before (its base rendered for each picture, zlib's
//! default level with adaptive filters) beside the way it is made now
//! (the base of the same view reused, zlib level 9 with no filter, 64
//! colours under the title), both
//! drawn anew. Run with `nice -n 19 cargo bench --bench picture`.
#![allow(clippy::disallowed_methods)] // a benchmark reads the clock

use empereur::ids::{Nation, PowerId};
use empereur::picture::{self, Scene};
use empereur::scenario::Scenario;
use empereur::state::State;
use std::collections::BTreeSet;
use std::time::Instant;

/// Median wall time of `n` runs, in milliseconds.
fn median_ms(n: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..n)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[n / 2]
}

fn main() {
    let scenario = Scenario::embedded("1805").expect("embedded scenario");
    let players: BTreeSet<PowerId> = PowerId::ALL.into_iter().collect();
    let before = State::initial(&scenario, "bench", &players, BTreeSet::new());
    let mut after = before.clone();
    // 64 corps on the map: the set-up's, then more French corps in turn
    // through the provinces.
    let mut n = after.corps.iter().filter(|c| c.location.is_some()).count();
    let mut k = 100;
    while n < 64 {
        let p = &scenario.map.provinces[k % scenario.map.provinces.len()];
        let mut c = after.corps[0].clone();
        c.nation = Nation::Major(PowerId::France);
        c.number = k as u32;
        c.location = Some(p.id.clone());
        after.corps.push(c);
        k += 7;
        n += 1;
    }
    // and every French corps marches somewhere: 20-odd arrows
    for (i, c) in after
        .corps
        .iter_mut()
        .filter(|c| c.nation == Nation::Major(PowerId::France) && c.location.is_some())
        .enumerate()
    {
        c.location = Some(scenario.map.provinces[(i * 5) % 40].id.clone());
    }
    let scene = Scene::new(
        &scenario,
        &after,
        Some(&before),
        &[],
        Some(PowerId::France),
        "1805-fall-france",
    );
    let corps = scene.state.corps.iter().filter(|c| c.location.is_some()).count();
    // The first picture of a process also computes the regions and renders
    // the overlay every picture of the map shares; the later ones reuse them.
    let t = Instant::now();
    scene.png().expect("png");
    let first = t.elapsed().as_secs_f64() * 1000.0;
    let svg = scene.svg().expect("svg");
    let png = picture::png(&svg).expect("png");
    let runs = 15;
    let whole = median_ms(runs, || {
        scene.png().expect("png");
    });
    // The same view in other games (a first `run --games`, which holds the
    // pictures over its games): only the title, which names the game,
    // differs.
    let hold = picture::hold();
    let mut game = 0;
    let shared = median_ms(runs, || {
        game += 1;
        let mut st = after.clone();
        st.game = format!("bench-{game}");
        Scene::new(
            &scenario,
            &st,
            Some(&before),
            &[],
            Some(PowerId::France),
            "1805-fall-france",
        )
        .png()
        .expect("png");
    });
    drop(hold);
    let svg_only = median_ms(runs, || {
        scene.svg().expect("svg");
    });
    let raster = median_ms(runs, || {
        picture::png(&svg).expect("png");
    });
    let size = resvg::tiny_skia::Pixmap::decode_png(&png).expect("decodes");
    let empty = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}"><rect width="100%" height="100%" fill="#f7f3e8"/></svg>"##,
        size.width(),
        size.height()
    );
    let baseline = median_ms(runs, || {
        picture::png(&empty).expect("png");
    });
    let before = median_ms(runs, || {
        scene.png_at(picture::Effort::Balanced, false).expect("png");
    });
    let now = median_ms(runs, || {
        scene.png_at(picture::Effort::Small, true).expect("png");
    });
    let fast_only = median_ms(runs, || {
        scene.png_at(picture::Effort::Fast, false).expect("png");
    });
    let old_size = scene.png_at(picture::Effort::Balanced, false).expect("png").len();
    let new_size = scene.png_at(picture::Effort::Small, true).expect("png").len();
    // The same pixels either way: only the encoding differs.
    let decode = |b: &[u8]| resvg::tiny_skia::Pixmap::decode_png(b).expect("decodes");
    assert!(
        decode(&scene.png_at(picture::Effort::Balanced, false).unwrap()).data()
            == decode(&scene.png_at(picture::Effort::Small, true).unwrap()).data(),
        "the encodings differ in pixels"
    );
    println!(
        "picture: 1805 map, {corps} corps, {} moves, {}x{} px, PNG {} KB (median of {runs} runs, one thread)",
        scene.moves.len(),
        size.width(),
        size.height(),
        png.len() / 1024
    );
    println!("  first picture of a process:           {first:7.1} ms   (issue: <= 100 ms)");
    println!("  each later picture of a new view:     {now:7.1} ms   (issue: <= 100 ms)");
    println!("  the SVG text only:                    {svg_only:7.1} ms");
    println!("  the whole SVG -> PNG, nothing reused: {raster:7.1} ms");
    println!("  baseline, empty canvas -> PNG:        {baseline:7.1} ms");
    println!(
        "  a picture drawn anew, as before (base rendered, zlib default):  {before:7.1} ms, PNG {} KB",
        old_size / 1024
    );
    println!("  the same, level 1 only (base rendered):                        {fast_only:7.1} ms");
    println!(
        "  a picture drawn anew, now (base of the view reused, level 9):  {now:7.1} ms, PNG {} KB; before / now = {:.1}x",
        new_size / 1024,
        before / now
    );
    println!("  the same view in another game (only the title drawn):          {shared:7.1} ms");
    println!("  the same view again (the finished PNG reused):                 {whole:7.1} ms");
    println!(
        "  ratio later picture / empty canvas:    {:7.1}x   (the machine's load cancels out of the ratio)",
        now / baseline
    );
}
