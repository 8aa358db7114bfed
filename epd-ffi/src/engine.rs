//! Analysis engines: a C search callback, the built-in search or a UCI
//! program, with their settings; the file verbs over them (general
//! analysis, target search), one record or one position searched, and
//! what a search found (each line's score and moves, the counters).
//!
//! The C engine registers a search callback; the library calls it with a
//! position and limits and writes what it finds (pv, pm, ce, acn, acs,
//! acd) into a record. New request fields come as new accessor
//! functions: the ABI never breaks.

use crate::error::{
    epd_status, guard, Error, Result, EPD_STATUS_ENGINE, EPD_STATUS_ENGINE_TERMINATED, EPD_STATUS_ILLEGAL_MOVE,
    EPD_STATUS_INVALID_ARGUMENT, EPD_STATUS_NOT_FOUND, EPD_STATUS_NULL_POINTER, EPD_STATUS_OUT_OF_RANGE,
};
use crate::position::{epd_int64, epd_move, epd_position};
use crate::ptr::{
    arg_mut, arg_ref, c_str, c_utf8, free_boxed, lend, lend_mut, slice, to_boxed, write_array, Castable, Out,
    OwnershipBox, OwnershipRef,
};
use crate::record::{epd_record, no_position, RecordBuf};
use crate::score::epd_score;
use ::epd_engine::analysis::{apply, AnalysisOptions, AnalysisSummary, AnalysisVerb as Verb, Analyzer};
use ::epd_engine::{Analysis, Builtin, Engine, EngineError, Limits, UciConfig, UciEngine};
use core::ffi::{c_char, c_int, c_long, c_uint, c_ulong, c_void};
use epd_core::pipeline::{self, Config};
use epd_core::{Move, Position, Score};
use std::fmt;
use std::io::{BufReader, BufWriter, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The search callback: analyze the position of `request` (read it with
/// the epd_search_request_... functions) and report through the
/// epd_search_result_set_... functions. Return 0 on success; non-zero
/// makes epd_engine_analyze_record fail with EPD_STATUS_ENGINE (give a
/// reason with epd_search_result_set_error). Both handles are borrowed
/// for the duration of the call only. The callback runs on the thread that
/// called epd_engine_analyze_record.
#[allow(non_camel_case_types)]
pub type epd_search_callback = Option<
    unsafe extern "C" fn(
        user: *mut c_void,
        request: *const epd_search_request,
        result: *mut epd_search_result,
    ) -> c_int,
>;

/// What a search is for (epd_search_request_goal). Values are stable.
#[allow(non_camel_case_types)]
pub type epd_search_goal = c_int;
/// General analysis (pfga): the best move, its variation and score.
pub const EPD_SEARCH_ANALYZE: epd_search_goal = 0;
/// Target search (pfts): as EPD_SEARCH_ANALYZE, and the move found is
/// judged against the record's bm and am.
pub const EPD_SEARCH_TARGET: epd_search_goal = 1;

/// An analysis engine: a search callback (epd_engine_new), the built-in
/// search (epd_engine_new_builtin) or a UCI program (epd_engine_new_uci),
/// and its settings. Freed with epd_engine_free. Settings come as setter
/// functions, so new ones never break the ABI.
///
/// Thread safety: may be used from any thread; not changed while an
/// analysis runs. The callback and its user pointer are the caller's to
/// make thread-safe if engines are used from several threads.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_engine {
    _private: [u8; 0],
}

impl Castable for epd_engine {
    type Ownership = OwnershipBox;
    type RustType = AnalysisEngine;
}

/// The C search callback, never NULL.
type SearchFn = unsafe extern "C" fn(*mut c_void, *const epd_search_request, *mut epd_search_result) -> c_int;

/// What searches for an engine.
#[derive(Debug)]
pub(crate) enum Search {
    /// The caller's callback, called with its user pointer.
    Callback { callback: SearchFn, user: *mut c_void },
    /// A program the library runs itself (one instance per job of a file
    /// verb, one kept for the searches of one record or position).
    Program(Program),
}

/// The Rust value behind an epd_engine handle.
pub(crate) struct AnalysisEngine {
    search: Search,
    solution_time: bool,
    depth: u32,
    time_ms: u64,
    nodes: Option<i64>,
    jobs: u32,
    counters: bool,
    /// The program's instance that epd_engine_analyze_record uses, started
    /// on first use (or by epd_engine_start) and kept until
    /// epd_engine_stop or epd_engine_free, so that one record after another
    /// costs no new process and the engine keeps what it learned.
    kept: std::sync::Mutex<Option<Box<dyn Engine>>>,
    /// Whether the next search on the kept program starts a new game
    /// (UCI `ucinewgame`, `isready`): set when the engine is made, by
    /// epd_engine_new_game and epd_engine_stop, and when the program
    /// died; cleared by that search. Searches in one game keep the
    /// engine's hash, as python-chess's do.
    new_game: AtomicBool,
    /// The cancel flag the engine's runs watch (epd_engine_set_cancel).
    cancel: Option<Arc<AtomicBool>>,
}

/// An engine the library starts itself.
#[derive(Clone, Debug)]
pub(crate) enum Program {
    /// epd-engine's own search, with a hash table of this many MiB and
    /// the options added (those `epd uci` declares).
    Builtin { hash_mb: usize, options: Vec<(String, String)> },
    /// A UCI engine: program, arguments, options sent after the handshake.
    Uci(UciConfig),
}

impl Program {
    /// Starts the program; a UCI engine that does not declare an option
    /// it is given is refused (EngineError::UnknownOption), and so is a
    /// value outside the option's declared type or range
    /// (EngineError::OptionValue). A raised `stop` ends a UCI handshake
    /// at once (the program killed).
    fn start(&self, stop: Option<&AtomicBool>) -> core::result::Result<Box<dyn Engine>, EngineError> {
        Ok(match self {
            Program::Builtin { hash_mb, options } => Box::new(Builtin::with_options(*hash_mb, options)?),
            Program::Uci(config) => Box::new(UciEngine::start_watched(config.clone(), stop)?),
        })
    }
}

impl AnalysisEngine {
    fn new(search: Search) -> AnalysisEngine {
        AnalysisEngine {
            search,
            solution_time: false,
            depth: 0,
            time_ms: 0,
            nodes: None,
            jobs: 1,
            counters: false,
            kept: std::sync::Mutex::new(None),
            new_game: AtomicBool::new(true),
            cancel: None,
        }
    }

    /// The program of a program engine; None for a callback engine.
    fn program(&self) -> Option<&Program> {
        match &self.search {
            Search::Program(p) => Some(p),
            Search::Callback { .. } => None,
        }
    }

    /// The program, or EPD_STATUS_INVALID_ARGUMENT naming what only a
    /// program engine does.
    fn program_for(&self, what: &str) -> Result<&Program> {
        self.program().ok_or_else(|| Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("only a program engine {what}")))
    }
}

