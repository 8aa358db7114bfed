//! The games objective: game pairs between θ⁺ and θ⁻, played by Argus.
//!
//! Each iteration is an event of its own in a directory of its own: two
//! local players (`uci` in the event file, the same engine with the same
//! fixed options, each with its probe's values), `rounds` game pairs on
//! openings drawn from the book with the iteration's seed, the referee's
//! clocks, journal and adjudication as in any match. The result is read
//! from the PGN the referee wrote.

use std::path::{Path, PathBuf};

use epd_engine::{EngineError, UciEngine};
use epd_referee::runtime::{run_blocking, Options};
use epd_referee::Event;

use crate::spsa::{spin, Param};
use crate::{TuneError, Tuned};

/// How the games of an iteration are played.
#[derive(Clone, Debug, PartialEq)]
pub struct Games {
    /// The engine.
    pub engine: Tuned,
    /// The time control, in PGN's syntax (`10+0.1`).
    pub time_control: String,
    /// Games played at once.
    pub concurrency: u32,
    /// The openings (EPD or PGN), drawn at random with each iteration's
    /// seed; the start position without.
    pub openings: Option<PathBuf>,
    /// Lines added to each iteration's event file (adjudication, for
    /// example): the same keys as in any event file.
    pub extra: String,
}

/// An iteration's games, from θ⁺'s side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Score {
    /// Games θ⁺ won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games θ⁺ lost.
    pub losses: u32,
}

impl Score {
    /// Wins less losses: SPSA's result.
    #[must_use]
    pub fn result(&self) -> f64 {
        f64::from(self.wins) - f64::from(self.losses)
    }
}

impl Games {
    /// Starts the engine once and checks every parameter against it: an
    /// option it declares, of type spin whose range holds the
    /// parameter's, or of type check or combo (tuned as an index into its
    /// values, which the parameter's range must stay within; the values
    /// are kept in [`Param::choices`]).
    ///
    /// # Errors
    /// The engine cannot be started, or a parameter does not fit it.
    pub fn check(&self, params: &mut [Param]) -> Result<(), TuneError> {
        let config = self.engine.config(Vec::new())?;
        let program = self.engine.program();
        let engine = UciEngine::start(config).map_err(|e| match e {
            // A fixed option the engine lacks is the command line's fault.
            EngineError::UnknownOption { .. } => TuneError::Usage(e.to_string()),
            _ => TuneError::Engine(format!("{program}: {e}")),
        })?;
        for p in params.iter_mut() {
            let (lo, hi) = if let Some(range) = engine.spin_range(&p.name) {
                range
            } else if let Some(choices) = engine.option_choices(&p.name) {
                p.choices = Some(choices.to_vec());
                (0, choices.len() as i64 - 1)
            } else {
                let why = if engine.has_option(&p.name) {
                    "is not a spin, check or combo option"
                } else {
                    "is not an option of it"
                };
                return Err(TuneError::Usage(format!(
                    "{}: {why} (the engine declares: {})",
                    p.name,
                    engine.declared_options().join(", ")
                )));
            };
            if p.min < lo as f64 || p.max > hi as f64 {
                let what = match &p.choices {
                    Some(c) => format!("its choices' indices 0..{} ({})", c.len() - 1, c.join(", ")),
                    None => format!("the option's {lo}..{hi}"),
                };
                return Err(TuneError::Usage(format!("{}: the range {}..{} is outside {what}", p.name, p.min, p.max)));
            }
        }
        Ok(())
    }

    /// The event file of an iteration: `pairs` game pairs between the
    /// players `plus` and `minus`, with these values of the parameters.
    #[must_use]
    pub fn event_text(&self, params: &[Param], plus: &[f64], minus: &[f64], pairs: u32, seed: u64) -> String {
        let mut t = toml::Table::new();
        t.insert("event".into(), "epd tune".into());
        t.insert("time_control".into(), self.time_control.clone().into());
        t.insert("rounds".into(), i64::from(pairs).into());
        t.insert("concurrency".into(), i64::from(self.concurrency.max(1)).into());
        t.insert("reset_delay".into(), 0.into());
        t.insert("conclude_delay".into(), 0.into());
        t.insert("journal_sync".into(), "second".into());
        if let Some(book) = &self.openings {
            t.insert("openings".into(), book.display().to_string().into());
            t.insert("openings_order".into(), "random".into());
            // The seed as TOML holds it: a 63-bit integer.
            t.insert("openings_seed".into(), ((seed >> 1) as i64).into());
        }
        let player = |name: &str, values: &[f64]| {
            let mut p = toml::Table::new();
            p.insert("name".into(), name.into());
            p.insert("uci".into(), toml::Value::Array(self.engine.command.iter().map(|w| w.clone().into()).collect()));
            let mut options = toml::Table::new();
            for (k, v) in &self.engine.options {
                options.insert(k.clone(), v.clone().into());
            }
            for (param, v) in params.iter().zip(values) {
                options.insert(
                    param.name.clone(),
                    match param.choices {
                        Some(_) => param.option_value(*v).into(),
                        None => spin(*v).into(),
                    },
                );
            }
            p.insert("options".into(), options.into());
            toml::Value::Table(p)
        };
        t.insert("players".into(), toml::Value::Array(vec![player("plus", plus), player("minus", minus)]));
        let mut text = toml::to_string(&t).unwrap_or_default();
        if !self.extra.trim().is_empty() {
            // Top-level keys go before the first table.
            let at = text.find("[[players]]").unwrap_or(text.len());
            text.insert_str(at, &format!("{}\n", self.extra.trim_end()));
        }
        text
    }

