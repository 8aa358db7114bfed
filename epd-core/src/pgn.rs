//! PGN: a streaming reader (tags and mainline moves; comments, NAGs and
//! variations skipped in bounded memory) and the conversion of games to
//! EPD records, one per position (the `epdlist` job).

use std::io::{self, BufRead, Write};

use crate::{Move, ParseMode, Position, SanMode, Setup};

/// A tag pair, `[Name "value"]`, with where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    /// The tag name.
    pub name: String,
    /// The value, unescaped.
    pub value: String,
    /// 1-based line of the tag.
    pub line: u64,
    /// 1-based column (byte) of the tag's `[`.
    pub column: u32,
    /// 1-based column (byte) of the value's first byte, just after its
    /// opening quote (where the value was expected when it has none). Up
    /// to the first escape, byte `i` of [`Tag::value`] is at column
    /// `value_column + i`.
    pub value_column: u32,
}

/// A mainline move as written, with where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveText {
    /// The SAN as written (annotations included).
    pub san: Vec<u8>,
    /// 1-based line of the move.
    pub line: u64,
    /// 1-based column of the move.
    pub column: u32,
}

/// One game: its tags, mainline moves and result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Game {
    /// Tag pairs in order.
    pub tags: Vec<Tag>,
    /// Mainline moves in order.
    pub moves: Vec<MoveText>,
    /// The game termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`), if
    /// one was read.
    pub result: Option<String>,
    /// 1-based line where the game starts.
    pub line: u64,
    /// Problems met while reading (the game is still returned), each
    /// where it was found.
    pub warnings: Vec<Note>,
}

/// A problem met while reading PGN, at its line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// 1-based line.
    pub line: u64,
    /// 1-based column (byte).
    pub column: u32,
    /// What was wrong.
    pub message: String,
}

impl Game {
    /// The value of a tag (the first, if the name is repeated).
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tag_pair(name).map(|t| t.value.as_str())
    }

    /// A tag with where it was found (the first, if the name is repeated).
    #[must_use]
    pub fn tag_pair(&self, name: &str) -> Option<&Tag> {
        self.tags.iter().find(|t| t.name == name)
    }
}

/// Variations nested deeper than this are still skipped correctly (the
/// depth is only counted), but reported once.
const DEEP_VARIATIONS: u64 = 256;
/// A single token longer than this is not a move; it is skipped.
const MAX_TOKEN: usize = 256;

/// Reads games one at a time from any buffered reader.
///
/// ```
/// use epd_core::pgn::PgnReader;
/// let text = b"[White \"A\"]\n\n1. e4 {best} e5 (1... c5) 2. Nf3 1-0\n";
/// let mut r = PgnReader::new(&text[..]);
/// let g = r.next_game().unwrap().unwrap();
/// assert_eq!(g.tag("White"), Some("A"));
/// assert_eq!(g.moves.len(), 3);
/// assert_eq!(g.result.as_deref(), Some("1-0"));
/// ```
#[derive(Debug)]
pub struct PgnReader<R> {
    input: R,
    line: Vec<u8>,
    pos: usize,
    line_no: u64,
    eof: bool,
}

#[derive(PartialEq, Eq)]
enum Token {
    Tag,
    Word,
    Eof,
}

impl<R: BufRead> PgnReader<R> {
    /// A reader over `input`.
    pub fn new(input: R) -> PgnReader<R> {
        PgnReader { input, line: Vec::new(), pos: 0, line_no: 0, eof: false }
    }

    fn next_line(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        self.line.clear();
        self.pos = 0;
        // Lines are read whole, but a single line is capped: the rest of
        // an enormous line is read and dropped in pieces.
        let n = read_capped(&mut self.input, &mut self.line, 1 << 20)?;
        if n == 0 {
            self.eof = true;
            return Ok(false);
        }
        self.line_no += 1;
        while matches!(self.line.last(), Some(b'\n' | b'\r')) {
            self.line.pop();
        }
        // Escape lines (`%` in column 1) are ignored.
        if self.line.first() == Some(&b'%') {
            self.line.clear();
        }
        Ok(true)
    }

