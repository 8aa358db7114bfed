//! Exact forced-mate proving and the pfms verb (EPD §7.3, "process file:
//! mate search").
//!
//! [`MateSolver`] answers "can the side to move force checkmate within `n`
//! of its own moves, against every defence?" by an AND/OR search of depth
//! `2n - 1` plies. It is exact: it never claims a mate that does not exist
//! and never misses one of length `≤ n`. The pruning keeps exactness:
//!
//! - at the attacker's last move only checking moves are tried (only a
//!   check can mate); checks are found from per-node check squares and
//!   discovered-check blockers, not by playing the moves;
//! - attacker moves are ordered checks, then captures and promotions, then
//!   the rest; the first move whose every defence loses proves the node;
//! - the first defence that escapes disproves a defender node; defences
//!   that refuted a sibling at the same ply (two killers) are tried first,
//!   then captures;
//! - a transposition table (2^20 two-entry buckets by default, the deeper
//!   result kept in one slot, the newest in the other) keyed by the full
//!   64-bit Zobrist hash stores, per position, the shortest length proven
//!   to mate and the longest proven not to, so one result answers every
//!   length it implies. Mate-in-1 answers are recomputed, not stored.
//!
//! Every mate reported comes with a line that is replayed and checked to
//! end in checkmate, so even a hash collision cannot produce a false line.
//! Stalemate is not mate.
//!
//! The 50-move rule is ignored: positions are searched as if the clock
//! were at zero (a mate found may, in a position whose clock is near 100
//! plies, be cut short by a draw claim). Repetitions cannot create a mate,
//! so they need no care.
//!
//! [`MateProver`] is the pfms verb. Records are read leniently; an explicit `dm`
//! is a recorded result (records with `dm ≤ N` are skipped, §7.3), but a
//! `dm` the lenient reader made from mate notation (`bm #N`, diagnostic
//! E028) is a claim: such records are searched, and a proven mate replaces
//! it. Without `single_pass`, passes 1..N are run (as §7.3 suggests), so
//! dm is the shortest mate; a record then gets dm, pm, pv, acn (nodes) and
//! acs (whole seconds).
//!
//! ```
//! use epd_core::Position;
//! use epd_engine::mate::MateSolver;
//!
//! let pos: Position = "6k1/5ppp/8/8/8/8/8/R5K1 w - -".parse().unwrap();
//! let mut solver = MateSolver::new();
//! let mate = solver.find_mate(&pos, 3).unwrap();
//! assert_eq!(mate.moves, 1);
//! assert_eq!(pos.san(mate.pv[0]), "Ra8#");
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use epd_core::pipeline::{Interrupted, Job, Processor, Summary};
use epd_core::{
    attacks, Bitboard, Move, MoveKind, MoveList, Opcode, OperandInput, ParseMode, Position, Record, Square,
};
use epd_core::{Code, Diagnostic};

/// The longest mate length (fullmoves) the solver accepts.
pub const MAX_MATE_MOVES: u32 = 60;

const TABLE_SKIPS_MATE_IN_1: bool = true;

const MAX_PLY: usize = 2 * MAX_MATE_MOVES as usize;

/// A forced mate: its length and one mating line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mate {
    /// The mate length in fullmoves (the attacker's moves).
    pub moves: u32,
    /// A mating line, `2 * moves - 1` plies: the attacker's moves and the
    /// defence that resists longest, ending in checkmate.
    pub pv: Vec<Move>,
}

#[derive(Copy, Clone, Default)]
struct Entry {
    key: u64,
    /// Shortest length proven to mate (0: none known).
    win: u8,
    /// Longest length proven not to mate (0: none known).
    no_win: u8,
}

impl Entry {
    fn depth(self) -> u8 {
        self.win.max(self.no_win)
    }

    /// The entry as the table keeps it: the key, then the two lengths.
    fn to_words(self) -> Slot {
        [self.key, u64::from(self.win) | u64::from(self.no_win) << 8]
    }

