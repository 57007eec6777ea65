//! Consistency checks of a loaded scenario: every reference resolves,
//! adjacency is symmetric, every land area is reachable, every power is
//! complete, islands touch a sea, every minor power has provinces,
//! capital flags match the powers, every unit stands where it may. Run by
//! [`super::Scenario::load`] and `empereur scenario check`.

use super::{MinorKind, Problems, Scenario, ScenarioFiles};
use crate::ids::PowerId;
use crate::map::{LonLat, Owner, ProvinceKind};
use std::collections::{BTreeSet, VecDeque};

pub fn references(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    province_references(s, files, pr);
    sea_references(s, files, pr);
    arrow_references(s, files, pr);
    land_reachable(s, files, pr);
    power_references(s, files, pr);
    minor_references(s, files, pr);
}

/// Provinces: ids unique and well-formed; their neighbours, seas, owners
/// and loyal minors exist.
fn province_references(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    // 12.2.x: every table the naval option names is on its chart.
    let nf = "tables/naval_option.toml";
    for id in s.tables.naval_option.missing_tables() {
        pr.at(
            nf,
            text(nf),
            "[[crt]]",
            format!("table '{id}' is named but no [[crt]] has that id"),
        );
    }
    // 11.8.3, 11.8.4: every territory the political option names is
    // defined. A map may lack a province a territory names (a test map
    // with the 1805 tables): it is then never controlled; the shipped
    // table is checked against the 1805 map in `rules::political::dominance`.
    let df = "tables/political_dominance.toml";
    for problem in s.tables.political_dominance.problems(|_| true) {
        pr.at(df, text(df), "[[territory]]", problem);
    }
    // 11.x: every garrison and counter row of a kingdom names its own
    // components and nations, so a bad row is named here rather than
    // silently doing nothing in play. A map may lack the minors a kingdom
    // names (a test map with the 1805 tables): the kingdom is then never
    // created; the shipped table is checked against the 1805 minors in
    // `scenario::tables_political`.
    let kf = "tables/political.toml";
    for problem in s.tables.political.problems(|_| true) {
        pr.at(kf, text(kf), "[[kingdom]]", problem);
    }
    let pf = "provinces.toml";
    let mut seen = BTreeSet::new();
    for p in &map.provinces {
        let needle = format!("id = \"{}\"", p.id);
        if !seen.insert(p.id.as_str()) {
            pr.at(pf, text(pf), &needle, format!("province '{}' is defined twice", p.id));
        }
        if p.id.is_empty() || !p.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            pr.at(
                pf,
                text(pf),
                &needle,
                format!("province id '{}' must be lowercase ASCII letters and '_'", p.id),
            );
        }
        for a in &p.adjacent {
            match map.province(a) {
                None => pr.at(
                    pf,
                    text(pf),
                    &needle,
                    format!("province '{}': adjacent '{a}' is not a province", p.id),
                ),
                Some(q) if !q.adjacent.contains(&p.id) => pr.at(
                    pf,
                    text(pf),
                    &needle,
                    format!(
                        "province '{}' lists '{a}' as adjacent but '{a}' does not list '{}'",
                        p.id, p.id
                    ),
                ),
                _ => {}
            }
            if a == &p.id {
                pr.at(
                    pf,
                    text(pf),
                    &needle,
                    format!("province '{}' is adjacent to itself", p.id),
                );
            }
        }
        for sea in &p.seas {
            if map.sea(sea).is_none() {
                pr.at(
                    pf,
                    text(pf),
                    &needle,
                    format!("province '{}': sea '{sea}' is not a sea zone", p.id),
                );
            }
        }
        if p.port && p.seas.is_empty() {
            pr.at(
                pf,
                text(pf),
                &needle,
                format!("province '{}' has a port but borders no sea", p.id),
            );
        }
        match &p.owner {
            Owner::Minor(m) if !s.minors.contains_key(m) => pr.at(
                pf,
                text(pf),
                &needle,
                format!("province '{}': owner '{m}' is neither a major nor a minor power", p.id),
            ),
            _ => {}
        }
        if let Some(l) = &p.loyal
            && !s.minors.contains_key(l)
        {
            pr.at(
                pf,
                text(pf),
                &needle,
                format!("province '{}': loyal '{l}' is not a minor power", p.id),
            );
        }
    }
}

