//! Reading positions given on the command line.

use std::path::Path;

use epd_core::{parse_fields, Code, Counters, Diagnostic, ParseMode, Position, Severity};

/// An argument that should hold a position could not be read: printed
/// by the one diagnostic renderer as `<argument>:1:COL`.
#[derive(Debug)]
pub struct BadRecord {
    pub diagnostic: Diagnostic,
    pub text: String,
}

impl std::fmt::Display for BadRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<argument>:1:{}: {}", self.diagnostic.column(), self.diagnostic)
    }
}

impl std::error::Error for BadRecord {}

fn bad(code: Code, offset: usize, message: String, text: &str) -> BadRecord {
    let diagnostic = Diagnostic { severity: Severity::Error, code, offset, opcode: None, operand: None, message };
    BadRecord { diagnostic, text: text.to_owned() }
}

/// Reads a RECORD argument: a FEN, or an EPD record whose operations are
/// ignored here. Lenient about dialect, strict about legality.
pub fn position_arg(text: &str) -> Result<Position, BadRecord> {
    let bytes = text.as_bytes();
    let parsed = parse_fields(bytes, ParseMode::Lenient, Counters::Optional)
        .map_err(|e| bad(Code::PositionSyntax, e.offset, e.to_string(), text))?;
    Position::from_setup(parsed.setup).map_err(|e| {
        let code = if e.is_impossible_check() { Code::ImpossibleCheck } else { Code::IllegalPosition };
        bad(code, 0, format!("illegal position: {e}"), text)
    })
}

/// What a FILE-or-RECORD argument is, decided the same way by every
/// command: standard input (`-`); an existing path, which must be a file
/// (a directory is refused); or else a position (FEN, or an EPD record),
/// which must at least have readable position fields.
#[derive(Debug)]
pub enum Source {
    /// `-`.
    Stdin,
    /// An existing file.
    File,
    /// A record given on the command line.
    Text(String),
}

/// Every file error in one voice: `cannot open FILE: No such file or
/// directory` (`action` is open, read, create, write; `path` as shown,
/// `<stdin>` or a path's `display()`).
#[must_use]
pub fn file_error(action: &str, path: impl std::fmt::Display, e: &std::io::Error) -> anyhow::Error {
    anyhow::anyhow!("cannot {action} {path}: {}", epd_core::io_reason(e))
}

/// Classifies one argument (see [`Source`]); a name that is not UTF-8
/// can only be a file.
///
/// # Errors
/// A directory, or an argument that is neither an existing path nor a
/// position: `no such file, and not a position: ARG`.
pub fn source(path: &Path) -> anyhow::Result<Source> {
    if path.as_os_str() == "-" {
        return Ok(Source::Stdin);
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => anyhow::bail!("cannot open {}: Is a directory", path.display()),
        Ok(_) => Ok(Source::File),
        Err(e) => match path.to_str() {
            None => Err(file_error("open", path.display(), &e)),
            Some(arg) => match parse_fields(arg.as_bytes(), ParseMode::Lenient, Counters::Optional) {
                Ok(_) => Ok(Source::Text(arg.to_owned())),
                // A path that is not there: the file error, not a FEN's.
                Err(_) if looks_like_path(arg) => Err(file_error("open", arg, &e)),
                Err(fen) => anyhow::bail!("no such file, and not a position: {arg} ({fen})"),
            },
        },
    }
}

/// `true` if `arg` reads as a file name rather than a position: a known
/// extension, a directory part (`./`, `../`, `/`, `~`), no `/` at all,
/// or slashes that are not a FEN's seven between ranks with no space.
#[must_use]
pub fn looks_like_path(arg: &str) -> bool {
    const EXTENSIONS: [&str; 10] = [".epd", ".pgn", ".fen", ".txt", ".gz", ".zst", ".xz", ".bz2", ".toml", ".csv"];
    let lower = arg.to_ascii_lowercase();
    EXTENSIONS.iter().any(|x| lower.ends_with(x))
        || ["./", "../", "/", "~"].iter().any(|p| arg.starts_with(p))
        || !arg.contains('/')
        || (!arg.contains(' ') && arg.matches('/').count() != 7)
}