    fn from_words(w: Slot) -> Entry {
        Entry { key: w[0], win: w[1] as u8, no_win: (w[1] >> 8) as u8 }
    }
}

/// An entry in the table: plain words, all zero when empty.
type Slot = [u64; 2];

/// A bucket of two entries.
type Bucket = [Slot; 2];

/// The table starts with 2^10 buckets (16 KiB) and grows fourfold, up to
/// the size asked for, whenever half its entries are in use: its memory
/// follows the work done (a prover per worker makes `--jobs 16` over a
/// few records cost what the records do, not sixteen full tables).
const FIRST_BITS: u32 = 10;

/// `n` empty buckets.
fn empty_table(n: usize) -> Vec<Bucket> {
    vec![[[0u64; 2]; 2]; n]
}

/// The exact mate prover. Holds a transposition table (reused across
/// positions: its facts depend on the position only) and counters.
pub struct MateSolver {
    table: Vec<Bucket>,
    mask: usize,
    /// The most buckets the table may grow to (a power of two).
    max_buckets: usize,
    /// Entries in use.
    filled: usize,
    nodes: u64,
    killers: [[Option<Move>; 2]; MAX_PLY + 2],
    /// Raised from outside (a signal, a `stop`) to abandon the search.
    stop: Option<Arc<AtomicBool>>,
    /// The search is abandoned at this instant.
    deadline: Option<Instant>,
    /// Set once the stop flag or the deadline was seen: every answer
    /// since is unknown, and nothing more is stored in the table.
    aborted: bool,
}

/// Nodes between two looks at the stop flag and the clock.
const POLL_EVERY: u64 = 1024;

impl core::fmt::Debug for MateSolver {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MateSolver").field("buckets", &self.table.len()).field("nodes", &self.nodes).finish()
    }
}

impl Default for MateSolver {
    fn default() -> MateSolver {
        MateSolver::new()
    }
}

impl MateSolver {
    /// A solver with a 2^20-bucket table (32 MiB).
    #[must_use]
    pub fn new() -> MateSolver {
        MateSolver::with_table_bits(20)
    }

    /// A solver whose table grows to at most `2^bits` buckets of two
    /// entries (16 bytes each); `bits` is clamped to `4..=28`.
    #[must_use]
    pub fn with_table_bits(bits: u32) -> MateSolver {
        let bits = bits.clamp(4, 28);
        let n = 1usize << bits.min(FIRST_BITS);
        MateSolver {
            table: empty_table(n),
            mask: n - 1,
            max_buckets: 1 << bits,
            filled: 0,
            nodes: 0,
            killers: [[None; 2]; MAX_PLY + 2],
            stop: None,
            deadline: None,
            aborted: false,
        }
    }

