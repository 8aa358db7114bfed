//! `scripts/fetch-corpora`, which fetches the corpora for anyone who
//! clones the repository without `shared/` beside it, and `corpora.lock`,
//! the checksums it checks them against.
//!
//! The kept checksums are checked against the corpora the other tests
//! read (found as they find them: `$EPDKIT_CORPORA` or `shared/corpora`),
//! so the two cannot drift; and the script is run against a local copy of
//! its sources (`tests/python/fetch_corpora_cases.py`), no network: a good
//! run, a second run that fetches nothing, corrupt, truncated and missing
//! sources, a transfer cut short, a stalled one, and SIGTERM and SIGINT in
//! the middle of a download. Like every corpus test, both fail when the
//! corpora are not found. They need `python3` (the script's only
//! requirement).

use std::path::PathBuf;
use std::process::{Command, Output};

use epd_testkit::corpus_dir;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn python3(args: &[&std::ffi::OsStr]) -> Output {
    Command::new("python3")
        .args(args)
        .env_remove("EPDKIT_CORPORA_BASE")
        .output()
        .expect("python3 is needed to run scripts/fetch-corpora")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn kept_checksums_match_the_corpora() {
    let script = root().join("scripts/fetch-corpora");
    let dir = corpus_dir();
    let out = python3(&[script.as_os_str(), "--check".as_ref(), dir.as_os_str()]);
    assert!(
        out.status.success(),
        "corpora.lock does not match {} (after a deliberate change to the corpora: \
         scripts/fetch-corpora --update-lock DIR):\n{}",
        dir.display(),
        text(&out)
    );
}

#[test]
fn fetch_corpora_from_a_local_source() {
    let script = root().join("scripts/fetch-corpora");
    let cases = root().join("tests/python/fetch_corpora_cases.py");
    let out = python3(&[cases.as_os_str(), script.as_os_str(), corpus_dir().as_os_str()]);
    let report = text(&out);
    assert!(out.status.success(), "scripts/fetch-corpora failed a case:\n{report}");
    eprint!("{report}");
}
