//! The one diagnostic renderer of the CLI, for every verb: text for
//! people, JSON Lines (through serde) for programs.
//!
//! Text never carries a raw control byte to the terminal: in the file
//! name, the message and the excerpt, every byte below 0x20 but TAB, DEL,
//! the C1 controls and bytes that are not UTF-8 are written escaped
//! (`\x1b`, `\u{9b}`), so hostile input cannot drive the terminal.
//!
//! A [`Printer`] sits between the pipeline and standard error: the
//! pipeline's workers render each diagnostic's text into a batch that
//! keeps its severity and code beside it ([`Rendered`]), and the printer,
//! in input order, shows the first `--max-errors` of them, counts the
//! rest, notices binary input, and closes with per-file summaries and a
//! hint.

use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};

use anstyle::{AnsiColor, Style};
use epd_core::pipeline::{self, Config, LineReport, PipelineError, Processor, Rendered, Summary};
use epd_core::{Code, Diagnostic, ParseMode, Severity};

/// How diagnostics are printed.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DiagFormat {
    /// `file:line:col: error[CODE]: message`, then the offending text
    /// with a caret under the column.
    #[default]
    Text,
    /// One JSON object per diagnostic and line (JSON Lines).
    Json,
}

/// When to colour text diagnostics.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// On a terminal, unless NO_COLOR is set or TERM is `dumb`.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether standard error gets colour.
    #[must_use]
    pub fn on_stderr(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                io::stderr().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
            }
        }
    }
}

/// The default cap on a terminal.
pub const TERMINAL_MAX: u64 = 200;

/// The most bytes of a line shown under a diagnostic.
const EXCERPT: usize = 160;

/// The styles of text diagnostics (all plain without colour).
#[derive(Clone, Copy, Debug)]
struct Paint {
    error: Style,
    warning: Style,
    place: Style,
    caret: Style,
    hint: Style,
}

impl Paint {
    fn new(color: bool) -> Paint {
        if !color {
            let plain = Style::new();
            return Paint { error: plain, warning: plain, place: plain, caret: plain, hint: plain };
        }
        let bold = Style::new().bold();
        Paint {
            error: bold.fg_color(Some(AnsiColor::Red.into())),
            warning: bold.fg_color(Some(AnsiColor::Yellow.into())),
            place: bold,
            caret: bold.fg_color(Some(AnsiColor::Green.into())),
            hint: bold.fg_color(Some(AnsiColor::Cyan.into())),
        }
    }
}

/// Writes `text` in `style`.
fn styled(out: &mut Vec<u8>, style: Style, text: &[u8]) {
    let _ = write!(out, "{}", style.render());
    out.extend_from_slice(text);
    let _ = write!(out, "{}", style.render_reset());
}

/// How one file's diagnostics are rendered: a plain value, copied to the
/// worker threads.
#[derive(Clone, Copy, Debug)]
pub struct Render<'a> {
    format: DiagFormat,
    quiet: bool,
    paint: Paint,
    file: &'a str,
}

impl Render<'_> {
    /// Renders one line's diagnostics into `out` (warnings left out when
    /// quiet). Runs on worker threads.
    pub fn line(&self, r: &LineReport<'_>, out: &mut Rendered) {
        for d in r.diagnostics {
            if self.quiet && d.severity == Severity::Warning {
                continue;
            }
            out.push(r.line_no, d, |out| match self.format {
                DiagFormat::Text => text(self.paint, self.file, r.line_no, r.text, d, out),
                DiagFormat::Json => {
                    if serde_json::to_writer(&mut *out, &Json::new(self.file, r, d)).is_ok() {
                        out.push(b'\n');
                    }
                }
            });
        }
    }
}

