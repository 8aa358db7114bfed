//! The examples of the README and of the guide (`docs/*.md`) against
//! what the commands really print.
//!
//! Every `$ ...` line of the ```` ```console ```` blocks of `README.md` and
//! of each page of `docs/` is run, in order, by `sh` in one temporary
//! directory per block (so `bk.epd`, written by one example, is there for
//! the next), with the corpora of `shared/corpora` linked in under their
//! own names and the `epd` under test first on `PATH`. Then:
//!
//! - the output lines quoted below a command are compared with what it
//!   printed (standard output and error, in the order written): the
//!   numbers and words of each quoted line must be those of its real line,
//!   whatever the spacing; `...` elides any text (a line of its own, any
//!   number of lines), and a parenthesised remark after the last `...` says
//!   what was elided; timings (seconds, nodes/s, solve times) are not
//!   compared, as they differ from run to run;
//! - the figures of the trailing `# comment` of the commands listed in
//!   [`COMMENT_FIGURES`] must be printed by the command, in that order;
//! - a command must not fail with exit code 2 (a usage or I/O error).
//!
//! Commands that cannot run here (a placeholder file, Stockfish, a
//! server) are listed in [`SKIPPED`] with the reason. The pages name
//! `wacnew.epd` and the other corpora by their file names, and the test
//! runs the examples as written: `-j 2` included (the figures do not
//! depend on it; the 50k-node analysis of WAC takes about 5 s on 2
//! cores).
//!
//! A second test holds the pages' links to what they name: every relative
//! link reaches a file, every `#anchor` a heading of its page, and the
//! README links to every page of the guide.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Commands (as written in a page, up to their comment) whose trailing
/// comment quotes figures the command prints.
const COMMENT_FIGURES: &[&str] = &[
    "epd from-pgn --unique --plies 8..30 8moves_v3.pgn > book.epd",
    "epd from-pgn --label --unique lichess_db_1000k.pgn -o tune.epd",
    "epd perft 6",
];

/// Commands not run, by the start of their text, and why.
const SKIPPED: &[(&str, &str)] = &[
    ("epd target --engine stockfish", "Stockfish at a movetime: its result depends on the machine"),
    ("epd analyze --engine stockfish", "suite.epd is a placeholder, and Stockfish"),
    ("epd analyze --nodes 100000 big.epd", "big.epd is a placeholder"),
    ("epd from-pgn --id games.pgn", "games.pgn is a placeholder"),
    ("epd perft --verify --max-depth 5 perftsuite.epd", "perftsuite.epd is a placeholder"),
    ("epd uci", "a UCI engine on standard input, quoting nothing"),
    ("cat event.toml", "the block shows the event file; the page has no copy to run"),
    ("epd referee event.toml", "an event of Stockfish against the built-in engine, minutes long"),
];

/// Lines of output whose figures after the first `:` are timings (the
/// report's solve times are measured in milliseconds of each run).
const TIMED_LINES: &[&str] = &["solve times on "];

/// A `$ command` of a console block and the output lines quoted below it.
#[derive(Debug)]
struct Example {
    /// The line number of the command in its page.
    line: usize,
    command: String,
    comment: Option<String>,
    output: Vec<String>,
}

/// The console blocks of a Markdown text (the page `name`), each a list of
/// examples.
fn console_blocks(name: &str, markdown: &str) -> Vec<Vec<Example>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<Example>> = None;
    for (i, line) in markdown.lines().enumerate() {
        match &mut current {
            None if line.trim_end() == "```console" => current = Some(Vec::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.push(current.take().unwrap()),
            Some(examples) => {
                if let Some(cmd) = line.strip_prefix("$ ") {
                    let (command, comment) = split_comment(cmd);
                    examples.push(Example { line: i + 1, command, comment, output: Vec::new() });
                } else if let Some(example) = examples.last_mut() {
                    example.output.push(line.to_string());
                } else {
                    panic!("{name}:{}: console output before any command", i + 1);
                }
            }
        }
    }
    assert!(current.is_none(), "{name}: an unclosed console block");
    for example in blocks.iter_mut().flatten() {
        while example.output.last().is_some_and(|l| l.trim().is_empty()) {
            example.output.pop();
        }
    }
    blocks
}

/// A shell command line split at its comment: a `#` at the start of a word,
/// outside quotes.
fn split_comment(line: &str) -> (String, Option<String>) {
    let mut quote = None;
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '#') if prev.is_whitespace() => {
                return (line[..i].trim_end().to_string(), Some(line[i + 1..].trim().to_string()));
            }
            _ => {}
        }
        prev = c;
    }
    (line.trim_end().to_string(), None)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    /// A number as written, thousands separators removed.
    Number(String),
}

