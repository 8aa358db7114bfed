//! `epd match` against fastchess itself (issue 44): the same command
//! line, deterministic players, both managers; the games must be the
//! same move for move, with the same results and terminations, the same
//! PGN tags and the same results block, apart from the differences
//! listed in `DIFFERENCES` (and in docs/argus.md, "They differ from
//! fastchess and cutechess-cli").
//!
//! fastchess is built from its tarball in `shared/peers` (`make`, about
//! two minutes on two cores) into target/fastchess-74deac2/bin/fastchess,
//! once; the source tree is shared with epd-referee's fastchess_stats.rs
//! under a lock. Without g++ or make the test is skipped with a message,
//! unless `EPDKIT_REQUIRE_FASTCHESS=1` (set by .ci/run), when it fails.
//!
//! The players are deterministic: the built-in engine (`epd uci`) at a
//! fixed depth, and Stockfish at a fixed node count with one thread and
//! a fixed hash (both managers send `ucinewgame` before each game, so
//! each search starts from the same state). What the engines are sent
//! differs only where it does not change a search: fastchess sends
//! `isready` around every move and every `setoption` it is given; epd
//! match sends `isready` at the start and after `ucinewgame`, no
//! `setoption` for a value the engine has by default (Threads=1 here),
//! and the book's FEN as written (fastchess's own FEN of it: see FEN
//! below).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use epd_core::Position;
use epd_testkit::{fastchess_dir, fastchess_tools, fastchess_tree};

const EPD: &str = env!("CARGO_BIN_EXE_epd");

/// The differences between the two managers' outputs that the
/// comparison allows, each with its reason (docs/argus.md lists them
/// too). Everything else must be equal.
const DIFFERENCES: &[(&str, &str)] = &[
    (
        "GameDuration, GameStartTime, GameEndTime, Date",
        "the clock's: fastchess's timing tags, which epd match does not write, and the day",
    ),
    (
        "EngineWhiteName, EngineWhiteAuthor, EngineBlackName, EngineBlackAuthor",
        "fastchess copies each engine's `id name` and `id author`; epd match writes none",
    ),
    ("Round", "fastchess writes the round (`1`), epd match the round and game (`1.2`)"),
    ("Event", "the default: `Fastchess Tournament` and `epd match`; a given -event is the same"),
    (
        "FEN",
        "the same position, written differently: fastchess drops an en passant square no pawn can take on, and \
         writes Chess960 castling rights in Shredder-FEN (`HAha`); epd match keeps the book's en passant square \
         and writes X-FEN (`KQkq`)",
    ),
    (
        "tag order",
        "fastchess ends with PlyCount, Termination, TimeControl, ECO, Opening; epd match with TimeControl, \
         Termination, PlyCount, ECO, Opening",
    ),
    (
        "move comments",
        "the same score and depth (`+0.54/4`); epd match adds `[%emt]`; the closing comment is a comment of its own \
         in epd match's words (`Black checkmated`, `adjudicated: ...`), fastchess's words after a comma in the last \
         move's comment (`White mates`)",
    ),
    (
        "results block",
        "the same figures, in cutechess's lines (`Score of`, `Elo difference`, `Ptnml(0-2)`) at one decimal where \
         fastchess prints two; the limit where fastchess prints `nan` or `inf`; no PairsRatio, WL/DD Ratio, nor the \
         header's time control, threads, hash and book; its `LLR: 0.16 (5.4%) (-2.94, 2.94) [0.00, 10.00]` is \
         `SPRT: llr 0.16 (5.4%), lbound -2.94, ubound 2.94, [0.00, 10.00] nElo`",
    ),
    ("Player: block", "epd match adds `Stalled` and `Illegal moves` lines after fastchess's `Timeouts` and `Crashed`"),
];

fn chmod_x(path: &Path) {
    assert!(Command::new("chmod").arg("+x").arg(path).status().unwrap().success());
}

