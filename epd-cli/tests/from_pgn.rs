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