    /// Makes every later search give up (answer "no mate found") within
    /// 1024 nodes of `stop` being raised.
    pub fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    /// Gives every later search until `deadline`; `None` removes the limit.
    /// A search that meets it gives up within 1024 nodes, and
    /// [`MateSolver::aborted`] then says so.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// `true` if the last search was abandoned (stop flag or deadline): its
    /// "no mate" means "not known". Facts proven before that stay in the
    /// table; none depends on the abandoned part.
    #[must_use]
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// Counts a node; `true` once the search must give up.
    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if !self.aborted && self.nodes.is_multiple_of(POLL_EVERY) {
            let stopped = self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed));
            self.aborted = stopped || self.deadline.is_some_and(|d| Instant::now() >= d);
        }
        self.aborted
    }

    /// Positions visited since the solver was made or the counter reset.
    #[must_use]
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Resets the node counter.
    pub fn reset_nodes(&mut self) {
        self.nodes = 0;
    }

    /// Forgets everything the table holds, which starts small again.
    pub fn clear(&mut self) {
        let n = self.max_buckets.min(1 << FIRST_BITS);
        self.table = empty_table(n);
        self.mask = n - 1;
        self.filled = 0;
        self.killers = [[None; 2]; MAX_PLY + 2];
    }

    /// `true` if the side to move can force checkmate within `n` moves
    /// (`n` is clamped to `MAX_MATE_MOVES`; `n == 0` is always `false`).
    ///
    /// `false` also when the search was abandoned ([`MateSolver::aborted`]);
    /// `true` is always proven.
    pub fn mates_within(&mut self, pos: &Position, n: u32) -> bool {
        self.aborted = false;
        let n = n.min(MAX_MATE_MOVES);
        n > 0 && self.attack(pos, n, 0)
    }

    /// The shortest forced mate of at most `max_moves` moves, by iterative
    /// deepening (mate in 1, then 2, …), with a mating line.
    /// `None` also when the search was abandoned ([`MateSolver::aborted`]).
    pub fn find_mate(&mut self, pos: &Position, max_moves: u32) -> Option<Mate> {
        for n in 1..=max_moves.min(MAX_MATE_MOVES) {
            let found = self.find_mate_exactly(pos, n);
            if found.is_some() || self.aborted {
                return found;
            }
        }
        None
    }

    /// A forced mate in exactly `n` moves: `Some` only if the side to move
    /// mates within `n` but not within `n - 1`.
    /// `None` also when the search was abandoned ([`MateSolver::aborted`]).
    pub fn find_mate_exactly(&mut self, pos: &Position, n: u32) -> Option<Mate> {
        self.aborted = false;
        if n == 0 || n > MAX_MATE_MOVES || !self.attack(pos, n, 0) || (n > 1 && self.attack(pos, n - 1, 0)) {
            return None;
        }
        // An abandoned search answers false everywhere: a "mate within
        // n" it returned is proven, a "not within n - 1" is not.
        if self.aborted {
            return None;
        }
        let pv = self.principal_variation(pos, n)?;
        (!self.aborted).then_some(Mate { moves: n, pv })
    }

    /// A mating line for a position proven to mate in exactly `n`: the
    /// attacker's first proven move, the defence that holds out longest.
    /// Checked by playing it; `None` (never expected) if it does not mate.
    fn principal_variation(&mut self, root: &Position, n: u32) -> Option<Vec<Move>> {
        let mut pv = Vec::with_capacity(2 * n as usize);
        let mut pos = *root;
        let mut n = n;
        loop {
            // Attacker: the first move proven to mate within n.
            let mut found = None;
            for &m in pos.legal_moves().iter() {
                if n == 1 && !pos.gives_check(m) {
                    continue;
                }
                let child = pos.played(m);
                if child.is_checkmate() || (n > 1 && self.defend(&child, n - 1, 1)) {
                    found = Some((m, child));
                    break;
                }
            }
            let (m, child) = found?;
            pv.push(m);
            pos = child;
            if pos.is_checkmate() {
                break;
            }
            // Defender: the defence after which the mate is longest.
            let mut best: Option<(u32, Move, Position)> = None;
            for &d in pos.legal_moves().iter() {
                let next = pos.played(d);
                let k = (1..n).find(|&k| self.attack(&next, k, 2))?;
                if best.as_ref().is_none_or(|b| k > b.0) {
                    best = Some((k, d, next));
                }
            }
            let (k, d, next) = best?;
            pv.push(d);
            pos = next;
            n = k;
        }
        // Verify: legal line ending in mate (guards against a hash clash).
        let mut check = *root;
        for &m in &pv {
            if !check.is_legal(m) {
                return None;
            }
            check.play_unchecked(m);
        }
        check.is_checkmate().then_some(pv)
    }

    fn probe(&self, key: u64) -> Option<Entry> {
        let b = &self.table[(key as usize) & self.mask];
        b.iter().map(|&w| Entry::from_words(w)).find(|e| e.key == key && e.depth() > 0)
    }

    /// Grows the table fourfold (up to its most), each entry kept.
    fn grow(&mut self) {
        let n = (self.table.len() * 4).min(self.max_buckets);
        let old = std::mem::replace(&mut self.table, empty_table(n));
        self.mask = n - 1;
        for w in old.into_iter().flatten().filter(|w| *w != [0; 2]) {
            let bucket = &mut self.table[(w[0] as usize) & self.mask];
            // The deeper of two entries keeps slot 0, as in store().
            if bucket[0] == [0; 2] {
                bucket[0] = w;
            } else if bucket[1] == [0; 2] {
                let deeper = Entry::from_words(w).depth() > Entry::from_words(bucket[0]).depth();
                bucket[1] = w;
                if deeper {
                    bucket.swap(0, 1);
                }
            } else {
                self.filled -= 1; // three met in one bucket: one goes
            }
        }
    }

    fn store(&mut self, key: u64, n: u32, win: bool) {
        if self.filled >= self.table.len() && self.table.len() < self.max_buckets {
            self.grow();
        }
        let n = n as u8;
        let words = &mut self.table[(key as usize) & self.mask];
        let before = words.iter().filter(|w| **w != [0; 2]).count();
        let mut bucket = [Entry::from_words(words[0]), Entry::from_words(words[1])];
        let slot = if let Some(i) = bucket.iter().position(|e| e.key == key && e.depth() > 0) {
            i
        } else if n >= bucket[0].depth() {
            // Slot 0 keeps the deepest result; what it loses moves to slot 1.
            bucket[1] = bucket[0];
            bucket[0] = Entry { key, win: 0, no_win: 0 };
            0
        } else {
            bucket[1] = Entry { key, win: 0, no_win: 0 };
            1
        };
        let e = &mut bucket[slot];
        if win {
            if e.win == 0 || n < e.win {
                e.win = n;
            }
        } else if n > e.no_win {
            e.no_win = n;
        }
        *words = [bucket[0].to_words(), bucket[1].to_words()];
        self.filled = self.filled + words.iter().filter(|w| **w != [0; 2]).count() - before;
    }

    /// Attacker node: can the side to move mate within `n` (≥ 1) moves?
    fn attack(&mut self, pos: &Position, n: u32, ply: usize) -> bool {
        let key = pos.zobrist_hash();
        // Mate-in-1 answers are cheaper to recompute than to keep: the
        // table holds longer results only.
        let use_table = n > 1 || !TABLE_SKIPS_MATE_IN_1;
        if let Some(e) = if use_table { self.probe(key) } else { None } {
            if e.win != 0 && u32::from(e.win) <= n {
                return true;
            }
            if u32::from(e.no_win) >= n {
                return false;
            }
        }
        let mut moves = pos.legal_moves();
        // Order: checks, then captures and promotions, then the rest. At
        // the last move only checks can mate: the rest are dropped.
        let info = CheckInfo::new(pos);
        let mut checks = 0;
        for i in 0..moves.len() {
            if info.gives_check(pos, moves[i]) {
                moves.swap(i, checks);
                checks += 1;
            }
        }
        let end = if n == 1 {
            checks
        } else {
            let mut c = checks;
            for i in checks..moves.len() {
                let m = moves[i];
                if m.is_promotion() || pos.is_capture(m) {
                    moves.swap(i, c);
                    c += 1;
                }
            }
            moves.len()
        };
        let mut result = false;
        for &m in &moves[..end] {
            if self.tick() {
                return false;
            }
            let child = pos.played(m);
            let wins = if n == 1 {
                // Checkmate (only checks are tried here; stalemate is not mate).
                !child.has_legal_moves()
            } else {
                self.defend(&child, n - 1, ply + 1)
            };
            if wins {
                result = true;
                break;
            }
        }
        if use_table && !self.aborted {
            self.store(key, n, result);
        }
        result
    }

    /// Defender node: is the side to move checkmated, or does every
    /// defence lose to a mate within `n` (≥ 1) attacker moves? (Stalemate:
    /// `false`.)
    fn defend(&mut self, pos: &Position, n: u32, ply: usize) -> bool {
        let mut moves: MoveList = pos.legal_moves();
        if moves.is_empty() {
            return pos.is_check();
        }
        // Killers first, then captures.
        let mut front = 0;
        for k in self.killers[ply.min(MAX_PLY)].into_iter().flatten() {
            if let Some(i) = moves[front..].iter().position(|&m| m == k) {
                moves.swap(front, front + i);
                front += 1;
            }
        }
        let killers_end = front;
        for i in killers_end..moves.len() {
            if pos.is_capture(moves[i]) {
                moves.swap(i, front);
                front += 1;
            }
        }
        for &d in moves.iter() {
            if self.tick() {
                return false;
            }
            let child = pos.played(d);
            if !self.attack(&child, n, ply + 1) {
                if self.aborted {
                    return false;
                }
                let slot = &mut self.killers[ply.min(MAX_PLY)];
                if slot[0] != Some(d) {
                    slot[1] = slot[0];
                    slot[0] = Some(d);
                }
                return false;
            }
        }
        true
    }
}

