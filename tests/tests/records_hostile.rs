//! Hostile input: whatever the bytes, the record parser and the verbs give
//! diagnostics, never a panic, and normalizing stays idempotent.

use epd_core::verbs::{normalize_str, run, Options, Verb};
use epd_core::{has_errors, ParseMode, Record};
use epd_tests::{corpus, Rng};

fn mutate(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
    const ALPHABET: &[u8] = b" ;\"\\#+-=x/0123456789abcdefghKQRBNPkqrbnpOw-\t\0\r\xff\xe9";
    let mut v = line.to_vec();
    for _ in 0..1 + rng.below(4) {
        if v.is_empty() {
            v.push(ALPHABET[rng.below(ALPHABET.len())]);
            continue;
        }
        let i = rng.below(v.len());
        match rng.below(4) {
            0 => v[i] = ALPHABET[rng.below(ALPHABET.len())],
            1 => {
                v.remove(i);
            }
            2 => v.insert(i, ALPHABET[rng.below(ALPHABET.len())]),
            _ => {
                let j = rng.below(v.len());
                let chunk: Vec<u8> = v[i.min(j)..i.max(j)].to_vec();
                v.splice(i..i, chunk);
            }
        }
    }
    v
}

#[test]
fn mutated_real_records_never_panic_and_normalize_is_idempotent() {
    let mut rng = Rng::new(77);
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for name in ["wac_arasan.epd", "bratko-kopec.epd", "STS1-STS15_LAN_v3.epd", "destruction-test.epd", "matetrack.epd"]
    {
        let data = corpus(name);
        lines.extend(data.split(|&b| b == b'\n').take(300).map(<[u8]>::to_vec));
    }
    let mut invalid = 0;
    for round in 0..20_000 {
        let base = &lines[rng.below(lines.len())];
        let text = mutate(&mut rng, base);
        for mode in [ParseMode::Strict, ParseMode::Lenient] {
            let (rec, diags) = Record::parse(&text, mode);
            if has_errors(&diags) {
                invalid += 1;
                for d in &diags {
                    assert!(d.offset <= text.len() + 1, "offset {} beyond {} bytes", d.offset, text.len());
                }
                continue;
            }
            // A valid record's canonical form reads back to itself.
            let once = rec.to_canonical();
            let (again, d2) = Record::parse(&once, mode);
            assert!(
                !has_errors(&d2),
                "round {round}: canonical form of a valid record is invalid: {}",
                String::from_utf8_lossy(&once)
            );
            assert_eq!(again.to_canonical(), once, "round {round}");
        }
    }
    assert!(invalid > 1000, "{invalid}");
}

#[test]
fn random_bytes_and_huge_inputs_get_diagnostics() {
    let mut rng = Rng::new(5);
    // 3 MB of random bytes through normalize and check.
    let noise: Vec<u8> = (0..3 << 20).map(|_| (rng.next_u64() & 0xff) as u8).collect();
    for mode in [ParseMode::Strict, ParseMode::Lenient] {
        let (out, summary) = normalize_str(&noise, mode);
        assert_eq!(summary.lines as usize, noise.split(|&b| b == b'\n').count() - usize::from(noise.ends_with(b"\n")));
        let (out2, _) = normalize_str(&out, mode);
        assert_eq!(out, out2);
    }
    // A single 10 MB line: one diagnostic, copied through.
    let mut big = b"8/8/8/8/8/8/8/K6k w - - c0 \"".to_vec();
    big.resize(10 << 20, b'a');
    big.extend_from_slice(b"\";\n");
    let mut out = Vec::new();
    let mut errors = 0;
    let s = run(&big[..], &mut out, &Verb::Check, &Options::default(), |r| errors += r.diagnostics.len()).unwrap();
    assert_eq!((s.records, s.invalid), (1, 1));
    assert!(errors >= 1);
    // Integers beyond i64, strings of 256+ bytes, unterminated strings.
    for (line, code) in [
        (&b"8/8/8/8/8/8/8/K6k w - - acn 99999999999999999999999;"[..], "E019"),
        (b"8/8/8/8/8/8/8/K6k w - - id \"unterminated;", "E014"),
    ] {
        let (_, d) = Record::parse(line, ParseMode::Lenient);
        assert!(d.iter().any(|d| d.code.as_str() == code), "{}: {d:?}", String::from_utf8_lossy(line));
    }
    let long = format!("8/8/8/8/8/8/8/K6k w - - id \"{}\";", "x".repeat(300));
    let (_, d) = Record::parse(long.as_bytes(), ParseMode::Strict);
    assert!(d.iter().any(|d| d.code.as_str() == "E015"));
}
