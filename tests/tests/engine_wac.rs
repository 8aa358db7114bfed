//! The built-in engine on tactics: the first 50 positions of Win At
//! Chess (Reinfeld; the Arasan edition's `bm` operands), searched with a
//! fixed node budget so the count is the same on every machine.

use std::sync::atomic::AtomicBool;

use epd_core::{Opcode, ParseMode, Record};
use epd_engine::search::{SearchLimits, Searcher};
use epd_testkit::corpus;

/// Nodes per position.
const BUDGET: u64 = 100_000;
/// Measured at 47 of 50 (the misses: WAC.002, .021, .049); the floor
/// leaves room for harmless changes in move ordering, not for a broken
/// search.
const FLOOR: usize = 45;

#[test]
fn solves_most_of_the_first_50_win_at_chess_positions() {
    let text = corpus("wac_arasan.epd");
    let mut searcher = Searcher::new(32);
    let mut solved = 0;
    let mut missed = Vec::new();
    let lines = text.split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace));
    for line in lines.take(50) {
        let (rec, diags) = Record::parse(line, ParseMode::Strict);
        assert!(!epd_core::has_errors(&diags), "{}: {diags:?}", String::from_utf8_lossy(line));
        let pos = *rec.position().unwrap_or_else(|| panic!("no position"));
        let bm: Vec<_> = rec.get_known(Opcode::Bm).unwrap_or_else(|| panic!("no bm")).moves().flatten().collect();
        assert!(!bm.is_empty());
        searcher.clear();
        let limits = SearchLimits { nodes: Some(BUDGET), ..SearchLimits::default() };
        let out = searcher.search(&pos, &[], &limits, &AtomicBool::new(false), &mut |_| {});
        assert!(out.nodes <= BUDGET);
        let best = out.best.unwrap_or_else(|| panic!("no move"));
        if bm.contains(&best) {
            solved += 1;
        } else {
            missed.push(String::from_utf8_lossy(rec.id().unwrap_or(b"?")).into_owned());
        }
    }
    assert!(solved >= FLOOR, "solved {solved}/50, missed {missed:?}");
}
