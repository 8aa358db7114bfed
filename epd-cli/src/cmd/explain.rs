//! `epd explain CODE...` and `epd explain --list`: what a diagnostic code
//! means, where the specification says so, and a bad and a good record.

use std::io::Write;

use anyhow::bail;
use epd_core::Code;

use crate::Outcome;

pub const EXAMPLES: &str = "Examples:
  epd explain E027            # FEN move counters in an EPD record
  epd explain 12 e21 P010     # several at once, in any spelling
  epd explain --list          # every code with its one-line meaning";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Codes to explain: E012, e12, 12, P010.
    #[arg(value_name = "CODE", required_unless_present = "list")]
    codes: Vec<String>,
    /// List every code with its one-line meaning.
    #[arg(long, conflicts_with = "codes")]
    list: bool,
}

/// `text` wrapped at `width` columns, each line indented by `indent`.
fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            out.push_str(indent);
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(indent);
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The long explanation of `code`, as `epd explain` prints it.
pub fn render(code: Code) -> String {
    let e = code.explanation();
    let mut out = format!("{code}: {}\n\n", code.summary());
    out.push_str(&wrap(e.text, 74, "  "));
    out.push('\n');
    out.push_str(&wrap(&format!("Severity: {}.", e.severity), 74, "  "));
    out.push_str(&wrap(&format!("Specification: {}.", e.section), 74, "  "));
    out.push_str("\n  Bad:\n");
    for l in e.bad.lines() {
        out.push_str(&format!("    {l}\n"));
    }
    if !e.good.is_empty() {
        out.push_str("  Good:\n");
        for l in e.good.lines() {
            out.push_str(&format!("    {l}\n"));
        }
    }
    out
}

pub fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<Outcome> {
    if args.list {
        for &c in Code::ALL {
            writeln!(out, "{c}  {}", c.summary())?;
        }
        return Ok(Outcome::Ok);
    }
    let mut codes = Vec::new();
    for word in &args.codes {
        match word.parse::<Code>() {
            Ok(c) => codes.push(c),
            Err(_) => bail!("unknown diagnostic code {word:?}; epd explain --list shows them all"),
        }
    }
    for (i, c) in codes.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        write!(out, "{}", render(*c))?;
    }
    Ok(Outcome::Ok)
}
