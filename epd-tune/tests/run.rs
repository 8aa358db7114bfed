//! A tuning run's files: its state and history survive a stop at any
//! iteration, and the run resumed from them ends as the uninterrupted
//! one, byte for byte.

use std::path::Path;

use epd_tune::games::Score;
use epd_tune::run::{Measure, Run};
use epd_tune::spsa::{Param, Probe, Schedule, Spsa};
use epd_tune::TuneError;

fn fresh() -> Spsa {
    let params = vec![
        Param::new("Margin", 100.0, 0.0, 400.0, 20.0, 0.002).unwrap(),
        Param::new("Knight", 300.0, 200.0, 400.0, 10.0, 0.002).unwrap(),
    ];
    Spsa::new(params, Schedule::new(24), 5).unwrap()
}

fn run(dir: &Path) -> Run {
    Run { dir: dir.to_owned(), batch: 2, seed: 1 }
}

/// A stand-in for the games: θ⁺ wins a pair when its Margin is nearer
/// 250 than θ⁻'s, draws otherwise; it fails (as a crashed engine) on the
/// listed calls, and stops (as a signal) on `stop_at`.
fn oracle<'a>(
    calls: &'a mut u32,
    fail: &'a [u32],
    stop_at: Option<u32>,
) -> impl FnMut(&Path, &Spsa, &Probe, u32) -> Result<Measure, TuneError> + 'a {
    move |_, _, probe, pairs| {
        *calls += 1;
        if fail.contains(calls) {
            return Err(TuneError::Engine("engine crashed".into()));
        }
        if stop_at == Some(*calls) {
            return Err(TuneError::Interrupted(15));
        }
        let better = (probe.plus[0] - 250.0).abs() < (probe.minus[0] - 250.0).abs();
        Ok(Measure::Games(if better {
            Score { wins: pairs, draws: pairs, losses: 0 }
        } else {
            Score { wins: 0, draws: pairs, losses: pairs }
        }))
    }
}

fn files(dir: &Path) -> (String, String, String) {
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    (read("tune.json"), read("history.csv"), read("history.jsonl"))
}

#[test]
fn a_stopped_run_resumed_equals_an_uninterrupted_one() {
    let base = std::env::temp_dir().join(format!("epd-tune-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let whole = base.join("whole");
    let r = run(&whole);
    let mut calls = 0;
    let mut said = Vec::new();
    let end = r
        .go(r.begin(fresh(), false).unwrap(), &mut oracle(&mut calls, &[], None), &mut |s| said.push(s.to_owned()))
        .unwrap();
    assert_eq!(end.k, 24);
    assert_eq!(said.len(), 12, "{said:?}");
    assert!(end.params[0].value > 100.0, "Margin moved towards 250: {}", end.params[0].value);
    let want = files(&whole);
    assert_eq!(want.1.lines().count(), 13, "a header and a line per iteration");

    for stop in 1..=12 {
        let dir = base.join(format!("stop{stop}"));
        let r = run(&dir);
        let mut calls = 0;
        let e =
            r.go(r.begin(fresh(), false).unwrap(), &mut oracle(&mut calls, &[], Some(stop)), &mut |_| {}).unwrap_err();
        assert_eq!(e, TuneError::Interrupted(15));
        // A history line the state does not count, as a kill between the
        // two writes leaves.
        if stop > 1 {
            let mut jsonl = std::fs::read_to_string(dir.join("history.jsonl")).unwrap();
            let last = jsonl.lines().last().unwrap().to_owned();
            jsonl.push_str(&last.replace("\"iteration\":", "\"iteration\":1000+").replace("1000+", ""));
            jsonl.push('\n');
        }
        assert!(r.begin(fresh(), false).is_err(), "a second fresh start is refused");
        let state = r.begin(fresh(), true).unwrap();
        let mut calls = 0;
        r.go(state, &mut oracle(&mut calls, &[], None), &mut |_| {}).unwrap();
        assert_eq!(files(&dir), want, "stopped at iteration {stop}");
    }

    // Crashes mid-run: each failed iteration is played again, from the
    // same probes; the end is the same.
    let dir = base.join("crashes");
    let r = run(&dir);
    let mut calls = 0;
    let mut said = Vec::new();
    r.go(r.begin(fresh(), false).unwrap(), &mut oracle(&mut calls, &[3, 7, 8], None), &mut |s| said.push(s.to_owned()))
        .unwrap();
    assert_eq!(files(&dir), want);
    assert_eq!(said.iter().filter(|s| s.contains("engine crashed; playing it again")).count(), 3, "{said:?}");
    // Three failures in a row end the run, its state kept.
    let dir = base.join("gives-up");
    let r = run(&dir);
    let mut calls = 0;
    let e = r.go(r.begin(fresh(), false).unwrap(), &mut oracle(&mut calls, &[2, 3, 4], None), &mut |_| {}).unwrap_err();
    assert_eq!(e, TuneError::Engine("engine crashed".into()));
    let state: Spsa = serde_json::from_str(&std::fs::read_to_string(dir.join("tune.json")).unwrap()).unwrap();
    assert_eq!(state.k, 2, "the one iteration played is kept");
    let _ = std::fs::remove_dir_all(&base);
}