/// fastchess, built from the tarball into target/fastchess-74deac2/bin/
/// unless it is there; `None` without g++ or make.
fn fastchess() -> Option<PathBuf> {
    if !fastchess_tools(&["g++", "make"], "fastchess") {
        return None;
    }
    let bin = fastchess_dir().join("bin").join("fastchess");
    if bin.is_file() {
        return Some(bin);
    }
    // Built under the tree's lock, unless built while we waited.
    let tree = fastchess_tree();
    if bin.is_file() {
        return Some(bin);
    }
    let started = Instant::now();
    // GIT_SHA and GIT_DATE empty: the tree may sit inside this project's
    // clone, whose commit is not fastchess's.
    let out = Command::new("make")
        .arg("-C")
        .arg(&tree.tree)
        .args(["-j2", "GIT_SHA=", "GIT_DATE="])
        .output()
        .expect("run make");
    assert!(
        out.status.success(),
        "make (fastchess) failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("built fastchess in {:.0?}", started.elapsed());
    std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
    // Copied beside, then renamed: a binary that is there is whole.
    let tmp = bin.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::copy(tree.tree.join("fastchess"), &tmp).unwrap();
    std::fs::rename(&tmp, &bin).unwrap();
    Some(bin)
}

/// What one manager did: its exit, its output, its PGN.
struct Run {
    out: Output,
    pgn: String,
    took: Duration,
}

impl Run {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }
}

/// Runs `program` (with `first` before the options) in a fresh
/// directory with `args` and `-pgnout file=games.pgn`.
fn run(program: &Path, first: &[&str], args: &[String]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = Command::new(program)
        .current_dir(dir.path())
        .args(first)
        .args(args)
        .args(["-pgnout", "file=games.pgn"])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    let took = started.elapsed();
    let pgn = std::fs::read_to_string(dir.path().join("games.pgn")).unwrap_or_default();
    Run { out, pgn, took }
}

/// One game of a PGN: its tags in order, and per move its SAN and
/// comments.
#[derive(Debug)]
struct Game {
    tags: Vec<(String, String)>,
    moves: Vec<(String, Vec<String>)>,
    result: String,
}

impl Game {
    fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// The games of a PGN as both managers write it: each begins with its
/// `[Event` line after a blank line (a movetext line may begin with `[`,
/// a wrapped `[%emt]`), tag lines up to a blank line, then movetext of
/// SAN, move numbers, `{comments}` and the result (neither writes
/// variations, NAGs or `;` comments).
fn parse_pgn(text: &str) -> Vec<Game> {
    let text = format!("\n\n{}", text.replace("\r\n", "\n"));
    let mut games = Vec::new();
    for chunk in text.split("\n\n[Event ").skip(1) {
        let chunk = format!("[Event {chunk}");
        let (head, movetext) = chunk.split_once("\n\n").unwrap_or((&chunk, ""));
        let mut tags = Vec::new();
        for line in head.lines() {
            let inner = line.trim().strip_prefix('[').and_then(|l| l.strip_suffix(']')).expect("a tag line");
            let (name, value) = inner.split_once(' ').unwrap();
            let value = value.trim().strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap();
            tags.push((name.to_owned(), value.replace("\\\"", "\"").replace("\\\\", "\\")));
        }
        let (mut moves, mut result) = (Vec::<(String, Vec<String>)>::new(), String::new());
        let mut rest = movetext;
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                break;
            }
            if let Some(after) = rest.strip_prefix('{') {
                let end = after.find('}').expect("a closed comment");
                let comment = after[..end].split_whitespace().collect::<Vec<_>>().join(" ");
                moves.last_mut().expect("a comment after a move").1.push(comment);
                rest = &after[end + 1..];
                continue;
            }
            let end = rest.find(|c: char| c.is_whitespace() || c == '{').unwrap_or(rest.len());
            let word = &rest[..end];
            rest = &rest[end..];
            if ["1-0", "0-1", "1/2-1/2", "*"].contains(&word) {
                result = word.to_owned();
                continue;
            }
            let san = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            if !san.is_empty() {
                moves.push((san.to_owned(), Vec::new()));
            }
        }
        games.push(Game { tags, moves, result });
    }
    games
}

