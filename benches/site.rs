//! `empereur site` of a whole 1805–1815 campaign against `export-history`
//! of the same game, in the same run (issue: the site of a whole campaign
//! in less than twice the time of the export). The campaign is autoplayed
//! (seven Player Countries, generated orders, committed dice) until the
//! game ends or 1815 is over, or is the game directory `--game DIR`
//! (autoplayed there first if it does not exist, so that two builds can
//! be compared on the same game); each
//! run writes into a new directory (the site) or file (the tarball), the
//! two alternating so both meet the same load. The site is made four
//! ways each time: from nothing (no cache of pages in the game, a new
//! directory, the public pages the resolution wrote beside the history
//! used: what `empereur site` costs on a game played by this build), from
//! nothing without those public pages (set aside for the run: a game
//! resolved before the resolution wrote them, every state parsed and
//! every map drawn), from the cache of pages the first made (a new directory:
//! `empereur site` of a game whose pages were made before), and again
//! into the directory it just wrote (a refresh, as `run` does after a
//! phase). Printed: the best wall time and the least CPU time (user +
//! system) of each, since on a shared machine the wall time measures the
//! queue for the cores as much as the work.
//!
//!     cargo bench --bench site [-- REPEATS] [--game DIR] [--out DIR] [--site-only] [--fresh-only]
//!
//! `--fresh-only` makes only the site from nothing, with the resolution's
//! public pages if the game has them (for a profile of it).
//!
//! `--out DIR` keeps what was written (`DIR/site-N`, `DIR/history-N.tar`),
//! to compare the sites two builds write byte for byte; `DIR` on the file
//! system of the game's directory, for the site's links to its history.
#![allow(clippy::disallowed_methods)] // a benchmark reads the clock and files

mod common;
use empereur::ops::autoplay::autoplay;
use empereur::ops::demo::DEMO_PLAYERS;
use empereur::ops::export;
use empereur::ops::site::{self, SiteArgs};
use empereur::store::GameDir;
use std::path::PathBuf;
use std::time::Instant;

/// Phases from 1805 fall to the end of 1815: 41 seasons, up to nine
/// phases each (Turn Start, seven Player Turns, Build; one in winter).
const CAMPAIGN: u32 = 41 * 9;

/// The best wall time and the least CPU time of the runs, in seconds.
#[derive(Default)]
struct Best {
    wall: Option<f64>,
    cpu: Option<f64>,
}

impl Best {
    fn time(&mut self, f: impl FnOnce()) {
        let cpu0 = common::cpu_secs(true);
        let t = Instant::now();
        f();
        let wall = t.elapsed().as_secs_f64();
        let min = |a: Option<f64>, b: f64| Some(a.map_or(b, |a| a.min(b)));
        self.wall = min(self.wall, wall);
        if let (Some(c0), Some(c1)) = (cpu0, common::cpu_secs(true)) {
            self.cpu = min(self.cpu, c1 - c0);
        }
    }
    fn show(&self) -> String {
        let ms = |s: Option<f64>| s.map_or("?".to_string(), |s| format!("{:.0} ms", s * 1e3));
        format!("{} wall, {} CPU", ms(self.wall), ms(self.cpu))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let repeats: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(common::size(5, 1));
    let path_after = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .map(PathBuf::from)
    };
    let game = path_after("--game");
    let site_only = args.iter().any(|a| a == "--site-only");
    let fresh_only = args.iter().any(|a| a == "--fresh-only");
    let tmp = tempfile::tempdir().unwrap();
    let mut played = None;
    let root = match game {
        Some(g) if g.exists() => g,
        g => {
            let root = g.unwrap_or_else(|| tmp.path().join("game"));
            common::new_game(&root, DEMO_PLAYERS, "bench");
            let p = autoplay(
                &GameDir::new(&root),
                common::size(CAMPAIGN, 3),
                7,
                Some("2026-01-05T10:00:00Z"),
            )
            .unwrap();
            played = Some(p.resolved);
            root
        }
    };
    let dir = GameDir::new(&root);
    let state = dir.load_state().unwrap();
    let out = path_after("--out").unwrap_or_else(|| tmp.path().join("out"));
    std::fs::create_dir_all(&out).unwrap();

