//! The match statistics against fastchess's own: its `EloPentanomial`
//! and `SPRT` classes, compiled from the fastchess tarball in
//! `shared/peers` with a small harness (tests/fastchess/stats_harness.cpp,
//! built once and cached under target/), give Elo, nElo, LOS, the draw
//! ratio and three LLRs for pentanomial vectors from the extremes (all
//! wins, all losses, all draws, one pair of each kind) to long matches.
//! Every figure of ours must equal fastchess's where fastchess's is
//! finite, and be its limit where fastchess prints `inf` or `nan`.
//!
//! Without g++ the test is skipped with a message, unless
//! `EPDKIT_REQUIRE_FASTCHESS=1` (set by .ci/run), when it fails.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use epd_referee::sprt::{estimate, estimate_games, results_block, Counts, Games, Model, Penta, Sprt};
use epd_testkit::{fastchess_dir, fastchess_tree, XorShift};

/// The three tests the harness runs, in its order.
fn tests() -> [Sprt; 3] {
    [
        Sprt::new(0.0, 5.0, 0.05, 0.05, Model::Normalized).unwrap(),
        Sprt::new(0.0, 5.0, 0.05, 0.05, Model::Logistic).unwrap(),
        Sprt::new(-3.0, 1.0, 0.05, 0.1, Model::Normalized).unwrap(),
    ]
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(out.status.success(), "{what} failed:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// The harness, built once per run of the tests (they share it).
fn harness() -> Option<PathBuf> {
    static BUILT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    BUILT.get_or_init(build_harness).clone()
}

/// The harness, built from the tarball into target/fastchess-74deac2/
/// unless it is there and newer than its source; `None` without g++.
fn build_harness() -> Option<PathBuf> {
    if !epd_testkit::fastchess_tools(&["g++"], "fastchess's statistics") {
        return None;
    }
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fastchess/stats_harness.cpp");
    let bin = fastchess_dir().join("stats-harness");
    let fresh = |b: &Path| -> bool {
        let (Ok(b), Ok(s)) = (std::fs::metadata(b), std::fs::metadata(&source)) else { return false };
        b.modified().ok() >= s.modified().ok()
    };
    if fresh(&bin) {
        return Some(bin);
    }
    // Built under the tree's lock (tests/fastchess_diff.rs of epd-cli
    // builds fastchess in the same tree), unless built while we waited.
    let tree = fastchess_tree();
    if fresh(&bin) {
        return Some(bin);
    }
    let (dir, app) = (&tree.dir, tree.tree.join("app"));
    let built = dir.join(format!("stats-harness.{}", std::process::id()));
    let mut gpp = Command::new("g++");
    gpp.current_dir(&app).args([
        "-std=c++17",
        "-O1",
        "-I",
        "src",
        "-I",
        "third_party",
        "-I",
        "third_party/fmt/include",
    ]);
    gpp.arg(&source);
    for f in [
        "src/matchmaking/elo/elo_pentanomial.cpp",
        "src/matchmaking/elo/elo_wdl.cpp",
        "src/matchmaking/sprt/sprt.cpp",
        "src/core/logger/logger.cpp",
        "src/core/time/time.cpp",
    ] {
        gpp.arg(f);
    }
    gpp.arg("-lpthread").arg("-o").arg(&built);
    run(&mut gpp, "g++ (the fastchess statistics harness)");
    std::fs::rename(&built, &bin).unwrap();
    Some(bin)
}

/// Pentanomial vectors: the extremes, then matches short and long.
fn vectors() -> Vec<[u64; 5]> {
    let mut v = vec![
        // All wins, all losses, all draws, at 1, 2 and 75 pairs.
        [0, 0, 0, 0, 1],
        [1, 0, 0, 0, 0],
        [0, 0, 1, 0, 0],
        [0, 0, 0, 0, 2],
        [2, 0, 0, 0, 0],
        [0, 0, 2, 0, 0],
        [0, 0, 0, 0, 75],
        [75, 0, 0, 0, 0],
        [0, 0, 75, 0, 0],
        // One pair of each other kind, and alike pairs that are not
        // all wins or losses (no variance, a score away from ½).
        [0, 1, 0, 0, 0],
        [0, 0, 0, 1, 0],
        [0, 3, 0, 0, 0],
        [0, 0, 0, 12, 0],
        // Two pairs, and near-extremes whose interval leaves (0, 1).
        [1, 0, 0, 0, 1],
        [0, 1, 0, 1, 0],
        [0, 0, 1, 0, 1],
        [0, 0, 1, 0, 9],
        [9, 0, 1, 0, 0],
        [0, 0, 0, 1, 149],
        [1, 0, 0, 0, 149],
        [0, 0, 1, 0, 3],
        // Lopsided and even short matches.
        [0, 0, 3, 5, 2],
        [2, 5, 3, 0, 0],
        [1, 2, 4, 2, 1],
        [0, 2, 4, 4, 0],
        [3, 0, 0, 0, 3],
        [0, 5, 0, 5, 0],
        [1, 1, 1, 1, 1],
        // The shapes of real tests: fishtest-like long runs.
        [50, 1500, 4000, 1600, 55],
        [120, 2400, 5100, 2300, 110],
        [10, 300, 900, 320, 12],
        [900, 4000, 6000, 4500, 1100],
        [0, 0, 10_000, 0, 1],
        [1, 0, 10_000, 0, 0],
    ];
    let mut rng = XorShift::new(0xfa57);
    while v.len() < 60 {
        let scale = [3, 20, 200, 5000][rng.below(4)];
        v.push(core::array::from_fn(|_| rng.below(scale) as u64));
    }
    v
}

/// Runs the harness with `args` (none for pentanomial vectors, `wdl` for
/// win-draw-loss counts) on `vectors`, one a line, and gives its output:
/// one line of figures per vector, which is asserted.
fn run_harness<const N: usize>(bin: &Path, args: &[&str], vectors: &[[u64; N]]) -> String {
    let mut child =
        Command::new(bin).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("run the harness");
    {
        let mut stdin = child.stdin.take().unwrap();
        for c in vectors {
            let fields: Vec<String> = c.iter().map(u64::to_string).collect();
            writeln!(stdin, "{}", fields.join(" ")).unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), vectors.len(), "{text}");
    text
}

fn penta(counts: [u64; 5]) -> Penta {
    Penta { counts, wdl: [0; 3] }
}

fn same(ours: f64, theirs: f64, tolerance: f64) -> bool {
    ours == theirs || (ours - theirs).abs() <= tolerance * theirs.abs().max(1.0)
}

#[test]
fn statistics_equal_fastchess_or_its_limits() {
    let Some(bin) = harness() else { return };
    let vectors = vectors();
    assert!(vectors.len() >= 40);
    let text = run_harness(&bin, &[], &vectors);
    let lines: Vec<&str> = text.lines().collect();
    let mut failures = Vec::new();
    let (mut limits, mut finite) = (0, 0);
    for (c, line) in vectors.iter().zip(&lines) {
        let f: Vec<&str> = line.split('\t').collect();
        let num = |i: usize| -> f64 {
            match f[i] {
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                "nan" | "-nan" => f64::NAN,
                t => t.parse().unwrap(),
            }
        };
        let e = estimate(&penta(*c)).unwrap();
        let mut bad = |what: &str, ok: bool, detail: String| {
            if !ok {
                failures.push(format!("{c:?} {what}: {detail}"));
            }
        };
        // Elo and its +/-: fastchess's +/- is half the interval.
        let (elo, err) = (num(0), num(1));
        bad("Elo", same(e.elo.0, elo, 1e-9), format!("{} vs fastchess {elo}", e.elo.0));
        let half = (e.elo.2 - e.elo.1) / 2.0;
        if err.is_finite() {
            finite += 1;
            bad("Elo +/-", same(half, err, 1e-9), format!("{half} vs fastchess {err}"));
        } else {
            // Its nan or inf: an interval end of ours is infinite, or the
            // value itself is.
            limits += 1;
            let open = e.elo.0.is_infinite() || e.elo.1.is_infinite() || e.elo.2.is_infinite();
            bad("Elo +/- limit", open, format!("{:?} where fastchess has {err}", e.elo));
        }
        let (nelo, nerr) = (num(2), num(3));
        if nelo.is_nan() {
            // 0/0: every pair scored ½; the limit is 0.
            limits += 1;
            bad("nElo limit", e.nelo.0 == 0.0, format!("{:?}", e.nelo));
        } else {
            bad("nElo", same(e.nelo.0, nelo, 1e-9), format!("{} vs fastchess {nelo}", e.nelo.0));
        }
        let nhalf = (e.nelo.2 - e.nelo.1) / 2.0;
        if nerr.is_finite() {
            bad("nElo +/-", same(nhalf, nerr, 1e-9), format!("{nhalf} vs fastchess {nerr}"));
        } else {
            // inf − inf: its limit as σ → 0 is 1.96 · 800/ln 10 / √(2n),
            // finite, the same as for any σ.
            let n = c.iter().sum::<u64>() as f64;
            let want = 1.959_963_984_540_054 * 800.0 / 10f64.ln() / (2.0 * n).sqrt();
            bad("nElo +/- limit", nhalf.is_nan() || same(nhalf, want, 1e-9), format!("{nhalf} vs {want}"));
        }
        // LOS as fastchess prints it, two decimals of a percentage; its
        // nan (every pair ½) is 50 %.
        let los = f[4].trim_end_matches(" %");
        let ours = format!("{:.2}", e.los * 100.0);
        if los == "nan" || los == "-nan" {
            limits += 1;
            bad("LOS limit", ours == "50.00", ours);
        } else {
            bad("LOS", ours == los, format!("{ours} vs fastchess {los}"));
        }
        bad("DrawRatio", same(e.draw_ratio * 100.0, num(5), 1e-12), format!("{} vs {}", e.draw_ratio * 100.0, num(5)));
        // The LLR. The normalized model's iteration is fishtest's and
        // fastchess's (ten steps at most); the logistic model's θ
        // fastchess finds to within 1e-3 only, ours exactly, which moves
        // its LLR by up to 0.05 % (docs/argus.md lists it).
        for (k, s) in tests().iter().enumerate() {
            let (llr, theirs) = (s.llr(&penta(*c)), num(6 + k));
            let tolerance = if s.model == Model::Logistic { 1e-3 } else { 1e-5 };
            bad("LLR", same(llr, theirs, tolerance), format!("test {k}: {llr} vs fastchess {theirs}"));
        }
        let block = results_block("a", "b", Counts::Pairs(&penta(*c)), Some(&tests()[0]));
        let negative_zero = block
            .split(|ch: char| !(ch.is_ascii_digit() || ch == '.' || ch == '-'))
            .any(|t| t.starts_with('-') && t.parse::<f64>() == Ok(0.0));
        bad("block", !block.contains("NaN") && !negative_zero, block);
    }
    eprintln!("{} vectors, {finite} with finite intervals, {limits} limits of fastchess's inf or nan", vectors.len());
    assert!(limits >= 10, "the extremes are covered: {limits}");
    assert!(failures.is_empty(), "{} differences from fastchess:\n{}", failures.len(), failures.join("\n"));
}

/// Over games (`-report penta=false`): fastchess's `EloWDL` and its
/// trinomial LLR against ours, on win-draw-loss counts from the extremes
/// to long matches (finite figures compared; its `inf` and `nan` are
/// where ours are infinite, or 0 and 50 % for all draws).
#[test]
fn trinomial_statistics_equal_fastchess() {
    let Some(bin) = harness() else { return };
    let mut vectors: Vec<[u64; 3]> = vec![
        [0, 0, 1],
        [1, 0, 0],
        [0, 1, 0],
        [0, 0, 40],
        [0, 40, 0],
        [1, 0, 39],
        [0, 1, 1],
        [3, 4, 5],
        [10, 80, 12],
        [1200, 5000, 1300],
        [4000, 3000, 4100],
    ];
    let mut rng = XorShift::new(0x3d1);
    while vectors.len() < 40 {
        let scale = [3, 20, 200, 5000][rng.below(4)];
        vectors.push(core::array::from_fn(|_| rng.below(scale) as u64 + 1));
    }
    let text = run_harness(&bin, &["wdl"], &vectors);
    let lines: Vec<&str> = text.lines().collect();
    let mut failures = Vec::new();
    let mut compared = 0;
    for (c, line) in vectors.iter().zip(&lines) {
        let f: Vec<&str> = line.split('\t').collect();
        let num = |i: usize| -> f64 {
            match f[i] {
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                "nan" | "-nan" => f64::NAN,
                t => t.parse().unwrap(),
            }
        };
        let games = Games { counts: *c };
        let e = estimate_games(&games).unwrap();
        let mut check = |what: &str, ours: f64, theirs: f64, tolerance: f64| {
            if theirs.is_finite() {
                compared += 1;
                if !same(ours, theirs, tolerance) {
                    failures.push(format!("{c:?} {what}: {ours} vs fastchess {theirs}"));
                }
            }
        };
        check("Elo", e.elo.0, num(0), 1e-9);
        check("Elo +/-", (e.elo.2 - e.elo.1) / 2.0, num(1), 1e-9);
        check("nElo", e.nelo.0, num(2), 1e-9);
        check("nElo +/-", (e.nelo.2 - e.nelo.1) / 2.0, num(3), 1e-9);
        check("DrawRatio", e.draw_ratio * 100.0, num(5), 1e-12);
        for (k, s) in tests().iter().enumerate() {
            let tolerance = if s.model == Model::Logistic { 1e-3 } else { 1e-5 };
            check(&format!("LLR {k}"), s.llr_games(&games), num(6 + k), tolerance);
        }
        let los = f[4].trim_end_matches(" %");
        if los != "nan" && los != "-nan" {
            let ours = format!("{:.2}", e.los * 100.0);
            if ours != los {
                failures.push(format!("{c:?} LOS: {ours} vs fastchess {los}"));
            }
        }
        let block = results_block("a", "b", Counts::Games(&games), Some(&tests()[0]));
        if block.contains("Ptnml") || !block.contains(&format!("{} - {} - {}", c[2], c[0], c[1])) {
            failures.push(format!("{c:?} block: {block}"));
        }
    }
    assert!(compared > 300, "{compared} figures compared");
    assert!(failures.is_empty(), "{} differences from fastchess:\n{}", failures.len(), failures.join("\n"));
}