/// The reason at a game's end in fastchess's words, and the same in
/// Argus's (epd match's PGN comment): `White mates`, `Black checkmated`.
fn argus_words(fastchess: &str) -> String {
    let other = |c: &str| if c == "White" { "Black" } else { "White" };
    if let Some(c) = fastchess.strip_suffix(" mates") {
        return format!("{} checkmated", other(c));
    }
    if let Some(c) = fastchess.strip_suffix(" wins by adjudication") {
        // fastchess's resignation adjudication (it has no other win).
        return format!("adjudicated: {} resigns", other(c));
    }
    match fastchess {
        "Draw by 3-fold repetition" => "threefold repetition, claimed".into(),
        "Draw by fifty moves rule" => "50-move rule, claimed".into(),
        "Draw by stalemate" => "stalemate".into(),
        "Draw by insufficient mating material" => "insufficient material".into(),
        "Draw by adjudication" => "adjudicated: a draw".into(),
        // "White disconnects", "Black's connection stalls": the same.
        other => other.into(),
    }
}

/// The game's closing words: fastchess's after the last comma of the
/// last move's comment, epd match's in a comment of its own.
fn closing(game: &Game, fastchess: bool) -> String {
    let comments = &game.moves.last().expect("a move").1;
    if fastchess {
        let last = comments.last().unwrap_or_else(|| panic!("a closing comment: {:?}", game.moves.last()));
        last.rsplit_once(", ").map_or(last.as_str(), |(_, r)| r).to_owned()
    } else {
        assert!(comments.len() >= 2, "a closing comment of its own: {comments:?}");
        comments.last().unwrap().clone()
    }
}

/// The same position: placement, side to move, castling rights (any
/// notation), an en passant square only where a capture is legal, and
/// the counters.
fn same_position(a: &str, b: &str) -> bool {
    let (Ok(p), Ok(q)) = (Position::from_fen(a), Position::from_fen(b)) else { return false };
    (p.zobrist_hash(), p.halfmoves(), p.fullmoves()) == (q.zobrist_hash(), q.halfmoves(), q.fullmoves())
}

/// The PGNs compared game by game (matched by round and colours):
/// moves, scores, results, terminations and tags.
fn compare_games(case: &str, fc: &str, ep: &str, failures: &mut Vec<String>) -> usize {
    let key = |g: &Game, fastchess: bool| {
        let round = g.tag("Round").unwrap_or_default();
        let round = if fastchess { round } else { round.split('.').next().unwrap() };
        (round.parse::<u32>().unwrap(), g.tag("White").unwrap().to_owned(), g.tag("Black").unwrap().to_owned())
    };
    let index = |games: Vec<Game>, fastchess: bool| {
        let mut m = BTreeMap::new();
        for g in games {
            let k = key(&g, fastchess);
            assert!(!g.moves.is_empty() && !g.result.is_empty(), "{case}: {k:?} read with its moves: {g:?}");
            assert!(m.insert(k.clone(), g).is_none(), "{case}: two games {k:?}");
        }
        m
    };
    for text in [fc, ep] {
        assert_eq!(parse_pgn(text).len(), text.matches("[Event ").count(), "{case}: every game read");
    }
    let (fc, ep) = (index(parse_pgn(fc), true), index(parse_pgn(ep), false));
    let mut fail = |what: String| failures.push(format!("{case}: {what}"));
    if fc.keys().ne(ep.keys()) {
        fail(format!("games {:?} vs fastchess's {:?}", ep.keys().collect::<Vec<_>>(), fc.keys().collect::<Vec<_>>()));
    }
    for (k, f) in &fc {
        let Some(e) = ep.get(k) else { continue };
        let sans = |g: &Game| g.moves.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>();
        let (fs, es) = (sans(f), sans(e));
        if fs != es {
            let at = fs.iter().zip(&es).position(|(a, b)| a != b).unwrap_or(fs.len().min(es.len()));
            fail(format!(
                "{k:?}: moves differ from ply {at}: {:?} vs fastchess's {:?}",
                &es[at..es.len().min(at + 4)],
                &fs[at..fs.len().min(at + 4)]
            ));
            continue;
        }
        // Each move's first comment: `book`, or the score and depth.
        for (i, ((san, fcm), (_, ecm))) in f.moves.iter().zip(&e.moves).enumerate() {
            let first = |c: &[String]| c.first().map(|c| c.split([' ', ',']).next().unwrap().to_owned());
            if first(fcm) != first(ecm) {
                fail(format!("{k:?}: ply {i} {san}: comment {ecm:?} vs fastchess's {fcm:?}"));
                break;
            }
        }
        if f.result != e.result {
            fail(format!("{k:?}: result {} vs fastchess's {}", e.result, f.result));
        }
        let (fr, er) = (closing(f, true), closing(e, false));
        if !er.starts_with(&argus_words(&fr)) {
            fail(format!("{k:?}: closing comment {er:?} vs fastchess's {fr:?}"));
        }
        compare_tags(k, f, e, &mut fail);
    }
    fc.len()
}

