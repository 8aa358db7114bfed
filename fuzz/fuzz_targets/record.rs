#![no_main]
//! EPD records in both modes: diagnostics stay inside the line, and the
//! canonical form of a valid record reads back (same mode) with no error
//! to the same canonical form; the fast path for canonical lines builds
//! what the general parser builds, and judging a line without building
//! it (as the stream verbs do) gives the same verdict.

use epd_core::test_hooks::RecordTestHooks as _;
use epd_core::{has_errors, ParseMode, Record};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut rec = Record::default();
    let mut again = Record::default();
    let mut general = Record::default();
    let mut diags = Vec::new();
    let mut general_diags = Vec::new();
    let (built, judged) = rec.fast_path_verdicts(data);
    assert_eq!(built, judged, "the fast path judges a line it builds otherwise");
    for mode in [ParseMode::Strict, ParseMode::Lenient] {
        diags.clear();
        rec.parse_into(data, mode, &mut diags);
        general_diags.clear();
        general.parse_into_general(data, mode, &mut general_diags);
        assert!(rec.same_parse(&general) && diags == general_diags, "fast path and general parser differ");
        if judged {
            assert!(diags.is_empty() && rec.is_source_canonical(), "a line judged canonical is not");
        }
        for d in &diags {
            assert!(d.offset <= data.len() + 1, "diagnostic offset {} beyond {} bytes", d.offset, data.len());
        }
        if has_errors(&diags) {
            continue;
        }
        let once = rec.to_canonical();
        if rec.is_source_canonical() {
            // to_canonical copies a canonical line: the encoder must agree.
            let mut encoded = Vec::new();
            rec.append_canonical_encoded(&mut encoded);
            assert_eq!(encoded, data, "a record flagged canonical encodes differently");
        }
        diags.clear();
        again.parse_into(&once, mode, &mut diags);
        assert!(!has_errors(&diags), "canonical form {:?} of a valid record is invalid: {diags:?}", String::from_utf8_lossy(&once));
        let mut encoded = Vec::new();
        again.append_canonical_encoded(&mut encoded);
        assert_eq!(encoded, once, "canonical form is not a fixed point");
    }
});
