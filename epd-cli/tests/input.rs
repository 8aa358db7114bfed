//! Input people have, and errors in one voice: every reading verb reads
//! gzip, zstd, xz and bzip2 transparently (recognised by their magic
//! bytes, whatever the file is called) with the same output as the plain
//! file; `-o FILE.gz` writes gzip that the system's gzip reads back; a
//! missing file, a directory and a corrupt stream are each one line in
//! one wording; `convert --to epd` takes FEN counters without warning.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const EPD: &str = env!("CARGO_BIN_EXE_epd");

fn epd(args: &[&str], dir: &Path) -> Output {
    Command::new(EPD).args(args).current_dir(dir).stdin(Stdio::null()).output().expect("run epd")
}

/// `data` in each format, with a name that does not give it away.
fn compressed(data: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(data).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(data).unwrap();
    let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 6);
    xz.write_all(data).unwrap();
    vec![
        ("gzip", gz.finish().unwrap()),
        ("zstd", zstd::encode_all(data, 3).unwrap()),
        ("xz", xz.finish().unwrap()),
        ("bzip2", bz.finish().unwrap()),
    ]
}

/// stderr with the file's name made neutral.
fn neutral(err: &[u8], name: &str) -> String {
    String::from_utf8_lossy(err).replace(name, "FILE")
}