/// The tags, apart from `DIFFERENCES`: the same names with the same
/// values, `FEN` the same position, `Event` the defaults or the same.
fn compare_tags(k: &(u32, String, String), f: &Game, e: &Game, fail: &mut impl FnMut(String)) {
    const SKIPPED: &[&str] = &[
        "GameDuration",
        "GameStartTime",
        "GameEndTime",
        "Date",
        "EngineWhiteName",
        "EngineWhiteAuthor",
        "EngineBlackName",
        "EngineBlackAuthor",
        "Round",
    ];
    let kept = |g: &Game| -> BTreeMap<String, String> {
        g.tags.iter().filter(|(n, _)| !SKIPPED.contains(&n.as_str())).cloned().collect()
    };
    let (ft, et) = (kept(f), kept(e));
    if ft.keys().ne(et.keys()) {
        fail(format!(
            "{k:?}: tags {:?} vs fastchess's {:?}",
            et.keys().collect::<Vec<_>>(),
            ft.keys().collect::<Vec<_>>()
        ));
    }
    for (name, fv) in &ft {
        let Some(ev) = et.get(name) else { continue };
        let same = match name.as_str() {
            "FEN" => same_position(fv, ev),
            "Event" => fv == ev || (fv == "Fastchess Tournament" && ev == "epd match"),
            _ => fv == ev,
        };
        if !same {
            fail(format!("{k:?}: [{name} {ev:?}] vs fastchess's {fv:?}"));
        }
    }
    // The round: fastchess's `1`, epd match's `1.2`.
    let (fround, eround) = (f.tag("Round").unwrap(), e.tag("Round").unwrap());
    if eround.split('.').next() != Some(fround) || eround.split('.').count() != 2 {
        fail(format!("{k:?}: [Round {eround:?}] vs fastchess's {fround:?}"));
    }
}

/// A number as fastchess prints it (`inf`, `-nan` included).
fn number(text: &str) -> f64 {
    match text.trim().trim_end_matches(" %").trim_end_matches('%') {
        "inf" | "+inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        "nan" | "-nan" => f64::NAN,
        t => t.parse().unwrap_or_else(|_| panic!("not a number: {text:?}")),
    }
}

/// The text after `key` up to the next `,` or the end of the line.
fn field<'a>(block: &'a str, key: &str) -> &'a str {
    let at = block.find(key).unwrap_or_else(|| panic!("{key:?} in {block}")) + key.len();
    let rest = &block[at..];
    &rest[..rest.find([',', '\n']).unwrap_or(rest.len())]
}

/// A value and its interval: fastchess's `X +/- E`; ours `X +/- E`,
/// `X [lo, hi)` (an open interval) or `X` (an infinite value).
fn value_and_error(text: &str) -> (f64, Option<f64>) {
    let text = text.trim();
    match text.split_once(" +/- ") {
        Some((v, e)) => (number(v), Some(number(e))),
        None => (number(text.split(" [").next().unwrap()), None),
    }
}

