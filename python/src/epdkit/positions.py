"""Positions (epd_position) and engine scores.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import re
from ctypes import byref, c_int, c_long, c_size_t, c_uint, c_ulong, c_void_p
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

from . import _ffi as _c
from .errors import FenError, MoveError, _check, _error
from ._common import Text, _bytes, _lock_of, _python_chess, _serialized, _take, _with_cancel

if TYPE_CHECKING:  # python-chess, for the bridge's types only (never imported at run time unless used)
    import chess

__all__ = [
    "MoveList",
    "Position",
    "Score",
    "perft",
]


# ------------------------------------------------------------ positions

_SQUARES = [f + r for r in "12345678" for f in "abcdefgh"]
_PIECE = " pnbrqk"
_STATUS = ["check", "checkmate", "stalemate", "insufficient_material", "fifty_moves", "seventy_five_moves"]
_UCI = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")


class MoveList(List[str]):
    """The legal moves of a position: a list of str, which may also be
    called (`pos.legal_moves()`, as before the property) to get itself."""

    def __call__(self) -> "MoveList":
        return self


@_serialized
class Position:
    """A legal chess position, with the moves played on it (for `pop`).

    `Position()` is the start position; `Position(fen)` reads a FEN (six
    fields) or the four EPD position fields. Equal positions compare equal
    (by FEN).
    """

    __slots__ = ("_ptr", "_stack", "_lock")
    _ptr: Optional[c_void_p]

    def __init__(self, fen: Optional[Text] = None, *, lenient: bool = False) -> None:
        ptr = c_void_p()
        if fen is None:
            _check(_c.position_new(byref(ptr)))
        else:
            data = _bytes(fen, "fen")
            status = _c.position_from_fen(data, len(data), _c.LENIENT if lenient else _c.STRICT, byref(ptr))
            if status != _c.OK:
                e = _error(status)
                raise FenError(e.status, e.message, column=e.column)
        self._ptr = ptr
        self._stack: List[Tuple[c_void_p, str]] = []

    @classmethod
    def _adopt(cls, ptr: c_void_p) -> "Position":
        self = cls.__new__(cls)
        self._ptr = ptr
        self._stack = []
        return self

    def __del__(self) -> None:
        ptr = getattr(self, "_ptr", None)
        if ptr:
            _c.position_free(ptr)
            self._ptr = None
        for p, _ in getattr(self, "_stack", ()):
            _c.position_free(p)
        self._stack = []

    def _clone_ptr(self) -> c_void_p:
        out = c_void_p()
        _check(_c.position_clone(self._ptr, byref(out)))
        return out

    def copy(self) -> "Position":
        """An independent copy (without the moves played, so `pop` on it
        raises IndexError)."""
        return Position._adopt(self._clone_ptr())

    __copy__ = copy

    @property
    def fen(self) -> str:
        """The six FEN fields."""
        out = c_void_p()
        _check(_c.position_fen(self._ptr, byref(out)))
        return _take(out).decode()

    @property
    def epd(self) -> str:
        """The four EPD position fields."""
        out = c_void_p()
        _check(_c.position_epd(self._ptr, byref(out)))
        return _take(out).decode()

    def __str__(self) -> str:
        return self.fen

    def __repr__(self) -> str:
        return f"Position({self.fen!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.fen == other.fen

    def __hash__(self) -> int:
        """The hash of the FEN, so equal positions hash alike and a set
        of positions keeps one of each. A position is mutable: one that
        is pushed or popped while it is a set member or a dict key is
        lost there (take `pos.copy()` or `pos.fen` as the key)."""
        return hash(self.fen)

    def __reduce__(self) -> Tuple[Any, Tuple[str, List[str]]]:
        # The position before the moves pushed, and the moves: a pickled
        # (or deep-copied) position can still pop them.
        root = self._stack[0][0] if self._stack else self._ptr
        out = c_void_p()
        _check(_c.position_fen(root, byref(out)))
        return (_position_from, (_take(out).decode(), [san for _, san in self._stack]))

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Position":
        fen, moves = self.__reduce__()[1]
        return _position_from(fen, moves)

    @property
    def turn(self) -> str:
        """The side to move: "white" or "black"."""
        c = c_int()
        _check(_c.position_turn(self._ptr, byref(c)))
        return "white" if c.value == 0 else "black"

    @property
    def halfmove_clock(self) -> int:
        """Plies since the last capture or pawn move (FEN's fifth field;
        0 for a position read from EPD's four fields).

        >>> Position("4k3/8/8/8/8/8/8/4K2R w K - 12 40").halfmove_clock
        12
        """
        h = c_ulong()
        _check(_c.position_counters(self._ptr, byref(h), None))
        return int(h.value)

    @property
    def fullmove_number(self) -> int:
        """The number of the move about to be played (FEN's sixth field;
        1 for a position read from EPD's four fields), counted on after
        each of Black's moves.

        >>> p = Position(); _ = p.push("e4"); _ = p.push("e5"); p.fullmove_number
        2
        """
        f = c_ulong()
        _check(_c.position_counters(self._ptr, None, byref(f)))
        return int(f.value)

    def piece_at(self, square: Union[str, int]) -> Optional[str]:
        """The piece on `square` ("e4" or 0 = a1 .. 63 = h8) as its FEN
        letter ("P" white pawn, "k" black king), or None if empty."""
        if isinstance(square, str):
            if square not in _SQUARES:
                raise ValueError(f"not a square: {square!r}")
            index = _SQUARES.index(square)
        elif isinstance(square, int) and not isinstance(square, bool) and 0 <= square < 64:
            index = square
        else:
            raise ValueError(f"not a square: {square!r}")
        p = _c.Piece()
        _check(_c.position_piece_at(self._ptr, index, byref(p)))
        if p.role == 0:
            return None
        letter = _PIECE[p.role]
        return letter.upper() if p.color == 0 else letter

    def pieces(self) -> Dict[str, str]:
        """Every piece by square name: {"e1": "K", "e8": "k", ...}."""
        out = {}
        p = _c.Piece()
        for i, name in enumerate(_SQUARES):
            _check(_c.position_piece_at(self._ptr, i, byref(p)))
            if p.role:
                letter = _PIECE[p.role]
                out[name] = letter.upper() if p.color == 0 else letter
        return out

    def _moves(self) -> List[_c.Move]:
        moves = (_c.Move * 256)()
        n = c_size_t()
        _check(_c.position_legal_moves(self._ptr, moves, 256, byref(n)))
        return [moves[i] for i in range(n.value)]

    def _uci_of(self, m: _c.Move) -> str:
        out = c_void_p()
        _check(_c.position_uci(self._ptr, m, byref(out)))
        return _take(out).decode()

    def _san_of(self, m: _c.Move) -> str:
        out = c_void_p()
        _check(_c.position_san(self._ptr, m, byref(out)))
        return _take(out).decode()

    @property
    def legal_moves(self) -> "MoveList":
        """The legal moves in UCI notation ("e2e4", "e7e8q", "e1g1"), as a
        list: `for m in pos.legal_moves`, `len(pos.legal_moves)`, `"e2e4"
        in pos.legal_moves` (calling it, `pos.legal_moves()`, gives the
        same list)."""
        return MoveList(self._uci_of(m) for m in self._moves())

    @property
    def legal_san(self) -> "MoveList":
        """The legal moves in canonical SAN, with check marks (a list, as
        `legal_moves`)."""
        return MoveList(self._san_of(m) for m in self._moves())

    def _parse(self, move: Union[str, "chess.Move"], lenient: bool = True) -> _c.Move:
        if not isinstance(move, str):
            move = _uci_of_move(move)
        data = move.encode()
        m = _c.Move()
        if _UCI.match(move):
            status = _c.position_parse_uci(self._ptr, data, len(data), byref(m))
            if status == _c.OK:
                return m
        status = _c.position_parse_san(self._ptr, data, len(data), _c.LENIENT if lenient else _c.STRICT, byref(m))
        if status != _c.OK:
            e = _error(status)
            raise MoveError(e.status, f"{move!r}: {e.message}", column=e.column)
        return m

    def san(self, move: Union[str, "chess.Move"]) -> str:
        """The canonical SAN of a legal move given in UCI or SAN."""
        return self._san_of(self._parse(move))

    def uci(self, move: Union[str, "chess.Move"]) -> str:
        """The UCI text of a legal move given in SAN or UCI."""
        return self._uci_of(self._parse(move))

    def is_legal(self, move: Union[str, "chess.Move"]) -> bool:
        """Whether `move` (UCI or SAN) is legal here."""
        try:
            self._parse(move)
        except MoveError:
            return False
        return True

    def is_capture(self, move: Union[str, "chess.Move"]) -> bool:
        """Whether the legal move `move` (UCI or SAN) takes a piece (en
        passant included). Raises MoveError for a move that is not legal.

        >>> Position("4k3/8/8/3p4/4P3/8/8/4K3 w - -").is_capture("exd5")
        True
        """
        c = c_int()
        _check(_c.position_is_capture(self._ptr, self._parse(move), byref(c)))
        return bool(c.value)

    def push(self, move: Union[str, "chess.Move"]) -> str:
        """Plays a legal move (UCI or SAN, or a python-chess `chess.Move`);
        returns its SAN. Raises MoveError, leaving the position unchanged,
        if it is not legal."""
        m = self._parse(move)
        san = self._san_of(m)
        before = self._clone_ptr()
        status = _c.position_play(self._ptr, m)
        if status != _c.OK:
            _c.position_free(before)
            _check(status)
        self._stack.append((before, san))
        return san

    def pop(self) -> str:
        """Takes back the last move played with `push`; returns its SAN.
        Raises IndexError when no move is left to take back."""
        if not self._stack:
            raise IndexError("pop from a position with no move played")
        before, san = self._stack.pop()
        _c.position_free(self._ptr)
        self._ptr = before
        return san

    @property
    def move_stack(self) -> List[str]:
        """The moves played with `push`, in SAN, oldest first."""
        return [san for _, san in self._stack]

    @classmethod
    def from_board(cls, board: "chess.Board") -> "Position":
        """The position of a python-chess `chess.Board`, with its moves
        (replayed from the board's root, so `pop` takes them back).
        Needs python-chess only to have made the board."""
        root = board.root()
        pos = cls(root.fen(en_passant="fen"))
        for m in board.move_stack:
            pos.push(m)
        return pos

    def to_board(self) -> "chess.Board":
        """A python-chess `chess.Board` of this position, with the moves
        pushed on it (needs python-chess installed: `pip install chess`)."""
        pc = _python_chess()
        root = self.fen if not self._stack else Position._adopt(_clone(self._stack[0][0])).fen
        board: "chess.Board" = pc.Board(root)
        for san in self.move_stack:
            board.push_san(san)
        return board

    def _flags(self) -> int:
        f = c_uint()
        _check(_c.position_status(self._ptr, byref(f)))
        return int(f.value)

    @property
    def status(self) -> List[str]:
        """The flags that hold: "check", "checkmate", "stalemate",
        "insufficient_material", "fifty_moves", "seventy_five_moves"."""
        f = self._flags()
        return [name for bit, name in enumerate(_STATUS) if f & (1 << bit)]

    def is_check(self) -> bool:
        """The side to move is in check."""
        return bool(self._flags() & 1)

    def is_checkmate(self) -> bool:
        """The side to move is in check and has no legal move.

        >>> Position("6k1/5ppp/8/8/8/8/8/R5K1 w - -").is_checkmate()
        False
        >>> Position("R5k1/5ppp/8/8/8/8/8/6K1 b - -").is_checkmate()
        True
        """
        return bool(self._flags() & 2)

    def is_stalemate(self) -> bool:
        """The side to move is not in check and has no legal move."""
        return bool(self._flags() & 4)

    def is_insufficient_material(self) -> bool:
        """Neither side has the material to mate (FIDE's dead positions
        by material: bare kings, a lone minor piece, bishops all on one
        colour)."""
        return bool(self._flags() & 8)

    def is_fifty_moves(self) -> bool:
        """The fifty-move rule can be claimed (halfmove clock >= 100)."""
        return bool(self._flags() & 16)

    def is_game_over(self) -> bool:
        """Checkmate, stalemate, insufficient material or the 75-move rule."""
        return bool(self._flags() & (2 | 4 | 8 | 32))


# --------------------------------------------------------------- scores


class Score:
    """A ce value with its meaning (section 6.7): centipawns, or a mate
    for or against the side to move, from the side to move's view.

    >>> Score.mate_in(3).ce
    32762
    >>> str(Score.from_ce(-32763))
    '#-2'
    >>> Score.mate_in(3).after_move()
    Score.mated_in(2)
    """

    __slots__ = ("_s",)
    _KINDS = ("centipawns", "mate_in", "mated_in", "checkmated", "illegal_position")

    def __init__(self, kind: int, value: int) -> None:
        if not isinstance(kind, int) or not isinstance(value, int):
            raise TypeError("Score(kind, value) takes two ints; see Score.centipawns, Score.mate_in, Score.from_ce")
        if not 0 <= kind < len(self._KINDS):
            raise ValueError(f"a Score's kind is from 0 to {len(self._KINDS) - 1} ({', '.join(self._KINDS)}), not {kind}")
        self._s = _c.Score(kind, value)

    @staticmethod
    def from_ce(ce: int) -> "Score":
        """The Score a ce value means (section 6.7): centipawns up to
        32000 either way, mates beyond. Raises EpdValueError outside
        -32768..32767.

        >>> Score.from_ce(32764)
        Score.mate_in(2)
        """
        s = _c.Score()
        _check(_c.score_from_ce(int(ce), byref(s)))
        return Score(s.kind, s.value)

    @staticmethod
    def centipawns(cp: int) -> "Score":
        """A UCI `score cp` value (clamped to the ce range)."""
        s = _c.Score()
        _check(_c.score_from_uci_cp(int(cp), byref(s)))
        return Score(s.kind, s.value)

    @staticmethod
    def mate_in(moves: int) -> "Score":
        """Mate in `moves` fullmoves for the side to move."""
        if moves < 1:
            raise ValueError("mate_in needs 1 or more moves")
        return Score._uci_mate(moves)

    @staticmethod
    def mated_in(moves: int) -> "Score":
        """The side to move is mated after `moves` of its own moves."""
        if moves < 1:
            raise ValueError("mated_in needs 1 or more moves")
        return Score._uci_mate(-moves)

    @staticmethod
    def _uci_mate(n: int) -> "Score":
        s = _c.Score()
        _check(_c.score_from_uci_mate(n, byref(s)))
        return Score(s.kind, s.value)

    @staticmethod
    def from_dm(dm: int) -> "Score":
        """The Score of a dm value: mate in `dm` moves for the side to move
        (dm is at least 1).

        >>> Score.from_dm(3) == Score.mate_in(3)
        True
        """
        s = _c.Score()
        _check(_c.score_from_dm(int(dm), byref(s)))
        return Score(s.kind, s.value)

    @property
    def kind(self) -> str:
        """"centipawns", "mate_in", "mated_in", "checkmated" or
        "illegal_position"."""
        return self._KINDS[self._s.kind]

    @property
    def value(self) -> int:
        """Centipawns or the mate distance in fullmoves (0 otherwise)."""
        return int(self._s.value)

    @property
    def ce(self) -> int:
        """The score as a ce value (section 6.7: mate in N is 32768 - 2N).

        >>> Score.centipawns(35).ce
        35
        """
        out = c_long()
        _check(_c.score_to_ce(self._s, byref(out)))
        return int(out.value)

    @property
    def dm(self) -> Optional[int]:
        """The dm of a mate for the side to move, else None."""
        out = c_ulong()
        status = _c.score_to_dm(self._s, byref(out))
        if status == _c.NOT_FOUND:
            return None
        _check(status)
        return int(out.value)

    def is_mate(self) -> bool:
        """A mate for either side, or the side to move checkmated."""
        return self.kind in ("mate_in", "mated_in", "checkmated")

    def to_uci(self) -> Tuple[str, int]:
        """("cp", centipawns) or ("mate", signed moves) as UCI reports it."""
        m = c_int()
        v = c_long()
        _check(_c.score_to_uci(self._s, byref(m), byref(v)))
        return ("mate" if m.value else "cp", int(v.value))

    def after_move(self) -> "Score":
        """The same evaluation from the other side, one ply later (mate in
        N becomes mated in N-1; mated in N becomes mate in N)."""
        s = _c.Score()
        _check(_c.score_after_move(self._s, byref(s)))
        return Score(s.kind, s.value)

    def __neg__(self) -> "Score":
        return self.after_move()

    def __str__(self) -> str:
        out = c_void_p()
        _check(_c.score_format(self._s, byref(out)))
        return _take(out).decode()

    def __repr__(self) -> str:
        k = self.kind
        if k in ("checkmated", "illegal_position"):
            return f"Score.from_ce({self.ce})"
        return f"Score.{k}({self.value})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Score) and self.ce == other.ce

    def __lt__(self, other: "Score") -> bool:
        return _rank(self) < _rank(other)

    def __hash__(self) -> int:
        return hash(self.ce)


def _rank(s: Score) -> float:
    """Orders scores from worst to best for the side to move."""
    k, v = s.kind, s.value
    if k == "illegal_position":
        return float("-inf")
    if k == "checkmated":
        return -1e9
    if k == "mated_in":
        return -1e9 + v
    if k == "mate_in":
        return 1e9 - v
    return float(v)


def _uci_of_move(move: Any) -> str:
    """A python-chess chess.Move (anything with .uci()) as UCI text."""
    uci = getattr(move, "uci", None)
    if not callable(uci) or not hasattr(move, "from_square"):
        raise TypeError(f"a move must be str or chess.Move, not {type(move).__name__}")
    text = uci()
    if not isinstance(text, str):
        raise TypeError(f"a move must be str or chess.Move, not {type(move).__name__}")
    return text


def _clone(ptr: c_void_p) -> c_void_p:
    out = c_void_p()
    _check(_c.position_clone(ptr, byref(out)))
    return out


def perft(position: Union[Position, Text, None], depth: int) -> int:
    """Perft: the leaf nodes of the legal move tree `depth` plies deep
    from `position` (a Position, FEN or EPD text, None for the start
    position), as `epd perft` counts them. Ctrl-C ends it.

    >>> perft(None, 3)
    8902
    """
    if not isinstance(depth, int) or isinstance(depth, bool):
        raise TypeError(f"depth must be an int, not {type(depth).__name__}")
    if not 0 <= depth <= 0xFFFFFFFF:
        raise ValueError("depth must be from 0 to 2**32 - 1")
    pos = position if isinstance(position, Position) else Position(position) if position is None else _position_of(position)
    nodes = _c.Int64()
    with _lock_of(pos):
        ptr = pos._ptr
        _with_cancel(lambda cancel: int(_c.position_perft(ptr, depth, cancel, byref(nodes))))
    return (int(nodes.hi) << 32) | int(nodes.lo)


def _position_from(fen: str, moves: List[str]) -> Position:
    """A pickled Position: its start and the moves pushed since."""
    pos = Position(fen, lenient=True)
    for m in moves:
        pos.push(m)
    return pos


def _position_of(text: Text) -> Position:
    """A Position from FEN (six fields) or EPD (four fields, and maybe
    operations) text."""
    data = text.decode() if isinstance(text, bytes) else text
    fields = data.split()
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        return Position(" ".join(fields[:6]))
    return Position(" ".join(fields[:4]))
