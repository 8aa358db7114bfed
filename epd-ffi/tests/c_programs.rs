//! Builds the C examples (examples-c/) and the C API test
//! (tests/c/api_test.c) with the `cc` crate, against both the shared and
//! the static library, runs them, and checks their output. Also compiles
//! the header and every example as C89, C99 and C++ with warnings as
//! errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::{env, fs};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn examples() -> PathBuf {
    workspace().join("examples-c")
}

/// Where this test run's libepdkit.so and libepdkit.a are: cargo builds
/// every crate type of the library into target/<profile>/deps for the
/// integration tests (it copies them up to target/<profile> only on
/// `cargo build`, so that copy may be missing or stale).
fn lib_dir() -> PathBuf {
    let exe = env::current_exe().expect("test executable path");
    // target/<profile>/deps/c_programs-<hash>
    let deps = exe.parent().expect("deps directory").to_path_buf();
    if deps.join("libepdkit.so").is_file() && deps.join("libepdkit.a").is_file() {
        return deps;
    }
    deps.parent().expect("target directory").to_path_buf()
}

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("epdkit-c");
    fs::create_dir_all(&dir).expect("create the C build directory");
    dir
}

fn compiler(cpp: bool) -> cc::Tool {
    let mut b = cc::Build::new();
    b.cargo_metadata(false)
        .opt_level(1)
        .debug(true)
        .target(env!("EPDKIT_BUILD_TARGET"))
        .host(env!("EPDKIT_BUILD_HOST"))
        .cpp(cpp)
        .warnings(false)
        .extra_warnings(false);
    b.get_compiler()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Link {
    Shared,
    Static,
}

/// Checks that the library files exist (cargo builds every crate type of
/// the library when it builds the tests).
fn libs() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = lib_dir();
        for name in ["libepdkit.so", "libepdkit.a"] {
            assert!(dir.join(name).exists(), "{} not built", dir.join(name).display());
        }
        // Programs linked against the library look for its SONAME,
        // libepdkit.so.0, which an install makes a symlink.
        let soname = dir.join("libepdkit.so.0");
        if !soname.exists() {
            // Another test thread may make it at the same time.
            let _ = std::os::unix::fs::symlink("libepdkit.so", &soname);
        }
        dir
    })
}