    /// Skips blanks (across lines) and tells what comes next.
    fn peek(&mut self) -> io::Result<Token> {
        loop {
            while self.pos < self.line.len() && self.line[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.pos < self.line.len() {
                return Ok(if self.line[self.pos] == b'[' { Token::Tag } else { Token::Word });
            }
            if !self.next_line()? {
                return Ok(Token::Eof);
            }
        }
    }

    /// Reads the next game, or `None` at the end of the input.
    ///
    /// # Errors
    /// Only I/O errors; malformed PGN gives warnings on the game.
    pub fn next_game(&mut self) -> io::Result<Option<Game>> {
        let mut game = Game::default();
        // Tags.
        loop {
            match self.peek()? {
                Token::Eof => {
                    return Ok(None);
                }
                Token::Tag => {
                    if game.line == 0 {
                        game.line = self.line_no;
                    }
                    self.read_tag(&mut game);
                }
                Token::Word => break,
            }
        }
        if game.line == 0 {
            game.line = self.line_no;
        }
        // Movetext.
        let mut depth: u64 = 0;
        let mut warned_deep = false;
        // Where the outermost open variation began.
        let mut opened = (0u64, 0u32);
        loop {
            let tok = self.peek()?;
            if tok == Token::Eof {
                if depth > 0 {
                    game.warnings.push(Note {
                        line: opened.0,
                        column: opened.1,
                        message: format!("{depth} variation(s) opened here not closed at the end of the input"),
                    });
                }
                if game.result.is_none() {
                    let (line, column) = game.moves.last().map_or((game.line, 1), |m| (m.line, m.column));
                    game.warnings.push(Note {
                        line,
                        column,
                        message: "no game termination marker after this game's last move".into(),
                    });
                }
                return Ok(Some(game));
            }
            if tok == Token::Tag && self.pos == 0 && depth == 0 {
                // A new game's tags without a result for this one.
                game.warnings.push(Note {
                    line: self.line_no,
                    column: 1,
                    message: "no game termination marker before the next game's tags".into(),
                });
                return Ok(Some(game));
            }
            let c = self.line[self.pos];
            match c {
                b'{' => self.skip_comment(&mut game)?,
                b';' => self.pos = self.line.len(),
                b'(' => {
                    if depth == 0 {
                        opened = (self.line_no, self.pos as u32 + 1);
                    }
                    depth += 1;
                    self.pos += 1;
                    if depth > DEEP_VARIATIONS && !warned_deep {
                        game.warnings.push(Note {
                            line: self.line_no,
                            column: self.pos as u32,
                            message: format!("variations nested more than {DEEP_VARIATIONS} deep"),
                        });
                        warned_deep = true;
                    }
                }
                b')' => {
                    self.pos += 1;
                    if depth == 0 {
                        game.warnings.push(Note {
                            line: self.line_no,
                            column: self.pos as u32,
                            message: "')' without '('".into(),
                        });
                    } else {
                        depth -= 1;
                    }
                }
                b'[' => {
                    // A tag inside movetext (not at line start): skip it.
                    self.pos = self.line[self.pos..]
                        .iter()
                        .position(|&b| b == b']')
                        .map_or(self.line.len(), |i| self.pos + i + 1);
                }
                _ => {
                    let start = self.pos;
                    while self.pos < self.line.len() && !is_delimiter(self.line[self.pos]) {
                        self.pos += 1;
                    }
                    if self.pos == start {
                        // A stray delimiter such as '}' or ']'.
                        self.pos += 1;
                        continue;
                    }
                    let word = &self.line[start..self.pos];
                    if matches!(word, b"1-0" | b"0-1" | b"1/2-1/2" | b"*") {
                        if depth == 0 {
                            game.result = Some(String::from_utf8_lossy(word).into_owned());
                            return Ok(Some(game));
                        }
                        continue;
                    }
                    if depth > 0 {
                        continue;
                    }
                    let word = strip_move_number(word);
                    if word.is_empty() || word[0] == b'$' || word.iter().all(|&b| b == b'!' || b == b'?') {
                        continue;
                    }
                    if word.len() > MAX_TOKEN {
                        game.warnings.push(Note {
                            line: self.line_no,
                            column: start as u32 + 1,
                            message: format!("a token of {} bytes skipped", word.len()),
                        });
                        continue;
                    }
                    let column = (start + 1 + (self.pos - start - word.len())) as u32;
                    game.moves.push(MoveText { san: word.to_vec(), line: self.line_no, column });
                }
            }
        }
    }

    fn read_tag(&mut self, game: &mut Game) {
        // `[Name "value"]`, possibly several on a line.
        let line = &self.line;
        let open = self.pos as u32 + 1;
        let mut p = self.pos + 1;
        while p < line.len() && line[p].is_ascii_whitespace() {
            p += 1;
        }
        let name_start = p;
        while p < line.len() && (line[p].is_ascii_alphanumeric() || line[p] == b'_') {
            p += 1;
        }
        let name = String::from_utf8_lossy(&line[name_start..p]).into_owned();
        while p < line.len() && line[p].is_ascii_whitespace() {
            p += 1;
        }
        let mut value = Vec::new();
        let value_column;
        if p < line.len() && line[p] == b'"' {
            p += 1;
            value_column = p as u32 + 1;
            while p < line.len() && line[p] != b'"' {
                if line[p] == b'\\' && p + 1 < line.len() {
                    p += 1;
                }
                value.push(line[p]);
                p += 1;
            }
            p += 1;
        } else {
            value_column = p.min(line.len()) as u32 + 1;
            game.warnings.push(Note {
                line: self.line_no,
                column: value_column,
                message: format!("tag {name} has no quoted value"),
            });
        }
        match line[p.min(line.len())..].iter().position(|&b| b == b']') {
            Some(i) => p += i + 1,
            None => {
                game.warnings.push(Note {
                    line: self.line_no,
                    column: open,
                    message: format!("tag {name} is not closed with ']'"),
                });
                p = line.len();
            }
        }
        if !name.is_empty() {
            game.tags.push(Tag {
                name,
                value: String::from_utf8_lossy(&value).into_owned(),
                line: self.line_no,
                column: open,
                value_column,
            });
        }
        self.pos = p;
    }

    fn skip_comment(&mut self, game: &mut Game) -> io::Result<()> {
        let (start_line, start_column) = (self.line_no, self.pos as u32 + 1);
        self.pos += 1;
        loop {
            if let Some(i) = self.line[self.pos..].iter().position(|&b| b == b'}') {
                self.pos += i + 1;
                return Ok(());
            }
            if !self.next_line()? {
                game.warnings.push(Note {
                    line: start_line,
                    column: start_column,
                    message: "a comment opened here is not closed".into(),
                });
                return Ok(());
            }
        }
    }
}

fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'{' | b'}' | b'(' | b')' | b';' | b'[' | b']')
}