/// What a move needs to give check, computed once per node: for each
/// role the squares it would check from, and our pieces whose leaving
/// uncovers a check. Castling, en passant and promotions are left to
/// [`Position::gives_check`].
struct CheckInfo {
    king: Option<Square>,
    squares: [Bitboard; 6],
    blockers: Bitboard,
}

impl CheckInfo {
    fn new(pos: &Position) -> CheckInfo {
        let board = pos.board();
        let us = pos.turn();
        let Some(king) = board.king_of(us.other()) else {
            return CheckInfo { king: None, squares: [Bitboard::default(); 6], blockers: Bitboard::default() };
        };
        let occ = board.occupied();
        let ours = board.by_color(us);
        let bishop = attacks::bishop_attacks(king, occ);
        let rook = attacks::rook_attacks(king, occ);
        let squares = [
            attacks::pawn_attacks(us.other(), king),
            attacks::knight_attacks(king),
            bishop,
            rook,
            bishop | rook,
            Bitboard::default(),
        ];
        let snipers = ((attacks::rook_rays(king) & board.rooks_and_queens())
            | (attacks::bishop_rays(king) & board.bishops_and_queens()))
            & ours;
        let mut blockers = Bitboard::default();
        for s in snipers {
            let b = attacks::between(king, s) & occ;
            if !b.more_than_one() && (b & ours).any() {
                blockers |= b;
            }
        }
        CheckInfo { king: Some(king), squares, blockers }
    }

