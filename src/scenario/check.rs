//! Consistency checks of a loaded scenario: every reference resolves,
//! adjacency is symmetric, every land area is reachable, every power is
//! complete. Run by [`super::Scenario::load`] and `empereur scenario check`.

use super::{Problems, Scenario, ScenarioFiles};
use crate::ids::PowerId;
use crate::map::Owner;
use std::collections::{BTreeSet, VecDeque};

pub fn references(s: &Scenario, files: &ScenarioFiles, pr: &mut Problems) {
    let text = |f: &str| files.get(f).map(String::as_str);
    let map = &s.map;
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
    // Every land area reachable from every other by land and arrows,
    // except islands, which must at least touch a sea.
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
}
