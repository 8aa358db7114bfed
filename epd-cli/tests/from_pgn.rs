//! `epd from-pgn` against pgn-extract (`-Wepd`) on real PGN: the four
//! position fields agree at every ply. Runs when pgn-extract is installed
//! (`.ci/run` installs it); `EPDKIT_REQUIRE_PGN_EXTRACT=1` makes its
//! absence a failure, as CI sets it.

use std::path::PathBuf;
use std::process::Command;

fn pgn_extract() -> Option<PathBuf> {
    for p in ["/usr/games/pgn-extract", "/usr/bin/pgn-extract", "/usr/local/bin/pgn-extract"] {
        if std::path::Path::new(p).is_file() {
            return Some(p.into());
        }
    }
    None
}

fn corpus(name: &str) -> PathBuf {
    epd_testkit::corpus_path(name)
}

fn four_fields(text: &str) -> Vec<String> {
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| l.split(' ').take(4).collect::<Vec<_>>().join(" ")).collect()
}

#[test]
fn agrees_with_pgn_extract_at_every_ply() {
    let Some(pe) = pgn_extract() else {
        assert!(std::env::var_os("EPDKIT_REQUIRE_PGN_EXTRACT").is_none(), "pgn-extract is required but missing");
        eprintln!("pgn-extract not installed: comparison skipped");
        return;
    };
    for name in ["twic1599_1000k.pgn", "lichess_db_1000k.pgn"] {
        let path = corpus(name);
        let ours = Command::new(env!("CARGO_BIN_EXE_epd")).arg("from-pgn").arg(&path).output().unwrap();
        assert_eq!(ours.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&ours.stderr));
        let theirs = Command::new(&pe).args(["-s", "-Wepd"]).arg(&path).output().unwrap();
        let (a, b) = (
            four_fields(&String::from_utf8_lossy(&ours.stdout)),
            four_fields(&String::from_utf8_lossy(&theirs.stdout)),
        );
        assert!(a.len() > 20_000, "{name}: {}", a.len());
        assert_eq!(a.len(), b.len(), "{name}: record counts differ");
        if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
            panic!("{name}: record {} differs:\n ours   {}\n theirs {}", i + 1, a[i], b[i]);
        }
    }
}

#[test]
fn every_game_of_the_corpora_converts() {
    for (name, games) in [("twic1599_1000k.pgn", 1110), ("lichess_db_1000k.pgn", 438)] {
        let out =
            Command::new(env!("CARGO_BIN_EXE_epd")).arg("from-pgn").arg("--id").arg(corpus(name)).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        let starts = text.lines().filter(|l| l.contains(", ply 0\";")).count();
        assert_eq!(starts, games, "{name}");
    }
}

