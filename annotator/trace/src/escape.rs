//! Text from outside (trace names, source excerpts, file names) made safe to print.

/// A name as read from a trace, safe to print: invalid UTF-8 becomes U+FFFD, and control
/// characters (escape sequences, newlines that would forge DTF lines), line separators and
/// bidirectional overrides are shown escaped (`\u{1b}`).
pub fn escape_name(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    if !s.chars().any(unsafe_char) {
        return s.into_owned();
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}
