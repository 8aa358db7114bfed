//! One position searched with limits of its own (depth, time, nodes, a
//! mate to find, several lines), and everything the search found: each
//! line's score and moves, the depth, selective depth, nodes and time.

use crate::analysis::{engine_limits, epd_engine, search_position};
use crate::error::{epd_status, guard, Error, Result, EPD_STATUS_INVALID_ARGUMENT, EPD_STATUS_NOT_FOUND};
use crate::position::{boxed, epd_int64, epd_move, epd_position, free_boxed};
use crate::ptr::{arg_mut, arg_ref, write_array, Out};
use crate::score::epd_score;
use ::epd_engine::Limits;
use core::ffi::{c_long, c_uint, c_ulong};
use epd_core::{Move, Score};
use std::time::Duration;

/// The most lines (MultiPV) a search may be asked for.
pub const EPD_MAX_LINES: c_uint = 256;

/// Limits for one search by epd_engine_analyze_position, apart from the
/// engine's own. Created by epd_limits_new with no limit and one line,
/// freed with epd_limits_free; each setter replaces its value.
///
/// Thread safety: may be used from any thread; not changed by two at
/// once, nor while a search that was given it runs.
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Default)]
pub struct epd_limits {
    depth: u32,
    time_ms: u64,
    nodes: Option<i64>,
    mate: u32,
    lines: u32,
}

/// Creates limits in *out_limits (free them with epd_limits_free): no
/// depth, time, node or mate limit, one line.
#[no_mangle]
pub extern "C" fn epd_limits_new(out_limits: *mut *mut epd_limits) -> epd_status {
    guard(|| {
        Out::new(out_limits, "out_limits")?.set(boxed(epd_limits { lines: 1, ..epd_limits::default() }));
        Ok(())
    })
}

/// Frees limits. Does nothing if `limits` is NULL.
#[no_mangle]
pub extern "C" fn epd_limits_free(limits: *mut epd_limits) {
    free_boxed(limits);
}

/// The depth limit in plies (0: none).
#[no_mangle]
pub extern "C" fn epd_limits_set_depth(limits: *mut epd_limits, plies: c_uint) -> epd_status {
    guard(|| {
        arg_mut(limits, "limits")?.depth = plies;
        Ok(())
    })
}

/// The time limit in milliseconds (0: none).
#[no_mangle]
pub extern "C" fn epd_limits_set_time(limits: *mut epd_limits, milliseconds: c_ulong) -> epd_status {
    guard(|| {
        arg_mut(limits, "limits")?.time_ms = u64::from(milliseconds);
        Ok(())
    })
}

/// The node limit (see epd_int64; a negative value removes it).
#[no_mangle]
pub extern "C" fn epd_limits_set_nodes(limits: *mut epd_limits, nodes: epd_int64) -> epd_status {
    guard(|| {
        let l = arg_mut(limits, "limits")?;
        let n = nodes.to_i64()?;
        l.nodes = (n >= 0).then_some(n);
        Ok(())
    })
}

/// Stop as soon as a mate in at most `moves` moves is found (UCI `go mate
/// N`; 0: no such aim). It bounds nothing by itself: where there is no
/// such mate, the search ends at the other limits, or after 1 s with none.
#[no_mangle]
pub extern "C" fn epd_limits_set_mate(limits: *mut epd_limits, moves: c_uint) -> epd_status {
    guard(|| {
        arg_mut(limits, "limits")?.mate = moves;
        Ok(())
    })
}

/// The number of lines wanted (MultiPV): the best move's principal
/// variation and those of the next best moves, 1 to EPD_MAX_LINES (0 is
/// taken as 1; more gives EPD_STATUS_INVALID_ARGUMENT and the limits keep
/// their value).
#[no_mangle]
pub extern "C" fn epd_limits_set_lines(limits: *mut epd_limits, lines: c_uint) -> epd_status {
    guard(|| {
        let l = arg_mut(limits, "limits")?;
        if lines > EPD_MAX_LINES {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("{lines} lines: at most {EPD_MAX_LINES}")));
        }
        l.lines = lines.max(1);
        Ok(())
    })
}