/// `12.e4` → `e4`; `12...` → empty; `e4` unchanged.
fn strip_move_number(word: &[u8]) -> &[u8] {
    let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 && word.get(digits) == Some(&b'.') {
        let dots = word[digits..].iter().take_while(|&&b| b == b'.').count();
        &word[digits + dots..]
    } else if digits == word.len() {
        // A bare number (move number without its dot).
        &word[word.len()..]
    } else {
        word
    }
}

/// Reads one line into `buf`, keeping at most `cap` bytes of it.
fn read_capped<R: BufRead>(input: &mut R, buf: &mut Vec<u8>, cap: usize) -> io::Result<usize> {
    let mut total = 0;
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(total);
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let n = chunk.len();
        total += n;
        input.consume(n);
        if done {
            return Ok(total);
        }
    }
}

/// What [`to_epd`] adds to each record.
#[derive(Clone, Debug, Default)]
pub struct EpdOptions {
    /// Add `sm`, the move played from each position.
    pub supplied_move: bool,
    /// Add `hmvc` and `fmvn`.
    pub counters: bool,
    /// Add `id` built from the tags: `"White-Black Date ply N"`... see
    /// [`record_id`].
    pub id: bool,
    /// Add `c0` with the game's Event, Site, Date, Round and Result.
    pub comment: bool,
    /// Write each position only the first time it occurs (its four EPD
    /// fields as written), across all games of the run.
    pub unique: bool,
    /// Only positions whose ply index in the game (0: the start, 1: after
    /// the first move) is in this inclusive range.
    pub plies: Option<(u32, u32)>,
    /// Only the last position of each game (after its last mainline move).
    pub final_only: bool,
    /// Only positions with this many pieces on the board, kings and
    /// pawns included (an inclusive range; 32 at the start).
    pub pieces: Option<(u32, u32)>,
    /// Label every record with its game's result, in this layout. Games
    /// without a result (`*`, or none: the termination marker, else the
    /// `Result` tag) are skipped and counted ([`PgnSummary::unlabelled`]).
    pub label: Option<LabelFormat>,
}

/// How [`EpdOptions::label`] writes a game's result, always from White's
/// point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelFormat {
    /// The EPD record with `c9 "1-0";`, `c9 "0-1";` or `c9 "1/2-1/2";`
    /// (zurichess's `quiet-labeled.epd`), among the other operations asked
    /// for, in canonical order.
    C9,
    /// The six FEN fields, a blank and `[1.0]`, `[0.0]` or `[0.5]` (the
    /// layout Ethereal's tuner and its many descendants read); nothing
    /// else, whatever other operations are asked for.
    FenResult,
}

/// A game's result as a label: the termination marker, else the `Result`
/// tag; `None` for `*`, a missing result or anything else.
fn game_result(game: &Game) -> Option<&'static str> {
    match game.result.as_deref().or(game.tag("Result")) {
        Some("1-0") => Some("1-0"),
        Some("0-1") => Some("0-1"),
        Some("1/2-1/2") => Some("1/2-1/2"),
        _ => None,
    }
}

/// The `id` of the position after `ply` plies of `game`:
/// `White - Black, Event Round, ply N`.
#[must_use]
pub fn record_id(game: &Game, ply: usize) -> String {
    let t = |n: &str| game.tag(n).unwrap_or("?");
    format!("{} - {}, {} {}, ply {ply}", t("White"), t("Black"), t("Event"), t("Round"))
}

/// Counts from [`to_epd`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnSummary {
    /// Games read.
    pub games: u64,
    /// Games whose every mainline move was converted.
    pub complete: u64,
    /// Records written.
    pub records: u64,
    /// Positions left out because they were written before (`unique`).
    pub repeated: u64,
    /// Positions the caller's filter left out
    /// ([`Converter::convert_filtered`]).
    pub rejected: u64,
    /// Games skipped for want of a result to label them with
    /// ([`EpdOptions::label`]).
    pub unlabelled: u64,
    /// The run saw its stop flag raised ([`Converter::with_stop`]) and
    /// ended before the next game: every game before it was written whole.
    pub interrupted: bool,
}

