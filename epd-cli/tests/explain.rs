//! `epd explain` against the code base's own list of codes.

use std::process::Command;

use epd_core::Code;

fn epd(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_epd")).args(args).output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn list_has_every_code_once() {
    let (code, out, _) = epd(&["explain", "--list"]);
    assert_eq!(code, Some(0));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), Code::ALL.len());
    for (line, c) in lines.iter().zip(Code::ALL) {
        assert_eq!(*line, format!("{}  {}", c.as_str(), c.summary()));
    }
}

#[test]
fn every_code_explains_with_its_section_and_examples() {
    for &c in Code::ALL {
        let (code, out, err) = epd(&["explain", c.as_str()]);
        assert_eq!(code, Some(0), "{c}: {err}");
        let e = c.explanation();
        assert!(out.starts_with(&format!("{c}: {}\n", c.summary())), "{out}");
        let flat: String = out.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&e.section.split_whitespace().collect::<Vec<_>>().join(" ")), "{c}: section");
        for l in e.bad.lines() {
            assert!(out.contains(&format!("    {l}\n")), "{c}: bad example");
        }
        if !e.good.is_empty() {
            assert!(out.contains("  Good:\n"), "{c}");
        }
    }
}

#[test]
fn spellings_and_unknown_codes() {
    let (_, a, _) = epd(&["explain", "E012"]);
    for form in ["e012", "E12", "12"] {
        assert_eq!(epd(&["explain", form]).1, a, "{form}");
    }
    let (code, out, _) = epd(&["explain", "12", "P010"]);
    assert_eq!(code, Some(0));
    assert!(out.starts_with("E012: ") && out.contains("\n\nP010: "), "{out}");
    let (code, _, err) = epd(&["explain", "E999"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown diagnostic code \"E999\"; epd explain --list shows them all"), "{err}");
    assert_eq!(epd(&["explain"]).0, Some(2), "a code or --list is required");
}

/// The manual pages carry the same text.
#[test]
fn the_manual_lists_every_code_with_its_explanation() {
    let (code, page, _) = epd(&["man"]);
    assert_eq!(code, Some(0));
    let flat: String = page.split_whitespace().collect::<Vec<_>>().join(" ");
    for &c in Code::ALL {
        assert!(page.contains(&format!("\\fB{}\\fR", c.as_str())), "{c} in epd(1)");
        // Five words in a row with nothing roff escapes: in the page too.
        let words: Vec<&str> = c.explanation().text.split_whitespace().collect();
        let plain = |w: &&str| w.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == ',' || ch == '.');
        let run = words.windows(5).find(|w| w.iter().all(plain)).map(|w| w.join(" ")).expect("plain words");
        assert!(flat.contains(&run), "{c}: {run}");
    }
    let (_, check, _) = epd(&["man", "check"]);
    assert!(check.contains(".SH \"EXIT STATUS\"") || check.contains(".SH EXIT STATUS"), "{check}");
    assert!(check.contains("E027"));
}