fn compile(name: &str, sources: &[PathBuf], link: Link) -> PathBuf {
    let lib = libs();
    let exe = out_dir().join(format!("{name}-{}", if link == Link::Shared { "shared" } else { "static" }));
    let mut cmd = compiler(false).to_command();
    cmd.args(["-std=c89", "-pedantic-errors", "-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(workspace().join("include"))
        .args(sources)
        .arg("-o")
        .arg(&exe);
    match link {
        Link::Shared => {
            cmd.arg("-L").arg(lib).arg("-lepdkit").arg(format!("-Wl,-rpath,{}", lib.display()));
        }
        Link::Static => {
            cmd.arg(lib.join("libepdkit.a")).args(["-lpthread", "-ldl", "-lm", "-lrt", "-lutil", "-lgcc_s"]);
        }
    }
    let out = cmd.output().expect("run the C compiler");
    assert!(out.status.success(), "compiling {name} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    exe
}

fn run(exe: &Path, args: &[&Path], stdin: Option<&Path>) -> Output {
    let mut cmd = Command::new(exe);
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    match stdin {
        Some(p) => cmd.stdin(fs::File::open(p).expect("open stdin file")),
        None => cmd.stdin(Stdio::null()),
    };
    cmd.output().expect("run the example")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn example(name: &str) -> Vec<PathBuf> {
    vec![examples().join(format!("{name}.c"))]
}

fn data(name: &str) -> PathBuf {
    examples().join("data").join(name)
}

const LINKS: [Link; 2] = [Link::Shared, Link::Static];

#[test]
fn api_test_passes_against_both_libraries() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    for link in LINKS {
        let exe = compile("api_test", &[dir.join("api_test.c"), dir.join("second_unit.c")], link);
        let o = run(&exe, &[], None);
        let text = stdout(&o);
        assert!(o.status.success(), "{link:?}: {text}{}", stderr(&o));
        assert!(text.trim_end().ends_with(" passed, 0 failed"), "{link:?}: {text}");
    }
}

#[test]
fn record_inspector_prints_typed_operands_and_diagnostics() {
    for link in LINKS {
        let exe = compile("epd_inspect", &example("epd_inspect"), link);
        let o = run(&exe, &[&data("sample.epd")], None);
        let text = stdout(&o);
        assert_eq!(o.status.code(), Some(1), "{link:?}: invalid records give 1\n{text}");
        for want in [
            "line 1: valid",
            "  bm (1 operand)\n    move \"Qg6\" g3-g6",
            "    string \"WAC.001\"",
            "    integer \"8031647685\" hi=1 lo=3736680389 long=8031647685",
            "    date \"1995.11.26\" year=1995 month=11 day=26",
            "    time \"14:30:00\" hour=14 minute=30 second=0",
            "    clock \"000:01:29:58\" days=0 hours=1 minutes=29 seconds=58",
            "    move \"O-O\" e1-h1",
            "line 6: invalid",
            "  6:53: error[E021]: bm operand 1 is not canonical SAN: expected Qd1+ (opcode bm, operand 1)",
            "  7:65: error[E012]: pm is not the first move of pv (opcode pm)",
            "6 records, 2 invalid",
        ] {
            assert!(text.contains(want), "{link:?}: missing {want:?} in\n{text}");
        }
    }
}

const NORMALIZED: &str = "\
2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";
1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id \"BK.01\";
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - acn 8031647685; acs 3600; cc 000:01:30:00 000:01:29:58; ce 35; pv e4 e5 Nf3; ts 1995.11.26 14:30:00;

4k3/8/8/8/8/8/8/4K2R w K - bm Kf2 O-O; c0 \"two moves\";
1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1 + ; id \"BK.01\";
r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - pm Bb5; pv Nc3;
";

#[test]
fn normalizer_runs_pfdn_over_callbacks_and_paths() {
    for link in LINKS {
        let exe = compile("epd_normalize", &example("epd_normalize"), link);
        let o = run(&exe, &[], Some(&data("sample.epd")));
        assert_eq!(o.status.code(), Some(1), "{link:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), NORMALIZED, "{link:?}");
        let err = stderr(&o);
        assert!(err.contains("<stdin>:7:65: error[E012]: pm is not the first move of pv\n"), "{err}");
        assert!(err.contains("7 lines, 6 records, 2 invalid, 2 changed, 0 warnings, 3 errors"), "{err}");

        let target = out_dir().join(format!("normalized-{link:?}.epd"));
        let o = run(&exe, &[&data("sample.epd"), &target], None);
        assert_eq!(o.status.code(), Some(1), "{link:?}: {}", stderr(&o));
        assert_eq!(fs::read_to_string(&target).unwrap(), NORMALIZED);

        // Lenient reading repairs the detached check mark; dropping leaves
        // out the one record still invalid.
        let o = run(&exe, &[Path::new("--lenient"), Path::new("--drop-invalid")], Some(&data("sample.epd")));
        let text = stdout(&o);
        assert!(
            text.ends_with(
                "c0 \"two moves\";\n1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id \"BK.01\";\n"
            ),
            "{text}"
        );
        assert!(!text.contains("pm Bb5"), "{text}");
    }
}

#[test]
fn san_round_tripper_rewrites_dialects_to_canonical_san() {
    for link in LINKS {
        let exe = compile("san_roundtrip", &example("san_roundtrip"), link);
        let o = run(&exe, &[], Some(&data("san.txt")));
        let text = stdout(&o);
        assert_eq!(o.status.code(), Some(1), "{link:?}: two lines fail on purpose\n{text}");
        for want in [
            "  e7e5     -> e5       e7e5 (rewritten)",
            "  0-0      -> O-O      e1g1 (rewritten)",
            "           strict: non-canonical san: expected Nf3",
            "  fen r1bqk2r/1pppbppp/p1n2n2/4p3/B3P3/5N2/PPPP1PPP/RNBQ1RK1 w kq - 4 6 ongoing",
            "  O-O-O    -> O-O-O    e1c1",
            "  fen r4rk1/p1ppqpb1/1n2pnp1/3PN3/1p2P3/8/PPPBNPQP/2KR3R w - - 1 4 ongoing",
            "  b8Q      -> b8=Q+    b7b8q (rewritten)",
            "  fen 8/1Q1k4/8/8/8/8/8/4K3 b - - 2 2 check",
            "  Ke3      illegal move: illegal san: no king can reach e3",
            "insufficient-material",
            "position: malformed FEN or EPD position fields: invalid piece placement at column 2",
            "2 lines failed",
        ] {
            assert!(text.contains(want), "{link:?}: missing {want:?} in\n{text}");
        }
    }
}

/// What epd_engine_analyze_record writes with the engine's counters on:
/// what the file verb writes (acs 0: each search takes milliseconds; the
/// mated and stalemated positions are not searched, so they have acs but
/// neither acd nor acn), the stale acn 12 replaced.
const ANALYZED: &str = "\
6k1/5ppp/8/8/8/8/8/R5K1 w - - acd 2; acn 146; acs 0; ce 32766; id \"back rank mate\"; pm Ra8#; pv Ra8#;
rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - acs 0; ce -32767; id \"fool's mate, mated\"; pv;
7k/5Q2/6K1/8/8/8/8/8 b - - acs 0; ce 0; id \"stalemate\"; pv;
r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - acd 2; acn 1177; acs 0; ce 32766; id \"scholar's mate\"; pm Qxf7#; pv Qxf7#;
4k3/8/8/3q4/8/8/3R4/4K3 w - - acd 2; acn 430; acs 0; ce 500; id \"win the queen\"; pm Rxd5; pv Rxd5 Ke7;
";

#[test]
fn tiny_engine_fills_records_through_the_analysis_hook() {
    for link in LINKS {
        let exe = compile("tiny_engine", &example("tiny_engine"), link);
        let o = run(&exe, &[&data("engine.epd")], None);
        assert!(o.status.success(), "{link:?}: {}", stderr(&o));
        assert_eq!(stdout(&o), ANALYZED, "{link:?}");
    }
}

/// `tiny_engine FILE OUT`: the library's pfts over a file with the C
/// callback. The searches are the ones of ANALYZED above (same callback,
/// same depth); the file verb adds acs (0: each search takes
/// milliseconds), replaces the stale acd 40, judges pm against bm/am,
/// leaves the stalemate unsearched and copies the bad line through.
const TARGETED: &str = "\
6k1/5ppp/8/8/8/8/8/R5K1 w - - acd 2; acn 146; acs 0; bm Ra8#; ce 32766; id \"back rank mate\"; pm Ra8#; pv Ra8#;
7k/5Q2/6K1/8/8/8/8/8 b - - acs 0; ce 0; id \"stalemate\"; pv;
r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - acd 2; acn 1177; acs 0; am Qxf7#; ce 32766; id \"scholar's mate, avoided\"; pm Qxf7#; pv Qxf7#;
4k3/8/8/3q4/8/8/3R4/4K3 w - - acd 2; acn 430; acs 0; bm Rxd5; ce 500; id \"win the queen\"; pm Rxd5; pv Rxd5 Ke7;
this is not a record
";

#[test]
fn tiny_engine_gets_the_target_file_verb_through_the_hook() {
    for link in LINKS {
        // Built under its own name: the other tiny_engine test may run it.
        let exe = compile("tiny_engine_files", &example("tiny_engine"), link);
        let out = out_dir().join(format!("targets-{link:?}.epd"));
        let o = run(&exe, &[&data("targets.epd"), &out], None);
        assert!(o.status.success(), "{link:?}: {}", stderr(&o));
        assert_eq!(
            stdout(&o),
            "records 5, invalid 1, analyzed 4, faults 0\nsolved 2, missed 1, unscored 1\n\
             searches that read their record: 3\n",
            "{link:?}"
        );
        assert_eq!(fs::read_to_string(&out).unwrap(), TARGETED, "{link:?}");
    }
}

/// The C example plays two games against a Rust client under a real
/// referee on loopback: it signs on, answers every respond with a legal
/// move, and leaves at disconnect with exit 0; the referee's PGN holds
/// both games, finished.
#[test]
fn referee_client_plays_over_tcp() {
    use epd_referee::client::{Client, Reply};
    use epd_referee::protocol::Command as Refcom;
    for link in LINKS {
        let exe = compile("referee_client", &example("referee_client"), link);
        let dir = out_dir().join(format!("referee-{link:?}"));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let text = "event = \"C client\"\nlisten = \"127.0.0.1:0\"\ntime_control = \"60+0\"\nreset_delay = 0\n\
                    conclude_delay = 0\n[[players]]\nname = \"c\"\ntoken = \"t0k\"\n[[players]]\nname = \"rust\"\n";
        let event = epd_referee::Event::parse(text, &dir).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let server = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
            rt.block_on(async move {
                let (btx, brx) = tokio::sync::oneshot::channel();
                let run = tokio::spawn(epd_referee::runtime::run(event, Default::default(), Some(btx)));
                tx.send(brx.await.unwrap()).unwrap();
                run.await.unwrap().unwrap()
            })
        });
        let addr = rx.recv().unwrap().to_string();
        let c = Command::new(&exe)
            .args(["--referee", &addr, "--name", "c", "--token", "t0k"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut rust = Client::connect(&addr, "rust", None, std::time::Duration::from_secs(5)).unwrap();
        loop {
            match rust.next_command().unwrap() {
                Refcom::Respond => {
                    let mv = rust.position().legal_moves().iter().copied().next().unwrap();
                    rust.reply(Reply::Move { mv, draw_offer: false, draw_claim: false }).unwrap();
                }
                Refcom::Disconnect => break,
                _ => {}
            }
        }
        let outcome = server.join().unwrap();
        assert_eq!(outcome.games, 2);
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{link:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).matches("game ").count(), 2, "{}", stderr(&o));
        let pgn = fs::read_to_string(dir.join("games.pgn")).unwrap();
        assert_eq!(pgn.matches("[White \"c\"]").count(), 1);
        assert_eq!(pgn.matches("[Termination \"normal\"]").count(), 2, "{pgn}");
    }
}

/// The header and every example compile as C89, C99 and C++ with
/// warnings as errors.
#[test]
fn header_and_examples_compile_as_c89_c99_and_cpp() {
    let mut sources: Vec<PathBuf> = fs::read_dir(examples())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 5, "{sources:?}");
    let header_only = out_dir().join("header_only.c");
    fs::write(&header_only, "#include \"epdkit.h\"\n#include \"epdkit.h\"\nint main(void) { return EPD_STATUS_OK; }\n")
        .unwrap();
    sources.push(header_only);
    for (cpp, flags) in [
        (false, &["-std=c89", "-pedantic-errors", "-Wall", "-Wextra", "-Werror"][..]),
        (false, &["-std=c99", "-pedantic-errors", "-Wall", "-Wextra", "-Werror"][..]),
        (true, &["-std=c++11", "-Wall", "-Wextra", "-Werror", "-x", "c++"][..]),
    ] {
        for src in &sources {
            let mut cmd = compiler(cpp).to_command();
            cmd.args(flags).arg("-I").arg(workspace().join("include")).arg("-c").arg(src).arg("-o");
            cmd.arg(out_dir().join("compile-check.o"));
            let out = cmd.output().expect("run the compiler");
            assert!(
                out.status.success(),
                "{} with {flags:?}:\n{}",
                src.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// The version macros in the committed header match Cargo.toml.
#[test]
fn header_version_macros_match_cargo_toml() {
    let header = fs::read_to_string(workspace().join("include/epdkit.h")).unwrap();
    for (name, value) in [
        ("EPDKIT_VERSION_MAJOR", env!("CARGO_PKG_VERSION_MAJOR")),
        ("EPDKIT_VERSION_MINOR", env!("CARGO_PKG_VERSION_MINOR")),
        ("EPDKIT_VERSION_PATCH", env!("CARGO_PKG_VERSION_PATCH")),
    ] {
        let line = format!("#define {name} {value}\n");
        assert!(header.contains(&line), "header lacks {line:?}");
    }
}

/// Everything the header declares or includes sits inside its include
/// guard: the first directive opens the guard and the last closes it, so
/// a second inclusion reads nothing at all (`#include <stddef.h>` used to
/// sit before the guard).
#[test]
fn header_include_guard_encloses_everything() {
    let header = fs::read_to_string(workspace().join("include/epdkit.h")).unwrap();
    let directives: Vec<&str> = header.lines().map(str::trim_start).filter(|l| l.starts_with('#')).collect();
    assert_eq!(directives.first(), Some(&"#ifndef EPDKIT_H"));
    assert_eq!(directives.get(1), Some(&"#define EPDKIT_H"));
    assert_eq!(directives.last(), Some(&"#endif /* EPDKIT_H */"));
    assert!(directives.contains(&"#include <stddef.h>"));
}

/// The shared library names its ABI: SONAME libepdkit.so.MAJOR, and a
/// program linked against it needs that name.
#[test]
fn shared_library_has_a_soname() {
    let lib = libs().join("libepdkit.so");
    let out = Command::new("objdump").arg("-p").arg(&lib).output().expect("run objdump");
    let text = String::from_utf8_lossy(&out.stdout);
    let soname = text.lines().find(|l| l.trim_start().starts_with("SONAME")).map(|l| l.split_whitespace().last());
    assert_eq!(soname, Some(Some(format!("libepdkit.so.{}", env!("CARGO_PKG_VERSION_MAJOR")).as_str())), "{text}");
    let exe = compile("soname_check", &[examples().join("epd_inspect.c")], Link::Shared);
    let out = Command::new("objdump").arg("-p").arg(&exe).output().expect("run objdump");
    assert!(String::from_utf8_lossy(&out.stdout).lines().any(|l| l.contains("NEEDED") && l.contains("libepdkit.so.0")));
}