/// Sea zones: their adjacencies exist.
fn sea_references(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    let sf = "seas.toml";
    for sea in &map.seas {
        let needle = format!("id = \"{}\"", sea.id);
        for a in &sea.adjacent {
            match map.sea(a) {
                None => pr.at(
                    sf,
                    text(sf),
                    &needle,
                    format!("sea '{}': adjacent '{a}' is not a sea zone", sea.id),
                ),
                Some(q) if !q.adjacent.contains(&sea.id) => pr.at(
                    sf,
                    text(sf),
                    &needle,
                    format!(
                        "sea '{}' lists '{a}' as adjacent but '{a}' does not list '{}'",
                        sea.id, sea.id
                    ),
                ),
                _ => {}
            }
        }
    }
}

/// Crossing arrows: their ends and sea zones exist.
fn arrow_references(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    let af = "arrows.toml";
    for a in &map.arrows {
        let needle = format!("from = \"{}\"", a.from);
        for end in [&a.from, &a.to] {
            if map.province(end).is_none() {
                pr.at(
                    af,
                    text(af),
                    &needle,
                    format!("arrow {}-{}: '{end}' is not a province", a.from, a.to),
                );
            }
        }
        if map.sea(&a.sea).is_none() {
            pr.at(
                af,
                text(af),
                &needle,
                format!("arrow {}-{}: sea '{}' is not a sea zone", a.from, a.to, a.sea),
            );
        }
        if !(1..=2).contains(&a.kind) {
            pr.at(
                af,
                text(af),
                &needle,
                format!("arrow {}-{}: type must be 1 or 2 (12.2.1)", a.from, a.to),
            );
        }
    }
}

/// Every land area reachable from every other by land and arrows,
/// except islands, which must at least touch a sea.
fn land_reachable(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    let pf = "provinces.toml";
    if let Some(first) = map.provinces.first() {
        let mut reach: BTreeSet<&str> = BTreeSet::new();
        let mut q = VecDeque::from([first.id.as_str()]);
        while let Some(c) = q.pop_front() {
            if !reach.insert(c) {
                continue;
            }
            for n in map.land_neighbours(c) {
                q.push_back(n);
            }
            for a in &map.arrows {
                if a.from == c {
                    q.push_back(&a.to);
                } else if a.to == c {
                    q.push_back(&a.from);
                }
            }
        }
        for p in &map.provinces {
            if !reach.contains(p.id.as_str()) && p.seas.is_empty() {
                pr.at(
                    pf,
                    text(pf),
                    &format!("id = \"{}\"", p.id),
                    format!("province '{}' cannot be reached by land, arrow or sea", p.id),
                );
            }
        }
    }
}

