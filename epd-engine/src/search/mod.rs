//! The built-in chess engine: an iterative-deepening alpha-beta search
//! (principal variation search with aspiration windows, null-move
//! pruning, late move reductions, check extension, quiescence), a
//! transposition table, and the static [`evaluate`]. The analysis verbs
//! use it when no external engine is named, and [`crate::uci_server::serve`] exposes it
//! over the UCI protocol (`epd uci`).
//!
//! Scores are exact: [`Outcome::score`] comes from the last completed
//! iteration, or from an interrupted one whose best move had been fully
//! searched with an exact score. Mates are [`Score::MateIn`] and
//! [`Score::MatedIn`] in fullmoves, as §6.7 counts them.
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use epd_engine::search::{SearchLimits, Searcher};
//! use epd_core::{Position, Score};
//!
//! // Scholar's mate is one move away.
//! let pos: Position = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4".parse().unwrap();
//! let mut searcher = Searcher::new(16);
//! let limits = SearchLimits { depth: Some(3), ..SearchLimits::default() };
//! let out = searcher.search(&pos, &[], &limits, &AtomicBool::new(false), &mut |_| {});
//! assert_eq!(out.score, Some(Score::MateIn(1)));
//! assert_eq!(pos.uci(out.best.unwrap()), "f3f7");
//! ```

mod eval;
mod order;
mod tt;

pub use eval::{evaluate, evaluate_with, Params};

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use epd_core::{Move, Position, Score};
use order::Picker;
use tt::{Bound, Table};

/// The deepest ply the search reaches (extensions included).
const MAX_PLY: usize = 128;
/// The deepest iteration.
const MAX_DEPTH: u32 = 100;
/// The score of mate at the root; mate at ply `p` scores `MATE - p`.
const MATE: i32 = 31_000;
/// Scores beyond this (in absolute value) are mates.
const MATE_BOUND: i32 = MATE - 2 * MAX_PLY as i32;
/// Above every score.
const INF: i32 = 32_000;
/// Quiescence searches at most this many captures per node (the best
/// three by MVV-LVA; every evasion when in check). Crowded positions
/// (18 rooks facing 18 rooks) otherwise take minutes for depth 1, each
/// equal trade multiplying the tree; WAC solves as many within noise
/// (`epd target`: --depth 4 185 -> 187, --nodes 5000 192 -> 192, 30000
/// 245 -> 244, 200000 272 -> 269).
const QS_CAPTURES: usize = 3;
/// Quiescence skips captures that cannot lift the score to alpha even
/// with this much positional gain on top of the captured piece.
const DELTA_MARGIN: i32 = 200;

/// Nodes depth 1 may spend before any limit or the stop flag is honoured:
/// enough to finish depth 1 of ordinary positions, so even a tiny budget
/// or an early `stop` gets a scored answer; a few milliseconds on crowded
/// ones, where depth 1 can take far longer.
pub const FIRST_BATCH: u64 = 4096;

/// When to stop searching. All `None` searches until the stop flag is set.
#[derive(Clone, Debug, Default)]
pub struct SearchLimits {
    /// The last iteration's depth, in plies.
    pub depth: Option<u32>,
    /// Nodes to search (checked at every node). Depth 1 may take up to
    /// [`FIRST_BATCH`] nodes whatever the budget.
    pub nodes: Option<u64>,
    /// Time to search (checked every 1024 nodes, after the first batch).
    pub movetime: Option<Duration>,
    /// Stop as soon as a mate in at most this many moves is proven.
    pub mate: Option<u32>,
}

/// A progress report: one completed iteration, or the exact best move of
/// the iteration a stop interrupted (then the [`Outcome`]'s answer).
#[derive(Clone, Debug)]
pub struct SearchInfo {
    /// The iteration's depth in plies.
    pub depth: u32,
    /// The deepest ply reached (extensions and quiescence included).
    pub seldepth: u32,
    /// The score, side to move's view; exact, never a bound.
    pub score: Score,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search began.
    pub elapsed: Duration,
    /// The principal variation, a legal sequence from the root.
    pub pv: Vec<Move>,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The best move; `None` only when there is no legal move.
    pub best: Option<Move>,
    /// The score of `best` (side to move's view), or the score of the
    /// position (checkmated, or 0 for stalemate) when there is no move.
    pub score: Option<Score>,
    /// The principal variation from the root; `pv[0] == best`.
    pub pv: Vec<Move>,
    /// Depth of the iteration the answer comes from.
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent.
    pub elapsed: Duration,
}