impl fmt::Debug for AnalysisEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnalysisEngine")
            .field("search", &self.search)
            .field("depth", &self.depth)
            .field("time_ms", &self.time_ms)
            .field("nodes", &self.nodes)
            .field("jobs", &self.jobs)
            .field("counters", &self.counters)
            .finish_non_exhaustive()
    }
}

/// What the search callback is asked: a position and limits. Borrowed;
/// valid only during the callback, on the thread running it.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_search_request {
    _private: [u8; 0],
}

impl Castable for epd_search_request {
    type Ownership = OwnershipRef;
    type RustType = SearchRequest;
}

/// The Rust value behind an epd_search_request handle.
#[derive(Debug)]
pub(crate) struct SearchRequest {
    position: Position,
    record: *const epd_record,
    depth: u32,
    time_ms: u64,
    nodes: Option<i64>,
    goal: epd_search_goal,
    /// The run's stop flag (NULL: none), for epd_search_request_stopped.
    stop: *const AtomicBool,
}

/// Where the search callback puts what it found. Borrowed; valid only
/// during the callback, on the thread running it. Every setter checks its
/// value (moves must be legal) and may be called again to replace it.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_search_result {
    _private: [u8; 0],
}

impl Castable for epd_search_result {
    type Ownership = OwnershipRef;
    type RustType = SearchResult;
}

