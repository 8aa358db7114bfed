//! Positions: from and to FEN and EPD fields, legal moves, making moves,
//! game status; the small value types (moves, pieces, 64-bit integers).

use crate::error::{
    epd_status, guard, Error, Result, EPD_STATUS_BUFFER_TOO_SMALL, EPD_STATUS_FEN_SYNTAX, EPD_STATUS_ILLEGAL_MOVE,
    EPD_STATUS_ILLEGAL_POSITION, EPD_STATUS_INVALID_ARGUMENT, EPD_STATUS_OUT_OF_RANGE,
};
use crate::ptr::{
    arg_mut, arg_ref, bytes, free_boxed, owned_string, to_boxed, write_array, Castable, Out, OwnershipBox,
};
use core::ffi::{c_char, c_int, c_long, c_uchar, c_uint, c_ulong};
use epd_core::{Color, Move, MoveKind, ParseError, ParseMode, Position, Role, Square};

/// A legal chess position: placement, side to move, castling rights, en
/// passant square and move counters.
///
/// Created by epd_position_new, epd_position_from_fen,
/// epd_position_clone or epd_record_position; freed with
/// epd_position_free.
///
/// Thread safety: a position may be used from any thread, and read
/// (through const pointers) from several threads at once; it must not be
/// changed (epd_position_play...) while another thread uses it.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_position {
    _private: [u8; 0],
}

impl Castable for epd_position {
    type Ownership = OwnershipBox;
    type RustType = Position;
}

/// How strictly text is read: EPD_PARSE_STRICT (the specification to the
/// letter) or EPD_PARSE_LENIENT (legacy dialects accepted and reported).
#[allow(non_camel_case_types)]
pub type epd_parse_mode = c_int;
/// Read exactly what the specification allows.
pub const EPD_PARSE_STRICT: epd_parse_mode = 0;
/// Also read legacy dialects, reporting each change as a warning.
pub const EPD_PARSE_LENIENT: epd_parse_mode = 1;

/// A side: EPD_WHITE or EPD_BLACK.
#[allow(non_camel_case_types)]
pub type epd_color = c_int;
/// White.
pub const EPD_WHITE: epd_color = 0;
/// Black.
pub const EPD_BLACK: epd_color = 1;

/// A piece kind: EPD_ROLE_NONE (an empty square) or EPD_ROLE_PAWN ..
/// EPD_ROLE_KING.
#[allow(non_camel_case_types)]
pub type epd_role = c_int;
/// No piece (an empty square; no promotion).
pub const EPD_ROLE_NONE: epd_role = 0;
/// Pawn.
pub const EPD_ROLE_PAWN: epd_role = 1;
/// Knight.
pub const EPD_ROLE_KNIGHT: epd_role = 2;
/// Bishop.
pub const EPD_ROLE_BISHOP: epd_role = 3;
/// Rook.
pub const EPD_ROLE_ROOK: epd_role = 4;
/// Queen.
pub const EPD_ROLE_QUEEN: epd_role = 5;
/// King.
pub const EPD_ROLE_KING: epd_role = 6;

/// What kind of move an epd_move is.
#[allow(non_camel_case_types)]
pub type epd_move_kind = c_int;
/// Any move that is none of the others (captures included).
pub const EPD_MOVE_NORMAL: epd_move_kind = 0;
/// A pawn promotion; the piece is in epd_move.promotion.
pub const EPD_MOVE_PROMOTION: epd_move_kind = 1;
/// An en passant capture; `to` is the square the pawn moves to.
pub const EPD_MOVE_EN_PASSANT: epd_move_kind = 2;
/// Castling, written king-takes-own-rook: `from` is the king's square and
/// `to` the rook's. One form serves standard chess and Chess960.
pub const EPD_MOVE_CASTLE: epd_move_kind = 3;

/// The most legal moves a position can have, rounded up: a buffer of
/// EPD_MAX_LEGAL_MOVES epd_move always suffices for
/// epd_position_legal_moves.
pub const EPD_MAX_LEGAL_MOVES: usize = 256;