/// One line of an analysis: its moves and its score.
#[derive(Debug)]
struct Line {
    pv: Vec<Move>,
    score: Option<Score>,
}

/// What epd_engine_analyze_position found: one line or more, best first,
/// and the search's counters. Freed with epd_analysis_free; read with the
/// epd_analysis_... functions.
///
/// Thread safety: never changed once made: may be read from several
/// threads at once.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_analysis {
    lines: Vec<Line>,
    depth: Option<u32>,
    seldepth: Option<u32>,
    nodes: Option<u64>,
    elapsed: Duration,
}

/// Searches `position` with the engine and gives what it found in
/// *out_analysis (free it with epd_analysis_free). `limits` are the limits
/// of this search only; NULL means the engine's own (epd_engine_set_depth,
/// _time_limit, _node_limit). Nothing of the engine's settings changes.
///
/// An engine made by epd_engine_new_builtin or epd_engine_new_uci runs on
/// the program kept for epd_engine_analyze_record (started if need be;
/// in the game of the search before, its hash kept, unless
/// epd_engine_new_game asked for a new one), given 1 s when it has no
/// time, depth or node limit. A UCI engine that
/// declares MultiPV is set to the number of lines asked for before the
/// search. A callback engine (epd_engine_new) is given the depth, time and
/// node limits and gives one line.
///
/// A position without a legal move is not searched: one line with no move
/// and the score checkmated or, for stalemate, 0 centipawns. Fails with
/// EPD_STATUS_ENGINE when the engine cannot be started or fails,
/// EPD_STATUS_ENGINE_TERMINATED when its program died, before the call
/// or during it (the next call starts it again, in a new game), and
/// EPD_STATUS_CANCELLED when its cancel flag (epd_engine_set_cancel) is
/// raised; then *out_analysis is not written.
#[no_mangle]
pub extern "C" fn epd_engine_analyze_position(
    engine: *const epd_engine,
    position: *const epd_position,
    limits: *const epd_limits,
    out_analysis: *mut *mut epd_analysis,
) -> epd_status {
    guard(|| {
        let e = arg_ref(engine, "engine")?;
        let pos = arg_ref(position, "position")?.pos;
        let out = Out::new(out_analysis, "out_analysis")?;
        let limits = if limits.is_null() {
            engine_limits(e)
        } else {
            let l = arg_ref(limits, "limits")?;
            Limits {
                depth: (l.depth > 0).then_some(l.depth),
                movetime: (l.time_ms > 0).then(|| Duration::from_millis(l.time_ms)),
                nodes: l.nodes.and_then(|n| u64::try_from(n).ok()),
                mate: (l.mate > 0).then_some(l.mate),
                multipv: l.lines.max(1),
                ..Limits::default()
            }
        };
        let a = search_position(e, &pos, &limits)?;
        let mut lines = vec![Line { pv: a.pv, score: a.score }];
        lines.extend(a.lines.into_iter().map(|l| Line { pv: l.pv, score: l.score }));
        lines.truncate(limits.multipv.max(1) as usize);
        out.set(boxed(epd_analysis {
            lines,
            depth: a.depth,
            seldepth: a.seldepth,
            nodes: a.nodes,
            elapsed: a.elapsed,
        }));
        Ok(())
    })
}

/// Frees an analysis. Does nothing if `analysis` is NULL.
#[no_mangle]
pub extern "C" fn epd_analysis_free(analysis: *mut epd_analysis) {
    free_boxed(analysis);
}

fn line_of<'a>(analysis: *const epd_analysis, index: usize) -> Result<&'a Line> {
    let a: &'a epd_analysis = arg_ref(analysis, "analysis")?;
    a.lines
        .get(index)
        .ok_or_else(|| Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("line {index} of {}", a.lines.len())))
}