/// The Rust value behind an epd_search_result handle.
#[derive(Debug)]
pub(crate) struct SearchResult {
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
        out.set(to_boxed(AnalysisEngine::new(Search::Callback { callback, user })));
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
        Out::new(out_position, "out_position")?.set(lend(&r.position));
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

/// Whether the run that made this request asks the search to end: 1 in
/// *out_stopped once the engine's cancel flag (epd_engine_set_cancel) is
/// raised, else 0. A callback that searches for long polls it and, on 1,
/// returns at once (what it sets in the result is not used: the run fails
/// with EPD_STATUS_CANCELLED). Any thread may raise the flag meanwhile.
#[no_mangle]
pub extern "C" fn epd_search_request_stopped(
    request: *const epd_search_request,
    out_stopped: *mut c_int,
) -> epd_status {
    guard(|| {
        let r = arg_ref(request, "request")?;
        // SAFETY: set by Hook::search to a flag that outlives the call,
        // during which the request is valid; NULL when there is none.
        let stopped = unsafe { r.stop.as_ref() }.is_some_and(|s| s.load(Ordering::SeqCst));
        Out::new(out_stopped, "out_stopped")?.set(c_int::from(stopped));
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

fn result_mut<'a>(result: *mut epd_search_result) -> Result<&'a mut SearchResult> {
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

/// The search settings and callback, detached from the handle so that
/// worker threads can own a copy.
#[derive(Clone, Copy)]
struct Hook {
    callback: SearchFn,
    user: *mut c_void,
    depth: u32,
    time_ms: u64,
    nodes: Option<i64>,
    goal: epd_search_goal,
}

// SAFETY: the hook holds the C caller's callback and user pointer. The
// header states the contract for the file verbs: the callback is called
// from threads the library starts (several at once when jobs > 1), so
// the caller makes the callback and its user data safe to use from them.
unsafe impl Send for Hook {}

/// What one call of the callback found: a pv that starts with the best
/// move (never empty), the score if given, and the counters.
struct Found {
    pv: Vec<Move>,
    score: Option<Score>,
    nodes: Option<i64>,
    depth: Option<u32>,
    seconds: Option<u64>,
}

impl Hook {
    /// The callback with the depth, time and node limits of `limits`.
    fn new(callback: SearchFn, user: *mut c_void, limits: &Limits, goal: epd_search_goal) -> Hook {
        Hook {
            callback,
            user,
            depth: limits.depth.unwrap_or(0),
            time_ms: limits.movetime.map_or(0, |t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
            nodes: limits.nodes.map(|n| i64::try_from(n).unwrap_or(i64::MAX)),
            goal,
        }
    }

    /// Calls the callback on `pos` (which has a legal move); `record` is
    /// what epd_search_request_record hands out (NULL allowed), `stop`
    /// what epd_search_request_stopped reads.
    fn search(
        &self,
        pos: Position,
        record: *const epd_record,
        stop: Option<&AtomicBool>,
    ) -> core::result::Result<Found, String> {
        let request = SearchRequest {
            position: pos,
            record,
            depth: self.depth,
            time_ms: self.time_ms,
            nodes: self.nodes,
            goal: self.goal,
            stop: stop.map_or(core::ptr::null(), core::ptr::from_ref),
        };
        let mut result = SearchResult {
            position: pos,
            pv: Vec::new(),
            best: None,
            score: None,
            nodes: None,
            depth: None,
            seconds: None,
            error: None,
        };
        // SAFETY: the engine's search callback with its own `user` pointer
        // and a request and a result that live for the call, as
        // epd_search_callback documents; the moves it reports go through
        // the checked epd_search_result_ functions.
        let rc = unsafe { (self.callback)(self.user, lend(&request), lend_mut(&mut result)) };
        if rc != 0 {
            let why = result.error.take().unwrap_or_else(|| format!("the search callback returned {rc}"));
            return Err(format!("engine failed: {why}"));
        }
        let mut pv = result.pv;
        match (pv.first(), result.best) {
            (None, Some(best)) => pv.push(best),
            (Some(&first), Some(best)) if first != best => {
                return Err(format!(
                    "the best move {} is not the first move of the pv {}",
                    pos.san(best),
                    pos.san(first)
                ))
            }
            (None, None) => return Err("the search callback gave no move".into()),
            _ => {}
        }
        Ok(Found { pv, score: result.score, nodes: result.nodes, depth: result.depth, seconds: result.seconds })
    }

    /// The callback's search of `pos` as an analysis; a position without
    /// a legal move is not searched.
    fn analyze_with(
        &self,
        pos: &Position,
        record: *const epd_record,
        stop: &AtomicBool,
    ) -> core::result::Result<Analysis, EngineError> {
        if !pos.has_legal_moves() {
            return Ok(Analysis::no_moves(pos));
        }
        let start = Instant::now();
        let found = self.search(*pos, record, Some(stop)).map_err(|detail| EngineError::Refused { detail })?;
        let elapsed = found.seconds.map_or_else(|| start.elapsed(), Duration::from_secs);
        Ok(Analysis {
            best: found.pv.first().copied(),
            pv: found.pv,
            score: found.score,
            depth: found.depth,
            seldepth: None,
            nodes: found.nodes.and_then(|n| u64::try_from(n).ok()),
            elapsed,
            lines: Vec::new(),
            found: None,
        })
    }
}

impl Engine for Hook {
    fn name(&self) -> &str {
        "the C search callback"
    }

    fn new_game(&mut self) -> core::result::Result<(), EngineError> {
        Ok(())
    }

    fn analyze(
        &mut self,
        pos: &Position,
        _: &Limits,
        stop: &AtomicBool,
    ) -> core::result::Result<Analysis, EngineError> {
        self.analyze_with(pos, core::ptr::null(), stop)
    }

    fn analyze_record(
        &mut self,
        rec: &epd_core::Record,
        pos: &Position,
        _: &Limits,
        stop: &AtomicBool,
    ) -> core::result::Result<Analysis, EngineError> {
        // The callback may read the record (bm, am, id) through the request.
        let handle = RecordBuf::new(rec.clone());
        self.analyze_with(pos, lend(&handle), stop)
    }
}

/// Searches the record's position with the engine and writes what it
/// found into the record, as the file verbs (epd_engine_run_files with
/// EPD_SEARCH_ANALYZE) write each record: pv (the variation), ce (the
/// score; left out when the search gave no exact score), pm (the first
/// move of pv), replacing what the record held; with
/// epd_engine_set_counters, acd, acn and acs (a counter the engine did
/// not report is removed), and with epd_engine_set_solution_time,
/// Solve_ms, Solve_acn and Solve_acd. The record's other operations are
/// kept. During a callback, epd_search_request_record gives this record.
///
/// A checkmated or stalemated position is not searched: it gets an empty
/// pv, no pm, and ce -32767 (checkmated) or 0 (stalemate), as section 7.2
/// asks.
///
/// An engine made by epd_engine_new_builtin or epd_engine_new_uci runs
/// its program once for all calls (started on the first, or by
/// epd_engine_start; stopped by epd_engine_stop or epd_engine_free), one
/// call at a time: calls from several threads wait for each other. The
/// calls are one game, the program's hash kept from one to the next,
/// until epd_engine_new_game asks for a new one.
///
/// Fails with EPD_STATUS_NO_POSITION for a record without a playable
/// position, EPD_STATUS_ENGINE when the callback fails or gives no move,
/// or the program fails, EPD_STATUS_ENGINE_TERMINATED when the program
/// died (before the call or during it; the next call starts it again, in
/// a new game), EPD_STATUS_CANCELLED when the engine's cancel flag is
/// raised (epd_engine_set_cancel; for a callback engine, raised by the
/// time the callback returns); on failure the record is unchanged.
#[no_mangle]
pub extern "C" fn epd_engine_analyze_record(engine: *const epd_engine, record: *mut epd_record) -> epd_status {
    guard(|| {
        let e = arg_ref(engine, "engine")?;
        // Shared access only while the callback may read the record through
        // the request; the exclusive borrow comes after the search.
        let shared: *const epd_record = record;
        let r = arg_ref(shared, "record")?;
        let pos = *r.rec.position().ok_or_else(no_position)?;
        let options = analysis_options(e, Verb::Analyze);
        let found = search_position(e, &pos, Some((&r.rec, shared)), &options.limits)?;
        let mut updated = r.rec.clone();
        apply(&mut updated, &found, &options)
            .map_err(|err| engine_error(format!("the analysis cannot be written: {err}")))?;
        arg_mut(record, "record")?.rec = updated;
        Ok(())
    })
}

/// Sets how many searches the file verbs run at once (1 by default; 0 is
/// taken as 1). With more than one, the callback is called concurrently
/// from several library threads and must be thread-safe, user data
/// included.
#[no_mangle]
pub extern "C" fn epd_engine_set_jobs(engine: *mut epd_engine, jobs: c_uint) -> epd_status {
    guard(|| {
        arg_mut(engine, "engine")?.jobs = jobs.max(1);
        Ok(())
    })
}

/// Watches `cancel` (see epd_cancel; NULL: none) in the engine's runs
/// from now on: the file verbs, epd_engine_analyze_position and (for an
/// engine made by epd_engine_new_builtin or epd_engine_new_uci)
/// epd_engine_analyze_record fail with EPD_STATUS_CANCELLED when it is
/// raised before or during them, the search in progress stopped and the
/// file verbs having written every record finished before. A search
/// callback is not interrupted: it sees the flag through
/// epd_search_request_stopped, and the run stops when it returns (with a
/// callback engine, epd_engine_analyze_record fails with
/// EPD_STATUS_CANCELLED too, the record unchanged). The engine keeps a
/// reference of its own: the handle may be freed before the engine.
/// Replaces the flag set before.
#[no_mangle]
pub extern "C" fn epd_engine_set_cancel(
    engine: *mut epd_engine,
    cancel: *const crate::cancel::epd_cancel,
) -> epd_status {
    guard(|| {
        let e = arg_mut(engine, "engine")?;
        e.cancel = crate::cancel::watched(cancel)?;
        Ok(())
    })
}

/// Whether the file verbs and epd_engine_analyze_record write acd, acn
/// and acs (the depth, nodes and seconds the engine reports; a callback
/// that reports no seconds gets the time its search took); non-zero for
/// yes. Off by default.
#[no_mangle]
pub extern "C" fn epd_engine_set_counters(engine: *mut epd_engine, counters: c_int) -> epd_status {
    guard(|| {
        arg_mut(engine, "engine")?.counters = counters != 0;
        Ok(())
    })
}

/// Counts from epd_engine_run_files and epd_engine_run_memory.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct epd_analysis_summary {
    /// Lines read (blank ones included).
    pub lines: c_ulong,
    /// Records read (non-blank lines).
    pub records: c_ulong,
    /// Records with at least one error (copied through unchanged).
    pub invalid: c_ulong,
    /// Records analysed.
    pub analyzed: c_ulong,
    /// Records on which the callback failed (returned non-zero or gave no
    /// move); each is written without new analysis.
    pub faults: c_ulong,
    /// Analysed records whose move is in bm (when bm is present) and not
    /// in am (when am is present).
    pub solved: c_ulong,
    /// Analysed records with bm or am that were not solved.
    pub missed: c_ulong,
    /// Analysed records with neither bm nor am.
    pub unscored: c_ulong,
}

impl From<&AnalysisSummary> for epd_analysis_summary {
    fn from(s: &AnalysisSummary) -> epd_analysis_summary {
        let sat = |v: u64| c_ulong::try_from(v).unwrap_or(c_ulong::MAX);
        epd_analysis_summary {
            lines: sat(s.lines),
            records: sat(s.records),
            invalid: sat(s.invalid),
            analyzed: sat(s.counts.analyzed),
            faults: sat(s.counts.faults),
            solved: sat(s.counts.solved),
            missed: sat(s.counts.missed),
            unscored: sat(s.counts.unscored),
        }
    }
}

/// An engine's failure as a status: EPD_STATUS_ENGINE_TERMINATED when its
/// program exited or closed its pipes (EngineError::Crashed), else
/// EPD_STATUS_ENGINE.
pub(crate) fn engine_failure(name: &str, err: &EngineError) -> Error {
    let status =
        if matches!(err, EngineError::Crashed { .. }) { EPD_STATUS_ENGINE_TERMINATED } else { EPD_STATUS_ENGINE };
    Error::new(status, format!("{name}: {err}"))
}

fn run_engine(
    e: &AnalysisEngine,
    goal: epd_search_goal,
    input: impl Read + Send,
    output: impl Write,
    out_summary: *mut epd_analysis_summary,
    what: &str,
) -> Result<()> {
    let verb = match goal {
        EPD_SEARCH_ANALYZE => Verb::Analyze,
        EPD_SEARCH_TARGET => Verb::Target,
        _ => return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("unknown search goal {goal}"))),
    };
    let options = analysis_options(e, verb);
    let jobs = e.jobs.max(1) as usize;
    let mut engines: Vec<Box<dyn Engine>> = match &e.search {
        Search::Program(_) => (0..jobs).map(|_| start_program(e)).collect::<Result<_>>()?,
        &Search::Callback { callback, user } => {
            let hook = Hook::new(callback, user, &options.limits, goal);
            (0..jobs).map(|_| Box::new(hook) as Box<dyn Engine>).collect()
        }
    };
    let local = AtomicBool::new(false);
    let stop = e.cancel.as_deref().unwrap_or(&local);
    let mut workers: Vec<_> = engines.iter_mut().map(|h| Analyzer::new(&mut **h, &options, stop)).collect();
    let input = BufReader::with_capacity(64 << 10, input);
    let output = BufWriter::with_capacity(64 << 10, output);
    let config = Config { flush_each: true, stop: Some(stop), ..Config::default() };
    let summary = pipeline::run(input, output, &mut workers, &config, &|_, _| {}, &mut |_| {}, &mut |_| {})
        .map_err(|err| crate::verbs::io_error(&err, what))?;
    if summary.interrupted || stop.load(Ordering::SeqCst) {
        return Err(crate::cancel::cancelled(&format!(
            "{what}: {} records analysed and written",
            summary.counts.analyzed
        )));
    }
    if let Some(o) = Out::optional(out_summary) {
        o.set(epd_analysis_summary::from(&summary));
    }
    Ok(())
}

/// What the analysis verb `verb` writes with this engine: its limits (1 s
/// per position for a program engine given none), counters and solution
/// times as set.
fn analysis_options(e: &AnalysisEngine, verb: Verb) -> AnalysisOptions {
    let mut limits = engine_limits(e);
    if e.program().is_some() {
        default_time(&mut limits);
    }
    let mut options = AnalysisOptions::new(verb, limits);
    options.counters = e.counters;
    options.solution_time = e.solution_time;
    options
}

/// Starts the engine's program, as EPD_STATUS_ENGINE when it cannot
/// (EPD_STATUS_ENGINE_TERMINATED when it exited during the handshake,
/// EPD_STATUS_CANCELLED when the engine's cancel flag was raised): the
/// next search on it starts a new game.
fn start_program(e: &AnalysisEngine) -> Result<Box<dyn Engine>> {
    let program = e.program_for("is started")?;
    e.new_game.store(true, Ordering::SeqCst);
    let stop = e.cancel.as_deref();
    program.start(stop).map_err(|err| {
        if stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
            crate::cancel::cancelled("the engine's start")
        } else {
            engine_failure("cannot start the engine", &err)
        }
    })
}

/// The limits set on the engine (epd_engine_set_depth, _time_limit,
/// _node_limit), before any default.
fn engine_limits(e: &AnalysisEngine) -> Limits {
    Limits {
        movetime: (e.time_ms > 0).then(|| Duration::from_millis(e.time_ms)),
        depth: (e.depth > 0).then_some(e.depth),
        nodes: e.nodes.and_then(|n| u64::try_from(n).ok()),
        ..Limits::default()
    }
}

/// Searches `pos` under `limits` with the engine: its callback (which is
/// given the depth, time and node limits), or its kept program, started
/// if need be (given every limit, 1 s when it has none of time, depth
/// and nodes). `record` is the record searched, if one is, with the
/// handle the callback may read it through. Program engines start a new
/// game only when one is asked for (epd_engine_new_game; the first search
/// after the start), so one search may use the hash of the last, as
/// python-chess's do.
///
/// The engine's cancel flag stops the search: then the result is
/// EPD_STATUS_CANCELLED.
fn search_position(
    e: &AnalysisEngine,
    pos: &Position,
    record: Option<(&epd_core::Record, *const epd_record)>,
    limits: &Limits,
) -> Result<Analysis> {
    let local = AtomicBool::new(false);
    let stop = e.cancel.as_deref().unwrap_or(&local);
    if stop.load(Ordering::SeqCst) {
        return Err(crate::cancel::cancelled("the search"));
    }
    let found = search_watched(e, pos, record, limits, stop);
    if stop.load(Ordering::SeqCst) {
        return Err(crate::cancel::cancelled("the search"));
    }
    found
}

fn search_watched(
    e: &AnalysisEngine,
    pos: &Position,
    record: Option<(&epd_core::Record, *const epd_record)>,
    limits: &Limits,
    stop: &AtomicBool,
) -> Result<Analysis> {
    if let Search::Callback { callback, user } = e.search {
        let hook = Hook::new(callback, user, limits, EPD_SEARCH_ANALYZE);
        let handle = record.map_or(core::ptr::null(), |(_, handle)| handle);
        return hook.analyze_with(pos, handle, stop).map_err(|err| engine_failure(hook.name(), &err));
    }
    let mut limits = limits.clone();
    default_time(&mut limits);
    let mut kept = e.kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let engine = match kept.as_mut() {
        Some(engine) => engine,
        None => kept.insert(start_program(e)?),
    };
    // As python-chess's analyse: an engine that declares UCI_AnalyseMode
    // is told it analyses (sent once: set_option sends only a change).
    let analysing = match engine.set_option("UCI_AnalyseMode", "true") {
        Err(err @ (EngineError::Crashed { .. } | EngineError::Io { .. } | EngineError::Timeout { .. })) => Err(err),
        _ => Ok(()),
    };
    let fresh = e.new_game.swap(false, Ordering::SeqCst);
    let found = analysing.and_then(|()| if fresh { engine.new_game() } else { Ok(()) }).and_then(|()| match record {
        Some((rec, _)) => engine.analyze_record(rec, pos, &limits, stop),
        None => engine.analyze(pos, &limits, stop),
    });
    found.map_err(|err| {
        // A failed search may have cost the process (restarted by the
        // next call): that call starts a new game.
        e.new_game.store(true, Ordering::SeqCst);
        engine_failure(engine.name(), &err)
    })
}

/// A program engine given no limit searches 1 s per position, as `epd
/// analyze` does: the built-in search would otherwise never end, and a
/// UCI engine would be sent `go infinite`.
fn default_time(limits: &mut Limits) {
    if limits.movetime.is_none() && limits.depth.is_none() && limits.nodes.is_none() {
        limits.movetime = Some(Duration::from_secs(1));
    }
}

/// Runs general analysis (goal EPD_SEARCH_ANALYZE, section 7.2) or target
/// search (EPD_SEARCH_TARGET, section 7.5) with the engine's callback over
/// the file at `input_path`, writing the file at `output_path` (created or
/// truncated; both NUL-terminated paths, naming different files).
///
/// Every valid record is searched and written in canonical form with pv,
/// ce and pm (and acd, acn, acs if epd_engine_set_counters asked for
/// them); its other operations are kept; records keep their order. A
/// position with no legal move is not searched: it gets an empty pv,
/// ce -32767 (checkmated) or 0 (stalemate), no pm. Invalid records are
/// copied through unchanged. When the callback fails on a record, the
/// record is written without new analysis, counted in faults, and the run
/// goes on. During the callback, epd_search_request_record gives the
/// record being searched and epd_search_request_goal the goal.
///
/// The callback runs on threads the library starts (see
/// epd_engine_set_jobs). Counts go to *out_summary unless it is NULL. The
/// status reports only I/O errors (EPD_STATUS_IO), bad arguments, and a
/// raised cancel flag (EPD_STATUS_CANCELLED, see epd_engine_set_cancel:
/// the output then holds the records finished, in order, each whole).
#[no_mangle]
pub extern "C" fn epd_engine_run_files(
    engine: *const epd_engine,
    goal: epd_search_goal,
    input_path: *const c_char,
    output_path: *const c_char,
    out_summary: *mut epd_analysis_summary,
) -> epd_status {
    guard(|| {
        let e = arg_ref(engine, "engine")?;
        let (file, out, what) = crate::verbs::open_pair(input_path, output_path)?;
        run_engine(e, goal, file, out, out_summary, &what)
    })
}

/// As epd_engine_run_files, over `len` bytes of text at `input`; the
/// output is returned as a new string in *out_text (owned: free it with
/// epd_string_free; it may contain NUL bytes copied from invalid input
/// lines, so use *out_len, which receives its length).
#[no_mangle]
pub extern "C" fn epd_engine_run_memory(
    engine: *const epd_engine,
    goal: epd_search_goal,
    input: *const c_char,
    len: usize,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
    out_summary: *mut epd_analysis_summary,
) -> epd_status {
    guard(|| {
        let e = arg_ref(engine, "engine")?;
        let input = crate::ptr::bytes(input, len, "input")?;
        let out_t = Out::new(out_text, "out_text")?;
        let out_l = Out::new(out_len, "out_len")?;
        let mut output = Vec::with_capacity(input.len() + input.len() / 2);
        run_engine(e, goal, input, &mut output, out_summary, "memory")?;
        let n = output.len();
        out_t.set(crate::ptr::owned_string(output)?);
        out_l.set(n);
        Ok(())
    })
}

/// Creates an engine in *out_engine (free it with epd_engine_free) that
/// runs EPD Kit's own search, with a hash table of `hash_mb` MiB (0: 16)
/// per job. It works with every epd_engine_ function that takes an engine;
/// without a limit it searches 1 second per position.
#[no_mangle]
pub extern "C" fn epd_engine_new_builtin(hash_mb: c_uint, out_engine: *mut *mut epd_engine) -> epd_status {
    guard(|| {
        let out = Out::new(out_engine, "out_engine")?;
        let hash_mb = if hash_mb == 0 { 16 } else { hash_mb as usize };
        out.set(to_boxed(AnalysisEngine::new(Search::Program(Program::Builtin { hash_mb, options: Vec::new() }))));
        Ok(())
    })
}

/// Creates an engine in *out_engine (free it with epd_engine_free) that
/// runs the UCI program `program` (a NUL-terminated path, or a name looked
/// up on PATH) with the `argc` NUL-terminated arguments at `argv` (NULL
/// when `argc` is 0). The program is started when a verb runs, once per
/// job, and stopped at its end; a program that cannot be started or does
/// not complete the UCI handshake in 10 s makes the verb fail with
/// EPD_STATUS_ENGINE. Without a limit it searches 1 second per position.
#[no_mangle]
pub extern "C" fn epd_engine_new_uci(
    program: *const c_char,
    argv: *const *const c_char,
    argc: usize,
    out_engine: *mut *mut epd_engine,
) -> epd_status {
    guard(|| {
        let program = c_utf8(program, "program")?.to_owned();
        let out = Out::new(out_engine, "out_engine")?;
        let args = if argc == 0 { &[][..] } else { slice(argv, argc, "argv")? };
        let args = args.iter().map(|&a| c_utf8(a, "argv[i]").map(str::to_owned)).collect::<Result<Vec<_>>>()?;
        if program.is_empty() {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, "program is empty"));
        }
        let config = UciConfig { args, ..UciConfig::new(program) };
        out.set(to_boxed(AnalysisEngine::new(Search::Program(Program::Uci(config)))));
        Ok(())
    })
}

