//! From the scenario's positions to shapes on the page: the projection,
//! and the regions as Voronoi cells of every province position and every
//! sea point, so land is whatever lies nearer a province than any water
//! and the coasts fall out of the data. A province with a traced polygon
//! is drawn with it instead of its cell.

use super::Memo;
use crate::map::{LonLat, Map};
use std::sync::Arc;

/// A point on the page, in pixels.
pub type Pt = (f64, f64);

/// Equirectangular projection with the longitude scaled by the cosine of
/// the middle latitude: straight, quick, and true enough for Europe.
#[derive(Clone, Debug)]
pub struct Projection {
    lon_min: f64,
    lat_max: f64,
    kx: f64,
    scale: f64,
    top: f64,
    /// Size of the map area in pixels.
    pub width: f64,
    pub height: f64,
}

impl Projection {
    /// Fit every position, water point and polygon point of the map, with a
    /// margin, into `width` pixels; the map area starts `top` pixels down.
    pub fn fit(map: &Map, width: f64, top: f64) -> Option<Projection> {
        let pts: Vec<LonLat> = map
            .provinces
            .iter()
            .flat_map(|p| p.pos.iter().chain(&p.polygon))
            .chain(
                map.seas
                    .iter()
                    .flat_map(|z| z.pos.iter().chain(&z.water).chain(&z.polygon)),
            )
            .copied()
            .collect();
        if pts.is_empty() {
            return None;
        }
        let (mut lon_min, mut lon_max, mut lat_min, mut lat_max) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for [lon, lat] in &pts {
            lon_min = lon_min.min(*lon);
            lon_max = lon_max.max(*lon);
            lat_min = lat_min.min(*lat);
            lat_max = lat_max.max(*lat);
        }
        let margin = 0.8;
        let (lon_min, lon_max) = (lon_min - margin, lon_max + margin);
        let (lat_min, lat_max) = (lat_min - margin, lat_max + margin);
        let kx = ((lat_min + lat_max) / 2.0).to_radians().cos();
        let scale = width / ((lon_max - lon_min) * kx);
        Some(Projection {
            lon_min,
            lat_max,
            kx,
            scale,
            top,
            width,
            height: (lat_max - lat_min) * scale,
        })
    }

    pub fn xy(&self, [lon, lat]: LonLat) -> Pt {
        (
            (lon - self.lon_min) * self.kx * self.scale,
            self.top + (self.lat_max - lat) * self.scale,
        )
    }

    /// Pixels per degree of latitude.
    pub fn scale(&self) -> f64 {
        self.scale
    }
}

/// What a Voronoi site stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    /// A province, by its index in `map.provinces`.
    Land(usize),
    /// A point of a sea zone, by the zone's index in `map.seas`.
    Sea(usize),
}

/// A convex region; `across[i]` is the site on the other side of the
/// edge from `points[i]` to `points[i + 1]` (`None` on the frame).
#[derive(Clone, Debug)]
pub struct Cell {
    pub site: Site,
    pub points: Vec<Pt>,
    pub across: Vec<Option<usize>>,
}

/// Every region of the map on the page: one cell per site, in site order.
pub struct Regions {
    pub sites: Vec<(Site, Pt)>,
    pub cells: Vec<Cell>,
}

impl Regions {
    /// The regions of `map` on the page. Every picture of a game draws the
    /// same regions, so they are computed once per process for each set of
    /// sites and frame (compared exactly, so a changed map never reuses a
    /// stale cell).
    pub fn new(map: &Map, proj: &Projection) -> Arc<Regions> {
        type Key = (Vec<(Site, Pt)>, [Pt; 4]);
        static CACHE: Memo<Key, Arc<Regions>> = Memo::new();
        let made: Result<_, std::convert::Infallible> = CACHE.get_or(Regions::sites(map, proj), |(sites, frame)| {
            Ok(Arc::new(Regions {
                sites: sites.clone(),
                cells: (0..sites.len()).map(|i| voronoi_cell(sites, i, frame)).collect(),
            }))
        });
        match made {
            Ok(r) => r,
        }
    }

