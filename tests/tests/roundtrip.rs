//! Round-trip properties on positions from random legal play.

use epd_core::{Move, ParseMode, Position, SanMode, Setup};
use epd_testkit::random_positions;

#[test]
fn fen_written_then_parsed_gives_the_same_position() {
    for pos in random_positions(1, 300, 160) {
        let fen = pos.fen();
        let back = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(back, pos, "{fen}");
        assert_eq!(back.zobrist_hash(), pos.zobrist_hash(), "{fen}");
        assert_eq!(back.fen(), fen);
        let setup = Setup::from_fen(fen.as_bytes(), ParseMode::Strict).unwrap();
        assert_eq!(setup, pos.to_setup());
        // The four EPD fields carry the same position, counters aside.
        let epd = Position::from_fen(&pos.epd()).unwrap();
        assert_eq!(epd.epd(), pos.epd());
    }
}

#[test]
fn san_decodes_to_the_move_it_encodes_in_both_modes() {
    let mut n = 0;
    for pos in random_positions(2, 200, 160) {
        for &m in &pos.legal_moves() {
            let san = pos.san(m);
            assert_eq!(pos.parse_san(san.as_bytes(), SanMode::Strict), Ok(m), "{} {san}", pos.fen());
            assert_eq!(pos.parse_san(san.as_bytes(), SanMode::Lenient), Ok(m), "{} {san}", pos.fen());
            // Lenient: without the check mark, and as a coordinate move.
            let bare = san.trim_end_matches(['+', '#']);
            assert_eq!(pos.parse_san(bare.as_bytes(), SanMode::Lenient), Ok(m), "{} {bare}", pos.fen());
            let uci = pos.uci(m);
            assert_eq!(pos.parse_san(uci.as_bytes(), SanMode::Lenient), Ok(m), "{} {uci}", pos.fen());
            assert_eq!(pos.parse_uci(uci.as_bytes()), Ok(m), "{} {uci}", pos.fen());
            // Strict mode rejects the check mark's absence when one is due.
            if bare != san {
                assert!(pos.parse_san(bare.as_bytes(), SanMode::Strict).is_err(), "{} {bare}", pos.fen());
            }
            n += 1;
        }
    }
    assert!(n > 100_000, "{n}");
}

#[test]
fn generators_agree_with_each_other() {
    for pos in random_positions(3, 200, 160) {
        let moves = pos.legal_moves();
        assert_eq!(pos.count_legal_moves(), moves.len() as u64, "{}", pos.fen());
        assert_eq!(pos.has_legal_moves(), !moves.is_empty());
        for &m in &moves {
            assert!(pos.is_legal(m), "{} {m:?}", pos.fen());
            assert_eq!(pos.gives_check(m), pos.played(m).is_check(), "{} {m:?}", pos.fen());
            let mut p = pos;
            assert!(p.play(m).is_ok());
            assert_eq!(p, pos.played(m));
        }
        // Every (role, from, to) that the generator did not produce is illegal.
        for role in epd_core::Role::ALL {
            for from in pos.board().by_role(role) & pos.board().by_color(pos.turn()) {
                for to in epd_core::Square::all() {
                    let m = Move::normal(role, from, to);
                    assert_eq!(pos.is_legal(m), moves.contains(&m), "{} {m:?}", pos.fen());
                }
            }
        }
    }
}

#[test]
fn zobrist_hash_is_updated_incrementally_like_from_scratch() {
    for pos in random_positions(4, 200, 160) {
        let fresh = Position::from_fen(&pos.fen()).unwrap();
        assert_eq!(pos.zobrist_hash(), fresh.zobrist_hash(), "{}", pos.fen());
    }
}
