//! Adjudication from the engines' scores (their replies' `ce`) and the
//! game's length: draws, resignations and a maximum number of moves, as
//! the event's `draw_adjudication`, `resign_adjudication` and `max_moves`
//! say. A move whose reply carried no score breaks a run of scores.

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
        let r = self.running.get_mut(&k)?;
        let moves = r.game.moves();
        let mover = r.game.position().turn().other();
        let mut verdict: Option<(GameResult, String)> = None;
        if let Some(rule) = rules.resign {
            for (offset, side) in [(0, mover), (1, mover.other())] {
                let Some(own) = last_scores(moves, offset, rule.movecount) else { continue };
                if !own.iter().all(|&s| s <= -rule.score) {
                    continue;
                }
                let agreed = !rule.twosided
                    || last_scores(moves, 1 - offset, rule.movecount)
                        .is_some_and(|o| o.iter().all(|&s| s >= rule.score));
                if agreed {
                    let name = if side == Color::White { "White" } else { "Black" };
                    let why = format!(
                        "{name} resigns, its engine's score {} cp or less for {} moves{}",
                        -rule.score,
                        rule.movecount,
                        if rule.twosided { ", its opponent's agreeing" } else { "" }
                    );
                    verdict = Some((GameResult::win(side.other()), why));
                    break;
                }
            }
        }
        if verdict.is_none() {
            if let Some(rule) = rules.draw {
                let from = r.game.position().fullmoves() >= rule.movenumber;
                let near = |offset| {
                    last_scores(moves, offset, rule.movecount).is_some_and(|s| s.iter().all(|&c| c.abs() <= rule.score))
                };
                if from && near(0) && near(1) {
                    let why =
                        format!("a draw, both engines' scores within {} cp for {} moves", rule.score, rule.movecount);
                    verdict = Some((GameResult::Draw, why));
                }
            }
        }
        if verdict.is_none() {
            if let Some(max) = rules.max_moves {
                if moves.len() >= 2 * max as usize {
                    verdict = Some((GameResult::Draw, format!("a draw, the game reached {max} moves")));
                }
            }
        }
        let (result, why) = verdict?;
        Some(r.game.adjudicate(result, why))
    }
}
