//! Reading positions given on the command line.

use epd_core::{parse_fields, Counters, ParseMode, Position};

/// An argument that should hold a position could not be read.
#[derive(Debug)]
pub struct BadRecord {
    pub column: usize,
    pub code: &'static str,
    pub message: String,
    pub text: String,
}

impl std::fmt::Display for BadRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "<argument>:1:{}: error[{}]: {}\n  {}\n  {:>width$}",
            self.column,
            self.code,
            self.message,
            self.text,
            "^",
            width = self.column
        )
    }
}

impl std::error::Error for BadRecord {}

/// Reads a RECORD argument: a FEN, or an EPD record whose operations are
/// ignored here. Lenient about dialect, strict about legality.
pub fn position_arg(text: &str) -> Result<Position, BadRecord> {
    let bytes = text.as_bytes();
    let parsed = parse_fields(bytes, ParseMode::Lenient, Counters::Optional).map_err(|e| BadRecord {
        column: e.offset + 1,
        code: "E001",
        message: e.to_string(),
        text: text.to_owned(),
    })?;
    Position::from_setup(parsed.setup).map_err(|e| BadRecord {
        column: 1,
        code: "E002",
        message: format!("illegal position: {e}"),
        text: text.to_owned(),
    })
}
