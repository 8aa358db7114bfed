//! The analysis hook: a C engine registers a search callback; the library
//! calls it with a position and limits and writes what it finds (pv, pm,
//! ce, acn, acs, acd) into a record. The verbs that will use it (general
//! analysis, target search, mate search) need only new request fields,
//! which come as new accessor functions: the ABI never breaks.

use crate::error::{
    epd_status, guard, Error, Result, EPD_STATUS_ENGINE, EPD_STATUS_ILLEGAL_MOVE, EPD_STATUS_INVALID_ARGUMENT,
    EPD_STATUS_NULL_POINTER, EPD_STATUS_OUT_OF_RANGE,
};
use crate::position::{boxed, epd_int64, epd_move, epd_position, free_boxed};
use crate::ptr::{arg_mut, arg_ref, c_str, slice, Out};
use crate::record::{epd_record, no_position};
use crate::score::epd_score;
use core::ffi::{c_char, c_int, c_long, c_uint, c_ulong, c_void};
use epd_core::{Move, OperandInput, Position, Score};
use std::fmt;

/// The search callback: analyze the position of `request` (read it with
/// the epd_search_request_... functions) and report through the
/// epd_search_result_set_... functions. Return 0 on success; non-zero
/// makes epd_engine_analyze_record fail with EPD_STATUS_ENGINE (give a
/// reason with epd_search_result_set_error). Both handles are borrowed
/// for the duration of the call only. The callback runs on the thread that
/// called epd_engine_analyze_record.
#[allow(non_camel_case_types)]
pub type epd_search_callback = Option<
    extern "C" fn(user: *mut c_void, request: *const epd_search_request, result: *mut epd_search_result) -> c_int,
>;

/// What a search is for (epd_search_request_goal). Values are stable.
#[allow(non_camel_case_types)]
pub type epd_search_goal = c_int;
/// General analysis (pfga): the best move, its variation and score.
pub const EPD_SEARCH_ANALYZE: epd_search_goal = 0;

/// An analysis engine: a search callback and its limits. Created by
/// epd_engine_new, freed with epd_engine_free. Settings come as setter
/// functions, so new ones never break the ABI.
///
/// Thread safety: may be used from any thread; not changed while an
/// analysis runs. The callback and its user pointer are the caller's to
/// make thread-safe if engines are used from several threads.
#[allow(non_camel_case_types)]
pub struct epd_engine {
    callback: extern "C" fn(*mut c_void, *const epd_search_request, *mut epd_search_result) -> c_int,
    user: *mut c_void,
    depth: u32,
    time_ms: u64,
    nodes: Option<i64>,
}

impl fmt::Debug for epd_engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("epd_engine")
            .field("depth", &self.depth)
            .field("time_ms", &self.time_ms)
            .field("nodes", &self.nodes)
            .finish_non_exhaustive()
    }
}

/// What the search callback is asked: a position and limits. Borrowed;
/// valid only during the callback, on the thread running it.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_search_request {
    position: epd_position,
    record: *const epd_record,
    depth: u32,
    time_ms: u64,
    nodes: Option<i64>,
    goal: epd_search_goal,
}

/// Where the search callback puts what it found. Borrowed; valid only
/// during the callback, on the thread running it. Every setter checks its value (moves must be legal)
/// and may be called again to replace it.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_search_result {
    position: Position,
    pv: Vec<Move>,
    best: Option<Move>,
    score: Option<Score>,
    nodes: Option<i64>,
    depth: Option<u32>,
    seconds: Option<u64>,
    error: Option<String>,
}

/// Creates an engine around `callback` (must not be NULL) in *out_engine
/// (free it with epd_engine_free). `user` is passed to every call of the
/// callback unchanged. No limits are set: the engine chooses.
#[no_mangle]
pub extern "C" fn epd_engine_new(
    callback: epd_search_callback,
    user: *mut c_void,
    out_engine: *mut *mut epd_engine,
) -> epd_status {
    guard(|| {
        let out = Out::new(out_engine, "out_engine")?;
        let callback = callback.ok_or_else(|| Error::new(EPD_STATUS_NULL_POINTER, "callback is NULL"))?;
        out.set(boxed(epd_engine { callback, user, depth: 0, time_ms: 0, nodes: None }));
        Ok(())
    })
}

