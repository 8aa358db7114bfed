//! `epd match`: a whole match from one command line, in the option names
//! and `key=value` forms of fastchess and cutechess-cli, turned into the
//! event file it runs (the same director, journal, `--resume`, web and
//! standby as any event).
//!
//! [`event_text`] writes the event file (TOML, through the `toml` crate);
//! [`crate::Event::parse`] then checks it as it checks any event file, so
//! the command line and the file cannot mean different things.

use core::fmt;

use toml::{Table, Value};

/// The options of a match, as given (each `key=value` list as its words).
#[derive(Clone, Debug, Default)]
pub struct MatchSpec {
    /// `-engine KEY=VALUE...`, one list per engine.
    pub engines: Vec<Vec<String>>,
    /// `-each KEY=VALUE...`: for every engine.
    pub each: Vec<String>,
    /// `-rounds N`.
    pub rounds: Option<u32>,
    /// `-games N` (`-repeat` is `-games 2`).
    pub games: Option<u32>,
    /// `-concurrency N`.
    pub concurrency: Option<u32>,
    /// `-openings KEY=VALUE...`.
    pub openings: Vec<String>,
    /// `-srand N`.
    pub srand: Option<u64>,
    /// `-pgnout KEY=VALUE...` (or a bare file name).
    pub pgnout: Vec<String>,
    /// `-log KEY=VALUE...`.
    pub log: Vec<String>,
    /// `-event NAME`.
    pub event: Option<String>,
    /// `-site NAME`.
    pub site: Option<String>,
    /// `-tournament roundrobin|gauntlet`.
    pub tournament: Option<String>,
    /// `-wait MS`: a pause between games.
    pub wait_ms: Option<u64>,
    /// Where the referee accepts clients and the live display.
    pub listen: Option<String>,
    /// The live display's address.
    pub web: Option<String>,
    /// The journal's file.
    pub journal: Option<String>,
    /// The report's file.
    pub report: Option<String>,
    /// `journal_sync`.
    pub journal_sync: Option<String>,
    /// `-sprt elo0=E0 elo1=E1 [alpha=A] [beta=B] [model=normalized|logistic]`.
    pub sprt: Vec<String>,
    /// `-ratinginterval N` (default 10).
    pub rating_interval: Option<u32>,
    /// `-draw movenumber=N movecount=N score=CP`.
    pub draw: Vec<String>,
    /// `-resign movecount=N score=CP [twosided=true|false]`.
    pub resign: Vec<String>,
    /// `-maxmoves N`.
    pub maxmoves: Option<u32>,
    /// `-variant standard|fischerandom`.
    pub variant: Option<String>,
    /// `-noswap`: both games of a pair with the same colours.
    pub noswap: bool,
    /// `-reverse`: each pair begins with the second engine as White.
    pub reverse: bool,
    /// `-epdout file=NAME`: each game's final position.
    pub epdout: Vec<String>,
    /// `-recover`: play on after a game lost to a crashed or stalled
    /// engine (without it the match stops there, as fastchess's does).
    pub recover: bool,
    /// `-report penta=true|false`.
    pub report_options: Vec<String>,
    /// `-scoreinterval N`.
    pub score_interval: Option<u32>,
    /// `-use-affinity [CPUS]`: `Some(None)` for every CPU, `Some(Some(list))`
    /// for fastchess's list (`0,2,4-7`).
    pub affinity: Option<Option<String>>,
    /// `-show-latency`.
    pub show_latency: bool,
}

/// A mistake in the command line: the option, and what it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchError {
    /// The option (`-engine`, `-openings`, ...).
    pub option: String,
    /// What is wrong and the valid forms.
    pub message: String,
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.option, self.message)
    }
}

impl std::error::Error for MatchError {}

fn err(option: &str, message: impl Into<String>) -> MatchError {
    MatchError { option: option.to_owned(), message: message.into() }
}