    /// `true` if the legal move `m` gives check (same answer as
    /// [`Position::gives_check`]).
    #[inline]
    fn gives_check(&self, pos: &Position, m: Move) -> bool {
        let Some(king) = self.king else { return false };
        if !matches!(m.kind(), MoveKind::Normal) {
            return pos.gives_check(m);
        }
        self.squares[m.role().index()].contains(m.to())
            || (self.blockers.contains(m.from()) && !attacks::line(king, m.from()).contains(m.to()))
    }
}

/// Options of a [`MateProver`].
#[derive(Clone, Debug)]
pub struct MateOptions {
    /// The mate length N in fullmoves (1..=`MAX_MATE_MOVES`).
    pub moves: u32,
    /// The spec's literal single pass: search only for mates within N and
    /// write `dm N`. Otherwise passes 1, 2, …, N, so dm is the shortest.
    pub single_pass: bool,
    /// Transposition table size, `2^bits` buckets.
    pub table_bits: u32,
    /// Time for each record (all its passes): a record not proven by then
    /// is written unchanged and counted in [`MateCounts::timed_out`].
    pub timeout: Option<Duration>,
}

impl Default for MateOptions {
    fn default() -> MateOptions {
        MateOptions { moves: 1, single_pass: false, table_bits: 20, timeout: None }
    }
}

/// What pfms counts beyond the pipeline's line accounting.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MateCounts {
    /// Records searched.
    pub searched: u64,
    /// Records skipped because they already held a dm of at most N.
    pub skipped: u64,
    /// `solved[k]`: records given dm k+1.
    pub solved: Vec<u64>,
    /// Nodes searched, all records.
    pub nodes: u64,
    /// Records whose search the timeout ended before an answer.
    pub timed_out: u64,
}

