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
