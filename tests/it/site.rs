#![allow(clippy::disallowed_methods)] // tests read and write game files
//! `empereur site`: the public site of a game. What a visitor can read
//! (the pages, the verdict element, the history files) and, above all,
//! what nobody may read there: the secrets of a game searched for in
//! every byte of the output. The verifier in the page is tested in a
//! browser by `tests/browser/site.test.mjs`.

use assert_cmd::Command;
use empereur::store::history::sha256_hex;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn bin() -> Command {
    Command::cargo_bin("empereur").unwrap()
}

/// The demo game (played once per test binary) copied into a temp dir.
fn demo() -> (tempfile::TempDir, PathBuf) {
    static DEMO: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, template) = DEMO.get_or_init(|| {
        let t = tempfile::tempdir().unwrap();
        bin()
            .arg("demo")
            .arg("--out")
            .arg(t.path().join("demo"))
            .assert()
            .success();
        let g = t.path().join("demo/game");
        (t, g)
    });
    let t = tempfile::tempdir().unwrap();
    let g = t.path().join("game");
    copy_dir(template, &g);
    (t, g)
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            fs::copy(e.path(), &dest).unwrap();
        }
    }
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn site(game: &Path, out: &Path) -> String {
    let o = bin()
        .args(["site", "--game"])
        .arg(game)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Every file of the output, with its path inside it.
fn output(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all = Vec::new();
    files(out, &mut all);
    // in order: directories are listed in no order a file system promises
    all.sort();
    all.into_iter()
        .map(|p| {
            (
                p.strip_prefix(out).unwrap().to_string_lossy().replace('\\', "/"),
                fs::read(&p).unwrap(),
            )
        })
        .collect()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// The values of `key = "…"` lines of a TOML text.
fn values(text: &str, key: &str) -> Vec<String> {
    let prefix = format!("{key} = \"");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(&prefix)?.strip_suffix('"').map(str::to_string))
        .collect()
}

#[test]
fn the_site_holds_no_secret_of_the_game() {
    let (t, g) = demo();
    // An open phase with orders in: the moderator enters France's, with
    // a typed entropy line, which nobody may see before the lock.
    let typed = "the-moon-is-a-harsh-mistress";
    bin()
        .args(["submit", "--power", "france", "--game"])
        .arg(&g)
        .arg("-")
        .write_stdin(format!("ENTROPY {typed}\n"))
        .assert()
        .success();
    let out = t.path().join("site");
    site(&g, &out);

    let mut secrets: Vec<(String, Vec<u8>)> = Vec::new();
    let config = fs::read_to_string(g.join("game.toml")).unwrap();
    for key in ["email", "password_hash"] {
        let found = values(&config, key);
        assert!(found.len() >= 7, "the test game has players with {key}: {found:?}");
        for v in found {
            secrets.push((format!("game.toml {key}"), v.into_bytes()));
        }
    }
    // The open phase: its seed (and the copy kept as a spare), its orders,
    // their receipt and their typed entropy.
    let seed = fs::read_to_string(g.join("phase/seed")).unwrap();
    secrets.push(("phase/seed".into(), seed.trim().as_bytes().to_vec()));
    let orders = fs::read(g.join("phase/orders/france.toml")).unwrap();
    secrets.push(("the open phase's receipt".into(), sha256_hex(&orders).into_bytes()));
    secrets.push(("the open phase's typed entropy".into(), typed.as_bytes().to_vec()));
    secrets.push(("phase/orders/france.toml".into(), orders));
    // What the history holds that not every power may see: the states
    // (hidden compositions), the outcomes and the moderator's report, the
    // stored submissions (their senders' addresses).
    let mut hist = Vec::new();
    files(&g.join("history"), &mut hist);
    for p in &hist {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let hidden = name.starts_with("state-") || name == "outcomes.toml" || name == "report.txt";
        if hidden || p.parent().unwrap().ends_with("orders") {
            secrets.push((p.display().to_string(), fs::read(p).unwrap()));
        }
        if p.parent().unwrap().ends_with("orders") {
            for by in values(&fs::read_to_string(p).unwrap(), "by") {
                secrets.push((format!("{} by", p.display()), by.into_bytes()));
            }
        }
    }
    secrets.push(("a hidden corps composition".into(), b"[[corps.divisions]]".to_vec()));
    secrets.push(("state.toml".into(), fs::read(g.join("state.toml")).unwrap()));

    let mut site = output(&out);
    assert!(site.len() > 50, "{} files", site.len());
    // The public pages the resolution writes beside the history
    // (`public-pages`) and the pages the site keeps in the game to make
    // them once (`.site-cache/`) hold nothing the site does not publish
    // either.
    let public = records(&g.join("public-pages"));
    assert!(public.len() > 5, "{} public pages", public.len());
    site.push(("game/public-pages".into(), fs::read(g.join("public-pages")).unwrap()));
    let maps = output(&g.join("public-maps"));
    assert!(maps.len() > 5, "{} public maps", maps.len());
    site.extend(maps.into_iter().map(|(p, b)| (format!("game/public-maps/{p}"), b)));
    site.extend(
        output(&g.join(".site-cache"))
            .into_iter()
            .map(|(p, b)| (format!("game/.site-cache/{p}"), b)),
    );
    // ... and so does the cache of a game whose phases were resolved
    // before the resolution wrote public pages (every page made by the
    // site).
    fs::remove_file(g.join("public-pages")).unwrap();
    self::site(&g, &t.path().join("site-without-public-pages"));
    let cache = cached(&g);
    assert!(cache.len() > 5, "{} cached pages", cache.len());
    site.push((
        "game/.site-cache/pages".into(),
        fs::read(g.join(".site-cache/pages")).unwrap(),
    ));
    for (what, secret) in &secrets {
        for (path, bytes) in &site {
            assert!(!contains(bytes, secret), "{path} holds a secret: {what}");
        }
    }
    // ... and everything the verifier needs is there: each withheld file
    // of an entry is named by its digest, in its entry's withheld.sha256,
    // and every file of the entry is either there whole or named there.
    let state_after = hist.iter().find(|p| p.ends_with("state-after.toml")).unwrap();
    let entry = state_after.parent().unwrap();
    let rel = |p: &Path| p.strip_prefix(&g).unwrap().to_string_lossy().replace('\\', "/");
    let sums = fs::read_to_string(out.join(rel(entry)).join("withheld.sha256")).unwrap();
    let mut in_entry = Vec::new();
    files(entry, &mut in_entry);
    in_entry.sort();
    let mut named = 0;
    for p in &in_entry {
        let name = p.strip_prefix(entry).unwrap().to_string_lossy().replace('\\', "/");
        let line = format!("{}  {name}", sha256_hex(&fs::read(p).unwrap()));
        let whole = out.join(rel(p));
        if sums.lines().any(|l| l == line) {
            named += 1;
            assert!(!whole.exists(), "{name} is withheld and there whole");
        } else {
            assert_eq!(
                fs::read(&whole).ok(),
                Some(fs::read(p).unwrap()),
                "{name}: neither whole nor named"
            );
        }
    }
    assert_eq!(sums.lines().count(), named, "{sums}");
    for name in ["state-after.toml", "state-before.toml", "outcomes.toml", "report.txt"] {
        assert!(
            sums.lines().any(|l| l.ends_with(&format!("  {name}"))),
            "{name} not named: {sums}"
        );
    }
    assert!(!out.join(rel(state_after)).exists());
    assert!(!out.join(format!("{}.sha256", rel(state_after))).exists());
}

#[test]
fn the_index_states_its_verdict_for_machines_and_loads_nothing_remote() {
    let (t, g) = demo();
    let out = t.path().join("site");
    let said = site(&g, &out);
    assert!(said.starts_with(&format!("wrote {} (", out.display())), "{said}");
    assert!(said.contains(", 10 history entries); open "), "{said}");
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains(r#"<div id="verdict" data-status="checking""#), "{index}");
    // The VP chart of the campaign: a line a power, ending on the VP the
    // index's standings show.
    assert!(index.contains(r#"<img class="chart" src="vp.svg""#), "{index}");
    let chart = fs::read_to_string(out.join("vp.svg")).unwrap();
    assert_eq!(chart.matches("<polyline data-power=").count(), 7, "{chart}");
    let state = empereur::state::State::from_toml(&fs::read_to_string(g.join("state.toml")).unwrap()).unwrap();
    let france = state.power(empereur::ids::PowerId::France).vp;
    assert!(chart.contains(&format!(">France {france}</text>")), "{chart}");
    assert!(
        index.contains(r#"content="default-src 'none'; script-src 'self';"#),
        "{index}"
    );
    for (path, bytes) in output(&out) {
        if path.ends_with(".html") || path.ends_with(".js") {
            let text = String::from_utf8(bytes).unwrap();
            for remote in ["http://", "https://", "fetch("] {
                assert!(!text.contains(remote), "{path} mentions {remote}");
            }
        }
    }
    // The history is laid out as export-history lays it out, the public
    // files byte for byte.
    for name in ["history/head.toml", "phase/commitment"] {
        assert_eq!(
            fs::read(out.join(name)).unwrap(),
            fs::read(g.join(name)).unwrap(),
            "{name}"
        );
    }
    let dice = fs::read(g.join("history/0002-1805-fall-france/dice.toml")).unwrap();
    assert_eq!(
        fs::read(out.join("history/0002-1805-fall-france/dice.toml")).unwrap(),
        dice
    );
    let data = fs::read_to_string(out.join("data/history.js")).unwrap();
    assert!(data.starts_with("window.EMPEREUR_HISTORY = {"), "{}", &data[..80]);
    // What the in-page verifier reads is the history as the game holds it:
    // its head, its commitment and each entry's files, and no text in it
    // can end the script (`</` written `<\/`, the same JSON string).
    assert!(!data.contains("</"));
    let json = data
        .strip_prefix("window.EMPEREUR_HISTORY = ")
        .and_then(|d| d.strip_suffix(";\n"))
        .expect("one JSON value assigned");
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let text = |name: &str| fs::read_to_string(g.join(name)).unwrap();
    assert_eq!(v["head"]["text"], text("history/head.toml"));
    assert_eq!(v["commitment"]["text"], text("phase/commitment"));
    let entry = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["dir"] == "0002-1805-fall-france")
        .expect("the entry of France's turn");
    assert_eq!(
        entry["files"]["dice.toml"]["text"],
        text("history/0002-1805-fall-france/dice.toml")
    );
}

#[test]
fn each_phase_page_shows_the_public_outcomes_only() {
    let (t, g) = demo();
    let out = t.path().join("site");
    site(&g, &out);
    let page = fs::read_to_string(out.join("phases/0002-1805-fall-france.html")).unwrap();
    let outcomes = fs::read_to_string(g.join("history/0002-1805-fall-france/outcomes.toml")).unwrap();
    // Public (every power sees a declaration of war, standing or cancelled
    // by its die: each game draws its own dice, 5.3)...
    let declared = if outcomes.contains(r#"kind = "war-declared""#) {
        "France declares war on Austria"
    } else {
        assert!(outcomes.contains(r#"kind = "declaration-cancelled""#), "{outcomes}");
        "declaration of war on Austria is cancelled"
    };
    assert!(page.contains(declared), "{page}");
    // ... but not France's own standing order, which only France sees.
    assert!(outcomes.contains("combat option grand_assault"));
    assert!(!page.contains("grand_assault"), "{page}");
    assert!(
        page.contains(r#"<img class="map" src="0002-1805-fall-france.svg""#),
        "{page}"
    );
    assert!(out.join("phases/0002-1805-fall-france.svg").is_file());
}

#[test]
fn a_finished_game_publishes_its_whole_history_but_never_an_address() {
    let (t, g) = demo();
    let path = g.join("state.toml");
    let text = fs::read_to_string(&path).unwrap();
    // The game is over (its state says so); the history is not touched.
    let ended = text.replacen("events_used = ", "over = \"a test: France won\"\nevents_used = ", 1);
    assert_ne!(ended, text);
    fs::write(&path, ended).unwrap();
    // One recorded state edited (the verifier would say so): the state
    // before the next entry is no longer the same bytes, and must be
    // published as its own text.
    let third = fs::read_dir(g.join("history"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("0003-"))
        .unwrap();
    let edited = third.join("state-after.toml");
    let state = fs::read_to_string(&edited).unwrap();
    fs::write(&edited, state.replacen("gold = ", "gold = 1", 1)).unwrap();
    let out = t.path().join("site");
    site(&g, &out);
    let entry = "history/0002-1805-fall-france";
    for name in ["state-after.toml", "outcomes.toml", "report.txt"] {
        let rel = format!("{entry}/{name}");
        assert_eq!(
            fs::read(out.join(&rel)).unwrap(),
            fs::read(g.join(&rel)).unwrap(),
            "{rel}"
        );
    }
    assert!(!out.join(format!("{entry}/orders/france.toml")).exists());
    let sums = fs::read_to_string(out.join(format!("{entry}/withheld.sha256"))).unwrap();
    let orders = sha256_hex(&fs::read(g.join(format!("{entry}/orders/france.toml"))).unwrap());
    assert_eq!(
        sums,
        format!("{orders}  orders/france.toml\n"),
        "only the orders withheld once the game is over"
    );
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("The game is over"), "{index}");
    // In the verifier's JSON a state before a phase that is, byte for
    // byte, the state after the phase before is written once: it names
    // that file, whose text is there. One that differs is its own text.
    let data = fs::read_to_string(out.join("data/history.js")).unwrap();
    let json = data
        .strip_prefix("window.EMPEREUR_HISTORY = ")
        .and_then(|d| d.strip_suffix(";\n"))
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let entries = v["entries"].as_array().unwrap();
    let (mut same, mut own) = (0, 0);
    for pair in entries.windows(2) {
        let (dir0, dir1) = (pair[0]["dir"].as_str().unwrap(), pair[1]["dir"].as_str().unwrap());
        let Ok(before) = fs::read(g.join(format!("history/{dir1}/state-before.toml"))) else {
            continue;
        };
        let after = fs::read(g.join(format!("history/{dir0}/state-after.toml"))).ok();
        let f = &pair[1]["files"]["state-before.toml"];
        if after.as_ref() == Some(&before) {
            same += 1;
            assert_eq!(f["same_as"], format!("{dir0}/state-after.toml"), "{dir1}");
            assert_eq!(
                pair[0]["files"]["state-after.toml"]["text"].as_str().map(str::as_bytes),
                Some(&before[..])
            );
        } else {
            own += 1;
            assert_eq!(f["text"].as_str().map(str::as_bytes), Some(&before[..]), "{dir1}");
        }
    }
    assert!(same >= 5, "{same} states written once");
    // the game's first entry has no state after before it, and the entry
    // after the one edited has a state before of its own
    assert!(own >= 2, "{own} states of their own");
}

#[test]
fn run_refreshes_the_site_named_in_game_toml_after_each_phase() {
    let (_t, g) = demo();
    let when = "2027-06-01T00:00:00Z"; // long past the open phase's deadline
    // Off by default: run resolves and writes no site.
    let (_t2, plain) = demo();
    bin()
        .args(["run", "--game"])
        .arg(&plain)
        .env("EMPEREUR_NOW", when)
        .assert()
        .success();
    assert!(plain.join("history/0010-1806-winter/entry.toml").is_file());
    assert!(!plain.join("public").exists());

    let mut config = fs::read_to_string(g.join("game.toml")).unwrap();
    config.push_str("\n[site]\nout = \"public\"\n");
    fs::write(g.join("game.toml"), config).unwrap();
    // A command that writes game.toml anew keeps `[site]`.
    let new = g.join("new-player.toml");
    fs::write(
        &new,
        "[moderator]\nname = \"GM\"\nemail = \"gm@example.org\"\n\n[[player]]\npower = \"britain\"\nname = \"Carol\"\nemail = \"carol@example.org\"\npassword = \"three\"\n",
    )
    .unwrap();
    bin()
        .args(["replace-player", "--game"])
        .arg(&g)
        .args(["--power", "britain", "--players"])
        .arg(&new)
        .env("EMPEREUR_NOW", "2026-01-01T00:00:00Z")
        .assert()
        .success();
    let rewritten = fs::read_to_string(g.join("game.toml")).unwrap();
    assert!(rewritten.contains("carol@example.org"), "{rewritten}");
    bin()
        .args(["run", "--game"])
        .arg(&g)
        .env("EMPEREUR_NOW", when)
        .assert()
        .success();
    let index = fs::read_to_string(g.join("public/index.html")).unwrap();
    assert!(
        index.contains(r#"<a href="phases/0010-1806-winter.html">1806-winter</a>"#),
        "{index}"
    );
    let head = fs::read(g.join("history/head.toml")).unwrap();
    assert_eq!(fs::read(g.join("public/history/head.toml")).unwrap(), head);
}

/// A site written again where it was leaves each file whose bytes are
/// already there as it was (a host serving it meanwhile sees no change),
/// and puts back one whose bytes differ, even at the same length.
#[test]
#[cfg(unix)]
fn a_site_written_again_where_it_was_rewrites_only_what_differs() {
    use std::os::unix::fs::MetadataExt;
    let (t, g) = demo();
    let out = t.path().join("site");
    site(&g, &out);
    let whole = output(&out);
    let ino = |p: &str| fs::metadata(out.join(p)).unwrap().ino();
    let kept = [
        "index.html",
        "phases/0002-1805-fall-france.html",
        "data/history.js",
        "vp.svg",
    ];
    let before: Vec<u64> = kept.iter().map(|p| ino(p)).collect();
    // the index spoilt, at its own length, as a new file
    let index = fs::read(out.join("index.html")).unwrap();
    fs::remove_file(out.join("index.html")).unwrap();
    fs::write(out.join("index.html"), vec![b'x'; index.len()]).unwrap();
    let spoilt = ino("index.html");
    site(&g, &out);
    assert_eq!(output(&out), whole);
    assert_ne!(ino("index.html"), spoilt, "the spoilt index is replaced");
    let after: Vec<u64> = kept.iter().map(|p| ino(p)).collect();
    assert_eq!(
        after[1..],
        before[1..],
        "the files that were right are left as they were"
    );
}

#[test]
fn press_to_all_is_published_and_an_anonymous_sender_stays_unnamed() {
    use empereur::ids::PowerId;
    let (t, g) = demo();
    let press = g.join("press");
    fs::create_dir_all(&press).unwrap();
    let all_but = |from: PowerId| -> Vec<String> {
        PowerId::ALL
            .iter()
            .filter(|p| **p != from)
            .map(|p| format!("{:?}", p.name()))
            .collect()
    };
    let write = |name: &str, from: PowerId, anonymous: bool, to: Vec<String>, text: &str| {
        let body = format!(
            "phase = \"1805-fall-france\"\nfrom = \"{}\"\nanonymous = {anonymous}\nto = [{}]\nreceived = \"2026-01-06T01:00:00+00:00\"\ntext = \"{text}\"\n",
            from.id(),
            to.join(", ")
        );
        fs::write(press.join(name), body).unwrap();
    };
    write(
        "1-signed.toml",
        PowerId::France,
        false,
        all_but(PowerId::France),
        "Peace in our time, says Paris",
    );
    write(
        "2-grey.toml",
        PowerId::Austria,
        true,
        all_but(PowerId::Austria),
        "Beware the eagles",
    );
    let mut five = all_but(PowerId::Russia);
    five.pop();
    write(
        "3-private.toml",
        PowerId::Russia,
        false,
        five,
        "A secret for five of you",
    );
    let out = t.path().join("site");
    site(&g, &out);
    let page = fs::read_to_string(out.join("phases/0002-1805-fall-france.html")).unwrap();
    assert!(
        page.contains("From France:</p><pre>Peace in our time, says Paris</pre>"),
        "{page}"
    );
    assert!(
        page.contains("From an anonymous power:</p><pre>Beware the eagles</pre>"),
        "{page}"
    );
    assert!(!page.contains("From Austria"), "{page}");
    for (path, bytes) in output(&out) {
        assert!(
            !contains(&bytes, b"A secret for five of you"),
            "{path} holds press not sent to all"
        );
    }
}

/// A page the site keeps in the game: its entry, its key, its bytes.
type Cached = (String, String, Vec<u8>);

/// The pages a site keeps in the game (`.site-cache/pages`: for each, a
/// line `<entry> <key> <length>`, the bytes, a newline; a later record of
/// an entry replaces an earlier one), by entry.
fn cached(g: &Path) -> Vec<Cached> {
    records(&g.join(".site-cache/pages"))
}

/// The records of a file of pages (the site's cache, or the public pages
/// the resolution writes), by entry.
fn records(file: &Path) -> Vec<Cached> {
    let bytes = fs::read(file).unwrap();
    let mut out: Vec<Cached> = Vec::new();
    let mut rest = &bytes[..];
    while !rest.is_empty() {
        let nl = rest.iter().position(|b| *b == b'\n').unwrap();
        let line = std::str::from_utf8(&rest[..nl]).unwrap();
        let [entry, key, len] = line.split(' ').collect::<Vec<_>>()[..] else {
            panic!("{line}")
        };
        let len: usize = len.parse().unwrap();
        let page = rest[nl + 1..nl + 1 + len].to_vec();
        assert_eq!(rest[nl + 1 + len], b'\n', "{line}");
        rest = &rest[nl + 2 + len..];
        out.retain(|c| c.0 != entry);
        out.push((entry.to_string(), key.to_string(), page));
    }
    out.sort();
    out
}

/// `pages` as the site's cache of pages in the game.
fn store(g: &Path, pages: &[Cached]) {
    store_in(&g.join(".site-cache/pages"), pages)
}

/// `pages` as a file of pages.
fn store_in(file: &Path, pages: &[Cached]) {
    let mut bytes = Vec::new();
    for (entry, key, page) in pages {
        bytes.extend_from_slice(format!("{entry} {key} {}\n", page.len()).as_bytes());
        bytes.extend_from_slice(page);
        bytes.push(b'\n');
    }
    fs::write(file, bytes).unwrap();
}

/// The page of `entry` in `pages`, as text.
fn page_of<'a>(pages: &'a mut [Cached], entry: &str) -> &'a mut Cached {
    pages.iter_mut().find(|c| c.0 == entry).unwrap()
}

#[test]
fn a_site_made_from_the_cache_of_pages_is_the_site_made_without_it() {
    let (t, g) = demo();
    // A game whose phases were resolved before the resolution wrote public
    // pages: the site makes every page, and keeps it.
    fs::remove_file(g.join("public-pages")).unwrap();
    let first = t.path().join("first");
    site(&g, &first);
    let cache = cached(&g);
    assert_eq!(
        cache.len(),
        10,
        "a page for each entry: {:?}",
        cache.iter().map(|c| &c.0).collect::<Vec<_>>()
    );
    assert_eq!(
        output(&g.join(".site-cache")).len(),
        1,
        "one file for every page: creating files is what a first site costs most on disk"
    );
    // The second site reads its pages from the cache: a page edited there
    // under its own key shows (which is why a key digests everything the
    // page is made from, below).
    let mut marked = cache.clone();
    let entry = page_of(&mut marked, "0002-1805-fall-france");
    let text = String::from_utf8(entry.2.clone()).unwrap();
    assert!(text.contains("1805-fall-france"), "{text}");
    entry.2 = text.replace("</svg>", "<!-- from the cache --></svg>").into_bytes();
    assert_ne!(entry.2, text.as_bytes());
    store(&g, &marked);
    let second = t.path().join("second");
    site(&g, &second);
    let svg = "phases/0002-1805-fall-france.svg";
    assert!(fs::read_to_string(second.join(svg)).unwrap().contains("from the cache"));
    // Unmarked, the site from the cache is the site made without one,
    // byte for byte, and so is the site refreshed in place.
    store(&g, &cache);
    let third = t.path().join("third");
    site(&g, &third);
    assert_eq!(output(&third), output(&first));
    site(&g, &first);
    assert_eq!(output(&first), output(&third));
    assert_eq!(cached(&g), cache, "nothing made again");
    // A cache cut short (a crash while a page was appended): that page is
    // made again, and the cache written again whole.
    let pages = g.join(".site-cache/pages");
    let bytes = fs::read(&pages).unwrap();
    fs::write(&pages, &bytes[..bytes.len() - 10]).unwrap();
    let fourth = t.path().join("fourth");
    site(&g, &fourth);
    assert_eq!(output(&fourth), output(&first));
    assert_eq!(cached(&g), cache);
}

#[test]
fn a_cached_page_is_made_again_when_its_key_or_its_entry_changed() {
    let (t, g) = demo();
    // A game whose phases were resolved before the resolution wrote public
    // pages: the site makes every page, and keeps it.
    fs::remove_file(g.join("public-pages")).unwrap();
    let before = t.path().join("before");
    site(&g, &before);
    // A cache entry stored under another key (stale, or edited with its
    // page) is not used.
    let cache = cached(&g);
    let mut forged = cache.clone();
    let entry = page_of(&mut forged, "0002-1805-fall-france");
    assert_eq!(entry.1.len(), 64, "{}", entry.1);
    entry.1 = "0".repeat(64);
    entry.2 = String::from_utf8(entry.2.clone())
        .unwrap()
        .replace("</svg>", "<!-- forged --></svg>")
        .into_bytes();
    store(&g, &forged);
    let again = t.path().join("again");
    site(&g, &again);
    assert_eq!(output(&again), output(&before));
    assert_eq!(cached(&g), cache, "made again and stored");
    // A history file the page is made from changed (a tampered state):
    // the page shows what the history now holds, as a site made with no
    // cache does.
    let state = g.join("history/0002-1805-fall-france/state-after.toml");
    let text = fs::read_to_string(&state).unwrap();
    let (at, _) = text.match_indices("\ngold = ").next().unwrap();
    let end = at + 1 + text[at + 1..].find('\n').unwrap();
    let tampered = format!("{}\ngold = 987654{}", &text[..at], &text[end..]);
    fs::write(&state, tampered).unwrap();
    let refreshed = t.path().join("refreshed");
    site(&g, &refreshed);
    let page = fs::read_to_string(refreshed.join("phases/0002-1805-fall-france.html")).unwrap();
    assert!(page.contains("<td>987654</td>"), "{page}");
    // A public history file replaced by another (a die changed): the site
    // refreshed where it was carries the new one.
    let dice = g.join("history/0002-1805-fall-france/dice.toml");
    let original = fs::read_to_string(&dice).unwrap();
    let changed = original.replacen("result = ", "result = 1", 1);
    assert_ne!(changed, original);
    fs::write(g.join("dice.tmp"), &changed).unwrap();
    fs::rename(g.join("dice.tmp"), &dice).unwrap();
    site(&g, &before);
    let published = before.join("history/0002-1805-fall-france/dice.toml");
    assert_eq!(fs::read_to_string(published).unwrap(), changed);
    fs::remove_dir_all(g.join(".site-cache")).unwrap();
    let uncached = t.path().join("uncached");
    site(&g, &uncached);
    assert_eq!(output(&before), output(&uncached));
}

#[test]
fn the_site_takes_each_phases_page_from_the_resolution_and_makes_the_same_site() {
    let (t, g) = demo();
    // The resolution wrote the public page of each phase it resolved
    // beside the history; the entries it did not resolve (the game's
    // first) the site makes.
    let public = records(&g.join("public-pages"));
    let entries: Vec<String> = fs::read_dir(g.join("history"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.as_bytes()[0].is_ascii_digit())
        .collect();
    assert_eq!(public.len() + 1, entries.len(), "{public:?}");
    let with = t.path().join("with");
    site(&g, &with);
    assert_eq!(
        cached(&g).len(),
        1,
        "only the page the resolution did not write was made"
    );
    // On another file system, where nothing can be linked, the same site
    // is written from copies.
    #[cfg(target_os = "linux")]
    if let Ok(shm) = tempfile::tempdir_in("/dev/shm") {
        let copied = shm.path().join("site");
        site(&g, &copied);
        assert_eq!(output(&copied), output(&with));
    }
    // The same site, byte for byte, as the one made from the states.
    let kept = fs::read(g.join("public-pages")).unwrap();
    fs::remove_file(g.join("public-pages")).unwrap();
    fs::remove_dir_all(g.join(".site-cache")).unwrap();
    let without = t.path().join("without");
    site(&g, &without);
    assert_eq!(output(&with), output(&without));
    // Each map is a file of its own beside the records, named by the
    // page's key, and the site's map is that file, linked, not a copy.
    let svg = "phases/0002-1805-fall-france.svg";
    let (_, key, record) = page_of(&mut public.clone(), "0002-1805-fall-france").clone();
    assert!(!contains(&record, b"<svg"), "the record holds no map");
    let map = g.join(format!("public-maps/{key}.svg"));
    assert_eq!(fs::read(&map).unwrap(), fs::read(with.join(svg)).unwrap());
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let ino = |p: &Path| fs::metadata(p).unwrap().ino();
        assert_eq!(ino(&map), ino(&with.join(svg)), "linked");
    }
    // A public page is what the site shows: its map marked (a new file
    // under its own key), the mark shows ...
    fs::write(g.join("public-pages"), &kept).unwrap();
    let unmarked = fs::read_to_string(&map).unwrap();
    fs::remove_file(&map).unwrap();
    fs::write(&map, unmarked.replace("</svg>", "<!-- from the resolution --></svg>")).unwrap();
    let marked_site = t.path().join("marked");
    site(&g, &marked_site);
    assert!(
        fs::read_to_string(marked_site.join(svg))
            .unwrap()
            .contains("from the resolution")
    );
    // ... but a history file it was made from changed (a tampered state),
    // its key is not the entry's any more: the page shows what the history
    // now holds.
    let state = g.join("history/0002-1805-fall-france/state-after.toml");
    let text = fs::read_to_string(&state).unwrap();
    let (at, _) = text.match_indices("\ngold = ").next().unwrap();
    let end = at + 1 + text[at + 1..].find('\n').unwrap();
    fs::write(&state, format!("{}\ngold = 987654{}", &text[..at], &text[end..])).unwrap();
    let tampered = t.path().join("tampered");
    site(&g, &tampered);
    let page = fs::read_to_string(tampered.join("phases/0002-1805-fall-france.html")).unwrap();
    assert!(page.contains("<td>987654</td>"), "{page}");
    // The digests published are those of the files as they are: the state
    // after 0002 is no longer the state before the next entry.
    let next = fs::read_dir(g.join("history"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .find(|n| n.starts_with("0003-"))
        .unwrap();
    for (entry, file) in [
        ("0002-1805-fall-france", "state-after.toml"),
        (next.as_str(), "state-before.toml"),
    ] {
        let line = format!(
            "{}  {file}",
            sha256_hex(&fs::read(g.join(format!("history/{entry}/{file}"))).unwrap())
        );
        let sums = fs::read_to_string(tampered.join(format!("history/{entry}/withheld.sha256"))).unwrap();
        assert!(sums.lines().any(|l| l == line), "{entry}: {line} not in {sums}");
    }
    assert!(
        !fs::read_to_string(tampered.join(svg))
            .unwrap()
            .contains("from the resolution")
    );
    // A public file cut short (a crash while the resolution appended): the
    // pages before the cut are used, the rest made, and the file written
    // again whole so that the next pages appended are read.
    fs::write(&state, text).unwrap();
    fs::remove_file(&map).unwrap();
    fs::write(&map, &unmarked).unwrap();
    fs::write(g.join("public-pages"), &kept[..kept.len() - 10]).unwrap();
    let cut = t.path().join("cut");
    site(&g, &cut);
    assert_eq!(output(&cut), output(&without));
    let last = public.last().unwrap().0.clone();
    let left = records(&g.join("public-pages"));
    assert_eq!(left.len(), public.len() - 1, "all but {last}");
    assert!(left.iter().all(|r| r.0 != last));
}
