//! The reader and the report on small histories written by hand, their
//! figures worked out by hand.

use super::*;

const GAMES: &str = "iteration,k,wins,draws,losses,result,Margin,Margin+,Margin-,c(Margin),a(Margin),before(Margin),\
Skill Level,Skill Level+,Skill Level-,c(Skill Level),a(Skill Level),before(Skill Level)
1,2,2,1,1,1,110,120,80,20,0.5,100,5,6,4,1,0.1,5
2,4,0,2,2,-2,100,90,130,19,0.5,110,4.5,4,6,1,0.1,5
3,6,1,2,1,0,100,118,82,18,0.5,100,4.5,5.5,3.5,1,0.1,4.5
4,8,2,2,0,2,120,117,83,17,0.4,100,5.5,5.5,3.5,0.9,0.1,4.5
";

const SUITE: &str = "iteration,k,solved_percent+,solved_percent-,result,X,X+,X-,c(X),a(X),before(X)
1,1,50,40,10,12,15,5,5,0.2,10
2,2,45,55,-10,10,7,17,5,0.2,12
3,3,60,50,10,12,15,5,5,0.2,10
";

fn err(csv: &str) -> String {
    read(csv.as_bytes(), "h.csv").unwrap_err().to_string()
}

#[test]
fn a_games_history_reads_as_written() {
    let h = read(GAMES.as_bytes(), "h.csv").unwrap();
    assert_eq!(h.mode, Mode::Games);
    assert_eq!(h.params, ["Margin", "Skill Level"]);
    assert_eq!(h.iterations.len(), 4);
    let second = &h.iterations[1];
    assert_eq!((second.iteration, second.k, second.result), (2, 4, -2.0));
    assert_eq!(second.measured, Measured::Games { wins: 0, draws: 2, losses: 2 });
    assert_eq!(second.steps[0], Step { before: 110.0, plus: 90.0, minus: 130.0, c: 19.0, a: 0.5, value: 100.0 });
    assert_eq!(second.steps[1], Step { before: 5.0, plus: 4.0, minus: 6.0, c: 1.0, a: 0.1, value: 4.5 });
}

#[test]
fn a_games_report_worked_by_hand() {
    let h = read(GAMES.as_bytes(), "h.csv").unwrap();
    let t = build(&h, "h.csv", None);
    // Four iterations: a tenth is 0, so the window is 1 and the average
    // is the result itself.
    assert_eq!((t.iterations, t.pairs, t.window), (4, 8, 1));
    // +2 +0 +1 +2 = 5 wins, 1+2+2+2 = 7 draws, 1+2+1+0 = 4 losses; the
    // score (5 + 7/2) / 16 = 53.125 %.
    let g = t.games.unwrap();
    assert_eq!((g.wins, g.draws, g.losses, g.games), (5, 7, 4, 16));
    assert_eq!(g.score_percent, Some(53.125));
    assert!(t.suite.is_none());
    let m = &t.params[0];
    // Margin: before(Margin) of the first line, then 110, 100, 100, 120.
    assert_eq!((m.start, m.end, m.min, m.max), (Some(100.0), Some(120.0), Some(100.0), Some(120.0)));
    assert_eq!((m.last_c, m.last_a), (Some(17.0), Some(0.4)));
    let s = &t.params[1];
    // Skill Level: 5, then 5, 4.5, 4.5, 5.5.
    assert_eq!((s.start, s.end, s.min, s.max, s.last_c), (Some(5.0), Some(5.5), Some(4.5), Some(5.5), Some(0.9)));
    assert_eq!(s.points.iter().map(|p| p.iteration).collect::<Vec<_>>(), [1, 2, 3, 4]);
    assert_eq!(t.series.len(), 1);
    let r = &t.series[0];
    assert_eq!(r.name, "result");
    assert_eq!(r.points.iter().map(|p| p.value).collect::<Vec<_>>(), [1.0, -2.0, 0.0, 2.0]);
    assert_eq!(r.points.iter().map(|p| p.moving_average).collect::<Vec<_>>(), [1.0, -2.0, 0.0, 2.0]);
    // Over 2: 1, (1 - 2)/2, (-2 + 0)/2, (0 + 2)/2.
    let t2 = build(&h, "h.csv", Some(2));
    let avg: Vec<f64> = t2.series[0].points.iter().map(|p| p.moving_average).collect();
    assert_eq!(avg, [1.0, -0.5, -1.0, 1.0]);
    // Over 3: 1, -1/2, (1 - 2 + 0)/3, (-2 + 0 + 2)/3.
    let t3 = build(&h, "h.csv", Some(3));
    let avg: Vec<f64> = t3.series[0].points.iter().map(|p| p.moving_average).collect();
    assert_eq!(avg, [1.0, -0.5, -1.0 / 3.0, 0.0]);
    // A window of 0 is 1; wider than the run, the mean so far.
    assert_eq!(build(&h, "h.csv", Some(0)).window, 1);
    let t9 = build(&h, "h.csv", Some(9));
    assert_eq!(t9.series[0].points[3].moving_average, 0.25);
}

