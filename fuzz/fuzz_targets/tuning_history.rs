#![no_main]
//! A tuning run's history (`epd report --tuning`): the first byte picks
//! the moving average's window, the rest is read as a history.csv. Any
//! bytes are read or refused with a message naming the file; a history
//! that reads gives a report whose figures match its lines, and renders
//! as text, JSON that reads back, and a page whose only script is its own
//! (names from the header are escaped).

use epd_report::tuning;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (window, bytes) = match data.split_first() {
        Some((&w, rest)) => (usize::from(w % 16), rest),
        None => (0, data),
    };
    let h = match tuning::read(bytes, "fuzz.csv") {
        Ok(h) => h,
        Err(e) => {
            assert!(e.0.starts_with("fuzz.csv"), "{e}");
            return;
        }
    };
    let t = tuning::build(&h, "fuzz.csv", (window > 0).then_some(window));
    assert_eq!(t.iterations as usize, h.iterations.len());
    assert_eq!(t.params.len(), h.params.len());
    assert!(t.window >= 1);
    for p in &t.params {
        assert_eq!(p.points.len(), h.iterations.len());
        assert_eq!(p.start.is_some(), !h.iterations.is_empty());
        if let (Some(lo), Some(hi), Some(start), Some(end)) = (p.min, p.max, p.start, p.end) {
            assert!(lo <= start && start <= hi && lo <= end && end <= hi);
        }
    }
    for s in &t.series {
        assert_eq!(s.points.len(), h.iterations.len());
    }
    assert!(tuning::text(&t).starts_with("Tuning history fuzz.csv"));
    let page = tuning::html(&t);
    assert!(page.ends_with("</html>\n"));
    assert_eq!(page.matches("<script").count(), 1, "a name from the header was not escaped");
    let mut json = Vec::new();
    tuning::write_json(&t, &mut json).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["iterations"].as_u64(), Some(t.iterations));
});
