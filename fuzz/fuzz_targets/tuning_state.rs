#![no_main]
//! A tuning run's state (`tune.json`, read beside its history by `epd
//! report --tuning`): any bytes are read or refused with a message naming
//! the file and a line and column; a state that reads is added to a
//! report of a fixed history, whose parameters it names or not, and the
//! report renders as text, JSON that reads back, and a page whose only
//! script is its own (names from the state are never written unescaped).

use epd_report::tuning;
use libfuzzer_sys::fuzz_target;

const HISTORY: &[u8] = b"iteration,k,wins,draws,losses,result,Margin,Margin+,Margin-,c(Margin),a(Margin),before(Margin)\n\
    1,2,2,1,1,1,110,120,80,20,0.5,100\n2,4,0,2,2,-2,100,90,130,19,0.5,110\n";

fuzz_target!(|data: &[u8]| {
    let state = match tuning::read_state(data, "tune.json") {
        Ok(s) => s,
        Err(e) => {
            assert!(e.0.starts_with("tune.json:"), "{e}");
            return;
        }
    };
    let history = tuning::read(HISTORY, "history.csv").expect("the fixed history reads");
    let mut t = tuning::build(&history, "history.csv", None);
    t.add_state(&state);
    assert_eq!(t.planned_iterations, Some(state.schedule.iterations));
    let named = state.params.iter().find(|s| s.name == "Margin");
    assert_eq!(t.params[0].range, named.map(|s| [s.min, s.max]));
    assert!(tuning::text(&t).starts_with("Tuning history history.csv"));
    let page = tuning::html(&t);
    assert!(page.ends_with("</html>\n"));
    assert_eq!(page.matches("<script").count(), 1);
    let mut json = Vec::new();
    tuning::write_json(&t, &mut json).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["planned_iterations"].as_u64(), Some(state.schedule.iterations));
});
