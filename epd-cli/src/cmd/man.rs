//! `epd man [SUBCOMMAND] [--dir DIR]`: manual pages, one for `epd` and
//! one per subcommand (`epd-check(1)` ...), generated from the same clap
//! definitions as `--help`, with what `--help` leaves out: exit status,
//! the diagnostic codes and what each means, examples and the
//! environment.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::CommandFactory;
use epd_core::Code;
use roff::{bold, italic, roman, Roff};

use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd man check | man -l -                # read one page now
  epd man --dir ~/.local/share/man/man1    # install every page (then: man epd-check)
  epd man > epd.1";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The subcommand whose page to print (`check`, `from-pgn` ...); none:
    /// the page of `epd` itself.
    #[arg(value_name = "SUBCOMMAND")]
    page: Option<String>,
    /// Write every page into DIR (epd.1 and epd-SUBCOMMAND.1) instead of
    /// printing one.
    #[arg(long, value_name = "DIR", conflicts_with = "page")]
    dir: Option<PathBuf>,
}

/// Subcommands whose page has no DIAGNOSTICS section: they read no
/// records, or only positions given as arguments.
const NO_RECORDS: [&str; 5] = ["completions", "man", "uci", "explain", "help"];

pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    let mut top = crate::Cli::command();
    top.build();
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let mut names = vec![None];
        names.extend(top.get_subcommands().filter(|s| s.get_name() != "help").map(|s| Some(s.get_name().to_owned())));
        for name in names {
            let file = dir.join(format!("{}.1", page_name(name.as_deref())));
            let mut text = Vec::new();
            render(&top, name.as_deref(), &mut text)?;
            std::fs::write(&file, text).with_context(|| format!("cannot write {}", file.display()))?;
        }
        return Ok(Outcome::Ok);
    }
    render(&top, args.page.as_deref(), out)?;
    Ok(Outcome::Ok)
}

/// `epd` or `epd-check`.
fn page_name(sub: Option<&str>) -> String {
    sub.map_or_else(|| "epd".to_owned(), |s| format!("epd-{s}"))
}

/// Renders the page of `sub` (or of `epd`).
fn render(top: &clap::Command, sub: Option<&str>, out: &mut dyn Write) -> anyhow::Result<()> {
    let cmd = match sub {
        None => top.clone(),
        Some(name) => match top.find_subcommand(name) {
            Some(c) if name != "help" => c.clone(),
            _ => bail!("no such subcommand: {name} (epd --help lists them)"),
        },
    };
    let name = page_name(sub);
    let version = top.get_version().unwrap_or_default().to_owned();
    let examples = cmd.get_after_help().map(|h| h.to_string());
    // The referee's help ends with the event file's keys: a section of
    // their own.
    let (examples, keys) = match examples {
        Some(t) if t.contains("Event file keys") => {
            let (e, k) = t.split_at(t.find("Event file keys").unwrap_or(t.len()));
            (Some(e.trim_end().to_owned()), Some(k.to_owned()))
        }
        other => (other, None),
    };
    // The after-help text holds the examples: a section of their own.
    let cmd = cmd.name(&name).after_help("").after_long_help("");
    let man = clap_mangen::Man::new(cmd.clone())
        .title(name.to_uppercase())
        .section("1")
        .source(format!("EPD Kit {version}"))
        .manual("EPD Kit");
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(out)?;
    }
    if sub.is_none() {
        subcommands(top).to_writer(out)?;
    }
    exit_status(sub).to_writer(out)?;
    if !sub.is_some_and(|s| NO_RECORDS.contains(&s)) {
        diagnostics(sub.is_none()).to_writer(out)?;
    }
    if let Some(text) = keys {
        let mut r = Roff::new();
        r.control("SH", ["EVENT FILE"]);
        for line in text.lines().skip(1) {
            match line.strip_prefix("  ") {
                Some(row) => {
                    let (name, rest) = row.split_once(' ').unwrap_or((row, ""));
                    r.control("TP", []);
                    r.text([bold(name)]);
                    r.text([roman(rest.trim_start().to_owned())]);
                }
                None => {
                    r.control("PP", []);
                    r.text([roman(line.to_owned())]);
                }
            }
        }
        r.to_writer(out)?;
    }
    if let Some(text) = examples.filter(|t| !t.trim().is_empty()) {
        examples_section(&text).to_writer(out)?;
    }
    environment().to_writer(out)?;
    see_also(top, sub).to_writer(out)?;
    Ok(())
}

