//! Differential test against shakmaty as an oracle (GPL, test-only): legal
//! move sets, SAN strings, check, checkmate, stalemate, insufficient
//! material and positions after each move, over random legal play.

use epd_testkit::random_positions;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _};

#[test]
fn agrees_with_shakmaty_on_random_play() {
    let mut positions = 0;
    for pos in random_positions(5, 400, 200) {
        let fen = pos.fen();
        let theirs: Chess =
            fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let mut ours_san: Vec<String> = pos.legal_moves().iter().map(|&m| pos.san(m)).collect();
        let mut their_san: Vec<String> =
            theirs.legal_moves().iter().map(|m| SanPlus::from_move(theirs.clone(), *m).to_string()).collect();
        ours_san.sort();
        their_san.sort();
        assert_eq!(ours_san, their_san, "{fen}");
        assert_eq!(pos.is_check(), theirs.is_check(), "{fen}");
        assert_eq!(pos.is_checkmate(), theirs.is_checkmate(), "{fen}");
        assert_eq!(pos.is_stalemate(), theirs.is_stalemate(), "{fen}");
        assert_eq!(pos.is_insufficient_material(), theirs.is_insufficient_material(), "{fen}");
        // Positions after each move, with the en passant square written
        // only when a capture is legal (shakmaty's convention).
        for &m in &pos.legal_moves() {
            let san = pos.san(m);
            let after = pos.played(m);
            let their_move = san.parse::<SanPlus>().unwrap().san.to_move(&theirs).unwrap();
            let their_after = theirs.clone().play(their_move).unwrap();
            let their_fen = Fen::from_position(&their_after, EnPassantMode::Legal).to_string();
            let mut setup = after.to_setup();
            setup.ep_square = after.legal_ep_square();
            assert_eq!(setup.fen(), their_fen, "{fen} {san}");
        }
        positions += 1;
    }
    assert!(positions > 20_000, "{positions}");
}
