//! `epd report` (Gastric) against hand-made result files whose every
//! figure below was worked out by hand (the comments show the sums), and
//! against real runs of the built-in engine over WAC and STS, counted
//! independently by python-chess.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const EPD: &str = env!("CARGO_BIN_EXE_epd");

fn data(name: &str) -> String {
    let p: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "epd-report", "tests", "data", name].iter().collect();
    p.to_string_lossy().into_owned()
}

fn epd(args: &[&str]) -> Output {
    Command::new(EPD).args(args).output().unwrap()
}

fn json(args: &[&str]) -> Value {
    let mut all = vec!["report", "--format", "json"];
    all.extend_from_slice(args);
    let out = epd(&all);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn close(v: &Value, want: f64, tol: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"));
    assert!((got - want).abs() <= tol, "{got} != {want}");
}

#[test]
fn two_runs_worked_by_hand() {
    let r = json(&[&data("run-a.epd"), &data("run-b.epd"), "--label", "A", "--label", "B"]);
    assert_eq!(r["schema"], "epd-report/1");
    let (a, b) = (&r["runs"][0], &r["runs"][1]);
    assert_eq!((a["label"].as_str(), a["records"].as_u64(), a["solved"].as_u64()), (Some("A"), Some(10), Some(7)));
    // Wilson, 7 of 10: centre (0.7 + z²/20) / (1 + z²/10) = 0.64449, half
    // width z/(1 + z²/10) × √(0.021 + z²/400) = 0.24771.
    close(&a["solved_ci"][0], 0.396_78, 1e-5);
    close(&a["solved_ci"][1], 0.892_21, 1e-5);
    // 9 of 10: centre 0.788987, half width 0.193137.
    close(&b["solved_ci"][0], 0.595_85, 1e-5);
    close(&b["solved_ci"][1], 0.982_12, 1e-5);
    assert_eq!(a["missed_ids"], serde_json::json!(["WAC.002", "WAC.005", "WAC.007"]));
    assert_eq!(b["missed_ids"], serde_json::json!(["WAC.005"]));
    assert_eq!(a["themes"]["WAC"]["solved"], 7);
    // acd of A is 1..10: q1 at rank 2.25 = 3.25, median 5.5, q3 at rank
    // 6.75 = 7.75, p90 at rank 8.1 = 9.1. Solved: 1 3 4 6 8 9 10, q1 at
    // rank 1.5 = 3.5, p90 at rank 5.4 = 9.4, mean 41/7.
    let acd = &a["distributions"]["acd"];
    for (k, v) in [("q1", 3.25), ("median", 5.5), ("q3", 7.75), ("p90", 9.1), ("mean", 5.5)] {
        close(&acd["all"][k], v, 1e-9);
    }
    close(&acd["solved"]["q1"], 3.5, 1e-9);
    close(&acd["solved"]["p90"], 9.4, 1e-9);
    close(&acd["solved"]["mean"], 41.0 / 7.0, 1e-9);
    // ce of A sorted: -80 -20 10 40 90 150 200 300 500 700: q1 at 2.25 =
    // 17.5, median 120, q3 at 6.75 = 275, p90 at 8.1 = 520, mean 189.
    let ce = &a["distributions"]["ce"]["all"];
    for (k, v) in [("q1", 17.5), ("median", 120.0), ("q3", 275.0), ("p90", 520.0), ("mean", 189.0)] {
        close(&ce[k], v, 1e-9);
    }
    // Both solve 1 3 4 6 8 9 10; B alone 2 and 7; neither 5: McNemar's
    // exact p = 2 × (1/2)² = 0.5.
    let c = &r["comparisons"][0];
    assert_eq!((c["both"].as_u64(), c["a_only"].as_u64(), c["b_only"].as_u64()), (Some(7), Some(0), Some(2)));
    assert_eq!(c["neither"], 1);
    close(&c["mcnemar_p"], 0.5, 1e-12);
    assert_eq!(c["newly_solved"], serde_json::json!(["WAC.002", "WAC.007"]));
    // acs 0 against acs 1: whole seconds, a tie each time.
    assert_eq!((c["times"]["n"].as_u64(), c["times"]["b_faster"].as_u64()), (Some(7), Some(0)));
    // The objective is the last run's solved percent: 90, se √(.09/10).
    assert_eq!(r["objective"]["name"], "solved_percent");
    close(&r["objective"]["value"], 90.0, 1e-9);
    close(&r["objective"]["standard_error"], 100.0 * (0.09f64 / 10.0).sqrt(), 1e-9);
}

#[test]
fn sts_points_and_rating_worked_by_hand() {
    let r = json(&[&data("sts.epd")]);
    let run = &r["runs"][0];
    // f5 = 10 of 10, Qd4+ = 4 of 10, Rg3 = 7 of 10: 21 of 30 = 70 %.
    let p = &run["points"];
    assert_eq!((p["points"].as_u64(), p["max"].as_u64()), (Some(21), Some(30)));
    close(&p["percent"], 70.0, 1e-9);
    // Fractions 1, .4, .7: sample variance (.09 + .09 + 0) / 2 = .09, se
    // √(.09/3) = .17321; 70 ± 1.96 × 17.321 = 36.05 .. 103.95, capped.
    close(&p["percent_ci"][0], 36.052, 1e-3);
    close(&p["percent_ci"][1], 100.0, 1e-9);
    // 44.523 × 70 − 242.85 = 2873.76; × 36.052 − 242.85 = 1362.30.
    close(&p["sts_rating"], 2873.76, 1e-6);
    close(&p["sts_rating_ci"][0], 1362.30, 0.05);
    close(&p["sts_rating_ci"][1], 4209.45, 1e-6);
    assert_eq!(run["themes"]["STS(v1.0) Undermine"]["points"], 21);
    // Only f5 is the bm: 1 of 3; Wilson (1/3): 0.06149 .. 0.79234.
    assert_eq!(run["solved"], 1);
    close(&run["solved_ci"][0], 0.061_49, 1e-5);
    close(&run["solved_ci"][1], 0.792_34, 1e-5);
    assert_eq!(r["objective"]["name"], "points_percent");
}

#[test]
fn mates_in_matetracks_classes() {
    let r = json(&[&data("mates.epd")]);
    let m = &r["runs"][0]["mates"];
    // dm 2 with ce 32764 (mate in 2), 32762 (in 3), 32766 (in 1), -32765
    // (mated), 150; dm 3 with 32762.
    for (k, v) in [("keyed", 6), ("best", 2), ("longer", 1), ("shorter", 1), ("wrong_sign", 1), ("missed", 1)] {
        assert_eq!(m[k], v, "{k}");
    }
    assert_eq!(m["by_length"]["2"], serde_json::json!([5, 3]));
    assert_eq!(m["by_length"]["3"], serde_json::json!([1, 1]));
    let kinds: Vec<(u64, &str)> = r["runs"][0]["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["line"].as_u64().unwrap(), i["kind"].as_str().unwrap()))
        .collect();
    // No record has acn: one issue for the run, at its first record.
    assert_eq!(kinds, [(1, "no-counters"), (3, "key-mate-longer"), (4, "ce-sign")]);
    // Mate scores are not evaluations: only ce 150 is in the distribution.
    assert_eq!(r["runs"][0]["distributions"]["ce"]["all"]["n"], 1);
}

#[test]
fn consistency_checks_with_line_numbers() {
    let out = epd(&["report", "--format", "json", &data("issues.epd")]);
    // Invalid records: exit 1, their diagnostics on stderr as everywhere.
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("issues.epd:5:13: error[E001]"), "{err}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &r["runs"][0];
    assert_eq!((run["records"].as_u64(), run["invalid"].as_u64()), (Some(4), Some(2)));
    assert_eq!((run["scored"].as_u64(), run["unscored"].as_u64()), (Some(3), Some(1)));
    let kinds: Vec<(u64, &str)> = run["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["line"].as_u64().unwrap(), i["kind"].as_str().unwrap()))
        .collect();
    // The results without counters are one issue, at the first of them:
    // line 2 has no acd, line 3 no acs, none of the four has acn.
    assert_eq!(
        kinds,
        [(1, "invalid"), (2, "no-counters"), (4, "duplicate-id"), (4, "duplicate-position"), (5, "invalid")]
    );
    assert!(run["issues"][0]["message"].as_str().unwrap().starts_with("E012"));
    let counters = run["issues"][1]["message"].as_str().unwrap();
    assert!(
        counters.starts_with("4 of 4 results lack analysis counters (no acd on 1, no acn on 4, no acs on 1;"),
        "{counters}"
    );
    assert!(counters.contains("epd target --counters"), "{counters}");
    assert_eq!(
        run["missing_counters"],
        serde_json::json!({"records": 4, "acd": 1, "acn": 4, "acs": 1, "first_line": 2})
    );
    assert!(run["issues"][2]["message"].as_str().unwrap().contains("of line 3"));
}

#[test]
fn time_scores_from_solve_times() {
    let r = json(&["--time-scores", &data("times.epd")]);
    let scores = &r["runs"][0]["time_scores"];
    // t = 1.5 s (Solve_ms 1500), 30 s (Solve_ms 30000), unsolved 900:
    // 2630 − 931.5/30 = 2598.95; LCT II: 1900 + 30 + 20.
    close(&scores[0]["value"], 2598.95, 1e-9);
    close(&scores[1]["value"], 2418.95, 1e-9);
    close(&scores[2]["value"], 1950.0, 1e-9);
    // Without --time-scores, none.
    assert_eq!(json(&[&data("times.epd")])["runs"][0]["time_scores"], serde_json::json!([]));
}

#[test]
fn a_separate_key_by_id_then_by_position() {
    let wac = epd_testkit::corpus_path("wacnew.epd");
    let r = json(&[&data("keyless.epd"), "--key", &wac.to_string_lossy()]);
    let run = &r["runs"][0];
    assert_eq!(r["key_records"], 300);
    // WAC.001 and .003 solved by id, .002 missed (Ke6), the id WAC.001 on
    // WAC.006's position not keyed, WAC.004's position found without id.
    assert_eq!((run["solved"].as_u64(), run["missed"].as_u64(), run["unscored"].as_u64()), (Some(3), Some(1), Some(1)));
    // (No record has acn: one no-counters issue, at line 1.)
    assert_eq!(run["issues"][0]["kind"], "no-counters");
    assert_eq!(run["issues"][1]["kind"], "key-position");
    assert_eq!(run["issues"][1]["line"], 4);
}

#[test]
fn csv_rows_and_records_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, b) = (data("run-a.epd"), data("run-b.epd"));
    let miss = d.join("missed.epd");
    let solved = d.join("solved.epd");
    let worse = d.join("worse.epd");
    let out = epd(&["report", &b, &a, "--format", "csv"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    let written = epd(&[
        "report",
        &b,
        &a,
        "--write-missed",
        &miss.to_string_lossy(),
        "--write-solved",
        &solved.to_string_lossy(),
        "--write-regressions",
        &worse.to_string_lossy(),
    ]);
    assert!(written.status.success(), "{}", String::from_utf8_lossy(&written.stderr));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 21, "a header and a row per record per run");
    assert_eq!(lines[0], "run,file,line,id,theme,verdict,played,dm,mate,points,max_points,acd,acn,acs,ce,time,nodes");
    assert!(
        lines[12].starts_with(&format!("run-a.epd,{a},2,WAC.002,WAC,missed,Ke6,,,,,2,2000,0,-20,,")),
        "{}",
        lines[12]
    );
    // The last run (A) missed 2, 5, 7; the first (B) solved 2 and 7:
    // those come back as A's lines, byte for byte.
    let read = |p: &Path| std::fs::read_to_string(p).unwrap();
    let a_text = read(Path::new(&a));
    let a_lines: Vec<&str> = a_text.lines().collect();
    assert_eq!(read(&miss), format!("{}\n{}\n{}\n", a_lines[1], a_lines[4], a_lines[6]));
    assert_eq!(read(&worse), format!("{}\n{}\n", a_lines[1], a_lines[6]));
    assert_eq!(read(&solved).lines().count(), 7);
}

#[test]
fn text_report_names_its_formulas() {
    let out = epd(&["report", &data("run-a.epd"), &data("run-b.epd"), "--label", "A", "--label", "B"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("solved 7 of 10 = 70.0 % [39.7, 89.2] (Wilson score interval, 95 %)"), "{text}");
    assert!(text.contains("McNemar's exact test p = 0.5000"), "{text}");
    assert!(text.contains("overall     7/10 70.0%     9/10 90.0%"), "{text}");
}

#[test]
fn a_suite_is_not_results_and_the_report_says_so() {
    // wacnew.epd is the suite itself: bm and id, no pm, no pv.
    let path = epd_testkit::corpus_path("wacnew.epd");
    let wac = path.to_string_lossy();
    let suite = std::fs::read_to_string(&path).unwrap();
    let records = suite.lines().filter(|l| !l.trim().is_empty()).count() as u64;
    assert!(suite.lines().all(|l| !l.contains(" pm ") && !l.contains(" pv ")));
    let text = String::from_utf8(epd(&["report", &wac]).stdout).unwrap();
    assert!(
        text.contains("\n  note: no record has pm or pv: ") && text.contains("does not look like results"),
        "{text}"
    );
    assert!(text.contains("`epd target`"), "{text}");
    let r = json(&[&wac]);
    let run = &r["runs"][0];
    assert_eq!((run["records"].as_u64(), run["played"].as_u64()), (Some(records), Some(0)));
    assert_eq!(run["notes"].as_array().unwrap().len(), 1);
    assert_eq!(run["notes"][0]["kind"], "not-results");
    assert!(run["notes"][0]["message"].as_str().unwrap().contains("epd target"));
    // Nothing was played, so no result lacks its counters.
    assert_eq!(run["missing_counters"], Value::Null);
    assert_eq!(run["issues"], serde_json::json!([]));
    let html = String::from_utf8(epd(&["report", &wac, "--format", "html"]).stdout).unwrap();
    let note = html.split("<p class=\"note\" data-kind=\"not-results\">").nth(1).expect("the note in the page");
    assert!(note.split("</p>").next().unwrap().contains("epd target"), "{note}");
    // No run has points: their columns are left out, not shown empty.
    let runs = html.split("id=\"runs\"").nth(1).unwrap().split("</table>").next().unwrap();
    for h in ["points %", "points 95 % (normal)", "STS rating", "STS rating 95 %"] {
        assert!(!runs.contains(&format!("<th>{h}</th>")), "{h}: {runs}");
    }
    assert!(runs.contains("<th>solved %</th>"), "{runs}");
    // One run: no scatter of two runs' times.
    assert!(!html.contains("data-kind=\"time-scatter\""));
}

#[test]
fn scored_records_without_a_move_are_noted() {
    // run-a.epd with the pm and pv of its first two records taken out.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("partial.epd");
    let text = std::fs::read_to_string(data("run-a.epd")).unwrap();
    let strip = |l: &str| {
        l.split("; ").filter(|op| !op.starts_with("pm ") && !op.starts_with("pv ")).collect::<Vec<_>>().join("; ")
    };
    let lines: Vec<String> =
        text.lines().enumerate().map(|(i, l)| if i < 2 { strip(l) } else { l.to_owned() }).collect();
    assert!(!lines[0].contains(" pm ") && lines[2].contains(" pm "));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let r = json(&[&path.to_string_lossy()]);
    let run = &r["runs"][0];
    assert_eq!(run["played"], 8);
    assert_eq!(run["notes"][0]["kind"], "unplayed");
    assert_eq!(run["notes"][0]["message"], "2 of 10 scored records have neither pm nor pv: counted as missed");
}

#[test]
fn results_without_counters_are_one_issue_not_one_per_record() {
    // A real run of WAC without --counters.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("wac.epd");
    let st = Command::new(EPD)
        .args(["analyze", "--nodes", "1000", "-q", "-j", "2", "-o"])
        .arg(&out)
        .arg(epd_testkit::corpus_path("wacnew.epd"))
        .status()
        .unwrap();
    assert!(st.success());
    let written = std::fs::read_to_string(&out).unwrap();
    let results: Vec<&str> = written.lines().filter(|l| l.contains(" pm ")).collect();
    let without = |op: &str| results.iter().filter(|l| !l.contains(&format!(" {op} "))).count() as u64;
    assert!(results.len() > 290 && without("acd") == results.len() as u64, "{} results", results.len());
    let first = written.lines().position(|l| l.contains(" pm ")).unwrap() as u64 + 1;
    let f = out.to_string_lossy();
    let r = json(&[&f]);
    let run = &r["runs"][0];
    let n = results.len() as u64;
    assert_eq!(
        run["missing_counters"],
        serde_json::json!({"records": n, "acd": without("acd"), "acn": without("acn"), "acs": without("acs"), "first_line": first})
    );
    let kinds: Vec<&str> = run["issues"].as_array().unwrap().iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.iter().filter(|&&k| k == "no-counters").count(), 1, "{kinds:?}");
    assert!(!kinds.iter().any(|k| k.starts_with("no-ac")), "{kinds:?}");
    // The text says it on one line, with the count.
    let text = String::from_utf8(epd(&["report", &f]).stdout).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| l.contains("counters")).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(
        lines[0].contains(&format!(":{first}: no-counters: {n} of {n} results lack analysis counters")),
        "{}",
        lines[0]
    );
    // With the counters, none is missing.
    let with = dir.path().join("wac-counters.epd");
    analyze(&epd_testkit::corpus_path("wacnew.epd"), "1000", &with);
    let r = json(&[&with.to_string_lossy()]);
    assert_eq!(r["runs"][0]["missing_counters"], Value::Null);
}

#[test]
fn solve_times_keep_the_precision_they_are_written_with() {
    // Solve_ms with decimals (to the microsecond), in whole ms, and acs
    // alone (whole seconds), all four solved.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fine.epd");
    std::fs::write(
        &path,
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - Solve_ms 12.5; acd 5; acn 900; acs 0; bm Qg6; id \"WAC.001\"; pm Qg6;\n\
         8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - Solve_ms 0.125; acd 5; acn 90; acs 0; bm Rxb2; id \"WAC.002\"; pm Rxb2;\n\
         5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - acd 5; acn 9000; acs 3; bm Rg3; id \"WAC.003\"; pm Rg3;\n\
         r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - Solve_ms 7; acd 3; acn 500; acs 0; bm Qxh7+; id \"WAC.004\"; pm Qxh7+;\n",
    )
    .unwrap();
    let f = path.to_string_lossy();
    let csv = String::from_utf8(epd(&["report", &f, "--format", "csv"]).stdout).unwrap();
    let times: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').nth(15).unwrap()).collect();
    assert_eq!(times, ["0.0125", "0.000125", "3.0", "0.007"]);
    // BT-2630 sums them as written.
    let r = json(&["--time-scores", &f]);
    close(&r["runs"][0]["time_scores"][0]["value"], 2630.0 - (0.0125 + 0.000125 + 3.0 + 0.007) / 30.0, 1e-12);
    // The curve counts each record within its time plus the resolution it
    // is written with, in tenths of a millisecond rounded up: 0.125 ms +
    // 1 µs -> 0.2 ms; 7 ms + 1 ms; 12.5 ms + 0.1 ms; 3 s + 1 s.
    let html = String::from_utf8(epd(&["report", &f, "--format", "html"]).stdout).unwrap();
    let curve = chart(&html, "time-curve");
    let got: Vec<(f64, u64)> = curve
        .split("<circle ")
        .skip(1)
        .map(|c| (attr(c, "data-x").parse().unwrap(), attr(c, "data-y").parse().unwrap()))
        .collect();
    let want = [(0.0002, 1), (0.008, 2), (0.0126, 3), (4.0, 4)];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((x, y), (wx, wy)) in got.iter().zip(want) {
        assert!((x - wx).abs() < 1e-12 && *y == wy, "{got:?}");
    }
    // Five decades: a tick per power of ten, in human units.
    assert_eq!(ticks(curve, "x"), ["100 µs", "1 ms", "10 ms", "100 ms", "1 s", "10 s"]);
}

/// `epd analyze SRC --nodes NODES --counters` into `out` (the built-in
/// engine, two jobs); returns `out`.
fn analyze(src: &Path, nodes: &str, out: &Path) -> String {
    let st = Command::new(EPD)
        .args(["analyze", "--nodes", nodes, "--counters", "-q", "-j", "2", "-o"])
        .arg(out)
        .arg(src)
        .status()
        .unwrap();
    assert!(st.success());
    out.to_string_lossy().into_owned()
}

/// Counts with python-chess (an independent oracle): records whose pm is
/// in bm (when present) and not in am (when present), of those with bm
/// or am.
fn python_count(path: &Path) -> Option<(u64, u64)> {
    let script = r#"
import sys, chess
solved = scored = 0
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.strip()
    if not line: continue
    board, ops = chess.Board.from_epd(line)
    def moves(k):
        v = ops.get(k)
        if v is None: return None
        return v if isinstance(v, list) else [v]
    bm, am = moves("bm"), moves("am")
    if bm is None and am is None: continue
    scored += 1
    pm = ops.get("pm")
    if pm is not None and (bm is None or pm in bm) and (am is None or pm not in am): solved += 1
print(solved, scored)
"#;
    let out = Command::new("python3").args(["-c", script]).arg(path).output().ok()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("Error") || err.contains("No module named 'chess'"),
            "python-chess failed on {}: {err}",
            path.display()
        );
        assert!(std::env::var_os("EPDKIT_REQUIRE_PYTHON_CHESS").is_none(), "python-chess is required");
        return None;
    }
    let text = String::from_utf8(out.stdout).unwrap();
    let mut it = text.split_whitespace().map(|n| n.parse().unwrap());
    Some((it.next()?, it.next()?))
}