#[test]
fn a_suite_report_worked_by_hand() {
    let h = read(SUITE.as_bytes(), "s.csv").unwrap();
    assert_eq!(h.mode, Mode::Suite { objective: "solved_percent".into() });
    assert_eq!(h.iterations[1].measured, Measured::Suite { plus: 45.0, minus: 55.0 });
    let t = build(&h, "s.csv", Some(2));
    assert!(t.games.is_none());
    let s = t.suite.as_ref().unwrap();
    // (50 + 45 + 60) / 3 and (40 + 55 + 50) / 3.
    assert!((s.plus_mean.unwrap() - 155.0 / 3.0).abs() < 1e-12);
    assert!((s.minus_mean.unwrap() - 145.0 / 3.0).abs() < 1e-12);
    // The result, then the objective: the mean of both probes' (45, 50,
    // 55), averaged over 2: 45, 47.5, 52.5.
    assert_eq!(t.series.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["result", "solved_percent"]);
    let avg: Vec<f64> = t.series[0].points.iter().map(|p| p.moving_average).collect();
    assert_eq!(avg, [10.0, 0.0, 0.0]);
    let level: Vec<(f64, f64)> = t.series[1].points.iter().map(|p| (p.value, p.moving_average)).collect();
    assert_eq!(level, [(45.0, 45.0), (50.0, 47.5), (55.0, 52.5)]);
    let x = &t.params[0];
    assert_eq!((x.start, x.end, x.min, x.max), (Some(10.0), Some(12.0), Some(10.0), Some(12.0)));
    let text = text(&t);
    assert!(text.contains("(suite, solved_percent): 3 iterations, 3 pairs"), "{text}");
    assert!(text.contains("solved_percent on average over the iterations: θ⁺ 51.67, θ⁻ 48.33"), "{text}");
    let json = serde_json::to_value(&t).unwrap();
    assert_eq!(json["mode"], "suite");
    assert_eq!(json["objective"], "solved_percent");
}

#[test]
fn a_header_alone_is_a_run_with_no_iteration_yet() {
    let h = read(b"iteration,k,wins,draws,losses,result,A,A+,A-,c(A),a(A),before(A)\n", "h.csv").unwrap();
    assert_eq!(h.params, ["A"]);
    assert!(h.iterations.is_empty());
    let t = build(&h, "h.csv", None);
    assert_eq!((t.iterations, t.pairs, t.window), (0, 0, 1));
    assert_eq!(t.params[0].start, None);
    assert_eq!(t.games.unwrap().score_percent, None);
    assert_eq!(text(&t), "Tuning history h.csv (games): no iterations yet\n  parameters: A\n");
    let page = html(&t);
    assert!(page.contains("No iterations yet") && !page.contains("<svg"), "{page}");
}

