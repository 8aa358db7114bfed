//! `epd match` where it mirrors fastchess off the common path (the
//! statistics are checked against fastchess's own sources in
//! epd-referee/tests/fastchess_stats.rs, adjudication in
//! epd-referee/tests/director.rs).

use std::process::Command;
use std::time::{Duration, Instant};

const EPD: &str = env!("CARGO_BIN_EXE_epd");

/// An option value outside the engine's declared range stops the match
/// before the first game, naming the option, the value and the range
/// (fastchess: the engine was sent `Hash 0` and aborted, reported as a
/// crash).
#[test]
fn option_values_are_checked_before_the_first_game() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = Command::new(EPD)
        .current_dir(dir.path())
        .args(["match", "-engine", &format!("cmd={EPD}"), "args=uci", "name=a", "option.Hash=0"])
        .args(["-engine", &format!("cmd={EPD}"), "args=uci", "name=b", "-each", "depth=1", "-rounds", "1"])
        .args(["-pgnout", "file=games.pgn"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("player a: "), "{err}");
    assert!(err.contains("option Hash: \"0\" is not a whole number from 1 to 4096"), "{err}");
    assert!(!dir.path().join("games.pgn").exists(), "no game was played");
    // Nor a log left behind (it was, once the log was opened before the
    // engines started, for their traffic).
    assert!(!dir.path().join("referee.log").exists(), "no log");
    // Generous: starting two engines takes milliseconds.
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// fastchess's one-dash options are read after global options too:
/// `epd --color never match -engine ...` (the subcommand was looked for
/// only right after the program's name, so clap read `-engine` as `-e`).
#[test]
fn one_dash_options_follow_global_options() {
    for global in [&["--color", "never"][..], &["--color=never"]] {
        let out = Command::new(EPD)
            .args(global)
            .args(["match", "-engine", &format!("cmd={EPD}"), "args=uci", "name=a", "option.Hash=0"])
            .args(["-engine", &format!("cmd={EPD}"), "args=uci", "name=b", "-each", "depth=1", "-rounds", "1"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{global:?}: {err}");
        assert!(err.contains("option Hash: \"0\" is not a whole number from 1 to 4096"), "{global:?}: {err}");
    }
}

/// A fastchess option `epd match` lacks is named as typed (clap alone
/// said "unexpected argument '-r'" for `-report`), and each file option
/// lists its own keys.
#[test]
fn unknown_options_and_keys_are_named_as_typed() {
    for (args, want) in [
        (vec!["-testEnv"], "epd match: -testEnv is not an option of epd match"),
        (vec!["-report", "pentanomial=true"], "-report: pentanomial=true: it takes penta=true|false"),
        (vec!["-log", "file=x", "compress=true"], "-log: compress=true is not supported; it takes file=NAME [level="),
        (vec!["-pgnout", "file=x", "level=info"], "-pgnout: level=info is not supported; it takes file=NAME [append"),
        (
            vec!["-epdout", "file=x", "notation=san"],
            "-epdout: notation=san is not supported; it takes file=NAME [append",
        ),
    ] {
        let out = Command::new(EPD)
            .args(["match", "-engine", "cmd=a", "-engine", "cmd=b", "-each", "depth=1"])
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

/// The `[FEN]` of each game of a PGN, by its round (`1.1`, `1.2` ...),
/// in round order.
fn openings_by_round(pgn: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for game in pgn.split("[Event ").skip(1) {
        let tag = |name: &str| {
            let key = format!("[{name} \"");
            game.find(&key).map(|i| {
                let rest = &game[i + key.len()..];
                rest[..rest.find('"').unwrap()].to_owned()
            })
        };
        out.push((tag("Round").unwrap(), tag("FEN").unwrap_or_default()));
    }
    out.sort_by_key(|(round, _)| round.split('.').map(|n| n.parse::<u32>().unwrap()).collect::<Vec<_>>());
    out
}

/// A random opening order drawn from the clock survives Ctrl-C: the seed
/// is kept with the match, the interruption names where and the command
/// that goes on, and that command plays the openings an uninterrupted
/// match with the same seed plays; a finished match's files then do not
/// block a new match in the same directory.
#[test]
fn an_interrupted_random_order_match_resumes_with_its_openings() {
    let dir = tempfile::tempdir().unwrap();
    let book = epd_testkit::corpus_path("wacnew.epd").display().to_string();
    let engine = format!("cmd={EPD}");
    let args = [
        "match",
        "-engine",
        &engine,
        "args=uci",
        "name=a",
        "-engine",
        &engine,
        "args=uci",
        "name=b",
        "-each",
        "depth=1",
        "-rounds",
        "12",
        "-openings",
        &format!("file={book}"),
        "format=epd",
        "order=random",
        "-pgnout",
        "file=g.pgn",
    ];
    let pgn = dir.path().join("g.pgn");
    let child = Command::new(EPD).args(args).current_dir(dir.path()).stderr(std::process::Stdio::piped()).spawn();
    let child = child.unwrap();
    let start = Instant::now();
    while std::fs::metadata(&pgn).map_or(true, |m| m.len() == 0) {
        assert!(start.elapsed() < Duration::from_secs(60), "no game finished");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("the match is kept in referee.journal (its finished games in g.pgn); to go on:"), "{err}");
    let command = err.lines().last().unwrap().trim();
    assert!(command.starts_with(EPD) && command.ends_with(" --resume"), "{command}");
    let before = openings_by_round(&std::fs::read_to_string(&pgn).unwrap()).len();
    assert!(before < 24, "interrupted after {before} games");

    // The printed command, word by word (none needs quoting here).
    let words: Vec<&str> = command.split(' ').collect();
    let out = Command::new(words[0]).args(&words[1..]).current_dir(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let resumed = openings_by_round(&std::fs::read_to_string(&pgn).unwrap());
    assert_eq!(resumed.len(), 24, "every game once");

    // The seed the journal kept gives the same openings uninterrupted.
    let journal = std::fs::read(dir.path().join("referee.journal")).unwrap();
    let text = String::from_utf8_lossy(&journal);
    let at = text.find("\"openings_seed\":").expect("the seed in the journal") + "\"openings_seed\":".len();
    let seed: String = text[at..].chars().take_while(char::is_ascii_digit).collect();
    let fresh = tempfile::tempdir().unwrap();
    let mut again: Vec<&str> = args.to_vec();
    again.extend(["-srand", &seed]);
    let out = Command::new(EPD).args(&again).current_dir(fresh.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let straight = openings_by_round(&std::fs::read_to_string(fresh.path().join("g.pgn")).unwrap());
    assert_eq!(resumed, straight, "the resumed match plays the uninterrupted one's openings");

    // Finished: the same command in the same directory starts afresh.
    let out = Command::new(EPD).args(args).current_dir(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(openings_by_round(&std::fs::read_to_string(&pgn).unwrap()).len(), 48, "the PGN gains a match");
}

/// An executable script `name` in `dir` that logs every line it is sent
/// to `name.log`, then passes it to `program`.
fn logging_engine(dir: &std::path::Path, name: &str, program: &str) -> String {
    let path = dir.join(name);
    let log = dir.join(format!("{name}.log"));
    std::fs::write(&path, format!("#!/bin/sh\ntee -a '{}' | '{program}'\n", log.display())).unwrap();
    assert!(Command::new("chmod").arg("+x").arg(&path).status().unwrap().success());
    path.display().to_string()
}

/// Search limits without a clock are sent as fastchess sends them: `go
/// nodes N` and `go depth N`, no wtime or btime (an engine that follows
/// its clock thought for minutes under the 24-hour clock that used to
/// stand in); the PGN says `TimeControl "-"` and writes no `[%clk]`.
/// Stockfish at nodes=20000 against itself at depth 8, one pair of at
/// most 40 moves a game (the whole pair's time is in BENCHMARKS.md; the
/// bound here only catches a hang).
#[test]
fn depth_and_nodes_without_a_clock_are_sent_as_such() {
    let Some(sf) = epd_testkit::stockfish() else { return };
    let dir = tempfile::tempdir().unwrap();
    let nodes = logging_engine(dir.path(), "nodes", sf);
    let depth = logging_engine(dir.path(), "depth", sf);
    let started = Instant::now();
    let out = Command::new(EPD)
        .current_dir(dir.path())
        .args(["match", "-engine", &format!("cmd={nodes}"), "name=n", "nodes=20000", "option.Threads=1"])
        .args(["-engine", &format!("cmd={depth}"), "name=d", "depth=8", "option.Threads=1"])
        .args(["-rounds", "1", "-repeat", "-maxmoves", "40", "-pgnout", "file=g.pgn"])
        .output()
        .unwrap();
    let took = started.elapsed();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(took < Duration::from_secs(150), "one pair took {took:?}");
    for (name, want) in [("nodes", "go nodes 20000"), ("depth", "go depth 8")] {
        let log = std::fs::read_to_string(dir.path().join(format!("{name}.log"))).unwrap();
        let gos: Vec<&str> = log.lines().filter(|l| l.starts_with("go")).collect();
        assert!(!gos.is_empty(), "{log}");
        assert!(gos.iter().all(|g| *g == want), "{name}: {gos:?}");
    }
    let pgn = std::fs::read_to_string(dir.path().join("g.pgn")).unwrap();
    assert_eq!(pgn.matches("[TimeControl \"-\"]").count(), 2, "{pgn}");
    assert!(!pgn.contains("[%clk") && pgn.contains("[%emt"), "{pgn}");
}

/// SIGTERM while both engines search and neither ever answers (deaf to
/// `stop`): `epd match` still ends at once (the local players' tasks are
/// given a second, then aborted and their engines killed), exits
/// 128 + 15, says how to resume, and leaves no engine running. It took
/// 109 s before.
#[test]
fn sigterm_ends_a_match_whose_engines_hang() {
    let dir = tempfile::tempdir().unwrap();
    let engine = dir.path().join("hang.sh");
    std::fs::write(
        &engine,
        "#!/bin/sh\nwhile read -r l; do\n  case \"$l\" in\n    uci) echo 'id name hang'; echo uciok;;\n    \
         isready) echo readyok;;\n    quit) exit 0;;\n  esac\ndone\n",
    )
    .unwrap();
    assert!(Command::new("chmod").arg("+x").arg(&engine).status().unwrap().success());
    let cmd = format!("cmd={}", engine.display());
    let child = Command::new(EPD)
        .current_dir(dir.path())
        .args(["match", "-engine", &cmd, "name=a", "-engine", &cmd, "name=b", "-each", "st=100", "-rounds", "1"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The first search is under way once the game's start is journalled.
    let journal = dir.path().join("referee.journal");
    let start = Instant::now();
    while std::fs::metadata(&journal).map_or(true, |m| m.len() < 100) {
        assert!(start.elapsed() < Duration::from_secs(30), "the match never began");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    let took = sent.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{err}");
    // It takes about a second (the grace); a bound five times that.
    assert!(took < Duration::from_secs(6), "took {took:?}");
    assert!(err.contains("to go on:"), "{err}");
    let left = Command::new("pgrep").args(["-f", &engine.display().to_string()]).output().unwrap();
    assert!(left.stdout.is_empty(), "engines left running: {}", String::from_utf8_lossy(&left.stdout));
}

/// The results block when the SPRT decides: printed once on standard
/// error (it was printed again for each game of the pairs still under
/// way), and once more in the report at the end.
#[test]
fn the_sprt_verdict_block_is_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let book = epd_testkit::corpus_path("wacnew.epd").display().to_string();
    let engine = format!("cmd={EPD}");
    let out = Command::new(EPD)
        .current_dir(dir.path())
        .args(["match", "-engine", &engine, "args=uci", "name=d3", "depth=3"])
        .args(["-engine", &engine, "args=uci", "name=d1", "depth=1", "-rounds", "100", "-repeat"])
        .args(["-concurrency", "2", "-sprt", "elo0=0", "elo1=50", "-ratinginterval", "10"])
        .args(["-openings", &format!("file={book}"), "format=epd"])
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.matches("was accepted").count(), 1, "{stderr}");
    assert_eq!(stdout.matches("Score of d3 vs d1").count(), 1, "{stdout}");
    assert!(stdout.contains("- H1 was accepted"), "{stdout}");
    // Before it, one block each 10 games: the last one is the verdict's.
    let blocks: Vec<&str> = stderr.lines().filter(|l| l.starts_with("Score of d3 vs d1: ")).collect();
    assert!(blocks.len() >= 2, "{stderr}");
    let last = stderr.lines().rev().find(|l| l.starts_with("SPRT: ")).unwrap();
    assert!(last.ends_with("- H1 was accepted"), "the verdict's block is the last: {stderr}");
}

/// An engine that crashes mid-game loses that game at once, with the
/// termination fastchess writes ("abandoned", "White disconnects" or
/// "Black disconnects"); without -recover the match stops there, as
/// fastchess's does (exit 1, the report kept, the command that goes on);
/// with -recover the engine is started afresh for the next game, without
/// a growing pause, and every game is played. The report lists the
/// crashes per engine.
#[test]
fn a_crashing_engine_loses_and_stops_the_match_without_recover() {
    for recover in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let engine = dir.path().join("crash.sh");
        // A wrapper that passes lines to the built-in engine and exits
        // after five `go`s (each life of the engine).
        std::fs::write(
            &engine,
            format!(
                "#!/bin/sh\nn=0\nwhile read -r l; do\n  case \"$l\" in\n    go*) n=$((n+1)); if [ $n -gt 5 ]; then exit 3; \
                 fi;;\n  esac\n  printf '%s\\n' \"$l\"\ndone | {EPD} uci\n"
            ),
        )
        .unwrap();
        assert!(Command::new("chmod").arg("+x").arg(&engine).status().unwrap().success());
        let started = Instant::now();
        let mut cmd = Command::new(EPD);
        cmd.current_dir(dir.path())
            .args(["match", "-engine", &format!("cmd={}", engine.display()), "name=crash"])
            .args(["-engine", &format!("cmd={EPD}"), "args=uci", "name=ok", "-each", "depth=1", "-rounds", "2"])
            .args(["-pgnout", "file=g.pgn"]);
        if recover {
            cmd.arg("-recover");
        }
        let out = cmd.output().unwrap();
        let took = started.elapsed();
        let (stdout, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let pgn = std::fs::read_to_string(dir.path().join("g.pgn")).unwrap_or_default();
        let lost = pgn.matches("[Termination \"abandoned\"]").count();
        assert!(pgn.contains(" disconnects}"), "{pgn}");
        if recover {
            assert!(out.status.success(), "{err}");
            assert_eq!(pgn.matches("[Event ").count(), 4, "every game is played: {pgn}");
            assert!(lost >= 2, "each life of the engine crashes in a game: {pgn}");
            assert!(stdout.contains(&format!("Player: crash\n  Timeouts: 0\n  Crashed: {lost}\n")), "{stdout}");
            // Started afresh at once: four depth-1 games take well under
            // the 1 + 2 + 4 s the growing pause cost.
            assert!(took < Duration::from_secs(20), "took {took:?}");
        } else {
            assert_eq!(out.status.code(), Some(1), "{err}");
            assert_eq!((pgn.matches("[Event ").count(), lost), (1, 1), "the match stops after the lost game: {pgn}");
            assert!(err.contains("the engine of crash crashed") && err.contains("-recover"), "{err}");
            assert!(err.contains("to go on:") && err.contains("--resume"), "{err}");
            assert!(stdout.contains("Player: crash\n  Timeouts: 0\n  Crashed: 1\n"), "the report is kept: {stdout}");
        }
    }
}

/// An engine that answers an illegal move loses that game with
/// fastchess's termination ("illegal move"), and the match goes on.
#[test]
fn an_illegal_move_loses_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let engine = dir.path().join("illegal.sh");
    std::fs::write(
        &engine,
        "#!/bin/sh\nwhile read -r l; do\n  case \"$l\" in\n    uci) echo 'id name illegal'; echo uciok;;\n    \
         isready) echo readyok;;\n    go*) echo 'bestmove a1a5';;\n    quit) exit 0;;\n  esac\ndone\n",
    )
    .unwrap();
    assert!(Command::new("chmod").arg("+x").arg(&engine).status().unwrap().success());
    let out = Command::new(EPD)
        .current_dir(dir.path())
        .args(["match", "-engine", &format!("cmd={}", engine.display()), "name=bad"])
        .args(["-engine", &format!("cmd={EPD}"), "args=uci", "name=ok", "-each", "depth=1", "-rounds", "1"])
        .args(["-pgnout", "file=g.pgn"])
        .output()
        .unwrap();
    let (stdout, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{err}");
    // Every game started and finished is printed, as fastchess prints it.
    for line in [
        "Started game 1 of 2 (bad vs ok)",
        "Finished game 1 (bad vs ok): 0-1 {White makes an illegal move}",
        "Started game 2 of 2 (ok vs bad)",
        "Finished game 2 (ok vs bad): 1-0 {Black makes an illegal move}",
    ] {
        assert!(err.lines().any(|l| l == line), "{line:?} in {err}");
    }
    let pgn = std::fs::read_to_string(dir.path().join("g.pgn")).unwrap();
    assert_eq!(pgn.matches("[Termination \"illegal move\"]").count(), 2, "both games lost: {pgn}");
    assert!(pgn.contains("White makes an illegal move: bestmove a1a5}"), "{pgn}");
    assert!(
        stdout.contains("Player: bad\n  Timeouts: 0\n  Crashed: 0\n  Stalled: 0\n  Illegal moves: 2\n"),
        "{stdout}"
    );
}

/// An executable script `name` in `dir` that logs every line it is sent
/// to `name.log`, then passes it to `epd uci`.
fn logging_epd(dir: &std::path::Path, name: &str) -> String {
    let path = dir.join(name);
    let log = dir.join(format!("{name}.log"));
    std::fs::write(&path, format!("#!/bin/sh\ntee -a '{}' | '{EPD}' uci\n", log.display())).unwrap();
    assert!(Command::new("chmod").arg("+x").arg(&path).status().unwrap().success());
    path.display().to_string()
}

/// The games of a PGN as python-chess reads them, one line each: the
/// tags `FEN`, `SetUp`, `ECO`, `PlyCount` and `Termination` (`-` when
/// absent), the number of moves, then each move's UCI and whether its
/// comment is `book`, `e2e4:book` or `e2e4:-`, tab-separated.
const READ_GAMES: &str = r#"
import sys, chess.pgn
pgn = open(sys.argv[1])
while True:
    game = chess.pgn.read_game(pgn)
    if game is None:
        break
    if game.errors:
        sys.exit(f"{game.errors}")
    tags = [game.headers.get(t, "-") for t in ("FEN", "SetUp", "ECO", "PlyCount", "Termination")]
    moves = [f"{n.move.uci()}:{'book' if n.comment.split(' ')[0] == 'book' else '-'}" for n in game.mainline()]
    print("\t".join(tags + [str(len(moves))] + moves))
"#;

/// Issue 44, PGN books: the games begin with the book game's moves, as
/// fastchess plays them. The engines are sent `position startpos moves
/// <book> ...` (`position fen <the game's FEN> moves <book> ...` for a
/// book game with a `[FEN]`); the PGN, read by python-chess, has the
/// book's moves first, each with `{book}`, from the book game's start
/// (no `[FEN]` from the standard position), counts them in `[PlyCount]`,
/// carries none of the book game's tags (its `ECO` is the table's name
/// of the game's moves), and `-maxmoves` counts
/// the engines' moves only. `plies=` takes the first moves of each game.
#[test]
fn pgn_book_moves_are_the_games_first_moves() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.pgn");
    std::fs::write(
        &book,
        "[Event \"book\"]\n[ECO \"E99\"]\n[Opening \"Not the game's\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n\
         [Event \"book\"]\n[SetUp \"1\"]\n[FEN \"rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2\"]\n\n\
         2... e6 3. Nc3 Nf6 4. Bg5 *\n",
    )
    .unwrap();
    let fen = "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq - 0 2";
    let books = [("", "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6"), (fen, "e7e6 b1c3 g8f6 c1g5")];
    for (plies, cut) in [(None, [6, 4]), (Some(3), [3, 3])] {
        let dir = tempfile::tempdir().unwrap();
        let a = logging_epd(dir.path(), "a");
        let b = logging_epd(dir.path(), "b");
        let mut openings = vec![format!("file={}", book.display()), "format=pgn".to_owned()];
        openings.extend(plies.map(|p| format!("plies={p}")));
        let out = Command::new(EPD)
            .current_dir(dir.path())
            .args(["match", "-engine", &format!("cmd={a}"), "name=a", "-engine", &format!("cmd={b}"), "name=b"])
            .args(["-each", "depth=1", "-rounds", "2", "-maxmoves", "3", "-pgnout", "file=g.pgn", "-openings"])
            .args(&openings)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        // The book's moves in UCI, cut to `plies=`.
        let book_uci = |i: usize| books[i].1.split(' ').take(cut[i]).collect::<Vec<_>>();

        // The engines: every position of a game starts as fastchess's.
        for name in ["a", "b"] {
            let log = std::fs::read_to_string(dir.path().join(format!("{name}.log"))).unwrap();
            let positions: Vec<&str> = log.lines().filter(|l| l.starts_with("position")).collect();
            for (i, (start, _)) in books.iter().enumerate() {
                let head = if start.is_empty() {
                    format!("position startpos moves {}", book_uci(i).join(" "))
                } else {
                    format!("position fen {start} moves {}", book_uci(i).join(" "))
                };
                let n = positions.iter().filter(|p| p.starts_with(&head)).count();
                assert!(n >= 2, "{name}, opening {i}, {plies:?}: {head:?} in {positions:#?}");
            }
            assert!(
                positions.iter().all(|p| p.starts_with("position startpos moves ") || p.contains(fen)),
                "{positions:#?}"
            );
        }

        // The PGN, as python-chess reads it.
        if !epd_testkit::python_chess() {
            continue;
        }
        let read = Command::new("python3").args(["-c", READ_GAMES]).arg(dir.path().join("g.pgn")).output().unwrap();
        assert!(read.status.success(), "{}", String::from_utf8_lossy(&read.stderr));
        let text = String::from_utf8(read.stdout).unwrap();
        let games: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(games.len(), 4, "{text}");
        for g in &games {
            let i = usize::from(g[0] != "-");
            let (fen_tag, setup, eco, plycount, termination) = (g[0], g[1], g[2], g[3], g[4]);
            let moves = &g[6..];
            assert_eq!(g[5].parse::<usize>().unwrap(), moves.len());
            assert_eq!(plycount, g[5], "PlyCount counts the book's moves: {g:?}");
            // Named from the game's own moves (the table's, as fastchess
            // names them; fastchess_diff.rs holds the names equal), not
            // copied from the book game's tags.
            assert!(
                eco.len() == 3
                    && matches!(eco.as_bytes()[0], b'A'..=b'E')
                    && eco[1..].bytes().all(|b| b.is_ascii_digit()),
                "an ECO code: {g:?}"
            );
            assert_ne!(eco, "E99", "the book game's tag is not carried: {g:?}");
            if i == 0 {
                assert_eq!(setup, "-", "the standard start: no SetUp: {g:?}");
            } else {
                assert_eq!((fen_tag, setup), (fen, "1"), "{g:?}");
            }
            let book: Vec<String> = book_uci(i).iter().map(|u| format!("{u}:book")).collect();
            assert_eq!(moves[..book.len()], book, "{g:?}");
            let played = &moves[book.len()..];
            assert!(played.iter().all(|m| m.ends_with(":-")), "{g:?}");
            if termination == "adjudication" {
                assert_eq!(played.len(), 6, "-maxmoves 3: six of the engines' plies: {g:?}");
            }
        }
        let pgn = std::fs::read_to_string(dir.path().join("g.pgn")).unwrap();
        assert!(pgn.contains("2... e6 {book} 3. Nc3 {book}"), "the book game's move numbers: {pgn}");
    }
}

/// `epd match` of the built-in engine at depths 2 and 1 in `dir`, with
/// `more` options; its exit status, standard output and error.
fn builtin_match(dir: &std::path::Path, more: &[&str]) -> (Option<i32>, String, String) {
    let engine = format!("cmd={EPD}");
    let out = Command::new(EPD)
        .current_dir(dir)
        .args(["match", "-engine", &engine, "args=uci", "name=d2", "depth=2"])
        .args(["-engine", &engine, "args=uci", "name=d1", "depth=1", "-maxmoves", "30"])
        .args(more)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into())
}

/// `-report penta=false` reports over games, as fastchess's trinomial
/// output: no `Ptnml(0-2)` line, the draw ratio of games, a block after
/// any game at the rating interval (no pair need be complete); and
/// `-scoreinterval N` prints the `Score of` line every N games, after
/// the game's `Finished` line, as fastchess's cutechess output does.
#[test]
fn report_penta_false_and_scoreinterval_print_as_fastchess() {
    let dir = tempfile::tempdir().unwrap();
    let games = ["-rounds", "2", "-repeat", "-concurrency", "2"];
    let (code, stdout, stderr) = builtin_match(
        dir.path(),
        &[&games[..], &["-report", "penta=false", "-scoreinterval", "1", "-ratinginterval", "3"]].concat(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stdout.contains("Ptnml") && !stderr.contains("Ptnml"), "{stdout}{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    let mut scores = 0;
    for (i, l) in lines.iter().enumerate() {
        if let Some(rest) = l.strip_prefix("Score of d2 vs d1: ") {
            scores += 1;
            assert!(lines[i - 1].starts_with("Finished game "), "after the game's line: {stderr}");
            assert!(rest.ends_with(&format!("] {scores}")), "game {scores}: {l}");
            // The block at game 3 of 4 (over games: no pair needed); the
            // last is in the report.
            let block = lines.get(i + 1).is_some_and(|n| n.starts_with("Elo difference: "));
            assert_eq!(block, scores == 3, "{stderr}");
        }
    }
    assert_eq!(scores, 4, "{stderr}");
    // The draw ratio of games: a multiple of 25 % over four games.
    let last = stdout.lines().find(|l| l.starts_with("Elo difference: ")).unwrap();
    let ratio = last.split("DrawRatio: ").nth(1).unwrap().trim_end_matches(" %").parse::<f64>().unwrap();
    assert!([0.0, 25.0, 50.0, 75.0, 100.0].contains(&ratio), "{last}");

    // By default: over pairs, the Ptnml line, no Score line alone.
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = builtin_match(dir.path(), &[&games[..], &["-ratinginterval", "3"]].concat());
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("Ptnml(0-2): ["), "{stdout}");
    assert_eq!(stderr.matches("Score of d2 vs d1").count(), 1, "the block at game 4 only (3 is no pair): {stderr}");
}

/// The CPUs an engine of `dir` ran on, one a file each (written by the
/// engine wrapper of [`pinned_engine`]), sorted.
#[cfg(target_os = "linux")]
fn cpus_seen(dir: &std::path::Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("cpus."))
        .map(|e| std::fs::read_to_string(e.path()).unwrap().trim().to_owned())
        .collect();
    out.sort();
    out
}

/// A wrapper that writes its Cpus_allowed_list to `cpus.PID` in `dir`,
/// then becomes the built-in engine.
#[cfg(target_os = "linux")]
fn pinned_engine(dir: &std::path::Path) -> String {
    let path = dir.join("engine.sh");
    let script = format!(
        "#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status | cut -f2 > '{}/cpus.'$$\nexec '{EPD}' uci\n",
        dir.display()
    );
    std::fs::write(&path, script).unwrap();
    assert!(Command::new("chmod").arg("+x").arg(&path).status().unwrap().success());
    path.display().to_string()
}

/// `-use-affinity` pins each engine before it runs: instance k of each
/// engine on the k-th CPU the match may use (a CPU per game at once, as
/// fastchess gives each of its game threads a CPU), or of the list
/// given; a list shorter than the games at once is refused.
#[cfg(target_os = "linux")]
#[test]
fn use_affinity_pins_each_engine_to_a_cpu_per_game() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let allowed = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).unwrap().trim().to_owned();
    let run = |more: &[&str]| {
        let dir = tempfile::tempdir().unwrap();
        let engine = format!("cmd={}", pinned_engine(dir.path()));
        let out = Command::new(EPD)
            .current_dir(dir.path())
            .args(["match", "-engine", &engine, "name=a", "-engine", &engine, "name=b", "-each", "depth=1"])
            .args(["-rounds", "1", "-maxmoves", "5"])
            .args(more)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code(), cpus_seen(dir.path()), err)
    };
    let (code, seen, err) = run(&[]);
    assert_eq!((code, seen), (Some(0), vec![allowed.clone(), allowed.clone()]), "not pinned: {err}");
    let (code, seen, err) = run(&["-use-affinity", "0"]);
    assert_eq!((code, seen), (Some(0), vec!["0".to_owned(), "0".to_owned()]), "{err}");
    let first_two: Vec<String> =
        epd_referee::matches::cpu_list(&allowed).unwrap().iter().take(2).map(ToString::to_string).collect();
    if first_two.len() == 2 {
        let (code, seen, err) = run(&["-use-affinity", "-concurrency", "2"]);
        let mut want = [first_two.clone(), first_two].concat();
        want.sort();
        assert_eq!((code, seen), (Some(0), want), "instance k of each engine on the k-th CPU: {err}");
    }
    let (code, seen, err) = run(&["-use-affinity", "0", "-concurrency", "2"]);
    assert_eq!((code, seen.len()), (Some(2), 0), "{err}");
    assert!(err.contains("affinity lists 1 CPUs for 2 games at once"), "{err}");
}

/// `-log engine=true` writes every line to and from the engines (`name
/// <--- line`, `name ---> line`, as fastchess marks them), their
/// handshakes included, and
/// `-show-latency` each move's latency, fastchess's line: `Engine NAME
/// latency: Lms (elapsed: E, reported: R)` with L = E - R.
#[test]
fn the_log_keeps_the_engines_lines_and_their_latency() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = builtin_match(
        dir.path(),
        &["-rounds", "1", "-log", "file=m.log", "engine=true", "level=info", "-show-latency"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let log = std::fs::read_to_string(dir.path().join("m.log")).unwrap();
    for want in ["d2 <--- ucinewgame", "d2 ---> readyok", "d1 <--- go depth 1", "d2 <--- position startpos"] {
        assert!(log.contains(want), "{want}: {log}");
    }
    // The handshake too, before the first game, as fastchess logs it.
    let at = |end: &str| log.lines().position(|l| l.ends_with(end)).unwrap_or_else(|| panic!("{end}: {log}"));
    for who in ["d1", "d2"] {
        let (uci, id, ok) = (at(&format!("{who} <--- uci")), at(&format!("{who} ---> uciok")), at("<--- ucinewgame"));
        assert!(log.lines().any(|l| l.contains(&format!("{who} ---> id name "))), "{log}");
        assert!(uci < id && id < ok, "uci, uciok, then the first game: {log}");
    }
    let bestmoves = log.lines().filter(|l| l.contains(" ---> bestmove ")).count();
    let latencies: Vec<&str> = log.lines().filter_map(|l| l.split_once("Z Engine ").map(|x| x.1)).collect();
    assert!(bestmoves > 0 && latencies.len() == bestmoves, "a latency line per move: {log}");
    for l in latencies {
        let n = |key: &str| -> i64 {
            let rest = &l[l.find(key).unwrap() + key.len()..];
            rest[..rest.find(|c: char| !(c.is_ascii_digit() || c == '-')).unwrap()].parse().unwrap()
        };
        assert_eq!(n("latency: "), n("elapsed: ") - n("reported: "), "{l}");
    }
    // Without engine=true and -show-latency: neither.
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = builtin_match(dir.path(), &["-rounds", "1", "-log", "file=m.log"]);
    assert_eq!(code, Some(0), "{stderr}");
    let log = std::fs::read_to_string(dir.path().join("m.log")).unwrap();
    assert!(!log.contains(" <--- ") && !log.contains(" latency: "), "{log}");
}
