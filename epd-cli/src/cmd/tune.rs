//! `epd tune`: SPSA over a UCI engine's spin options (Gastric as
//! feedback, EPD §3.3), each iteration game pairs between the two probes
//! θ⁺ and θ⁻ played by Argus, or (`--suite`) a test suite searched with
//! each and scored as `epd report` scores it; its state, history and
//! games or results in `--dir`.

use std::path::PathBuf;

use anyhow::Context;
use epd_engine::Limits;
use epd_tune::games::Games;
use epd_tune::run::{play_games, Measure, Run};
use epd_tune::spsa::{Param, Schedule, Spsa};
use epd_tune::suite::{Aim, Suite};
use epd_tune::{TuneError, Tuned};

use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd tune --engine ./dev --param Margin,100,0,400,20,0.002 --param Knight,300,200,400,10,0.002 \\
    --pairs 2000 --tc 10+0.1 --concurrency 2 --openings book.epd --dir tune-dev
  epd tune --engine ./dev --param Margin,100,0,400,20,0.002 --param Knight,300,200,400,10,0.002 \\
    --pairs 2000 --tc 10+0.1 --concurrency 2 --openings book.epd --dir tune-dev --resume
  epd tune --engine epd --engine-arg uci --param MobilityWeight,40,0,400,20,0.05 \\
    --suite STS1-STS15_LAN_v3.epd --sample 150 --iterations 200 --nodes 20000 --dir tune-sts

A --param is fishtest's line: NAME,START,MIN,MAX,C_END,R_END (NAME a spin option of the
engine, its range within the option's; or a check or combo option, tuned as an index into
its values: false 0, true 1, a combo's vars from 0 in the engine's order). fishtest's
schedules: c_k = c / (k + 1)^gamma and a_k = a / (A + k + 1)^alpha, with c and a such that
the last pair's perturbation is C_END and its a_k / c_k^2 is R_END. The state is DIR/tune.json (written after every iteration;
--resume goes on from it), the history DIR/history.csv and DIR/history.jsonl, each
iteration's games DIR/iterations/N/games.pgn. With --suite, each iteration searches the
suite (or --sample N of its records, drawn with the iteration's seed) with each probe as
`epd target` does and SPSA's result is the difference of `epd report`'s objective (STS
points percent where the suite gives points, else solved percent); the sample and both
results are kept in DIR/iterations/N/. The tuned values are printed as NAME=VALUE.";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The UCI engine (a program on PATH, or a path).
    #[arg(long, value_name = "CMD")]
    engine: String,
    /// An argument for the engine, repeated for more.
    #[arg(long = "engine-arg", value_name = "ARG", allow_hyphen_values = true)]
    engine_arg: Vec<String>,
    /// An option set alike in both probes, not tuned: NAME=VALUE, repeated.
    #[arg(long, value_name = "NAME=VALUE")]
    option: Vec<String>,
    /// A parameter to tune, fishtest's line: NAME,START,MIN,MAX,C_END,R_END; repeated.
    #[arg(long, value_name = "NAME,START,MIN,MAX,C_END,R_END", required = true)]
    param: Vec<String>,
    /// Game pairs in all: SPSA's N.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pairs: u64,
    /// Game pairs per update (default: --concurrency).
    #[arg(long, value_name = "N", conflicts_with = "suite")]
    batch: Option<u32>,
    /// Time control of every game, in PGN's syntax.
    #[arg(long, value_name = "TC", default_value = "10+0.1")]
    tc: String,
    /// Games played at once (with --suite: engines searching at once for
    /// each probe).
    #[arg(long, value_name = "N", default_value_t = 2)]
    concurrency: u32,
    /// Openings (EPD or PGN), drawn at random for each iteration; the
    /// start position without.
    #[arg(long, value_name = "FILE", conflicts_with = "suite")]
    openings: Option<PathBuf>,
    /// Tune on a test suite instead of games: each iteration searches it
    /// with both probes and compares `epd report`'s objective. Its records
    /// need bm or am.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["pairs", "tc"])]
    suite: Option<PathBuf>,
    /// With --suite: records searched per iteration, drawn at random with
    /// the iteration's seed (default: all).
    #[arg(long, value_name = "N", requires = "suite", value_parser = clap::value_parser!(u64).range(1..))]
    sample: Option<u64>,
    /// With --suite: iterations in all, SPSA's N.
    #[arg(long, value_name = "N", requires = "suite", default_value_t = 100)]
    iterations: u64,
    /// With --suite: time per record in milliseconds (default 100 when no
    /// --depth or --nodes is given).
    #[arg(long, value_name = "MS", requires = "suite", value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// With --suite: depth per record in plies.
    #[arg(long, value_name = "N", requires = "suite", value_parser = clap::value_parser!(u32).range(1..=255))]
    depth: Option<u32>,
    /// With --suite: nodes per record.
    #[arg(long, value_name = "N", requires = "suite", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// With --suite: the figure maximised: `auto` (the report's objective:
    /// points where the suite gives them, else solved), `solved` or
    /// `points`.
    #[arg(long, value_enum, value_name = "WHAT", requires = "suite", default_value_t = Objective::Auto)]
    objective: Objective,
    /// The seed of the perturbations' signs and of the openings' draws.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// fishtest's A, the stability constant (default: a tenth of SPSA's N,
    /// --pairs or --iterations).
    #[arg(long, value_name = "A")]
    stability: Option<f64>,
    /// fishtest's alpha, the decay of a_k.
    #[arg(long, value_name = "X", default_value_t = 0.602)]
    alpha: f64,
    /// fishtest's gamma, the decay of c_k.
    #[arg(long, value_name = "X", default_value_t = 0.101)]
    gamma: f64,
    /// The run's directory: its state, history and games.
    #[arg(long, value_name = "DIR", default_value = "tune")]
    dir: PathBuf,
    /// Go on from the state in --dir (after a stop or a kill).
    #[arg(long)]
    resume: bool,
}

