//! The written names of the closed vocabularies a user reads (outcome
//! kinds, problem codes): strum derives each name once from the variant,
//! serde writes the same kebab-case name into history files and JSON, and
//! [`written_names!`] gives the enum its `as_str` and `Display` from it.

/// `as_str` and `Display` for an enum deriving `strum::IntoStaticStr`:
/// one name per variant, the same one serde writes.
macro_rules! written_names {
    ($t:ty, $doc:literal) => {
        impl $t {
            #[doc = $doc]
            pub fn as_str(self) -> &'static str {
                self.into()
            }
        }

        impl ::std::fmt::Display for $t {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use written_names;

/// Every variant of `T` is written by serde under its `Display` name and
/// read back from it: a variant whose serde and strum names drift apart
/// would load an old history file as something else.
#[cfg(test)]
pub(crate) fn assert_names_round_trip<T>()
where
    T: strum::VariantArray + Copy + std::fmt::Display + std::fmt::Debug + PartialEq,
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    for &v in T::VARIANTS {
        let json = serde_json::to_string(&v).unwrap();
        assert_eq!(json, format!("\"{v}\""));
        assert_eq!(serde_json::from_str::<T>(&json).unwrap(), v);
    }
}
