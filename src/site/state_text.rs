//! A quick reader of the state files the program writes, for the site,
//! which reads every state of a campaign (234 of them, 13 MB of TOML):
//! the TOML parser builds a spanned document of every file before its
//! values are read, and that was a third of a site's instructions.
//!
//! [`parse`] reads only the small part of TOML that `State::to_toml`
//! writes (a line per key or table header; bare keys; basic and literal
//! strings on one line, integers, booleans and arrays of them on one
//! line) into a [`toml::Table`], read as the state by the TOML
//! crate's own deserializer. Anything else in the text (a comment, a
//! quoted or dotted key, a float, a date, a table inline or over several
//! lines, a key or table given twice) is `None`, and [`state`] then
//! reads the text with `State::from_toml`, which reads all of TOML and
//! names what is wrong. So a state is read as `State::from_toml` reads
//! it, or not at all (tested on every state of a played game).

use crate::state::State;
use std::collections::HashSet;
use toml::{Table, Value};

/// The state `text` holds, as `State::from_toml` reads it.
pub fn state(text: &str) -> Option<State> {
    quick(text).or_else(|| State::from_toml(text).ok())
}

/// The state read by [`parse`], if the text is in its part of TOML.
pub fn quick(text: &str) -> Option<State> {
    let mut table = parse(text)?;
    // as State::from_toml: the format, taken out, then the state
    match table.remove("format")? {
        Value::Integer(n) if n == i64::from(crate::state::FORMAT) => {}
        _ => return None,
    }
    Value::Table(table).try_into::<State>().ok()
}

/// The `T` a TOML text holds (the outcomes of an entry), read as
/// [`state`] reads a state: by [`parse`], else by the full parser.
pub fn read<T: serde::de::DeserializeOwned>(text: &str) -> Option<T> {
    parse(text)
        .and_then(|t| Value::Table(t).try_into::<T>().ok())
        .or_else(|| toml::from_str(text).ok())
}

/// Where the lines of the table being read go: a path of keys from the
/// root, each into a table or into the last table of an array of tables.
fn table_at<'t>(root: &'t mut Table, path: &[&str], name: &mut String) -> Option<&'t mut Table> {
    let mut t = root;
    for seg in path {
        name.push('.');
        name.push_str(seg);
        let v = t.entry(seg.to_string()).or_insert_with(|| Value::Table(Table::new()));
        t = match v {
            Value::Table(t) => t,
            Value::Array(a) => {
                // the last table of an array of tables (`[[…]]`)
                name.push_str(&format!("#{}", a.len()));
                match a.last_mut()? {
                    Value::Table(t) => t,
                    _ => return None,
                }
            }
            _ => return None,
        };
    }
    Some(t)
}

/// The text as a table, if it is in the part of TOML this reads.
pub fn parse(text: &str) -> Option<Table> {
    let mut root = Table::new();
    // The table the key lines go into: its path and whether it is a new
    // table of an array of tables. The lines are gathered, then put in
    // place at the next header.
    let mut header: Option<(Vec<&str>, bool)> = None;
    let mut lines = Table::new();
    // Tables given a header, and arrays of tables, by their place (with
    // the index of each array of tables on the way): TOML refuses a table
    // given twice, and `[[x]]` after `x = […]`.
    let mut defined: HashSet<String> = HashSet::new();
    let mut arrays: HashSet<String> = HashSet::new();
    let mut place = |root: &mut Table, header: &Option<(Vec<&str>, bool)>, lines: Table| -> Option<()> {
        let Some((path, array)) = header else {
            for (k, v) in lines {
                if root.insert(k, v).is_some() {
                    return None;
                }
            }
            return Some(());
        };
        let (last, parent) = path.split_last()?;
        let mut name = String::new();
        let t = table_at(root, parent, &mut name)?;
        name.push('.');
        name.push_str(last);
        if *array {
            // a new array of tables, or one `[[…]]` began: not an array
            // given as a value
            if !arrays.contains(&name) && t.contains_key(*last) {
                return None;
            }
            match t.entry(last.to_string()).or_insert_with(|| Value::Array(Vec::new())) {
                Value::Array(a) => a.push(Value::Table(lines)),
                _ => return None,
            }
            arrays.insert(name);
            return Some(());
        }
        if !defined.insert(name) {
            return None;
        }
        match t.entry(last.to_string()).or_insert_with(|| Value::Table(Table::new())) {
            Value::Table(t) => {
                for (k, v) in lines {
                    if t.insert(k, v).is_some() {
                        return None;
                    }
                }
                Some(())
            }
            _ => None,
        }
    };
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line).trim_start_matches([' ', '\t']);
        if line.is_empty() {
            continue;
        }
        if let Some(h) = line.strip_prefix('[') {
            let (inner, array) = match h.strip_prefix('[') {
                Some(h) => (h.strip_suffix("]]")?, true),
                None => (h.strip_suffix(']')?, false),
            };
            let path: Vec<&str> = inner.split('.').collect();
            if !path.iter().all(|s| bare(s)) {
                return None;
            }
            place(&mut root, &header, std::mem::take(&mut lines))?;
            header = Some((path, array));
            continue;
        }
        let (key, rest) = line.split_once('=')?;
        let key = key.trim_end_matches([' ', '\t']);
        if !bare(key) {
            return None;
        }
        let (value, rest) = value(rest.trim_start_matches([' ', '\t']))?;
        if !rest.trim_matches([' ', '\t']).is_empty() || lines.insert(key.to_string(), value).is_some() {
            return None;
        }
    }
    place(&mut root, &header, lines)?;
    Some(root)
}