/// Frees an engine. Does nothing if `engine` is NULL.
#[no_mangle]
pub extern "C" fn epd_engine_free(engine: *mut epd_engine) {
    free_boxed(engine);
}

/// Sets the depth limit in plies (0: no limit; the engine chooses).
#[no_mangle]
pub extern "C" fn epd_engine_set_depth(engine: *mut epd_engine, plies: c_uint) -> epd_status {
    guard(|| {
        arg_mut(engine, "engine")?.depth = plies;
        Ok(())
    })
}

/// Sets the time limit per position in milliseconds (0: no limit).
#[no_mangle]
pub extern "C" fn epd_engine_set_time_limit(engine: *mut epd_engine, milliseconds: c_ulong) -> epd_status {
    guard(|| {
        arg_mut(engine, "engine")?.time_ms = u64::from(milliseconds);
        Ok(())
    })
}

/// Sets the node limit per position (see epd_int64; a negative value
/// removes the limit).
#[no_mangle]
pub extern "C" fn epd_engine_set_node_limit(engine: *mut epd_engine, nodes: epd_int64) -> epd_status {
    guard(|| {
        let e = arg_mut(engine, "engine")?;
        let n = nodes.to_i64()?;
        e.nodes = (n >= 0).then_some(n);
        Ok(())
    })
}

/// The position to analyze, borrowed in *out_position: valid during the
/// callback only (clone it with epd_position_clone to keep it).
#[no_mangle]
pub extern "C" fn epd_search_request_position(
    request: *const epd_search_request,
    out_position: *mut *const epd_position,
) -> epd_status {
    guard(|| {
        let r = arg_ref(request, "request")?;
        Out::new(out_position, "out_position")?.set(&r.position);
        Ok(())
    })
}

/// The record being analyzed (to read bm, am, dm or id), borrowed in
/// *out_record: valid during the callback only.
#[no_mangle]
pub extern "C" fn epd_search_request_record(
    request: *const epd_search_request,
    out_record: *mut *const epd_record,
) -> epd_status {
    guard(|| {
        let r = arg_ref(request, "request")?;
        Out::new(out_record, "out_record")?.set(r.record);
        Ok(())
    })
}

/// What the search is for (EPD_SEARCH_ANALYZE; later verbs add goals).
#[no_mangle]
pub extern "C" fn epd_search_request_goal(
    request: *const epd_search_request,
    out_goal: *mut epd_search_goal,
) -> epd_status {
    guard(|| {
        let r = arg_ref(request, "request")?;
        Out::new(out_goal, "out_goal")?.set(r.goal);
        Ok(())
    })
}

/// The limits: depth in plies, time in milliseconds (0 means none for
/// both), and nodes (hi = -1, lo = 0xFFFFFFFF, that is -1, means none).
/// Any out-parameter may be NULL if not wanted.
#[no_mangle]
pub extern "C" fn epd_search_request_limits(
    request: *const epd_search_request,
    out_depth: *mut c_uint,
    out_milliseconds: *mut c_ulong,
    out_nodes: *mut epd_int64,
) -> epd_status {
    guard(|| {
        let r = arg_ref(request, "request")?;
        if let Some(o) = Out::optional(out_depth) {
            o.set(r.depth);
        }
        if let Some(o) = Out::optional(out_milliseconds) {
            o.set(c_ulong::try_from(r.time_ms).unwrap_or(c_ulong::MAX));
        }
        if let Some(o) = Out::optional(out_nodes) {
            o.set(epd_int64::from_i64(r.nodes.unwrap_or(-1)));
        }
        Ok(())
    })
}