/// `file:line:col: error[CODE]: message`, the excerpt, and a caret under
/// the column.
fn text(paint: Paint, file: &str, line_no: u64, line: &[u8], d: &Diagnostic, out: &mut Vec<u8>) {
    let mut place = Vec::new();
    push_escaped(file.as_bytes(), &mut place);
    let _ = write!(place, ":{}:{}:", line_no, d.column());
    styled(out, paint.place, &place);
    out.push(b' ');
    let (style, word) = match d.severity {
        Severity::Error => (paint.error, "error"),
        Severity::Warning => (paint.warning, "warning"),
    };
    styled(out, style, format!("{word}[{}]", d.code.as_str()).as_bytes());
    out.extend_from_slice(b": ");
    push_escaped(d.message.as_bytes(), out);
    out.push(b'\n');
    let (shown, caret) = excerpt(line, d.offset);
    if shown.is_empty() && caret.is_none() {
        return;
    }
    out.extend_from_slice(b"  ");
    out.extend_from_slice(&shown);
    out.push(b'\n');
    if let Some(pad) = caret {
        out.extend_from_slice(b"  ");
        out.extend_from_slice(&pad);
        styled(out, paint.caret, b"^");
        out.push(b'\n');
    }
}

/// The part of a line shown under a diagnostic, escaped, and the padding
/// that puts a caret under byte `offset` (tabs kept as tabs, so the caret
/// lines up whatever the tab stops). A window of [`EXCERPT`] bytes around
/// the offset, with `...` where the line was cut; the CRs and NULs that
/// end a line are left out (a diagnostic of its own names those). No
/// caret when the offset is past the shown text by more than a column.
fn excerpt(line: &[u8], offset: usize) -> (Vec<u8>, Option<Vec<u8>>) {
    let end = line.iter().rposition(|&b| b != b'\r' && b != 0).map_or(0, |i| i + 1);
    let line = &line[..end];
    let from = if offset + 20 > EXCERPT { (offset + 40).saturating_sub(EXCERPT).min(line.len()) } else { 0 };
    // Start on a character boundary.
    let from = (from..line.len()).find(|&i| line[i] & 0xc0 != 0x80).unwrap_or(from);
    let to = (from + EXCERPT).min(line.len());
    let to = (to..line.len()).find(|&i| line[i] & 0xc0 != 0x80).unwrap_or(line.len());
    let mut shown = Vec::new();
    if from > 0 {
        shown.extend_from_slice(b"...");
    }
    let mut pad = Vec::new();
    if offset >= from && offset <= to {
        let mut before = Vec::new();
        push_escaped(&line[from..offset.min(line.len())], &mut before);
        pad.extend(std::iter::repeat_n(b' ', if from > 0 { 3 } else { 0 }));
        for c in String::from_utf8_lossy(&before).chars() {
            pad.push(if c == '\t' { b'\t' } else { b' ' });
        }
    }
    push_escaped(&line[from..to], &mut shown);
    if to < line.len() {
        shown.extend_from_slice(b"...");
    }
    let caret = (offset >= from && offset <= to).then_some(pad);
    (shown, caret)
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
    /// The first bytes of the line: NULs and CRs left out, bytes that are
    /// not UTF-8 replaced (JSON escapes every control character).
    text: String,
}

impl<'a> Json<'a> {
    fn new(file: &'a str, r: &LineReport<'_>, d: &'a Diagnostic) -> Json<'a> {
        let cut = &r.text[..r.text.len().min(200)];
        let kept: Vec<u8> = cut.iter().copied().filter(|&b| b != 0 && b != b'\r').collect();
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

/// The one escaper, in the core: every byte from outside that reaches
/// the terminal goes through it.
pub use epd_core::push_escaped;

/// Why an input looks like binary data rather than text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Binary {
    /// A NUL byte at this offset in the first block.
    Nul(usize),
    /// This share (percent) of the first block is neither printable text
    /// nor UTF-8.
    NotText(usize),
}

impl std::fmt::Display for Binary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Binary::Nul(i) => write!(f, "a NUL byte at offset {i}"),
            Binary::NotText(p) => write!(f, "{p}% of its first bytes are not text"),
        }
    }
}