/// Bit of epd_position_status: the side to move is in check.
pub const EPD_POSITION_CHECK: c_uint = 1;
/// Bit of epd_position_status: the side to move is checkmated.
pub const EPD_POSITION_CHECKMATE: c_uint = 2;
/// Bit of epd_position_status: the side to move has no legal move and is
/// not in check.
pub const EPD_POSITION_STALEMATE: c_uint = 4;
/// Bit of epd_position_status: neither side can checkmate.
pub const EPD_POSITION_INSUFFICIENT_MATERIAL: c_uint = 8;
/// Bit of epd_position_status: 100 plies or more without a capture or pawn
/// move (a draw may be claimed under the fifty-move rule).
pub const EPD_POSITION_FIFTY_MOVES: c_uint = 16;
/// Bit of epd_position_status: 150 plies or more without a capture or pawn
/// move (the seventy-five-move rule).
pub const EPD_POSITION_SEVENTY_FIVE_MOVES: c_uint = 32;

/// A move, as a small value. Squares are numbered 0 (a1), 1 (b1) .. 7 (h1),
/// 8 (a2) .. 63 (h8): square = 8 * rank + file, both 0-based.
///
/// Moves returned by the library are always well formed. A move passed in
/// is checked: an ill-formed one gives EPD_STATUS_INVALID_ARGUMENT, one
/// not legal in the position EPD_STATUS_ILLEGAL_MOVE.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct epd_move {
    /// Origin square (0..63); for castling the king's square.
    pub from: c_uchar,
    /// Target square (0..63); for castling the castling rook's square.
    pub to: c_uchar,
    /// The moving piece: EPD_ROLE_PAWN .. EPD_ROLE_KING.
    pub role: c_uchar,
    /// For EPD_MOVE_PROMOTION the new piece (EPD_ROLE_KNIGHT ..
    /// EPD_ROLE_QUEEN); EPD_ROLE_NONE otherwise.
    pub promotion: c_uchar,
    /// EPD_MOVE_NORMAL, EPD_MOVE_PROMOTION, EPD_MOVE_EN_PASSANT or
    /// EPD_MOVE_CASTLE.
    pub kind: c_uchar,
}

/// What stands on a square.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct epd_piece {
    /// EPD_ROLE_NONE for an empty square, else EPD_ROLE_PAWN .. EPD_ROLE_KING.
    pub role: epd_role,
    /// EPD_WHITE or EPD_BLACK (EPD_WHITE for an empty square).
    pub color: epd_color,
}

/// A signed 64-bit integer in ANSI C (C89 has no 64-bit type): the value
/// is hi * 2^32 + lo, where `hi` is the signed high half (-2^31 .. 2^31-1)
/// and `lo` the unsigned low half (0 .. 2^32-1, whatever the width of
/// unsigned long). With a 64-bit type at hand:
/// value = ((long long)hi << 32) | lo, or hi * 4294967296.0 + lo as a
/// double. Used for operand integers (acn can exceed 2^32) and node counts;
/// the exact decimal text is also available (epd_record_operand_text).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct epd_int64 {
    /// The high 32 bits, signed.
    pub hi: c_long,
    /// The low 32 bits, unsigned.
    pub lo: c_ulong,
}

impl epd_int64 {
    pub(crate) fn from_i64(v: i64) -> epd_int64 {
        epd_int64 { hi: (v >> 32) as c_long, lo: (v as u64 & 0xFFFF_FFFF) as c_ulong }
    }

    pub(crate) fn to_i64(self) -> Result<i64> {
        let hi = i64::from(self.hi);
        let lo = u64::from(self.lo);
        if !(i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&hi) || lo > 0xFFFF_FFFF {
            return Err(Error::new(
                EPD_STATUS_INVALID_ARGUMENT,
                "epd_int64: hi must be in -2^31..2^31-1 and lo in 0..2^32-1",
            ));
        }
        Ok((hi << 32) | lo as i64)
    }
}