fn result_mut<'a>(result: *mut epd_search_result) -> Result<&'a mut epd_search_result> {
    arg_mut(result, "result")
}

/// The principal variation: `count` moves from `moves`, each legal in the
/// position after the ones before it (EPD_STATUS_ILLEGAL_MOVE otherwise,
/// and the result keeps its previous pv). Its first move is the best move.
#[no_mangle]
pub extern "C" fn epd_search_result_set_pv(
    result: *mut epd_search_result,
    moves: *const epd_move,
    count: usize,
) -> epd_status {
    guard(|| {
        let r = result_mut(result)?;
        if count > 1 << 16 {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("a pv of {count} moves")));
        }
        let list = slice(moves, count, "moves")?;
        let mut pos = r.position;
        let mut pv = Vec::with_capacity(list.len());
        for (i, m) in list.iter().enumerate() {
            let m = m
                .to_legal(&pos)
                .map_err(|e| Error::new(EPD_STATUS_ILLEGAL_MOVE, format!("pv move {}: {}", i + 1, e.message)))?;
            pos.play_unchecked(m);
            pv.push(m);
        }
        r.pv = pv;
        Ok(())
    })
}

/// The best move (when no pv is given, the pv is this one move; when both
/// are, the pv must start with it).
#[no_mangle]
pub extern "C" fn epd_search_result_set_best_move(result: *mut epd_search_result, mv: epd_move) -> epd_status {
    guard(|| {
        let r = result_mut(result)?;
        let m = mv.to_legal(&r.position)?;
        r.best = Some(m);
        Ok(())
    })
}

/// The evaluation as a ce value (-32768..32766, side to move's view).
#[no_mangle]
pub extern "C" fn epd_search_result_set_ce(result: *mut epd_search_result, ce: c_long) -> epd_status {
    guard(|| {
        let r = result_mut(result)?;
        let s = Score::from_ce(i64::from(ce)).map_err(|e| Error::new(EPD_STATUS_OUT_OF_RANGE, e.to_string()))?;
        r.score = Some(s);
        Ok(())
    })
}

/// The evaluation as an epd_score (epd_score_from_uci_cp and
/// epd_score_from_uci_mate make one from UCI terms).
#[no_mangle]
pub extern "C" fn epd_search_result_set_score(result: *mut epd_search_result, score: epd_score) -> epd_status {
    guard(|| {
        let r = result_mut(result)?;
        r.score = Some(score.to_core()?);
        Ok(())
    })
}

/// The number of nodes searched (written as acn; see epd_int64; must not
/// be negative).
#[no_mangle]
pub extern "C" fn epd_search_result_set_nodes(result: *mut epd_search_result, nodes: epd_int64) -> epd_status {
    guard(|| {
        let r = result_mut(result)?;
        let n = nodes.to_i64()?;
        if n < 0 {
            return Err(Error::new(EPD_STATUS_OUT_OF_RANGE, "a node count is not negative"));
        }
        r.nodes = Some(n);
        Ok(())
    })
}

/// The depth reached in plies (written as acd).
#[no_mangle]
pub extern "C" fn epd_search_result_set_depth(result: *mut epd_search_result, plies: c_uint) -> epd_status {
    guard(|| {
        result_mut(result)?.depth = Some(plies);
        Ok(())
    })
}

/// The seconds used (written as acs; processor time preferred, section 6.2).
#[no_mangle]
pub extern "C" fn epd_search_result_set_seconds(result: *mut epd_search_result, seconds: c_ulong) -> epd_status {
    guard(|| {
        result_mut(result)?.seconds = Some(u64::from(seconds));
        Ok(())
    })
}

/// A reason for failure (NUL-terminated, copied), reported in
/// epd_last_error_message() when the callback returns non-zero.
#[no_mangle]
pub extern "C" fn epd_search_result_set_error(result: *mut epd_search_result, message: *const c_char) -> epd_status {
    guard(|| {
        let r = result_mut(result)?;
        let m = c_str(message, "message")?;
        r.error = Some(String::from_utf8_lossy(m).into_owned());
        Ok(())
    })
}