#[test]
fn every_reading_verb_reads_every_compression() {
    let dir = tempfile::tempdir().unwrap();
    // A suite with a deviation or two, so diagnostics are compared too.
    let mut suite = std::fs::read(epd_testkit::corpus_path("bratko-kopec.epd")).unwrap();
    suite.extend_from_slice(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 id WAC.x;\n");
    let perft = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400 ;D3 8902\n\
                  r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 ;D1 48 ;D2 2039\n";
    std::fs::write(dir.path().join("plain.epd"), &suite).unwrap();
    std::fs::write(dir.path().join("plain-perft.epd"), perft).unwrap();
    let verbs: Vec<Vec<&str>> = vec![
        vec!["check", "--lenient"],
        vec!["normalize", "--lenient"],
        vec!["repair"],
        vec!["purge", "c0"],
        vec!["select", "--has", "bm"],
        vec!["convert", "--to", "fen"],
        vec!["show"],
        vec!["analyze", "--depth", "2"],
        vec!["target", "--depth", "2"],
        vec!["mate", "-n", "1"],
        vec!["report"],
    ];
    let mut runs = 0;
    for (format, bytes) in compressed(&suite) {
        let name = format!("suite-{format}.data");
        std::fs::write(dir.path().join(&name), &bytes).unwrap();
        for verb in &verbs {
            let mut plain_args = verb.clone();
            plain_args.push("plain.epd");
            let mut packed_args = verb.clone();
            packed_args.push(&name);
            let (plain, packed) = (epd(&plain_args, dir.path()), epd(&packed_args, dir.path()));
            assert_eq!(
                packed.status.code(),
                plain.status.code(),
                "{verb:?} on {format}: {}",
                neutral(&packed.stderr, &name)
            );
            let strip_times = |s: String| -> String {
                // The engine verbs print their speed: not compared.
                s.lines().filter(|l| !l.contains("nodes/s") && !l.contains(" s, ")).collect::<Vec<_>>().join("\n")
            };
            let out = |o: &Output, n: &str| strip_times(String::from_utf8_lossy(&o.stdout).replace(n, "FILE"));
            assert_eq!(out(&packed, &name), out(&plain, "plain.epd"), "{verb:?} on {format}: stdout");
            assert_eq!(
                strip_times(neutral(&packed.stderr, &name)),
                strip_times(neutral(&plain.stderr, "plain.epd")),
                "{verb:?} on {format}: stderr"
            );
            runs += 1;
        }
        let pname = format!("perft-{format}.data");
        let (_, pbytes) = compressed(perft).into_iter().find(|(f, _)| *f == format).unwrap();
        std::fs::write(dir.path().join(&pname), pbytes).unwrap();
        let o = epd(&["perft", "--verify", &pname], dir.path());
        assert!(o.status.success(), "perft on {format}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(String::from_utf8_lossy(&o.stdout).contains("2 records, 5 depths checked, 0 mismatches"));
        runs += 1;
    }
    assert_eq!(runs, 4 * (verbs.len() + 1));
}

#[test]
fn standard_input_may_be_compressed_too() {
    let data = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - id \"start\";\n";
    for (format, bytes) in compressed(data) {
        let mut child = Command::new(EPD)
            .args(["normalize", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&bytes).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{format}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.stdout, data, "{format}");
    }
}

#[test]
fn output_to_a_gz_name_is_gzip_that_gzip_reads() {
    let dir = tempfile::tempdir().unwrap();
    let wac = epd_testkit::corpus_path("wacnew.epd");
    let wac = wac.to_str().unwrap();
    let plain = epd(&["normalize", wac], dir.path());
    assert!(plain.status.success());
    let o = epd(&["normalize", wac, "-o", "out.epd.gz"], dir.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let packed = std::fs::read(dir.path().join("out.epd.gz")).unwrap();
    assert_eq!(&packed[..2], &[0x1f, 0x8b], "not gzip");
    assert!(packed.len() * 2 < plain.stdout.len(), "{} bytes for {}", packed.len(), plain.stdout.len());
    // The system's gzip, an independent reader.
    let unzipped = Command::new("gzip").args(["-dc", "out.epd.gz"]).current_dir(dir.path()).output().unwrap();
    assert!(unzipped.status.success());
    assert_eq!(unzipped.stdout, plain.stdout);
    // And the kit reads its own output back.
    let again = epd(&["normalize", "out.epd.gz"], dir.path());
    assert_eq!(again.stdout, plain.stdout);
    // Rewriting a compressed file in place would lose its compression.
    let o = epd(&["normalize", "--in-place", "out.epd.gz"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--in-place would write out.epd.gz uncompressed (gzip input)"));
    assert_eq!(std::fs::read(dir.path().join("out.epd.gz")).unwrap(), packed, "the file was touched");
}

#[test]
fn a_corrupt_stream_is_one_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let data = std::fs::read(epd_testkit::corpus_path("wacnew.epd")).unwrap();
    for (format, bytes) in compressed(&data) {
        let name = format!("cut.{format}");
        std::fs::write(dir.path().join(&name), &bytes[..bytes.len() / 2]).unwrap();
        let o = epd(&["check", &name], dir.path());
        assert_eq!(o.status.code(), Some(2), "{format}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("epd: error: cannot read {name}: not valid {format} data")), "{format}: {err}");
    }
}

#[test]
fn file_errors_are_worded_one_way_by_every_verb() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("adir")).unwrap();
    let verbs: Vec<Vec<&str>> = vec![
        vec!["check"],
        vec!["normalize"],
        vec!["repair"],
        vec!["purge", "c0"],
        vec!["select", "--has", "bm"],
        vec!["convert", "--to", "fen"],
        vec!["show"],
        vec!["analyze", "--depth", "1"],
        vec!["target", "--depth", "1"],
        vec!["mate", "-n", "1"],
        vec!["perft", "--verify"],
        vec!["report"],
        vec!["from-pgn"],
    ];
    for verb in &verbs {
        for (arg, reason) in [
            ("nosuch.epd", "No such file or directory"),
            ("./games/nosuch.pgn", "No such file or directory"),
            ("adir", "Is a directory"),
        ] {
            let mut args = verb.clone();
            args.push(arg);
            let o = epd(&args, dir.path());
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(err, format!("epd: error: cannot open {arg}: {reason}\n"), "{args:?}");
        }
    }
    // An argument that is neither a file nor a path keeps the FEN's detail.
    let o = epd(&["show", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq -"], dir.path());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no such file, and not a position"), "{o:?}");
}

#[test]
fn convert_takes_fen_counters_without_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("in.fen"),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1\n8/8/8/8/8/8/8/K6k w - - 12 60\n",
    )
    .unwrap();
    let o = epd(&["convert", "--to", "epd", "in.fen"], dir.path());
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 fmvn 1; hmvc 0;\n8/8/8/8/8/8/8/K6k w - - fmvn 60; hmvc 12;\n"
    );
    assert!(!String::from_utf8_lossy(&o.stderr).contains("E027"), "{}", String::from_utf8_lossy(&o.stderr));
    // Reading the same line as EPD still says what is wrong with it.
    let o = epd(&["check", "--lenient", "in.fen"], dir.path());
    assert!(String::from_utf8_lossy(&o.stderr).contains("warning[E027]: FEN move counters"));
}

