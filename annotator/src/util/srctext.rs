//! Source files that are not all UTF-8 (a Latin-1 comment or string in an older C++ or Java
//! file: muparser's `muParserTokenReader.cpp`). While Revy works on the text, each byte that
//! is not part of valid UTF-8 stands for a private-use character, U+10FF00 + the byte; it is
//! written back as that byte. So parse, annotate and restore see text and write exactly the
//! bytes they read, and Revy's insertions (ASCII) never touch them. A file that already
//! holds one of those characters could not be told apart: it is refused.

use std::borrow::Cow;

/// Byte `b` (0x80..=0xFF, never valid UTF-8 on its own) stands for U+10FF00 + `b`.
const BASE: u32 = 0x10_FF00;
/// The UTF-8 of U+10FF80..U+10FFFF starts with one of these (F4 8F BE 80..F4 8F BF BF).
const LEADS: [&[u8]; 2] = [b"\xF4\x8F\xBE", b"\xF4\x8F\xBF"];

/// Where a file already holds a character of the carrying range (1-based line, and column
/// in bytes).
#[derive(Debug, PartialEq, Eq)]
pub struct Refused {
    pub line: usize,
    pub col: usize,
}

impl Refused {
    fn at(bytes: &[u8], at: usize) -> Refused {
        let before = &bytes[..at];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        Refused {
            line: before.iter().filter(|&&b| b == b'\n').count() + 1,
            col: at - line_start + 1,
        }
    }
}

/// The text `bytes` stand for; refused when they already hold a character of the range
/// that carries stray bytes.
pub fn decode(bytes: Vec<u8>) -> Result<String, Refused> {
    let bytes = match String::from_utf8(bytes) {
        Ok(s) => {
            return match first_carrier(s.as_bytes(), 0) {
                Some(at) => Err(Refused::at(s.as_bytes(), at)),
                None => Ok(s),
            }
        }
        Err(e) => e.into_bytes(),
    };
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 8);
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..];
        let (good, bad) = match std::str::from_utf8(rest) {
            Ok(_) => (rest.len(), 0),
            Err(e) => (
                e.valid_up_to(),
                e.error_len().unwrap_or(rest.len() - e.valid_up_to()),
            ),
        };
        let valid = &rest[..good];
        if let Some(i) = first_carrier(valid, at) {
            return Err(Refused::at(&bytes, i));
        }
        // Checked just above by `from_utf8`.
        out.push_str(std::str::from_utf8(valid).unwrap_or_default());
        for &b in &rest[good..good + bad] {
            out.push(char::from_u32(BASE + b as u32).unwrap_or(char::REPLACEMENT_CHARACTER));
        }
        at += good + bad;
    }
    Ok(out)
}

/// The bytes `text` stands for (borrowed when it carries no stray byte).
pub fn encode(text: &str) -> Cow<'_, [u8]> {
    if first_carrier(text.as_bytes(), 0).is_none() {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        match (c as u32).checked_sub(BASE) {
            Some(b @ 0x80..=0xFF) => out.push(b as u8),
            _ => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    Cow::Owned(out)
}

/// Offset (plus `base`) of the first character of the carrying range in valid UTF-8.
fn first_carrier(utf8: &[u8], base: usize) -> Option<usize> {
    LEADS
        .iter()
        .filter_map(|l| memchr::memmem::find(utf8, l))
        .min()
        .map(|i| base + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_string_comes_back_as_it_was() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let pieces: [&[u8]; 8] = [
            b"int x; // ",
            "caf\u{e9} \u{2014} \u{1F600}".as_bytes(),
            b"\xe9",         // Latin-1 é
            b"\xc3",         // a cut two-byte sequence
            b"\xe2\x80",     // a cut three-byte one
            b"\xff\xfe",     // never UTF-8
            b"\xed\xa0\x80", // a surrogate's encoding
            b"\n",
        ];
        for _ in 0..2000 {
            let n = next() % 12;
            let mut bytes = Vec::new();
            for _ in 0..n {
                bytes.extend_from_slice(pieces[(next() % 8) as usize]);
            }
            let text = decode(bytes.clone()).expect("decodes");
            assert_eq!(encode(&text).as_ref(), &bytes[..], "{bytes:?}");
            // Valid UTF-8 stays as it is, and costs no copy on the way back.
            if let Ok(s) = std::str::from_utf8(&bytes) {
                assert_eq!(text, s);
                assert!(matches!(encode(&text), Cow::Borrowed(_)));
            }
        }
        // ASCII around a stray byte keeps its place relative to the line.
        let t = decode(b"a\xe9b\n".to_vec()).unwrap();
        assert_eq!(t.chars().count(), 4);
        assert!(t.starts_with('a') && t.ends_with("b\n"));
    }

    #[test]
    fn text_already_holding_the_carrying_characters_is_refused() {
        let own = "x \u{10FF80} y".as_bytes().to_vec();
        assert_eq!(decode(own), Err(Refused { line: 1, col: 3 }));
        let mut mixed = b"a\n\xe9 z ".to_vec();
        mixed.extend_from_slice("\u{10FFFF}".as_bytes());
        assert_eq!(decode(mixed), Err(Refused { line: 2, col: 5 }));
        // Just below the range: an ordinary private-use character.
        assert!(decode("\u{10FF7F}".as_bytes().to_vec()).is_ok());
    }
}
