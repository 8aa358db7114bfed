//! The core's select verb (`epd_core::verbs::select`, which the C ABI and
//! the Python package run too) against `epd select` on real corpus files:
//! the same bytes out, the same counts, the same diagnostics, for filters
//! of every kind, serial and on worker threads.

use std::fs::File;
use std::io::BufReader;
use std::process::Command;

use epd_core::pipeline::{self, Config};
use epd_core::verbs::{run_select, SelectOptions, SelectSummary, Selector};
use epd_core::ParseMode;

/// The corpus file and the arguments of `epd select`.
const CASES: &[(&str, &[&str])] = &[
    ("wacnew.epd", &["--id", "WAC.0*"]),
    ("wacnew.epd", &["--id", r"^WAC\.(0..|1[0-4].)$", "--regex"]),
    ("wacnew.epd", &["--where", "bm=Rxb2", "--where", "bm=Qg6", "--where", "bm=Nf3"]),
    ("wacnew.epd", &["--lines", "3..40", "--lines", "290..", "-v"]),
    ("wac_arasan.epd", &["--lenient", "--where", "bm!=Qg6", "--has", "id"]),
    ("STS1-STS15_LAN_v3.epd", &["--id", r"^STS\(v1[0-5]", "--regex", "--lines", "..1200"]),
    ("STS1-STS15_LAN_v3.epd", &["--where", "bm=f5", "--where", "c9=f4f5 d4e5 d4f2 f3g4"]),
    ("STS1-STS15_LAN_v3.epd", &["--id", "STS(v1.0)*", "-v", "-j", "2"]),
    ("matetrack.epd", &["--lenient", "--has", "dm", "--where", "dm<=2"]),
    ("matetrack.epd", &["--lenient", "--where", "dm>3", "--lacks", "pv", "-j", "3"]),
    ("mates2000.epd", &["--lenient", "--where", "dm>=3", "--lacks", "am", "-v"]),
    // Strict: every record of this file is invalid, and none is selected.
    ("bratko-kopec.epd", &["--has", "bm"]),
    ("bratko-kopec.epd", &["--lenient", "--has", "bm", "--where", "bm=Qd1+"]),
    ("arasan2024.epd", &["--lenient", "--has", "am", "--lines", "20..150"]),
    ("tbtest.epd", &["--where", "bm=Kf5", "--where", "bm=Ba7"]),
    ("ECM.epd", &["--lacks", "id", "-v"]),
    ("eet.epd", &["--lenient", "--id", "E_E_T 0?? - B vs B"]),
    ("UHO_4060_v3.epd", &["--lenient", "--where", "hmvc>=6", "-j", "2"]),
];

/// This test's own reading of the flags into the core's options (`-j N`
/// is the CLI's: the core run is serial).
fn options(args: &[&str]) -> SelectOptions {
    let mut o = SelectOptions::default();
    let mut it = args.iter().copied();
    while let Some(flag) = it.next() {
        let mut value = || it.next().expect("a flag's value").to_owned();
        match flag {
            "--lenient" => o.mode = ParseMode::Lenient,
            "--regex" => o.regex = true,
            "-v" => o.invert = true,
            "--id" => o.ids.push(value()),
            "--lines" => o.lines.push(value().parse().unwrap()),
            "--has" => o.has.push(value()),
            "--lacks" => o.lacks.push(value()),
            "--where" => o.conditions.push(value().parse().unwrap()),
            "-j" => drop(value()),
            _ => panic!("unknown flag {flag}"),
        }
    }
    o
}

/// `(selected, records, invalid)` from the CLI's summary line.
fn cli_counts(stderr: &str) -> (u64, u64, u64) {
    let line = stderr.lines().rev().find(|l| l.contains(" records selected; ")).expect("a summary line");
    let n: Vec<u64> = line.split(|c: char| !c.is_ascii_digit()).filter_map(|t| t.parse().ok()).collect();
    (n[0], n[1], n[2])
}

#[test]
fn the_core_verb_writes_what_the_cli_writes() {
    let mut partial = 0;
    for &(name, args) in CASES {
        let path = epd_testkit::corpus_path(name);
        let what = format!("{name} {args:?}");
        let selector = Selector::new(&options(args)).unwrap();
        let mut ours = Vec::new();
        let mut shown = 0;
        let summary: SelectSummary =
            run_select(BufReader::new(File::open(&path).unwrap()), &mut ours, &selector, |r| {
                shown += r.diagnostics.len() as u64;
            })
            .unwrap();

        let cli = Command::new(env!("CARGO_BIN_EXE_epd")).arg("select").args(args).arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&cli.stderr);
        assert!(ours == cli.stdout, "{what}: the output differs");
        let c = summary.counts.selected;
        assert_eq!(cli_counts(&stderr), (c, summary.records, summary.invalid), "{what}");
        assert_eq!(cli.status.code(), Some(if summary.invalid > 0 { 1 } else { 0 }), "{what}: {stderr}");
        // Every diagnostic the core reported, the CLI printed.
        let prefix = format!("{}:", path.display());
        let printed = stderr.lines().filter(|l| l.starts_with(&prefix)).count() as u64;
        assert_eq!((printed, shown), (summary.warnings + summary.errors, printed), "{what}");
        if c > 0 && c < summary.records {
            partial += 1;
        }
    }
    assert!(partial >= CASES.len() - 3, "most cases keep some records and leave others: {partial}");
}

/// The core's selector on worker threads writes what it writes serially
/// (the pipeline's promise, held for this verb too).
#[test]
fn the_core_verb_on_threads_writes_what_it_writes_serially() {
    let path = epd_testkit::corpus_path("matetrack.epd");
    let input = std::fs::read(&path).unwrap();
    let selector = Selector::new(&options(&["--lenient", "--where", "dm>3", "--where", "bm=Qg6"])).unwrap();
    let mut serial = Vec::new();
    let one = run_select(&input[..], &mut serial, &selector, |_| {}).unwrap();
    let mut threaded = Vec::new();
    let mut workers = vec![selector; 3];
    let config = Config { drop_invalid: true, ..Config::default() };
    let three =
        pipeline::run(&input[..], &mut threaded, &mut workers, &config, &|_, _| {}, &mut |_| {}, &mut |_| {}).unwrap();
    assert!(serial == threaded);
    assert_eq!(one, three);
    assert!(one.counts.selected > 1000, "{one:?}");
}
