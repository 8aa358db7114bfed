//! Exact perft node counts on every record of the real perft suites.

use epd_core::{parse_perft_record, perft};
use epd_testkit::corpus;

fn verify(name: &str, max_depth: u32) -> (usize, usize) {
    let data = corpus(name);
    let (mut records, mut checked) = (0, 0);
    for (i, line) in data.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(|b| b.is_ascii_whitespace() || *b == 0) {
            continue;
        }
        let rec = parse_perft_record(line).unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1));
        records += 1;
        for exp in &rec.expectations {
            let (Some(want), true) = (exp.nodes, exp.depth <= max_depth) else {
                continue;
            };
            assert_eq!(perft(&rec.position, exp.depth), want, "{name}:{}: depth {}", i + 1, exp.depth);
            checked += 1;
        }
    }
    (records, checked)
}

#[test]
fn perftsuite_viridithas_to_depth_5() {
    assert_eq!(verify("perftsuite_viridithas.epd", 5), (126, 126 * 5));
}

#[test]
fn perft_standard_ethereal_to_depth_5() {
    let (records, checked) = verify("perft_standard_ethereal.epd", 5);
    assert_eq!(records, 128);
    assert!(checked >= 600, "{checked}");
}

#[test]
fn perft_marcel_to_depth_3() {
    assert_eq!(verify("perft-marcel.epd", 3), (6838, 6838 * 3));
}

#[test]
fn perft_fischer_ethereal_chess960_to_depth_4() {
    assert_eq!(verify("perft_fischer_ethereal.epd", 4), (960, 960 * 4));
}
