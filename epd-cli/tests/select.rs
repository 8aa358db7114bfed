//! `epd select` against counts made here with plain string operations on
//! real suites, and on small inputs written by hand.

use std::io::Write;
use std::process::{Command, Stdio};

fn select(args: &[&str], stdin: &[u8]) -> (Option<i32>, Vec<u8>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_epd"))
        .arg("select")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Written from another thread: the output may fill its pipe before
    // the input is all in.
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (o.status.code(), o.stdout, String::from_utf8_lossy(&o.stderr).into_owned())
}

fn corpus(name: &str) -> Vec<u8> {
    std::fs::read(epd_testkit::corpus_path(name)).unwrap()
}

fn lines(b: &[u8]) -> Vec<&[u8]> {
    b.split(|&c| c == b'\n').filter(|l| !l.is_empty()).collect()
}

#[test]
fn ids_by_glob_and_regex_on_wac() {
    let wac = corpus("wacnew.epd");
    let text = String::from_utf8_lossy(&wac);
    let want: Vec<&[u8]> =
        lines(&wac).into_iter().filter(|l| String::from_utf8_lossy(l).contains("id \"WAC.0")).collect();
    assert_eq!(want.len(), 99);
    let (code, out, err) = select(&["--id", "WAC.0*"], &wac);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(lines(&out), want);
    assert!(err.contains("99 of 300 records selected"), "{err}");
    let (_, out, _) = select(&["--id", r"^WAC\.(0..|1[0-4].)$", "--regex"], &wac);
    let n = text
        .lines()
        .filter(|l| {
            ["WAC.0", "WAC.10", "WAC.11", "WAC.12", "WAC.13", "WAC.14"].iter().any(|p| l.contains(&format!("id \"{p}")))
        })
        .count();
    assert_eq!(n, 149);
    assert_eq!(lines(&out).len(), n);
    // Two patterns: either.
    let (_, out, _) = select(&["--id", "WAC.001", "--id", "WAC.300"], &wac);
    assert_eq!(lines(&out).len(), 2);
}

#[test]
fn lines_opcodes_values_and_invert() {
    let wac = corpus("wacnew.epd");
    let all = lines(&wac);
    let (_, out, _) = select(&["--lines", "3..4", "--lines", "300"], &wac);
    assert_eq!(lines(&out), vec![all[2], all[3], all[299]]);
    // bm Qg6 in the record's position: compared as moves.
    let (_, out, _) = select(&["--where", "bm=Rxb2"], &wac);
    assert_eq!(lines(&out), vec![all[1]]);
    // --invert keeps the rest, in order.
    let (_, kept, _) = select(&["--id", "WAC.0*"], &wac);
    let (_, rest, _) = select(&["--id", "WAC.0*", "-v"], &wac);
    assert_eq!(lines(&kept).len() + lines(&rest).len(), 300);
    assert!(lines(&rest).iter().all(|l| !String::from_utf8_lossy(l).contains("id \"WAC.0")));
    // Mates in at most 2 of matetrack (bm #N read as dm N when lenient),
    // counted with grep's rule.
    let mt = corpus("matetrack.epd");
    let want = String::from_utf8_lossy(&mt).lines().filter(|l| l.contains("bm #1;") || l.contains("bm #2;")).count();
    assert_eq!(want, 21);
    let (code, out, err) = select(&["--lenient", "-q", "--has", "dm", "--where", "dm<=2"], &mt);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(lines(&out).len(), want);
    // -j 2 writes the same bytes as -j 1.
    let (_, one, _) = select(&["--lenient", "-q", "--where", "dm>3"], &mt);
    let (_, two, _) = select(&["--lenient", "-q", "--where", "dm>3", "-j", "2"], &mt);
    assert_eq!(one, two);
    assert!(lines(&one).len() > 1000);
}

#[test]
fn records_are_copied_byte_for_byte_and_invalid_ones_never_selected() {
    // Non-canonical spacing, a CRLF end, a blank line, an invalid record.
    let input = b"4k3/8/8/8/8/8/8/4K2R  w K -   bm O-O;  id \"a\";\r\n\n8/8/8/8/8/8/8/8 w - - id \"b\";\n4k3/8/8/8/8/8/8/4K2R w K - id \"c\"; ce 120;\n";
    let (code, out, err) = select(&["--lenient", "--id", "*"], input);
    assert_eq!(code, Some(1), "an invalid record: exit 1; {err}");
    assert_eq!(
        out,
        b"4k3/8/8/8/8/8/8/4K2R  w K -   bm O-O;  id \"a\";\r\n4k3/8/8/8/8/8/8/4K2R w K - id \"c\"; ce 120;\n"
    );
    assert!(err.contains("<stdin>:3:1: error[E002]"), "{err}");
    assert!(err.contains("2 of 3 records selected; 1 invalid (never selected)"), "{err}");
    let (_, out, _) = select(&["--lenient", "--where", "ce>100"], input);
    assert_eq!(lines(&out).len(), 1);
    let (_, out, _) = select(&["--lenient", "--where", "ce>120"], input);
    assert!(out.is_empty());
}

#[test]
fn malformed_filters_exit_2() {
    for bad in [
        &["--where", "ce>x"][..],
        &["--where", "ce"],
        &["--where", "9x=1"],
        &["--lines", "0"],
        &["--lines", "5..3"],
        &["--has", "b-m"],
        &["--id", "(", "--regex"],
    ] {
        let (code, out, err) = select(bad, b"");
        assert_eq!(code, Some(2), "{bad:?}: {err}");
        assert!(out.is_empty());
        assert!(!err.is_empty());
    }
}
