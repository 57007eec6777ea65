//! The benchmarks' switch that leaves pictures out of mail
//! (`picture::skip_for_bench`). In a binary of its own: the switch is
//! process-wide, and the other picture tests draw in parallel.

use empereur::picture;
use empereur::scenario::Scenario;

#[test]
fn mail_carries_pictures_only_with_geometry_and_the_switch_on() {
    let scenario = Scenario::embedded("1805").expect("embedded scenario loads");
    assert!(picture::wanted(&scenario.map), "the 1805 map has geometry");

    picture::skip_for_bench(true);
    assert!(!picture::wanted(&scenario.map), "switched off by a benchmark");
    picture::skip_for_bench(false);
    assert!(picture::wanted(&scenario.map), "switched on again");

    let mut bare = scenario.map.clone();
    bare.provinces[0].pos = None;
    assert!(!picture::wanted(&bare), "a province without a position: no picture");
}
