//! Diagnostics: what is wrong with a record, where, and how sure we are.

use core::fmt;

/// How serious a diagnostic is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// A deviation that was accepted (lenient mode), or a remark; the
    /// record is still valid.
    Warning,
    /// The record is invalid.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

macro_rules! codes {
    ($($name:ident = $code:literal : $doc:literal,)*) => {
        /// Stable diagnostic codes. A code is never renumbered or reused.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $(#[doc = $doc] $name,)*
        }
        impl Code {
            /// Every code, in numeric order.
            pub const ALL: &'static [Code] = &[$(Code::$name,)*];
            /// The code as printed, `E012` say.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self { $(Code::$name => $code,)* }
            }
            /// One line on what the code means.
            #[must_use]
            pub const fn summary(self) -> &'static str {
                match self { $(Code::$name => $doc,)* }
            }
        }
    };
}

codes! {
    PositionSyntax = "E001": "the position fields are malformed",
    IllegalPosition = "E002": "the position is not legal",
    LineTooLong = "E003": "a line longer than 4096 bytes (over 1 MiB: not parsed, copied through)",
    ControlByte = "E004": "a NUL or other control byte in the line",
    Whitespace = "E005": "whitespace is not a single space",
    EmptyOperation = "E006": "an empty operation (a stray ';')",
    NotUtf8 = "E007": "bytes that are not UTF-8 (Latin-1?)",
    BadOpcode = "E010": "not an opcode (a letter, then up to 14 letters, digits or '_')",
    MissingSemicolon = "E011": "an operation without its closing ';'",
    PmNotPvHead = "E012": "pm is not the first move of pv",
    SmNotSvHead = "E013": "sm is not the first move of sv",
    UnterminatedString = "E014": "a string without its closing quote",
    StringTooLong = "E015": "a string of 256 bytes or more",
    UnquotedString = "E016": "a string operand without quotes",
    Arity = "E017": "the wrong number of operands",
    OperandType = "E018": "an operand of the wrong basetype",
    OutOfRange = "E019": "an integer outside the opcode's range",
    IllegalMove = "E020": "a move that is not legal in its position",
    NonCanonicalSan = "E021": "a move not written in canonical SAN",
    DuplicateOpcode = "E022": "an opcode that appears twice",
    ConflictingOpcodes = "E023": "opcodes that exclude each other",
    MissingSm = "E024": "draw_offer or draw_claim without sm",
    EnumeratedOperand = "E025": "an operand outside the opcode's enumerated values",
    MoveCounters = "E027": "FEN move counters in an EPD record",
    MateNotation = "E028": "mate notation (#N) where a move belongs",
    DetachedCheckMark = "E029": "a check mark separated from its move",
    CoordinateMove = "E030": "a coordinate or long algebraic move where SAN belongs",
    Escape = "E031": "a backslash escape inside a string",
    PositionWarning = "E032": "a position no legal game reaches, accepted for move generation",
    TrailingText = "E033": "text after the last operation",
    EngineFault = "E034": "the analysis engine failed on this record (crash, hang, protocol error)",
    ImpossibleCheck = "E035": "a check no legal last move gives (too many checkers, or ruled out by en passant)",
    PerftUnreadable = "P001": "a perft suite line that cannot be read (its position or a depth count)",
    PerftNoCount = "P002": "a perft depth without a node count to check",
    PerftMismatch = "P003": "a perft node count that differs from the move generator's",
    PerftUnreachable = "P004": "a perft position no legal game reaches, counted all the same",
    PgnError = "P010": "a PGN game whose conversion stops here (an unreadable or illegal move, a bad FEN tag)",
    PgnWarning = "P011": "a PGN irregularity that was accepted",
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding about a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The stable code.
    pub code: Code,
    /// Byte offset in the line (0-based); printed 1-based as the column.
    pub offset: usize,
    /// The opcode concerned, if any.
    pub opcode: Option<String>,
    /// The operand concerned (0-based), if any.
    pub operand: Option<usize>,
    /// What is wrong, and what was expected or done.
    pub message: String,
}

impl Diagnostic {
    /// The 1-based column.
    #[must_use]
    pub fn column(&self) -> usize {
        self.offset + 1
    }
}

impl fmt::Display for Diagnostic {
    /// `col 12: error[E012]: pm is not the first move of pv`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: {}", self.severity, self.code, self.message)
    }
}

/// The words of an I/O error, without the "(os error 2)" that Rust's
/// `Display` adds: `No such file or directory`. Messages meant for people
/// name the file themselves.
#[must_use]
pub fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(i) if text.ends_with(')') => text[..i].to_owned(),
        _ => text,
    }
}

/// `true` if any diagnostic is an error.
#[must_use]
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(|d| d.severity == Severity::Error)
}