/// fastchess's results block (the last `Results of` block) against
/// epd match's (the last `Score of` block): the same counts and
/// figures, ours at one decimal where it prints two, and the limits
/// where it prints `nan` or `inf`.
fn compare_results(case: &str, fc: &str, ep: &str, failures: &mut Vec<String>) {
    let mut fail = |what: String| failures.push(format!("{case}: results: {what}"));
    let f = &fc[fc.rfind("Results of ").expect("fastchess's results block")..];
    let f = &f[..f.find("\n---").unwrap_or(f.len())];
    let e = &ep[ep.rfind("Score of ").expect("epd match's results block")..];
    let e = &e[..e.find("\n\n").unwrap_or(e.len())];
    let close = |ours: f64, theirs: f64, step: f64| {
        ours == theirs || (ours - theirs).abs() <= step / 2.0 + 0.005 + 1e-9 * theirs.abs()
    };

    // Names and counts: `Results of A vs B (...)` and `Games: N, Wins:
    // W, Losses: L, Draws: D, Points: P (S %)` against `Score of A vs
    // B: W - L - D  [S] N`.
    let fnames = &f["Results of ".len()..f.find(" (").unwrap()];
    let (enames, score) = e["Score of ".len()..].split_once(": ").unwrap();
    if fnames != enames {
        fail(format!("{enames:?} vs fastchess's {fnames:?}"));
    }
    let counts: Vec<f64> = ["Games: ", "Wins: ", "Losses: ", "Draws: "].iter().map(|k| number(field(f, k))).collect();
    let words: Vec<&str> = score.lines().next().unwrap().split_whitespace().collect();
    let ours = [number(words[6]), number(words[0]), number(words[2]), number(words[4])];
    if counts != ours {
        fail(format!("games, wins, losses, draws {ours:?} vs fastchess's {counts:?}"));
    }
    let points = field(f, "Points: ");
    let percent = number(&points[points.find('(').unwrap() + 1..points.find(')').unwrap()]);
    let ratio = number(words[5].trim_matches(|c| c == '[' || c == ']'));
    if !close(ratio * 100.0, percent, 0.1) {
        fail(format!("score [{ratio}] vs fastchess's {percent} %"));
    }

    // Elo and nElo with their half intervals.
    for (fkey, ekey) in [("Elo: ", "Elo difference: "), ("nElo: ", "nElo: ")] {
        let fline = f.lines().find(|l| l.contains("nElo: ")).unwrap();
        let eline = e.lines().find(|l| l.contains("nElo: ")).unwrap();
        let ftext = if fkey == "Elo: " { field(fline, "Elo: ") } else { field(fline, ", nElo: ") };
        let etext = if ekey == "nElo: " { field(eline, ", nElo: ") } else { field(eline, ekey) };
        let ((fv, fe), (ev, ee)) = (value_and_error(ftext), value_and_error(etext));
        let fe = fe.expect("fastchess prints +/-");
        let value_ok = if fv.is_nan() {
            // 0/0, every pair scoring one point: the limit is 0.
            ev == 0.0
        } else {
            close(ev, fv, 0.1)
        };
        // Where fastchess's interval is finite ours is the same; where it
        // is not, ours is open (or the value itself is infinite).
        let error_ok = match ee {
            Some(ee) => (fe.is_finite() && close(ee, fe, 0.1)) || (!fe.is_finite() && fkey == "nElo: "),
            None => !fe.is_finite() && (etext.contains('[') || ev.is_infinite()),
        };
        if !(value_ok && error_ok) {
            fail(format!("{ekey}{etext:?} vs fastchess's {fkey}{ftext:?}"));
        }
    }
    // LOS (fastchess's nan: every pair scored one point, the limit 50 %)
    // and the draw ratio (pairs).
    for key in ["LOS: ", "DrawRatio: "] {
        let (fv, ev) = (number(field(f, key)), number(field(e, key)));
        let ok = if fv.is_nan() { key == "LOS: " && ev == 50.0 } else { close(ev, fv, 0.1) };
        if !ok {
            fail(format!("{key}{ev} vs fastchess's {fv}"));
        }
    }
    let ptnml = |b: &str| {
        let at = b.find("Ptnml(0-2): ").expect("Ptnml(0-2)");
        b[at..at + b[at..].find(']').unwrap() + 1].to_owned()
    };
    if ptnml(f) != ptnml(e) {
        fail(format!("{} vs fastchess's {}", ptnml(e), ptnml(f)));
    }
    // The SPRT: `LLR: 0.16 (5.4%) (-2.94, 2.94) [0.00, 10.00]` against
    // `SPRT: llr 0.16 (5.4%), lbound -2.94, ubound 2.94, [0.00, 10.00]
    // nElo`: the same numbers as printed.
    let numbers = |line: Option<&str>| -> Option<Vec<f64>> {
        Some(
            line?
                .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
                .filter_map(|t| t.parse().ok())
                .collect(),
        )
    };
    let (fsprt, esprt) = (f.lines().find(|l| l.starts_with("LLR: ")), e.lines().find(|l| l.starts_with("SPRT: ")));
    if numbers(fsprt) != numbers(esprt) {
        fail(format!("{esprt:?} vs fastchess's {fsprt:?}"));
    }
}

