"""The C ABI of libepdkit (include/epdkit.h), declared for ctypes.

Private: the public API is in epdkit. Every function here is a thin
declaration; nothing of the library's logic is repeated in Python.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import ctypes
import glob
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_long,
    c_size_t,
    c_ubyte,
    c_uint,
    c_ulong,
    c_void_p,
)
from typing import Any, List

# Status values (stable; include/epdkit.h).
OK = 0
NULL_POINTER = 1
INVALID_ARGUMENT = 2
INVALID_UTF8 = 3
BUFFER_TOO_SMALL = 4
FEN_SYNTAX = 5
ILLEGAL_POSITION = 6
SAN_SYNTAX = 7
ILLEGAL_MOVE = 8
AMBIGUOUS_MOVE = 9
NOT_CANONICAL = 10
INVALID_RECORD = 11
REFUSED = 12
NOT_FOUND = 13
WRONG_TYPE = 14
OUT_OF_RANGE = 15
NO_POSITION = 16
IO = 17
CALLBACK = 18
ENGINE = 19
PANIC = 20
CANCELLED = 21
ENGINE_TERMINATED = 22

STRICT = 0
LENIENT = 1


def _candidates() -> List[str]:
    found = []
    override = os.environ.get("EPDKIT_LIB")
    if override:
        found.append(override)
    here = os.path.dirname(os.path.abspath(__file__))
    # The wheel carries the library beside this file, by its plain name;
    # an older build's tagged name (libepdkit.cpython-...so) only after it.
    for name in ("libepdkit.so", "libepdkit.dylib"):
        if os.path.exists(os.path.join(here, name)):
            found.append(os.path.join(here, name))
    found.extend(sorted(glob.glob(os.path.join(here, "libepdkit*.so"))))
    found.extend(sorted(glob.glob(os.path.join(here, "libepdkit*.dylib"))))
    found.extend(sorted(glob.glob(os.path.join(here, "epdkit*.dll"))))
    return list(dict.fromkeys(found))


def _load() -> ctypes.CDLL:
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
    detail = "; ".join(errors) if errors else "no libepdkit beside the package"
    raise ImportError(f"epdkit: cannot load libepdkit ({detail}); reinstall with `pip install ./python`")


lib = _load()


class Move(Structure):
    _fields_ = [("from_", c_ubyte), ("to", c_ubyte), ("role", c_ubyte), ("promotion", c_ubyte), ("kind", c_ubyte)]


class Piece(Structure):
    _fields_ = [("role", c_int), ("color", c_int)]


class Int64(Structure):
    _fields_ = [("hi", c_long), ("lo", c_ulong)]


class Date(Structure):
    _fields_ = [("year", c_int), ("month", c_int), ("day", c_int)]


class Time(Structure):
    _fields_ = [("hour", c_int), ("minute", c_int), ("second", c_int)]


class Clock(Structure):
    _fields_ = [("days", c_int), ("hours", c_int), ("minutes", c_int), ("seconds", c_int)]


class Score(Structure):
    _fields_ = [("kind", c_int), ("value", c_long)]


class Diagnostic(Structure):
    _fields_ = [
        ("severity", c_int),
        ("code", c_int),
        ("code_text", c_char * 8),
        ("line", c_ulong),
        ("column", c_size_t),
        ("operand", c_long),
        ("opcode", c_char_p),
        ("message", c_char_p),
    ]


class BatchEntry(Structure):
    _fields_ = [
        ("line", c_ulong),
        ("first_diagnostic", c_size_t),
        ("diagnostics", c_size_t),
        ("errors", c_size_t),
    ]


class VerbSummary(Structure):
    _fields_ = [(n, c_ulong) for n in ("lines", "records", "invalid", "changed", "warnings", "errors")]


class SelectSummary(Structure):
    _fields_ = [(n, c_ulong) for n in ("lines", "records", "invalid", "selected", "warnings", "errors")]


class AnalysisSummary(Structure):
    _fields_ = [
        (n, c_ulong) for n in ("lines", "records", "invalid", "analyzed", "faults", "solved", "missed", "unscored")
    ]


class MateSummary(Structure):
    _fields_ = [(n, c_ulong) for n in ("lines", "records", "invalid", "searched", "skipped", "solved", "nodes")]


class PgnSummary(Structure):
    _fields_ = [(n, c_ulong) for n in ("games", "complete", "records", "repeated")]


REPORT = CFUNCTYPE(c_int, c_void_p, POINTER(Diagnostic), POINTER(c_char), c_size_t)
PGN_REPORT = CFUNCTYPE(c_int, c_void_p, c_ulong, c_uint, c_int, c_char_p)

P = c_void_p
PP = POINTER(c_void_p)


def fn(name: str, *args: Any) -> Any:
    f = getattr(lib, name)
    f.argtypes = list(args)
    f.restype = c_int
    return f


def void(name: str, *args: Any) -> Any:
    f = getattr(lib, name)
    f.argtypes = list(args)
    f.restype = None
    return f


version = lib.epd_version
version.argtypes = []
version.restype = c_char_p
status_message = lib.epd_status_message
status_message.argtypes = [c_int]
status_message.restype = c_char_p
last_error_message = lib.epd_last_error_message
last_error_message.argtypes = []
last_error_message.restype = c_char_p
last_error_column = lib.epd_last_error_column
last_error_column.argtypes = []
last_error_column.restype = c_size_t
last_error_code = lib.epd_last_error_code
last_error_code.argtypes = []
last_error_code.restype = c_char_p
last_error_os_error = lib.epd_last_error_os_error
last_error_os_error.argtypes = []
last_error_os_error.restype = c_int

string_free = void("epd_string_free", P)
record_free = void("epd_record_free", P)
position_free = void("epd_position_free", P)
diagnostics_free = void("epd_diagnostics_free", P)
verb_config_free = void("epd_verb_config_free", P)
select_config_free = void("epd_select_config_free", P)
batch_free = void("epd_batch_free", P)
engine_free = void("epd_engine_free", P)
report_config_free = void("epd_report_config_free", P)

# The diagnostic code table.
code_count = fn("epd_code_count", POINTER(c_size_t))
code_at = fn("epd_code_at", c_size_t, POINTER(c_char_p), POINTER(c_char_p))
code_find = fn("epd_code_find", c_char_p, POINTER(c_size_t))
pgn_code = fn("epd_pgn_code", c_int, POINTER(c_char_p))

# Positions and moves.
position_new = fn("epd_position_new", PP)
position_from_fen = fn("epd_position_from_fen", c_char_p, c_size_t, c_int, PP)
position_clone = fn("epd_position_clone", P, PP)
position_fen = fn("epd_position_fen", P, PP)
position_epd = fn("epd_position_epd", P, PP)
position_turn = fn("epd_position_turn", P, POINTER(c_int))
position_counters = fn("epd_position_counters", P, POINTER(c_ulong), POINTER(c_ulong))
position_set_counters = fn("epd_position_set_counters", P, c_ulong, c_ulong)
position_piece_at = fn("epd_position_piece_at", P, c_uint, POINTER(Piece))
position_status = fn("epd_position_status", P, POINTER(c_uint))
position_legal_moves = fn("epd_position_legal_moves", P, POINTER(Move), c_size_t, POINTER(c_size_t))
position_play = fn("epd_position_play", P, Move)
position_san = fn("epd_position_san", P, Move, PP)
position_parse_san = fn("epd_position_parse_san", P, c_char_p, c_size_t, c_int, POINTER(Move))
position_uci = fn("epd_position_uci", P, Move, PP)
position_parse_uci = fn("epd_position_parse_uci", P, c_char_p, c_size_t, POINTER(Move))
position_is_capture = fn("epd_position_is_capture", P, Move, POINTER(c_int))
position_perft = fn("epd_position_perft", P, c_uint, P, POINTER(Int64))

# Records.
record_parse = fn("epd_record_parse", c_char_p, c_size_t, c_int, P, PP)
record_new = fn("epd_record_new", P, PP)
record_clone = fn("epd_record_clone", P, PP)
record_position = fn("epd_record_position", P, PP)
record_fields = fn("epd_record_fields", P, PP)
record_canonical = fn("epd_record_canonical", P, PP, POINTER(c_size_t))
record_operation_count = fn("epd_record_operation_count", P, POINTER(c_size_t))
record_opcode = fn("epd_record_opcode", P, c_size_t, c_char_p, c_size_t)
record_find = fn("epd_record_find", P, c_char_p, POINTER(c_size_t))
record_operand_count = fn("epd_record_operand_count", P, c_size_t, POINTER(c_size_t))
record_operand_kind = fn("epd_record_operand_kind", P, c_size_t, c_size_t, POINTER(c_int))
record_operand_text = fn("epd_record_operand_text", P, c_size_t, c_size_t, PP, POINTER(c_size_t))
record_operand_integer = fn("epd_record_operand_integer", P, c_size_t, c_size_t, POINTER(Int64))
record_operand_float = fn("epd_record_operand_float", P, c_size_t, c_size_t, POINTER(c_double))
record_operand_date = fn("epd_record_operand_date", P, c_size_t, c_size_t, POINTER(Date))
record_operand_time = fn("epd_record_operand_time_of_day", P, c_size_t, c_size_t, POINTER(Time))
record_operand_clock = fn("epd_record_operand_clock", P, c_size_t, c_size_t, POINTER(Clock))
record_remove = fn("epd_record_remove", P, c_char_p, POINTER(c_size_t))
record_set_integer = fn("epd_record_set_integer", P, c_char_p, Int64)
record_set_string = fn("epd_record_set_string", P, c_char_p, c_char_p, c_size_t)
record_set_identifier = fn("epd_record_set_identifier", P, c_char_p, c_char_p)
record_set_san = fn("epd_record_set_san", P, c_char_p, c_char_p, c_size_t, c_int)
record_set = fn("epd_record_set", P, c_char_p, P)
operands_new = fn("epd_operands_new", PP)
operands_free = void("epd_operands_free", P)
operands_push_raw = fn("epd_operands_push_raw", P, c_char_p, c_size_t)
operands_push_integer = fn("epd_operands_push_integer", P, Int64)
operands_push_identifier = fn("epd_operands_push_identifier", P, c_char_p)
operands_push_date = fn("epd_operands_push_date", P, Date)
operands_push_time_of_day = fn("epd_operands_push_time_of_day", P, Time)
operands_push_clock = fn("epd_operands_push_clock", P, Clock)
operands_push_string = fn("epd_operands_push_string", P, c_char_p, c_size_t)
diagnostics_new = fn("epd_diagnostics_new", PP)
diagnostics_count = fn("epd_diagnostics_count", P, POINTER(c_size_t))
diagnostics_get = fn("epd_diagnostics_get", P, c_size_t, POINTER(Diagnostic))

# Batches.
batch_parse = fn("epd_batch_parse", c_char_p, c_size_t, c_int, c_ulong, PP)
batch_entries = fn("epd_batch_entries", P, POINTER(POINTER(BatchEntry)), POINTER(c_size_t))
batch_diagnostic = fn("epd_batch_diagnostic", P, c_size_t, POINTER(Diagnostic))
batch_text = fn("epd_batch_text", P, c_size_t, POINTER(c_void_p), POINTER(c_size_t))
batch_record = fn("epd_batch_record", P, c_size_t, PP)

# Scores.
score_from_ce = fn("epd_score_from_ce", c_long, POINTER(Score))
score_to_ce = fn("epd_score_to_ce", Score, POINTER(c_long))
score_from_dm = fn("epd_score_from_dm", c_ulong, POINTER(Score))
score_to_dm = fn("epd_score_to_dm", Score, POINTER(c_ulong))
score_from_uci_cp = fn("epd_score_from_uci_cp", c_long, POINTER(Score))
score_from_uci_mate = fn("epd_score_from_uci_mate", c_long, POINTER(Score))
score_to_uci = fn("epd_score_to_uci", Score, POINTER(c_int), POINTER(c_long))
score_after_move = fn("epd_score_after_move", Score, POINTER(Score))
score_format = fn("epd_score_format", Score, PP)

# Verbs.
verb_config_new = fn("epd_verb_config_new", c_int, PP)
verb_config_set_mode = fn("epd_verb_config_set_mode", P, c_int)
verb_config_set_drop_invalid = fn("epd_verb_config_set_drop_invalid", P, c_int)
verb_config_add_purge_opcode = fn("epd_verb_config_add_purge_opcode", P, c_char_p)
verb_config_set_reporter = fn("epd_verb_config_set_reporter", P, REPORT, c_void_p)
verb_config_set_cancel = fn("epd_verb_config_set_cancel", P, P)
verb_run_files = fn("epd_verb_run_files", P, c_char_p, c_char_p, POINTER(VerbSummary))
verb_run_memory = fn("epd_verb_run_memory", P, c_char_p, c_size_t, PP, POINTER(c_size_t), POINTER(VerbSummary))

# Select.
select_config_new = fn("epd_select_config_new", PP)
select_config_set_mode = fn("epd_select_config_set_mode", P, c_int)
select_config_add_id = fn("epd_select_config_add_id", P, c_char_p)
select_config_set_regex = fn("epd_select_config_set_regex", P, c_int)
select_config_add_lines = fn("epd_select_config_add_lines", P, c_char_p)
select_config_add_has = fn("epd_select_config_add_has", P, c_char_p)
select_config_add_lacks = fn("epd_select_config_add_lacks", P, c_char_p)
select_config_add_where = fn("epd_select_config_add_where", P, c_char_p)
select_config_set_invert = fn("epd_select_config_set_invert", P, c_int)
select_config_set_reporter = fn("epd_select_config_set_reporter", P, REPORT, c_void_p)
select_config_set_cancel = fn("epd_select_config_set_cancel", P, P)
select_run_files = fn("epd_select_run_files", P, c_char_p, c_char_p, POINTER(SelectSummary))
select_run_memory = fn(
    "epd_select_run_memory", P, c_char_p, c_size_t, PP, POINTER(c_size_t), POINTER(SelectSummary)
)

# Engines, analysis and mate search.
engine_new_builtin = fn("epd_engine_new_builtin", c_uint, PP)
engine_new_uci = fn("epd_engine_new_uci", c_char_p, POINTER(c_char_p), c_size_t, PP)
engine_add_uci_option = fn("epd_engine_add_uci_option", P, c_char_p, c_char_p)
engine_start = fn("epd_engine_start", P)
engine_stop = fn("epd_engine_stop", P)
engine_new_game = fn("epd_engine_new_game", P)
engine_set_uci_option = fn("epd_engine_set_uci_option", P, c_char_p, c_char_p)
engine_set_depth = fn("epd_engine_set_depth", P, c_uint)
engine_set_time_limit = fn("epd_engine_set_time_limit", P, c_ulong)
engine_set_node_limit = fn("epd_engine_set_node_limit", P, Int64)
engine_set_jobs = fn("epd_engine_set_jobs", P, c_uint)
engine_set_counters = fn("epd_engine_set_counters", P, c_int)
engine_set_solution_time = fn("epd_engine_set_solution_time", P, c_int)
engine_set_cancel = fn("epd_engine_set_cancel", P, P)
cancel_new = fn("epd_cancel_new", PP)
cancel_free = void("epd_cancel_free", P)
cancel_raise = fn("epd_cancel_raise", P)
engine_analyze_record = fn("epd_engine_analyze_record", P, P)
engine_run_files = fn("epd_engine_run_files", P, c_int, c_char_p, c_char_p, POINTER(AnalysisSummary))
engine_run_memory = fn(
    "epd_engine_run_memory", P, c_int, c_char_p, c_size_t, PP, POINTER(c_size_t), POINTER(AnalysisSummary)
)
limits_new = fn("epd_limits_new", PP)
limits_free = void("epd_limits_free", P)
limits_set_depth = fn("epd_limits_set_depth", P, c_uint)
limits_set_time = fn("epd_limits_set_time", P, c_ulong)
limits_set_nodes = fn("epd_limits_set_nodes", P, Int64)
limits_set_mate = fn("epd_limits_set_mate", P, c_uint)
limits_set_lines = fn("epd_limits_set_lines", P, c_uint)
engine_analyze_position = fn("epd_engine_analyze_position", P, P, P, PP)
analysis_free = void("epd_analysis_free", P)
analysis_line_count = fn("epd_analysis_line_count", P, POINTER(c_size_t))
analysis_line_score = fn("epd_analysis_line_score", P, c_size_t, POINTER(Score))
analysis_line_moves = fn("epd_analysis_line_moves", P, c_size_t, POINTER(Move), c_size_t, POINTER(c_size_t))
analysis_counters = fn(
    "epd_analysis_counters", P, POINTER(c_long), POINTER(c_long), POINTER(Int64), POINTER(c_ulong)
)
MAX_LINES = 256

# The mate prover.
mate_config_new = fn("epd_mate_config_new", c_uint, PP)
mate_config_free = void("epd_mate_config_free", P)
mate_config_set_single_pass = fn("epd_mate_config_set_single_pass", P, c_int)
mate_config_set_jobs = fn("epd_mate_config_set_jobs", P, c_uint)
mate_config_set_cancel = fn("epd_mate_config_set_cancel", P, P)
mate_run_files = fn("epd_mate_run_files", P, c_char_p, c_char_p, POINTER(MateSummary))
mate_run_memory = fn("epd_mate_run_memory", P, c_char_p, c_size_t, PP, POINTER(c_size_t), POINTER(MateSummary))

# PGN.
pgn_config_new = fn("epd_pgn_config_new", PP)
pgn_config_free = void("epd_pgn_config_free", P)
pgn_config_set_flags = fn("epd_pgn_config_set_flags", P, c_uint)
pgn_config_set_plies = fn("epd_pgn_config_set_plies", P, c_ulong, c_ulong)
pgn_config_set_reporter = fn("epd_pgn_config_set_reporter", P, PGN_REPORT, c_void_p)
pgn_config_set_cancel = fn("epd_pgn_config_set_cancel", P, P)
pgn_to_epd_files = fn("epd_pgn_to_epd_files", P, c_char_p, c_char_p, POINTER(PgnSummary))
pgn_to_epd_memory = fn("epd_pgn_to_epd_memory", P, c_char_p, c_size_t, PP, POINTER(c_size_t), POINTER(PgnSummary))

# Reports.
report_config_new = fn("epd_report_config_new", PP)
report_config_add_run = fn("epd_report_config_add_run", P, c_char_p, c_char_p)
report_config_set_key = fn("epd_report_config_set_key", P, c_char_p)
report_config_set_group_by = fn("epd_report_config_set_group_by", P, c_int)
report_config_set_group_regex = fn("epd_report_config_set_group_regex", P, c_char_p)
report_config_set_strict = fn("epd_report_config_set_strict", P, c_int)
report_config_set_time_scores = fn("epd_report_config_set_time_scores", P, c_int)
report_run_json = fn("epd_report_run_json", P, PP, POINTER(c_size_t))
