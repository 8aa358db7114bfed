//! Property tests over generated data (seeded, so every run is the same).
//! What other files cover already is not repeated here: FEN and SAN round
//! trips and generator agreement (roundtrip.rs), normalize idempotence on
//! every corpus file and parallel verbs equal to serial ones
//! (records_corpora.rs), parallel mate equal to serial (mate_corpora.rs),
//! mutated records (records_hostile.rs).

use epd_core::test_hooks::RecordTestHooks as _;
use epd_core::{
    has_errors, perft, perft_divide, Clock, Date, OperandInput, ParseMode, Position, Record, TimeOfDay, Value,
};
use epd_testkit::{random_positions, XorShift};

/// A string of up to 255 bytes from an alphabet rich in what needs care:
/// quotes, backslashes, semicolons, blanks, digits, non-ASCII UTF-8.
fn random_string(rng: &mut XorShift) -> Vec<u8> {
    const PIECES: &[&str] = &["\"", "\\", ";", " ", "a", "Z", "0", "9", "é", "#", "+", "-", "=", "\\\"", "x y"];
    let mut s = Vec::new();
    let want = rng.below(80);
    while s.len() < want {
        let p = PIECES[rng.below(PIECES.len())].as_bytes();
        if s.len() + p.len() > 255 {
            break;
        }
        s.extend_from_slice(p);
    }
    s
}

/// An i64 spread over every magnitude, extremes included.
fn random_integer(rng: &mut XorShift, non_negative: bool) -> i64 {
    let v = match rng.below(6) {
        0 => i64::MAX,
        1 => 0,
        2 => i64::MAX - rng.below(1000) as i64,
        _ => (rng.next() >> rng.below(63)) as i64,
    };
    if non_negative || rng.below(2) == 0 {
        v.abs()
    } else {
        if v == i64::MAX && rng.below(2) == 0 {
            return i64::MIN;
        }
        -v
    }
}

/// What was stored under one opcode, to compare with what is read back.
#[derive(Debug)]
enum Expect {
    Integer(i64),
    Strings(Vec<Vec<u8>>),
    Moves(Vec<String>),
    Text(Vec<String>),
}