/// Adds a UCI option to an engine made by epd_engine_new_uci (`setoption
/// name NAME value VALUE`, sent after the handshake, in the order added)
/// or by epd_engine_new_builtin (the options `epd uci` declares: Hash,
/// Threads, MultiPV, PawnValue, KnightValue, BishopValue, RookValue,
/// QueenValue, MobilityWeight, FutilityMargin; a Hash given here replaces
/// epd_engine_new_builtin's). An option the engine does not declare, or
/// a value the built-in engine does not take, makes the engine fail to
/// start (EPD_STATUS_ENGINE, from epd_engine_start or the first run).
/// Callback engines give EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_engine_add_uci_option(
    engine: *mut epd_engine,
    name: *const c_char,
    value: *const c_char,
) -> epd_status {
    guard(|| {
        let (e, name, value) = option_args(engine, name, value)?;
        match &mut e.search {
            Search::Program(Program::Uci(UciConfig { options, .. }) | Program::Builtin { options, .. }) => {
                options.push((name, value));
                Ok(())
            }
            Search::Callback { .. } => Err(not_for_callbacks()),
        }
    })
}

/// Starts the program of an engine made by epd_engine_new_builtin or
/// epd_engine_new_uci now, and keeps it for epd_engine_analyze_record,
/// which otherwise starts it on first use. EPD_STATUS_ENGINE when the
/// program cannot be started, does not complete the UCI handshake, does
/// not declare an option given with epd_engine_add_uci_option, or
/// declares it with a type or range the value given is outside of (a
/// spin option's min and max, a check option's true and false, a combo
/// option's vars); EPD_STATUS_ENGINE_TERMINATED when it exits during the
/// handshake; EPD_STATUS_CANCELLED when the engine's cancel flag
/// (epd_engine_set_cancel) is raised during the handshake, which is then
/// given up at once (the program killed); in each case nothing is kept. Does nothing if the program is running already.
/// Other engines give EPD_STATUS_INVALID_ARGUMENT. The file verbs start
/// instances of their own, one per job.
#[no_mangle]
pub extern "C" fn epd_engine_start(engine: *mut epd_engine) -> epd_status {
    guard(|| {
        let e = arg_mut(engine, "engine")?;
        e.program_for("is started")?;
        if e.kept.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).is_none() {
            let started = start_program(e)?;
            *e.kept.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(started);
        }
        Ok(())
    })
}