#[test]
fn real_runs_of_wac_and_sts_at_two_node_limits() {
    let dir = tempfile::tempdir().unwrap();
    for (suite, themes) in [("wacnew.epd", 1), ("STS1-STS15_LAN_v3.epd", 16)] {
        let src = epd_testkit::corpus_path(suite);
        let files: Vec<String> = ["1000", "4000"]
            .iter()
            .map(|nodes| analyze(&src, nodes, &dir.path().join(format!("{suite}-{nodes}.epd"))))
            .collect();
        let r = json(&[&files[0], &files[1]]);
        for (i, f) in files.iter().enumerate() {
            let run = &r["runs"][i];
            assert_eq!(run["invalid"], 0);
            if let Some((solved, scored)) = python_count(Path::new(f)) {
                assert_eq!((run["solved"].as_u64(), run["scored"].as_u64()), (Some(solved), Some(scored)), "{f}");
            }
            // The themes add up to the whole.
            let t = run["themes"].as_object().unwrap();
            assert_eq!(t.len(), themes, "{f}");
            let sum = |k: &str| t.values().map(|v| v[k].as_u64().unwrap()).sum::<u64>();
            assert_eq!(sum("records"), run["records"].as_u64().unwrap());
            assert_eq!(sum("solved"), run["solved"].as_u64().unwrap());
        }
        let c = &r["comparisons"][0];
        let total = ["both", "a_only", "b_only", "neither"].iter().map(|k| c[k].as_u64().unwrap()).sum::<u64>();
        assert_eq!(total, c["paired"].as_u64().unwrap());
        assert_eq!(c["paired"], r["runs"][0]["scored"]);
    }
}