    /// Plays an iteration's pairs in `dir` (made afresh) and scores them
    /// from θ⁺'s side.
    ///
    /// # Errors
    /// The directory cannot be made, the event does not run (an engine
    /// that cannot start), or it ends before its games are played.
    pub fn play(
        &self,
        dir: &Path,
        params: &[Param],
        plus: &[f64],
        minus: &[f64],
        pairs: u32,
        seed: u64,
    ) -> Result<Score, TuneError> {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).map_err(|e| TuneError::Io(format!("{}: {e}", dir.display())))?;
        let text = self.event_text(params, plus, minus, pairs, seed);
        let path = dir.join("event.toml");
        std::fs::write(&path, &text).map_err(|e| TuneError::Io(format!("{}: {e}", path.display())))?;
        let event = Event::parse(&text, dir).map_err(|e| TuneError::Usage(format!("the iteration's event: {e}")))?;
        let options = Options { listen: Some("127.0.0.1:0".into()), ..Options::default() };
        let outcome = run_blocking(event, options).map_err(|e| TuneError::Engine(e.to_string()))?;
        if let Some(signal) = outcome.interrupted {
            return Err(TuneError::Interrupted(signal));
        }
        let pgn = dir.join("games.pgn");
        let text = std::fs::read_to_string(&pgn).map_err(|e| TuneError::Io(format!("{}: {e}", pgn.display())))?;
        let score = score_pgn(&text);
        let played = score.wins + score.draws + score.losses;
        if played < 2 * pairs {
            return Err(TuneError::Engine(format!(
                "the iteration played {played} of its {} games (see {})",
                2 * pairs,
                dir.join("referee.log").display()
            )));
        }
        Ok(score)
    }
}

/// The games of a PGN between `plus` and `minus`, from `plus`'s side.
#[must_use]
pub fn score_pgn(text: &str) -> Score {
    let mut score = Score::default();
    let (mut white, mut result) = (None, None);
    let tag = |line: &str, name: &str| -> Option<String> {
        let rest = line.strip_prefix('[')?.strip_prefix(name)?.trim_start().strip_prefix('"')?;
        Some(rest.split('"').next()?.to_owned())
    };
    let mut close = |white: &mut Option<String>, result: &mut Option<String>| {
        if let (Some(w), Some(r)) = (white.take(), result.take()) {
            let plus_white = w == "plus";
            match (r.as_str(), plus_white) {
                ("1-0", true) | ("0-1", false) => score.wins += 1,
                ("0-1", true) | ("1-0", false) => score.losses += 1,
                ("1/2-1/2", _) => score.draws += 1,
                _ => {}
            }
        }
    };
    for line in text.lines() {
        if line.starts_with("[Event ") {
            close(&mut white, &mut result);
        }
        if let Some(w) = tag(line, "White ") {
            white = Some(w);
        }
        if let Some(r) = tag(line, "Result ") {
            result = Some(r);
        }
    }
    close(&mut white, &mut result);
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pgn_is_scored_from_the_plus_side() {
        let game = |w: &str, b: &str, r: &str| {
            format!("[Event \"t\"]\n[White \"{w}\"]\n[Black \"{b}\"]\n[Result \"{r}\"]\n\n1. e4 {r}\n\n")
        };
        let pgn = [
            game("plus", "minus", "1-0"),
            game("minus", "plus", "1-0"),
            game("minus", "plus", "0-1"),
            game("plus", "minus", "1/2-1/2"),
            game("plus", "minus", "*"),
        ]
        .concat();
        let s = score_pgn(&pgn);
        assert_eq!(s, Score { wins: 2, draws: 1, losses: 1 });
        assert!((s.result() - 1.0).abs() < f64::EPSILON);
    }

    #[test]
    fn an_iteration_event_reads_back_as_an_event() {
        let g = Games {
            engine: Tuned {
                command: vec!["/usr/games/stockfish".into()],
                options: vec![("Hash".into(), "16".into()), ("Move Overhead".into(), "20".into())],
            },
            time_control: "10+0.1".into(),
            concurrency: 2,
            openings: Some(PathBuf::from("/tmp/book \"x\".epd")),
            extra: "draw_adjudication = { movenumber = 40, movecount = 8, score = 10 }".into(),
        };
        let params = vec![Param::new("Contempt", 10.0, -50.0, 50.0, 5.0, 0.002).unwrap()];
        let text = g.event_text(&params, &[14.6], &[5.4], 3, 99);
        let event = Event::parse(&text, Path::new(".")).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(event.players.len(), 2);
        assert_eq!(event.players[0].name, "plus");
        let opts = event.players[0].uci_options();
        assert!(opts.contains(&("Contempt".to_owned(), "15".to_owned())), "{opts:?}");
        assert!(opts.contains(&("Move Overhead".to_owned(), "20".to_owned())), "{opts:?}");
        assert!(event.players[1].uci_options().contains(&("Contempt".to_owned(), "5".to_owned())));
        assert!(text.contains("draw_adjudication"), "{text}");
        // A check option tuned as an index: the engine gets false or true.
        let mut ponder = Param::new("Ponder", 0.0, 0.0, 1.0, 0.5, 0.1).unwrap();
        ponder.choices = Some(vec!["false".into(), "true".into()]);
        let text = g.event_text(&[ponder], &[0.8], &[0.2], 1, 5);
        let event = Event::parse(&text, Path::new(".")).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(event.players[0].uci_options().contains(&("Ponder".to_owned(), "true".to_owned())));
        assert!(event.players[1].uci_options().contains(&("Ponder".to_owned(), "false".to_owned())));
    }
}