/// Sets a UCI option of an engine made by epd_engine_new_uci or
/// epd_engine_new_builtin from now on, as python-chess's `configure`: a
/// running UCI program is sent `setoption name NAME value VALUE` at once
/// (only when the value differs from the one it has), the built-in
/// engine is made again with it (its hash emptied); either way the value
/// replaces one given before for later starts. EPD_STATUS_ENGINE for an
/// option the engine does not declare or a value outside its declared
/// type or range (nothing changes then); a UCI program not running
/// checks it when it starts. Other engines give
/// EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_engine_set_uci_option(
    engine: *mut epd_engine,
    name: *const c_char,
    value: *const c_char,
) -> epd_status {
    guard(|| {
        let (e, name, value) = option_args(engine, name, value)?;
        let set = |options: &mut Vec<(String, String)>| {
            options.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
            options.push((name.clone(), value.clone()));
        };
        let mut program = e.program().ok_or_else(not_for_callbacks)?.clone();
        let kept = e.kept.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        match &mut program {
            Program::Uci(UciConfig { options, .. }) => {
                if let Some(running) = kept.as_mut() {
                    running.set_option(&name, &value).map_err(|err| engine_failure("cannot set the option", &err))?;
                }
                set(options);
            }
            Program::Builtin { options, .. } => {
                set(options);
                // Made again at once, running or not, so a bad value is
                // refused here and not at the next start.
                let fresh = program.start(None).map_err(|err| engine_failure("cannot set the option", &err))?;
                if kept.is_some() {
                    *kept = Some(fresh);
                    e.new_game.store(true, Ordering::SeqCst);
                }
            }
        }
        e.search = Search::Program(program);
        Ok(())
    })
}