/// Every code any verb prints can be explained: each verb runs over bad
/// input (every explanation's own bad example, the shared destruction
/// test, hostile bytes, broken PGN and perft lines), every `[CODE]` it
/// prints is collected, and `epd explain` must know each one. The codes
/// seen must also cover the table, so the inputs really exercise it.
#[test]
fn every_code_any_verb_prints_can_be_explained() {
    use std::collections::BTreeSet;

    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    let expand = |text: &str| -> Vec<u8> {
        // "c0 \"aaaa…(5000 bytes)…\";" stands for 5000 a's.
        let Some(open) = text.find("\u{2026}(") else { return text.as_bytes().to_vec() };
        let close = text[open..].find(")\u{2026}").map(|i| open + i).unwrap();
        let n: usize = text[open + 4..close].trim_end_matches(" bytes").parse().unwrap();
        let start = text[..open].trim_end_matches('a').len();
        format!("{}{}{}", &text[..start], "a".repeat(n), &text[close + 4..]).into_bytes()
    };
    let mut epd_bad = Vec::new();
    let mut pgn_bad = Vec::new();
    let mut perft_bad = Vec::new();
    for &c in Code::ALL {
        let e = c.explanation();
        let mut bad = expand(e.bad);
        if c == Code::NotUtf8 {
            // The example shows the Latin-1 byte as U+FFFD.
            let i = bad.windows(3).position(|w| w == "\u{fffd}".as_bytes()).unwrap();
            bad.splice(i..i + 3, [0xfc]);
        }
        let target = match c.as_str().as_bytes()[..3] {
            [b'P', b'0', b'0'] => &mut perft_bad,
            [b'P', ..] => &mut pgn_bad,
            _ => &mut epd_bad,
        };
        target.extend_from_slice(&bad);
        target.extend_from_slice(b"\n\n");
    }
    epd_bad.extend_from_slice(&std::fs::read(epd_testkit::corpus_path("destruction-test.epd")).unwrap());
    // Binary junk: NULs and bytes that are not UTF-8.
    let junk: Vec<u8> = (0..3000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(path("bad.epd"), &epd_bad).unwrap();
    std::fs::write(path("bad.pgn"), &pgn_bad).unwrap();
    std::fs::write(path("perft.epd"), &perft_bad).unwrap();
    std::fs::write(path("junk.bin"), &junk).unwrap();
    std::fs::write(path("queens.epd"), b"qqqqkqqq/qqqqqqqq/8/8/8/8/QQQQQQQQ/QQQQKQQQ w - - id \"q\";\n").unwrap();

    let (epd_f, pgn_f, perft_f, junk_f, queens) =
        (path("bad.epd"), path("bad.pgn"), path("perft.epd"), path("junk.bin"), path("queens.epd"));
    let runs: Vec<Vec<&str>> = vec![
        vec!["check", &epd_f],
        vec!["check", "--lenient", &epd_f],
        vec!["check", &junk_f],
        vec!["normalize", &epd_f],
        vec!["normalize", "--lenient", &epd_f],
        vec!["repair", &epd_f],
        vec!["purge", "acn", &epd_f],
        vec!["select", "--has", "bm", &epd_f],
        vec!["convert", "--to", "fen", &epd_f],
        vec!["convert", "--to", "epd", &epd_f],
        vec!["show", &epd_f],
        vec!["from-pgn", &pgn_f],
        vec!["from-pgn", &junk_f],
        vec!["analyze", "--depth", "1", &epd_f],
        vec!["target", "--depth", "1", &epd_f],
        vec!["mate", "-n", "1", &epd_f],
        vec!["mate", "-n", "8", "--timeout", "50", &queens],
        vec!["perft", "--verify", "--max-depth", "2", &perft_f],
        vec!["report", &epd_f],
    ];
    let mut seen = BTreeSet::new();
    for args in &runs {
        let (status, out, err) = epd(args);
        assert!(status.is_some_and(|s| s <= 2), "epd {args:?} ended {status:?}: {err}");
        for text in [&out, &err] {
            for (i, _) in text.match_indices('[') {
                let rest = &text[i + 1..];
                let Some(end) = rest.find(']') else { continue };
                let code = &rest[..end];
                let is_code = code.len() == 4
                    && matches!(code.as_bytes()[0], b'E' | b'P')
                    && code[1..].bytes().all(|b| b.is_ascii_digit());
                if is_code && (text[..i].ends_with("error") || text[..i].ends_with("warning")) {
                    seen.insert(code.to_owned());
                }
            }
        }
    }
    for code in &seen {
        let (status, out, err) = epd(&["explain", code]);
        assert_eq!(status, Some(0), "epd explain {code}: {err}");
        assert!(out.starts_with(&format!("{code}: ")), "{out}");
    }
    // E033 is retired (never printed); every other code shows up.
    let missing: Vec<&str> =
        Code::ALL.iter().map(|c| c.as_str()).filter(|c| *c != "E033" && !seen.contains(*c)).collect();
    assert!(missing.is_empty(), "no verb printed {missing:?} on the bad inputs; seen {seen:?}");
}