/// Powers: every major power is complete and its references exist.
fn power_references(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    let wf = "powers.toml";
    for p in PowerId::ALL {
        let Some(spec) = s.powers.get(&p) else {
            pr.at(wf, text(wf), "[[power]]", format!("power '{p}' is missing"));
            continue;
        };
        let needle = format!("id = \"{p}\"");
        match map.province(&spec.capital) {
            Some(c) if c.owner == Owner::Major(p) && c.capital => {}
            Some(_) => pr.at(
                wf,
                text(wf),
                &needle,
                format!(
                    "power '{p}': capital '{}' is not a capital home province of {p}",
                    spec.capital
                ),
            ),
            None => pr.at(
                wf,
                text(wf),
                &needle,
                format!("power '{p}': capital '{}' is not a province", spec.capital),
            ),
        }
        if s.home_provinces(p).next().is_none() {
            pr.at(wf, text(wf), &needle, format!("power '{p}' has no home provinces"));
        }
        for g in &spec.garrisons {
            if map.province(g).is_none() {
                pr.at(
                    wf,
                    text(wf),
                    &needle,
                    format!("power '{p}': garrison '{g}' is not a province"),
                );
            }
        }
        let mut numbers = BTreeSet::new();
        for c in &spec.corps {
            if !numbers.insert(c.number) {
                pr.at(
                    wf,
                    text(wf),
                    &needle,
                    format!("power '{p}': corps {} is listed twice", c.number),
                );
            }
            if let Some(at) = &c.at
                && map.province(at).is_none()
            {
                pr.at(
                    wf,
                    text(wf),
                    &needle,
                    format!("power '{p}': corps {} at '{at}', which is not a province", c.number),
                );
            }
            // 2.22 and 2.5: three boxes, plus a cavalry division in French corps 1-4.
            let cap = if p == PowerId::France && c.number <= 4 { 4 } else { 3 };
            if c.divisions.len() > cap {
                pr.at(
                    wf,
                    text(wf),
                    &needle,
                    format!(
                        "power '{p}': corps {} has {} divisions, at most {cap} (2.22, 2.5)",
                        c.number,
                        c.divisions.len()
                    ),
                );
            }
        }
        for sq in &spec.squadrons {
            match map.province(&sq.at) {
                Some(pv) if pv.port => {}
                _ => pr.at(
                    wf,
                    text(wf),
                    &needle,
                    format!(
                        "power '{p}': squadron {} at '{}', which is not a port",
                        sq.number, sq.at
                    ),
                ),
            }
        }
        for c in &spec.commanders {
            if let Some(at) = &c.at
                && map.province(at).is_none()
            {
                pr.at(
                    wf,
                    text(wf),
                    &needle,
                    format!("power '{p}': commander {} at '{at}', which is not a province", c.name),
                );
            }
        }
    }
}

/// Minor powers: their corps and references exist.
fn minor_references(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    let mf = "minors.toml";
    for m in s.minors.values() {
        let needle = format!("id = \"{}\"", m.id);
        for c in &m.corps {
            if let Some(at) = &c.at
                && map.province(at).is_none()
            {
                pr.at(
                    mf,
                    text(mf),
                    &needle,
                    format!(
                        "minor '{}': corps {} at '{at}', which is not a province",
                        m.id, c.number
                    ),
                );
            }
        }
        for sq in &m.squadrons {
            match map.province(&sq.at) {
                Some(pv) if pv.port => {}
                _ => pr.at(
                    mf,
                    text(mf),
                    &needle,
                    format!(
                        "minor '{}': squadron {} at '{}', which is not a port",
                        m.id, sq.number, sq.at
                    ),
                ),
            }
        }
        for g in &m.garrisons {
            if map.province(g).is_none() {
                pr.at(
                    mf,
                    text(mf),
                    &needle,
                    format!("minor '{}': garrison '{g}' is not a province", m.id),
                );
            }
        }
    }
    consistency(s, files, pr);
}

/// Checks beyond references: province kinds and owners (2.12), islands,
/// capitals, minor powers' provinces (3.41, 3.42), arrows' seas (12.2.1),
/// garrisons (2.5) and unit numbers.
pub fn consistency(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    province_consistency(s, files, pr);
    sea_consistency(s, files, pr);
    arrow_consistency(s, files, pr);
    minor_consistency(s, files, pr);
    garrison_consistency(s, files, pr);
    setup_consistency(s, files, pr);
}