/// The figure a suite run maximises.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Objective {
    Auto,
    Solved,
    Points,
}

/// `NAME,START,MIN,MAX,C_END,R_END`.
fn param(text: &str) -> anyhow::Result<Param> {
    let words: Vec<&str> = text.split(',').map(str::trim).collect();
    let [name, rest @ ..] = words.as_slice() else { unreachable!("split yields a word") };
    if rest.len() != 5 || name.is_empty() {
        anyhow::bail!("--param {text:?}: expected NAME,START,MIN,MAX,C_END,R_END (fishtest's line)");
    }
    let mut v = [0.0; 5];
    for (i, w) in rest.iter().enumerate() {
        v[i] = w.parse().map_err(|_| anyhow::anyhow!("--param {text:?}: {w:?} is not a number"))?;
    }
    Param::new(name, v[0], v[1], v[2], v[3], v[4]).map_err(|e| anyhow::anyhow!("--param {text:?}: {e}"))
}

pub fn run(args: Args, out: &mut dyn std::io::Write) -> anyhow::Result<Outcome> {
    let params = args.param.iter().map(|p| param(p)).collect::<anyhow::Result<Vec<_>>>()?;
    let options = args
        .option
        .iter()
        .map(|o| {
            o.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .ok_or_else(|| anyhow::anyhow!("--option {o:?}: expected NAME=VALUE"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    if let Some(book) = &args.openings {
        std::fs::metadata(book).with_context(|| format!("--openings {}", book.display()))?;
    }
    let mut schedule = Schedule::new(if args.suite.is_some() { args.iterations } else { args.pairs });
    schedule.alpha = args.alpha;
    schedule.gamma = args.gamma;
    if let Some(a) = args.stability {
        schedule.big_a = a;
    }
    let mut fresh = Spsa::new(params, schedule, args.seed).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut engine = vec![args.engine.clone()];
    engine.extend(args.engine_arg.iter().cloned());
    let openings = match args.openings {
        Some(p) => Some(std::fs::canonicalize(&p).with_context(|| format!("--openings {}", p.display()))?),
        None => None,
    };
    let tuned = Tuned { command: engine, options };
    let games = Games {
        engine: tuned.clone(),
        time_control: args.tc,
        concurrency: args.concurrency.max(1),
        openings,
        extra: String::new(),
    };
    // The engine's options are checked in either mode.
    games.check(&mut fresh.params).map_err(|e| anyhow::anyhow!("{e}"))?;
    let suite = match &args.suite {
        Some(path) => {
            let (records, left_out) = Suite::read(path).map_err(|e| anyhow::anyhow!("{e}"))?;
            eprintln!(
                "epd tune: {}: {} records with bm or am{}",
                path.display(),
                records.len(),
                if left_out > 0 { format!(", {left_out} lines without (or invalid) left out") } else { String::new() }
            );
            let limits = Limits {
                movetime: args.movetime.map(std::time::Duration::from_millis).or_else(|| {
                    (args.depth.is_none() && args.nodes.is_none()).then(|| std::time::Duration::from_millis(100))
                }),
                depth: args.depth,
                nodes: args.nodes,
                ..Limits::default()
            };
            let aim = match args.objective {
                Objective::Auto => Aim::Auto,
                Objective::Solved => Aim::Solved,
                Objective::Points => Aim::Points,
            };
            let sample = args.sample.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
            Some(Suite { engine: tuned, limits, jobs: args.concurrency.max(1), records, sample, aim })
        }
        None => None,
    };
    let batch = if suite.is_some() { 1 } else { args.batch.unwrap_or(args.concurrency).max(1) };
    let run = Run { dir: args.dir, batch, seed: args.seed };
    let state = run.begin(fresh.clone(), args.resume).map_err(|e| anyhow::anyhow!("{e}"))?;
    let names = |s: &Spsa| s.params.iter().map(|p| p.name.to_ascii_lowercase()).collect::<Vec<_>>();
    if names(&state) != names(&fresh) {
        anyhow::bail!(
            "{}: the saved run tunes {}, not the --param given",
            run.dir.join("tune.json").display(),
            state.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
        );
    }
    let result = match &suite {
        Some(suite) => {
            eprintln!(
                "epd tune: {} iterations, from iteration {}; state in {}",
                state.schedule.iterations,
                state.k + 1,
                run.dir.join("tune.json").display()
            );
            let stop = crate::files::Stop::install()?;
            let seed = run.seed;
            let mut play = |dir: &std::path::Path, state: &Spsa, probe: &epd_tune::spsa::Probe, _pairs: u32| {
                let k = seed.wrapping_add(probe.k);
                match suite.play(dir, &state.params, &probe.plus, &probe.minus, k, stop.flag()) {
                    Ok(o) => Ok(Measure::Suite(o)),
                    Err(TuneError::Interrupted(_)) => Err(TuneError::Interrupted(stop.signal().unwrap_or(2))),
                    Err(e) => Err(e),
                }
            };
            run.go(state, &mut play, &mut |line| eprintln!("{line}"))
        }
        None => {
            eprintln!(
                "epd tune: {} pairs, {} per iteration, from pair {}; state in {}",
                state.schedule.iterations,
                run.batch,
                state.k,
                run.dir.join("tune.json").display()
            );
            let mut play = play_games(&games, run.seed);
            run.go(state, &mut play, &mut |line| eprintln!("{line}"))
        }
    };
    let end = match result {
        Ok(s) => s,
        Err(TuneError::Interrupted(sig)) => {
            eprintln!("epd tune: stopped by signal {sig}; go on with --resume");
            return Ok(Outcome::Interrupted(sig));
        }
        Err(e) => return Err(anyhow::anyhow!("{e}")),
    };
    for p in &end.params {
        writeln!(out, "{}={}", p.name, p.option_value(p.value))?;
    }
    Ok(Outcome::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_read_as_fishtest_writes_them() {
        let p = param("Margin, 100, 0, 400, 20, 0.002").unwrap();
        assert_eq!(
            (p.name.as_str(), p.value, p.min, p.max, p.c_end, p.r_end),
            ("Margin", 100.0, 0.0, 400.0, 20.0, 0.002)
        );
        for (bad, want) in [
            ("Margin,100,0,400,20", "expected NAME,START,MIN,MAX,C_END,R_END"),
            ("Margin,x,0,400,20,0.002", "\"x\" is not a number"),
            ("Margin,500,0,400,20,0.002", "outside its range"),
        ] {
            let e = param(bad).unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }
}