pub(crate) fn role_code(r: Role) -> c_uchar {
    r.index() as c_uchar + 1
}

fn role_from_code(code: c_uchar) -> Option<Role> {
    Role::ALL.get(usize::from(code).checked_sub(1)?).copied()
}

pub(crate) fn color_code(c: Color) -> epd_color {
    if c.is_white() {
        EPD_WHITE
    } else {
        EPD_BLACK
    }
}

impl From<Move> for epd_move {
    fn from(m: Move) -> epd_move {
        let (kind, promotion) = match m.kind() {
            MoveKind::Normal => (EPD_MOVE_NORMAL, 0),
            MoveKind::Promotion(r) => (EPD_MOVE_PROMOTION, role_code(r)),
            MoveKind::EnPassant => (EPD_MOVE_EN_PASSANT, 0),
            MoveKind::Castle => (EPD_MOVE_CASTLE, 0),
        };
        epd_move {
            from: m.from().index() as c_uchar,
            to: m.to().index() as c_uchar,
            role: role_code(m.role()),
            promotion,
            kind: kind as c_uchar,
        }
    }
}

impl epd_move {
    /// The core move, if this value is well formed (legality is not
    /// checked here).
    pub(crate) fn to_move(self) -> Result<Move> {
        let bad = |what: &str| Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("ill-formed epd_move: {what}")));
        let (Some(from), Some(to)) = (Square::new(u32::from(self.from)), Square::new(u32::from(self.to))) else {
            return bad("squares are 0..63");
        };
        let Some(role) = role_from_code(self.role) else {
            return bad("role must be EPD_ROLE_PAWN..EPD_ROLE_KING");
        };
        if c_int::from(self.kind) != EPD_MOVE_PROMOTION && self.promotion != 0 {
            return bad("promotion is set but kind is not EPD_MOVE_PROMOTION");
        }
        match c_int::from(self.kind) {
            EPD_MOVE_NORMAL => Ok(Move::normal(role, from, to)),
            EPD_MOVE_PROMOTION => match role_from_code(self.promotion) {
                Some(p) if role == Role::Pawn && !matches!(p, Role::Pawn | Role::King) => {
                    Ok(Move::promotion(from, to, p))
                }
                _ => bad("a promotion is a pawn move to a knight, bishop, rook or queen"),
            },
            EPD_MOVE_EN_PASSANT if role == Role::Pawn => Ok(Move::en_passant(from, to)),
            EPD_MOVE_CASTLE if role == Role::King => Ok(Move::castle(from, to)),
            EPD_MOVE_EN_PASSANT | EPD_MOVE_CASTLE => bad("en passant is a pawn move and castling a king move"),
            _ => bad("unknown kind"),
        }
    }

    /// The core move, checked to be legal in `pos`.
    pub(crate) fn to_legal(self, pos: &Position) -> Result<Move> {
        let m = self.to_move()?;
        if pos.is_legal(m) {
            Ok(m)
        } else {
            Err(Error::new(EPD_STATUS_ILLEGAL_MOVE, format!("illegal move: {} is not legal here", m.to_uci(true))))
        }
    }
}

pub(crate) fn parse_mode(mode: epd_parse_mode) -> Result<ParseMode> {
    match mode {
        EPD_PARSE_STRICT => Ok(ParseMode::Strict),
        EPD_PARSE_LENIENT => Ok(ParseMode::Lenient),
        _ => Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("unknown parse mode {mode}"))),
    }
}

fn parse_error(e: ParseError) -> Error {
    match e {
        ParseError::Syntax(f) => Error::new(EPD_STATUS_FEN_SYNTAX, f.to_string()).at(f.offset + 1),
        ParseError::Position(p) => Error::new(EPD_STATUS_ILLEGAL_POSITION, format!("illegal position: {p}")),
    }
}

/// Creates the standard starting position in *out_position (free it with
/// epd_position_free).
#[no_mangle]
pub extern "C" fn epd_position_new(out_position: *mut *mut epd_position) -> epd_status {
    guard(|| {
        let out = Out::new(out_position, "out_position")?;
        out.set(to_boxed(Position::startpos()));
        Ok(())
    })
}