#[test]
fn what_is_not_a_history_is_refused_with_where() {
    assert_eq!(err(""), "h.csv: empty: not a tuning history (epd tune's history.csv has a header line)");
    assert_eq!(
        err("a,b,c\n1,2,3\n"),
        "h.csv: not a tuning history (epd tune's history.csv): no column `iteration`, `k`, `result`"
    );
    assert_eq!(err("iteration,k,wins\n"), "h.csv: not a tuning history (epd tune's history.csv): no column `result`");
    assert!(
        err("iteration,k,foo,result,A,A+,A-,c(A),a(A),before(A)\n")
            .contains("the columns between `k` and `result` are [\"foo\"], not wins,draws,losses"),
        "{}",
        err("iteration,k,foo,result\n")
    );
    assert_eq!(
        err("iteration,k,wins,draws,losses,result\n"),
        "h.csv: no parameter: a tuned parameter NAME has the columns NAME, NAME+, NAME-, c(NAME), a(NAME) and \
         before(NAME) after `result`"
    );
    assert_eq!(
        err("iteration,k,wins,draws,losses,result,A,A+,c(A),a(A),before(A)\n"),
        "h.csv: column 9 (c(A)): the parameter \"A\" has no column \"A-\""
    );
    let bad = GAMES.replace("3,6,1,2,1,0,100,", "3,6,1,2,1,0,abc,");
    assert_eq!(read(bad.as_bytes(), "h.csv").unwrap_err().0, "h.csv:4: column 7 (Margin): \"abc\" is not a number");
    let bad = GAMES.replace("2,4,0,2,2,", "2,4,0.5,2,2,");
    assert_eq!(read(bad.as_bytes(), "h.csv").unwrap_err().0, "h.csv:3: column 3 (wins): \"0.5\" is not a whole number");
    let bad = GAMES.replace(",0.1,4.5\n4,", ",NaN,4.5\n4,");
    assert_eq!(
        read(bad.as_bytes(), "h.csv").unwrap_err().0,
        "h.csv:4: column 17 (a(Skill Level)): \"NaN\" is not a number"
    );
    let bad = GAMES.replace("4,8,2,2,0,2,120,117,83,17,", "4,8,2,2,0,2,120,117,");
    assert_eq!(read(bad.as_bytes(), "h.csv").unwrap_err().0, "h.csv:5: 16 fields, where the header has 18");
    // A field of a megabyte is quoted short.
    let long = GAMES.replace("3,6,1,2,1,0,100,", &format!("3,6,1,2,1,0,{},", "x".repeat(1 << 20)));
    assert!(read(long.as_bytes(), "h.csv").unwrap_err().0.len() < 120);
}

#[test]
fn parameters_are_found_by_their_columns_whatever_their_names() {
    // A parameter named `c(x)`: its own c column is `c(c(x))`, and its
    // value's `c(x)` is no parameter `x` short of columns. One named
    // `wins` is after `result`, apart from the games.
    let csv = "iteration,k,wins,draws,losses,result,c(x),c(x)+,c(x)-,c(c(x)),a(c(x)),before(c(x)),\
               wins,wins+,wins-,c(wins),a(wins),before(wins)\n1,2,1,0,1,0,3,4,2,1,0.1,3,7,8,6,1,0.1,7\n";
    let h = read(csv.as_bytes(), "h.csv").unwrap();
    assert_eq!(h.params, ["c(x)", "wins"]);
    assert_eq!(h.iterations[0].steps[1].value, 7.0);
    assert_eq!(h.iterations[0].measured, Measured::Games { wins: 1, draws: 0, losses: 1 });
    // Two parameters `x` and `x+`: each takes the columns of its block.
    let csv = "iteration,k,wins,draws,losses,result,x,x+,x-,c(x),a(x),before(x),x+,x++,x+-,c(x+),a(x+),before(x+)\n\
               1,2,1,0,1,0,1,2,3,4,5,6,11,12,13,14,15,16\n";
    let h = read(csv.as_bytes(), "h.csv").unwrap();
    assert_eq!(h.params, ["x", "x+"]);
    let s = &h.iterations[0].steps;
    assert_eq!((s[0].value, s[0].plus, s[0].before), (1.0, 2.0, 6.0));
    assert_eq!((s[1].value, s[1].plus, s[1].before), (11.0, 12.0, 16.0));
    // Quoted names (commas, quotes) and CRLF lines.
    let csv =
        "iteration,k,wins,draws,losses,result,\"a,b\",\"a,b+\",\"a,b-\",\"c(a,b)\",\"a(a,b)\",\"before(a,b)\"\r\n\
               1,2,1,0,1,0,1,2,3,4,5,6\r\n";
    assert_eq!(read(csv.as_bytes(), "h.csv").unwrap().params, ["a,b"]);
}