/// Provinces: islands touch a sea (2.11), home and minor provinces and
/// their owners (2.12), capital flags.
fn province_consistency(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    let pf = "provinces.toml";
    for p in &map.provinces {
        let needle = format!("id = \"{}\"", p.id);
        let mut bad = |msg: String| pr.at(pf, text(pf), &needle, msg);
        // An island (no land neighbour) must touch a sea (2.11).
        if p.adjacent.is_empty() && p.seas.is_empty() {
            bad(format!("province '{}' has no land neighbour and borders no sea", p.id));
        }
        // 2.12 a, e: home provinces belong to a major power.
        if p.kind.is_home() && p.owner.major().is_none() {
            bad(format!(
                "province '{}' is a home province but its owner '{}' is not a major power",
                p.id,
                p.owner.id()
            ));
        }
        // 2.12 e: a remapable home province names the loyal minor it joins.
        if p.kind == ProvinceKind::RemapableHome && p.loyal.is_none() {
            bad(format!(
                "province '{}' is remapable_home but names no loyal minor power (loyal = ...)",
                p.id
            ));
        }
        // 2.12 c: provinces of a minor power are owned by that minor power.
        if p.kind == ProvinceKind::MinorPower {
            let ok =
                matches!(&p.owner, Owner::Minor(m) if s.minors.get(m).is_some_and(|x| x.kind == MinorKind::MinorPower));
            if !ok {
                bad(format!(
                    "province '{}' is minor_power but its owner '{}' is not a minor power of kind minor_power",
                    p.id,
                    p.owner.id()
                ));
            }
        }
        if let Some(l) = &p.loyal
            && s.minors.get(l).is_some_and(|m| m.kind != MinorKind::Loyal)
        {
            bad(format!(
                "province '{}': loyal '{l}' is not a loyal minor power (3.42)",
                p.id
            ));
        }
        // Capital flags: only the capital a power's mat names.
        if p.capital {
            let is_capital = p
                .owner
                .major()
                .and_then(|m| s.powers.get(&m))
                .is_some_and(|m| m.capital == p.id);
            if !is_capital {
                bad(format!(
                    "province '{}' is marked capital but is not the capital of its owner '{}' in powers.toml",
                    p.id,
                    p.owner.id()
                ));
            }
        }
        if p.owner == Owner::None && p.kind != ProvinceKind::Minor {
            bad(format!("province '{}' has no owner, so its kind must be minor", p.id));
        }
    }
}

/// Sea zones: ids unique and well-formed, none adjacent to itself.
fn sea_consistency(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    let sf = "seas.toml";
    let mut seen = BTreeSet::new();
    for sea in &map.seas {
        let needle = format!("id = \"{}\"", sea.id);
        if !seen.insert(sea.id.as_str()) {
            pr.at(sf, text(sf), &needle, format!("sea '{}' is defined twice", sea.id));
        }
        if sea.id.is_empty() || !sea.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            pr.at(
                sf,
                text(sf),
                &needle,
                format!("sea id '{}' must be lowercase ASCII letters and '_'", sea.id),
            );
        }
        if sea.adjacent.contains(&sea.id) {
            pr.at(sf, text(sf), &needle, format!("sea '{}' is adjacent to itself", sea.id));
        }
    }
}

/// 12.2.1: an arrow crosses a sea zone that both its ends border.
fn arrow_consistency(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    let af = "arrows.toml";
    for a in &map.arrows {
        let needle = format!("from = \"{}\"", a.from);
        for end in [&a.from, &a.to] {
            if let Some(p) = map.province(end)
                && map.sea(&a.sea).is_some()
                && !p.seas.contains(&a.sea)
            {
                pr.at(
                    af,
                    text(af),
                    &needle,
                    format!("arrow {}-{}: '{end}' does not border sea '{}'", a.from, a.to, a.sea),
                );
            }
        }
        if a.from == a.to {
            pr.at(
                af,
                text(af),
                &needle,
                format!("arrow {}-{} joins a province to itself", a.from, a.to),
            );
        }
    }
}

/// 3.41, 3.42: every minor power has provinces.
fn minor_consistency(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    let mf = "minors.toml";
    for m in s.minors.values() {
        let needle = format!("id = \"{}\"", m.id);
        let has = match m.kind {
            MinorKind::Loyal => map.provinces.iter().any(|p| p.loyal.as_deref() == Some(m.id.as_str())),
            _ => map.owned_by(&m.id).next().is_some(),
        };
        if !has {
            let how = if m.kind == MinorKind::Loyal {
                "no province names it as loyal"
            } else {
                "it owns no province"
            };
            pr.at(
                mf,
                text(mf),
                &needle,
                format!("minor '{}' has no provinces: {how}", m.id),
            );
        }
        numbers(
            pr,
            mf,
            text(mf),
            &needle,
            &m.id,
            m.corps.iter().map(|c| c.number),
            "corps",
        );
        numbers(
            pr,
            mf,
            text(mf),
            &needle,
            &m.id,
            m.squadrons.iter().map(|c| c.number),
            "squadron",
        );
        // 2.22: minor corps hold at most three divisions.
        for c in &m.corps {
            if c.divisions.len() > 3 {
                pr.at(
                    mf,
                    text(mf),
                    &needle,
                    format!(
                        "minor '{}': corps {} has {} divisions, at most 3 (2.22)",
                        m.id,
                        c.number,
                        c.divisions.len()
                    ),
                );
            }
        }
    }
}