/// Runs chromium on `page` with `args`; returns (stdout, stderr). The
/// output goes to files (a pipe left unread would stall it).
/// A screenshot of `page` for people to look at, kept under
/// target/report-screenshots/NAME.png (CI keeps it).
fn screenshot(bin: &str, profile: &Path, page: &Path, name: &str, size: &str) {
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().join("report-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let shot = shots.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&shot);
    run_chromium(bin, profile, &[&format!("--screenshot={}", shot.display()), &format!("--window-size={size}")], page);
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "{} bytes", png.len());
    eprintln!("screenshot: {}", shot.display());
}

fn run_chromium(bin: &str, profile: &Path, args: &[&str], page: &Path) -> (String, String) {
    let (out, err) = (profile.with_extension("out"), profile.with_extension("err"));
    let mut child = Command::new(bin)
        .args(epd_testkit::CHROMIUM_FLAGS)
        .args(["--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    (read(&out), read(&err))
}

/// The page's DOM after Chromium ran its scripts, checked as every report
/// page must be: its script ran, it loaded nothing, and it logged nothing
/// to the console.
fn clean_dom(bin: &str, profile: &Path, page: &Path) -> String {
    let (dom, log) = run_chromium(bin, profile, &["--dump-dom"], page);
    assert!(dom.contains("data-ready=\"1\""), "the page's script did not run");
    assert!(dom.contains("data-resources=\"0\""), "the page loaded something");
    for l in log.lines() {
        assert!(!l.contains("CONSOLE") && !l.contains("Uncaught") && !l.contains("Content Security Policy"), "{l}");
    }
    dom
}

/// The markup of the chart of `kind` in `dom`.
fn chart<'a>(dom: &'a str, kind: &str) -> &'a str {
    let start = dom.find(&format!("data-kind=\"{kind}\"")).unwrap_or_else(|| panic!("no {kind} chart"));
    let end = dom[start..].find("</figure>").unwrap();
    &dom[start..start + end]
}