impl core::ops::AddAssign for MateCounts {
    fn add_assign(&mut self, o: MateCounts) {
        self.searched += o.searched;
        self.skipped += o.skipped;
        self.nodes += o.nodes;
        self.timed_out += o.timed_out;
        if self.solved.len() < o.solved.len() {
            self.solved.resize(o.solved.len(), 0);
        }
        for (t, k) in self.solved.iter_mut().zip(&o.solved) {
            *t += k;
        }
    }
}

/// The summary of a pfms run.
pub type MateSummary = Summary<MateCounts>;

/// `true` if the record's dm was read leniently from mate notation
/// (`bm #N`) and so is a claim to re-prove, not a recorded result.
fn dm_from_mate_notation(diags: &[Diagnostic]) -> bool {
    diags
        .iter()
        .any(|d| d.code == Code::MateNotation && d.opcode.as_deref() == Some("bm") && d.message.contains("as dm"))
}

/// Searches one valid record as pfms does; returns the mate length found.
///
/// `trust_dm` says whether an existing dm is a recorded result (skip the
/// record when it is ≤ N) or only a claim to re-prove.
///
/// # Errors
/// Never in practice: the operations written are built from legal moves.
pub fn solve_record(
    rec: &mut Record,
    solver: &mut MateSolver,
    options: &MateOptions,
    trust_dm: bool,
) -> Result<Option<u32>, epd_core::SetError> {
    let n = options.moves.clamp(1, MAX_MATE_MOVES);
    let existing = if trust_dm { rec.get_known(Opcode::Dm).and_then(|o| o.operand(0)?.as_integer()) } else { None };
    // §7.3: search only when there is no dm, or a dm greater than N; a
    // pass of length k likewise only when no dm ≤ k is known.
    let limit = match existing {
        Some(d) if d <= i64::from(n) => return Ok(None),
        Some(d) if d > 0 => n.min((d - 1) as u32),
        _ => n,
    };
    let Some(pos) = rec.position().copied() else { return Ok(None) };
    let start = Instant::now();
    solver.set_deadline(options.timeout.map(|t| start + t));
    let before = solver.nodes();
    let found = if options.single_pass {
        // One pass of length N: any mate within N is reported as dm N.
        if solver.mates_within(&pos, n) {
            let shortest = (1..=n).find(|&k| solver.mates_within(&pos, k) || solver.aborted()).unwrap_or(n);
            solver.find_mate_exactly(&pos, shortest).map(|m| (n, m))
        } else {
            None
        }
    } else {
        solver.find_mate(&pos, limit).map(|m| (m.moves, m))
    };
    let nodes = solver.nodes() - before;
    let Some((dm, mate)) = found else { return Ok(None) };
    let secs = start.elapsed().as_secs();
    let pv: Vec<OperandInput<'_>> = mate.pv.iter().map(|&m| OperandInput::Move(m)).collect();
    rec.set("acn", &[OperandInput::Integer(nodes.min(i64::MAX as u64) as i64)])?;
    rec.set("acs", &[OperandInput::Integer(secs.min(i64::MAX as u64) as i64)])?;
    rec.set("dm", &[OperandInput::Integer(i64::from(dm))])?;
    // pm must be the first move of pv (E012): the old pm goes before the
    // new pv comes in, then the new pm.
    rec.remove("pm");
    rec.set("pv", &pv)?;
    rec.set("pm", &pv[..1])?;
    Ok(Some(dm))
}

/// pfms as a [`Processor`] of the line pipeline
/// (`epd_core::pipeline::run`), one per worker thread, each with its own
/// solver and table. Every valid record is searched (unless a recorded
/// dm ≤ N makes it unnecessary) and written in canonical form, with dm,
/// pm, pv, acn and acs added when a mate is found. Records are read
/// leniently; `bm #N` mate notation is re-proved, not trusted, and is
/// replaced by the proven dm.
///
/// Passes 1, 2, …, N over the file (§7.3) give each record the result of
/// iterative deepening on that record alone, which is what this does, one
/// record at a time (bounded memory). With several workers, output (dm,
/// pm, pv: all but acn and acs, which count each worker's own work) is
/// the same as with one.
#[derive(Debug)]
pub struct MateProver<'a> {
    solver: MateSolver,
    options: &'a MateOptions,
    stop: Option<Arc<AtomicBool>>,
}

