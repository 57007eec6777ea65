//! Invariants of the embedded 1805 scenario: every territory the
//! seeds name resolves, 2.13 holds, the 2.5 aggregates and corrections
//! hold, the 2.71 LOC example is reproduced, the map is connected, the
//! `map --format json` contract, and `scenario check` on broken copies.
#![allow(clippy::disallowed_methods)] // tests read and write temp files

use assert_cmd::Command;
use empereur::ids::PowerId;
use empereur::map::{NameError, Owner, ProvinceKind};
use empereur::scenario::{Arm, MinorKind, Scenario};
use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

fn s() -> Scenario {
    Scenario::embedded("1805").expect("the embedded 1805 scenario loads")
}

fn id_of(s: &Scenario, name: &str) -> String {
    match s.map.resolve_province(name) {
        Ok(p) => p.id.clone(),
        Err(e) => panic!("'{name}' does not resolve: {e:?}"),
    }
}

/// Every territory of the 1805 map, and every one seeds 003/004 name.
const NAMED: &[&str] = &[
    "Vienna",
    "Prague",
    "Tyrol",
    "Bavaria",
    "Saxony",
    "Thuringia",
    "East Prussia",
    "Lithuania",
    "Denmark",
    "Copenhagen",
    "Norway",
    "Sweden",
    "Finland",
    "Holland",
    "Flanders",
    "Lorraine",
    "Palatinate",
    "Switzerland",
    "Piedmont",
    "Lombardy",
    "Venetia",
    "Venezia",
    "Papacy",
    "Rome",
    "Naples",
    "Brindisi",
    "Sicily",
    "Illyria",
    "Corsica",
    "Malta",
    "Gibraltar",
    "Gibralter",
    "Portugal",
    "Masovia",
    "Warsaw",
    "East Galicia",
    "West Galicia",
    "Silesia",
    "Moravia",
    "Hanover",
    "Hesse",
    "Magdeburg",
    "Brandenburg",
    "Berlin",
    "Baden",
    "Wurttemburg",
    "Württemberg",
    "Berg",
    "Duchies",
    "Kleves",
    "Mecklenburg",
    "Bosnia",
    "Serbia",
    "Military Border",
    "Transylvania",
    "Moldavia",
    "Bessarabia",
    "Podolia",
    "Crimea",
    "Georgia",
    "Armenia",
    "Morocco",
    "Algeria",
    "Tunisia",
    "Tripolitania",
    "Cyrenica",
    "Egypt",
    "Palestine",
    "Syria",
    "Ireland",
    "Scotland",
    "Wales",
    "Moscow",
    "Munich",
    "Paris",
    "London",
    "St Petersburg",
    "Madrid",
    "Constantinople",
    "Austria",
    "Normandy",
    "Savoy",
    "Toulon",
];

#[test]
fn every_named_territory_resolves() {
    let s = s();
    for n in NAMED {
        id_of(&s, n);
    }
    assert_eq!(id_of(&s, "Venezia"), id_of(&s, "Venetia"));
    assert_eq!(id_of(&s, "Warsaw"), "masovia");
    assert_eq!(id_of(&s, "Berlin"), "berlin");
    assert_eq!(id_of(&s, "Brandenburg"), "berlin");
    assert_eq!(id_of(&s, "Austria"), "vienna");
    assert_eq!(id_of(&s, "Rome"), "papacy");
    assert_eq!(id_of(&s, "Württemberg"), "wurttemburg");
}

#[test]
fn galicia_is_ambiguous() {
    let s = s();
    match s.map.resolve_province("Galicia") {
        Err(NameError::Ambiguous { candidates }) => {
            let c: BTreeSet<&str> = candidates.iter().map(String::as_str).collect();
            assert_eq!(c, BTreeSet::from(["East Galicia", "West Galicia"]));
        }
        other => panic!("Galicia should be ambiguous, got {other:?}"),
    }
}

