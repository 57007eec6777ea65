//! Coordinates written with one decimal, as `format!("{v:.1}")` writes
//! them, without the general float formatting: the pictures write tens of
//! thousands of coordinates, and `{:.1}` was a third of the time of a
//! game's site (callgrind).

use std::fmt;

/// `v` with one decimal: the tenth nearest to the float's exact value, a
/// tie to the even tenth, and a `-` before a negative value even when it
/// rounds to `0.0`; the same text as `format!("{v:.1}")`.
#[derive(Clone, Copy, Debug)]
pub struct D1(pub f64);

impl fmt::Display for D1 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(n) = tenths(self.0) else {
            return write!(f, "{:.1}", self.0);
        };
        if self.0.is_sign_negative() {
            f.write_str("-")?;
        }
        let m = n.unsigned_abs();
        f.write_str(itoa::Buffer::new().format(m / 10))?;
        let digit = [b'.', b'0' + (m % 10) as u8];
        f.write_str(std::str::from_utf8(&digit).map_err(|_| fmt::Error)?)
    }
}

/// The exact value of `v` times ten, rounded to the nearest integer, a tie
/// to the even one; `None` for a value too large to be sure of (or not a
/// number).
fn tenths(v: f64) -> Option<i64> {
    if v.is_nan() || v.abs() >= (1u64 << 48) as f64 {
        return None;
    }
    // v * 10 = v * 8 + v * 2, both exact; `s + lo` is their exact sum
    // (Knuth's two-sum), of which `s` is the nearest float.
    let (a, b) = (v * 8.0, v * 2.0);
    let s = a + b;
    let bb = s - a;
    let lo = (a - (s - bb)) + (b - bb);
    let k = s.floor();
    // Below 2^52 `k + 0.5` is a float, so `s` lies on the same side of it
    // as the exact sum, or on it when the sum is there or beside it: then
    // `lo`, what `s` missed, says which side, and a zero `lo` a tie.
    let half = k + 0.5;
    let up = if s != half {
        s > half
    } else if lo != 0.0 {
        lo > 0.0
    } else {
        k % 2.0 != 0.0
    };
    Some(k as i64 + i64::from(up))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(v: f64) {
        assert_eq!(D1(v).to_string(), format!("{v:.1}"), "{v:e}");
    }

    #[test]
    fn writes_what_the_float_formatting_writes() {
        // ties (exact halves of a tenth), near ties and signs
        for k in -4000..4000 {
            let v = k as f64 / 20.0;
            same(v);
            same(f64::from_bits(v.to_bits() + 1));
            same(f64::from_bits(v.to_bits().saturating_sub(1)));
        }
        for v in [
            0.0,
            -0.0,
            -0.04,
            -0.05,
            0.05,
            0.15,
            0.35,
            0.45,
            1e14 + 0.25,
            2.5e14,
            3e15,
            1e300,
            f64::NAN,
            f64::INFINITY,
        ] {
            same(v);
        }
        // the picture's range, by a fixed sequence (no clock, no entropy)
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = (x >> 11) as f64 / (1u64 << 53) as f64 * 4000.0 - 1000.0;
            same(v);
            // and any magnitude up to where the shortcut stops and past it
            let e = (x % 70) as i32 - 20;
            same((v / 1000.0) * 2f64.powi(e));
        }
    }
}