/// Reads a FEN (six fields) or the four EPD position fields from `len`
/// bytes at `text` (no NUL needed; nothing but blanks may follow the
/// fields) and validates the position.
///
/// `mode` is EPD_PARSE_STRICT or EPD_PARSE_LENIENT, with one meaning
/// across the library: lenient reading accepts the legacy dialects of the
/// fields and a position no legal game reaches but on which moves are
/// defined (an impossible check, say), exactly the positions
/// epd_record_parse accepts leniently (with warning E032, or E035 for an
/// impossible check); strict reading wants a position a legal game
/// reaches. On success *out_position
/// receives a new position (free it with epd_position_free). Fails with
/// EPD_STATUS_FEN_SYNTAX (column in epd_last_error_column()) or
/// EPD_STATUS_ILLEGAL_POSITION.
#[no_mangle]
pub extern "C" fn epd_position_from_fen(
    text: *const c_char,
    len: usize,
    mode: epd_parse_mode,
    out_position: *mut *mut epd_position,
) -> epd_status {
    guard(|| {
        let text = bytes(text, len, "text")?;
        let mode = parse_mode(mode)?;
        let out = Out::new(out_position, "out_position")?;
        let pos = Position::from_fen_bytes(text, mode).map_err(parse_error)?;
        out.set(to_boxed(pos));
        Ok(())
    })
}

/// Copies a position into *out_copy (free it with epd_position_free).
#[no_mangle]
pub extern "C" fn epd_position_clone(position: *const epd_position, out_copy: *mut *mut epd_position) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let out = Out::new(out_copy, "out_copy")?;
        out.set(to_boxed(*p));
        Ok(())
    })
}

/// Frees a position. Does nothing if `position` is NULL.
#[no_mangle]
pub extern "C" fn epd_position_free(position: *mut epd_position) {
    free_boxed(position);
}

/// The six FEN fields, as a new NUL-terminated string in *out_fen (owned:
/// free it with epd_string_free).
#[no_mangle]
pub extern "C" fn epd_position_fen(position: *const epd_position, out_fen: *mut *mut c_char) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let out = Out::new(out_fen, "out_fen")?;
        let mut text = Vec::with_capacity(90);
        p.append_fen(&mut text);
        out.set(owned_string(text)?);
        Ok(())
    })
}

/// The four EPD position fields, as a new NUL-terminated string in
/// *out_epd (owned: free it with epd_string_free).
#[no_mangle]
pub extern "C" fn epd_position_epd(position: *const epd_position, out_epd: *mut *mut c_char) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let out = Out::new(out_epd, "out_epd")?;
        let mut text = Vec::with_capacity(80);
        p.append_epd_fields(&mut text);
        out.set(owned_string(text)?);
        Ok(())
    })
}

/// The side to move (EPD_WHITE or EPD_BLACK) in *out_color.
#[no_mangle]
pub extern "C" fn epd_position_turn(position: *const epd_position, out_color: *mut epd_color) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        Out::new(out_color, "out_color")?.set(color_code(p.turn()));
        Ok(())
    })
}

/// The halfmove clock and fullmove number. Either out-parameter may be
/// NULL if not wanted.
#[no_mangle]
pub extern "C" fn epd_position_counters(
    position: *const epd_position,
    out_halfmoves: *mut c_ulong,
    out_fullmoves: *mut c_ulong,
) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        if let Some(o) = Out::optional(out_halfmoves) {
            o.set(c_ulong::from(p.halfmoves()));
        }
        if let Some(o) = Out::optional(out_fullmoves) {
            o.set(c_ulong::from(p.fullmoves()));
        }
        Ok(())
    })
}