#[test]
fn province_count_and_ids() {
    let s = s();
    let n = s.map.provinces.len();
    assert!((120..=160).contains(&n), "{n} provinces");
    for p in &s.map.provinces {
        assert!(p.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{}", p.id);
    }
}

#[test]
fn map_clarifications_2_13() {
    let s = s();
    let m = &s.map;
    let (bavaria, vienna, prague, tyrol, saxony, thuringia) = (
        id_of(&s, "Bavaria"),
        id_of(&s, "Vienna"),
        id_of(&s, "Prague"),
        id_of(&s, "Tyrol"),
        id_of(&s, "Saxony"),
        id_of(&s, "Thuringia"),
    );
    for (a, b) in [
        (&bavaria, &vienna),
        (&prague, &tyrol),
        (&bavaria, &saxony),
        (&prague, &thuringia),
    ] {
        assert!(!m.adjacent(a, b) && !m.adjacent(b, a), "{a}-{b} must not be adjacent");
        assert!(m.arrow(a, b).is_none(), "{a}-{b} must have no arrow");
    }
    // The corners really are corners: each pair shares a neighbour.
    assert!(m.adjacent(&bavaria, &tyrol) && m.adjacent(&tyrol, &vienna));
    assert!(m.adjacent(&bavaria, &prague) && m.adjacent(&prague, &vienna));
    assert!(m.adjacent(&bavaria, &thuringia) && m.adjacent(&thuringia, &saxony));
    assert!(m.adjacent(&prague, &saxony));
    assert!(m.adjacent("east_prussia", "lithuania"));
    let arrow = m.arrow("denmark", "copenhagen").expect("Denmark-Copenhagen arrow");
    assert!(arrow.kind == 1 || arrow.kind == 2);
    assert!(
        !m.adjacent("denmark", "copenhagen"),
        "the strait is crossed by the arrow only"
    );
    assert!(m.province("copenhagen").unwrap().white);
    // No land route Finland - Sweden, and no arrow either.
    assert!(!m.adjacent("finland", "sweden"));
    assert!(m.arrow("finland", "sweden").is_none());
    let swedish: Vec<&str> = m.owned_by("sweden").map(|p| p.id.as_str()).collect();
    for x in &swedish {
        assert!(!m.adjacent("finland", x), "Finland touches {x} by land");
    }
}

#[test]
fn aggregates_2_5() {
    let s = s();
    let sum = |ids: Vec<&str>| {
        ids.iter().fold((0, 0), |(e, p), id| {
            let x = s.map.province(id).unwrap();
            (e + x.econ, p + x.pol)
        })
    };
    let home = |p: PowerId| s.home_provinces(p).map(|x| x.id.as_str()).collect::<Vec<_>>();
    assert_eq!(sum(home(PowerId::Prussia)), (26, 8), "Prussian home 26/8");
    assert_eq!(sum(home(PowerId::France)).1, 22, "French home Political Value 22");
    let garrisons = |p: PowerId| s.power(p).garrisons.iter().map(String::as_str).collect::<Vec<_>>();
    assert_eq!(sum(garrisons(PowerId::Britain)), (6, 4), "British additional 6/4");
    assert_eq!(sum(garrisons(PowerId::Prussia)), (4, 1), "Prussian additional 4/1");
    let gib = s.map.province("gibraltar").unwrap();
    assert_eq!(gib.capture_vp, 10, "Gibraltar is worth 10 VPs (a capture award)");
    assert!(gib.white, "2.11: Gibraltar is printed white");
    assert_eq!(gib.owner, Owner::Major(PowerId::Britain));
    // France has eight home provinces (REP97) and only seven powers exist.
    assert_eq!(home(PowerId::France).len(), 8);
    assert_eq!(s.powers.len(), 7);
}

#[test]
fn player_mat_corrections_2_5_and_3_4() {
    let s = s();
    let corps = |p: PowerId, n: u32| s.power(p).corps.iter().find(|c| c.number == n).unwrap().clone();
    let a14 = corps(PowerId::Austria, 14);
    assert!(!a14.divisions.contains(&Arm::Artillery) && a14.divisions.contains(&Arm::Infantry));
    let s8 = corps(PowerId::Spain, 8);
    assert!(!s8.divisions.contains(&Arm::Cavalry) && s8.divisions.contains(&Arm::Infantry));
    let wellington = s
        .power(PowerId::Britain)
        .commanders
        .iter()
        .find(|c| c.name == "Wellington")
        .unwrap();
    assert_eq!(wellington.arrives.unwrap().to_string(), "1807-spring");
    assert!(s.power(PowerId::France).garrisons.contains(&"corsica".to_string()));
    assert!(s.power(PowerId::Britain).garrisons.contains(&"malta".to_string()));
    let sweden = &s.minors["sweden"];
    assert_eq!(sweden.garrisons, vec!["finland".to_string()]);
    assert_eq!(sweden.corps.iter().find(|c| c.number == 2).unwrap().divisions.len(), 2);
    assert_eq!(s.minors["portugal"].controller, Some(PowerId::Britain));
    let bav = &s.minors["bavaria"];
    assert!(
        bav.corps.iter().all(|c| c.at.is_none()),
        "3.46: Bavarian corps off the map"
    );
    for p in PowerId::ALL {
        let spec = s.power(p);
        assert_eq!(spec.commanders.iter().filter(|c| c.primary).count(), 1, "2.24: {p}");
        for c in &spec.corps {
            if c.divisions.len() == 4 {
                assert!(p == PowerId::France && c.number <= 4, "{p} corps {}", c.number);
                assert_eq!(c.divisions[3], Arm::Cavalry, "2.5: the fourth is cavalry");
            }
        }
    }
    let kinds = |k: MinorKind| -> BTreeSet<&str> {
        s.minors
            .values()
            .filter(|m| m.kind == k)
            .map(|m| m.id.as_str())
            .collect()
    };
    assert_eq!(
        kinds(MinorKind::MinorPower),
        BTreeSet::from(["denmark", "egypt", "naples", "portugal", "sweden"])
    );
    assert_eq!(
        kinds(MinorKind::MinorProvinceForces),
        BTreeSet::from(["bavaria", "holland", "saxony"])
    );
    assert_eq!(kinds(MinorKind::Loyal), BTreeSet::from(["italy", "poland", "rhine"]));
    // 3.41: Sweden has four provinces, Naples two (2.12 c).
    assert_eq!(s.map.owned_by("sweden").count(), 4);
    assert_eq!(s.map.owned_by("naples").count(), 2);
    // 2.12 d, e: Illyria is a remapable Austrian home of the Kingdom of Italy; Venetia a minor.
    let ill = s.map.province("illyria").unwrap();
    assert_eq!(
        (ill.kind, ill.loyal.as_deref()),
        (ProvinceKind::RemapableHome, Some("italy"))
    );
    let ven = s.map.province("venetia").unwrap();
    assert_eq!((ven.kind, ven.loyal.as_deref()), (ProvinceKind::Minor, Some("italy")));
    assert_eq!(s.map.province("masovia").unwrap().loyal.as_deref(), Some("poland"));
    // France is the strongest army.
    let divs = |p: PowerId| s.power(p).corps.iter().map(|c| c.divisions.len()).sum::<usize>();
    for p in PowerId::ALL {
        assert!(p == PowerId::France || divs(p) < divs(PowerId::France), "{p}");
    }
}

#[test]
fn loc_example_2_71() {
    let s = s();
    let homes: Vec<&str> = s.home_provinces(PowerId::France).map(|p| p.id.as_str()).collect();
    let loc = |to: &str| {
        s.map
            .distance(&homes, &id_of(&s, to), |p| if p.double_loc { 2 } else { 1 })
            .unwrap()
    };
    let (naples, warsaw, moscow) = (loc("Naples"), loc("Warsaw"), loc("Moscow"));
    assert_eq!(naples, 3, "2.71: LOC to Naples is 3");
    assert!((5..=8).contains(&warsaw), "LOC to Warsaw {warsaw}");
    assert!((12..=14).contains(&moscow), "LOC to Moscow {moscow}");
    assert_eq!(s.loc_length(PowerId::France, "moscow", |_| true), Some(moscow));
    assert_eq!(s.loc_length(PowerId::France, "paris", |_| true), Some(0));
    let t = &s.tables.build_costs;
    // 3 infantry divisions: list cost $6 (infantry $2, QA01).
    let list = 3 * s.power(PowerId::France).costs.infantry;
    assert_eq!(list, 6);
    assert_eq!(t.cost(list, naples), 7);
    assert_eq!(t.cost(list, warsaw), 8);
    assert_eq!(t.cost(list, moscow), 10);
}

#[test]
fn double_loc_regions_2_71() {
    let s = s();
    for p in &s.map.provinces {
        let must = matches!(
            p.owner.major(),
            Some(PowerId::Spain | PowerId::Russia | PowerId::Ottoman)
        ) || p.owner.id() == "portugal"
            || p.region == "north_africa";
        if must {
            assert!(p.double_loc, "{} should count double", p.id);
        }
        if matches!(
            p.owner.major(),
            Some(PowerId::France | PowerId::Austria | PowerId::Prussia)
        ) {
            assert!(!p.double_loc, "{} should not count double", p.id);
        }
    }
}

#[test]
fn map_is_connected_by_land_arrows_and_sea() {
    let s = s();
    let m = &s.map;
    // Nodes: provinces and seas; edges: land, arrows, coasts, sea adjacency.
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let start = format!("p:{}", m.provinces[0].id);
    let mut q = VecDeque::from([start]);
    while let Some(n) = q.pop_front() {
        if !seen.insert(n.clone()) {
            continue;
        }
        let mut next: Vec<String> = Vec::new();
        if let Some(id) = n.strip_prefix("p:") {
            let p = m.province(id).unwrap();
            next.extend(p.adjacent.iter().map(|a| format!("p:{a}")));
            next.extend(p.seas.iter().map(|z| format!("s:{z}")));
            for a in &m.arrows {
                if a.from == id {
                    next.push(format!("p:{}", a.to));
                } else if a.to == id {
                    next.push(format!("p:{}", a.from));
                }
            }
        } else if let Some(id) = n.strip_prefix("s:") {
            let z = m.sea(id).unwrap();
            next.extend(z.adjacent.iter().map(|a| format!("s:{a}")));
            next.extend(
                m.provinces
                    .iter()
                    .filter(|p| p.seas.contains(&z.id))
                    .map(|p| format!("p:{}", p.id)),
            );
        }
        q.extend(next);
    }
    assert_eq!(seen.len(), m.provinces.len() + m.seas.len(), "unreachable: {:?}", {
        let all: BTreeSet<String> = m
            .provinces
            .iter()
            .map(|p| format!("p:{}", p.id))
            .chain(m.seas.iter().map(|z| format!("s:{}", z.id)))
            .collect();
        all.difference(&seen).cloned().collect::<Vec<_>>()
    });
    // The continent is one land mass: Paris reaches Moscow, Lisbon and Constantinople by land.
    for to in ["moscow", "portugal", "constantinople", "egypt", "morocco"] {
        assert!(
            m.distance(&["paris"], to, |_| 1).is_some(),
            "{to} not reachable by land and arrows"
        );
    }
}

#[test]
fn seas_and_arrows() {
    let s = s();
    let m = &s.map;
    let trade: BTreeSet<&str> = m.seas.iter().filter(|z| z.trade).map(|z| z.id.as_str()).collect();
    for z in ["baltic", "british_isles", "north_sea", "atlantic"] {
        assert!(trade.contains(z), "4.242: {z} is a trade zone");
    }
    for z in ["western_med", "tyrrhenian", "adriatic", "aegean", "black_sea"] {
        assert!(!trade.contains(z), "{z} is not a trade zone");
    }
    for name in [
        "Baltic",
        "North Sea",
        "British Isles",
        "Atlantic",
        "Adriatic",
        "Black Sea",
    ] {
        assert!(m.resolve_sea(name).is_ok(), "{name}");
    }
    assert!(m.province("hamburg").unwrap().trade_port);
    assert!(!m.province("naples").unwrap().trade_port);
    for a in &m.arrows {
        assert!(a.kind == 1 || a.kind == 2);
    }
    assert!(m.arrow("naples", "sicily").is_some(), "Messina");
    assert!(m.arrow("gibraltar", "morocco").is_some(), "Strait of Gibraltar");
    assert!(m.arrow("constantinople", "anatolia").is_some(), "Bosporus");
    // Only straits: no arrow across the Channel or other open sea (12.2.1).
    assert!(m.arrow("london", "paris").is_none(), "no arrow across the Channel");
    for a in &m.arrows {
        let why = a.source.to_string();
        assert!(
            ["seed", "Strait", "Oresund", "Bosporus"]
                .iter()
                .any(|w| why.contains(w)),
            "arrow {}-{} gives no strait as its reason: {why}",
            a.from,
            a.to
        );
    }
    // Islands touch the sea, and white provinces are islands, Gibraltar or Copenhagen (2.11, 2.13).
    for p in &m.provinces {
        if p.adjacent.is_empty() {
            assert!(!p.seas.is_empty(), "{} is an island without sea", p.id);
        }
        if p.white {
            assert!(p.adjacent.is_empty() || p.id == "gibraltar", "{} is white", p.id);
        }
    }
}

fn bin() -> Command {
    Command::cargo_bin("empereur").unwrap()
}

#[test]
fn map_json_contract() {
    let out = bin().args(["map", "--format", "json"]).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = |x: &serde_json::Value| -> BTreeSet<String> { x.as_object().unwrap().keys().cloned().collect() };
    let provinces = v["provinces"].as_array().unwrap();
    assert_eq!(provinces.len(), s().map.provinces.len());
    for k in [
        "id", "name", "aliases", "econ", "pol", "garrison", "kind", "owner", "capital", "white", "seas", "adjacent",
    ] {
        assert!(keys(&provinces[0]).contains(k), "province key {k}");
    }
    let vienna = provinces.iter().find(|p| p["id"] == "vienna").unwrap();
    assert_eq!(vienna["owner"], "austria");
    assert_eq!(vienna["capital"], true);
    assert_eq!(vienna["kind"], "home");
    for k in ["id", "name", "adjacent"] {
        assert!(keys(&v["seas"][0]).contains(k), "sea key {k}");
    }
    let arrows = v["arrows"].as_array().unwrap();
    for k in ["from", "to", "sea", "type"] {
        assert!(keys(&arrows[0]).contains(k), "arrow key {k}");
    }
    assert!(
        arrows
            .iter()
            .any(|a| a["from"] == "denmark" && a["to"] == "copenhagen" && a["type"].is_u64())
    );
}

fn repo_scenario() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("games/scenarios/1805")
}

