//! What clap needs beyond the options structs. Each command's options are
//! defined once, in its `ops::` module, and read by clap through a derive
//! switched on by the `cli` feature (`cfg_attr`), so `ops` compiles
//! without clap and a flag is never declared twice. The pure core's types
//! a flag names are mapped here instead of deriving clap's traits there.

use crate::autoplay::balance::Policy;
use clap::builder::PossibleValue;

/// `--policy` of `empereur balance`.
impl clap::ValueEnum for Policy {
    fn value_variants<'a>() -> &'a [Self] {
        &[Policy::Passive, Policy::Active, Policy::Mixed]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let help = match self {
            Policy::Passive => "Nobody orders anything: the defaults of every phase only (peaceful accrual, 4.23)",
            Policy::Active => "Every power orders what the autoplay generator proposes",
            Policy::Mixed => "Each power is active or passive, chosen per campaign from its seed",
        };
        Some(PossibleValue::new(self.id()).help(help))
    }
}
