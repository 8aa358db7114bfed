//! `epd match`: a match of local UCI engines from one command line, in
//! fastchess's and cutechess-cli's option names (`-engine`, `-each`,
//! `-rounds`, ...; one dash or two). It writes the event file it runs
//! (`--write-event`) and runs it with Argus's director: the journal,
//! `--resume`, the live display.

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::Context;
use epd_referee::matches::{event_text, MatchSpec};
use epd_referee::runtime::{self, Options};
use epd_referee::Event;

use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd match -engine cmd=stockfish name=sf option.Hash=16 -engine cmd=./dev name=dev \\
    -each tc=10+0.1 -rounds 200 -repeat -concurrency 2 \\
    -openings file=book.epd format=epd order=random -pgnout games.pgn
  epd match --engine cmd=epd args=uci name=d4 depth=4 --engine cmd=epd args=uci name=d2 depth=2 \\
    --rounds 10 --write-event match.toml      # then: epd referee match.toml --resume after a kill

fastchess and cutechess-cli options carry over (one dash or two): -engine and -each with
cmd= name= args= dir= tc= st= nodes= depth=/plies= proto=uci option.NAME=VALUE; -rounds,
-games 2, -repeat, -concurrency, -openings file= format=epd|pgn order= plies= start=, -srand,
-pgnout file=, -log file= engine=true, -event, -site, -tournament roundrobin|gauntlet, -wait,
-recover, -sprt elo0= elo1= alpha= beta= model=normalized|logistic, -ratinginterval N,
-scoreinterval N, -report penta=true|false, -use-affinity [CPUS], -show-latency,
-draw movenumber= movecount= score=, -resign movecount= score= twosided=, -maxmoves N,
-variant standard|fischerandom, -noswap, -reverse, -epdout file=.
Engines given only st=, nodes= or depth= play without a clock (TimeControl \"-\"),
sent go movetime, go nodes or go depth as fastchess sends them; -draw, -resign and
-maxmoves follow fastchess's rules and units. A PGN book's moves (format=pgn) are
the games' first moves, sent to the engines and written to the PGN ({book}) as
fastchess does. An engine that crashes, stalls or answers an illegal move loses that
game at once (Termination \"abandoned\" or \"illegal move\") and is started afresh for
the next; without -recover a crash or a stall stops the match, as fastchess's does.
The report lists per engine its time losses, crashes, stalls and illegal moves. Each
game started and finished is printed on standard error as fastchess prints it
(Started game 1 of 4 (a vs b), Finished game 1 (a vs b): 1-0 {White mates}).
Refused with a message: -games other than 2, restart=on, an option.NAME=VALUE outside
the engine's declared range, and the options Argus does not have (-tb, -config,
-autosaveinterval, -output and any other one-dash word). Interrupted, epd
match prints the command that resumes it.";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// An engine: KEY=VALUE words (cmd= is required), repeated per engine.
    #[arg(long, value_name = "KEY=VALUE...", required = true)]
    engine: Vec<String>,
    /// KEY=VALUE words for every engine (an engine's own win).
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..)]
    each: Vec<String>,
    /// Rounds: each pairing plays a pair of games (colours swapped) per
    /// round, with one opening.
    #[arg(long, value_name = "N")]
    rounds: Option<u32>,
    /// Games per round and pairing: 2 (a pair with colours swapped).
    #[arg(long, value_name = "N")]
    games: Option<u32>,
    /// The same as --games 2.
    #[arg(long)]
    repeat: bool,
    /// Games played at once.
    #[arg(long, value_name = "N")]
    concurrency: Option<u32>,
    /// The opening book: file=NAME format=epd|pgn [order=sequential|random] [plies=N] [start=N].
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..)]
    openings: Vec<String>,
    /// The seed of a random opening order (default: from the clock,
    /// written into the event file).
    #[arg(long, value_name = "N")]
    srand: Option<u64>,
    /// The PGN file: file=NAME (or the name alone).
    #[arg(long, value_name = "file=NAME", num_args = 1..)]
    pgnout: Vec<String>,
    /// The log of every record sent and received: file=NAME
    /// [engine=true: the engines' UCI lines too].
    #[arg(long, value_name = "file=NAME", num_args = 1..)]
    log: Vec<String>,
    /// The event's name (PGN Event).
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
    /// The site (PGN Site).
    #[arg(long, value_name = "NAME")]
    site: Option<String>,
    /// roundrobin (every engine against every other) or gauntlet (the
    /// first against each other).
    #[arg(long, value_name = "roundrobin|gauntlet")]
    tournament: Option<String>,
    /// A pause between a pair of engines' games, in milliseconds.
    #[arg(long, value_name = "MS")]
    wait: Option<u64>,
    /// A GSPRT over game pairs that ends the match once it decides:
    /// elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=normalized|logistic].
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..)]
    sprt: Vec<String>,
    /// Print the results block (score, Elo, nElo, LOS, pentanomial
    /// counts, SPRT) every N games on standard error (0: never).
    #[arg(long, value_name = "N")]
    ratinginterval: Option<u32>,
    /// Print the Score of line (wins, losses, draws) every N games on
    /// standard error (default 0: only within the results block).
    #[arg(long, value_name = "N")]
    scoreinterval: Option<u32>,
    /// penta=false: the results block and the SPRT over games
    /// (trinomial) instead of game pairs.
    #[arg(long, value_name = "penta=true|false", num_args = 1..)]
    report: Vec<String>,
    /// Pin each engine to a CPU, one per game at once (Linux): the CPUs
    /// the match may use, or those listed (0,2,4-7).
    #[arg(long, value_name = "CPUS", num_args = 0..=1)]
    use_affinity: Option<Option<String>>,
    /// Write each engine move's latency to the log (-log file=): the
    /// time it took less the time the engine reported.
    #[arg(long)]
    show_latency: bool,
    /// Draw adjudication: movenumber=N movecount=N score=CP (both
    /// engines' last N scores within CP, from move movenumber).
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..)]
    draw: Vec<String>,
    /// Resign adjudication: movecount=N score=CP [twosided=true].
    #[arg(long, value_name = "KEY=VALUE", num_args = 1..)]
    resign: Vec<String>,
    /// A draw by adjudication after N full moves.
    #[arg(long, value_name = "N")]
    maxmoves: Option<u32>,
    /// standard, or fischerandom (Chess960 and DFRC: X-FEN or
    /// Shredder-FEN books, UCI_Chess960 set on the engines).
    #[arg(long, value_name = "standard|fischerandom")]
    variant: Option<String>,
    /// Both games of a pair with the same colours (the first engine of
    /// the pairing White).
    #[arg(long)]
    noswap: bool,
    /// Each pair begins with the second engine of the pairing as White.
    #[arg(long)]
    reverse: bool,
    /// Each finished game's final position as EPD: file=NAME.
    #[arg(long, value_name = "file=NAME", num_args = 1..)]
    epdout: Vec<String>,
    /// Play on after a game lost to a crashed or stalled engine, the
    /// engine started afresh (without it the match stops there, as
    /// fastchess's does).
    #[arg(long)]
    recover: bool,
    /// Write the event file this command line means to FILE and run it
    /// (its relative paths are taken from FILE's directory).
    #[arg(long, value_name = "FILE")]
    write_event: Option<PathBuf>,
    /// Go on from the journal after the referee stopped (the same
    /// command line, or `epd referee FILE --resume` with --write-event's
    /// file).
    #[arg(long)]
    resume: bool,
    /// The live display on HOST:PORT (a page, /api/state, /api/events, /pgn).
    #[arg(long, value_name = "HOST:PORT")]
    web: Option<String>,
    /// The journal's file (default referee.journal).
    #[arg(long, value_name = "FILE")]
    journal: Option<String>,
    /// When the journal reaches the disk: turn (synced before a record
    /// that needs it goes out; within a second when none does) or second
    /// (written each turn, synced within a second).
    #[arg(long, value_name = "turn|second")]
    journal_sync: Option<String>,
    /// Print the match's progress on standard error.
    #[arg(short = 'v', long)]
    verbose: bool,
}

