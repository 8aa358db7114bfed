//! Shared by the SAN targets: a position from random legal play driven by
//! the fuzz input, then SAN tokens decoded and checked against it.

use epd_core::{Position, SanMode};

/// Plays up to `data[0] % 128` plies from the start position, each chosen
/// by the next input byte; returns the position and the unused bytes.
pub fn position_from_play(data: &[u8]) -> (Position, &[u8]) {
    let mut pos = Position::startpos();
    let Some((&n, mut rest)) = data.split_first() else {
        return (pos, data);
    };
    for _ in 0..n % 128 {
        let Some((&b, tail)) = rest.split_first() else { break };
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.play_unchecked(moves[b as usize % moves.len()]);
        rest = tail;
    }
    (pos, rest)
}

/// Decodes each blank-separated token of `text` as SAN in `mode` and plays
/// it when it decodes. A decoded move must be legal, its canonical SAN
/// must decode back to it in both modes, `decode_san` must agree with
/// `parse_san` and write that canonical SAN, and strict mode must accept
/// nothing but the canonical SAN.
pub fn check_san(mut pos: Position, text: &[u8], mode: SanMode) {
    let mut canonical = Vec::new();
    for token in text.split(|b| b.is_ascii_whitespace()) {
        let parsed = pos.parse_san(token, mode);
        let decoded = pos.decode_san(token, mode, &mut canonical);
        assert_eq!(parsed, decoded, "parse_san and decode_san disagree on {token:?}");
        let Ok(m) = parsed else { continue };
        assert!(pos.legal_moves().contains(&m), "{token:?} decoded to an illegal move in {}", pos.fen());
        assert!(pos.is_legal(m));
        let san = pos.san(m);
        assert_eq!(canonical, san.as_bytes(), "decode_san's canonical form differs from san()");
        if mode == SanMode::Strict {
            assert_eq!(token, san.as_bytes(), "strict mode accepted a non-canonical SAN");
        }
        for back_mode in [SanMode::Strict, SanMode::Lenient] {
            assert_eq!(pos.parse_san(san.as_bytes(), back_mode), Ok(m), "{san} does not decode back ({back_mode:?})");
        }
        pos.play_unchecked(m);
    }
}
