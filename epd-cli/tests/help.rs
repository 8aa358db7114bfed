//! Help that cannot drift: insta snapshots of `epd --help`, of every
//! command's `--help` and of every manual page. The list of commands is
//! read from `epd --help` itself, so a new command gets its snapshots
//! (and a review) the day it appears. Every snapshot was read when it
//! was accepted: descriptions on the right command, examples that run
//! (the examples' own tests live beside each verb).

use std::process::Command;

fn epd(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_epd"))
        .args(args)
        // Built without clap's wrap_help, help does not depend on the
        // terminal's width; colour is off when stdout is not a terminal.
        .env_remove("NO_COLOR")
        .output()
        .expect("run epd");
    assert!(out.status.success(), "epd {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "epd {args:?} wrote to stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// The command names of `epd --help`'s "Commands:" section, `help` left out.
fn commands() -> Vec<String> {
    let top = epd(&["--help"]);
    let section = top.split("Commands:\n").nth(1).expect("a Commands section");
    let mut names = Vec::new();
    for line in section.lines() {
        if !line.starts_with("  ") {
            break;
        }
        // Continuation lines of a wrapped description are indented deeper.
        if line.starts_with("   ") {
            continue;
        }
        let name = line.split_whitespace().next().expect("a command name");
        if name != "help" {
            names.push(name.to_owned());
        }
    }
    names
}

#[test]
fn top_level_help() {
    insta::assert_snapshot!("epd-help", epd(&["--help"]));
}

#[test]
fn every_command_has_a_help_snapshot_and_a_manual_page() {
    let names = commands();
    // The commands the README and the guide (docs/) name; more may come,
    // none may go.
    for expected in ["check", "normalize", "analyze", "target", "mate", "report", "referee", "play", "match", "uci"] {
        assert!(names.iter().any(|n| n == expected), "{expected} missing from epd --help: {names:?}");
    }
    for name in &names {
        let help = epd(&[name, "--help"]);
        // The description is the command's own: the first line of `epd
        // --help`'s entry for it begins the command's help.
        assert!(help.starts_with(&first_words(name)), "epd {name} --help does not begin with its summary:\n{help}");
        insta::assert_snapshot!(format!("epd-{name}-help"), help);
        let man = epd(&["man", name]);
        assert!(man.contains(&format!(".TH EPD-{} 1", name.to_uppercase())), "epd man {name}:\n{man}");
        insta::assert_snapshot!(format!("man-epd-{name}"), man);
    }
    insta::assert_snapshot!("man-epd", epd(&["man"]));
}

/// The first three words of `name`'s summary in `epd --help`.
fn first_words(name: &str) -> String {
    let top = epd(&["--help"]);
    let line = top
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name) && l.starts_with("  "))
        .unwrap_or_else(|| panic!("{name} not in epd --help"));
    line.split_whitespace().skip(1).take(3).collect::<Vec<_>>().join(" ")
}