/// The long options of `epd match`, for fastchess's single-dash forms.
const LONG: &[&str] = &[
    "engine",
    "each",
    "rounds",
    "games",
    "repeat",
    "concurrency",
    "openings",
    "srand",
    "pgnout",
    "log",
    "event",
    "site",
    "tournament",
    "wait",
    "recover",
    "sprt",
    "ratinginterval",
    "scoreinterval",
    "report",
    "use-affinity",
    "show-latency",
    "draw",
    "resign",
    "maxmoves",
    "variant",
    "noswap",
    "reverse",
    "epdout",
];

/// Options of fastchess and cutechess-cli that `epd match` does not have,
/// and what to do instead.
const NOT_YET: &[(&str, &str)] = &[
    ("tb", "tablebase adjudication is not supported"),
    ("config", "the journal keeps the match: use --resume"),
    ("autosaveinterval", "the journal keeps every move: use --resume"),
    ("output", "the report is written in Argus's form"),
];

/// Where the subcommand is in `args` (the program's name first): the
/// first word that is neither one of `cli`'s own options (`--color`,
/// `--help`) nor the value of one that takes a value (`--color never`;
/// `--color=never` is one word). `None` when there is no such word.
fn subcommand_at(cli: &clap::Command, args: &[OsString]) -> Option<usize> {
    let takes_value =
        |is: &dyn Fn(&clap::Arg) -> bool| cli.get_arguments().any(|a| is(a) && a.get_action().takes_values());
    let mut i = 1;
    while let Some(word) = args.get(i) {
        let s = match word.to_str() {
            Some(s) if s.starts_with('-') && s != "-" => s,
            _ => return Some(i),
        };
        if s == "--" {
            return (i + 1 < args.len()).then_some(i + 1);
        }
        let value = match s.strip_prefix("--") {
            // `--name=value` carries its value.
            Some(long) => {
                !long.contains('=')
                    && takes_value(&|a| {
                        a.get_long() == Some(long) || a.get_all_aliases().is_some_and(|all| all.contains(&long))
                    })
            }
            // `-c value`; `-cvalue` carries its value.
            None => {
                let mut letters = s[1..].chars();
                let short = letters.next();
                letters.next().is_none() && takes_value(&|a| a.get_short().is_some() && a.get_short() == short)
            }
        };
        i += 1 + usize::from(value);
    }
    None
}

