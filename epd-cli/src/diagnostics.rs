//! The one diagnostic renderer of the CLI, for every verb: text for
//! people, JSON Lines (through serde) for programs.
//!
//! Text never carries a raw control byte to the terminal: in the file
//! name, the message and the excerpt, every byte below 0x20 but TAB, DEL,
//! the C1 controls and bytes that are not UTF-8 are written escaped
//! (`\x1b`, `\u{9b}`), so hostile input cannot drive the terminal.

use std::io::Write as _;

use epd_core::pipeline::LineReport;
use epd_core::{Diagnostic, Severity};

/// How diagnostics are printed.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DiagFormat {
    /// `file:line:col: error[CODE]: message`, then the offending text.
    #[default]
    Text,
    /// One JSON object per diagnostic and line (JSON Lines).
    Json,
}

/// The most bytes of a line shown under a diagnostic.
const EXCERPT: usize = 200;

/// Renders one line's diagnostics into `out` (on worker threads too),
/// warnings left out when `quiet`.
pub fn render(format: DiagFormat, quiet: bool, file: &str, r: &LineReport<'_>, out: &mut Vec<u8>) {
    for d in r.diagnostics {
        if quiet && d.severity == Severity::Warning {
            continue;
        }
        match format {
            DiagFormat::Text => {
                push_escaped(file.as_bytes(), out);
                let _ = write!(out, ":{}:{}: {}[{}]: ", r.line_no, d.column(), d.severity, d.code.as_str());
                push_escaped(d.message.as_bytes(), out);
                out.extend_from_slice(b"\n  ");
                push_escaped(excerpt(r.text), out);
                out.push(b'\n');
            }
            DiagFormat::Json => {
                if serde_json::to_writer(&mut *out, &Json::new(file, r, d)).is_ok() {
                    out.push(b'\n');
                }
            }
        }
    }
}

/// One diagnostic as a JSON object (field order as printed).
#[derive(serde::Serialize)]
struct Json<'a> {
    file: &'a str,
    line: u64,
    column: usize,
    severity: String,
    code: &'a str,
    opcode: Option<&'a str>,
    operand: Option<usize>,
    message: &'a str,
    /// The excerpt: NULs and CRs left out, bytes that are not UTF-8
    /// replaced (JSON escapes every control character).
    text: String,
}

impl<'a> Json<'a> {
    fn new(file: &'a str, r: &LineReport<'_>, d: &'a Diagnostic) -> Json<'a> {
        let kept: Vec<u8> = excerpt(r.text).iter().copied().filter(|&b| b != 0 && b != b'\r').collect();
        Json {
            file,
            line: r.line_no,
            column: d.column(),
            severity: d.severity.to_string(),
            code: d.code.as_str(),
            opcode: d.opcode.as_deref(),
            operand: d.operand,
            message: &d.message,
            text: String::from_utf8_lossy(&kept).into_owned(),
        }
    }
}

/// The part of a line shown under a diagnostic: its first bytes, without
/// the CRs and NULs that end it (a CRLF line end, NUL padding: a
/// diagnostic of its own names those).
fn excerpt(text: &[u8]) -> &[u8] {
    let cut = &text[..text.len().min(EXCERPT)];
    let end = cut.iter().rposition(|&b| b != b'\r' && b != 0).map_or(0, |i| i + 1);
    &cut[..end]
}

/// Appends `text` with every byte a terminal could act on escaped: C0
/// controls but TAB, DEL and C1 controls as `\xNN` or `\u{NN}`, a
/// backslash before an escape-like sequence left as it is, and bytes that
/// are not UTF-8 as `\xNN`.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// No byte value reaches the output raw if a terminal could act on
    /// it, alone or inside text, valid UTF-8 or not.
    #[test]
    fn every_byte_a_terminal_acts_on_is_escaped() {
        for b in 0..=255u8 {
            for text in [vec![b], vec![b'a', b, b'z'], vec![0xc2, b], vec![b, 0x9b]] {
                let mut out = Vec::new();
                push_escaped(&text, &mut out);
                assert!(!out.iter().any(|&o| (o < 0x20 && o != b'\t') || o == 0x7f), "{text:?} gave {out:?}");
                // No C1 control survives as UTF-8 either.
                let shown = String::from_utf8(out).expect("escaped text is UTF-8");
                assert!(!shown.chars().any(|c| c.is_control() && c != '\t'), "{text:?} gave {shown:?}");
            }
        }
        let mut out = Vec::new();
        push_escaped("é\u{1b}[31m\u{9b}\t".as_bytes(), &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "é\\x1b[31m\\u{9b}\t");
    }
}
