//! The cost of the C API over the Rust API: parse and canonically encode
//! every record of a file (by default ../shared/bench/bench-100k.epd, or
//! the path given as the first argument / $EPDKIT_BENCH_FILE), once through
//! epd-core and once through the exported C functions, called through
//! function pointers the optimizer cannot see through (as a C program
//! calls a shared library). Prints the median of several runs and the
//! ratio.
//!
//!   cargo bench -p epd-ffi --bench capi_overhead [-- FILE]

use epd_core::{Diagnostic, ParseMode, Record};
use epdkit::*;
use std::ffi::c_char;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const RUNS: usize = 7;

fn lines(text: &[u8]) -> Vec<&[u8]> {
    text.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect()
}

fn rust_api(lines: &[&[u8]]) -> usize {
    let mut rec = Record::default();
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut out = Vec::with_capacity(512);
    let mut total = 0;
    for line in lines {
        diags.clear();
        rec.parse_into(line, ParseMode::Strict, &mut diags);
        out.clear();
        rec.append_canonical(&mut out);
        total += out.len();
    }
    total
}

type ParseInto =
    extern "C" fn(*mut epd_record, *const c_char, usize, epd_parse_mode, *mut epd_diagnostics) -> epd_status;
type CanonicalInto = extern "C" fn(*const epd_record, *mut c_char, usize, *mut usize) -> epd_status;
type Canonical = extern "C" fn(*const epd_record, *mut *mut c_char, *mut usize) -> epd_status;

/// The allocation-free path: parse_into a reused record, canonical into a
/// caller buffer.
fn c_api(lines: &[&[u8]]) -> usize {
    let parse: ParseInto = black_box(epd_record_parse_into);
    let encode: CanonicalInto = black_box(epd_record_canonical_into);
    let mut pos = std::ptr::null_mut();
    let mut rec = std::ptr::null_mut();
    assert_eq!(epd_position_new(&mut pos), EPD_STATUS_OK);
    assert_eq!(epd_record_new(pos, &mut rec), EPD_STATUS_OK);
    let mut buf = vec![0 as c_char; 1 << 16];
    let mut total = 0;
    for line in lines {
        let st = parse(rec, line.as_ptr().cast(), line.len(), EPD_PARSE_STRICT, std::ptr::null_mut());
        black_box(st);
        let mut n = 0;
        if encode(rec, buf.as_mut_ptr(), buf.len(), &mut n) == EPD_STATUS_OK {
            total += n;
        }
    }
    epd_record_free(rec);
    epd_position_free(pos);
    total
}

/// As c_api, with an owned string per record (malloc and free).
fn c_api_owned(lines: &[&[u8]]) -> usize {
    let parse: ParseInto = black_box(epd_record_parse_into);
    let encode: Canonical = black_box(epd_record_canonical);
    let mut pos = std::ptr::null_mut();
    let mut rec = std::ptr::null_mut();
    assert_eq!(epd_position_new(&mut pos), EPD_STATUS_OK);
    assert_eq!(epd_record_new(pos, &mut rec), EPD_STATUS_OK);
    let mut total = 0;
    for line in lines {
        black_box(parse(rec, line.as_ptr().cast(), line.len(), EPD_PARSE_STRICT, std::ptr::null_mut()));
        let (mut text, mut n) = (std::ptr::null_mut(), 0);
        if encode(rec, &mut text, &mut n) == EPD_STATUS_OK {
            total += n;
            epd_string_free(text);
        }
    }
    epd_record_free(rec);
    epd_position_free(pos);
    total
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("EPDKIT_BENCH_FILE").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench/bench-100k.epd"));
    let Ok(text) = std::fs::read(&path) else {
        eprintln!("capi_overhead: cannot read {} (pass a file or set EPDKIT_BENCH_FILE); skipped", path.display());
        return;
    };
    let lines = lines(&text);
    let expected = rust_api(&lines);
    assert_eq!(c_api(&lines), expected, "the C API encodes the same bytes");
    assert_eq!(c_api_owned(&lines), expected);
    let mut times: [Vec<Duration>; 3] = Default::default();
    for _ in 0..RUNS {
        // Interleaved, so drift in machine load hits all three alike.
        for (i, f) in [rust_api as fn(&[&[u8]]) -> usize, c_api, c_api_owned].iter().enumerate() {
            let t = Instant::now();
            black_box(f(black_box(&lines)));
            times[i].push(t.elapsed());
        }
    }
    let [rust, c, owned] = times.map(median);
    let per = |d: Duration| d.as_secs_f64() * 1e9 / lines.len() as f64;
    println!("{} records from {}, median of {RUNS} runs", lines.len(), path.display());
    println!("rust api (parse_into + append_canonical):     {:>8.1?}  {:>6.0} ns/record", rust, per(rust));
    println!(
        "c api (parse_into + canonical_into):         {:>8.1?}  {:>6.0} ns/record  ratio {:.3}",
        c,
        per(c),
        c.as_secs_f64() / rust.as_secs_f64()
    );
    println!(
        "c api (parse_into + owned canonical string): {:>8.1?}  {:>6.0} ns/record  ratio {:.3}",
        owned,
        per(owned),
        owned.as_secs_f64() / rust.as_secs_f64()
    );
}