/// fastchess writes `-engine`; clap takes `--engine`. The options of
/// `epd match` written with one dash are given a second, before clap
/// reads the command line; options Argus does not have are named. `cli`
/// builds the description of the whole command line (made only when a
/// word is `match`), to find the subcommand after the global options
/// (`epd --color never match -engine ...`).
///
/// # Errors
/// An option of fastchess or cutechess-cli that `epd match` does not
/// have yet.
pub fn normalize(args: Vec<OsString>, cli: impl FnOnce() -> clap::Command) -> anyhow::Result<Vec<OsString>> {
    if !args.iter().skip(1).any(|a| a == "match") {
        return Ok(args);
    }
    let mut cli = cli();
    cli.build();
    let Some(at) = subcommand_at(&cli, &args).filter(|&i| args[i] == "match") else {
        return Ok(args);
    };
    // The program, the global options and `match` as they are; then the
    // options of `epd match`.
    let mut out = args;
    let rest = out.split_off(at + 1);
    // The words of the -engine being read: one value, a word a line (clap
    // keeps no groups of a repeated option).
    let mut group: Option<Vec<String>> = None;
    for a in rest {
        let Some(s) = a.to_str() else {
            out.push(a);
            continue;
        };
        let name = s.strip_prefix("--").or_else(|| s.strip_prefix('-')).unwrap_or("");
        let option = s.starts_with('-') && !name.is_empty();
        if option {
            if let Some(words) = group.take() {
                out.push(words.join("\n").into());
            }
        }
        if let Some((_, why)) = NOT_YET.iter().find(|(n, _)| *n == name && option) {
            anyhow::bail!("epd match: {s}: {why}; `epd match --help` lists what it takes");
        }
        // A one-dash word of several letters that is not an option here:
        // said as typed (clap would read `-report` as `-r`).
        let single = s.starts_with('-') && !s.starts_with("--") && name.len() > 1;
        if option && single && !LONG.contains(&name) && name.parse::<f64>().is_err() {
            anyhow::bail!("epd match: {s} is not an option of epd match; `epd match --help` lists what it takes");
        }
        if let Some(words) = group.as_mut() {
            words.push(s.to_owned());
        } else if option && LONG.contains(&name) {
            out.push(format!("--{name}").into());
            if name == "engine" {
                group = Some(Vec::new());
            }
        } else {
            out.push(a);
        }
    }
    if let Some(words) = group {
        out.push(words.join("\n").into());
    }
    Ok(out)
}

