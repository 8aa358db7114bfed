"""epdkit: EPD (Extended Position Description) records, positions, files,
verbs, engines and reports, over libepdkit, the C library of EPD Kit.

    >>> import epdkit
    >>> rec = epdkit.parse('2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id "WAC.001"; bm Qg6;')
    >>> rec["bm"]
    ['Qg6']
    >>> str(rec)
    '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";'
    >>> import io
    >>> suite = io.StringIO('4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id "castle";\\n')  # or a path
    >>> for rec in epdkit.read(suite):
    ...     print(rec.line, rec.id, rec.bm, rec.position.legal_san[:3])
    1 castle ['O-O'] ['Kd1', 'Kf1', 'Kd2']

The package is a client of the library's C ABI (include/epdkit.h) through
ctypes: every rule lives in the library, none is repeated here. The wheel
carries the library; nothing else is needed at run time.

Every public name is here, in epdkit; each is defined in one module of
the package, by what it is about: epdkit.errors (the exceptions and
Diagnostic), epdkit.positions (Position, Score, perft), epdkit.records
(Record, read, write), epdkit.verbs (the file verbs, mate and report),
epdkit.engines (Engine, analyze, target), epdkit.pgn (from_pgn), and the
optional epdkit.dask.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

from .errors import (
    Diagnostic,
    diagnostic_codes,
    EngineError,
    EngineTerminatedError,
    EpdError,
    EpdFileNotFoundError,
    EpdIOError,
    EpdIsADirectoryError,
    EpdPermissionError,
    EpdValueError,
    FenError,
    InvalidRecordError,
    MoveError,
)
from ._common import (
    library_version,
    PathLike,
    Text,
)
from .positions import (
    MoveList,
    perft,
    Position,
    Score,
)
from .records import (
    Invalid,
    Operation,
    parse,
    read,
    Record,
    Unquoted,
    write,
)
from .verbs import (
    check,
    check_text,
    mate,
    mate_text,
    MateSummary,
    normalize,
    normalize_text,
    purge,
    purge_text,
    repair,
    repair_text,
    report,
    select,
    select_text,
    SelectSummary,
    Summary,
)
from .engines import (
    AnalysisInfo,
    AnalysisSummary,
    analyze,
    analyze_text,
    Engine,
    target,
    target_text,
)
from .pgn import (
    from_pgn,
    PgnSummary,
)

__all__ = [
    "AnalysisInfo",
    "AnalysisSummary",
    "Diagnostic",
    "Engine",
    "EngineError",
    "EngineTerminatedError",
    "EpdError",
    "EpdFileNotFoundError",
    "EpdIOError",
    "EpdIsADirectoryError",
    "EpdPermissionError",
    "EpdValueError",
    "FenError",
    "Invalid",
    "MoveList",
    "InvalidRecordError",
    "MateSummary",
    "MoveError",
    "Operation",
    "PgnSummary",
    "Position",
    "Record",
    "Score",
    "SelectSummary",
    "Summary",
    "Unquoted",
    "analyze",
    "analyze_text",
    "check",
    "check_text",
    "diagnostic_codes",
    "from_pgn",
    "library_version",
    "mate",
    "mate_text",
    "normalize",
    "normalize_text",
    "parse",
    "perft",
    "purge",
    "purge_text",
    "read",
    "repair",
    "repair_text",
    "report",
    "select",
    "select_text",
    "target",
    "target_text",
    "write",
]

__version__ = "0.1.0"