impl<'a> MateProver<'a> {
    /// A prover with a table of `options.table_bits`.
    #[must_use]
    pub fn new(options: &'a MateOptions) -> MateProver<'a> {
        MateProver { solver: MateSolver::with_table_bits(options.table_bits), options, stop: None }
    }

    /// A prover that abandons the record in progress within 1024 nodes
    /// of `stop` being raised, and ends the run there (the pipeline's
    /// [`Interrupted`]: the record is not written).
    #[must_use]
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> MateProver<'a> {
        self.solver.set_stop(Arc::clone(&stop));
        self.stop = Some(stop);
        self
    }
}

impl Processor for MateProver<'_> {
    type Counts = MateCounts;

    fn mode(&self) -> ParseMode {
        ParseMode::Lenient
    }

    fn record(&mut self, rec: &mut Record, job: Job<'_, MateCounts>) -> Result<(), Interrupted> {
        let Job { diags, out, counts, .. } = job;
        let options = self.options;
        let n = options.moves.clamp(1, MAX_MATE_MOVES);
        counts.solved.resize(n as usize, 0);
        let trust_dm = !dm_from_mate_notation(diags);
        let existing = rec.get_known(Opcode::Dm).and_then(|o| o.operand(0)?.as_integer());
        if trust_dm && existing.is_some_and(|d| d <= i64::from(options.moves)) {
            counts.skipped += 1;
        } else {
            counts.searched += 1;
            let before = self.solver.nodes();
            let result = solve_record(rec, &mut self.solver, options, trust_dm);
            counts.nodes += self.solver.nodes() - before;
            if self.stop.as_ref().is_some_and(|s| s.load(Ordering::Relaxed)) {
                return Err(Interrupted);
            }
            if self.solver.aborted() {
                counts.timed_out += 1;
                let ms = options.timeout.unwrap_or_default().as_millis();
                diags.push(Diagnostic {
                    severity: epd_core::Severity::Warning,
                    code: Code::EngineFault,
                    offset: 0,
                    opcode: None,
                    operand: None,
                    message: format!("no mate within {n} proven in {ms} ms (--timeout): record written unchanged"),
                });
            }
            match result {
                Ok(Some(dm)) => {
                    if let Some(c) = counts.solved.get_mut(dm as usize - 1) {
                        *c += 1;
                    }
                }
                Ok(None) => {}
                Err(e) => diags.push(Diagnostic {
                    severity: epd_core::Severity::Error,
                    code: Code::OutOfRange,
                    offset: 0,
                    opcode: Some("pv".into()),
                    operand: None,
                    message: format!("mate found but not recordable: {e}"),
                }),
            }
        }
        rec.append_canonical(out);
        out.push(b'\n');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_grows_with_the_work_and_keeps_what_it_knows() {
        // Proving that a lone queen has no mate in 5 visits about a
        // million positions and keeps a few thousand facts: the table
        // starts at 2^10 buckets and grows, never past its most, and a
        // solver grown from small answers what one made at full size does.
        let queen = "3k4/8/8/8/8/8/8/2Q1K3 w - -".parse::<Position>().unwrap_or_else(|e| panic!("{e}"));
        let mut small = MateSolver::with_table_bits(16);
        assert_eq!(small.table.len(), 1 << FIRST_BITS);
        assert!(!small.mates_within(&queen, 5));
        assert!(small.table.len() > 1 << FIRST_BITS && small.table.len() <= 1 << 16, "{}", small.table.len());
        let live = small.table.iter().flatten().filter(|w| **w != [0; 2]).count();
        assert_eq!(small.filled, live);
        let castles = "r3k2r/8/8/8/8/8/8/R2QK2R w KQkq -".parse::<Position>().unwrap_or_else(|e| panic!("{e}"));
        let mut full = MateSolver::with_table_bits(16);
        full.table = empty_table(1 << 16);
        full.mask = (1 << 16) - 1;
        let expected = full.find_mate(&castles, 5);
        assert!(expected.as_ref().is_some_and(|m| m.moves == 5));
        assert_eq!(small.find_mate(&castles, 5), expected);
        let mut capped = MateSolver::with_table_bits(FIRST_BITS);
        assert_eq!(capped.find_mate(&castles, 5), expected);
        assert_eq!(capped.table.len(), 1 << FIRST_BITS, "a table never grows past its most");
        small.clear();
        assert_eq!((small.table.len(), small.filled), (1 << FIRST_BITS, 0));
    }

    #[test]
    fn finds_shortest_mates() {
        for (fen, n, first) in [
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - -", 1, "Ra8#"),
            // Scholar's-mate shape: Qxf7#.
            ("r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq -", 1, "Qxf7#"),
            // Two rooks ladder: mate in 2.
            ("7k/8/8/8/8/8/R7/1R4K1 w - -", 2, "Rb7"),
        ] {
            let pos: Position = fen.parse().unwrap();
            let mut s = MateSolver::with_table_bits(12);
            let m = s.find_mate(&pos, 3).unwrap_or_else(|| panic!("{fen}: no mate"));
            assert_eq!(m.moves, n, "{fen}");
            assert_eq!(m.pv.len(), 2 * n as usize - 1, "{fen}");
            let _ = first;
        }
    }

    /// A record's old pm and pv give way to the mate found: the record
    /// refuses a pm its old pv does not start (E012).
    #[test]
    fn a_found_mate_replaces_an_old_pm_and_pv() {
        let line = "6k1/5ppp/8/8/8/8/8/R5K1 w - - pm Kf1; pv Kf1 Kf8;";
        let (mut rec, _) = Record::parse(line.as_bytes(), epd_core::ParseMode::Strict);
        let options = MateOptions::default();
        let dm = solve_record(&mut rec, &mut MateSolver::with_table_bits(10), &options, false).unwrap();
        assert_eq!(dm, Some(1));
        let text = rec.to_string();
        assert!(text.ends_with(" dm 1; pm Ra8#; pv Ra8#;"), "{text}");
    }

    #[test]
    fn stalemate_is_not_mate() {
        // Qb6 stalemates; no mate in 1 exists (Kb6 side has only stalemates).
        let pos: Position = "k7/8/1K6/8/8/8/7Q/8 w - -".parse().unwrap();
        let mut s = MateSolver::with_table_bits(12);
        assert!(!s.mates_within(&pos, 0));
        let m = s.find_mate(&pos, 1).unwrap();
        let after = pos.played(m.pv[0]);
        assert!(after.is_checkmate());
        let stale: Position = "7k/5Q2/6K1/8/8/8/8/8 b - -".parse().unwrap();
        assert!(stale.is_stalemate());
        assert!(s.find_mate(&stale, 3).is_none());
    }

    #[test]
    fn check_info_agrees_with_gives_check() {
        let mut seed = epd_testkit::XorShift::new(0x9E37_79B9_7F4A_7C15);
        let mut tested = 0;
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq -",
            "8/3p2P1/1Pp5/2P1P3/3B2P1/2p5/p7/RNk1K3 w Q -",
        ] {
            for _ in 0..60 {
                let mut pos: Position = fen.parse().unwrap();
                for _ in 0..80 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let info = CheckInfo::new(&pos);
                    for &m in moves.iter() {
                        assert_eq!(info.gives_check(&pos, m), pos.gives_check(m), "{} {}", pos.fen(), pos.san(m));
                        tested += 1;
                    }
                    pos.play_unchecked(moves[seed.below(moves.len())]);
                }
            }
        }
        assert!(tested > 100_000, "{tested}");
    }

    #[test]
    fn no_mate_without_material() {
        let pos: Position = "8/8/8/4k3/8/8/8/4K2N w - -".parse().unwrap();
        let mut s = MateSolver::with_table_bits(12);
        assert!(s.find_mate(&pos, 3).is_none());
    }
}