pub fn run(args: Args, out: &mut dyn std::io::Write) -> anyhow::Result<Outcome> {
    let spec = MatchSpec {
        engines: args.engine.iter().map(|g| g.split('\n').map(str::to_owned).collect()).collect(),
        each: args.each,
        rounds: args.rounds,
        games: if args.repeat { Some(2) } else { args.games },
        concurrency: args.concurrency,
        openings: args.openings,
        srand: args.srand,
        pgnout: args.pgnout,
        log: args.log,
        event: args.event,
        site: args.site,
        tournament: args.tournament,
        wait_ms: args.wait,
        listen: None,
        web: args.web,
        journal: args.journal,
        report: None,
        journal_sync: args.journal_sync,
        sprt: args.sprt,
        rating_interval: args.ratinginterval,
        draw: args.draw,
        resign: args.resign,
        maxmoves: args.maxmoves,
        variant: args.variant,
        noswap: args.noswap,
        reverse: args.reverse,
        epdout: args.epdout,
        recover: args.recover,
        report_options: args.report,
        score_interval: args.scoreinterval,
        affinity: args.use_affinity,
        show_latency: args.show_latency,
    };
    let random = spec.openings.iter().any(|w| w == "order=random");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_secs());
    let (dir, name) = match &args.write_event {
        Some(path) => (path.parent().map(PathBuf::from).unwrap_or_default(), path.display().to_string()),
        None => (PathBuf::new(), "the match".to_owned()),
    };
    // A random order drawn from the clock is kept in the journal's first
    // entry: a resumed match reads it there, and plays the same openings.
    let seed = if args.resume && random && spec.srand.is_none() {
        let probe = Event::parse(&event_text(&spec, now)?, &dir).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        saved_seed(&probe.journal)?
    } else {
        now
    };
    let text = event_text(&spec, seed)?;
    if let Some(path) = &args.write_event {
        std::fs::write(path, &text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let event = Event::parse(&text, &dir).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    let (journal, pgn) = (event.journal.clone(), event.pgn.clone());
    let options = Options {
        console: false,
        listen: None,
        verbose: args.verbose,
        measure_latency: false,
        resume: args.resume,
        serial: Vec::new(),
        baud: None,
    };
    let outcome = runtime::run_blocking(event, options)?;
    write!(out, "{}", outcome.report)?;
    if let Some(why) = &outcome.engine_failed {
        // As fastchess without -recover: the match stops, abnormally.
        let mut words: Vec<String> = std::env::args().map(|a| shell_word(&a)).collect();
        if !words.iter().any(|w| w == "--resume") {
            words.push("--resume".into());
        }
        eprintln!(
            "epd match: {why}; -recover plays on after a crash or a stall. The match is kept in {} (its finished \
             games in {}); to go on:\n  {}",
            journal.display(),
            pgn.display(),
            words.join(" ")
        );
        out.flush()?;
        return Ok(Outcome::Invalid);
    }
    if outcome.interrupted.is_some() {
        // Where the match is kept, and the command that goes on with it.
        let mut words: Vec<String> = std::env::args().map(|a| shell_word(&a)).collect();
        if !words.iter().any(|w| w == "--resume") {
            words.push("--resume".into());
        }
        eprintln!(
            "epd match: interrupted; the match is kept in {} (its finished games in {}); to go on:\n  {}",
            journal.display(),
            pgn.display(),
            words.join(" ")
        );
    }
    Ok(outcome.interrupted.map_or(Outcome::Ok, Outcome::Interrupted))
}

/// The seed of the random opening order that the match's journal kept
/// (its first entry).
fn saved_seed(journal: &std::path::Path) -> anyhow::Result<u64> {
    use epd_referee::journal::entry::Entry;
    let entries = epd_referee::journal::read_entries(journal)
        .map_err(|e| anyhow::anyhow!("--resume: {}: {e}", journal.display()))?;
    let first = entries.first().and_then(|e| serde_json::from_slice::<Entry>(e).ok());
    match first {
        Some(Entry::Begin { openings_seed: Some(seed), .. }) => Ok(seed),
        _ => anyhow::bail!(
            "--resume: {} keeps no opening seed (a match begun by an older version): give its -srand, or \
             epd referee FILE --resume with the file --write-event wrote",
            journal.display()
        ),
    }
}

/// `word` as a shell reads it back: bare when plain, else single-quoted.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_=./:,+@%".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        line.split(' ').map(OsString::from).collect()
    }

    /// The subcommand comes after the global options and their values,
    /// in every spelling clap takes.
    #[test]
    fn the_subcommand_is_found_after_global_options() {
        let cli = || <crate::Cli as clap::CommandFactory>::command();
        let mut built = cli();
        built.build();
        for (line, at) in [
            ("epd match -engine cmd=a", Some(1)),
            ("epd --color never match -engine cmd=a", Some(3)),
            ("epd --color=never match -engine cmd=a", Some(2)),
            ("epd --color never --color always match", Some(5)),
            ("epd check match", Some(1)),
            ("epd --color match", None),
            ("epd --help", None),
            ("epd -- match", Some(2)),
        ] {
            assert_eq!(subcommand_at(&built, &words(line)), at, "{line}");
        }
        for (line, want) in [
            (
                "epd --color never match -engine cmd=a name=x -rounds 2",
                "epd --color never match --engine cmd=a\nname=x --rounds 2",
            ),
            ("epd --color=never match -each depth=1", "epd --color=never match --each depth=1"),
            // Not `epd match`: left alone.
            ("epd check match -engine", "epd check match -engine"),
            ("epd --color match -engine", "epd --color match -engine"),
        ] {
            let out = normalize(words(line), cli).unwrap();
            let out: Vec<String> = out.iter().map(|w| w.to_string_lossy().into_owned()).collect();
            assert_eq!(out.join(" "), want, "{line}");
        }
    }
}