/// A record on `pos` with random operations of every operand type; the
/// expectation for each opcode set.
fn random_record(rng: &mut XorShift, pos: &Position) -> (Record, Vec<(&'static str, Expect)>) {
    let mut rec = Record::from_position(pos);
    let mut expect = Vec::new();
    let moves = pos.legal_moves();
    // Integers: acn (non-negative, up to i64::MAX), ce (a centipawn score).
    if rng.below(2) == 0 {
        let v = random_integer(rng, true);
        rec.set("acn", &[OperandInput::Integer(v)]).expect("acn");
        expect.push(("acn", Expect::Integer(v)));
    }
    if rng.below(2) == 0 {
        let v = rng.below(65_535) as i64 - 32_767;
        rec.set("ce", &[OperandInput::Integer(v)]).expect("ce");
        expect.push(("ce", Expect::Integer(v)));
    }
    // Strings with quotes and backslashes.
    for op in ["id", "c0", "c7"] {
        if rng.below(2) == 0 {
            let s = random_string(rng);
            rec.set(op, &[OperandInput::String(&s)]).expect("string");
            expect.push((op, Expect::Strings(vec![s])));
        }
    }
    // Moves: bm (a set of legal moves), pv (a line from the position).
    if !moves.is_empty() && rng.below(2) == 0 {
        let mut chosen: Vec<_> = (0..1 + rng.below(3)).map(|_| moves[rng.below(moves.len())]).collect();
        chosen.sort_by_key(|&m| pos.uci(m));
        chosen.dedup();
        let input: Vec<_> = chosen.iter().map(|&m| OperandInput::Move(m)).collect();
        if rec.set("bm", &input).is_ok() {
            // bm operands are written sorted (§7.1); compare as sets.
            let mut sans: Vec<String> = chosen.iter().map(|&m| pos.san(m)).collect();
            sans.sort();
            sans.dedup();
            expect.push(("bm", Expect::Moves(sans)));
        }
    }
    if !moves.is_empty() && rng.below(2) == 0 {
        let mut p = *pos;
        let mut line = Vec::new();
        let mut sans = Vec::new();
        for _ in 0..1 + rng.below(8) {
            let ms = p.legal_moves();
            if ms.is_empty() {
                break;
            }
            let m = ms[rng.below(ms.len())];
            sans.push(p.san(m));
            line.push(OperandInput::Move(m));
            p.play_unchecked(m);
        }
        rec.set("pv", &line).expect("pv");
        expect.push(("pv", Expect::Text(sans)));
    }
    // Date and time of day (ts), clock (cc: two operands).
    if rng.below(2) == 0 {
        let d =
            Date { year: 1000 + rng.below(9000) as u16, month: 1 + rng.below(12) as u8, day: 1 + rng.below(28) as u8 };
        let t = TimeOfDay { hour: rng.below(24) as u8, minute: rng.below(60) as u8, second: rng.below(60) as u8 };
        rec.set("ts", &[OperandInput::Date(d), OperandInput::TimeOfDay(t)]).expect("ts");
        let text = vec![
            format!("{:04}.{:02}.{:02}", d.year, d.month, d.day),
            format!("{:02}:{:02}:{:02}", t.hour, t.minute, t.second),
        ];
        expect.push(("ts", Expect::Text(text)));
    }
    if rng.below(2) == 0 {
        let clock = |rng: &mut XorShift| Clock {
            days: rng.below(1000) as u16,
            hours: rng.below(24) as u8,
            minutes: rng.below(60) as u8,
            seconds: rng.below(60) as u8,
        };
        let (a, b) = (clock(rng), clock(rng));
        rec.set("cc", &[OperandInput::Clock(a), OperandInput::Clock(b)]).expect("cc");
        let text =
            [a, b].iter().map(|c| format!("{:03}:{:02}:{:02}:{:02}", c.days, c.hours, c.minutes, c.seconds)).collect();
        expect.push(("cc", Expect::Text(text)));
    }
    // Identifiers (an enumerated one) and raw text for an unknown opcode.
    if rng.below(2) == 0 {
        rec.set("noop", &[OperandInput::Identifier("abc_9"), OperandInput::Raw(b"12x")]).expect("noop");
        expect.push(("noop", Expect::Text(vec!["abc_9".into(), "12x".into()])));
    }
    (rec, expect)
}

/// A record built with `set` encodes to text that reads back (in both
/// modes, with no error) to the same canonical text and to the values
/// that were stored.
#[test]
fn generated_records_round_trip_through_canonical_text() {
    let mut rng = XorShift::new(0x7ec0_2d2d);
    let positions = random_positions(31, 40, 80);
    let mut with_escapes = 0;
    for (i, pos) in positions.iter().enumerate() {
        let (rec, expect) = random_record(&mut rng, pos);
        let text = rec.to_canonical();
        with_escapes += usize::from(text.contains(&b'\\'));
        for mode in [ParseMode::Lenient, ParseMode::Strict] {
            let (back, diags) = Record::parse(&text, mode);
            assert!(!has_errors(&diags), "#{i} {mode:?}: {} gives {diags:?}", String::from_utf8_lossy(&text));
            // Encoded, not copied (a canonical line is copied as read).
            let mut encoded = Vec::new();
            back.append_canonical_encoded(&mut encoded);
            assert_eq!(encoded, text, "#{i} {mode:?}");
            // EPD keeps the four position fields, not the FEN counters.
            assert_eq!(back.position().map(Position::epd), Some(pos.epd()), "#{i}");
            for (op, want) in &expect {
                let got = back.get(op).unwrap_or_else(|| panic!("#{i}: {op} lost"));
                match want {
                    Expect::Integer(v) => {
                        assert_eq!(got.operand(0).and_then(|o| o.as_integer()), Some(*v), "#{i} {op}")
                    }
                    Expect::Strings(s) => {
                        let read: Vec<Vec<u8>> = got
                            .operands()
                            .map(|o| match o.value() {
                                Value::String => o.text().to_vec(),
                                other => panic!("#{i} {op}: {other:?}"),
                            })
                            .collect();
                        assert_eq!(&read, s, "#{i} {op}");
                    }
                    Expect::Moves(sans) => {
                        let mut read: Vec<String> = got
                            .operands()
                            .map(|o| pos.san(o.as_move().unwrap_or_else(|| panic!("#{i} {op}: not a move"))))
                            .collect();
                        read.sort();
                        assert_eq!(&read, sans, "#{i} {op}");
                    }
                    Expect::Text(t) => {
                        let read: Vec<String> =
                            got.operands().map(|o| String::from_utf8_lossy(o.text()).into_owned()).collect();
                        assert_eq!(&read, t, "#{i} {op}");
                    }
                }
            }
        }
    }
    assert!(with_escapes > 50, "only {with_escapes} records with escapes");
}

/// perft(d) is the sum of its divide, and perft(1) the number of legal
/// moves, on positions from random play.
#[test]
fn perft_equals_the_sum_of_its_divide() {
    let positions = random_positions(4242, 30, 60);
    for (i, pos) in positions.iter().enumerate().step_by(7) {
        assert_eq!(perft(pos, 1), pos.legal_moves().len() as u64, "#{i} {}", pos.fen());
        for depth in 1..=3 {
            let divide = perft_divide(pos, depth);
            assert_eq!(divide.len(), pos.legal_moves().len(), "#{i}");
            // Each entry is the perft of the child one level shallower.
            for &(m, n) in divide.iter().take(3) {
                assert_eq!(n, perft(&pos.played(m), depth - 1), "#{i} {}", pos.uci(m));
            }
            let sum: u64 = divide.iter().map(|&(_, n)| n).sum();
            assert_eq!(perft(pos, depth), sum, "#{i} depth {depth} {}", pos.fen());
        }
    }
}