/// Sniffs the first block of an input (up to 8 KiB): binary when more
/// than a tenth of it is neither printable text nor UTF-8 and a NUL byte
/// comes in its first KiB, or when more than 30 % of it is. A text file
/// with a stray NUL line, control bytes or Latin-1 letters is not binary;
/// its lines get the usual diagnostics.
#[must_use]
pub fn sniff(head: &[u8]) -> Option<Binary> {
    let head = &head[..head.len().min(8192)];
    if head.len() < 32 {
        return None;
    }
    let mut odd = 0usize;
    for chunk in head.utf8_chunks() {
        odd += chunk.invalid().len();
        odd += chunk.valid().chars().filter(|&c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')).count();
    }
    let percent = odd * 100 / head.len();
    let nul = head[..head.len().min(1024)].iter().position(|&b| b == 0);
    match nul {
        Some(i) if percent >= 10 => Some(Binary::Nul(i)),
        _ if percent > 30 => Some(Binary::NotText(percent)),
        _ => None,
    }
}

/// Shows the diagnostics of a run in input order, capped; counts what it
/// does not show; closes with per-file lines, totals and a hint.
#[derive(Debug)]
pub struct Printer {
    format: DiagFormat,
    quiet: bool,
    color: bool,
    /// Diagnostics still to show; `None`: no cap.
    left: Option<u64>,
    /// Diagnostics not shown because of the cap.
    hidden: u64,
    /// Diagnostics of the current file not shown because it is binary.
    binary: bool,
    /// Errors by code (index in `Code::ALL`), binary files left out.
    by_code: Vec<u64>,
}

impl Printer {
    /// A printer in `format`, showing at most `max_errors` diagnostics
    /// (0: all; none given: 200 on a terminal in text, else all);
    /// `quiet` leaves warnings out; text is coloured as `color` says.
    #[must_use]
    pub fn new(format: DiagFormat, max_errors: Option<u64>, quiet: bool, color: ColorChoice) -> Printer {
        let terminal = io::stderr().is_terminal();
        let cap = match max_errors {
            Some(0) => None,
            Some(n) => Some(n),
            None if terminal && format == DiagFormat::Text => Some(TERMINAL_MAX),
            None => None,
        };
        Printer {
            format,
            quiet,
            color: format == DiagFormat::Text && color.on_stderr(),
            left: cap,
            hidden: 0,
            binary: false,
            by_code: vec![0; Code::ALL.len()],
        }
    }

    /// The renderer of `file`'s diagnostics, for the pipeline.
    #[must_use]
    pub fn render<'a>(&self, file: &'a str) -> Render<'a> {
        Render { format: self.format, quiet: self.quiet, paint: Paint::new(self.color), file }
    }

    /// Starts a file whose first block is `head`: binary input is
    /// reported here, once, and its text diagnostics are counted but not
    /// shown (JSON still lists them all).
    pub fn start_file(&mut self, file: &str, head: &[u8], err: &mut dyn Write) {
        self.binary = false;
        if self.format != DiagFormat::Text {
            return;
        }
        let Some(why) = sniff(head) else { return };
        self.binary = true;
        let mut out = Vec::new();
        let mut name = Vec::new();
        push_escaped(file.as_bytes(), &mut name);
        let paint = Paint::new(self.color);
        styled(&mut out, paint.place, &[&name[..], b":"].concat());
        out.push(b' ');
        styled(&mut out, paint.error, b"error");
        let _ = writeln!(
            out,
            ": this looks like binary data, not EPD ({why}); its line diagnostics are counted, not shown \
             (--format json lists them)"
        );
        let _ = err.write_all(&out);
    }

    /// Runs the record pipeline over one input, `display`: the workers
    /// render its diagnostics, this printer shows them in input order on
    /// `err` (flushed after each record's when `config` flushes each
    /// record). The one per-file run of the verbs that read records.
    ///
    /// # Errors
    /// The input cannot be read, or the output written.
    pub fn run_file<P: Processor>(
        &mut self,
        display: &str,
        input: impl Read + Send,
        out: &mut dyn Write,
        workers: &mut [P],
        config: &Config<'_>,
        err: &mut dyn Write,
    ) -> Result<Summary<P::Counts>, PipelineError> {
        let mut input = BufReader::with_capacity(1 << 16, input);
        let head = input.fill_buf().map_err(PipelineError::Read)?;
        self.start_file(display, head, err);
        let render = self.render(display);
        let render = |r: &LineReport<'_>, out: &mut Rendered| render.line(r, out);
        let mut emit = |rendered: &Rendered| {
            self.emit(rendered, err);
            if config.flush_each {
                let _ = err.flush();
            }
        };
        pipeline::run(input, out, workers, config, &render, &mut emit, &mut |_| {})
    }

    /// Takes a batch rendered by [`Render::line`] and shows what the cap
    /// allows.
    pub fn emit(&mut self, rendered: &Rendered, err: &mut dyn Write) {
        if self.binary {
            return;
        }
        for d in rendered.iter() {
            if d.severity == Severity::Error {
                if let Some(n) = Code::ALL.iter().position(|&c| c == d.code).and_then(|i| self.by_code.get_mut(i)) {
                    *n += 1;
                }
            }
            match &mut self.left {
                Some(0) => self.hidden += 1,
                Some(n) => {
                    *n -= 1;
                    let _ = err.write_all(d.text);
                }
                None => {
                    let _ = err.write_all(d.text);
                }
            }
        }
    }

    /// `NAME: 300 records, 2 invalid, 3 errors, 0 warnings` (text only).
    pub fn summary_line<C>(&self, name: &str, s: &Summary<C>, err: &mut dyn Write) {
        if self.format != DiagFormat::Text {
            return;
        }
        let mut shown = Vec::new();
        push_escaped(name.as_bytes(), &mut shown);
        let _ = writeln!(
            err,
            "{}: {} records, {} invalid, {} errors, {} warnings{}",
            String::from_utf8_lossy(&shown),
            s.records,
            s.invalid,
            s.errors,
            s.warnings,
            if s.interrupted { " (interrupted)" } else { "" }
        );
    }

    /// Closes the run: how many diagnostics the cap hid, and, when most
    /// records failed a strict reading, a hint naming the commonest code.
    pub fn finish<C>(&self, total: &Summary<C>, mode: ParseMode, err: &mut dyn Write) {
        if self.format != DiagFormat::Text {
            return;
        }
        let paint = Paint::new(self.color);
        let mut out = Vec::new();
        if self.hidden > 0 {
            let _ = writeln!(out, "... {} more diagnostics not shown (--max-errors 0 shows them all)", self.hidden);
        }
        // The hint is for text in a dialect, not for binary files.
        let text_diags: u64 = self.by_code.iter().sum();
        if mode == ParseMode::Strict && total.records >= 4 && total.invalid * 2 > total.records && text_diags > 0 {
            let common = self.by_code.iter().enumerate().max_by_key(|&(i, n)| (*n, std::cmp::Reverse(i)));
            styled(&mut out, paint.hint, b"hint");
            let _ = write!(
                out,
                ": {} of {} records are invalid when read strictly; --lenient accepts the dialects \
                 real files use (reporting each change), and `epd repair` rewrites them in canonical form",
                total.invalid, total.records
            );
            if let Some((i, &n)) = common.filter(|&(_, &n)| n > 0) {
                let code = Code::ALL[i];
                let _ = write!(out, ". Most frequent: {code} ({}), {n} times: epd explain {code}", code.summary());
            }
            out.push(b'\n');
        }
        let _ = err.write_all(&out);
    }
}

