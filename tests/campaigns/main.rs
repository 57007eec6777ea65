//! Long campaigns played end to end (issue 36): kept out of the `it`
//! binary so that a mutant's test run stays short. `cargo test` runs them;
//! the mutation sample does not. Run one with `cargo test --test campaigns NAME::`.

mod campaign;
mod campaign_mail;
mod campaign_naval;
mod campaign_political;