/// The words and numbers of a line; timings (a number of seconds such as
/// `0.71s`, or of nodes/s) are left out.
fn tokens(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() {
            let start = i;
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
            out.push(Token::Word(text[start..i].to_string()));
        } else if c.is_ascii_digit() {
            let mut number = String::new();
            loop {
                while i < b.len() && b[i].is_ascii_digit() {
                    number.push(b[i] as char);
                    i += 1;
                }
                // 589,900: a comma and exactly three digits go on.
                let group = i + 4 <= b.len()
                    && b[i] == b','
                    && b[i + 1..i + 4].iter().all(u8::is_ascii_digit)
                    && !b.get(i + 4).is_some_and(u8::is_ascii_digit);
                if group {
                    i += 1;
                } else {
                    break;
                }
            }
            if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
                number.push('.');
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    number.push(b[i] as char);
                    i += 1;
                }
            }
            let rest = &text[i..];
            let seconds = rest
                .strip_prefix('s')
                .or_else(|| rest.strip_prefix(" s"))
                .is_some_and(|r| !r.starts_with(|c: char| c.is_ascii_alphanumeric()));
            let timing = seconds || rest.starts_with(" nodes/s");
            if !timing {
                out.push(Token::Number(number));
            }
        } else {
            i += 1;
        }
    }
    out
}

fn numbers(tokens: &[Token]) -> Vec<String> {
    tokens
        .iter()
        .filter_map(|t| match t {
            Token::Number(n) => Some(n.clone()),
            Token::Word(_) => None,
        })
        .collect()
}

/// Whether `needle` occurs in `hay` from `from` on; the end of its first
/// occurrence.
fn find_from(hay: &[Token], needle: &[Token], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return Some(from);
    }
    (from..=hay.len().saturating_sub(needle.len()))
        .find(|&s| hay[s..s + needle.len()] == *needle)
        .map(|s| s + needle.len())
}

/// Whether a quoted output line is the real line `real`.
fn line_matches(quoted: &str, real: &str) -> bool {
    if quoted.trim_end() == real.trim_end() {
        return true;
    }
    // A caret line (no letters, no digits) must point at the same column.
    if !quoted.contains(|c: char| c.is_ascii_alphanumeric()) && !quoted.contains("...") {
        return false;
    }
    // What a timed line says after its first ':' differs from run to run.
    if let Some(prefix) = TIMED_LINES.iter().find(|p| quoted.trim_start().starts_with(*p)) {
        let head = |s: &str| s.split(':').next().unwrap_or("").to_string();
        return real.trim_start().starts_with(prefix) && tokens(&head(quoted)) == tokens(&head(real));
    }
    let mut segments: Vec<&str> = quoted.split("...").collect();
    // "... (30 on a terminal, all otherwise)": a remark on what was elided.
    if segments.len() > 1 {
        let last = segments.last().unwrap().trim();
        if last.starts_with('(') && last.ends_with(')') {
            *segments.last_mut().unwrap() = "";
        }
    }
    let real = tokens(real);
    if segments.len() == 1 {
        return tokens(quoted) == real;
    }
    let first = tokens(segments[0]);
    let last = tokens(segments[segments.len() - 1]);
    if !real.starts_with(&first) || !real.ends_with(&last) || first.len() + last.len() > real.len() {
        return false;
    }
    let end = real.len() - last.len();
    let mut at = first.len();
    for middle in &segments[1..segments.len() - 1] {
        match find_from(&real[..end], &tokens(middle), at) {
            Some(next) => at = next,
            None => return false,
        }
    }
    true
}

/// Whether the quoted lines are the real ones; a quoted `...` line stands
/// for any number of real lines.
fn lines_match(quoted: &[String], real: &[&str]) -> bool {
    fn go(q: &[String], r: &[&str], memo: &mut HashMap<(usize, usize), bool>) -> bool {
        let key = (q.len(), r.len());
        if let Some(&m) = memo.get(&key) {
            return m;
        }
        let m = match q.first() {
            None => r.is_empty(),
            Some(l) if l.trim() == "..." => (0..=r.len()).any(|skip| go(&q[1..], &r[skip..], memo)),
            Some(l) => !r.is_empty() && line_matches(l, r[0]) && go(&q[1..], &r[1..], memo),
        };
        memo.insert(key, m);
        m
    }
    go(quoted, real, &mut HashMap::new())
}

/// The first quoted line that no real line matches, for the message.
fn first_mismatch(quoted: &[String], real: &[&str]) -> String {
    let mut r = 0;
    for q in quoted {
        if q.trim() == "..." {
            continue;
        }
        match real[r..].iter().position(|l| line_matches(q, l)) {
            Some(p) => r += p + 1,
            None => return q.clone(),
        }
    }
    String::from("(the lines match one by one, not as a whole)")
}