/// The `key=value` pairs of an option's words, in order.
fn pairs<'a>(option: &str, words: &'a [String], forms: &str) -> Result<Vec<(&'a str, &'a str)>, MatchError> {
    words
        .iter()
        .map(|w| w.split_once('=').ok_or_else(|| err(option, format!("{w:?} is not KEY=VALUE; it takes {forms}"))))
        .collect()
}

const ENGINE_FORMS: &str = "cmd=COMMAND name=NAME args=\"ARGS\" dir=DIR tc=[MOVES/]TIME[+INC] st=SECONDS nodes=N \
                            depth=N (or plies=N) proto=uci restart=off option.NAME=VALUE";

/// Converts a cutechess/fastchess time control (`40/60+0.6`, `10+0.1`,
/// `1:30+1`, `0:05`) to the PGN form the event file takes
/// (`40/60+0.6`).
///
/// # Errors
/// Not of that form.
pub fn pgn_time_control(tc: &str) -> Result<String, String> {
    let (moves, rest) = match tc.split_once('/') {
        Some((m, r)) => (Some(m), r),
        None => (None, tc),
    };
    let (time, inc) = match rest.split_once('+') {
        Some((t, i)) => (t, Some(i)),
        None => (rest, None),
    };
    let seconds = |s: &str| -> Option<f64> {
        let v = match s.split_once(':') {
            Some((m, sec)) => m.parse::<f64>().ok()? * 60.0 + sec.parse::<f64>().ok()?,
            None => s.parse::<f64>().ok()?,
        };
        (v.is_finite() && v >= 0.0).then_some(v)
    };
    let bad = || format!("{tc:?} is not a time control: [MOVES/]TIME[+INCREMENT], TIME in seconds or M:SS");
    let base = seconds(time).filter(|&t| t > 0.0).ok_or_else(bad)?;
    let mut out = String::new();
    if let Some(m) = moves {
        let m: u32 = m.parse().ok().filter(|&m| m > 0).ok_or_else(bad)?;
        out.push_str(&format!("{m}/"));
    }
    out.push_str(&trim(base));
    if let Some(i) = inc {
        let i = seconds(i).ok_or_else(bad)?;
        if i > 0.0 {
            out.push_str(&format!("+{}", trim(i)));
        }
    }
    Ok(out)
}

/// A number of seconds without trailing zeros (`60`, `0.6`).
fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// One engine: its `[[players]]` table, and its time control if it gave
/// one.
fn engine(words: &[String], each: &[String], k: usize) -> Result<(Table, Option<String>), MatchError> {
    let label = format!("-engine (engine {})", k + 1);
    let mut t = Table::new();
    let mut options = Table::new();
    let mut cmd: Option<String> = None;
    let mut args: Vec<String> = Vec::new();
    let mut tc = None;
    // -each first, so an engine's own settings win.
    let mut given = Vec::new();
    for (option, list) in [("-each", each), (label.as_str(), words)] {
        for (key, value) in pairs(option, list, ENGINE_FORMS)? {
            given.push((option, key, value));
        }
    }
    for (option, key, value) in given {
        match key {
            "cmd" => cmd = Some(value.to_owned()),
            "name" => {
                t.insert("name".into(), Value::String(value.to_owned()));
            }
            "args" => args = value.split_whitespace().map(str::to_owned).collect(),
            "dir" => {
                t.insert("dir".into(), Value::String(value.to_owned()));
            }
            "tc" => tc = Some(pgn_time_control(value).map_err(|e| err(option, format!("tc: {e}")))?),
            "st" => {
                let v: f64 = value
                    .parse()
                    .ok()
                    .filter(|v: &f64| *v > 0.0 && *v <= 86_400.0)
                    .ok_or_else(|| err(option, format!("st={value}: seconds per move, above 0")))?;
                t.insert("movetime".into(), Value::Float(v));
            }
            "nodes" | "depth" | "plies" => {
                let v: i64 = value
                    .parse()
                    .ok()
                    .filter(|v: &i64| *v > 0)
                    .ok_or_else(|| err(option, format!("{key}={value}: a whole number above 0")))?;
                t.insert(if key == "nodes" { "nodes" } else { "depth" }.into(), Value::Integer(v));
            }
            "proto" if value == "uci" => {}
            "proto" => return Err(err(option, format!("proto={value}: only uci engines are driven"))),
            "restart" if value == "off" => {}
            "restart" => {
                return Err(err(
                    option,
                    format!("restart={value}: not supported; an engine is kept for the whole match (restart=off)"),
                ))
            }
            "timemargin" => {
                return Err(err(
                    option,
                    "timemargin: not supported; the event's lag_ms is an allowance per move (see --write-event)",
                ))
            }
            _ => match key.strip_prefix("option.") {
                Some(name) if !name.is_empty() => {
                    let v = match value.parse::<i64>() {
                        Ok(n) => Value::Integer(n),
                        Err(_) if value == "true" || value == "false" => Value::Boolean(value == "true"),
                        Err(_) => Value::String(value.to_owned()),
                    };
                    options.insert(name.to_owned(), v);
                }
                _ => return Err(err(option, format!("unknown key {key:?}; it takes {ENGINE_FORMS}"))),
            },
        }
    }
    let Some(cmd) = cmd else {
        return Err(err(&label, format!("no cmd=COMMAND; it takes {ENGINE_FORMS}")));
    };
    if !t.contains_key("name") {
        let base = std::path::Path::new(&cmd).file_name().map_or(cmd.clone(), |n| n.to_string_lossy().into_owned());
        t.insert("name".into(), Value::String(base));
    }
    let mut uci = vec![Value::String(cmd)];
    uci.extend(args.into_iter().map(Value::String));
    t.insert("uci".into(), Value::Array(uci));
    if !options.is_empty() {
        t.insert("options".into(), Value::Table(options));
    }
    Ok((t, tc))
}