/// A search engine with its transposition table and move-ordering
/// history, reused from one search to the next (call [`Searcher::clear`]
/// between unrelated games). `Send`, so a UCI front end can search on
/// another thread.
pub struct Searcher {
    tt: Table,
    hash_mb: usize,
    history: Box<[[i32; 64]; 12]>,
    killers: Vec<[Option<Move>; 2]>,
    reductions: Box<[[u8; 64]; 64]>,
    params: Params,
}

impl fmt::Debug for Searcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Searcher").field("hash_mb", &self.hash_mb).finish_non_exhaustive()
    }
}

impl Default for Searcher {
    fn default() -> Searcher {
        Searcher::new(16)
    }
}

/// A move with its exact score and principal variation.
#[derive(Clone, Debug)]
struct Line {
    score: i32,
    pv: Vec<Move>,
}

impl Searcher {
    /// An engine with a transposition table of about `hash_mb` MiB.
    #[must_use]
    pub fn new(hash_mb: usize) -> Searcher {
        let mut reductions = Box::new([[0u8; 64]; 64]);
        for (d, row) in reductions.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.4 + (d as f64).ln() * (m as f64).ln() / 2.3) as u8;
            }
        }
        Searcher {
            tt: Table::new(hash_mb),
            hash_mb,
            history: Box::new([[0; 64]; 12]),
            killers: vec![[None; 2]; MAX_PLY + 1],
            reductions,
            params: Params::DEFAULT,
        }
    }

    /// Replaces the transposition table with one of about `hash_mb` MiB.
    pub fn resize(&mut self, hash_mb: usize) {
        if hash_mb != self.hash_mb {
            self.tt = Table::new(0); // free the old table first
            self.tt = Table::new(hash_mb);
            self.hash_mb = hash_mb;
        }
    }

    /// The evaluation and search values it plays with.
    #[must_use]
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Changes the evaluation and search values (what the table holds
    /// was scored with the old ones: [`Searcher::clear`] it when that
    /// matters).
    pub fn set_params(&mut self, params: Params) {
        self.params = params;
    }

    /// Forgets everything learnt (a new game): the transposition table,
    /// the history and the killer moves.
    pub fn clear(&mut self) {
        self.tt.clear();
        self.history.iter_mut().for_each(|r| r.fill(0));
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
    }

    /// Searches `pos` within `limits`, or until `stop` is set.
    ///
    /// `history` holds the Zobrist hashes ([`Position::zobrist_hash`]) of
    /// the game's earlier positions, oldest first, so that repeating one
    /// scores as a draw. `on_info` hears about every completed iteration.
    /// Every limit and the stop flag end the search within one batch of
    /// 1024 nodes, in any iteration (depth 1 first gets [`FIRST_BATCH`]).
    /// There is a best move whenever the position has a legal move: the
    /// last completed iteration's, else the best root move the first
    /// iteration scored exactly, else the first root move in search order
    /// (then with no score and depth 0).
    pub fn search(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &SearchLimits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Outcome {
        self.search_excluding(pos, history, limits, &[], stop, on_info)
    }

    /// [`Searcher::search`] with the root moves in `excluded` left out
    /// (the next line of a MultiPV search). When every legal move is
    /// excluded, the result is that of a position without moves.
    pub fn search_excluding(
        &mut self,
        pos: &Position,
        history: &[u64],
        limits: &SearchLimits,
        excluded: &[Move],
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Outcome {
        let start = Instant::now();
        let mut moves = pos.legal_moves();
        if !excluded.is_empty() {
            moves.retain(|m| !excluded.contains(m));
        }
        if moves.is_empty() {
            let score = if pos.is_check() { Score::Checkmated } else { Score::Centipawns(0) };
            return Outcome {
                best: None,
                score: Some(score),
                pv: Vec::new(),
                depth: 0,
                seldepth: 0,
                nodes: 0,
                elapsed: start.elapsed(),
            };
        }
        self.tt.new_search();
        self.history.iter_mut().flatten().for_each(|h| *h /= 2);
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);

        let mut keys = Vec::with_capacity(history.len() + MAX_PLY + 2);
        keys.extend_from_slice(history);
        keys.push(pos.zobrist_hash());
        let mut t = Search {
            s: self,
            stop,
            keys,
            nodes: 0,
            seldepth: 0,
            deadline: limits.movetime.map(|d| start + d),
            node_limit: limits.nodes,
            stopped: false,
            first_iteration: true,
            pv: vec![Vec::new(); MAX_PLY + 1],
            iter_best: None,
        };

        // Root moves in the main search's order; each iteration's best
        // move then goes to the front.
        let tt_move = t.s.tt.probe(pos.zobrist_hash()).and_then(|e| e.mv);
        let mut picker = Picker::new(pos, moves, tt_move, [None; 2], &t.s.history);
        let mut root_moves = Vec::with_capacity(picker.len());
        while let Some((m, _)) = picker.next() {
            root_moves.push(m);
        }

        let max_depth = limits.depth.map_or(MAX_DEPTH, |d| d.clamp(1, MAX_DEPTH));
        let mut result: Option<(Line, u32)> = None;
        let mut prev = 0;
        for depth in 1..=max_depth {
            if depth > 1 && (stop.load(Ordering::Relaxed) || t.deadline.is_some_and(|d| Instant::now() >= d)) {
                break;
            }
            t.first_iteration = depth == 1;
            let d = depth as i32;
            let (mut alpha, mut beta, mut delta) =
                if depth >= 5 { (prev - 30, prev + 30, 30) } else { (-INF, INF, INF) };
            let score = loop {
                t.iter_best = None;
                let s = t.root(pos, &mut root_moves, d, alpha, beta);
                if t.stopped {
                    break s;
                }
                if s <= alpha {
                    alpha = (s - delta).max(-INF);
                } else if s >= beta {
                    beta = (s + delta).min(INF);
                } else {
                    break s;
                }
                delta = delta.saturating_mul(2);
                if delta > 800 {
                    (alpha, beta) = (-INF, INF);
                }
            };
            if t.stopped {
                // An interrupted iteration counts only through a root move
                // it finished with an exact score.
                if let Some(line) = t.iter_best.take() {
                    on_info(&SearchInfo {
                        depth,
                        seldepth: t.seldepth,
                        score: to_score(line.score),
                        nodes: t.nodes,
                        elapsed: start.elapsed(),
                        pv: line.pv.clone(),
                    });
                    result = Some((line, depth));
                }
                break;
            }
            let Some(line) = t.iter_best.take() else { break };
            prev = score;
            on_info(&SearchInfo {
                depth,
                seldepth: t.seldepth,
                score: to_score(line.score),
                nodes: t.nodes,
                elapsed: start.elapsed(),
                pv: line.pv.clone(),
            });
            let mate_found = limits.mate.is_some_and(|n| score >= MATE_BOUND && ((MATE - score + 1) / 2) as u32 <= n);
            result = Some((line, depth));
            if mate_found {
                break;
            }
        }

        let (nodes, seldepth) = (t.nodes, t.seldepth);
        let (line, depth) = match result {
            Some(r) => r,
            // The first iteration was stopped before any root move got an
            // exact score: the first move in search order, unscored.
            None => {
                return Outcome {
                    best: Some(root_moves[0]),
                    score: None,
                    pv: vec![root_moves[0]],
                    depth: 0,
                    seldepth,
                    nodes,
                    elapsed: start.elapsed(),
                }
            }
        };
        Outcome {
            best: line.pv.first().copied(),
            score: Some(to_score(line.score)),
            pv: line.pv,
            depth,
            seldepth,
            nodes,
            elapsed: start.elapsed(),
        }
    }
}

/// Nodes [`is_quiet`] lets the quiescence search visit. Ordinary
/// positions need a few dozen; a capture tree past this is no quiet
/// position.
const QUIET_NODES: u64 = 10_000;

thread_local! {
    /// The searcher [`is_quiet`] borrows: the quiescence search uses none
    /// of its tables, so the smallest will do, built once a thread.
    static QUIET: std::cell::RefCell<Searcher> = std::cell::RefCell::new(Searcher::new(0));
}

/// `true` when `pos` is quiet, as Texel tuning wants its positions: the
/// side to move is not in check and has a legal move; none of the
/// captures and queen promotions the search's own quiescence search
/// would try wins material by static exchange evaluation (its SEE); and
/// that quiescence search (the one under every leaf of
/// [`Searcher::search`]) stands pat: no capture sequence it tries lifts
/// the score above the static [`evaluate`].
///
/// The SEE condition catches what standing pat alone lets through: a
/// piece hanging on each side (after 1. e4 e5 2. Nf3 Nf6, Nxe5 wins a
/// pawn and Nxe4 wins it back, so the search stands pat). Even trades
/// (SEE 0) leave a position quiet when they do not pay. Checkmate,
/// stalemate and any position the quiescence search cannot settle within
/// 10,000 nodes are not quiet.
///
/// ```
/// use epd_core::Position;
/// use epd_engine::search::is_quiet;
///
/// assert!(is_quiet(&Position::startpos()));
/// // After 1. e4 e5 2. Nf3 d5, Nxe5 wins a pawn: not quiet.
/// let p: Position = "rnbqkbnr/ppp2ppp/8/3pp3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq d6 0 3".parse().unwrap();
/// assert!(!is_quiet(&p));
/// ```
#[must_use]
pub fn is_quiet(pos: &Position) -> bool {
    if pos.is_check() {
        return false;
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return false;
    }
    // A capture the quiescence search would try that wins material by
    // static exchange: not quiet, even where the search finds a counter
    // that makes taking not pay (a piece hangs on each side).
    let mut picker = Picker::quiescence(pos, moves);
    while let Some((m, _)) = picker.next() {
        if order::see(pos, m) > 0 {
            return false;
        }
    }
    QUIET.with(|s| {
        let mut s = s.borrow_mut();
        let stop = AtomicBool::new(false);
        let mut t = Search {
            s: &mut s,
            stop: &stop,
            keys: vec![pos.zobrist_hash()],
            nodes: 0,
            seldepth: 0,
            deadline: None,
            node_limit: Some(QUIET_NODES),
            stopped: false,
            first_iteration: false,
            pv: vec![Vec::new(); MAX_PLY + 1],
            iter_best: None,
        };
        let score = t.qsearch(pos, -INF, INF, 0);
        !t.stopped && score == evaluate(pos)
    })
}

/// The internal score as a [`Score`].
fn to_score(s: i32) -> Score {
    if s >= MATE_BOUND {
        let plies = (MATE - s) as u32;
        Score::MateIn(plies.div_ceil(2).max(1))
    } else if s <= -MATE_BOUND {
        let plies = (MATE + s) as u32;
        if plies == 0 {
            Score::Checkmated
        } else {
            Score::MatedIn((plies / 2).max(1))
        }
    } else {
        Score::Centipawns(s.clamp(-32_000, 32_000))
    }
}

/// A mate score relative to the node (for the table) ...
#[inline(always)]
fn to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s + ply as i32
    } else if s <= -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

