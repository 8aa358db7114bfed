#![no_main]
//! No byte of a token reaches the log. The input picks a spelling of a
//! sign-on record's `Token` operation (the opcode's letter case, the
//! space after it, quoted with escapes, unquoted, two operands, twice,
//! with or without its `;`, after other operations or alone) and gives
//! the token's bytes; the token is marked by bytes of 0x80 and above at
//! both its ends (the rest of the record has none), and the redacted line
//! must hold none of them. The redaction masks a contiguous run from the
//! opcode to the operation's end, so a token whose two ends are gone is
//! gone whole.

use epd_referee::redact::redacted;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [how, space, rest @ ..] = data else { return };
    let mut token: Vec<u8> = rest.iter().copied().filter(|&b| b != b'\n' && b != b'\r').collect();
    let (Some(first), Some(last)) = (token.first().copied(), token.last().copied()) else { return };
    let n = token.len();
    token[0] = 0x80 | first;
    token[n - 1] = 0x80 | last;
    let opcode: &[u8] = match how % 3 {
        0 => b"Token",
        1 => b"token",
        _ => b"TOKEN",
    };
    let gap: &[u8] = match space % 5 {
        0 => b" ",
        1 => b"  ",
        2 => b"\t",
        3 => b" \t ",
        _ => b"",
    };
    let quoted = {
        let mut q = vec![b'"'];
        for &b in &token {
            if b == b'"' || b == b'\\' {
                q.push(b'\\');
            }
            q.push(b);
        }
        q.push(b'"');
        q
    };
    // Unquoted, the token is what stands before the operation's `;`.
    let bare: Vec<u8> = token.iter().copied().filter(|&b| b != b';' && b != b'"').collect();
    let operand: Vec<u8> = match (how / 3) % 4 {
        0 => quoted.clone(),
        1 if !bare.is_empty() && !gap.is_empty() => bare,
        2 => [&b"\"x\" "[..], &quoted].concat(),
        _ => [&quoted[..], b" \"y\""].concat(),
    };
    let op = [opcode, gap, &operand].concat();
    let prefix: &[u8] = match (how / 12) % 4 {
        0 => b"8/8/8/8/8/8/8/8 w - - refreq sign_on; Name \"p\"; ",
        1 => b"8/8/8/8/8/8/8/8 w - - ",
        2 => b"",
        _ => b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c0 \"a \\\" b;\"; ",
    };
    let line = match (how / 48) % 3 {
        0 => [prefix, &op, b"; refreq sign_on;"].concat(),
        1 => [prefix, &op].concat(),
        _ => [prefix, &op, b"; ", &op, b";"].concat(),
    };
    let out = redacted(&line);
    assert!(
        !out.iter().any(|&b| b >= 0x80),
        "a token byte reached the log: {:?} -> {:?}",
        String::from_utf8_lossy(&line),
        String::from_utf8_lossy(&out)
    );
    // And an arbitrary line never panics.
    let _ = redacted(data);
});