/// Copy the shipped scenario into a temp dir.
fn copy_scenario() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("broken");
    for sub in ["", "tables"] {
        let from = repo_scenario().join(sub);
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for e in std::fs::read_dir(&from).unwrap() {
            let e = e.unwrap();
            if e.path().extension().is_some_and(|x| x == "toml") {
                std::fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
            }
        }
    }
    (tmp, dir)
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn scenario_check_accepts_the_shipped_scenario_and_lists_house_values() {
    let out = bin().args(["scenario", "check"]).arg(repo_scenario()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(": ok (122 provinces"), "{text}");
    assert!(text.contains("house values ("), "{text}");
    assert!(
        text.contains("tables/build_costs.toml: house: 5 % per LOC step"),
        "{text}"
    );
    assert!(text.contains("power france"), "{text}");
}

#[test]
fn asymmetric_adjacency_names_file_and_line() {
    let (_tmp, dir) = copy_scenario();
    let path = dir.join("provinces.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    // Vienna keeps Hungary, Hungary forgets Vienna.
    let start = text.find("id = \"hungary\"").unwrap();
    let adj = start + text[start..].find("adjacent = [\"vienna\", ").unwrap();
    let broken = format!(
        "{}adjacent = [{}",
        &text[..adj],
        &text[adj + "adjacent = [\"vienna\", ".len()..]
    );
    std::fs::write(&path, &broken).unwrap();
    let out = bin().args(["scenario", "check"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let expected = format!(
        "{}/provinces.toml:{}: province 'vienna' lists 'hungary' as adjacent but 'hungary' does not list 'vienna'",
        dir.display(),
        line_of(&broken, "id = \"vienna\"")
    );
    assert!(stdout.lines().any(|l| l == expected), "want {expected}\ngot {stdout}");
    assert!(stdout.contains("1 problem(s)"), "{stdout}");
}

#[test]
fn syntax_error_names_file_and_line() {
    let (_tmp, dir) = copy_scenario();
    let path = dir.join("seas.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let broken = text.replacen("name = \"North Sea\"", "name = \"North Sea", 1);
    std::fs::write(&path, &broken).unwrap();
    let out = bin().args(["scenario", "check"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let prefix = format!(
        "{}/seas.toml:{}: ",
        dir.display(),
        line_of(&broken, "name = \"North Sea")
    );
    assert!(
        stdout.lines().any(|l| l.starts_with(&prefix) && l.contains("string")),
        "want {prefix}…\ngot {stdout}"
    );
}

#[test]
fn semantic_errors_are_all_reported() {
    let (_tmp, dir) = copy_scenario();
    let path = dir.join("provinces.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    // Malta loses its sea (an island must touch one); Madrid loses its capital flag.
    let broken = text
        .replacen("seas = [\"central_med\"]\nport = true\n", "", 1)
        .replacen("owner = \"spain\"\ncapital = true\n", "owner = \"spain\"\n", 1);
    assert_ne!(broken, text);
    std::fs::write(&path, &broken).unwrap();
    let out = bin().args(["scenario", "check"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let d = dir.display();
    let malta = format!(
        "{d}/provinces.toml:{}: province 'malta' has no land neighbour and borders no sea",
        line_of(&broken, "id = \"malta\"")
    );
    assert!(stdout.lines().any(|l| l == malta), "want {malta}\ngot {stdout}");
    let pw = std::fs::read_to_string(dir.join("powers.toml")).unwrap();
    let madrid = format!(
        "{d}/powers.toml:{}: power 'spain': capital 'madrid' is not a capital home province of spain",
        line_of(&pw, "id = \"spain\"")
    );
    assert!(stdout.lines().any(|l| l == madrid), "want {madrid}\ngot {stdout}");
}

#[test]
fn minor_without_provinces_is_an_error() {
    let (_tmp, dir) = copy_scenario();
    let path = dir.join("minors.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let broken = format!(
        "{text}\n[[minor]]\nid = \"genoa\"\nname = \"Genoa\"\nadjective = \"Genoese\"\nkind = \"minor_power\"\n"
    );
    std::fs::write(&path, &broken).unwrap();
    let out = bin().args(["scenario", "check"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let want = format!(
        "{}/minors.toml:{}: minor 'genoa' has no provinces: it owns no province",
        dir.display(),
        line_of(&broken, "id = \"genoa\"")
    );
    assert!(stdout.lines().any(|l| l == want), "want {want}\ngot {stdout}");
}

#[test]
fn units_start_in_their_own_provinces() {
    let (_tmp, dir) = copy_scenario();
    let path = dir.join("powers.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let broken = text.replacen(
        "at = \"savoy\"\ndivisions = [\"inf\", \"art\"]",
        "at = \"vienna\"\ndivisions = [\"inf\", \"art\"]",
        1,
    );
    assert_ne!(broken, text);
    std::fs::write(&path, &broken).unwrap();
    let out = bin().args(["scenario", "check"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let want = format!(
        "{}/powers.toml:{}: power 'france': corps 9 starts in 'vienna', which is neither its own nor garrisoned by it",
        dir.display(),
        line_of(&broken, "id = \"france\"")
    );
    assert!(stdout.lines().any(|l| l == want), "want {want}\ngot {stdout}");
}