#[test]
fn the_text_shows_the_run_the_parameters_and_the_average() {
    let h = read(GAMES.as_bytes(), "run/history.csv").unwrap();
    let t = build(&h, "run/history.csv", Some(2));
    let text = text(&t);
    let want = "\
Tuning history run/history.csv (games): 4 iterations, 8 pairs
  θ⁺ against θ⁻: 16 games, +5 =7 -4, θ⁺'s score 53.1 %

  parameter        start        end        min        max   last c_k   last a_k
  Margin             100        120        100        120         17        0.4
  Skill Level          5        5.5        4.5        5.5        0.9        0.1

Margin: its value after the iteration; θ⁺ and θ⁻, the probes it played
  iteration   pairs      value         θ⁺         θ⁻        c_k
      start       0        100
          1       2        110        120         80         20
          2       4        100         90        130         19
          3       6        100        118         82         18
          4       8        120        117         83         17

Skill Level: its value after the iteration; θ⁺ and θ⁻, the probes it played
  iteration   pairs      value         θ⁺         θ⁻        c_k
      start       0          5
          1       2          5          6          4          1
          2       4        4.5          4          6          1
          3       6        4.5        5.5        3.5          1
          4       8        5.5        5.5        3.5        0.9

result: wins less losses of θ⁺ against θ⁻
moving average over the last 2 iterations (fewer at the start)
  iteration   pairs   result    average
          1       2        1          1
          2       4       -2       -0.5
          3       6        0         -1
          4       8        2          1
";
    assert_eq!(text, want, "{text}");
}

#[test]
fn checkpoints_end_each_tenth_and_the_window_is_a_tenth() {
    assert_eq!(checkpoints(0), Vec::<usize>::new());
    assert_eq!(checkpoints(4), [0, 1, 2, 3]);
    assert_eq!(checkpoints(12), [1, 2, 3, 4, 5, 7, 8, 9, 10, 11]);
    assert_eq!(checkpoints(100), [9, 19, 29, 39, 49, 59, 69, 79, 89, 99]);
    for (n, w) in [(0, 1), (9, 1), (25, 2), (100, 10), (1005, 100)] {
        assert_eq!(default_window(n), w, "{n}");
    }
    assert_eq!(moving_average(&[], 3), Vec::<f64>::new());
    assert_eq!(moving_average(&[2.0, 4.0, 6.0, 8.0], 2), [2.0, 3.0, 5.0, 7.0]);
}

#[test]
fn figures_are_short() {
    for (x, want) in [
        (137.5, "137.5"),
        (300.0, "300"),
        (20.13, "20.13"),
        (0.041234, "0.04123"),
        (0.000015, "1.50e-5"),
        (-0.0, "0"),
        (-2.0, "-2"),
        (1234.56, "1234.6"),
    ] {
        assert_eq!(text::figure(x), want, "{x}");
    }
}

#[test]
fn the_page_has_a_chart_per_parameter_and_per_series() {
    let h = read(GAMES.as_bytes(), "h.csv").unwrap();
    let page = html(&build(&h, "h.csv", Some(2)));
    assert_eq!(page.matches("data-kind=\"parameter\"").count(), 2);
    assert!(page.contains("data-param=\"Skill Level\""));
    assert_eq!(page.matches("data-kind=\"result\"").count(), 1);
    // A point per iteration; the value line from the start through each.
    let result = page.split("data-kind=\"result\"").nth(1).unwrap();
    assert_eq!(result.matches("class=\"point\"").count(), 4);
    let margin = page.split("data-param=\"Margin\"").nth(1).unwrap().split("</figure>").next().unwrap();
    let line = margin.split("class=\"value\" d=\"").nth(1).unwrap().split('"').next().unwrap();
    assert_eq!(line.matches(['M', 'L']).count(), 5);
    assert!(!page.contains("http://") && !page.contains("https://") && !page.contains(" src="), "nothing from outside");
    // The same data, the same page.
    assert_eq!(page, html(&build(&h, "h.csv", Some(2))));
    let suite = html(&build(&read(SUITE.as_bytes(), "s.csv").unwrap(), "s.csv", None));
    assert_eq!(suite.matches("data-kind=\"objective\"").count(), 1);
}