/// The number of lines in *out_count: at least 1, at most the number
/// asked for (fewer when the position has fewer legal moves or the
/// engine gave fewer). Line 0 is the best.
#[no_mangle]
pub extern "C" fn epd_analysis_line_count(analysis: *const epd_analysis, out_count: *mut usize) -> epd_status {
    guard(|| {
        let a = arg_ref(analysis, "analysis")?;
        Out::new(out_count, "out_count")?.set(a.lines.len());
        Ok(())
    })
}

/// The score of line `index` (0-based) in *out_score, from the side to
/// move's point of view. EPD_STATUS_NOT_FOUND when the engine gave no
/// exact score for it; an index past the end gives
/// EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_analysis_line_score(
    analysis: *const epd_analysis,
    index: usize,
    out_score: *mut epd_score,
) -> epd_status {
    guard(|| {
        let line = line_of(analysis, index)?;
        let out = Out::new(out_score, "out_score")?;
        let score = line.score.ok_or_else(|| Error::new(EPD_STATUS_NOT_FOUND, format!("line {index} has no score")))?;
        out.set(epd_score::from_core(score));
        Ok(())
    })
}

/// Writes the moves of line `index` (0-based; legal one after another
/// from the position, the first being the line's move) into `moves`
/// (room for `capacity` moves) and their number into *out_count. With
/// less room than needed nothing is written to `moves`, the status is
/// EPD_STATUS_BUFFER_TOO_SMALL and *out_count receives the number of
/// moves (the room needed). `moves` may be NULL only if `capacity` is 0,
/// which is how to learn the count alone. A position without a legal move
/// has one line of no move.
#[no_mangle]
pub extern "C" fn epd_analysis_line_moves(
    analysis: *const epd_analysis,
    index: usize,
    moves: *mut epd_move,
    capacity: usize,
    out_count: *mut usize,
) -> epd_status {
    guard(|| {
        let line = line_of(analysis, index)?;
        let out = Out::new(out_count, "out_count")?;
        if line.pv.len() > capacity {
            out.set(line.pv.len());
            return Err(Error::new(
                crate::error::EPD_STATUS_BUFFER_TOO_SMALL,
                format!("{} moves, room for {capacity}", line.pv.len()),
            ));
        }
        let converted: Vec<epd_move> = line.pv.iter().map(|&m| epd_move::from(m)).collect();
        write_array(moves, &converted, "moves")?;
        out.set(line.pv.len());
        Ok(())
    })
}

/// The search's counters: the depth and the selective depth reached in
/// plies (-1 when the engine did not say), the nodes searched (see
/// epd_int64; -1 when the engine did not say), and the milliseconds the
/// search took. Any out-parameter may be NULL if not wanted.
#[no_mangle]
pub extern "C" fn epd_analysis_counters(
    analysis: *const epd_analysis,
    out_depth: *mut c_long,
    out_seldepth: *mut c_long,
    out_nodes: *mut epd_int64,
    out_milliseconds: *mut c_ulong,
) -> epd_status {
    guard(|| {
        let a = arg_ref(analysis, "analysis")?;
        let plies = |v: Option<u32>| v.map_or(-1, |v| c_long::try_from(v).unwrap_or(c_long::MAX));
        if let Some(o) = Out::optional(out_depth) {
            o.set(plies(a.depth));
        }
        if let Some(o) = Out::optional(out_seldepth) {
            o.set(plies(a.seldepth));
        }
        if let Some(o) = Out::optional(out_nodes) {
            o.set(epd_int64::from_i64(a.nodes.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX))));
        }
        if let Some(o) = Out::optional(out_milliseconds) {
            o.set(c_ulong::try_from(a.elapsed.as_millis()).unwrap_or(c_ulong::MAX));
        }
        Ok(())
    })
}