/// The event file of a match (TOML).
///
/// # Errors
/// A mistake in the options: the option, and its valid forms.
pub fn event_text(spec: &MatchSpec, seed: u64) -> Result<String, MatchError> {
    if spec.engines.len() < 2 {
        return Err(err(
            "-engine",
            format!("a match needs two engines at least, each `-engine {ENGINE_FORMS}`; {} given", spec.engines.len()),
        ));
    }
    let mut players = Vec::new();
    let mut tcs = Vec::new();
    for (k, words) in spec.engines.iter().enumerate() {
        let (t, tc) = engine(words, &spec.each, k)?;
        tcs.push(tc);
        players.push(t);
    }
    let mut names: Vec<&str> = players.iter().filter_map(|p| p.get("name").and_then(Value::as_str)).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(err("-engine", format!("two engines are named {:?}: give each name=NAME", w[0])));
    }
    let limited = |p: &Table| ["movetime", "nodes", "depth"].iter().any(|k| p.contains_key(*k));
    // One control for all (the event's), or time odds: the first
    // engine's is the event's, each other engine that differs has its own.
    let tc = match tcs.iter().flatten().next() {
        Some(first) => {
            if tcs.iter().any(Option::is_none) {
                return Err(err("-engine", "give every engine a tc= (or one tc= to -each)"));
            }
            for (p, t) in players.iter_mut().zip(&tcs) {
                if t.as_ref() != Some(first) {
                    p.insert("time_control".into(), Value::String(t.clone().unwrap_or_default()));
                }
            }
            first.clone()
        }
        // No clock, as fastchess runs such a match: each engine's own
        // limit bounds its searches (`go depth 8`, `go nodes 20000`).
        None if players.iter().all(limited) => "-".to_owned(),
        None => {
            return Err(err("-each", "no time control: give tc=[MOVES/]TIME[+INC] (or st=, nodes=, depth= per engine)"))
        }
    };
    let mut e = Table::new();
    e.insert("event".into(), Value::String(spec.event.clone().unwrap_or_else(|| "epd match".into())));
    if let Some(site) = &spec.site {
        e.insert("site".into(), Value::String(site.clone()));
    }
    e.insert("listen".into(), Value::String(spec.listen.clone().unwrap_or_else(|| "127.0.0.1:0".into())));
    e.insert("time_control".into(), Value::String(tc));
    match spec.games {
        None | Some(2) => {}
        Some(g) => {
            return Err(err(
                "-games",
                format!("{g}: each opening is played by a pair of games with colours swapped (-games 2, -repeat)"),
            ))
        }
    }
    e.insert("rounds".into(), Value::Integer(i64::from(spec.rounds.unwrap_or(1).max(1))));
    let pairing = match spec.tournament.as_deref() {
        None | Some("roundrobin" | "round-robin") => "round-robin",
        Some("gauntlet") => "gauntlet",
        Some(other) => return Err(err("-tournament", format!("{other:?}: roundrobin or gauntlet"))),
    };
    e.insert("pairing".into(), Value::String(pairing.into()));
    let concurrency = spec.concurrency.unwrap_or(1);
    if concurrency == 0 || concurrency > 256 {
        return Err(err("-concurrency", format!("{concurrency}: 1 to 256 games at once")));
    }
    e.insert("concurrency".into(), Value::Integer(i64::from(concurrency)));
    openings(spec, seed, &mut e)?;
    for (option, words, key) in
        [("-pgnout", &spec.pgnout, "pgn"), ("-log", &spec.log, "log"), ("-epdout", &spec.epdout, "epdout")]
    {
        if let Some(file) = file_of(option, words)? {
            e.insert(key.into(), Value::String(file));
        }
    }
    for (key, value) in [("journal", &spec.journal), ("report", &spec.report), ("web", &spec.web)] {
        if let Some(v) = value {
            e.insert(key.into(), Value::String(v.clone()));
        }
    }
    if let Some(s) = &spec.journal_sync {
        e.insert("journal_sync".into(), Value::String(s.clone()));
    }
    if !spec.draw.is_empty() {
        let forms = "movenumber=N movecount=N score=CP";
        let t = rule("-draw", &spec.draw, forms, &["movenumber", "movecount", "score"], &["movecount", "score"])?;
        e.insert("draw_adjudication".into(), Value::Table(t));
    }
    if !spec.resign.is_empty() {
        let forms = "movecount=N score=CP [twosided=true|false]";
        let t = rule("-resign", &spec.resign, forms, &["movecount", "score", "twosided"], &["movecount", "score"])?;
        e.insert("resign_adjudication".into(), Value::Table(t));
    }
    if let Some(m) = spec.maxmoves {
        e.insert("max_moves".into(), Value::Integer(i64::from(m)));
    }
    match spec.variant.as_deref() {
        None | Some("standard") => {}
        Some("fischerandom" | "chess960" | "frc" | "dfrc") => {
            e.insert("variant".into(), Value::String("fischerandom".into()));
        }
        Some(other) => {
            return Err(err("-variant", format!("{other:?}: standard or fischerandom (Chess960 and DFRC)")));
        }
    }
    for (key, on) in [("noswap", spec.noswap), ("reverse", spec.reverse)] {
        if on {
            e.insert(key.into(), Value::Boolean(true));
        }
    }
    if !spec.recover {
        e.insert("recover".into(), Value::Boolean(false));
    }
    // fastchess prints every game started and finished.
    e.insert("progress".into(), Value::Boolean(true));
    if !spec.sprt.is_empty() {
        e.insert("sprt".into(), Value::Table(sprt(&spec.sprt)?));
    }
    e.insert("rating_interval".into(), Value::Integer(i64::from(spec.rating_interval.unwrap_or(10))));
    if let Some(n) = spec.score_interval {
        e.insert("score_interval".into(), Value::Integer(i64::from(n)));
    }
    for (k, v) in pairs("-report", &spec.report_options, "penta=true|false")? {
        match (k, v) {
            ("penta", "true" | "false") => {
                e.insert("report_penta".into(), Value::Boolean(v == "true"));
            }
            _ => return Err(err("-report", format!("{k}={v}: it takes penta=true|false"))),
        }
    }
    match &spec.affinity {
        None => {}
        Some(None) => {
            e.insert("affinity".into(), Value::Boolean(true));
        }
        Some(Some(list)) => {
            let cpus = cpu_list(list).map_err(|m| err("-use-affinity", m))?;
            e.insert("affinity".into(), Value::Array(cpus.into_iter().map(|c| Value::Integer(c as i64)).collect()));
        }
    }
    if spec.show_latency {
        e.insert("show_latency".into(), Value::Boolean(true));
    }
    if spec.log.iter().any(|w| w == "engine=true") {
        e.insert("engine_log".into(), Value::Boolean(true));
    }
    let wait = spec.wait_ms.unwrap_or(0) as f64 / 1000.0;
    e.insert("conclude_delay".into(), Value::Float(wait));
    e.insert("reset_delay".into(), Value::Float(0.0));
    e.insert("linger".into(), Value::Float(0.0));
    e.insert("players".into(), Value::Array(players.into_iter().map(Value::Table).collect()));
    toml::to_string(&e).map_err(|x| err("epd match", x.to_string()))
}