fn engine_error(message: String) -> Error {
    Error::new(EPD_STATUS_ENGINE, message)
}

/// Runs the engine's search over the record's position and writes the
/// result into the record, replacing earlier analysis: pv (the variation),
/// pm (its first move), ce (the score), and acn, acs, acd when the
/// callback reported nodes, seconds, depth (else they are removed).
///
/// A checkmated or stalemated position is not searched: it gets an empty
/// pv, no pm, and ce -32767 (checkmated) or 0 (stalemate), as section 7.2 asks.
/// Fails with EPD_STATUS_NO_POSITION for a record without a playable
/// position and EPD_STATUS_ENGINE when the callback fails or gives no
/// move or no score; on failure the record is unchanged.
#[no_mangle]
pub extern "C" fn epd_engine_analyze_record(engine: *const epd_engine, record: *mut epd_record) -> epd_status {
    guard(|| {
        let e = arg_ref(engine, "engine")?;
        // Shared access only while the callback may read the record through
        // the request; the exclusive borrow comes after it returns.
        let rec_ptr: *const epd_record = record;
        let r = arg_ref(rec_ptr, "record")?;
        let pos = *r.rec.position().ok_or_else(no_position)?;
        let mut updated = r.rec.clone();
        let set = |rec: &mut epd_core::Record, op: &str, inputs: &[OperandInput<'_>]| {
            rec.set(op, inputs).map_err(|err| engine_error(format!("cannot write {op}: {err}")))
        };
        if !pos.has_legal_moves() {
            let ce = if pos.is_check() { Score::Checkmated.to_ce() } else { 0 };
            for op in ["pm", "acn", "acs", "acd"] {
                updated.remove(op);
            }
            set(&mut updated, "pv", &[])?;
            set(&mut updated, "ce", &[OperandInput::Integer(ce)])?;
            arg_mut(record, "record")?.rec = updated;
            return Ok(());
        }
        let request = epd_search_request {
            position: epd_position { pos },
            record: rec_ptr,
            depth: e.depth,
            time_ms: e.time_ms,
            nodes: e.nodes,
            goal: EPD_SEARCH_ANALYZE,
        };
        let mut result = epd_search_result {
            position: pos,
            pv: Vec::new(),
            best: None,
            score: None,
            nodes: None,
            depth: None,
            seconds: None,
            error: None,
        };
        let rc = (e.callback)(e.user, &request, &mut result);
        if rc != 0 {
            let why = result.error.take().unwrap_or_else(|| format!("the search callback returned {rc}"));
            return Err(engine_error(format!("engine failed: {why}")));
        }
        let mut pv = result.pv;
        match (pv.first(), result.best) {
            (None, Some(best)) => pv.push(best),
            (Some(&first), Some(best)) if first != best => {
                return Err(engine_error(format!(
                    "the best move {} is not the first move of the pv {}",
                    pos.san(best),
                    pos.san(first)
                )))
            }
            (None, None) => return Err(engine_error("the search callback gave no move".into())),
            _ => {}
        }
        let score = result.score.ok_or_else(|| engine_error("the search callback gave no score".into()))?;
        let moves: Vec<OperandInput<'_>> = pv.iter().map(|&m| OperandInput::Move(m)).collect();
        set(&mut updated, "pv", &moves)?;
        set(&mut updated, "pm", &moves[..1])?;
        set(&mut updated, "ce", &[OperandInput::Integer(score.to_ce())])?;
        for (op, value) in [
            ("acn", result.nodes),
            ("acs", result.seconds.map(|s| i64::try_from(s).unwrap_or(i64::MAX))),
            ("acd", result.depth.map(i64::from)),
        ] {
            match value {
                Some(v) => set(&mut updated, op, &[OperandInput::Integer(v)])?,
                None => {
                    updated.remove(op);
                }
            }
        }
        arg_mut(record, "record")?.rec = updated;
        Ok(())
    })
}