fn subcommands(top: &clap::Command) -> Roff {
    let mut r = Roff::new();
    r.control("SH", ["COMMANDS"]);
    let mut subs: Vec<&clap::Command> = top.get_subcommands().filter(|s| s.get_name() != "help").collect();
    subs.sort_by_key(|s| s.get_display_order());
    for s in subs {
        r.control("TP", []);
        r.text([bold(format!("epd {}", s.get_name())), roman(format!(" (epd-{}(1))", s.get_name()))]);
        r.text([roman(s.get_about().map(|a| a.to_string()).unwrap_or_default())]);
    }
    r
}

fn exit_status(sub: Option<&str>) -> Roff {
    let mut r = Roff::new();
    r.control("SH", ["EXIT STATUS"]);
    let reads = !sub.is_some_and(|s| NO_RECORDS.contains(&s));
    let mut rows: Vec<(&str, &str)> = vec![("0", "Success.")];
    if reads {
        rows.push(("1", "Some input was invalid: diagnostics were printed (invalid records are copied through unchanged by the verbs that write records, unless --drop-invalid)."));
    }
    if sub == Some("explain") {
        rows.push(("1", "Never."));
    }
    rows.push(("2", "A usage error (an unknown flag, a bad value), an input that cannot be opened, an output that cannot be written, or an engine that cannot be started."));
    if reads {
        rows.push(("130, 143", "Stopped by SIGINT or SIGTERM: every record finished before the signal was written, and the summary printed."));
    }
    for (code, text) in rows {
        r.control("TP", []);
        r.text([bold(code)]);
        r.text([roman(text)]);
    }
    r
}

fn diagnostics(full: bool) -> Roff {
    let mut r = Roff::new();
    r.control("SH", ["DIAGNOSTICS"]);
    r.text([
        roman("Each problem is printed on standard error as "),
        italic("file:line:column: severity[CODE]: message"),
        roman(", then the line with a caret under the column. Bytes a terminal could act on are shown escaped. On a terminal at most 200 are shown (see "),
        bold("--max-errors"),
        roman("); "),
        bold("--format json"),
        roman(" prints one JSON object per diagnostic instead. Codes are stable: never renumbered or reused. "),
        bold("epd explain CODE"),
        roman(" explains one, with a bad and a good record."),
    ]);
    for &code in Code::ALL {
        r.control("TP", []);
        r.text([bold(code.as_str())]);
        let e = code.explanation();
        r.text([roman(format!("{}. ({})", capitalise(code.summary()), e.section))]);
        if full {
            r.control("br", []);
            r.text([roman(e.text.to_owned())]);
        }
    }
    r
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

fn examples_section(text: &str) -> Roff {
    let mut r = Roff::new();
    r.control("SH", ["EXAMPLES"]);
    r.control("nf", []);
    for line in text.lines().filter(|l| !l.starts_with("Examples:")) {
        r.text([roman(line.trim_start().to_owned())]);
        r.control("br", []);
    }
    r.control("fi", []);
    r
}

fn environment() -> Roff {
    let mut r = Roff::new();
    r.control("SH", ["ENVIRONMENT"]);
    r.control("TP", []);
    r.text([bold("NO_COLOR")]);
    r.text([roman("When set and not empty, diagnostics are not coloured (unless --color always).")]);
    r.control("TP", []);
    r.text([bold("TERM")]);
    r.text([roman("When dumb, diagnostics are not coloured.")]);
    r
}

fn see_also(top: &clap::Command, sub: Option<&str>) -> Roff {
    let mut r = Roff::new();
    r.control("SH", ["SEE ALSO"]);
    let mut pages: Vec<String> = match sub {
        Some(_) => vec!["epd(1)".into(), "epd-explain(1)".into()],
        None => top
            .get_subcommands()
            .filter(|s| s.get_name() != "help")
            .map(|s| format!("epd-{}(1)", s.get_name()))
            .collect(),
    };
    pages.retain(|p| Some(p.as_str()) != sub.map(|s| format!("epd-{s}(1)")).as_deref());
    r.text([roman(format!("{}. The EPD specification: Steven J. Edwards, Portable Game Notation Specification and Implementation Guide (1994), section 16, and the EPD specification (1995).", pages.join(", ")))]);
    r
}