/// Whether `want` occurs in `have` in order (not necessarily adjacent).
fn is_subsequence(want: &[String], have: &[String]) -> bool {
    let mut have = have.iter();
    want.iter().all(|w| have.any(|h| h == w))
}

fn link_corpora(dir: &Path) {
    for entry in std::fs::read_dir(epd_testkit::corpus_dir()).unwrap() {
        let entry = entry.unwrap();
        std::os::unix::fs::symlink(entry.path(), dir.join(entry.file_name())).unwrap();
    }
}

/// The workspace's root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// The pages whose examples are run, as paths from the root: the README,
/// then the guide's pages (`docs/*.md`) in name order.
fn pages() -> Vec<PathBuf> {
    let mut guide: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| Path::new("docs").join(e.unwrap().file_name()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    guide.sort();
    assert!(!guide.is_empty(), "no guide pages in docs/");
    std::iter::once(PathBuf::from("README.md")).chain(guide).collect()
}

#[test]
fn examples_print_what_the_pages_quote() {
    let epd = Path::new(env!("CARGO_BIN_EXE_epd"));
    let path = format!("{}:{}", epd.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());

    let mut failures = Vec::new();
    let mut compared = Vec::new();
    let mut skipped_seen = vec![false; SKIPPED.len()];
    let mut comments_seen = vec![false; COMMENT_FIGURES.len()];
    let mut tally = Vec::new();
    for page in pages() {
        let name = page.display().to_string();
        let blocks = console_blocks(&name, &std::fs::read_to_string(root().join(&page)).unwrap());
        let (mut run, mut skipped) = (0, 0);
        for block in &blocks {
            let dir = tempfile::tempdir().unwrap();
            link_corpora(dir.path());
            for ex in block {
                if let Some(k) = SKIPPED.iter().position(|(prefix, _)| ex.command.starts_with(prefix)) {
                    skipped_seen[k] = true;
                    skipped += 1;
                    continue;
                }
                run += 1;
                let started = std::time::Instant::now();
                let o = Command::new("sh")
                    .arg("-c")
                    .arg(format!("{{ {}\n}} 2>&1", ex.command))
                    .current_dir(dir.path())
                    .env("PATH", &path)
                    .env("NO_COLOR", "1")
                    .stdin(std::process::Stdio::null())
                    .output()
                    .unwrap();
                let text = String::from_utf8_lossy(&o.stdout);
                let real: Vec<&str> = text.lines().collect();
                let mut ok = true;
                let shown = || real.iter().take(40).copied().collect::<Vec<_>>().join("\n");
                if !matches!(o.status.code(), Some(0 | 1)) {
                    failures.push(format!(
                        "{name}:{}: `{}` exited with {}:\n{}",
                        ex.line,
                        ex.command,
                        o.status,
                        shown()
                    ));
                    ok = false;
                }
                if !ex.output.is_empty() && !lines_match(&ex.output, &real) {
                    failures.push(format!(
                        "{name}:{}: `{}` does not print what the page quotes; first line not found:\n  {}\nit printed:\n{}",
                        ex.line,
                        ex.command,
                        first_mismatch(&ex.output, &real),
                        shown()
                    ));
                    ok = false;
                }
                if let Some(k) = COMMENT_FIGURES.iter().position(|c| *c == ex.command) {
                    comments_seen[k] = true;
                    let want = numbers(&tokens(ex.comment.as_deref().unwrap_or("")));
                    assert!(!want.is_empty(), "{name}:{}: `{}` has no figures in its comment", ex.line, ex.command);
                    if !is_subsequence(&want, &numbers(&tokens(&text))) {
                        failures.push(format!(
                            "{name}:{}: `{}`: the comment's figures {want:?} are not printed:\n{}",
                            ex.line,
                            ex.command,
                            shown()
                        ));
                        ok = false;
                    }
                }
                if ok && (!ex.output.is_empty() || COMMENT_FIGURES.contains(&ex.command.as_str())) {
                    compared.push(ex.command.clone());
                }
                eprintln!("{:6.2}s  {name}:{}: {}", started.elapsed().as_secs_f64(), ex.line, ex.command);
            }
        }
        tally.push(format!("{name}: {} blocks, {run} commands run, {skipped} skipped", blocks.len()));
    }
    eprintln!("{}", tally.join("\n"));
    for (k, seen) in skipped_seen.iter().enumerate() {
        assert!(seen, "SKIPPED names `{}`, which is no longer in the README or the guide", SKIPPED[k].0);
    }
    for (k, seen) in comments_seen.iter().enumerate() {
        assert!(seen, "COMMENT_FIGURES names `{}`, which is no longer in the README or the guide", COMMENT_FIGURES[k]);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The examples that quote figures were all found and compared.
    for must in [
        "epd check bratko-kopec.epd",
        "epd target --depth 4 wacnew.epd",
        "epd report wac-d4.epd",
        "epd report wac-5k.epd",
        "epd perft 6",
    ] {
        assert!(compared.iter().any(|c| c.starts_with(must)), "no example `{must}...` was compared: {compared:?}");
    }
}

/// The anchor GitHub gives a heading: lower case, letters, digits, `-`
/// and `_` kept, spaces made `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown page's headings (outside code blocks).
fn anchors(markdown: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of a Markdown page's inline links `[text](target)`, with
/// their line numbers; code blocks and code spans are left out.
fn links(markdown: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in markdown.lines().enumerate() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans out: every other piece between backticks.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((i + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn the_pages_links_reach_what_they_name() {
    let mut broken = Vec::new();
    let mut readme_links = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(root().join(&page)).unwrap();
        let dir = page.parent().unwrap();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = if file.is_empty() { page.clone() } else { normalize(&dir.join(file)) };
            if page == Path::new("README.md") {
                readme_links.push(file.clone());
            }
            let Ok(linked) = std::fs::read_to_string(root().join(&file)) else {
                if !root().join(&file).exists() {
                    broken.push(format!("{}:{line}: {target}: no such file", page.display()));
                }
                continue;
            };
            if !anchor.is_empty() && !anchors(&linked).iter().any(|a| a == anchor) {
                broken.push(format!("{}:{line}: {target}: no such heading in {}", page.display(), file.display()));
            }
        }
    }
    for page in pages().into_iter().skip(1) {
        if !readme_links.contains(&page) {
            broken.push(format!("README.md does not link to {}", page.display()));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// A relative path with its `..` resolved against the components before.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

#[test]
fn quoted_lines_match_by_numbers_and_words() {
    for (quoted, real, want) in [
        ("wac: 186/300 solved", "wac: 186/300 solved", true),
        ("wac: 186/300 solved", "wac: 185/300 solved", false),
        ("wac: 186/300 solved", "wac: 186/300 missed", false),
        ("overall  191/300 63.7%", "overall   191/300  63.7%", true),
        ("engine x1; 777711 nodes, 0.71s, 1093038 nodes/s", "engine x1; 777711 nodes, 0.40s, 1801575 nodes/s", true),
        ("engine x1; 777711 nodes, 0.71s, 1093038 nodes/s", "engine x1; 727605 nodes, 0.71s, 1093038 nodes/s", false),
        ("  missed: WAC.002, WAC.018, ... (30 on a terminal)", "  missed: WAC.002, WAC.018, WAC.021", true),
        ("  missed: WAC.002, WAC.018, ... (30 on a terminal)", "  missed: WAC.001, WAC.002, WAC.018", false),
        ("{\"a\":1,...,\"b\":[...]}", "{\"a\":1,\"x\":2,\"b\":[3,4]}", true),
        ("{\"a\":1,...,\"b\":[...]}", "{\"a\":2,\"x\":2,\"b\":[3,4]}", false),
        ("# 589,900 positions", "# 589900 positions", true),
        ("   ^", "   ^", true),
        ("   ^", "    ^", false),
        ("solve times on 189 records: 7 faster", "solve times on 189 records: 9 faster", true),
        ("solve times on 189 records: 7 faster", "solve times on 190 records: 7 faster", false),
    ] {
        assert_eq!(line_matches(quoted, real), want, "{quoted:?} against {real:?}");
    }
    let q = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(lines_match(&q(&["a 1", "...", "b 2"]), &["a 1", "x", "y", "b 2"]));
    assert!(lines_match(&q(&["a 1", "...", "b 2"]), &["a 1", "b 2"]));
    assert!(!lines_match(&q(&["a 1", "b 2"]), &["a 1", "x", "b 2"]));
    assert!(!lines_match(&q(&["a 1"]), &["a 1", "b 2"]));
    assert_eq!(split_comment("epd perft 6   # 119060324"), ("epd perft 6".into(), Some("119060324".into())));
    assert_eq!(split_comment("epd x --where 'bm=#3' f"), ("epd x --where 'bm=#3' f".into(), None));
    assert!(is_subsequence(&q(&["157999", "154301"]), &q(&["34700", "157999", "154301"])));
    assert!(!is_subsequence(&q(&["166178", "157999"]), &q(&["34700", "157999", "154301"])));
    assert_eq!(slug(" `epd play`, the client bridge"), "epd-play-the-client-bridge");
    assert_eq!(slug(" Engines' scores and adjudication"), "engines-scores-and-adjudication");
    assert_eq!(slug(" Set-up"), "set-up");
    assert_eq!(
        links("See [a](docs/a.md#x) and `[b](not)` and [c](../c.md).\n```\n[d](e)\n```\n"),
        [(1, "docs/a.md#x".to_string()), (1, "../c.md".to_string())]
    );
    assert_eq!(normalize(Path::new("docs/../README.md")), Path::new("README.md"));
}