    fn sites(map: &Map, proj: &Projection) -> (Vec<(Site, Pt)>, [Pt; 4]) {
        let mut sites: Vec<(Site, Pt)> = Vec::new();
        for (i, p) in map.provinces.iter().enumerate() {
            if let Some(pos) = p.pos {
                sites.push((Site::Land(i), proj.xy(pos)));
            }
        }
        for (i, z) in map.seas.iter().enumerate() {
            for pos in z.pos.iter().chain(&z.water) {
                sites.push((Site::Sea(i), proj.xy(*pos)));
            }
        }
        let frame = [
            (0.0, proj.top),
            (proj.width, proj.top),
            (proj.width, proj.top + proj.height),
            (0.0, proj.top + proj.height),
        ];
        (sites, frame)
    }
}

/// The cell of site `i`: the frame cut by the half-plane of every other
/// site, nearest first, stopping once no farther site can reach the cell.
fn voronoi_cell(sites: &[(Site, Pt)], i: usize, frame: &[Pt; 4]) -> Cell {
    let a = sites[i].1;
    let mut poly: Vec<(Pt, Option<usize>)> = frame.iter().map(|&p| (p, None)).collect();
    let mut others: Vec<(f64, usize)> = (0..sites.len())
        .filter(|&j| j != i)
        .map(|j| (dist2(a, sites[j].1), j))
        .collect();
    others.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    for (d2, j) in others {
        let reach = poly.iter().map(|(p, _)| dist2(a, *p)).fold(0.0, f64::max);
        // A site twice as far as the farthest corner cannot cut the cell.
        if d2 > 4.0 * reach {
            break;
        }
        poly = clip(&poly, a, sites[j].1, j);
        if poly.is_empty() {
            break;
        }
    }
    Cell {
        site: sites[i].0,
        points: poly.iter().map(|(p, _)| *p).collect(),
        across: poly.iter().map(|(_, l)| *l).collect(),
    }
}

fn dist2(a: Pt, b: Pt) -> f64 {
    (a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)
}

/// Keep the part of a convex polygon nearer `a` than `b`; the new edge
/// along the bisector is labelled `j`.
fn clip(poly: &[(Pt, Option<usize>)], a: Pt, b: Pt, j: usize) -> Vec<(Pt, Option<usize>)> {
    let m = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
    let n = (b.0 - a.0, b.1 - a.1);
    let side = |p: Pt| (p.0 - m.0) * n.0 + (p.1 - m.1) * n.1;
    let mut out = Vec::with_capacity(poly.len() + 1);
    for k in 0..poly.len() {
        let (p, label) = poly[k];
        let (q, _) = poly[(k + 1) % poly.len()];
        let (sp, sq) = (side(p), side(q));
        let cut = || {
            let t = sp / (sp - sq);
            (p.0 + t * (q.0 - p.0), p.1 + t * (q.1 - p.1))
        };
        match (sp <= 0.0, sq <= 0.0) {
            (true, true) => out.push((p, label)),
            (true, false) => {
                out.push((p, label));
                out.push((cut(), Some(j)));
            }
            (false, true) => out.push((cut(), label)),
            (false, false) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_sites_split_the_frame_on_the_bisector() {
        let sites = vec![(Site::Land(0), (25.0, 50.0)), (Site::Sea(0), (75.0, 50.0))];
        let frame = [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)];
        let c = voronoi_cell(&sites, 0, &frame);
        let xs: Vec<f64> = c.points.iter().map(|p| p.0).collect();
        assert!(xs.iter().all(|&x| x <= 50.0 + 1e-9), "{xs:?}");
        assert_eq!(c.across.iter().filter(|l| **l == Some(1)).count(), 1);
        let area: f64 = (0..c.points.len())
            .map(|k| {
                let (p, q) = (c.points[k], c.points[(k + 1) % c.points.len()]);
                p.0 * q.1 - q.0 * p.1
            })
            .sum::<f64>()
            .abs()
            / 2.0;
        assert!((area - 5000.0).abs() < 1e-6, "{area}");
    }

    #[test]
    fn a_site_ringed_by_water_is_an_island() {
        let mut sites = vec![(Site::Land(0), (50.0, 50.0))];
        for k in 0..6 {
            let t = k as f64 * std::f64::consts::PI / 3.0;
            sites.push((Site::Sea(0), (50.0 + 10.0 * t.cos(), 50.0 + 10.0 * t.sin())));
        }
        let frame = [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0), (0.0, 100.0)];
        let c = voronoi_cell(&sites, 0, &frame);
        assert_eq!(c.points.len(), 6);
        assert!(c.across.iter().all(|l| l.is_some_and(|j| sites[j].0 == Site::Sea(0))));
    }
}