fn from_pgn(args: &[&str], stdin: &[u8]) -> (Option<i32>, String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_epd"))
        .arg("from-pgn")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Written from another thread (the output may fill its pipe first);
    // a usage error exits before reading, so the pipe may be closed.
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// `--unique` on a real opening book: the first occurrence of each
/// position, in order, exactly what pgn-extract's positions give once the
/// test drops repeats itself (8moves_v3.pgn: 589,900 positions, 166,178
/// distinct).
#[test]
fn unique_keeps_first_occurrences_as_pgn_extract_counts_them() {
    let path = corpus("8moves_v3.pgn");
    let ours = Command::new(env!("CARGO_BIN_EXE_epd")).args(["from-pgn", "--unique"]).arg(&path).output().unwrap();
    assert_eq!(ours.status.code(), Some(0), "{}", String::from_utf8_lossy(&ours.stderr));
    let ours = four_fields(&String::from_utf8_lossy(&ours.stdout));
    assert!(String::from_utf8_lossy(
        &Command::new(env!("CARGO_BIN_EXE_epd")).args(["from-pgn", "--unique"]).arg(&path).output().unwrap().stderr
    )
    .contains("34700 games, 166178 records written; 423722 repeated positions left out"));
    let Some(pe) = pgn_extract() else {
        assert!(std::env::var_os("EPDKIT_REQUIRE_PGN_EXTRACT").is_none(), "pgn-extract is required but missing");
        assert_eq!(ours.len(), 166_178);
        return;
    };
    let theirs = Command::new(&pe).args(["-s", "-Wepd"]).arg(&path).output().unwrap();
    let all = four_fields(&String::from_utf8_lossy(&theirs.stdout));
    assert_eq!(all.len(), 589_900);
    let mut seen = std::collections::HashSet::new();
    let firsts: Vec<&String> = all.iter().filter(|p| seen.insert(p.as_str())).collect();
    assert_eq!(firsts.len(), 166_178);
    assert_eq!(ours.len(), firsts.len());
    assert!(ours.iter().zip(&firsts).all(|(a, b)| a == *b), "the same positions in the same order");
}

const GAME: &str = "[Event \"t\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n[Event \"u\"]\n\n1. d4 *\n";

#[test]
fn plies_and_final_choose_positions() {
    // Worked out by hand from the two games.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    let e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3";
    let e5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6";
    let nc6 = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -";
    let d4 = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq d3";
    for (args, want) in [
        (&["--plies", "1..2"][..], vec![e4, e5, d4]),
        (&["--plies", "3.."], vec!["rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -", nc6]),
        (&["--plies", "..0"], vec![start, start]),
        (&["--plies", "0", "--unique"], vec![start]),
        (&["--final"], vec![nc6, d4]),
    ] {
        let (code, out, err) = from_pgn(args, GAME.as_bytes());
        assert_eq!(code, Some(0), "{args:?}: {err}");
        let got: Vec<String> = four_fields(&out);
        assert_eq!(got, want.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{args:?}");
    }
    for bad in ["5..2", "x", "1..y", "-1"] {
        let (code, _, err) = from_pgn(&["--plies", bad], GAME.as_bytes());
        assert_eq!(code, Some(2), "{bad}: {err}");
    }
    assert_eq!(from_pgn(&["--final", "--plies", "1"], GAME.as_bytes()).0, Some(2), "--final with --plies");
}

/// Warnings point at the PGN's own line and column (they pointed at the
/// game's first line, column 1, with the real place inside the text).
#[test]
fn warnings_point_at_the_pgn_line_and_column() {
    let pgn = "[Event \"t\"]\n[Site \"x]\n\n1. e4 e5\n2. Nf3 ) Nc6 { open comment\n";
    let (code, _, err) = from_pgn(&[], pgn.as_bytes());
    assert_eq!(code, Some(0), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines.contains(&"<stdin>:2:1: warning[P011]: tag Site is not closed with ']'"), "{err}");
    assert!(lines.contains(&"<stdin>:5:8: warning[P011]: ')' without '('"), "{err}");
    assert!(lines.contains(&"<stdin>:5:14: warning[P011]: a comment opened here is not closed"), "{err}");
    assert!(
        lines.contains(&"<stdin>:5:10: warning[P011]: no game termination marker after this game's last move"),
        "{err}"
    );
}

/// Issue 32, item 6: `epd from-pgn` named Black's fifth move `move 10
/// (Qxx4)` and put a bad FEN tag on line 2 at 1:1. Moves are named as PGN
/// numbers them (from a FEN tag's fullmove number and side to move), tag
/// problems are at the tag's line and the column of its value.
#[test]
fn diagnostics_name_moves_and_tags_in_pgn_terms() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "illegal White move",
            "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Qd5 *\n",
            &["3:24: error[P010]: 3. Qd5: illegal san: no queen can reach d5"],
        ),
        (
            "illegal Black move",
            "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6\n5. O-O Qxx4 6. Re1 *\n",
            &["4:8: error[P010]: 5... Qxx4: invalid san at column 3: expected a target square such as e4"],
        ),
        (
            "FEN tag, Black to move at fullmove 20",
            "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 0 20\"]\n\n20... Kd7 21. O-O Kd1 *\n",
            &["5:19: error[P010]: 21... Kd1: illegal san: no king can reach d1"],
        ),
        (
            "FEN tag, Black's first move",
            "[FEN \"4k3/8/8/8/8/8/8/4K2R b K - 0 20\"]\n\n20... Ke9 *\n",
            &["3:7: error[P010]: 20... Ke9: invalid san at column 3: expected a target square such as e4"],
        ),
        (
            "bad FEN tag on line 2",
            "[Event \"x\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1\"]\n\n1. e4 *\n",
            &["2:7: error[P010]: FEN tag: invalid castling availability at column 50 of the FEN: expected castling \
               letters K, Q, k, q or a file letter A-H, a-h"],
        ),
        (
            "FEN tag spread oddly, good",
            "[Event \"x\"]\n  [  FEN    \"  4k3/8/8/8/8/8/8/4K2R   b K - 0 20 \" ]\n\n20... Kd1 *\n",
            &["4:7: error[P010]: 20... Kd1: illegal san: no king can reach d1"],
        ),
        (
            "FEN tag spread oddly, bad",
            "[Event \"x\"]\n  [  FEN    \"  4k3/8/8/8/8/8/8/4K2R   x K - 0 20 \" ]\n\n20... Kd1 *\n",
            &["2:14: error[P010]: FEN tag: invalid active colour at column 26 of the FEN: expected 'w' or 'b'"],
        ),
        (
            "SetUp without FEN",
            "[Event \"x\"]\n[SetUp \"1\"]\n\n1. e4 *\n",
            &["2:9: warning[P011]: tag SetUp is \"1\" but the game has no FEN tag: it starts from the standard position"],
        ),
    ];
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (what, pgn, want) in cases {
        let path = dir.join(format!("issue32-{}.pgn", what.replace(' ', "-").replace(',', "")));
        std::fs::write(&path, pgn).unwrap();
        let file = path.to_str().unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_epd")).arg("from-pgn").arg(file).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let errors = want.iter().any(|w| w.contains("error["));
        assert_eq!(out.status.code(), Some(i32::from(errors)), "{what}: {err}");
        let got: Vec<&str> = err.lines().filter(|l| l.contains("[P01")).collect();
        let want: Vec<String> = want.iter().map(|w| format!("{file}:{w}")).collect();
        assert_eq!(got, want, "{what}");
        // The same through standard input.
        let (_, _, err) = from_pgn(&[], pgn.as_bytes());
        let got: Vec<&str> = err.lines().filter(|l| l.contains("[P01")).collect();
        assert_eq!(got, want.iter().map(|w| w.replacen(file, "<stdin>", 1)).collect::<Vec<_>>(), "{what}");
    }
}

/// `epd from-pgn big.pgn | head -1` said "cannot read big.pgn: Broken
/// pipe" and exited 2: the converter's write error was taken for a read
/// error. A closed output pipe now ends the run quietly, as in the other
/// verbs.
#[test]
fn a_closed_output_pipe_is_no_read_error() {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_epd"))
        .arg("from-pgn")
        .arg(corpus("twic1599_1000k.pgn"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"), "{first}");
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
}