#[test]
fn from_pgn_reads_compressed_games_and_refuses_binary_data() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = b"[Event \"x\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    std::fs::write(dir.path().join("plain.pgn"), pgn).unwrap();
    let plain = epd(&["from-pgn", "--id", "plain.pgn"], dir.path());
    assert!(plain.status.success());
    assert_eq!(String::from_utf8_lossy(&plain.stdout).lines().count(), 8);
    for (format, bytes) in compressed(pgn) {
        let name = format!("games-{format}.pgn");
        std::fs::write(dir.path().join(&name), bytes).unwrap();
        let o = epd(&["from-pgn", "--id", &name], dir.path());
        assert!(o.status.success(), "{format}: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.stdout, plain.stdout, "{format}");
    }
    // Binary junk: one error, no invented start-position game.
    let junk: Vec<u8> = (0..4000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
    std::fs::write(dir.path().join("junk.pgn"), junk).unwrap();
    let o = epd(&["from-pgn", "junk.pgn"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stdout));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("junk.pgn: error: this looks like binary data, not PGN ("), "{err}");
    // -o FILE.gz writes gzip here too.
    let o = epd(&["from-pgn", "--id", "plain.pgn", "-o", "out.epd.gz"], dir.path());
    assert!(o.status.success());
    let unzipped = Command::new("gzip").args(["-dc", "out.epd.gz"]).current_dir(dir.path()).output().unwrap();
    assert_eq!(unzipped.stdout, plain.stdout);
}

/// A file whose name is not UTF-8 is read like any other (the names were
/// `String`s, so clap refused such a name before any file was opened):
/// its diagnostics and summary name it with the bytes that are not UTF-8
/// replaced, `-o` writes to such a name, and `--in-place` rewrites it.
#[cfg(unix)]
#[test]
fn files_whose_names_are_not_utf8_are_read_and_named() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let name = OsStr::from_bytes(b"bad\xff.epd");
    let good = "4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id \"good\";\n";
    std::fs::write(dir.path().join(name), format!("{good}4k3/8/8/8/8/8/8/4K2R w K - bm Qh8; id \"bad\";\n")).unwrap();
    let run = |args: &[&OsStr]| {
        Command::new(EPD).args(args).current_dir(dir.path()).stdin(Stdio::null()).output().expect("run epd")
    };
    let out = run(&[OsStr::new("check"), name]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("bad\u{fffd}.epd:2:31: error[E020]: bm operand 1 (Qh8)"), "{err}");
    assert!(err.contains("bad\u{fffd}.epd: 2 records, 1 invalid, 1 errors"), "{err}");
    // JSON names it the same way.
    let out = run(&[OsStr::new("check"), OsStr::new("--format"), OsStr::new("json"), name]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"file\":\"bad\u{fffd}.epd\""));
    // Written to a name that is not UTF-8 either, and rewritten in place.
    let written = OsStr::from_bytes(b"out\xfe.epd");
    let out = run(&[OsStr::new("normalize"), OsStr::new("--drop-invalid"), name, OsStr::new("-o"), written]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(dir.path().join(written)).unwrap(), good);
    let out = run(&[OsStr::new("normalize"), OsStr::new("--drop-invalid"), OsStr::new("--in-place"), name]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(dir.path().join(name)).unwrap(), good);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no temporary file is left");
}