    let (mut e, mut fresh, mut cached, mut again) = <(Best, Best, Best, Best)>::default();
    let mut unpaged = Best::default();
    let public = root.join("public-pages");
    let aside = root.join("public-pages.aside");
    let public_pages = public.exists();
    let mut files = 0;
    let mut written = None;
    let mut site = |best: &mut Best, to: PathBuf| {
        best.time(|| {
            written = Some(
                site::run(&SiteArgs {
                    game: root.clone(),
                    out: to,
                })
                .unwrap(),
            )
        })
    };
    for i in 0..repeats {
        if !site_only {
            e.time(|| files = export::export(&dir, &out.join(format!("history-{i}.tar"))).unwrap());
        }
        let _ = std::fs::remove_dir_all(root.join(".site-cache"));
        site(&mut fresh, out.join(format!("site-{i}")));
        if public_pages && !fresh_only {
            let _ = std::fs::remove_dir_all(root.join(".site-cache"));
            std::fs::rename(&public, &aside).unwrap();
            site(&mut unpaged, out.join(format!("site-{i}-unpaged")));
            std::fs::rename(&aside, &public).unwrap();
        }
        if fresh_only {
            continue;
        }
        site(&mut cached, out.join(format!("site-{i}-cached")));
        site(&mut again, out.join(format!("site-{i}-cached")));
    }
    // Where a refresh's time goes: reading the game (its files, the cached
    // pages), making the site's files in memory, writing what changed.
    let mut stages = [Best::default(), Best::default(), Best::default()];
    for _ in 0..repeats * usize::from(!fresh_only) {
        let mut input = None;
        stages[0].time(|| input = Some(site::read(&dir).unwrap()));
        let input = input.unwrap();
        let mut files = None;
        stages[1].time(|| files = Some(empereur::site::build(&input).unwrap()));
        let files = files.unwrap();
        stages[2].time(|| site::write_all(&out.join("site-0-cached"), &files).unwrap());
    }
    let written = written.unwrap();
    for i in 0..repeats * usize::from(!fresh_only) {
        assert_eq!(
            tree(&out.join(format!("site-{i}"))),
            tree(&written.out),
            "the site from the cache is the site made from nothing"
        );
        if public_pages && !fresh_only {
            assert_eq!(
                tree(&out.join(format!("site-{i}-unpaged"))),
                tree(&written.out),
                "the site made from the states is the site made from the resolution's pages"
            );
        }
    }
    let phases = written.entries - 1;
    if let Some(resolved) = played {
        assert_eq!(phases, resolved as usize, "the genesis entry and one entry a phase");
    }
    let index = std::fs::read_to_string(written.out.join("index.html")).unwrap();
    assert!(index.contains(r#"id="verdict""#));
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if !site_only => format!("{:.2}", a / b),
        _ => "?".into(),
    };
    println!(
        "site of a campaign ({phases} phases, to {}, {} files) against export-history of the same game ({files} files: {}), best of {repeats}:",
        state.phase,
        written.files,
        e.show(),
    );
    if !public_pages {
        println!("  (the game has no public pages from its resolution: every site from nothing parses its states)");
    }
    for (how, s) in [
        ("from nothing", &fresh),
        ("from nothing, without the resolution's public pages", &unpaged),
        ("from the cache of pages, into a new directory", &cached),
        ("again into the same directory (a refresh)", &again),
    ] {
        println!(
            "  site {how}: {}; ratio wall {}, CPU {} (target < 2)",
            s.show(),
            ratio(s.wall, e.wall),
            ratio(s.cpu, e.cpu)
        );
    }
    println!(
        "  a refresh: reading the game {}; the files in memory {}; writing {}",
        stages[0].show(),
        stages[1].show(),
        stages[2].show()
    );
}

/// Every file under `dir` and its bytes, by path.
fn tree(dir: &std::path::Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push((p.strip_prefix(dir).unwrap().to_path_buf(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}