/// 2.5: a province holds at most one garrison at start, never in the
/// garrisoning power's own home.
fn garrison_consistency(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    let mf = "minors.toml";
    let wf = "powers.toml";
    let mut garrisoned: BTreeSet<&str> = BTreeSet::new();
    for spec in s.powers.values() {
        let needle = format!("id = \"{}\"", spec.id);
        for g in &spec.garrisons {
            if !garrisoned.insert(g.as_str()) {
                pr.at(
                    wf,
                    text(wf),
                    &needle,
                    format!("province '{g}' is garrisoned twice at start"),
                );
            }
            if map
                .province(g)
                .is_some_and(|p| p.kind.is_home() && p.owner == Owner::Major(spec.id))
            {
                pr.at(
                    wf,
                    text(wf),
                    &needle,
                    format!(
                        "power '{}': garrison '{g}' is its own home province (2.23: home provinces use their intrinsic garrison)",
                        spec.id
                    ),
                );
            }
        }
        numbers(
            pr,
            wf,
            text(wf),
            &needle,
            spec.id.id(),
            spec.squadrons.iter().map(|c| c.number),
            "squadron",
        );
        if spec.commanders.iter().filter(|c| c.primary).count() != 1 {
            pr.at(
                wf,
                text(wf),
                &needle,
                format!("power '{}' must have exactly one primary commander (2.24)", spec.id),
            );
        }
        for c in &spec.corps {
            if c.at.is_none() && c.arrives.is_some() {
                pr.at(
                    wf,
                    text(wf),
                    &needle,
                    format!(
                        "power '{}': corps {} arrives later but names no province to arrive in (at = ...)",
                        spec.id, c.number
                    ),
                );
            }
        }
    }
    for m in s.minors.values() {
        let needle = format!("id = \"{}\"", m.id);
        for g in &m.garrisons {
            if !garrisoned.insert(g.as_str()) {
                pr.at(
                    mf,
                    text(mf),
                    &needle,
                    format!("province '{g}' is garrisoned twice at start"),
                );
            }
        }
    }
}

/// 3.2, 3.3: units set up in their own provinces (owned, or garrisoned
/// at start); a squadron in a port among them.
fn setup_consistency(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
    let wf = "powers.toml";
    let mf = "minors.toml";
    for spec in s.powers.values() {
        let needle = format!("id = \"{}\"", spec.id);
        let own = |at: &str| {
            map.province(at).is_none_or(|p| p.owner == Owner::Major(spec.id)) || spec.garrisons.iter().any(|g| g == at)
        };
        let places = spec
            .corps
            .iter()
            .filter_map(|c| c.at.as_deref().map(|a| (format!("corps {}", c.number), a)))
            .chain(
                spec.squadrons
                    .iter()
                    .map(|q| (format!("squadron {}", q.number), q.at.as_str())),
            )
            .chain(
                spec.commanders
                    .iter()
                    .filter_map(|c| c.at.as_deref().map(|a| (format!("commander {}", c.name), a))),
            );
        for (what, at) in places {
            if !own(at) {
                pr.at(
                    wf,
                    text(wf),
                    &needle,
                    format!(
                        "power '{}': {what} starts in '{at}', which is neither its own nor garrisoned by it",
                        spec.id
                    ),
                );
            }
        }
    }
    for m in s.minors.values() {
        let needle = format!("id = \"{}\"", m.id);
        let own = |at: &str| {
            map.province(at).is_none_or(|p| p.owner == Owner::Minor(m.id.clone()))
                || m.garrisons.iter().any(|g| g == at)
        };
        let places = m
            .corps
            .iter()
            .filter_map(|c| c.at.as_deref().map(|a| (format!("corps {}", c.number), a)))
            .chain(
                m.squadrons
                    .iter()
                    .map(|q| (format!("squadron {}", q.number), q.at.as_str())),
            );
        for (what, at) in places {
            if !own(at) {
                pr.at(
                    mf,
                    text(mf),
                    &needle,
                    format!(
                        "minor '{}': {what} starts in '{at}', which is not one of its provinces",
                        m.id
                    ),
                );
            }
        }
    }
}

