//! Where a key of a TOML file is: the line a load-time error names, so a
//! hand-edited `game.toml` or `state.toml` is refused with the place to
//! look, not only the key.

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// The 1-based line of `key` in `text`: a dotted path whose parts may
/// carry an index into an array of tables (`powers.france.gold`,
/// `corps[3].location`, `player[1].email`). When the path does not go
/// all the way down, the line of its deepest part found; `None` when
/// not even the first part is there (or the text is not TOML).
pub fn key_line(text: &str, key: &str) -> Option<usize> {
    let doc = DeTable::parse(text).ok()?;
    let mut table: &DeTable<'_> = doc.get_ref();
    let mut found: Option<usize> = None;
    for part in key.split('.') {
        let (name, index) = split_index(part);
        let Some((k, v)) = table.iter().find(|(k, _)| k.get_ref().as_ref() == name) else {
            break;
        };
        found = Some(k.span().start);
        let mut value: &Spanned<DeValue<'_>> = v;
        if let Some(i) = index {
            let DeValue::Array(items) = value.get_ref() else {
                break;
            };
            let Some(item) = items.get(i) else {
                break;
            };
            found = Some(item.span().start);
            value = item;
        }
        match value.get_ref() {
            DeValue::Table(t) => table = t,
            _ => {
                found = Some(if index.is_some() {
                    value.span().start
                } else {
                    k.span().start
                });
                break;
            }
        }
    }
    found.map(|at| line_of(text, at))
}

/// `corps[3]` -> (`corps`, Some(3)); `gold` -> (`gold`, None).
fn split_index(part: &str) -> (&str, Option<usize>) {
    match part.strip_suffix(']').and_then(|p| p.split_once('[')) {
        Some((name, i)) => match i.parse() {
            Ok(i) => (name, Some(i)),
            Err(_) => (part, None),
        },
        None => (part, None),
    }
}

fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// `FILE:LINE: KEY: MESSAGE`, or `FILE: KEY: MESSAGE` when the key is not
/// in the file (a missing table).
pub fn locate(file: &str, text: &str, key: &str, message: &str) -> String {
    match key_line(text, key) {
        Some(l) => format!("{file}:{l}: {key}: {message}"),
        None => format!("{file}: {key}: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::key_line;

    const TEXT: &str = "format = 1\n\n[powers.france]\ngold = 45\nvp = 100\n\n[[corps]]\nnation = \"france\"\nlocation = \"paris\"\n\n[[corps]]\nnation = \"austria\"\nlocation = \"vienna\"\n\n[[corps.divisions]]\narm = \"infantry\"\n";

    #[test]
    fn keys_are_found_on_their_lines() {
        assert_eq!(key_line(TEXT, "format"), Some(1));
        assert_eq!(key_line(TEXT, "powers.france.gold"), Some(4));
        assert_eq!(key_line(TEXT, "powers.france.vp"), Some(5));
        assert_eq!(key_line(TEXT, "corps[0].location"), Some(9));
        assert_eq!(key_line(TEXT, "corps[1].location"), Some(13));
        assert_eq!(key_line(TEXT, "corps[1].divisions[0].arm"), Some(16));
        // Not all the way down: the deepest part that is there.
        assert_eq!(key_line(TEXT, "powers.france.debt"), Some(3));
        assert_eq!(key_line(TEXT, "nothing.here"), None);
        assert_eq!(key_line("not = toml = at all", "x"), None);
    }
}
