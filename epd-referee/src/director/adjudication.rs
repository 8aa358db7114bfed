//! Adjudication from the engines' scores (their replies' `ce`) and the
//! game's length: draws, resignations and a maximum number of moves, as
//! the event's `draw_adjudication`, `resign_adjudication` and `max_moves`
//! say, by fastchess's rules and units (its `DrawTracker`,
//! `ResignTracker` and `MaxMovesTracker`):
//! - draw: the last `2 × movecount` plies each scored within `score` of
//!   0, none of them before the last capture or pawn move (that move
//!   itself counts), once the board's move number less one reaches
//!   `movenumber`;
//! - resign, one-sided: the side that just moved scored `-score` or less
//!   on each of its last `movecount` moves, and loses;
//! - resign, two-sided: the last `2 × movecount` plies each scored at
//!   least `score` away from 0, and the side that just moved, its score
//!   below 0, loses;
//! - max_moves: `2 × max_moves` plies played by the players (an
//!   opening book's moves not counted).
//!
//! An opening book's moves carry no score, so no run of scores reaches
//! back into the book, as fastchess's trackers start after it.
//!
//! A move whose reply carried no score breaks a run of scores.

use super::*;

/// The scores of the last `count` moves of the side that made the move
/// `n − 1 − offset` (offset 0: the side that just moved; 1: the other),
/// if each carried one.
fn last_scores(moves: &[crate::game::PlayedMove], offset: usize, count: u32) -> Option<Vec<i32>> {
    let count = count as usize;
    let mut out = Vec::with_capacity(count);
    let mut i = moves.len().checked_sub(1 + offset)?;
    loop {
        out.push(moves[i].eval.as_ref()?.ce);
        if out.len() == count {
            return Some(out);
        }
        i = i.checked_sub(2)?;
    }
}

impl Director {
    /// After a move of game `k` that did not end it: the end the
    /// adjudication rules give, if any.
    pub(super) fn adjudication(&mut self, k: usize) -> Option<crate::game::Ended> {
        let rules = self.event.adjudication;
        let r = self.games.running.get_mut(&k)?;
        let moves = r.game.moves();
        let mover = r.game.position().turn().other();
        let mut verdict: Option<(GameResult, String)> = None;
        if let Some(rule) = rules.resign {
            let n = rule.movecount as usize;
            let lost = if rule.twosided {
                // The last 2 × movecount plies, whoever made them.
                let plies = moves.len();
                let all = plies >= 2 * n
                    && moves[plies - 2 * n..].iter().all(|m| m.eval.as_ref().is_some_and(|e| e.ce.abs() >= rule.score));
                all
            } else {
                last_scores(moves, 0, rule.movecount).is_some_and(|s| s.iter().all(|&c| c <= -rule.score))
            };
            let below_zero = moves.last().and_then(|m| m.eval.as_ref()).is_some_and(|e| e.ce < 0);
            if n > 0 && lost && below_zero {
                let name = if mover == Color::White { "White" } else { "Black" };
                let why = if rule.twosided {
                    format!(
                        "{name} resigns, both engines' scores {} cp or more from 0 for {} moves, its own below 0",
                        rule.score, rule.movecount
                    )
                } else {
                    format!(
                        "{name} resigns, its engine's score {} cp or less for {} moves",
                        -rule.score, rule.movecount
                    )
                };
                verdict = Some((GameResult::win(mover.other()), why));
            }
        }
        if verdict.is_none() {
            if let Some(rule) = rules.draw {
                let pos = r.game.position();
                let plies = 2 * rule.movecount as usize;
                let from = pos.fullmoves().saturating_sub(1) >= rule.movenumber;
                // The run may start at the last capture or pawn move, not
                // before: the board's halfmove clock counts the plies since.
                let since_reset = pos.halfmoves() as usize + 1 >= plies;
                let near = plies > 0
                    && moves.len() >= plies
                    && moves[moves.len() - plies..]
                        .iter()
                        .all(|m| m.eval.as_ref().is_some_and(|e| e.ce.abs() <= rule.score));
                if from && since_reset && near {
                    let why =
                        format!("a draw, both engines' scores within {} cp for {} moves", rule.score, rule.movecount);
                    verdict = Some((GameResult::Draw, why));
                }
            }
        }
        if verdict.is_none() {
            if let Some(max) = rules.max_moves {
                // The players' plies: fastchess's tracker counts the
                // engines' moves, not the opening book's.
                if moves.len() - r.game.book_plies() >= 2 * max as usize {
                    verdict = Some((GameResult::Draw, format!("a draw, the game reached {max} moves")));
                }
            }
        }
        let (result, why) = verdict?;
        Some(r.game.adjudicate(result, why))
    }
}