/// Report unit numbers used twice.
fn numbers(
    pr: &mut Problems,
    file: &str,
    text: Option<&str>,
    needle: &str,
    owner: &str,
    nums: impl Iterator<Item = u32>,
    what: &str,
) {
    let mut seen = BTreeSet::new();
    for n in nums {
        if !seen.insert(n) {
            pr.at(file, text, needle, format!("'{owner}': {what} {n} is listed twice"));
        }
    }
}

/// The map pictures' geometry: positions on the globe, for every province
/// and sea zone or for none; water points only with a position; polygons
/// of three or more points that hold their own position; no two places at
/// one point (their Voronoi cells would be undefined); a provenance.
pub fn geometry(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let map = &s.map;
    let any = map.provinces.iter().any(|p| p.pos.is_some()) || map.seas.iter().any(|z| z.pos.is_some());
    let (pf, sf) = ("provinces.toml", "seas.toml");
    let text = |f: &str| files.get(f).map(String::as_str);
    // file, what, id, position, water points, polygon
    type Place<'a> = (&'a str, &'a str, &'a str, Option<LonLat>, &'a [LonLat], &'a [LonLat]);
    let mut places: Vec<Place> = Vec::new();
    for p in &map.provinces {
        places.push((pf, "province", &p.id, p.pos, &[], &p.polygon));
    }
    // off-board areas (12.2.7.1) are not drawn: they take no position
    for z in map.seas.iter().filter(|z| !z.is_off_board()) {
        places.push((sf, "sea zone", &z.id, z.pos, &z.water, &z.polygon));
    }
    let mut seen: Vec<(LonLat, &str)> = Vec::new();
    for (file, what, id, pos, water, polygon) in places {
        let needle = format!("id = \"{id}\"");
        let mut bad = |m: String| pr.at(file, text(file), &needle, m);
        let Some(pos) = pos else {
            if any {
                bad(format!(
                    "{what} '{id}' has no pos = [longitude, latitude]: give every province and sea zone a position, or none"
                ));
            }
            if !water.is_empty() || !polygon.is_empty() {
                bad(format!("{what} '{id}' has water points or a polygon but no pos"));
            }
            continue;
        };
        for (k, pt) in std::iter::once(&pos).chain(water).chain(polygon).enumerate() {
            if !on_globe(*pt) {
                let which = if k == 0 {
                    "pos".to_string()
                } else {
                    format!("point {pt:?}")
                };
                bad(format!(
                    "{what} '{id}': {which} is not [longitude -180..180, latitude -90..90]"
                ));
            }
        }
        if !polygon.is_empty() {
            if polygon.len() < 3 {
                bad(format!("{what} '{id}': a polygon needs at least 3 points"));
            } else if !inside(pos, polygon) {
                bad(format!("{what} '{id}': pos {pos:?} lies outside its own polygon"));
            }
        }
        for pt in std::iter::once(pos).chain(water.iter().copied()) {
            if let Some((_, other)) = seen.iter().find(|(q, _)| *q == pt) {
                bad(format!("{what} '{id}': point {pt:?} is also a point of '{other}'"));
            }
            seen.push((pt, id));
        }
    }
    if any && s.geometry_source.is_none() {
        pr.at(
            pf,
            text(pf),
            "source",
            "the map has positions but no geometry_source = \"house: …\" saying where they come from",
        );
    }
}

fn on_globe([lon, lat]: LonLat) -> bool {
    lon.is_finite() && lat.is_finite() && (-180.0..=180.0).contains(&lon) && (-90.0..=90.0).contains(&lat)
}

/// Even-odd rule.
fn inside([x, y]: LonLat, polygon: &[LonLat]) -> bool {
    let mut c = false;
    let n = polygon.len();
    for i in 0..n {
        let [xi, yi] = polygon[i];
        let [xj, yj] = polygon[(i + n - 1) % n];
        if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
            c = !c;
        }
    }
    c
}
