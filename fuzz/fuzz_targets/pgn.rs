#![no_main]
//! The PGN reader over arbitrary bytes, then the PGN to EPD conversion
//! with every option.

use epd_core::pgn::{to_epd, EpdOptions, PgnReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut reader = PgnReader::new(data);
    let mut games = 0u64;
    while let Some(game) = reader.next_game().expect("reading from memory cannot fail") {
        games += 1;
        let _ = game.tag("FEN");
        assert!(games <= data.len() as u64 + 1, "more games than bytes");
    }
    let options = EpdOptions { supplied_move: true, counters: true, id: true, comment: true, ..EpdOptions::default() };
    let mut out = Vec::new();
    let summary = to_epd(data, &mut out, &options, |d| {
        assert!(!d.message.is_empty());
    })
    .expect("writing to memory cannot fail");
    assert_eq!(summary.games, games, "to_epd and PgnReader count games differently");
    assert!(summary.complete <= summary.games);
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count() as u64, summary.records);
});