/// A bare key (TOML: ASCII letters, digits, `-` and `_`).
fn bare(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The value at the start of `s`, and what follows it.
fn value(s: &str) -> Option<(Value, &str)> {
    let b = s.as_bytes();
    match *b.first()? {
        b'"' => basic(&s[1..]).map(|(v, r)| (Value::String(v), r)),
        b'\'' => {
            let s = &s[1..];
            if s.starts_with("''") {
                return None; // a multi-line literal string
            }
            let end = s.find('\'')?;
            let v = &s[..end];
            if v.chars().any(|c| c.is_control() && c != '\t') {
                return None;
            }
            Some((Value::String(v.to_string()), &s[end + 1..]))
        }
        b'[' => {
            let mut items = Vec::new();
            let mut rest = s[1..].trim_start_matches([' ', '\t']);
            loop {
                if let Some(r) = rest.strip_prefix(']') {
                    return Some((Value::Array(items), r));
                }
                let (v, r) = value(rest)?;
                items.push(v);
                rest = r.trim_start_matches([' ', '\t']);
                match rest.strip_prefix(',') {
                    Some(r) => rest = r.trim_start_matches([' ', '\t']),
                    None if rest.starts_with(']') => {}
                    None => return None,
                }
            }
        }
        _ => {
            let end = s.find([' ', '\t', ',', ']']).unwrap_or(s.len());
            let (word, rest) = s.split_at(end);
            let v = match word {
                "true" => Value::Boolean(true),
                "false" => Value::Boolean(false),
                _ => Value::Integer(integer(word)?),
            };
            Some((v, rest))
        }
    }
}

/// A decimal integer as TOML writes it: a sign, then `0` or digits not
/// starting with `0` (no `_`, no base prefix: those are `None`).
fn integer(word: &str) -> Option<i64> {
    let digits = word.strip_prefix(['+', '-']).unwrap_or(word);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    word.parse().ok()
}

/// A basic string after its opening quote: its value and what follows
/// the closing quote. A multi-line string is `None`.
fn basic(s: &str) -> Option<(String, &str)> {
    if s.starts_with("\"\"") {
        return None;
    }
    let mut out = String::new();
    let mut rest = s;
    loop {
        let i = rest.find(['"', '\\'])?;
        let plain = &rest[..i];
        if plain.chars().any(|c| c.is_control() && c != '\t') {
            return None;
        }
        out.push_str(plain);
        if rest.as_bytes()[i] == b'"' {
            return Some((out, &rest[i + 1..]));
        }
        let esc = rest[i + 1..].chars().next()?;
        rest = &rest[i + 1 + esc.len_utf8()..];
        let c = match esc {
            'b' => '\u{8}',
            't' => '\t',
            'n' => '\n',
            'f' => '\u{c}',
            'r' => '\r',
            '"' => '"',
            '\\' => '\\',
            'u' | 'U' => {
                let n = if esc == 'u' { 4 } else { 8 };
                let hex = rest.get(..n)?;
                if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return None;
                }
                rest = &rest[n..];
                char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
            }
            _ => return None,
        };
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(text: &str) {
        let quick = parse(text).unwrap_or_else(|| panic!("not read: {text}"));
        let full: Table = toml::from_str(text).unwrap();
        assert_eq!(quick, full, "{text}");
    }

    #[test]
    fn reads_what_toml_reads_in_its_part_of_toml() {
        same("a = 1\nb = \"x \\\"y\\\" \\\\ \\n \\u00e9\"\nc = [\"p\", [\"q\", 'r'], []]\nd = false\n");
        same("[t]\nx = -3\n[t.u]\ny = true\n[[arr]]\nz = 0\n[arr.sub]\nw = 1\n[[arr.list]]\nv = 2\n[[arr]]\nz = 1\n");
        same("[a.b]\nx = 1\n[a]\ny = 2\n");
        same("\r\n  k = 'lit'  \r\n[[x]]\n[[x]]\n");
    }

    #[test]
    fn leaves_the_rest_of_toml_and_what_toml_refuses_to_the_full_parser() {
        for text in [
            "a = 1.5\n",
            "a = 1805-10-01\n",
            "a = 0x10\n",
            "a = 1_000\n",
            "a = 01\n",
            "a = { b = 1 }\n",
            "a = [\n1]\n",
            "a = \"\"\"x\"\"\"\n",
            "a = '''x'''\n",
            "\"a\" = 1\n",
            "a.b = 1\n",
            "a = 1 # note\n",
            "# note\na = 1\n",
            "a = 1\na = 2\n",
            "[t]\n[t]\n",
            "[t]\nx = 1\n[t.x]\n",
            "a = [1]\n[[a]]\n",
            "a = []\n[[a]]\n",
            "a = \"\\q\"\n",
            "a = \"unclosed\n",
            "a = [1, 2\n",
            "[ t ]\n",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