/// What stands on `square` (0 = a1 .. 63 = h8) in *out_piece.
#[no_mangle]
pub extern "C" fn epd_position_piece_at(
    position: *const epd_position,
    square: c_uint,
    out_piece: *mut epd_piece,
) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let out = Out::new(out_piece, "out_piece")?;
        let sq = Square::new(square)
            .ok_or_else(|| Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("square {square} is not in 0..63")))?;
        let piece = match p.board().piece_at(sq) {
            Some(pc) => epd_piece { role: c_int::from(role_code(pc.role)), color: color_code(pc.color) },
            None => epd_piece { role: EPD_ROLE_NONE, color: EPD_WHITE },
        };
        out.set(piece);
        Ok(())
    })
}

/// Perft: the number of leaf nodes of the legal move tree `depth` plies
/// deep (1 for depth 0), in *out_nodes, as `epd perft` counts them. The
/// moves from the position are counted one after another; between two,
/// a raised `cancel` (see epd_cancel; NULL: none) ends the count with
/// EPD_STATUS_CANCELLED, *out_nodes unwritten. Depth 1 to 6 takes from
/// microseconds to a second from the start position; each ply more about
/// 30 times longer.
#[no_mangle]
pub extern "C" fn epd_position_perft(
    position: *const epd_position,
    depth: c_uint,
    cancel: *const crate::cancel::epd_cancel,
    out_nodes: *mut epd_int64,
) -> epd_status {
    guard(|| {
        let p = *arg_ref(position, "position")?;
        let cancel = crate::cancel::watched(cancel)?;
        let out = Out::new(out_nodes, "out_nodes")?;
        let stopped = || cancel.as_deref().is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst));
        let nodes = if depth <= 1 {
            epd_core::perft(&p, depth)
        } else {
            let mut n: u64 = 0;
            for &m in &p.legal_moves() {
                if stopped() {
                    return Err(crate::cancel::cancelled("perft"));
                }
                n += epd_core::perft(&p.played(m), depth - 1);
            }
            n
        };
        if stopped() {
            return Err(crate::cancel::cancelled("perft"));
        }
        out.set(epd_int64::from_i64(i64::try_from(nodes).unwrap_or(i64::MAX)));
        Ok(())
    })
}

/// The game status by the rules on the board, as EPD_POSITION_... bits in
/// *out_flags: CHECK, CHECKMATE, STALEMATE, INSUFFICIENT_MATERIAL,
/// FIFTY_MOVES, SEVENTY_FIVE_MOVES (0 means play goes on, no check).
#[no_mangle]
pub extern "C" fn epd_position_status(position: *const epd_position, out_flags: *mut c_uint) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let out = Out::new(out_flags, "out_flags")?;
        let mut flags = 0;
        let moves = p.has_legal_moves();
        for (bit, on) in [
            (EPD_POSITION_CHECK, p.is_check()),
            (EPD_POSITION_CHECKMATE, p.is_check() && !moves),
            (EPD_POSITION_STALEMATE, !p.is_check() && !moves),
            (EPD_POSITION_INSUFFICIENT_MATERIAL, p.is_insufficient_material()),
            (EPD_POSITION_FIFTY_MOVES, p.is_fifty_moves()),
            (EPD_POSITION_SEVENTY_FIVE_MOVES, p.is_seventy_five_moves()),
        ] {
            if on {
                flags |= bit;
            }
        }
        out.set(flags);
        Ok(())
    })
}

/// Writes the legal moves into `moves` (room for `capacity` moves) and
/// their number into *out_count. A capacity of EPD_MAX_LEGAL_MOVES always
/// suffices; with less room than needed nothing is written to `moves`,
/// the status is EPD_STATUS_BUFFER_TOO_SMALL and *out_count receives the
/// number of legal moves (the room needed). `moves` may be NULL only if
/// `capacity` is 0, which is how to learn the count alone.
#[no_mangle]
pub extern "C" fn epd_position_legal_moves(
    position: *const epd_position,
    moves: *mut epd_move,
    capacity: usize,
    out_count: *mut usize,
) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let out = Out::new(out_count, "out_count")?;
        if moves.is_null() && capacity != 0 {
            return Err(Error::new(crate::error::EPD_STATUS_NULL_POINTER, "moves is NULL"));
        }
        let list = p.legal_moves();
        if list.len() > capacity {
            out.set(list.len());
            return Err(Error::new(
                EPD_STATUS_BUFFER_TOO_SMALL,
                format!("{} legal moves, room for {capacity}", list.len()),
            ));
        }
        let converted: Vec<epd_move> = list.iter().map(|&m| epd_move::from(m)).collect();
        write_array(moves, &converted, "moves")?;
        out.set(list.len());
        Ok(())
    })
}