/// The `Started game` and `Finished game` lines (fastchess prints them
/// on standard output, epd match on standard error): the same, word for
/// word, in the same order (one game at a time).
fn progress(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with("Started game ") || l.starts_with("Finished game ")).collect()
}

/// fastchess's `Player:` blocks (an engine's time losses and crashes)
/// are in epd match's report.
fn compare_players(case: &str, fc: &str, ep: &str, failures: &mut Vec<String>) {
    let lines: Vec<&str> = fc.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("Player: ") && i + 2 < lines.len() {
            let block = lines[i..i + 3].join("\n");
            if !ep.contains(&(block.clone() + "\n")) {
                failures.push(format!("{case}: {block:?} is not in epd match's report"));
            }
        }
    }
}

/// One match through both managers, compared.
fn both(fastchess: &Path, case: &str, args: &[String], failures: &mut Vec<String>) -> (usize, Run, Run) {
    let fc = run(fastchess, &[], args);
    let ep = run(Path::new(EPD), &["match"], args);
    let (fout, eout, eerr) = (fc.stdout(), ep.stdout(), ep.stderr());
    assert!(fc.out.status.success(), "{case}: fastchess failed:\n{fout}{}", fc.stderr());
    assert!(ep.out.status.success(), "{case}: epd match failed:\n{eerr}");
    let games = compare_games(case, &fc.pgn, &ep.pgn, failures);
    let (fp, ep_progress) = (progress(&fout), progress(&eerr));
    if fp != ep_progress {
        failures.push(format!("{case}: progress lines\n{ep_progress:#?}\nvs fastchess's\n{fp:#?}"));
    }
    compare_results(case, &fout, &eout, failures);
    compare_players(case, &fout, &eout, failures);
    eprintln!("{case}: {games} games, fastchess {:.1?}, epd match {:.1?}", fc.took, ep.took);
    (games, fc, ep)
}

fn words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

/// An executable `#!/bin/sh` script `name` in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    chmod_x(&path);
    path.display().to_string()
}

/// The first `n` games of a PGN file.
fn first_games(text: &str, n: usize) -> String {
    let mut starts = text.match_indices("[Event ").map(|(i, _)| i).chain([text.len()]);
    let first = starts.next().unwrap();
    let end = starts.nth(n - 1).unwrap_or(text.len());
    text[first..end].to_owned()
}