/// Starts a new game on the program kept by an engine made by
/// epd_engine_new_builtin or epd_engine_new_uci: the next
/// epd_engine_analyze_position or epd_engine_analyze_record sends it
/// `ucinewgame` and `isready` (the built-in engine clears its hash)
/// before its search. Searches between two new games are one game, as
/// python-chess's are: the engine keeps its hash from one to the next.
/// The first search after the program starts (epd_engine_start, or a
/// restart after it died) is a new game without this call. The file
/// verbs (epd_engine_run_files, epd_engine_run_memory) start a new game
/// for every record, as `epd analyze` does. Other engines give
/// EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_engine_new_game(engine: *mut epd_engine) -> epd_status {
    guard(|| {
        let e = arg_mut(engine, "engine")?;
        e.program_for("starts a new game")?;
        e.new_game.store(true, Ordering::SeqCst);
        Ok(())
    })
}

/// Stops the program that epd_engine_start or epd_engine_analyze_record
/// started (a UCI engine is sent `quit`, and killed if it does not exit);
/// the next epd_engine_analyze_record starts it again. Does nothing if
/// none is running. epd_engine_free stops it too.
#[no_mangle]
pub extern "C" fn epd_engine_stop(engine: *mut epd_engine) -> epd_status {
    guard(|| {
        let e = arg_mut(engine, "engine")?;
        let kept = e.kept.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        drop(kept);
        Ok(())
    })
}