/// Prints one diagnostic about a record given on the command line, the
/// way the pipeline's are printed, coloured as `color` says.
pub fn print_argument(text: &str, d: &Diagnostic, color: ColorChoice) {
    let mut out = Vec::new();
    self::text(Paint::new(color.on_stderr()), "<argument>", 1, text.as_bytes(), d, &mut out);
    let _ = io::stderr().write_all(&out);
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

    #[test]
    fn the_caret_sits_under_the_column() {
        for (line, offset, shown, caret) in [
            (&b"8/8/8 w - - bm Nf3"[..], 15, "8/8/8 w - - bm Nf3", "               "),
            (b"a\tb c", 4, "a\tb c", " \t  "),
            (b"\x1b[31m x", 6, "\\x1b[31m x", "         "),
            (b"abc\r\0", 3, "abc", "   "),
        ] {
            let (s, c) = excerpt(line, offset);
            assert_eq!(String::from_utf8(s).unwrap(), shown);
            assert_eq!(String::from_utf8(c.unwrap()).unwrap(), caret, "{line:?}");
        }
        // A column far into a long line: a window around it.
        let long: Vec<u8> = (0..1000).map(|i| b'a' + (i % 26) as u8).collect();
        let (s, c) = excerpt(&long, 900);
        let s = String::from_utf8(s).unwrap();
        let c = c.unwrap();
        assert!(s.starts_with("...") && s.ends_with("..."), "{s}");
        assert_eq!(s.as_bytes()[c.len()], long[900]);
    }

    /// The printer shows what the cap allows in the order it is given,
    /// counts the errors by code and the hidden diagnostics, leaves
    /// warnings out when quiet, and shows nothing of a binary file.
    #[test]
    fn the_printer_caps_counts_and_hides_binary_input() {
        let diag = |severity, code| Diagnostic {
            severity,
            code,
            offset: 0,
            opcode: None,
            operand: None,
            message: format!("{code:?}"),
        };
        let diags = [
            diag(Severity::Error, Code::IllegalMove),
            diag(Severity::Warning, Code::Escape),
            diag(Severity::Error, Code::IllegalMove),
            diag(Severity::Error, Code::Arity),
        ];
        let report = LineReport { line_no: 7, text: b"8/8/8/8/8/8/8/K6k w - -", diagnostics: &diags };
        for (quiet, cap, shown, hidden) in [(false, Some(2), 2, 2), (true, Some(2), 2, 1), (false, Some(0), 4, 0)] {
            let mut printer = Printer::new(DiagFormat::Text, cap, quiet, ColorChoice::Never);
            let mut rendered = Rendered::default();
            printer.render("f.epd").line(&report, &mut rendered);
            assert_eq!(rendered.len(), if quiet { 3 } else { 4 });
            let mut err = Vec::new();
            printer.emit(&rendered, &mut err);
            let err = String::from_utf8(err).unwrap();
            let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("f.epd:7:1: ")).collect();
            assert_eq!(lines.len(), shown, "{err}");
            assert!(lines[0].ends_with("error[E020]: IllegalMove"), "{err}");
            assert_eq!(printer.hidden, hidden);
            let errors = |code: Code| printer.by_code[Code::ALL.iter().position(|&c| c == code).unwrap()];
            assert_eq!((errors(Code::IllegalMove), errors(Code::Arity), errors(Code::Escape)), (2, 1, 0));
        }
        let mut printer = Printer::new(DiagFormat::Text, None, false, ColorChoice::Never);
        let mut err = Vec::new();
        printer.start_file("f.bin", &[0u8; 64], &mut err);
        assert!(String::from_utf8_lossy(&err).contains("binary data"));
        err.clear();
        let mut rendered = Rendered::default();
        printer.render("f.bin").line(&report, &mut rendered);
        printer.emit(&rendered, &mut err);
        assert!(err.is_empty());
        assert!(printer.by_code.iter().all(|&n| n == 0));
    }

    #[test]
    fn binary_input_is_recognised_and_text_is_not() {
        // A gzip header then compressed bytes.
        let mut gz = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03".to_vec();
        gz.extend((0u32..500).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8));
        assert_eq!(sniff(&gz), Some(Binary::Nul(3)));
        // Text with a line of NULs and one of control bytes is text.
        let mut text = b"8/8/8/8/8/8/8/8 w - -\n\0\0\n\x1b[31m\n".to_vec();
        text.extend_from_slice(&b"4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"good\";\n".repeat(3));
        assert_eq!(sniff(&text), None);
        assert_eq!(sniff("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c0 \"Müller\";\n".as_bytes()), None);
        let random: Vec<u8> = (0u32..4096).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 | 1).collect();
        assert!(matches!(sniff(&random), Some(Binary::NotText(_))));
        let latin1: Vec<u8> = b"8/8/8/8/8/8/8/8 w - - c0 \"M\xfcller\";\n".repeat(10);
        assert_eq!(sniff(&latin1), None);
    }
}