/// A problem with one game, for the caller's reporter.
#[derive(Clone, Debug)]
pub struct PgnDiagnostic {
    /// 1-based line.
    pub line: u64,
    /// 1-based column (0 when it concerns the whole game).
    pub column: u32,
    /// `true` when the rest of the game was not converted.
    pub error: bool,
    /// What went wrong.
    pub message: String,
}

/// Converts every game to EPD: one record for the initial position and
/// one after every mainline move (Chess::PGN::EPD's `epdlist`).
///
/// A game that starts from a `FEN` tag starts there. An illegal move ends
/// that game's records (reported); the following games go on.
///
/// # Errors
/// Only I/O errors.
pub fn to_epd<R: BufRead, W: Write>(
    input: R,
    output: W,
    options: &EpdOptions,
    report: impl FnMut(&PgnDiagnostic),
) -> io::Result<PgnSummary> {
    Converter::new(options.clone()).convert(input, output, report)
}

/// [`to_epd`] over several inputs that share one run: `unique` keeps a
/// position's first occurrence across all of them.
///
/// The positions seen are kept as 128-bit hashes of their four fields
/// (two SipHash-1-3 with independent random keys): 16 bytes a position,
/// and a chance of about n²/2¹²⁹ that two of n positions collide and one
/// is wrongly left out (for a billion positions, under 10⁻²⁰).
#[derive(Debug)]
pub struct Converter {
    options: EpdOptions,
    seen: std::collections::HashSet<u128>,
    keys: (std::collections::hash_map::RandomState, std::collections::hash_map::RandomState),
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Converter {
    /// A converter with these options and nothing seen yet.
    #[must_use]
    pub fn new(options: EpdOptions) -> Converter {
        Converter { options, seen: std::collections::HashSet::new(), keys: Default::default(), stop: None }
    }

    /// Watches `stop` (a signal handler or another thread raises it): a
    /// run that sees it raised reads no further game and ends with
    /// [`PgnSummary::interrupted`], every game before written whole.
    #[must_use]
    pub fn with_stop(mut self, stop: std::sync::Arc<std::sync::atomic::AtomicBool>) -> Converter {
        self.stop = Some(stop);
        self
    }

    fn stopped(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// `true` the first time these position fields are given.
    fn first_time(&mut self, fields: &[u8]) -> bool {
        use std::hash::BuildHasher;
        let a = self.keys.0.hash_one(fields);
        let b = self.keys.1.hash_one(fields);
        self.seen.insert((u128::from(a) << 64) | u128::from(b))
    }

    /// Converts every game of `input` (see [`to_epd`]).
    ///
    /// # Errors
    /// Only I/O errors.
    pub fn convert<R: BufRead, W: Write>(
        &mut self,
        input: R,
        output: W,
        report: impl FnMut(&PgnDiagnostic),
    ) -> io::Result<PgnSummary> {
        self.convert_filtered(input, output, report, |_| true)
    }

    /// [`Converter::convert`], writing only the positions `keep` accepts
    /// (the others are counted in [`PgnSummary::rejected`]). `keep` sees
    /// the positions the options chose, after `unique` has left out the
    /// repeated ones: a position refused once still counts as seen.
    ///
    /// # Errors
    /// Only I/O errors.
    pub fn convert_filtered<R: BufRead, W: Write>(
        &mut self,
        input: R,
        mut output: W,
        mut report: impl FnMut(&PgnDiagnostic),
        mut keep: impl FnMut(&Position) -> bool,
    ) -> io::Result<PgnSummary> {
        let options = &self.options.clone();
        let mut reader = PgnReader::new(input);
        let mut summary = PgnSummary::default();
        let mut out = Vec::with_capacity(256);
        loop {
            if self.stopped() {
                summary.interrupted = true;
                break;
            }
            let Some(game) = reader.next_game()? else {
                break;
            };
            summary.games += 1;
            for w in game.warnings.iter().chain(&setup_warnings(&game)) {
                report(&PgnDiagnostic { line: w.line, column: w.column, error: false, message: w.message.clone() });
            }
            let start = match game.tag_pair("FEN") {
                Some(tag) => match start_position(tag) {
                    Ok(p) => p,
                    Err(note) => {
                        report(&PgnDiagnostic {
                            line: note.line,
                            column: note.column,
                            error: true,
                            message: note.message,
                        });
                        continue;
                    }
                },
                None => Position::startpos(),
            };
            let mut pos = start;
            let mut ok = true;
            let mut moves: Vec<Move> = Vec::with_capacity(game.moves.len());
            for mt in &game.moves {
                match pos.parse_san(&mt.san, SanMode::Lenient) {
                    Ok(m) => {
                        moves.push(m);
                        pos.play_unchecked(m);
                    }
                    Err(e) => {
                        report(&PgnDiagnostic {
                            line: mt.line,
                            column: mt.column,
                            error: true,
                            message: format!("{}: {e}", move_label(&start, moves.len(), &mt.san)),
                        });
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                summary.complete += 1;
            }
            let result = game_result(&game);
            if options.label.is_some() && result.is_none() {
                summary.unlabelled += 1;
                continue;
            }
            // The operations are written straight in canonical order (c0, c9,
            // fmvn, hmvc, id, sm: ASCII order of opcode), as Record::append_canonical
            // would write them; what is the same for every ply is built once.
            let c0 = options.comment.then(|| {
                let text = format!(
                    "{} {} {} {} {}",
                    game.tag("Event").unwrap_or("?"),
                    game.tag("Site").unwrap_or("?"),
                    game.tag("Date").unwrap_or("?"),
                    game.tag("Round").unwrap_or("?"),
                    game.result.as_deref().or(game.tag("Result")).unwrap_or("*")
                );
                let mut quoted = Vec::new();
                crate::operand::append_quoted(sanitize(&text).as_bytes(), &mut quoted);
                quoted
            });
            let id_prefix = options.id.then(|| {
                let t = |n: &str| game.tag(n).unwrap_or("?");
                sanitize_chars(&format!("{} - {}, {} {}, ply ", t("White"), t("Black"), t("Event"), t("Round")))
            });
            let mut id = String::new();
            let mut pos = start;
            let last = moves.len();
            for ply in 0..=last {
                if ply > 0 {
                    pos.play_unchecked(moves[ply - 1]);
                }
                let next = moves.get(ply).copied();
                let wanted = (!options.final_only || ply == last)
                    && options.plies.is_none_or(|(a, b)| (a as usize..=b as usize).contains(&ply))
                    && options.pieces.is_none_or(|(a, b)| (a..=b).contains(&(pos.board().occupied().count() as u32)));
                if !wanted {
                    continue;
                }
                out.clear();
                pos.append_epd_fields(&mut out);
                if options.unique && !self.first_time(&out) {
                    summary.repeated += 1;
                    continue;
                }
                if !keep(&pos) {
                    summary.rejected += 1;
                    continue;
                }
                if let (Some(LabelFormat::FenResult), Some(result)) = (options.label, result) {
                    out.clear();
                    pos.append_fen(&mut out);
                    out.extend_from_slice(match result {
                        "1-0" => b" [1.0]",
                        "0-1" => b" [0.0]",
                        _ => b" [0.5]",
                    });
                } else {
                    if let Some(c0) = &c0 {
                        out.extend_from_slice(b" c0 ");
                        out.extend_from_slice(c0);
                        out.push(b';');
                    }
                    if let (Some(LabelFormat::C9), Some(result)) = (options.label, result) {
                        out.extend_from_slice(b" c9 \"");
                        out.extend_from_slice(result.as_bytes());
                        out.extend_from_slice(b"\";");
                    }
                    if options.counters {
                        if pos.fullmoves() >= 1 {
                            out.extend_from_slice(b" fmvn ");
                            out.extend_from_slice(pos.fullmoves().to_string().as_bytes());
                            out.push(b';');
                        }
                        out.extend_from_slice(b" hmvc ");
                        out.extend_from_slice(pos.halfmoves().to_string().as_bytes());
                        out.push(b';');
                    }
                    if let Some(prefix) = &id_prefix {
                        id.clear();
                        id.push_str(prefix);
                        id.push_str(&ply.to_string());
                        truncate_string(&mut id);
                        out.extend_from_slice(b" id ");
                        crate::operand::append_quoted(id.as_bytes(), &mut out);
                        out.push(b';');
                    }
                    if options.supplied_move {
                        if let Some(m) = next {
                            out.extend_from_slice(b" sm ");
                            pos.append_san(m, &mut out);
                            out.push(b';');
                        }
                    }
                }
                out.push(b'\n');
                output.write_all(&out)?;
                summary.records += 1;
            }
        }
        output.flush()?;
        Ok(summary)
    }
}

/// The position a `FEN` tag sets up, or the error at the tag's value: its
/// line, and the column of the value's first byte (the message says where
/// in the FEN, when the FEN cannot be read).
fn start_position(tag: &Tag) -> Result<Position, Note> {
    let at = |message: String| Note { line: tag.line, column: tag.value_column, message };
    let setup = Setup::from_fen(tag.value.as_bytes(), ParseMode::Lenient).map_err(|e| {
        at(format!("FEN tag: invalid {} at column {} of the FEN: expected {}", e.field, e.offset + 1, e.expected))
    })?;
    Position::from_setup(setup).map_err(|e| at(format!("FEN tag: {e}")))
}

/// What is wrong with a game's `SetUp` tag (PGN standard §9.7.1: "0" for
/// the standard start, "1" when a `FEN` tag gives the start), at the tag's
/// value. The game is converted all the same, from its `FEN` tag if it
/// has one.
fn setup_warnings(game: &Game) -> Vec<Note> {
    let Some(tag) = game.tag_pair("SetUp") else {
        return Vec::new();
    };
    let has_fen = game.tag_pair("FEN").is_some();
    let message = match (tag.value.as_str(), has_fen) {
        ("0", false) | ("1", true) => return Vec::new(),
        ("1", false) => "tag SetUp is \"1\" but the game has no FEN tag: it starts from the standard position".into(),
        ("0", true) => "tag SetUp is \"0\" but the game has a FEN tag: it starts from the FEN tag's position".into(),
        (v, _) => format!("tag SetUp is {v:?}: expected \"0\" (the standard start) or \"1\" (a FEN tag's position)"),
    };
    vec![Note { line: tag.line, column: tag.value_column, message }]
}

/// A move named as PGN numbers it, from the game's start position:
/// `5. Nf3` for White's move, `5... Qxx4` for Black's. A start position
/// whose fullmove number is 0 counts as 1 (as python-chess does).
fn move_label(start: &Position, index: usize, san: &[u8]) -> String {
    let ply = index as u64 + u64::from(start.turn() == crate::Color::Black);
    let number = u64::from(start.fullmoves().max(1)) + ply / 2;
    let dots = if ply.is_multiple_of(2) { "." } else { "..." };
    format!("{number}{dots} {}", String::from_utf8_lossy(san))
}

/// Makes text fit an EPD string: printing characters, under 256 bytes.
fn sanitize(s: &str) -> String {
    let mut out = sanitize_chars(s);
    truncate_string(&mut out);
    out
}

/// Control characters replaced by blanks.
fn sanitize_chars(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// Shortened, a character at a time, to under 256 bytes.
fn truncate_string(s: &mut String) {
    while s.len() >= crate::MAX_STRING {
        s.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_real_pgn_shapes() {
        let text = b"[Event \"Test \\\"quoted\\\"\"]\r\n[Site \"?\"]\r\n\r\n\
            1. e4 {a comment\nover two lines} e5 $1 2. Nf3 (2. f4 exf4 (2... d5) 3. Nf3) 2... Nc6 3.\nBb5 a6!? ; rest ignored\n\
            4. Ba4 1/2-1/2\n\n% escape line\n1.d4 d5 *\n[Event \"no result\"]\n1. e4\n[Event \"next\"]\n1. c4 0-1\n";
        let mut r = PgnReader::new(&text[..]);
        let g = r.next_game().unwrap().unwrap();
        assert_eq!(g.tag("Event"), Some("Test \"quoted\""));
        let sans: Vec<String> = g.moves.iter().map(|m| String::from_utf8_lossy(&m.san).into_owned()).collect();
        assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6!?", "Ba4"]);
        assert_eq!(g.result.as_deref(), Some("1/2-1/2"));
        assert!(g.warnings.is_empty(), "{:?}", g.warnings);
        let g = r.next_game().unwrap().unwrap();
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.result.as_deref(), Some("*"));
        let g = r.next_game().unwrap().unwrap();
        assert_eq!(g.moves.len(), 1);
        assert_eq!(g.warnings.len(), 1);
        let g = r.next_game().unwrap().unwrap();
        assert_eq!(g.tag("Event"), Some("next"));
        assert_eq!(g.result.as_deref(), Some("0-1"));
        assert!(r.next_game().unwrap().is_none());
    }

    #[test]
    fn deep_variations_and_garbage_stay_bounded() {
        let mut text = b"1. e4 ".to_vec();
        text.extend(std::iter::repeat_n(b'(', 100_000));
        text.extend_from_slice(b"e5");
        text.extend(std::iter::repeat_n(b')', 100_000));
        text.extend_from_slice(b" e5 1-0\n");
        let mut r = PgnReader::new(&text[..]);
        let g = r.next_game().unwrap().unwrap();
        assert_eq!(g.moves.len(), 2);
        assert_eq!(g.warnings.len(), 1);
        // Random bytes: no panic.
        let mut x = epd_testkit::XorShift::new(1);
        let a = b"[]{}();\"\n 1.e4xO-$!?abc\r\\";
        let noise: Vec<u8> = (0..200_000).map(|_| a[x.below(a.len())]).collect();
        let mut out = Vec::new();
        let _ = to_epd(&noise[..], &mut out, &EpdOptions::default(), |_| {}).unwrap();
    }

    #[test]
    fn converts_games_to_one_record_per_position() {
        let text = b"[White \"W\"]\n[Black \"B\"]\n[Event \"E\"]\n[Round \"1\"]\n\n1. e4 e5 2. Nf3 1-0\n\n\
            [FEN \"8/8/8/8/8/8/4k3/K6R w - - 0 40\"]\n[SetUp \"1\"]\n\n40. Rh2+ Kd3 41. Rxx9 *\n";
        let mut out = Vec::new();
        let opts =
            EpdOptions { supplied_move: true, counters: true, id: true, comment: false, ..EpdOptions::default() };
        let mut diags = Vec::new();
        let s = to_epd(&text[..], &mut out, &opts, |d| diags.push(d.clone())).unwrap();
        assert_eq!((s.games, s.complete, s.records), (2, 1, 4 + 3));
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - fmvn 1; hmvc 0; id \"W - B, E 1, ply 0\"; sm e4;"
        );
        assert_eq!(
            lines[1],
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 fmvn 1; hmvc 0; id \"W - B, E 1, ply 1\"; sm e5;"
        );
        assert!(lines[3].ends_with("id \"W - B, E 1, ply 3\";"), "{}", lines[3]);
        assert!(lines[4].starts_with("8/8/8/8/8/8/4k3/K6R w - - fmvn 40; hmvc 0;"), "{}", lines[4]);
        assert!(lines[5].contains("sm Kd3;"), "{}", lines[5]);
        assert_eq!(diags.len(), 1);
        assert!(diags[0].error && diags[0].message.contains("Rxx9"), "{:?}", diags[0]);
    }

    /// A raised stop flag ends the run before the next game: here the
    /// report of game 2's illegal move raises it, so game 3 is never read
    /// and every record written belongs to a whole game.
    #[test]
    fn a_raised_stop_ends_the_run_before_the_next_game() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let text = b"1. e4 e5 1-0\n\n1. d4 Kxx9 *\n\n1. c4 c5 0-1\n";
        let stop = Arc::new(AtomicBool::new(false));
        let raise = Arc::clone(&stop);
        let mut out = Vec::new();
        let s = Converter::new(EpdOptions::default())
            .with_stop(Arc::clone(&stop))
            .convert(&text[..], &mut out, |_| raise.store(true, Ordering::SeqCst))
            .unwrap();
        assert!(s.interrupted);
        assert_eq!((s.games, s.complete, s.records), (2, 1, 3 + 2));
        assert!(out.ends_with(b"\n") && !String::from_utf8_lossy(&out).contains("/2P5/"), "game 3 was converted");
        // Lowered, a converter watching the flag reads every game.
        stop.store(false, Ordering::SeqCst);
        let mut c = Converter::new(EpdOptions::default()).with_stop(stop);
        let s = c.convert(&text[..], Vec::new(), |_| {}).unwrap();
        assert!(!s.interrupted);
        assert_eq!(s.games, 3);
    }

    /// Labels, the piece-count range and the caller's filter: games with
    /// no result are skipped and counted; each layout as documented.
    #[test]
    fn labels_pieces_and_filters() {
        // A decisive game, one with `*`, one whose tag alone gives the
        // result (no termination marker), and a draw reaching a
        // three-piece ending by captures.
        let text = b"[Result \"0-1\"]\n\n1. e4 e5 0-1\n\n[Result \"*\"]\n\n1. d4 *\n\n\
            [Result \"1-0\"]\n\n1. c4\n\n\
            [FEN \"4k3/8/8/8/8/2n5/8/R3K3 w - - 0 1\"]\n\n1. Ra8+ Ke7 2. Ra3 Kd6 3. Rxc3 1/2-1/2\n";
        let run = |options: EpdOptions, keep: &dyn Fn(&Position) -> bool| {
            let mut out = Vec::new();
            let s = Converter::new(options).convert_filtered(&text[..], &mut out, |_| {}, keep).unwrap();
            (String::from_utf8(out).unwrap(), s)
        };
        let c9 = EpdOptions { label: Some(LabelFormat::C9), counters: true, ..EpdOptions::default() };
        let (out, s) = run(c9, &|_| true);
        assert_eq!((s.games, s.unlabelled, s.records), (4, 1, 3 + 2 + 6));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c9 \"0-1\"; fmvn 1; hmvc 0;");
        assert_eq!(lines[3], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - c9 \"1-0\"; fmvn 1; hmvc 0;");
        assert_eq!(lines[10], "8/8/3k4/8/8/2R5/8/4K3 b - - c9 \"1/2-1/2\"; fmvn 3; hmvc 0;");

        let fen = EpdOptions { label: Some(LabelFormat::FenResult), id: true, ..EpdOptions::default() };
        let (out, _) = run(fen, &|_| true);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[1], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1 [0.0]");
        assert_eq!(lines[4], "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq c3 0 1 [1.0]");
        assert_eq!(lines[10], "8/8/3k4/8/8/2R5/8/4K3 b - - 0 3 [0.5]");

        // Three pieces only after the last capture, four before it.
        let few = EpdOptions { pieces: Some((2, 3)), ..EpdOptions::default() };
        let (out, s) = run(few, &|_| true);
        assert_eq!((out.as_str(), s.records), ("8/8/3k4/8/8/2R5/8/4K3 b - -\n", 1));

        // The filter sees what unique leaves; what it refuses is counted.
        let unique = EpdOptions { unique: true, ..EpdOptions::default() };
        let (out, s) = run(unique, &|p| p.turn() == crate::Color::White);
        assert_eq!((s.records, s.repeated, s.rejected), (5, 2, 6), "{out}");
    }

    /// Issue 32, item 6: a move is named as PGN numbers it (`5... Qxx4`,
    /// not `move 10 (Qxx4)`), counting from a FEN tag's fullmove number
    /// and side to move; a tag's problem is at the tag's line and the
    /// column of its value or '[' (a bad FEN tag on line 2 was at 1:1).
    #[test]
    fn diagnostics_name_moves_and_places_in_pgn_terms() {
        const K: &str = "4k3/8/8/8/8/8/8/4K2R";
        // (line, column, error, message) of each diagnostic.
        type Want = (u64, u32, bool, &'static str);
        let cases: &[(&str, &[Want])] = &[
            // An illegal White move.
            (
                "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Qd5 *\n",
                &[(3, 24, true, "3. Qd5: illegal san: no queen can reach d5")],
            ),
            // An illegal Black move, the issue's own.
            (
                "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6\n5. O-O Qxx4 6. Re1 *\n",
                &[(4, 8, true, "5... Qxx4: invalid san at column 3: expected a target square such as e4")],
            ),
            // From a FEN tag, Black to move at fullmove 20.
            (
                "[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 0 20\"]\n[SetUp \"1\"]\n\n20... Kd1 *\n",
                &[(4, 7, true, "20... Kd1: illegal san: no king can reach d1")],
            ),
            (
                "[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 0 20\"]\n[SetUp \"1\"]\n\n20... Kd7 21. O-O Kd6 22. Rf8 Ke9 *\n",
                &[(4, 31, true, "22... Ke9: invalid san at column 3: expected a target square such as e4")],
            ),
            // White to move at fullmove 0 counts from 1, as python-chess does.
            ("[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 0\"]\n\nKd7 *\n", &[(3, 1, true, "1. Kd7: illegal san: no king can reach d7")]),
            // A bad FEN tag on line 2: at the value's first byte, with the
            // column inside the FEN in the message.
            (
                "[Event \"x\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1\"]\n\n1. e4 *\n",
                &[(
                    2,
                    7,
                    true,
                    "FEN tag: invalid castling availability at column 50 of the FEN: expected castling letters K, Q, k, q or a file letter A-H, a-h",
                )],
            ),
            // A FEN tag spread oddly: blanks around the name and inside the
            // value.
            (
                "[Event \"x\"]\n  [  FEN    \"  4k3/8/8/8/8/8/8/4K2R   b K - 0 20 \" ]\n\n20... Kd1 *\n",
                &[(4, 7, true, "20... Kd1: illegal san: no king can reach d1")],
            ),
            (
                "[Event \"x\"]\n  [  FEN    \"  4k3/8/8/8/8/8/8/4K2R   x K - 0 20 \" ]\n\n20... Kd1 *\n",
                &[(2, 14, true, "FEN tag: invalid active colour at column 26 of the FEN: expected 'w' or 'b'")],
            ),
            // Two tags on a line; a FEN that is not a legal position.
            ("[Event \"x\"] [FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n", &[(1, 19, true, "FEN tag: white has no king")]),
            // SetUp: at its value; the game is still converted.
            (
                "[Event \"x\"]\n[SetUp \"1\"]\n\n1. e4 *\n",
                &[(2, 9, false, "tag SetUp is \"1\" but the game has no FEN tag: it starts from the standard position")],
            ),
            (
                &*format!("[SetUp \"0\"]\n[FEN \"{K} w K - 0 1\"]\n\n1. O-O *\n"),
                &[(1, 9, false, "tag SetUp is \"0\" but the game has a FEN tag: it starts from the FEN tag's position")],
            ),
            (
                "[Event \"x\"]\n[SetUp  \"yes\"]\n\n1. e4 *\n",
                &[(2, 10, false, "tag SetUp is \"yes\": expected \"0\" (the standard start) or \"1\" (a FEN tag's position)")],
            ),
            // Unclosed tags and tags without a value: at the '[' or where
            // the value was expected.
            (
                "[Event \"x\"]\n[Site \"y\"\n [Round 5]\n\n1. e4 *\n",
                &[(2, 1, false, "tag Site is not closed with ']'"), (3, 9, false, "tag Round has no quoted value")],
            ),
        ];
        for (pgn, want) in cases {
            let mut got = Vec::new();
            to_epd(pgn.as_bytes(), Vec::new(), &EpdOptions::default(), |d| {
                got.push((d.line, d.column, d.error, d.message.clone()));
            })
            .unwrap();
            let want: Vec<(u64, u32, bool, String)> =
                want.iter().map(|&(l, c, e, m)| (l, c, e, m.to_owned())).collect();
            assert_eq!(got, want, "{pgn}");
        }
    }
}