#[test]
fn epd_match_plays_fastchess_games() {
    let Some(fastchess) = fastchess() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let started = Instant::now();
    // fastchess takes a command without arguments.
    let epd = script(d, "epd-uci", &format!("exec '{EPD}' uci \"$@\"\n"));
    // The built-in engine, exiting (code 3) at its sixth `go`: each life
    // of the engine crashes in a game.
    let crash = script(
        d,
        "crash",
        &format!(
            "n=0\nwhile read -r l; do\n  case \"$l\" in\n    go*) n=$((n+1)); [ $n -gt 5 ] && exit 3;;\n  esac\n  \
             printf '%s\\n' \"$l\"\n  [ \"$l\" = quit ] && exit 0\ndone | '{EPD}' uci\n"
        ),
    );
    // Books: EPD openings, a PGN book (two games of 8moves_v3 and one
    // from a FEN), Chess960 starts in Shredder-FEN and X-FEN.
    let uho = std::fs::read_to_string(epd_testkit::corpus_path("UHO_4060_v3.epd")).unwrap();
    let epd_book = d.join("book.epd");
    std::fs::write(&epd_book, uho.lines().take(4).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let eight = std::fs::read_to_string(epd_testkit::corpus_path("8moves_v3.pgn")).unwrap();
    let pgn_book = d.join("book.pgn");
    std::fs::write(
        &pgn_book,
        first_games(&eight, 2)
            + "[Event \"?\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2\"]\n\n\
               2... e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 *\n",
    )
    .unwrap();
    let frc_book = d.join("frc.epd");
    std::fs::write(
        &frc_book,
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\n\
         nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w KQkq - 0 1\n\
         rkrbbqnn/pppppppp/8/8/8/8/PPPPPPPP/RKRBBQNN w CAca - 0 1\n",
    )
    .unwrap();
    let (epd_book, pgn_book, frc_book) = (epd_book.display(), pgn_book.display(), frc_book.display());

    // Each match with what it must show (in epd match's PGN or report,
    // wrapped as they may be): the comparison proves fastchess's the
    // same.
    let mut cases: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "built-in engine at depths 4 and 3",
            format!(
                "-engine cmd={epd} name=d4 depth=4 -engine cmd={epd} name=d3 depth=3 -rounds 2 -repeat \
                 -openings file={epd_book} format=epd order=sequential -event diff -site here"
            ),
            vec!["[Event \"diff\"]", "[Site \"here\"]"],
        ),
        (
            "PGN book",
            format!(
                "-engine cmd={epd} name=d4 depth=4 -engine cmd={epd} name=d3 depth=3 -rounds 3 -repeat \
                 -openings file={pgn_book} format=pgn plies=10 order=sequential -maxmoves 40"
            ),
            vec!["{book}", "[FEN \"rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2\"]"],
        ),
        (
            "draw, resign and max-moves adjudication",
            format!(
                "-engine cmd={epd} name=d4 depth=4 -engine cmd={epd} name=d2 depth=2 -rounds 4 -repeat \
                 -openings file={epd_book} format=epd order=sequential \
                 -draw movenumber=12 movecount=3 score=40 -resign movecount=3 score=500 -maxmoves 40 \
                 -sprt elo0=0 elo1=10 alpha=0.05 beta=0.05"
            ),
            vec![
                "resigns, its engine's score -500 cp or less for 3 moves",
                "a draw, both engines' scores within 40 cp for 3 moves",
                "a draw, the game reached 40 moves",
                "SPRT: llr ",
            ],
        ),
        (
            "Chess960",
            format!(
                "-engine cmd={epd} name=d4 depth=4 -engine cmd={epd} name=d3 depth=3 -rounds 3 -repeat \
                 -variant fischerandom -openings file={frc_book} format=epd order=sequential -maxmoves 60"
            ),
            vec!["[Variant \"Chess960\"]", " O-O ", " O-O-O "],
        ),
        (
            "a crashing engine with -recover",
            format!(
                "-engine cmd={crash} name=crash -engine cmd={epd} name=ok -each depth=2 -rounds 2 -repeat \
                 -openings file={epd_book} format=epd order=sequential -recover"
            ),
            vec!["{White disconnects}", "{Black disconnects}"],
        ),
    ];
    if let Some(stockfish) = epd_testkit::stockfish() {
        cases.insert(
            1,
            (
                "Stockfish at nodes",
                format!(
                    "-engine cmd={stockfish} name=sf4k nodes=4000 -engine cmd={stockfish} name=sf2k nodes=2000 \
                     -each option.Threads=1 option.Hash=8 -rounds 2 -repeat \
                     -openings file={epd_book} format=epd order=sequential"
                ),
                vec!["[White \"sf4k\"]"],
            ),
        );
    }
    let mut failures = Vec::new();
    let (mut games, mut fc_time, mut ep_time) = (0, Duration::ZERO, Duration::ZERO);
    for (case, args, wants) in &cases {
        let (n, fc, ep) = both(&fastchess, case, &words(args), &mut failures);
        games += n;
        fc_time += fc.took;
        ep_time += ep.took;
        let text = (ep.pgn.clone() + &ep.stdout()).split_whitespace().collect::<Vec<_>>().join(" ");
        for want in wants {
            assert!(text.contains(want), "{case}: {want:?} in\n{}{}", ep.pgn, ep.stdout());
        }
    }
    eprintln!(
        "{games} games in {} matches: fastchess {fc_time:.1?}, epd match {ep_time:.1?}, {:.1?} in all",
        cases.len(),
        started.elapsed()
    );
    assert!(games >= 30, "{games} games");
    assert!(
        failures.is_empty(),
        "{} differences from fastchess (allowed: {DIFFERENCES:#?}):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
