//! `--resume`: going on with an interrupted analysis run.
//!
//! The output file of the interrupted run holds the first records of the
//! output, one line per input line (a blank line for a blank line, an
//! invalid record copied as it was, two input lines joined by a continued
//! string as one). A torn last line (no newline: the run died while
//! writing it) is cut off. Each kept output line is matched with the
//! input it came from — the same bytes, or the same placement and side to
//! move — so a wrong `-o` file is refused instead of being extended; the
//! kept records are counted and judged (their pm against bm and am) as if
//! this run had analysed them, so the summary covers the whole input.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::Context;
use epd_core::{has_errors, parse_fields, Counters, Opcode, ParseMode, Record};
use epd_engine::analysis::AnalysisSummary;

/// An output file ready to be extended.
#[derive(Debug)]
pub struct Resume {
    path: PathBuf,
    file: File,
}

/// Cuts a torn last line off `path` and opens it for reading from the
/// start.
///
/// # Errors
/// The file cannot be opened, read or truncated.
pub fn prepare(path: &Path) -> anyhow::Result<Resume> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .with_context(|| format!("--resume: cannot open {}", path.display()))?;
    let len = file.metadata()?.len();
    // The end of the last complete line: scan back from the end.
    let mut end = len;
    let mut buf = vec![0u8; 1 << 16];
    while end > 0 {
        let from = end.saturating_sub(buf.len() as u64);
        let n = (end - from) as usize;
        file.seek(SeekFrom::Start(from))?;
        file.read_exact(&mut buf[..n])?;
        match buf[..n].iter().rposition(|&b| b == b'\n') {
            Some(i) => {
                end = from + i as u64 + 1;
                break;
            }
            None => end = from,
        }
    }
    if end < len {
        file.set_len(end).with_context(|| format!("--resume: cannot cut the torn last line of {}", path.display()))?;
    }
    file.seek(SeekFrom::Start(0))?;
    Ok(Resume { path: path.to_owned(), file })
}

/// The placement and side to move of a line, if it starts with position
/// fields.
fn key(line: &[u8]) -> Option<(epd_core::Board, epd_core::Color)> {
    parse_fields(line, ParseMode::Lenient, Counters::Optional).ok().map(|p| (p.setup.board, p.setup.turn))
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

impl Resume {
    /// Reads `input` past the lines whose output is already in the file,
    /// and returns their counts (lines, records, invalid, and the
    /// analysis counts read back from the records).
    ///
    /// # Errors
    /// Reading fails, or an output line does not come from the input.
    pub fn skip(self, input: &mut impl BufRead, drop_invalid: bool) -> io::Result<AnalysisSummary> {
        let mut output = BufReader::with_capacity(1 << 16, self.file);
        let mut s = AnalysisSummary::default();
        let (mut out_line, mut in_line) = (Vec::new(), Vec::new());
        let mut out_no = 0u64;
        let mismatch = |out_no: u64, in_no: u64| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "--resume: line {out_no} of {} is not the output of input line {in_no}; \
                     is it the output of this input?",
                    self.path.display()
                ),
            )
        };
        loop {
            out_line.clear();
            if output.read_until(b'\n', &mut out_line)? == 0 {
                break;
            }
            out_no += 1;
            let o = trim_cr(out_line.strip_suffix(b"\n").unwrap_or(&out_line));
            let o_key = key(o);
            // The input line(s) this output line came from.
            loop {
                in_line.clear();
                if input.read_until(b'\n', &mut in_line)? == 0 {
                    return Err(mismatch(out_no, s.lines + 1));
                }
                s.lines += 1;
                let i = trim_cr(in_line.strip_suffix(b"\n").unwrap_or(&in_line));
                let blank = i.iter().all(|b| b.is_ascii_whitespace() || *b == 0);
                if !blank {
                    s.records += 1;
                }
                if i == o {
                    // Blank, copied unchanged (invalid), or written back as
                    // it was (an engine fault on a canonical record).
                    if !blank {
                        self::count(o, s.lines, &mut s, true);
                    }
                    break;
                }
                let i_key = key(i);
                if i_key.is_some() && i_key == o_key {
                    self::count(o, s.lines, &mut s, false);
                    break;
                }
                // A continuation joined to the previous line, or (with
                // --drop-invalid) an invalid record left out.
                let dropped = drop_invalid && !blank && has_errors(&Record::parse(i, ParseMode::Lenient).1);
                if i_key.is_none() && !blank || dropped {
                    if !blank {
                        s.records -= u64::from(i_key.is_none() && !dropped);
                        s.invalid += u64::from(dropped);
                    }
                    continue;
                }
                return Err(mismatch(out_no, s.lines));
            }
        }
        Ok(s)
    }
}

/// Counts one output record read back: invalid (copied unchanged), or
/// analysed and judged by its pm.
fn count(text: &[u8], line: u64, s: &mut AnalysisSummary, copied: bool) {
    let (rec, diags) = Record::parse(text, ParseMode::Lenient);
    if copied && (has_errors(&diags) || rec.position().is_none()) {
        s.invalid += 1;
        return;
    }
    let pm = rec.get_known(Opcode::Pm).and_then(|o| o.moves().flatten().next());
    let c = &mut s.counts;
    if copied && pm.is_none() {
        // Written back without analysis.
        c.faults += 1;
        return;
    }
    c.analyzed += 1;
    if let Some(n) = rec.get_known(Opcode::Acn).and_then(|o| o.operand(0)).and_then(|o| o.as_integer()) {
        c.nodes += u64::try_from(n).unwrap_or(0);
    }
    c.judge(&rec, pm, line);
}