/// ... and back relative to the root.
#[inline(always)]
fn from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// The state of one search.
struct Search<'a> {
    s: &'a mut Searcher,
    stop: &'a AtomicBool,
    /// Zobrist keys of the game and of the current search path; the last
    /// is the current node's.
    keys: Vec<u64>,
    nodes: u64,
    seldepth: u32,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    stopped: bool,
    /// During depth 1 the first [`FIRST_BATCH`] nodes ignore every limit.
    first_iteration: bool,
    /// Triangular principal variation table, by ply.
    pv: Vec<Vec<Move>>,
    /// The best root move of the current iteration with an exact score.
    iter_best: Option<Line>,
}

impl Search<'_> {
    /// `true` once the search must unwind: stop flag, deadline or node budget.
    #[inline(always)]
    fn poll(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.first_iteration && self.nodes < FIRST_BATCH {
            return false;
        }
        let out_of_nodes = self.node_limit.is_some_and(|n| self.nodes >= n);
        let polled = self.nodes & 1023 == 0
            && (self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d));
        self.stopped = out_of_nodes || polled;
        self.stopped
    }

    /// Draw by the fifty-move rule, dead position, or repetition of a
    /// position of the game or of the search path.
    fn is_draw(&self, pos: &Position) -> bool {
        if pos.halfmoves() >= 100 && !pos.is_checkmate() {
            return true;
        }
        if pos.is_insufficient_material() {
            return true;
        }
        let n = self.keys.len();
        let key = pos.zobrist_hash();
        let back = (pos.halfmoves() as usize).min(n - 1);
        let mut i = 4;
        while i <= back {
            if self.keys[n - 1 - i] == key {
                return true;
            }
            i += 2;
        }
        false
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    /// One iteration at the root; sets `iter_best` whenever a move gets
    /// an exact score above the previous best.
    fn root(&mut self, pos: &Position, root_moves: &mut [Move], depth: i32, mut alpha: i32, beta: i32) -> i32 {
        let mut best = -INF;
        self.pv[0].clear();
        for i in 0..root_moves.len() {
            let m = root_moves[i];
            let child = pos.played(m);
            self.keys.push(child.zobrist_hash());
            let score = if i == 0 {
                -self.negamax(&child, depth - 1, -beta, -alpha, 1, true)
            } else {
                let mut s = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, 1, true);
                if s > alpha && s < beta && !self.stopped {
                    s = -self.negamax(&child, depth - 1, -beta, -alpha, 1, true);
                }
                s
            };
            self.keys.pop();
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(0, m);
                    root_moves[..=i].rotate_right(1);
                    if score < beta {
                        self.iter_best = Some(Line { score, pv: self.pv[0].clone() });
                    } else {
                        break;
                    }
                }
            }
        }
        best
    }

    fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        null_ok: bool,
    ) -> i32 {
        self.pv[ply].clear();
        let in_check = pos.is_check();
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply);
        }
        if self.poll() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        if ply >= MAX_PLY - 1 {
            return evaluate_with(pos, &self.s.params);
        }
        if self.is_draw(pos) {
            return 0;
        }
        let pv_node = beta - alpha > 1;
        // Mate distance pruning: no line here beats a mate already found.
        if !pv_node {
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }

        let key = pos.zobrist_hash();
        let entry = self.s.tt.probe(key);
        let tt_move = entry.and_then(|e| e.mv);
        if let Some(e) = entry {
            if !pv_node && i32::from(e.depth) >= depth {
                let s = from_tt(i32::from(e.score), ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if usable {
                    return s;
                }
            }
        }

        // The static evaluation serves only the pruning of non-PV nodes.
        let static_eval = if in_check || pv_node { -INF } else { evaluate_with(pos, &self.s.params) };
        if !pv_node && !in_check && beta.abs() < MATE_BOUND {
            // Reverse futility: far above beta at low depth.
            if depth <= 6 && static_eval - 80 * depth >= beta {
                return static_eval;
            }
            // Null move: even passing keeps us above beta.
            if null_ok && depth >= 3 && static_eval >= beta && eval::non_pawn_material(pos, pos.turn()) > 0 {
                let r = 3 + depth / 5 + ((static_eval - beta) / 200).min(2);
                let child = pos.null_move_unchecked();
                self.keys.push(child.zobrist_hash());
                let s = -self.negamax(&child, depth - 1 - r, -beta, -beta + 1, ply + 1, false);
                self.keys.pop();
                if self.stopped {
                    return 0;
                }
                if s >= beta {
                    return if s >= MATE_BOUND { beta } else { s };
                }
            }
        }

        // The table's move is tried before the others are generated: when
        // it refutes, move generation and ordering are never needed.
        let tt_move = tt_move.filter(|&m| pos.is_legal(m));
        let mut picker = None;
        if tt_move.is_none() {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                return if in_check { -MATE + ply as i32 } else { 0 };
            }
            picker = Some(Picker::new(pos, moves, None, self.s.killers[ply], &self.s.history));
        }
        let alpha_orig = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let mut quiets = [None; 64];
        let mut quiet_count = 0;
        let mut count = 0;
        loop {
            let (m, order_score) = match (count, tt_move, &mut picker) {
                (0, Some(m), _) => (m, order::TT_MOVE),
                (_, _, Some(p)) => match p.next() {
                    Some(next) => next,
                    None => break,
                },
                (_, _, None) => {
                    let moves = pos.legal_moves();
                    let p = picker.insert(Picker::new(pos, moves, tt_move, self.s.killers[ply], &self.s.history));
                    p.next(); // the table's move, already searched
                    match p.next() {
                        Some(next) => next,
                        None => break,
                    }
                }
            };
            let quiet = order::captured(pos, m).is_none() && !m.is_promotion();
            let child = pos.played(m);
            let gives_check = child.is_check();
            count += 1;
            if !pv_node && !in_check && quiet && !gives_check && best > -MATE_BOUND {
                // Late move pruning and futility pruning of quiet moves.
                if depth <= 4 && count > 3 + 2 * depth * depth {
                    continue;
                }
                if depth <= 3 && static_eval + self.s.params.futility_margin * depth <= alpha {
                    continue;
                }
            }
            self.keys.push(child.zobrist_hash());
            let new_depth = depth - 1;
            let score = if count == 1 {
                -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true)
            } else {
                let mut r = 0;
                if depth >= 3 && count > 2 && quiet && !in_check && !gives_check {
                    r = i32::from(self.s.reductions[depth.min(63) as usize][count.min(63) as usize]);
                    if pv_node {
                        r -= 1;
                    }
                    if order_score >= order::KILLER_MIN {
                        r -= 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut s = -self.negamax(&child, new_depth - r, -alpha - 1, -alpha, ply + 1, true);
                if s > alpha && r > 0 {
                    s = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, true);
                }
                if s > alpha && s < beta {
                    s = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true);
                }
                s
            };
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if score >= beta {
                        if quiet {
                            self.reward_quiet(pos, m, &quiets[..quiet_count], depth, ply);
                        }
                        break;
                    }
                }
            }
            if quiet && quiet_count < quiets.len() {
                quiets[quiet_count] = Some(m);
                quiet_count += 1;
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.s.tt.store(key, best_move, to_tt(best, ply), depth, bound);
        best
    }

    /// A quiet move caused a cutoff: make it a killer and raise its
    /// history; lower the history of the quiet moves tried before it.
    fn reward_quiet(&mut self, pos: &Position, m: Move, tried: &[Option<Move>], depth: i32, ply: usize) {
        let k = &mut self.s.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        let us = pos.turn().index() * 6;
        let bonus = (depth * depth).min(400);
        let h = &mut self.s.history[us + m.role().index()][m.to().index()];
        *h += bonus - *h * bonus / 16_384;
        for q in tried.iter().flatten() {
            let h = &mut self.s.history[us + q.role().index()][q.to().index()];
            *h += -bonus - *h * bonus / 16_384;
        }
    }

    /// Quiescence: stand pat, then winning captures and queen promotions
    /// (every evasion when in check) until the position is quiet.
    fn qsearch(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        if self.poll() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        if ply >= MAX_PLY - 1 {
            return evaluate_with(pos, &self.s.params);
        }
        let in_check = pos.is_check();
        let mut best;
        let mut picker;
        if in_check {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                return -MATE + ply as i32;
            }
            best = -INF;
            picker = Picker::evasions(pos, moves);
        } else {
            let stand = evaluate_with(pos, &self.s.params);
            if stand >= beta {
                return stand;
            }
            let moves = pos.legal_moves();
            if moves.is_empty() {
                return 0;
            }
            best = stand;
            alpha = alpha.max(stand);
            picker = Picker::quiescence(pos, moves);
        }
        let mut searched = 0;
        while let Some((m, _)) = picker.next() {
            if !in_check && searched >= QS_CAPTURES {
                break;
            }
            // Delta pruning: even winning the piece leaves us far below alpha.
            if !in_check && m.promotion_role().is_none() {
                let gain = order::captured(pos, m).map_or(0, |r| order::SEE_VALUE[r.index()]);
                if best + gain + DELTA_MARGIN <= alpha {
                    continue;
                }
            }
            let child = pos.played(m);
            searched += 1;
            let s = -self.qsearch(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if s >= beta {
                        break;
                    }
                    self.update_pv(ply, m);
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    fn run(p: &Position, history: &[u64], limits: &SearchLimits) -> (Outcome, Vec<SearchInfo>) {
        let mut infos = Vec::new();
        let out = Searcher::new(8).search(p, history, limits, &AtomicBool::new(false), &mut |i| infos.push(i.clone()));
        (out, infos)
    }

    fn depth(d: u32) -> SearchLimits {
        SearchLimits { depth: Some(d), ..SearchLimits::default() }
    }

    /// Plays `pv` from `p`, failing on an illegal move.
    fn assert_legal_line(p: &Position, pv: &[Move]) {
        let mut q = *p;
        for &m in pv {
            assert!(q.is_legal(m), "{}: {m:?} is illegal in the pv {pv:?}", q.fen());
            q.play_unchecked(m);
        }
    }

    #[test]
    fn mates_and_mated_scores_in_fullmoves() {
        // (fen, depth, expected best move or "" for any, expected score);
        // checked with Stockfish 16 (`go depth 14`).
        for (fen, d, best, score) in [
            ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 3, "a1a8", Score::MateIn(1)),
            ("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 5, "d5f6", Score::MateIn(2)),
            ("r2qkb1r/pp2nppp/3p1N2/2p1N1B1/2BnP3/3P4/PPP2PPP/R2bK2R b KQkq - 2 1", 4, "g7f6", Score::MatedIn(1)),
            ("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1", 5, "", Score::Checkmated),
            ("8/8/8/8/8/2k5/1r6/K7 w - - 0 1", 5, "", Score::Centipawns(0)),
        ] {
            let p = pos(fen);
            let (out, _) = run(&p, &[], &depth(d));
            assert_eq!(out.score, Some(score), "{fen}");
            match out.best {
                Some(m) => {
                    assert_eq!(p.uci(m), best, "{fen}");
                    assert_eq!(out.pv.first(), Some(&m));
                    assert_legal_line(&p, &out.pv);
                }
                None => assert_eq!(best, "", "{fen}: no move"),
            }
        }
    }

    #[test]
    fn the_mate_limit_stops_at_a_proven_mate() {
        let p = pos("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1");
        let (out, _) = run(&p, &[], &SearchLimits { mate: Some(2), ..SearchLimits::default() });
        assert_eq!(out.score, Some(Score::MateIn(2)));
        assert!(out.depth <= 6, "{}", out.depth);
        // Mated-in-1 proves the mate for the side to move of pv[0]'s reply.
        assert_eq!(out.pv.len(), 3, "{:?}", out.pv);
        assert_legal_line(&p, &out.pv);
    }

    #[test]
    fn the_depth_limit_gives_one_report_per_iteration() {
        let p = Position::startpos();
        let (out, infos) = run(&p, &[], &depth(5));
        assert_eq!(out.depth, 5);
        assert_eq!(infos.iter().map(|i| i.depth).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
        assert!(infos.windows(2).all(|w| w[0].nodes <= w[1].nodes));
        let last = &infos[4];
        assert_eq!((last.score, &last.pv), (out.score.unwrap_or(Score::IllegalPosition), &out.pv));
        assert!(matches!(out.score, Some(Score::Centipawns(c)) if c.abs() < 100), "{:?}", out.score);
        assert_legal_line(&p, &out.pv);
    }

    #[test]
    fn the_node_limit_is_honoured_exactly() {
        for budget in [5_000u64, 40_000] {
            let (out, _) =
                run(&Position::startpos(), &[], &SearchLimits { nodes: Some(budget), ..SearchLimits::default() });
            assert_eq!(out.nodes, budget);
            assert!(out.best.is_some());
        }
    }

    #[test]
    fn the_movetime_limit_is_honoured() {
        let p = pos("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8");
        let t = Duration::from_millis(300);
        let (out, _) = run(&p, &[], &SearchLimits { movetime: Some(t), ..SearchLimits::default() });
        assert!(out.elapsed >= t, "{:?}", out.elapsed);
        assert!(out.elapsed < t + Duration::from_millis(700), "{:?}", out.elapsed);
        assert!(out.best.is_some() && out.depth >= 2);
    }

    #[test]
    fn the_stop_flag_ends_an_unlimited_search() {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            flag.store(true, Ordering::Relaxed);
        });
        let p = Position::startpos();
        let started = Instant::now();
        let mut last = None;
        let out = Searcher::new(8).search(&p, &[], &SearchLimits::default(), &stop, &mut |i| last = Some(i.clone()));
        let took = started.elapsed();
        setter.join().unwrap_or_else(|_| panic!("setter thread"));
        assert!(took >= Duration::from_millis(200) && took < Duration::from_millis(1200), "{took:?}");
        assert!(out.best.is_some());
        assert_legal_line(&p, &out.pv);
        // The last report is the answer.
        let last = last.unwrap_or_else(|| panic!("no report"));
        assert_eq!((Some(last.score), &last.pv, last.depth), (out.score, &out.pv, out.depth));
    }

    #[test]
    fn a_stop_before_the_start_still_completes_depth_one() {
        let p = Position::startpos();
        let out = Searcher::new(1).search(&p, &[], &SearchLimits::default(), &AtomicBool::new(true), &mut |_| {});
        assert_eq!(out.depth, 1);
        assert!(out.best.is_some() && out.score.is_some());
    }

    /// Keys that put `target` four plies before the root's children, as
    /// if the game had passed through it: [target, x, y] then the root.
    fn history_through(target: &Position) -> Vec<u64> {
        vec![target.zobrist_hash(), 0x1234, 0x5678]
    }

    #[test]
    fn a_losing_side_claims_a_repetition() {
        // Rook against queen: lost, except that Rb1-b2 repeats a position
        // of the game, which draws.
        let p = pos("6k1/8/3q4/8/8/8/8/1R4K1 w - - 10 40");
        let (before, _) = run(&p, &[], &depth(6));
        assert!(matches!(before.score, Some(Score::Centipawns(c)) if c < -300), "{:?}", before.score);
        let rb2 = p.parse_uci(b"b1b2").unwrap_or_else(|e| panic!("{e}"));
        let (after, _) = run(&p, &history_through(&p.played(rb2)), &depth(6));
        assert_eq!(after.score, Some(Score::Centipawns(0)));
        assert_eq!(after.best, Some(rb2));
    }

    #[test]
    fn a_winning_side_avoids_a_repetition() {
        let p = pos("6k1/1r6/3Q4/8/8/8/8/6K1 w - - 10 40");
        let (first, _) = run(&p, &[], &depth(6));
        let m = first.best.unwrap_or_else(|| panic!("no move"));
        assert!(!p.is_capture(m) && m.role() != epd_core::Role::Pawn, "{m:?} cannot repeat");
        assert!(matches!(first.score, Some(Score::Centipawns(c)) if c > 300), "{:?}", first.score);
        // Had the game already passed through the position after `m`,
        // the engine plays something else that keeps the win.
        let (second, _) = run(&p, &history_through(&p.played(m)), &depth(6));
        assert_ne!(second.best, Some(m));
        assert!(
            matches!(second.score, Some(Score::Centipawns(c)) if c > 300)
                || matches!(second.score, Some(Score::MateIn(_))),
            "{:?}",
            second.score
        );
    }

    #[test]
    fn fifty_move_rule_and_dead_positions_score_zero() {
        // A queen up, but the next move that is not a capture or a pawn
        // move completes fifty moves; the only capture left is ...
        for (fen, d) in [
            // King and bishop against king: dead.
            ("8/8/4k3/8/8/3KB3/8/8 w - - 0 1", 4),
            // A queen up at halfmove 99: every move (none captures or
            // pushes a pawn) reaches the fifty-move draw.
            ("7k/8/8/8/8/8/8/1Q4K1 w - - 99 80", 4),
        ] {
            let (out, _) = run(&pos(fen), &[], &depth(d));
            assert_eq!(out.score, Some(Score::Centipawns(0)), "{fen}");
        }
    }

    #[test]
    fn score_conversion_counts_fullmoves() {
        for (internal, score) in [
            (MATE - 1, Score::MateIn(1)),
            (MATE - 3, Score::MateIn(2)),
            (MATE - 5, Score::MateIn(3)),
            (-MATE, Score::Checkmated),
            (-MATE + 2, Score::MatedIn(1)),
            (-MATE + 4, Score::MatedIn(2)),
            (37, Score::Centipawns(37)),
        ] {
            assert_eq!(to_score(internal), score, "{internal}");
        }
        for s in [MATE - 7, -MATE + 6, 123] {
            assert_eq!(from_tt(to_tt(s, 9), 9), s);
        }
    }

    #[test]
    fn quiet_positions_are_those_where_quiescence_stands_pat() {
        for (fen, quiet, why) in [
            ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", true, "the start"),
            ("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", true, "e5 is defended"),
            ("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2", true, "exd5 Qxd5 is an even trade"),
            ("rnbqkbnr/ppp2ppp/8/3pp3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq d6 0 3", false, "Nxe5 wins a pawn"),
            ("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", false, "Rxd5 takes an undefended queen"),
            ("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", true, "Qxd5 loses the queen for a pawn"),
            ("4k3/8/8/3n4/4P3/8/8/4K3 b - - 0 1", true, "Black to move: the knight is not taken yet"),
            ("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", false, "exd5 wins a knight"),
            (
                "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                false,
                "Nxe5 Nxe4: a pawn hangs each side",
            ),
            ("8/4P3/8/8/8/8/k7/4K3 w - - 0 1", false, "e8=Q"),
            ("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", false, "in check"),
            ("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", false, "checkmated"),
            ("7k/5Q2/8/8/8/8/8/6K1 b - - 0 1", false, "stalemate"),
        ] {
            assert_eq!(is_quiet(&pos(fen)), quiet, "{why}: {fen}");
        }
    }

    #[test]
    fn is_quiet_agrees_with_the_quiescence_score() {
        // The quiet positions of random games are exactly those with a
        // move, not in check, where no capture the quiescence search
        // would try wins material by SEE and its score is the static
        // evaluation; checked against a fresh searcher each time, so the
        // thread's shared one keeps no state between calls.
        let (mut quiet, mut standing) = (0, 0);
        let positions = epd_testkit::random_positions(7, 40, 60);
        for p in &positions {
            let mut s = Searcher::new(0);
            let stop = AtomicBool::new(false);
            let mut t = Search {
                s: &mut s,
                stop: &stop,
                keys: vec![p.zobrist_hash()],
                nodes: 0,
                seldepth: 0,
                deadline: None,
                node_limit: None,
                stopped: false,
                first_iteration: false,
                pv: vec![Vec::new(); MAX_PLY + 1],
                iter_best: None,
            };
            let moves = p.legal_moves();
            let playable = !p.is_check() && !moves.is_empty();
            let stands_pat = playable && t.qsearch(p, -INF, INF, 0) == evaluate(p);
            let mut picker = Picker::quiescence(p, moves);
            let mut wins = false;
            while let Some((m, _)) = picker.next() {
                wins |= order::see(p, m) > 0;
            }
            assert_eq!(is_quiet(p), stands_pat && !wins, "{}", p.fen());
            quiet += usize::from(stands_pat && !wins);
            standing += usize::from(stands_pat);
        }
        // Random play leaves pieces hanging: some positions stand pat
        // only because a piece hangs on each side.
        assert!(0 < quiet && quiet < standing && standing < positions.len(), "{quiet} {standing} {}", positions.len());
    }

    #[test]
    fn searcher_is_send() {
        fn is_send<T: Send>() {}
        is_send::<Searcher>();
    }
}
