//! The unit tests' side of `epd-testkit`: random play over this crate's
//! own `Position` (the dev-dependency cycle gives the testkit another
//! copy of the type, so the impl lives here).

impl epd_testkit::Playable for crate::Position {
    type Move = crate::Move;
    type Moves = crate::MoveList;
    fn legal(&self) -> crate::MoveList {
        self.legal_moves()
    }
    fn play(&mut self, m: crate::Move) {
        self.play_unchecked(m);
    }
}
