#![no_main]
//! FEN/EPD position fields: parse_fields in both modes and every counters
//! setting, Position construction; a parsed position's FEN and EPD fields
//! read back (strictly) to the same position.

use epd_core::{parse_fields, Counters, ParseMode, Position, Validation};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for mode in [ParseMode::Strict, ParseMode::Lenient] {
        for counters in [Counters::Required, Counters::Optional, Counters::Forbidden] {
            let Ok(parsed) = parse_fields(data, mode, counters) else { continue };
            assert!(parsed.end <= data.len());
            if mode == ParseMode::Strict {
                assert!(parsed.fixes.is_empty(), "strict mode made fixes");
            }
            for validation in [Validation::Full, Validation::Playable] {
                let Ok(pos) = Position::from_setup_with(parsed.setup.clone(), validation) else { continue };
                let fen = pos.fen();
                let back = Position::from_setup_with(
                    parse_fields(fen.as_bytes(), ParseMode::Strict, Counters::Required)
                        .unwrap_or_else(|e| panic!("FEN {fen} of a parsed position does not parse: {e}"))
                        .setup,
                    validation,
                )
                .unwrap_or_else(|e| panic!("FEN {fen} of a parsed position is rejected: {e}"));
                assert_eq!(back, pos, "FEN round trip changed the position: {fen}");
                assert_eq!(back.zobrist_hash(), pos.zobrist_hash());
                // Move generation copes with whatever was accepted.
                let _ = pos.legal_moves().len();
            }
        }
        if let Ok(pos) = Position::from_fen_bytes(data, mode) {
            let fen = pos.fen();
            assert_eq!(Position::from_fen(&fen).as_ref(), Ok(&pos), "FEN round trip: {fen}");
        }
    }
});