/// The value of attribute `name` in the markup `m` (its first).
fn attr<'a>(m: &'a str, name: &str) -> &'a str {
    let at = m.find(&format!(" {name}=\"")).unwrap_or_else(|| panic!("no {name} in {m}"));
    m[at + name.len() + 3..].split('"').next().unwrap()
}

/// The tick labels of an axis (`x` or `y`) of a chart, in order.
fn ticks(chart: &str, axis: &str) -> Vec<String> {
    chart
        .split("<text ")
        .skip(1)
        .filter(|t| t.contains("class=\"tick") && t.contains(&format!("data-axis=\"{axis}\"")))
        .map(|t| t.split('>').nth(1).unwrap().split('<').next().unwrap().to_owned())
        .collect()
}

/// The title of an axis of a chart.
fn axis_label(chart: &str, axis: &str) -> String {
    let t = chart
        .split("<text ")
        .find(|t| t.starts_with("class=\"axis-label\"") && t.contains(&format!("data-axis=\"{axis}\"")))
        .unwrap_or_else(|| panic!("no {axis} axis label in {chart}"));
    t.split('>').nth(1).unwrap().split('<').next().unwrap().to_owned()
}

#[test]
fn html_report_in_headless_chromium() {
    let Some(bin) = epd_testkit::chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two real runs of STS (themes, points) with counters and solution
    // times in whole milliseconds.
    let src = epd_testkit::corpus_path("STS1-STS15_LAN_v3.epd");
    let runs: Vec<String> = ["1000", "8000"]
        .iter()
        .map(|nodes| {
            let out = d.join(format!("sts-{nodes}.epd"));
            let st = Command::new(EPD)
                .args(["analyze", "--nodes", nodes, "--counters", "--solution-time", "-q", "-j", "2", "-o"])
                .arg(&out)
                .arg(&src)
                .status()
                .unwrap();
            assert!(st.success());
            out.to_string_lossy().into_owned()
        })
        .collect();
    let page = d.join("report.html");
    let out = epd(&["report", &runs[0], &runs[1], "--format", "html", "-o", &page.to_string_lossy()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains(" src="), "no reference out");
    // Deterministic: the same report twice is the same page.
    let again = epd(&["report", &runs[0], &runs[1], "--format", "html"]);
    assert!(again.stdout == html.as_bytes(), "two renderings differ");
    // The data, as the JSON and CSV renderings of the same report give it.
    let r = json(&[&runs[0], &runs[1]]);
    let csv = String::from_utf8(epd(&["report", &runs[0], &runs[1], "--format", "csv"]).stdout).unwrap();
    let rows: Vec<Vec<String>> = csv
        .lines()
        .skip(1)
        .map(|l| {
            // Ids and themes hold no comma in STS; the file name none.
            l.split(',').map(str::to_owned).collect()
        })
        .collect();
    let of = |f: &str| -> Vec<&Vec<String>> { rows.iter().filter(|r| r[1] == f).collect() };
    let profile = d.join("profile");
    let dom = clean_dom(bin, &profile, &page);
    let labels: Vec<&str> = (0..2).map(|i| r["runs"][i]["label"].as_str().unwrap()).collect();
    // Every chart: both axes titled with their unit, ticks, and a legend.
    for (kind, x, y) in [
        ("themes", "solved (% of the theme's scored records)", "theme"),
        ("time-curve", "solved within (time, log scale)", "records solved (cumulative)"),
        ("nodes-curve", "nodes when solved (log scale)", "records solved (cumulative)"),
        ("ce-histogram", "evaluation, ce (centipawns, for the side to move; mate scores left out)", "records"),
    ] {
        let c = chart(&dom, kind);
        assert_eq!((axis_label(c, "x").as_str(), axis_label(c, "y").as_str()), (x, y), "{kind}");
        assert!(!ticks(c, "x").is_empty() && !ticks(c, "y").is_empty(), "{kind}");
        let legend = c.split("<div class=\"legend\">").nth(1).unwrap_or_else(|| panic!("no legend in {kind}"));
        for l in &labels {
            assert!(legend.contains(l), "{kind}: {l} not in the legend");
        }
        assert!(!c.contains(">1e"), "{kind}: a tick in powers of ten");
    }
    let scatter = chart(&dom, "time-scatter");
    assert_eq!(axis_label(scatter, "x"), format!("{}: solve time (log scale)", labels[0]));
    assert_eq!(axis_label(scatter, "y"), format!("{}: solve time (log scale)", labels[1]));
    assert!(scatter.contains("<div class=\"legend\">") && scatter.contains("equal times"));
    // Ticks in human units.
    let human_time = |t: &String| {
        let (n, unit) = t.split_once(' ').unwrap_or_else(|| panic!("{t}"));
        n.parse::<f64>().is_ok() && ["µs", "ms", "s"].contains(&unit)
    };
    let human_count = |t: &String| {
        let n = t.trim_end_matches(['k', 'M', 'G']);
        n.parse::<f64>().is_ok() && n.len() + 1 >= t.len()
    };
    for (kind, axis, ok) in [
        ("time-curve", "x", &human_time as &dyn Fn(&String) -> bool),
        ("time-scatter", "x", &human_time),
        ("time-scatter", "y", &human_time),
        ("nodes-curve", "x", &human_count),
        ("nodes-curve", "y", &human_count),
        ("ce-histogram", "y", &human_count),
    ] {
        let t = ticks(chart(&dom, kind), axis);
        assert!(t.iter().all(ok), "{kind} {axis}: {t:?}");
    }
    // Themes: a bar per theme per run.
    let themes = r["runs"][0]["themes"].as_object().unwrap().len();
    assert_eq!(chart(&dom, "themes").matches("class=\"bar\"").count(), themes * 2);
    // The time curve, worked out here from the CSV rows, in tenths of a
    // millisecond: each solved record counts within its time plus the
    // resolution it is written with (analyze writes Solve_ms to 0.1 ms,
    // and as whole milliseconds when the tenth is 0); a point per
    // distinct value per run, cumulative.
    let curve = chart(&dom, "time-curve");
    for (i, f) in runs.iter().enumerate() {
        let mut within: Vec<u64> = of(f)
            .iter()
            .filter(|r| r[5] == "solved")
            .map(|r| {
                let tenths = (r[15].parse::<f64>().unwrap() * 10_000.0).round() as u64;
                tenths + if tenths.is_multiple_of(10) { 10 } else { 1 }
            })
            .collect();
        within.sort_unstable();
        let mut want: Vec<(u64, u64)> = Vec::new();
        for (k, ms) in within.iter().enumerate() {
            match want.last_mut() {
                Some(last) if last.0 == *ms => last.1 = k as u64 + 1,
                _ => want.push((*ms, k as u64 + 1)),
            }
        }
        let got: Vec<(u64, u64)> = curve
            .split("<circle ")
            .skip(1)
            .filter(|c| attr(c, "data-run") == labels[i])
            .map(|c| {
                (
                    (attr(c, "data-x").parse::<f64>().unwrap() * 10_000.0).round() as u64,
                    attr(c, "data-y").parse().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, want, "{f}");
    }
    // Nodes: a point per distinct value per run (col 16).
    let distinct = |f: &str, col: usize| {
        let mut v: Vec<&str> =
            of(f).iter().filter(|r| r[5] == "solved" && !r[col].is_empty()).map(|r| r[col].as_str()).collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    assert_eq!(
        chart(&dom, "nodes-curve").matches("class=\"point\"").count(),
        distinct(&runs[0], 16) + distinct(&runs[1], 16)
    );
    // The ce histogram, binned here: below -500, 50 cp bins, 500 and up;
    // mate scores left out.
    let ce = chart(&dom, "ce-histogram");
    assert_eq!(ce.matches("class=\"bar\"").count(), 22 * 2);
    assert!(ce.contains(">&lt; −500</text>") && ce.contains(">≥ 500</text>"), "the open bins are labelled");
    for (i, f) in runs.iter().enumerate() {
        let mut want = [0u64; 22];
        for x in of(f) {
            let Ok(c) = x[14].parse::<i64>() else { continue };
            if c.abs() > 32000 {
                continue;
            }
            let bin = if c < -500 { 0 } else { (((c + 500) / 50) as usize + 1).min(21) };
            want[bin] += 1;
        }
        let bars: Vec<&str> = ce.split("<rect ").skip(1).filter(|b| attr(b, "data-run") == labels[i]).collect();
        let got: Vec<u64> = bars.iter().map(|b| attr(b, "data-value").parse().unwrap()).collect();
        assert_eq!(got, want, "{f}");
        // Each bar with records has its count written on it.
        let counts: Vec<u64> = ce
            .split("<text ")
            .filter(|t| t.starts_with("class=\"count\"") && attr(t, "data-run") == labels[i])
            .map(|t| t.split('>').nth(1).unwrap().split('<').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(counts, want.iter().copied().filter(|&c| c > 0).collect::<Vec<_>>(), "{f}");
    }
    // The scatter: a circle per distinct pair of times of the records both
    // solved, its data-count the records there; paired here by id, in
    // tenths of a millisecond, each pair at the coarser resolution of its
    // two times (a whole-millisecond Solve_ms is 10 tenths), rounded to
    // it and at least one step of it.
    let time_of = |f: &str| -> std::collections::HashMap<String, u64> {
        of(f)
            .iter()
            .filter(|r| r[5] == "solved")
            .map(|r| (r[3].clone(), (r[15].parse::<f64>().unwrap() * 10_000.0).round() as u64))
            .collect()
    };
    let (ta, tb) = (time_of(&runs[0]), time_of(&runs[1]));
    let mut want: std::collections::BTreeMap<(u64, u64), u64> = Default::default();
    for (id, &a) in &ta {
        if let Some(&b) = tb.get(id) {
            let step = |t: u64| if t.is_multiple_of(10) { 10 } else { 1 };
            let res = step(a).max(step(b));
            let at = |t: u64| (((t as f64 / res as f64).round() as u64) * res).max(res);
            *want.entry((at(a), at(b))).or_insert(0) += 1;
        }
    }
    let mut got: std::collections::BTreeMap<(u64, u64), u64> = Default::default();
    for c in scatter.split("<circle class=\"point\"").skip(1) {
        let ms = |k: &str| (attr(c, k).parse::<f64>().unwrap() * 10_000.0).round() as u64;
        *got.entry((ms("data-a"), ms("data-b"))).or_insert(0) += attr(c, "data-count").parse::<u64>().unwrap();
    }
    assert_eq!(got, want);
    assert_eq!(got.values().sum::<u64>(), r["comparisons"][0]["times"]["n"].as_u64().unwrap());
    // Every table of the text report: runs, themes (with points), the
    // distributions of depth, nodes, time and ce, the comparison, the
    // sign test. The distributions: a row per run, counter and part.
    for id in ["runs", "themes", "distributions", "comparisons", "sign-test"] {
        assert!(dom.contains(&format!("<table class=\"sortable\" id=\"{id}\">")), "no table {id}");
    }
    let table = |id: &str| dom.split(&format!("id=\"{id}\">")).nth(1).unwrap().split("</table>").next().unwrap();
    let parts: usize = (0..2)
        .map(|i| {
            r["runs"][i]["distributions"]
                .as_object()
                .unwrap()
                .values()
                .map(|s| ["all", "solved", "missed"].iter().filter(|p| !s[**p].is_null()).count())
                .sum::<usize>()
        })
        .sum();
    assert_eq!(table("distributions").matches("<tr>").count(), parts + 1);
    assert!(table("runs").contains("<th>points %</th>") && table("themes").contains(" points</th>"));
    let sign = table("sign-test");
    let t = &r["comparisons"][0]["times"];
    let p = t["sign_test_p"].as_f64().unwrap();
    // The same number (serde_json's float reading may differ in the last bit).
    let shown: f64 = sign.split("data-v=\"").last().unwrap().split('"').next().unwrap().parse().unwrap();
    assert!((shown - p).abs() <= p.abs() * 1e-12, "{shown} against {p}: {sign}");
    assert!(sign.contains("sign test (exact binomial, two-sided)"), "{sign}");
    screenshot(bin, &profile, &page, "report", "1200,4200");
}

#[test]
fn solution_times_from_analyze_feed_the_time_scores() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bt.epd");
    let src = epd_testkit::corpus_path("bt2630.epd");
    let st = Command::new(EPD)
        .args(["analyze", "--nodes", "20000", "--counters", "--solution-time", "-q", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap();
    assert!(st.success());
    // The extensions are valid EPD: check accepts the file.
    let check = epd(&["check", &out.to_string_lossy()]);
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let mut expect_bt = 0.0;
    let mut solved_times = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let text_of = |name: &str| -> Option<&str> {
            let at = line.find(&format!(" {name} "))?;
            Some(line[at + name.len() + 2..].split(';').next()?.trim())
        };
        let field = |name: &str| -> Option<u64> { text_of(name)?.parse().ok() };
        // Solve_ms to 0.1 ms: digits, then at most one decimal.
        let ms = text_of("Solve_ms").and_then(|t| {
            let ok = t.split_once('.').is_none_or(|(_, d)| d.len() == 1);
            ok.then(|| t.parse::<f64>().ok()).flatten()
        });
        let (nodes, depth) = (field("Solve_acn"), field("Solve_acd"));
        assert!(ms.is_some() && nodes.is_some() && depth.is_some(), "{line}");
        // Found no later than the search ended.
        assert!(nodes.unwrap() <= field("acn").unwrap() && depth.unwrap() <= field("acd").unwrap(), "{line}");
        let pm = line.split("pm ").nth(1).unwrap().split(';').next().unwrap();
        let bm = line.split("bm ").nth(1).unwrap().split(';').next().unwrap();
        if bm.split(' ').any(|b| b == pm) {
            let t = ms.unwrap() / 1000.0;
            expect_bt += t.min(900.0);
            solved_times.push(t);
        } else {
            expect_bt += 900.0;
        }
    }
    let r = json(&["--time-scores", &out.to_string_lossy()]);
    assert_eq!(r["runs"][0]["solved"].as_u64().unwrap() as usize, solved_times.len());
    close(&r["runs"][0]["time_scores"][0]["value"], 2630.0 - expect_bt / 30.0, 1e-6);
}

#[test]
fn hostile_bytes_are_counted_not_fatal() {
    // Random bytes, a NUL, an over-long line, a string that never ends:
    // every line is a record or an invalid record, the report is still
    // written, and the exit code says some were invalid.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk.epd");
    let mut rng = epd_testkit::XorShift::new(20);
    let mut bytes = rng.bytes(20_000);
    bytes.extend_from_slice(b"\n\0\n");
    bytes.extend(std::iter::repeat_n(b'a', 2 << 20));
    bytes.extend_from_slice(b"\n8/8/8/8/8/8/8/K6k w - - c0 \"unending\n");
    bytes.extend_from_slice(std::fs::read_to_string(data("run-a.epd")).unwrap().lines().next().unwrap().as_bytes());
    bytes.push(b'\n');
    std::fs::write(&path, &bytes).unwrap();
    let out = epd(&["report", "--format", "json", &path.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let run = &r["runs"][0];
    assert!(run["invalid"].as_u64().unwrap() >= 3, "{run}");
    // The one good record is still judged (WAC.001, solved).
    assert_eq!(run["solved"], 1);
    let invalid = run["issues"].as_array().unwrap().iter().filter(|i| i["kind"] == "invalid").count() as u64;
    assert_eq!(invalid, run["invalid"].as_u64().unwrap());
}

#[test]
fn a_report_read_with_many_jobs_is_the_one_read_with_one() {
    // A real run (the benchmark corpus, cut down, twice over: duplicate
    // ids and positions, records found by every pair of runs) spoilt
    // here and there: invalid records, warnings, blank lines, a string
    // continued on the next line, an over-long line; and WAC with its key
    // from another file. Every format, stdout and stderr, byte for byte,
    // with one job, two and five (batches of the line pipeline, counted
    // in order).
    let corpus = std::fs::read_to_string(epd_testkit::bench_corpus_path()).unwrap();
    let lines: Vec<&str> = corpus.lines().take(6000).collect();
    let mut spoilt = String::new();
    for (i, line) in lines.iter().chain(&lines).enumerate() {
        match i % 97 {
            3 => spoilt.push_str(&line.replacen("pm ", "pm Zz9 ", 1)),
            11 => spoilt.push_str(&line.replacen(" w ", " x ", 1)),
            17 => spoilt.push_str(&format!("\n{line}")),
            29 => spoilt.push_str(&format!("{line}\r")),
            41 => spoilt.push_str(&line.replacen("c0 \"random play", "c0 \"random\nplay", 1)),
            53 => spoilt.push_str(&line.replacen(';', "", 1)),
            _ => spoilt.push_str(line),
        }
        spoilt.push('\n');
        if i == 7000 {
            spoilt.push_str(&"a".repeat(1 << 20 | 7));
            spoilt.push('\n');
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run.epd");
    std::fs::write(&run, spoilt).unwrap();
    let run = run.to_string_lossy().into_owned();
    let wac = epd_testkit::corpus_path("wacnew.epd").to_string_lossy().into_owned();
    let wac_results = epd_testkit::corpus_path("wac_arasan.epd").to_string_lossy().into_owned();
    let small = data("run-a.epd");
    for args in [
        vec!["--format", "text", &run, &small],
        vec!["--format", "json", &run],
        vec!["--format", "json", "--strict", &run, &run],
        vec!["--format", "csv", &run, &small],
        vec!["--format", "html", &small, &run],
        vec!["--format", "json", "--key", &wac, &wac_results, &wac],
    ] {
        let with = |jobs: &str| {
            let mut all = vec!["report", "--jobs", jobs];
            all.extend_from_slice(&args);
            epd(&all)
        };
        let one = with("1");
        assert!(one.status.code().is_some_and(|c| c <= 1), "{args:?}: {}", String::from_utf8_lossy(&one.stderr));
        assert!(one.stdout.len() > 1000, "{args:?}");
        for jobs in ["2", "5"] {
            let many = with(jobs);
            assert_eq!(many.status.code(), one.status.code(), "{args:?} -j {jobs}");
            assert!(many.stdout == one.stdout, "{args:?} -j {jobs}: the report differs");
            assert!(many.stderr == one.stderr, "{args:?} -j {jobs}: the diagnostics differ");
        }
        if args.contains(&run.as_str()) {
            assert!(!one.stderr.is_empty(), "{args:?}: the spoilt lines are diagnosed");
        }
    }
}

/// What the test knows of a benchmark-corpus record, read with plain
/// string handling (the corpus is canonical: `am`, `bm` before `c0`,
/// `id`, `pm`, `pv` last).
struct Plain {
    position: String,
    id: String,
    bm: Vec<String>,
    am: Vec<String>,
    pm: String,
}

fn plain(line: &str) -> Plain {
    let op = |name: &str| -> Option<String> {
        let at = line.find(&format!(" {name} "))?;
        Some(line[at + name.len() + 2..].split(';').next().unwrap().to_owned())
    };
    let words = |s: Option<String>| s.map(|s| s.split(' ').map(str::to_owned).collect()).unwrap_or_default();
    Plain {
        position: line.split(' ').take(4).collect::<Vec<_>>().join(" "),
        id: op("id").unwrap().trim_matches('"').to_owned(),
        bm: words(op("bm")),
        am: words(op("am")),
        pm: op("pm").unwrap(),
    }
}

impl Plain {
    /// §7.5: the move in bm (when there is bm), and not in am.
    fn solved(&self) -> bool {
        (self.bm.is_empty() || self.bm.contains(&self.pm)) && !self.am.contains(&self.pm)
    }
}

/// `line` with its pm and pv replaced by `mv`.
fn playing(line: &str, mv: &str) -> String {
    let at = line.find("; pm ").unwrap();
    format!("{}; pm {mv}; pv {mv};", &line[..at])
}

#[test]
fn a_report_larger_than_its_memory_agrees_with_a_count_made_here() {
    // 140,000 records: the benchmark corpus, then its first 40,000 again
    // (every one a duplicate id and position). More than a run keeps in
    // memory: ids, positions, missed ids and issues go to disk.
    let corpus = std::fs::read_to_string(epd_testkit::bench_corpus_path()).unwrap();
    let base: Vec<&str> = corpus.lines().collect();
    let a: Vec<&str> = base.iter().chain(&base[..40_000]).copied().collect();
    // Run b: the corpus backwards, every third record a missed one made
    // solved (its first bm played) and every solved one with am made
    // missed (its first am played).
    let mut b = Vec::new();
    let (mut newly_solved, mut newly_failed) = (Vec::new(), Vec::new());
    for (i, line) in base.iter().rev().enumerate() {
        let p = plain(line);
        if !p.solved() && i % 3 == 0 && !p.bm.is_empty() && !p.am.contains(&p.bm[0]) {
            b.push(playing(line, &p.bm[0]));
            newly_solved.push(p.id);
        } else if p.solved() && !p.am.is_empty() {
            b.push(playing(line, &p.am[0]));
            newly_failed.push(p.id);
        } else {
            b.push((*line).to_owned());
        }
    }
    assert!(newly_solved.len() > 1000 && newly_failed.len() > 100, "{} {}", newly_solved.len(), newly_failed.len());
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.epd"), dir.path().join("b.epd"));
    std::fs::write(&pa, a.join("\n") + "\n").unwrap();
    std::fs::write(&pb, b.join("\n") + "\n").unwrap();
    let regressions = dir.path().join("regressions.epd");
    // Run b from standard input: it is copied aside to read its ids again.
    let out = Command::new(EPD)
        .args(["report", "--format", "json", &pa.to_string_lossy(), "-", "--label", "a", "--label", "b"])
        .stdin(std::fs::File::open(&pb).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Counted here.
    let plain_a: Vec<Plain> = a.iter().map(|l| plain(l)).collect();
    let missed: Vec<&str> = plain_a.iter().filter(|p| !p.solved()).map(|p| p.id.as_str()).collect();
    let run = &r["runs"][0];
    assert_eq!(run["records"], 140_000);
    assert_eq!(run["solved"].as_u64().unwrap() as usize, a.len() - missed.len());
    let ids: Vec<&str> = run["missed_ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(ids, missed);
    // Every duplicate, in line order, with the line it repeats.
    let mut first_id = std::collections::HashMap::new();
    let mut first_pos = std::collections::HashMap::new();
    let mut want = Vec::new();
    for (i, p) in plain_a.iter().enumerate() {
        let line = i as u64 + 1;
        if let Some(f) = first_id.get(&p.id) {
            want.push((line, "duplicate-id".to_owned(), format!("the id {:?} of line {f} again", p.id)));
        } else {
            first_id.insert(p.id.clone(), line);
        }
        if let Some(f) = first_pos.get(&p.position) {
            want.push((line, "duplicate-position".to_owned(), format!("the position of line {f} again")));
        } else {
            first_pos.insert(p.position.clone(), line);
        }
    }
    let got: Vec<(u64, String, String)> = run["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (i["line"].as_u64().unwrap(), i["kind"].as_str().unwrap().into(), i["message"].as_str().unwrap().into())
        })
        .collect();
    assert_eq!(got.len(), want.len());
    assert_eq!(got, want);
    // The comparison pairs each record with its own, whatever the order;
    // the second occurrences in a have none in b.
    let c = &r["comparisons"][0];
    assert_eq!(c["paired"], 100_000);
    assert_eq!(c["unmatched"], serde_json::json!([40_000, 0]));
    let list =
        |k: &str| -> Vec<String> { c[k].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect() };
    assert_eq!(list("newly_solved"), newly_solved);
    assert_eq!(list("newly_failed"), newly_failed);
    assert_eq!(
        (c["b_only"].as_u64(), c["a_only"].as_u64()),
        (Some(newly_solved.len() as u64), Some(newly_failed.len() as u64))
    );
    // The regressions written back are b's records, unchanged.
    let out = epd(&[
        "report",
        &pa.to_string_lossy(),
        &pb.to_string_lossy(),
        "--write-regressions",
        &regressions.to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let written = std::fs::read_to_string(&regressions).unwrap();
    let failed: std::collections::HashSet<&String> = newly_failed.iter().collect();
    let want: Vec<&str> = b.iter().map(String::as_str).filter(|l| failed.contains(&plain(l).id)).collect();
    assert_eq!(written.lines().collect::<Vec<_>>(), want);
}

/// The peak resident memory of `epd ARGS`, KiB, from /proc while it runs.
#[cfg(target_os = "linux")]
fn peak_memory(args: &[&str]) -> u64 {
    let mut child = Command::new(EPD)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        // The high-water mark only rises: the last reading is the peak,
        // give or take the last few milliseconds.
        if let Ok(s) = std::fs::read_to_string(&status) {
            if let Some(kb) = s.lines().find_map(|l| l.strip_prefix("VmHWM:")) {
                peak = peak.max(kb.trim().trim_end_matches("kB").trim().parse().unwrap_or(0));
            }
        }
        if child.try_wait().unwrap().is_some() {
            return peak;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

#[test]
#[cfg(target_os = "linux")]
fn memory_is_bounded_by_the_runs_not_the_records() {
    // One run of 100,000 records, then one of 800,000 (the corpus eight
    // times: 1.4 million duplicate issues, 700,000 missed ids): the
    // report's memory stays what it was, while what it writes grows.
    let corpus = std::fs::read(epd_testkit::bench_corpus_path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.epd");
    std::fs::write(&big, corpus.repeat(8)).unwrap();
    let small = epd_testkit::bench_corpus_path();
    for format in ["text", "json"] {
        let one = peak_memory(&["report", "--format", format, &small.to_string_lossy()]);
        let eight = peak_memory(&["report", "--format", format, &big.to_string_lossy()]);
        assert!(one > 0 && eight > 0);
        assert!(eight < one + 12 * 1024, "{format}: {one} KiB for 100,000 records, {eight} KiB for 800,000");
    }
}

/// A tuning run's history, made by epd-tune's own run (its files, as
/// `epd tune` writes them) with a stand-in for the games: θ⁺ wins a pair
/// when its Margin is nearer 250 than θ⁻'s, else loses it; a draw for each
/// pair either way. 40 pairs, 2 per iteration.
fn tuning_run(dir: &Path) {
    use epd_tune::games::Score;
    use epd_tune::run::{Measure, Run};
    use epd_tune::spsa::{Param, Schedule, Spsa};
    let params = vec![
        Param::new("Margin", 100.0, 0.0, 400.0, 20.0, 0.002).unwrap(),
        Param::new("Skill Level", 10.0, 0.0, 20.0, 2.0, 0.02).unwrap(),
    ];
    let fresh = Spsa::new(params, Schedule::new(40), 3).unwrap();
    let run = Run { dir: dir.to_owned(), batch: 2, seed: 3 };
    let mut play = |_: &Path, _: &Spsa, probe: &epd_tune::spsa::Probe, pairs: u32| {
        let better = (probe.plus[0] - 250.0).abs() < (probe.minus[0] - 250.0).abs();
        Ok(Measure::Games(if better {
            Score { wins: pairs, draws: pairs, losses: 0 }
        } else {
            Score { wins: 0, draws: pairs, losses: pairs }
        }))
    };
    run.go(run.begin(fresh, false).unwrap(), &mut play, &mut |_| {}).unwrap();
}

#[test]
fn tuning_report_of_a_run_in_three_formats_and_in_headless_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = d.join("run");
    tuning_run(&run);
    let history = run.join("history.csv");
    let (dir_arg, csv_arg) = (run.to_string_lossy().into_owned(), history.to_string_lossy().into_owned());
    // What epd-tune wrote beside the CSV, read here on its own: a JSON
    // line per iteration, and the state at the end.
    let lines: Vec<Value> = std::fs::read_to_string(run.join("history.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let state: Value = serde_json::from_str(&std::fs::read_to_string(run.join("tune.json")).unwrap()).unwrap();
    assert_eq!(lines.len(), 20);
    // JSON, the directory or its history.csv alike.
    let out = epd(&["report", "--tuning", &dir_arg, "--format", "json", "--window", "3"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    let by_file = epd(&["report", "--tuning", &csv_arg, "--format", "json", "--window", "3"]);
    assert_eq!(by_file.stdout, out.stdout);
    assert_eq!((j["schema"].as_str(), j["mode"].as_str()), (Some("epd-tuning/1"), Some("games")));
    assert_eq!((j["iterations"].as_u64(), j["pairs"].as_u64(), j["window"].as_u64()), (Some(20), Some(40), Some(3)));
    assert_eq!(j["planned_iterations"], state["schedule"]["iterations"]);
    let sum = |k: &str| lines.iter().map(|l| l["games"][k].as_u64().unwrap()).sum::<u64>();
    let (w, dr, l) = (sum("wins"), sum("draws"), sum("losses"));
    assert_eq!((j["games"]["wins"].as_u64(), j["games"]["draws"].as_u64()), (Some(w), Some(dr)));
    assert_eq!((j["games"]["losses"].as_u64(), j["games"]["games"].as_u64()), (Some(l), Some(w + dr + l)));
    close(&j["games"]["score_percent"], 100.0 * (w as f64 + dr as f64 / 2.0) / (w + dr + l) as f64, 1e-9);
    for (i, name) in ["Margin", "Skill Level"].iter().enumerate() {
        let p = &j["params"][i];
        assert_eq!(p["name"], *name);
        assert_eq!(p["start"], lines[0]["step"]["before"][i]);
        assert_eq!(p["end"], state["params"][i]["value"]);
        assert_eq!(p["last_c"], lines[19]["probe"]["c"][i]);
        // From tune.json beside the history: the range and c, r at the end.
        assert_eq!(p["range"], serde_json::json!([state["params"][i]["min"], state["params"][i]["max"]]));
        assert_eq!((&p["c_end"], &p["r_end"]), (&state["params"][i]["c_end"], &state["params"][i]["r_end"]));
        let values: Vec<f64> = std::iter::once(&lines[0]["step"]["before"][i])
            .chain(lines.iter().map(|l| &l["step"]["after"][i]))
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(p["min"].as_f64(), values.iter().copied().reduce(f64::min));
        assert_eq!(p["max"].as_f64(), values.iter().copied().reduce(f64::max));
        for (pt, line) in p["points"].as_array().unwrap().iter().zip(&lines) {
            assert_eq!((&pt["value"], &pt["plus"]), (&line["step"]["after"][i], &line["probe"]["plus"][i]));
        }
    }
    // The moving average over 3, worked out here from the JSON lines.
    let results: Vec<f64> = lines.iter().map(|l| l["step"]["result"].as_f64().unwrap()).collect();
    let series = &j["series"][0];
    assert_eq!(series["name"], "result");
    for (n, pt) in series["points"].as_array().unwrap().iter().enumerate() {
        let from = n.saturating_sub(2);
        let want = results[from..=n].iter().sum::<f64>() / (n + 1 - from) as f64;
        close(&pt["moving_average"], want, 1e-12);
        assert_eq!(pt["value"].as_f64(), Some(results[n]));
    }
    // Text: the run, a row per parameter, its course, the average.
    let out = epd(&["report", "--tuning", &dir_arg]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let planned = state["schedule"]["iterations"].as_u64().unwrap();
    // --batch 2: 20 iterations played the 40 pairs the plan counts.
    assert!(text.contains(&format!(": 20 iterations, 40 of {planned} pairs\n")), "{text}");
    assert!(text.lines().next_back().is_some() && text.contains("range    c_end    r_end\n"), "{text}");
    assert!(text.contains(&format!("+{w} ={dr} -{l}")), "{text}");
    assert!(text.contains("moving average over the last 2 iterations"), "a tenth of 20: {text}");
    assert!(text.contains("\nSkill Level: its value after the iteration"), "{text}");
    assert!(text.lines().any(|l| l.trim_start().starts_with("Skill Level ")), "{text}");
    // HTML, once to stdout and once to a file: the same page.
    let page = d.join("tuning.html");
    let out = epd(&["report", "--tuning", &dir_arg, "--format", "html", "-o", &page.to_string_lossy()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(epd(&["report", "--tuning", &csv_arg, "--format", "html"]).stdout, html.as_bytes());
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains(" src="), "no reference out");
    let Some(bin) = epd_testkit::chromium() else { return };
    let profile = d.join("profile");
    let dom = clean_dom(bin, &profile, &page);
    // One chart per parameter and the results' chart, each an SVG with
    // both axes titled and ticked.
    assert_eq!(dom.matches("<figure class=\"chart\"").count(), 3);
    assert_eq!(dom.matches("role=\"img\"").count(), 3);
    for name in ["Margin", "Skill Level"] {
        let c = chart(&dom, &format!("parameter\" data-param=\"{name}"));
        assert!(c.contains("<svg "), "{name}");
        assert_eq!((axis_label(c, "x"), axis_label(c, "y")), ("iteration".to_owned(), name.to_owned()));
        assert!(!ticks(c, "x").is_empty() && !ticks(c, "y").is_empty(), "{name}");
        // The value line: the start, then a point per iteration.
        let d = attr(c.split("class=\"value\"").nth(1).unwrap(), "d");
        assert_eq!(d.matches(['M', 'L']).count(), 21, "{name}: {d}");
        assert!(c.contains("class=\"probes\""), "{name}: the probes' band");
        assert!(dom.contains(&format!("<td class=\"l\">{name}</td>")), "{name} in the table");
        assert!(dom.contains("<th>range from</th>") && dom.contains("<th>r_end</th>"), "the state's columns");
    }
    let r = chart(&dom, "result");
    assert_eq!(r.matches("class=\"point\"").count(), 20);
    assert_eq!(attr(r.split("class=\"average\"").nth(1).unwrap(), "data-window"), "2");
    screenshot(bin, &profile, &page, "tuning", "1000,1500");
}

#[test]
fn tuning_report_of_a_suite_history_and_what_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().join("history.csv");
    std::fs::write(
        &h,
        "iteration,k,points_percent+,points_percent-,result,X,X+,X-,c(X),a(X),before(X)\n\
         1,1,50,40,10,12,15,5,5,0.2,10\n2,2,45,55,-10,10,7,17,5,0.2,12\n3,3,60,50,10,12,15,5,5,0.2,10\n",
    )
    .unwrap();
    let h = h.to_string_lossy().into_owned();
    let out = epd(&["report", "--tuning", &h, "--window", "2"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    // Means (50 + 45 + 60) / 3 and (40 + 55 + 50) / 3; the objective's
    // level 45, 50, 55, averaged over 2: 45, 47.5, 52.5.
    assert!(text.contains("(suite, points_percent): 3 iterations, 3 pairs"), "{text}");
    assert!(!text.contains("r_end"), "no tune.json, no state's columns: {text}");
    assert!(text.contains("θ⁺ 51.67, θ⁻ 48.33"), "{text}");
    assert!(text.contains("          3       3       10          0             55       52.5\n"), "{text}");
    let page = String::from_utf8(epd(&["report", "--tuning", &h, "--format", "html"]).stdout).unwrap();
    assert_eq!(page.matches("<figure class=\"chart\"").count(), 3, "X, the result and the objective");
    // Refused: not a history, a directory without one, CSV output, and the
    // flags of result files.
    for (args, want) in [
        (vec!["report", "--tuning", &data("run-a.epd")], "not a tuning history (epd tune's history.csv): no column"),
        (vec!["report", "--tuning", "/"], "/ holds no history.csv: not the directory of an epd tune run"),
        (vec!["report", "--tuning", &h, "--format", "csv"], "--tuning reports as text, json or html"),
        (vec!["report", "--tuning", &h, "--key", &h], "cannot be used with"),
        (vec!["report", "--tuning", &h, &h], "cannot be used with"),
        (vec!["report", "--window", "3", &data("run-a.epd")], "--window sets the moving average of --tuning"),
        (vec!["report", "--tuning", &h, "--window", "0"], "expected a number of iterations, 1 or more"),
    ] {
        let out = epd(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "iteration,k,wins,draws,losses,result,A,A+,A-,c(A),a(A),before(A)\n1,2,1,0,1,0,3,x,2,1,0.1,3\n",
    )
    .unwrap();
    let out = epd(&["report", "--tuning", &bad.to_string_lossy()]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad.csv:2: column 8 (A+): \"x\" is not a number"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A tune.json beside the history that is not a run's state: said, and
    // the history reported without it.
    std::fs::write(dir.path().join("tune.json"), "{\"params\": [{\"name\": \"X\"}]}").unwrap();
    let out = epd(&["report", "--tuning", &h]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("tune.json:1:25: not a tuning state (epd tune's tune.json): missing field `min`"), "{err}");
    assert!(err.trim_end().ends_with("; reported without it"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 iterations, 3 pairs"));
}

/// Two runs of the same four WAC positions recorded differently: `fine`
/// with the solve-time extensions (Solve_ms, Solve_acn) beside acs and
/// acn, `coarse` with acs and acn only, as an engine run without
/// --solution-time writes them. The report compares only what both
/// recorded: no sign test on Solve_ms against acs (all ties at 1 s: p =
/// 1.0), no curve mixing nodes at the solve with the whole search's, and
/// it says what it left out in text, JSON and HTML. The text's ce row
/// says how many mate scores it leaves out.
#[test]
fn runs_recorded_differently_are_compared_on_what_both_have() {
    let dir = tempfile::tempdir().unwrap();
    let fine = dir.path().join("fine.epd");
    let coarse = dir.path().join("coarse.epd");
    std::fs::write(
        &fine,
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - Solve_ms 12; Solve_acn 400; acd 9; acn 90000; acs 0; bm Qg6; ce 32761; id \"WAC.001\"; pm Qg6;\n\
         8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - Solve_ms 140; Solve_acn 21000; acd 9; acn 90000; acs 0; bm Rxb2; ce 310; id \"WAC.002\"; pm Rxb2;\n\
         5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - Solve_ms 35; Solve_acn 5000; acd 9; acn 90000; acs 0; bm Rg3; ce 250; id \"WAC.003\"; pm Rg3;\n\
         r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - Solve_ms 3; Solve_acn 90; acd 9; acn 90000; acs 0; bm Qxh7+; ce 32763; id \"WAC.004\"; pm Qxh7+;\n",
    )
    .unwrap();
    std::fs::write(
        &coarse,
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - acd 7; acn 20000; acs 0; bm Qg6; ce 32761; id \"WAC.001\"; pm Qg6;\n\
         8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - acd 7; acn 20000; acs 0; bm Rxb2; ce 290; id \"WAC.002\"; pm Rxb2;\n\
         5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - acd 7; acn 20000; acs 0; bm Rg3; ce 240; id \"WAC.003\"; pm Rg3;\n\
         r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - acd 7; acn 20000; acs 0; bm Qxh7+; ce 32763; id \"WAC.004\"; pm Qxh7+;\n",
    )
    .unwrap();
    let (f, c) = (fine.to_string_lossy(), coarse.to_string_lossy());
    let args = [f.as_ref(), c.as_ref(), "--label", "fine", "--label", "coarse"];
    let r = json(&args);
    let cmp = &r["comparisons"][0];
    assert_eq!((cmp["paired"].as_u64(), cmp["both"].as_u64()), (Some(4), Some(4)));
    assert!(cmp["times"].is_null(), "Solve_ms is not compared with acs: {cmp}");
    assert_eq!(
        cmp["left_out"][0],
        "solve times left out on 4 records both solved: fine has solve times (Solve_ms), coarse has only the whole \
         search's time (acs) (acs is the whole search's time, not when the move was found)"
    );
    assert_eq!(r["runs"][0]["effort"]["time_at_solve"], 4);
    assert_eq!(r["runs"][1]["effort"]["time_whole"], 4);
    assert_eq!(r["runs"][1]["effort"]["nodes_whole"], 4);
    assert_eq!(
        (r["curves"]["time"].clone(), r["curves"]["nodes"].clone()),
        (serde_json::json!([0]), serde_json::json!([0]))
    );
    let left: Vec<&str> = r["curves"]["left_out"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(
        left,
        [
            "coarse is left out of the solved-against-time curve: it has only the whole search's time (acs), the others \
             solve times (Solve_ms)",
            "coarse is left out of the solved-against-nodes curve: it has only the whole search's nodes (acn), the \
             others nodes at the solve (Solve_acn)",
        ]
    );
    assert_eq!((r["runs"][0]["ce_mates"].as_u64(), r["runs"][1]["ce_mates"].as_u64()), (Some(2), Some(2)));

    let text = String::from_utf8(epd(&["report", &f, &c, "--label", "fine", "--label", "coarse"]).stdout).unwrap();
    assert!(!text.contains("sign test"), "{text}");
    assert!(text.contains("  left out: solve times left out on 4 records both solved: fine has solve times"), "{text}");
    assert!(text.contains("note: coarse is left out of the solved-against-nodes curve"), "{text}");
    assert_eq!(text.matches("    ce leaves out 2 mate scores (counted among the mates)").count(), 2, "{text}");

    let html =
        String::from_utf8(epd(&["report", &f, &c, "--label", "fine", "--label", "coarse", "--format", "html"]).stdout)
            .unwrap();
    for kind in ["time-curve", "nodes-curve"] {
        let curve = chart(&html, kind);
        assert_eq!(curve.matches("data-run=\"fine\"").count(), 4, "{kind}: {curve}");
        assert!(!curve.contains("data-run=\"coarse\""), "{kind} draws only fine: {curve}");
        assert!(curve.contains("Coarse is left out of the solved-against-"), "{kind}: {curve}");
    }
    assert!(html.contains("<li>fine against coarse: solve times left out on 4 records both solved"), "{html}");

    // Recorded alike (both with the extensions): compared as before.
    let r = json(&[f.as_ref(), f.as_ref(), "--label", "a", "--label", "b"]);
    assert_eq!(r["comparisons"][0]["times"]["n"], 4);
    assert_eq!(r["comparisons"][0]["left_out"], serde_json::json!([]));
    assert_eq!(r["curves"]["time"], serde_json::json!([0, 1]));
}