/// Whether the file verbs and epd_engine_analyze_record write Solve_ms,
/// Solve_acn and Solve_acd (when the move played first led the principal
/// variation and then held it); non-zero for yes. Off by default. Only
/// the built-in and UCI engines report when that was; for a callback
/// engine it is the end of its search.
#[no_mangle]
pub extern "C" fn epd_engine_set_solution_time(engine: *mut epd_engine, on: c_int) -> epd_status {
    guard(|| {
        arg_mut(engine, "engine")?.solution_time = on != 0;
        Ok(())
    })
}

/// The failure of a UCI option given to a callback engine.
fn not_for_callbacks() -> Error {
    Error::new(
        EPD_STATUS_INVALID_ARGUMENT,
        "UCI options are for engines made by epd_engine_new_uci or epd_engine_new_builtin",
    )
}

/// The engine, and an option's name and value as both option setters
/// take them: UTF-8, trimmed, the name not empty.
fn option_args<'a>(
    engine: *mut epd_engine,
    name: *const c_char,
    value: *const c_char,
) -> Result<(&'a mut AnalysisEngine, String, String)> {
    let e = arg_mut(engine, "engine")?;
    let name = c_utf8(name, "name")?.trim().to_owned();
    let value = c_utf8(value, "value")?.trim().to_owned();
    if name.is_empty() {
        return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, "the option name is empty"));
    }
    Ok((e, name, value))
}