/// The CPUs this process may run on (Linux: its Cpus_allowed_list), in
/// order: with affinity, game slot `k` (an engine `epd match` or the
/// referee starts, an `epd play --instances` slot) runs on the `k`-th.
///
/// # Errors
/// No /proc/self/status (not Linux), or a list that does not read.
pub fn allowed_cpus() -> Result<Vec<usize>, String> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("affinity: cannot read /proc/self/status (Linux only): {e}"))?;
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .ok_or("affinity: no Cpus_allowed_list in /proc/self/status")?;
    cpu_list(list.trim()).map_err(|e| format!("affinity: {e}"))
}

/// fastchess's CPU list, `3,5,7-11,13`: the CPUs in order, each once.
///
/// # Errors
/// Not of that form.
pub fn cpu_list(list: &str) -> Result<Vec<usize>, String> {
    let bad = || format!("{list:?} is not a list of CPUs such as 0,2,4-7");
    let mut out: Vec<usize> = Vec::new();
    for part in list.split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b): (usize, usize) = (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
        if a > b || b >= 1024 {
            return Err(bad());
        }
        for c in a..=b {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    Ok(out)
}

/// `-pgnout file=NAME` (or a bare name): the file; other keys refused
/// unless they ask for what the PGN has anyway.
fn file_of(option: &str, words: &[String]) -> Result<Option<String>, MatchError> {
    // Each option's own keys, as fastchess spells them; the file is
    // appended to, as fastchess does by default.
    let forms = match option {
        "-pgnout" => "file=NAME [append=true] [notation=san]",
        "-log" => "file=NAME [level=trace|info|warn|err|fatal] [append=true] [engine=true|false]",
        _ => "file=NAME [append=true]",
    };
    let mut file = None;
    for w in words {
        let known = match w.split_once('=') {
            None => {
                file = Some(w.clone());
                true
            }
            Some(("file", f)) => {
                file = Some(f.to_owned());
                true
            }
            Some(("append", "true")) => true,
            Some(("notation", "san")) => option == "-pgnout",
            Some(("level", "trace" | "info" | "warn" | "err" | "fatal") | ("engine", "true" | "false")) => {
                option == "-log"
            }
            Some(_) => false,
        };
        if !known {
            return Err(err(option, format!("{w} is not supported; it takes {forms}")));
        }
    }
    Ok(file)
}

/// An adjudication rule's `key=value` words as a table of numbers (and
/// `twosided`).
fn rule(option: &str, words: &[String], forms: &str, keys: &[&str], needed: &[&str]) -> Result<Table, MatchError> {
    let mut t = Table::new();
    for (k, v) in pairs(option, words, forms)? {
        if !keys.contains(&k) {
            return Err(err(option, format!("{k}={v}: it takes {forms}")));
        }
        let value = if k == "twosided" {
            match v {
                "true" | "false" => Value::Boolean(v == "true"),
                _ => return Err(err(option, format!("twosided={v}: true or false"))),
            }
        } else {
            Value::Integer(
                v.parse::<i64>()
                    .ok()
                    .filter(|n| *n >= 0 && *n <= i64::from(i32::MAX))
                    .ok_or_else(|| err(option, format!("{k}={v}: a whole number, 0 or more")))?,
            )
        };
        t.insert(k.into(), value);
    }
    if let Some(k) = needed.iter().find(|k| !t.contains_key(**k)) {
        return Err(err(option, format!("{k}= is needed; it takes {forms}")));
    }
    Ok(t)
}

fn sprt(words: &[String]) -> Result<Table, MatchError> {
    let forms = "elo0=ELO elo1=ELO [alpha=0.05] [beta=0.05] [model=normalized|logistic]";
    let mut t = Table::new();
    for (k, v) in pairs("-sprt", words, forms)? {
        match k {
            "elo0" | "elo1" | "alpha" | "beta" => {
                let x: f64 = v
                    .parse()
                    .ok()
                    .filter(|x: &f64| x.is_finite())
                    .ok_or_else(|| err("-sprt", format!("{k}={v}: a number; it takes {forms}")))?;
                t.insert(k.into(), Value::Float(x));
            }
            "model" if v == "normalized" || v == "logistic" => {
                t.insert("model".into(), Value::String(v.into()));
            }
            "model" => {
                return Err(err("-sprt", format!("model={v}: normalized or logistic (bayesian is not supported)")))
            }
            _ => return Err(err("-sprt", format!("{k}={v}: it takes {forms}"))),
        }
    }
    if !(t.contains_key("elo0") && t.contains_key("elo1")) {
        return Err(err("-sprt", format!("elo0 and elo1 are needed; it takes {forms}")));
    }
    Ok(t)
}

fn openings(spec: &MatchSpec, seed: u64, e: &mut Table) -> Result<(), MatchError> {
    if spec.openings.is_empty() {
        return Ok(());
    }
    let forms = "file=NAME format=epd|pgn [order=sequential|random] [plies=N] [start=N]";
    let mut file = None;
    for (k, v) in pairs("-openings", &spec.openings, forms)? {
        let number = |what: &str| -> Result<i64, MatchError> {
            v.parse::<i64>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| err("-openings", format!("{what}={v}: a whole number, 1 or more")))
        };
        match k {
            "file" => file = Some(v.to_owned()),
            "format" if v == "epd" || v == "pgn" => {
                e.insert("openings_format".into(), Value::String(v.into()));
            }
            "order" if v == "sequential" || v == "random" => {
                e.insert("openings_order".into(), Value::String(v.into()));
            }
            "plies" => {
                e.insert("openings_plies".into(), Value::Integer(number("plies")?));
            }
            "start" => {
                e.insert("openings_start".into(), Value::Integer(number("start")?));
            }
            _ => return Err(err("-openings", format!("{k}={v}: it takes {forms}"))),
        }
    }
    let Some(file) = file else { return Err(err("-openings", format!("no file=NAME; it takes {forms}"))) };
    e.insert("openings".into(), Value::String(file));
    // The seed is written even when chosen here, so the event file (and a
    // resumed match) plays the same openings.
    let seed = spec.srand.unwrap_or(seed);
    e.insert("openings_seed".into(), Value::Integer(i64::try_from(seed & (i64::MAX as u64)).unwrap_or(1)));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Event;
    use std::path::Path;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn time_controls_in_cutechess_form_become_pgn() {
        for (cute, pgn) in
            [("10+0.1", "10+0.1"), ("40/60+0.6", "40/60+0.6"), ("1:30+1", "90+1"), ("0:05", "5"), ("60+0", "60")]
        {
            assert_eq!(pgn_time_control(cute).unwrap(), pgn, "{cute}");
        }
        for bad in ["", "+1", "0", "x/10", "10+y", "-5"] {
            assert!(pgn_time_control(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_match_is_an_event_file() {
        let spec = MatchSpec {
            engines: vec![
                words("cmd=/usr/games/stockfish name=sf option.Hash=16 option.Skill Level=3"),
                words("cmd=./dev name=dev nodes=5000"),
            ],
            each: words("tc=10+0.1"),
            rounds: Some(500),
            games: Some(2),
            concurrency: Some(2),
            openings: words("file=book.epd format=epd order=random plies=8"),
            pgnout: words("games.pgn"),
            ..MatchSpec::default()
        };
        // "Skill Level=3" was split on the space by words(): a key without '='.
        let e = event_text(&spec, 5).unwrap_err();
        assert!(e.to_string().starts_with("-engine (engine 1): \"option.Skill\" is not KEY=VALUE"), "{e}");
        let mut spec = spec;
        spec.engines[0] = vec!["cmd=/usr/games/stockfish".into(), "name=sf".into(), "option.Skill Level=3".into()];
        spec.openings = words("file=book.pgn format=pgn order=random plies=8");
        let text = event_text(&spec, 5).unwrap();
        let ev = Event::parse(&text, Path::new("/m")).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!((ev.rounds, ev.concurrency), (500, 2));
        assert_eq!(ev.time_control.to_string(), "10+0.1");
        assert_eq!(ev.players[0].uci_options(), [("Skill Level".to_owned(), "3".to_owned())]);
        assert_eq!(ev.players[1].nodes, Some(5000));
        assert_eq!(ev.players[1].instances(), 2, "a local engine per game at once");
        let book = ev.openings.unwrap();
        assert_eq!((book.plies, book.seed, book.order), (Some(8), 5, crate::BookOrder::Random));
        assert_eq!(ev.pgn, Path::new("/m/games.pgn"));
        assert!(!ev.variant.is_chess960() && !ev.noswap && !ev.reverse && ev.epdout.is_none());
        assert!(!ev.recover, "without -recover a crash stops the match, as fastchess's");
        assert!(ev.progress, "games started and finished are printed, as fastchess prints them");
        let more = MatchSpec {
            variant: Some("fischerandom".into()),
            noswap: true,
            reverse: true,
            recover: true,
            epdout: words("file=final.epd"),
            ..spec.clone()
        };
        let ev = Event::parse(&event_text(&more, 5).unwrap(), Path::new("/m")).unwrap();
        assert!(ev.variant.is_chess960() && ev.noswap && ev.reverse && ev.recover);
        assert_eq!(ev.epdout.as_deref(), Some(Path::new("/m/final.epd")));
        assert!(ev.report_penta && ev.score_interval == 0 && ev.affinity == crate::Affinity::Off);
        assert!(!ev.engine_log && !ev.show_latency);
        // fastchess's -report, -scoreinterval, -use-affinity, -show-latency
        // and -log engine=true.
        let fc = MatchSpec {
            report_options: words("penta=false"),
            score_interval: Some(3),
            affinity: Some(Some("1,4-5".into())),
            show_latency: true,
            log: words("file=x.log engine=true level=info"),
            ..spec.clone()
        };
        let ev = Event::parse(&event_text(&fc, 5).unwrap(), Path::new("/m")).unwrap();
        assert!(!ev.report_penta && ev.score_interval == 3 && ev.show_latency && ev.engine_log);
        assert_eq!((ev.affinity, ev.log), (crate::Affinity::Cpus(vec![1, 4, 5]), Path::new("/m/x.log").into()));
        let all = MatchSpec { affinity: Some(None), ..spec.clone() };
        let ev = Event::parse(&event_text(&all, 5).unwrap(), Path::new("/m")).unwrap();
        assert_eq!(ev.affinity, crate::Affinity::All);
        // One CPU per game at once, as fastchess ("No cores available").
        let few = MatchSpec { affinity: Some(Some("3".into())), ..spec.clone() };
        let e = Event::parse(&event_text(&few, 5).unwrap(), Path::new("/m")).unwrap_err();
        assert!(e.message.contains("affinity lists 1 CPUs for 2 games at once"), "{e}");
        // Time odds: each engine its own control.
        let odds =
            MatchSpec { engines: vec![words("cmd=a tc=40/60+0.5"), words("cmd=b tc=0:30")], ..MatchSpec::default() };
        let ev = Event::parse(&event_text(&odds, 1).unwrap(), Path::new(".")).unwrap();
        assert_eq!((ev.control(0).to_string(), ev.control(1).to_string()), ("40/60+0.5".into(), "30".into()));
    }

    #[test]
    fn cpu_lists_read_as_fastchess_writes_them() {
        assert_eq!(cpu_list("3,5,7-11,13"), Ok(vec![3, 5, 7, 8, 9, 10, 11, 13]));
        assert_eq!(cpu_list("0"), Ok(vec![0]));
        assert_eq!(cpu_list("1,1,0-1"), Ok(vec![1, 0]));
        for bad in ["", "a", "3-1", "1,,2", "-1", "0-5000"] {
            assert!(cpu_list(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn mistakes_name_the_option_and_its_forms() {
        let two = vec![words("cmd=a"), words("cmd=b")];
        for (spec, wanted) in [
            (MatchSpec { engines: vec![words("cmd=a")], ..MatchSpec::default() }, "-engine: a match needs two"),
            (MatchSpec { engines: two.clone(), ..MatchSpec::default() }, "-each: no time control"),
            (
                MatchSpec {
                    engines: vec![words("cmd=a"), words("cmd=a")],
                    each: words("tc=1"),
                    ..MatchSpec::default()
                },
                "two engines are named \"a\"",
            ),
            (
                MatchSpec {
                    engines: vec![words("name=x"), words("cmd=b")],
                    each: words("tc=1"),
                    ..MatchSpec::default()
                },
                "-engine (engine 1): no cmd=COMMAND",
            ),
            (
                MatchSpec { engines: two.clone(), each: words("tc=1 hash=16"), ..MatchSpec::default() },
                "unknown key \"hash\"",
            ),
            (
                MatchSpec { engines: two.clone(), each: words("tc=abc"), ..MatchSpec::default() },
                "tc: \"abc\" is not a time control",
            ),
            (
                MatchSpec { engines: two.clone(), each: words("tc=1"), games: Some(3), ..MatchSpec::default() },
                "-games: 3",
            ),
            (
                MatchSpec {
                    engines: two.clone(),
                    each: words("tc=1"),
                    openings: words("format=epd"),
                    ..MatchSpec::default()
                },
                "-openings: no file=NAME",
            ),
            (
                MatchSpec {
                    engines: two.clone(),
                    each: words("tc=1"),
                    tournament: Some("swiss".into()),
                    ..MatchSpec::default()
                },
                "-tournament: \"swiss\"",
            ),
            (
                MatchSpec { engines: vec![words("cmd=a tc=1"), words("cmd=b")], ..MatchSpec::default() },
                "give every engine a tc=",
            ),
            (
                MatchSpec {
                    engines: two.clone(),
                    each: words("tc=1"),
                    variant: Some("atomic".into()),
                    ..MatchSpec::default()
                },
                "-variant: \"atomic\": standard or fischerandom",
            ),
            (
                MatchSpec {
                    engines: two.clone(),
                    each: words("tc=1"),
                    epdout: words("file=x.epd format=fen"),
                    ..MatchSpec::default()
                },
                "-epdout: format=fen is not supported",
            ),
            (
                MatchSpec {
                    engines: two.clone(),
                    each: words("tc=1"),
                    report_options: words("penta=maybe"),
                    ..MatchSpec::default()
                },
                "-report: penta=maybe: it takes penta=true|false",
            ),
            (
                MatchSpec {
                    engines: two.clone(),
                    each: words("tc=1"),
                    affinity: Some(Some("0-x".into())),
                    ..MatchSpec::default()
                },
                "-use-affinity: \"0-x\" is not a list of CPUs",
            ),
        ] {
            let e = event_text(&spec, 1).unwrap_err().to_string();
            assert!(e.contains(wanted), "{wanted}: {e}");
        }
    }
}