/// Any bytes: read or refused, never a panic; what reads renders.
#[test]
fn damaged_histories_never_panic() {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let alphabet = b"0123456789.,-+e\n\"()cabNn x";
    for round in 0..3000 {
        let mut bytes = if round % 3 == 0 { SUITE.as_bytes().to_vec() } else { GAMES.as_bytes().to_vec() };
        for _ in 0..1 + next() % 6 {
            let at = (next() % bytes.len().max(1) as u64) as usize;
            let last = bytes.len() - 1;
            match next() % 4 {
                0 => {
                    bytes.remove(at.min(last));
                }
                1 => bytes.insert(at, alphabet[(next() % alphabet.len() as u64) as usize]),
                2 => bytes[at.min(last)] = (next() % 256) as u8,
                _ => bytes.truncate(at),
            }
            if bytes.is_empty() {
                break;
            }
        }
        if let Ok(h) = read(&bytes, "f") {
            let t = build(&h, "f", Some((next() % 5) as usize));
            let _ = text(&t);
            let _ = html(&t);
            let mut out = Vec::new();
            write_json(&t, &mut out).unwrap();
        }
    }
}

/// A run's state: the fields the report takes, matched to the history's
/// parameters by name (Skill Level is not in this one), the others left
/// alone; refused with the file, line and column when it is not a state.
#[test]
fn a_state_adds_ranges_and_the_plan() {
    let state = br#"{
  "params": [
    {"name": "Margin", "value": 120.0, "min": 0.0, "max": 400.0, "c_end": 20.0, "r_end": 0.002},
    {"name": "Other", "value": 1.0, "min": -5.0, "max": 5.0, "c_end": 1.0, "r_end": 0.1}
  ],
  "schedule": {"iterations": 40, "alpha": 0.602, "gamma": 0.101, "big_a": 4.0},
  "k": 8,
  "rng": 7
}"#;
    let s = read_state(state, "tune.json").unwrap();
    assert_eq!(s.schedule.iterations, 40);
    let mut t = build(&read(GAMES.as_bytes(), "h.csv").unwrap(), "h.csv", None);
    let plain = text(&t);
    assert!(plain.contains(": 4 iterations, 8 pairs\n") && !plain.contains("r_end"), "{plain}");
    t.add_state(&s);
    assert_eq!(t.planned_iterations, Some(40));
    assert_eq!(
        (t.params[0].range, t.params[0].c_end, t.params[0].r_end),
        (Some([0.0, 400.0]), Some(20.0), Some(0.002))
    );
    assert_eq!((t.params[1].range, t.params[1].c_end), (None, None));
    let out = text(&t);
    // The plan is in pairs (SPSA's N): set against the pairs, not the
    // iterations (each of which played two here).
    assert!(out.contains(": 4 iterations, 8 of 40 pairs\n"), "{out}");
    let margin = out.lines().find(|l| l.trim_start().starts_with("Margin ")).unwrap();
    assert!(margin.ends_with("        0..400       20    0.002"), "{margin:?}");
    let skill = out.lines().find(|l| l.trim_start().starts_with("Skill Level ")).unwrap();
    assert!(skill.ends_with("             -        -        -"), "{skill:?}");
    let page = html(&t);
    assert!(page.contains("<th>pairs planned</th>") && page.contains("<th>range from</th>"), "the state's columns");
    let mut json = Vec::new();
    write_json(&t, &mut json).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["params"][0]["range"], serde_json::json!([0.0, 400.0]));
    assert!(v["params"][1]["range"].is_null());
    for (bytes, want) in [
        (&b"not json"[..], "tune.json:1:2: not a tuning state (epd tune's tune.json): expected ident"),
        (b"{\"params\": []}", "tune.json:1:14: not a tuning state (epd tune's tune.json): missing field `schedule`"),
        (
            b"{\"params\": [{\"name\": 3}]}",
            "tune.json:1:22: not a tuning state (epd tune's tune.json): invalid type: integer `3`, expected a string",
        ),
    ] {
        let e = read_state(bytes, "tune.json").unwrap_err().to_string();
        assert!(e.starts_with(want), "{e}");
    }
}