/// The most lines (MultiPV) a search may be asked for.
pub const EPD_MAX_LINES: c_uint = 256;

/// Limits for one search by epd_engine_analyze_position, apart from the
/// engine's own. Created by epd_limits_new with no limit and one line,
/// freed with epd_limits_free; each setter replaces its value.
///
/// Thread safety: may be used from any thread; not changed by two at
/// once, nor while a search that was given it runs.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_limits {
    _private: [u8; 0],
}

impl Castable for epd_limits {
    type Ownership = OwnershipBox;
    type RustType = SearchLimits;
}

/// The Rust value behind an epd_limits handle.
#[derive(Debug, Clone, Default)]
pub(crate) struct SearchLimits {
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
        Out::new(out_limits, "out_limits")?.set(to_boxed(SearchLimits { lines: 1, ..SearchLimits::default() }));
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
    _private: [u8; 0],
}

impl Castable for epd_analysis {
    type Ownership = OwnershipBox;
    type RustType = AnalysisLines;
}

/// The Rust value behind an epd_analysis handle.
#[derive(Debug)]
pub(crate) struct AnalysisLines {
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
        let pos = *arg_ref(position, "position")?;
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
        let a = search_position(e, &pos, None, &limits)?;
        let mut lines = vec![Line { pv: a.pv, score: a.score }];
        lines.extend(a.lines.into_iter().map(|l| Line { pv: l.pv, score: l.score }));
        lines.truncate(limits.multipv.max(1) as usize);
        out.set(to_boxed(AnalysisLines {
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
    let a: &'a AnalysisLines = arg_ref(analysis, "analysis")?;
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
