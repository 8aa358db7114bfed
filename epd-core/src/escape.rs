//! Bytes from outside on their way to a terminal or a log: the one
//! escaper of the kit (diagnostics, the referee's traffic log, from-pgn's
//! messages), so a hostile line can neither drive a terminal nor forge a
//! log line.

use std::io::Write;

/// Appends `text` with every byte a terminal could act on escaped: C0
/// controls but TAB, and DEL, as `\xNN`; C1 controls as `\u{NN}`; bytes
/// that are not UTF-8 as `\xNN`. Printable text (any script) is kept.
///
/// ```
/// let mut out = Vec::new();
/// epd_core::push_escaped(b"a\x1b[31m\xff\tb \xc3\xa9", &mut out);
/// assert_eq!(out, b"a\\x1b[31m\\xff\tb \xc3\xa9");
/// ```
pub fn push_escaped(text: &[u8], out: &mut Vec<u8>) {
    if text.iter().all(|&b| (0x20..0x7f).contains(&b) || b == b'\t') {
        out.extend_from_slice(text);
        return;
    }
    for chunk in text.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c.is_control() && c != '\t' {
                if c.is_ascii() {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                } else {
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
            } else {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
        for &b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
}

/// [`push_escaped`] into a new string.
#[must_use]
pub fn escaped(text: &[u8]) -> String {
    let mut out = Vec::with_capacity(text.len());
    push_escaped(text, &mut out);
    // Only valid UTF-8 and ASCII escapes were written.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bad_bytes_are_escaped_text_is_kept() {
        for (input, want) in [
            (&b"plain text\tstays"[..], "plain text\tstays"),
            (b"a\x1b[31m\xff", "a\\x1b[31m\\xff"),
            (b"line\nforged: ok", "line\\x0aforged: ok"),
            (b"\x7f\x00", "\\x7f\\x00"),
            ("é\u{1b}[31m\u{9b}\t".as_bytes(), "é\\x1b[31m\\u{9b}\t"),
            (b"\xc3", "\\xc3"),
        ] {
            assert_eq!(escaped(input), want, "{input:?}");
        }
    }
}
