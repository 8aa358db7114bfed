//! Credentials kept out of the log: a client's line with the operands of
//! every `Token` operation replaced by `*`, however the client spelled it.
//!
//! The rule follows the record's grammar, not one spelling: an operation
//! runs to the next `;` outside a quoted string (a `\"` inside quotes does
//! not close them), and every word `Token` outside a quoted string, in any
//! letter case, keeps its place and loses everything after it up to the
//! `;` that ends its operation (to the end of the line when there is
//! none): `Token  "s"`, `Token<TAB>"s"`, `Token s`, two operands, an
//! escaped quote, an unterminated string, and a second `Token` alike,
//! whether the referee accepted the record or not. The word is masked
//! wherever it stands outside a string (as an opcode, or as what a broken
//! line puts there): erring this way masks more, never less. Inside a
//! string (a comment's `c0 "my Token"`) it is text, left alone.

use std::borrow::Cow;

/// What stands for the operands of a `Token` operation in the log.
pub const MASK: &[u8] = b" *";

/// `line` with the operands of every `Token` operation replaced by
/// [`MASK`]; the line itself when it has none.
#[must_use]
pub fn redacted(line: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0; // bytes of `line` already in `out`
    let mut quoted = false;
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if quoted {
            match b {
                b'\\' => i += 1,
                b'"' => quoted = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if b == b'"' {
            quoted = true;
            i += 1;
            continue;
        }
        let at_word = i == 0 || line[i - 1].is_ascii_whitespace() || line[i - 1] == b';';
        let word_end = i + 5;
        let is_token = at_word
            && line.len() >= word_end
            && line[i..word_end].eq_ignore_ascii_case(b"Token")
            && line.get(word_end).is_none_or(|&c| c.is_ascii_whitespace() || c == b'"' || c == b';');
        if !is_token {
            i += 1;
            continue;
        }
        let end = operation_end(line, word_end);
        let buf = out.get_or_insert_with(|| Vec::with_capacity(line.len()));
        buf.extend_from_slice(&line[copied..word_end]);
        buf.extend_from_slice(MASK);
        copied = end;
        i = end;
    }
    match out {
        None => Cow::Borrowed(line),
        Some(mut buf) => {
            buf.extend_from_slice(&line[copied..]);
            Cow::Owned(buf)
        }
    }
}

/// The index of the `;` that ends the operation whose operands start at
/// `start` (the line's length when none does): the first `;` outside a
/// quoted string.
fn operation_end(line: &[u8], start: usize) -> usize {
    let mut quoted = false;
    let mut i = start;
    while i < line.len() {
        match line[i] {
            b'\\' if quoted => i += 1,
            b'"' => quoted = !quoted,
            b';' if !quoted => return i,
            _ => {}
        }
        i += 1;
    }
    line.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_token_is_masked() {
        for (line, want) in [
            (
                &b"8/8/8/8/8/8/8/8 w - - Token \"s3cret\"; refreq sign_on;"[..],
                &b"8/8/8/8/8/8/8/8 w - - Token *; refreq sign_on;"[..],
            ),
            (b"8/8 w - - Token  \"S\";", b"8/8 w - - Token *;"),
            (b"8/8 w - - Token\t\"S\";", b"8/8 w - - Token *;"),
            (b"8/8 w - - Token S;", b"8/8 w - - Token *;"),
            (b"8/8 w - - token S;", b"8/8 w - - token *;"),
            (b"8/8 w - - Token \"a\\\";b\"; x 1;", b"8/8 w - - Token *; x 1;"),
            (b"8/8 w - - Token \"A\" \"B\"; x;", b"8/8 w - - Token *; x;"),
            (b"8/8 w - - Token \"A\"; Token \"B\";", b"8/8 w - - Token *; Token *;"),
            (b"8/8 w - - Token \"unterminated; x;", b"8/8 w - - Token *"),
            (b"8/8 w - - Token", b"8/8 w - - Token *"),
            (b"Token \"x\"; y;", b"Token *; y;"),
            (b"no token here", b"no token *"),
            (b"8/8 w - - c0 \"a \\\" Token\"; Token x;", b"8/8 w - - c0 \"a \\\" Token\"; Token *;"),
            (b"w Token \"x\"", b"w Token *"),
            (b"8/8 w - - refreq sign_on; Token\"q\";", b"8/8 w - - refreq sign_on; Token *;"),
        ] {
            assert_eq!(
                String::from_utf8_lossy(&redacted(line)),
                String::from_utf8_lossy(want),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn lines_without_a_token_operation_are_left_as_they_are() {
        for line in [
            &b"no credential here"[..],
            b"",
            b";;;",
            b"8/8 w - - c0 \"my Token is x\"; id \"t\";",
            b"8/8 w - - Tokens \"x\";",
            b"8/8 w - - id \"Token\";",
        ] {
            assert!(matches!(redacted(line), Cow::Borrowed(_)), "{}", String::from_utf8_lossy(line));
        }
    }
}
