//! Passwords: stored only as argon2id PHC strings with a random salt;
//! checked in constant time.
//!
//! New hashes use argon2id with 7 MiB of memory and 5 passes (see
//! [`params`]); a stored hash carries its own parameters, and is checked
//! with them.
//!
//! Argon2 needs a block buffer of its memory size per hash. Allocating one per check
//! makes peak memory grow with the number of checks (the allocator keeps
//! freed buffers of that size mapped), so a [`Hasher`] owns one buffer
//! and reuses it for every hash and every check of a run.

use argon2::password_hash::{Output, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};

/// One reusable argon2 block buffer.
#[derive(Default)]
pub struct Hasher {
    blocks: Vec<Block>,
}

impl Hasher {
    pub fn new() -> Hasher {
        Hasher::default()
    }

    fn blocks(&mut self, params: &Params) -> &mut [Block] {
        let n = params.block_count();
        if self.blocks.len() < n {
            self.blocks = crate::big::vec(n, Block::default());
        }
        &mut self.blocks[..n]
    }

    /// Hash a password with a fresh salt from the OS (argon2id, with
    /// [`params`]).
    pub fn hash(&mut self, password: &str) -> anyhow::Result<String> {
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(|e| anyhow::anyhow!("no OS randomness: {e}"))?;
        let salt_b64 = SaltString::encode_b64(&salt).map_err(|e| anyhow::anyhow!("salt: {e}"))?;
        let params = params()?;
        let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
        let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
        argon
            .hash_password_into_with_memory(password.as_bytes(), &salt, &mut out, self.blocks(&params))
            .map_err(|e| anyhow::anyhow!("cannot hash password: {e}"))?;
        let phc = PasswordHash {
            algorithm: Algorithm::Argon2id.ident(),
            version: Some(Version::V0x13.into()),
            params: (&params)
                .try_into()
                .map_err(|e| anyhow::anyhow!("argon2 parameters: {e}"))?,
            salt: Some(salt_b64.as_salt()),
            hash: Some(Output::new(&out).map_err(|e| anyhow::anyhow!("argon2 output: {e}"))?),
        };
        Ok(phc.to_string())
    }

    /// Whether `password` matches the stored PHC string.
    pub fn verify(&mut self, password: &str, stored: &str) -> bool {
        let mut salt_buf = [0u8; 64];
        let Ok(Stored {
            alg,
            version,
            params,
            salt,
            expected,
        }) = parse_stored(stored, &mut salt_buf)
        else {
            return false;
        };
        let argon = Argon2::new(alg, version, params.clone());
        let mut out = vec![0u8; expected.len()];
        if argon
            .hash_password_into_with_memory(password.as_bytes(), salt, &mut out, self.blocks(&params))
            .is_err()
        {
            return false;
        }
        // `Output`'s equality is constant-time.
        Output::new(&out).is_ok_and(|o| o == expected)
    }
}

/// A stored PHC string, read into what a check needs.
struct Stored<'a> {
    alg: Algorithm,
    version: Version,
    params: Params,
    salt: &'a [u8],
    expected: Output,
}

/// Read a stored PHC string; `Err` says what is wrong with it.
fn parse_stored<'a>(stored: &str, salt_buf: &'a mut [u8; 64]) -> Result<Stored<'a>, String> {
    let h = PasswordHash::new(stored).map_err(|e| format!("not a PHC hash string ({e})"))?;
    let alg = Algorithm::try_from(h.algorithm).map_err(|_| format!("'{}' is not an argon2 algorithm", h.algorithm))?;
    let version = match h.version.map(Version::try_from) {
        None => Version::default(),
        Some(Ok(v)) => v,
        Some(Err(_)) => return Err("its argon2 version is unknown".into()),
    };
    let params = Params::try_from(&h).map_err(|e| format!("its argon2 parameters are invalid ({e})"))?;
    let (Some(salt), Some(expected)) = (h.salt, h.hash) else {
        return Err("it has no salt or no hash".into());
    };
    let salt = salt
        .decode_b64(salt_buf)
        .map_err(|e| format!("its salt is not base64 ({e})"))?;
    Ok(Stored {
        alg,
        version,
        params,
        salt,
        expected,
    })
}

/// Whether `stored` is a password hash a check can use (an argon2 PHC
/// string with salt and hash), or what is wrong with it: a hand edit
/// that breaks it is refused on load, not found at the first login.
pub fn check_stored(stored: &str) -> Result<(), String> {
    let mut salt_buf = [0u8; 64];
    parse_stored(stored, &mut salt_buf).map(|_| ())
}

/// The parameters of new hashes: argon2id, 7 MiB, 5 passes, one lane.
/// OWASP's password storage cheat sheet lists five settings as the same
/// defence, trading memory for passes at about the same cost in time:
/// 46 MiB and 1 pass, 19 MiB and 2 (the argon2 crate's default), 12 MiB
/// and 3, 9 MiB and 4, 7 MiB and 5. This is the last: the buffer is held
/// while the rest of a run is resident (its code, state, mail), and a
/// password check is `demo`'s peak once the map is painted in bands
/// (issue 37), so 5 MiB less of it is 5 MiB less at the run's peak.
pub fn params() -> anyhow::Result<Params> {
    Params::new(7 * 1024, 5, 1, Some(Params::DEFAULT_OUTPUT_LEN)).map_err(|e| anyhow::anyhow!("argon2 parameters: {e}"))
}

/// Hash a password with a fresh salt from the OS.
pub fn hash(password: &str) -> anyhow::Result<String> {
    Hasher::new().hash(password)
}

/// Whether `password` matches the stored hash.
pub fn verify(password: &str, stored: &str) -> bool {
    Hasher::new().verify(password, stored)
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::password_hash::PasswordHasher;

    #[test]
    fn hashes_verify_and_differ_by_salt() {
        let mut h = Hasher::new();
        let a = h.hash("secret").unwrap();
        let b = h.hash("secret").unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with("$argon2id$v=19$m=7168,t=5,p=1$"), "{a}");
        assert!(h.verify("secret", &a));
        assert!(!h.verify("Secret", &a));
        assert!(!h.verify("secret", "not a hash"));
        assert_eq!(check_stored(&a), Ok(()));
        for bad in [
            "nonsense",
            "",
            "$argon2id$v=19$m=12288,t=3,p=1$",
            "$md5$abc$def",
            "$argon2id$v=19$m=12288,t=3,p=1$c2FsdHNhbHQ",
        ] {
            assert!(check_stored(bad).is_err(), "{bad}");
        }
        assert!(super::verify("secret", &b));
    }

    #[test]
    fn hashes_of_the_argon2_crate_itself_verify_and_ours_parse_there() {
        let salt = SaltString::encode_b64(b"0123456789abcdef").unwrap();
        let theirs = Argon2::default().hash_password(b"pw", &salt).unwrap().to_string();
        let mut h = Hasher::new();
        assert!(h.verify("pw", &theirs));
        assert!(!h.verify("pW", &theirs));
        let ours = h.hash("pw").unwrap();
        use argon2::password_hash::PasswordVerifier;
        assert!(
            Argon2::default()
                .verify_password(b"pw", &PasswordHash::new(&ours).unwrap())
                .is_ok()
        );
    }
}