/// Sets *out_legal to 1 if `mv` is legal in the position, else 0. An
/// ill-formed move gives EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_position_is_legal(
    position: *const epd_position,
    mv: epd_move,
    out_legal: *mut c_int,
) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let out = Out::new(out_legal, "out_legal")?;
        let m = mv.to_move()?;
        out.set(c_int::from(p.is_legal(m)));
        Ok(())
    })
}

/// Sets *out_capture to 1 if the legal `mv` captures (en passant
/// included), else 0.
#[no_mangle]
pub extern "C" fn epd_position_is_capture(
    position: *const epd_position,
    mv: epd_move,
    out_capture: *mut c_int,
) -> epd_status {
    guard(|| {
        let p = arg_ref(position, "position")?;
        let out = Out::new(out_capture, "out_capture")?;
        let m = mv.to_legal(p)?;
        out.set(c_int::from(p.is_capture(m)));
        Ok(())
    })
}

/// Plays the legal `mv` on the position. On failure
/// (EPD_STATUS_ILLEGAL_MOVE, EPD_STATUS_INVALID_ARGUMENT) the position
/// is unchanged.
#[no_mangle]
pub extern "C" fn epd_position_play(position: *mut epd_position, mv: epd_move) -> epd_status {
    guard(|| {
        let p = arg_mut(position, "position")?;
        let m = mv.to_legal(p)?;
        p.play_unchecked(m);
        Ok(())
    })
}

/// Sets the halfmove clock and fullmove number (as read from hmvc and
/// fmvn operations, say). The fullmove number must be at least 1.
///
/// Errors: EPD_STATUS_OUT_OF_RANGE, the position unchanged, when
/// `fullmoves` is 0 or either value is 2^32 or more (these are values out
/// of the counters' range, not malformed arguments, so not
/// EPD_STATUS_INVALID_ARGUMENT).
#[no_mangle]
pub extern "C" fn epd_position_set_counters(
    position: *mut epd_position,
    halfmoves: c_ulong,
    fullmoves: c_ulong,
) -> epd_status {
    guard(|| {
        let p = arg_mut(position, "position")?;
        let h = u32::try_from(halfmoves)
            .map_err(|_| Error::new(EPD_STATUS_OUT_OF_RANGE, "the halfmove clock must be below 2^32"))?;
        let f = u32::try_from(fullmoves)
            .ok()
            .filter(|&f| f >= 1)
            .ok_or_else(|| Error::new(EPD_STATUS_OUT_OF_RANGE, "the fullmove number must be in 1..2^32-1"))?;
        p.set_counters(h, f);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_move_buffer_size_matches_the_core() {
        assert_eq!(EPD_MAX_LEGAL_MOVES, epd_core::MAX_LEGAL_MOVES);
    }

    #[test]
    fn int64_round_trips_and_rejects_bad_halves() {
        for v in [0, 1, -1, 8_031_647_685, i64::MAX, i64::MIN, -(1 << 32), (1 << 32) - 1] {
            assert_eq!(epd_int64::from_i64(v).to_i64().unwrap(), v, "{v}");
        }
        assert_eq!(epd_int64::from_i64(8_031_647_685), epd_int64 { hi: 1, lo: 3_736_680_389 });
        assert!(epd_int64 { hi: 0, lo: 1 << 32 }.to_i64().is_err());
        assert!(epd_int64 { hi: 1 << 31, lo: 0 }.to_i64().is_err());
    }
}
