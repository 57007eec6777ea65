//! Long runs played end to end (issue 36): the campaigns and the README's
//! demo, kept out of the `it` binary so that a mutant's test run stays
//! short. `cargo test` runs a quick sample of each; `EMPEREUR_LONG=1`
//! runs every seed. The mutation sample runs none of them. Run one with
//! `cargo test --test campaigns NAME::`.

/// Whether to run every seed of a campaign test (`EMPEREUR_LONG=1`), not
/// only the first.
#[allow(clippy::disallowed_methods)] // a test switch read from the environment
fn long() -> bool {
    std::env::var("EMPEREUR_LONG").is_ok_and(|v| v == "1")
}

/// The seeds a campaign test plays: all of them with `EMPEREUR_LONG=1`,
/// else the first `quick`.
fn seeds<T: Copy>(all: &[T], quick: usize) -> Vec<T> {
    if long() {
        all.to_vec()
    } else {
        all[..quick.min(all.len())].to_vec()
    }
}

mod campaign;
mod campaign_mail;
mod campaign_naval;
mod campaign_political;
mod demo;
