//! One module per subcommand.

pub mod analyze;
pub mod from_pgn;
pub mod mate;
pub mod moves;
pub mod perft;
pub mod show;
pub mod stream;
pub mod uci;

use epd_core::{pipeline::LineReport, Severity};
use std::io::Write as _;

/// Renders a line's diagnostics as text (`file:line:col: severity[code]:
/// message`, then the line), warnings left out when `quiet`: the format
/// of the engine and mate verbs.
pub fn render_text(file: &str, quiet: bool, r: &LineReport<'_>, out: &mut Vec<u8>) {
    for d in r.diagnostics {
        if quiet && d.severity == Severity::Warning {
            continue;
        }
        let _ =
            write!(out, "{file}:{}:{}: {}[{}]: {}\n  ", r.line_no, d.column(), d.severity, d.code.as_str(), d.message);
        let text: Vec<u8> = r.text.iter().copied().filter(|&b| b != 0 && b != b'\r').take(200).collect();
        out.extend_from_slice(String::from_utf8_lossy(&text).as_bytes());
        out.push(b'\n');
    }
}

/// The built-in engine (`--engine builtin`): one thread, `--hash` MiB
/// (default 16); UCI options other than Threads and Hash do not apply.
pub fn builtin_engine(
    hash_mb: Option<u32>,
    options: &[(String, String)],
) -> anyhow::Result<Box<dyn epd_engine::Engine>> {
    if let Some((name, _)) = options.iter().find(|(n, _)| n != "Threads" && n != "Hash") {
        anyhow::bail!("--option {name}: options are for UCI engines; the built-in engine takes --hash only");
    }
    Ok(Box::new(epd_engine::Builtin::new(hash_mb.unwrap_or(16) as usize)))
}
