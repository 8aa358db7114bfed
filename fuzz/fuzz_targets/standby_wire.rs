#![no_main]
//! The hot standby's lines: a hello (with and without the event's token),
//! the primary's lines to its standby, and acknowledgements. No panic; a
//! follow names an address; a commit and an ack written back read back.
//! The same bytes, as lines, drive the standby's follower: a commit hands
//! over exactly the entries since the copy's start or the last commit.

use epd_referee::standby::wire::{parse_ack, parse_from_primary, parse_hello, reachable, FromPrimary, Hello};
use epd_referee::standby::follower::{Follower, Step};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for token in [None, Some("s3cret")] {
        if let Ok(Hello::Follow { listen, heartbeat }) = parse_hello(data, token) {
            assert!(listen.parse::<std::net::SocketAddr>().is_ok());
            assert!((100..=60_000).contains(&heartbeat.as_millis()));
            let _ = reachable(&listen, "10.0.0.1:5");
        }
    }
    match parse_from_primary(data) {
        Ok(FromPrimary::Commit(n)) => assert_eq!(parse_from_primary(format!("C {n}").as_bytes()), Ok(FromPrimary::Commit(n))),
        Ok(FromPrimary::Entry(e)) => assert_eq!(e.len() + 2, data.len()),
        _ => {}
    }
    if let Some(n) = parse_ack(data) {
        assert_eq!(parse_ack(format!("A {n}").as_bytes()), Some(n));
    }
    let t0 = std::time::Instant::now();
    let mut f = Follower::new(std::time::Duration::from_secs(2), t0);
    f.connected();
    let mut expect: Option<Vec<Vec<u8>>> = None;
    for (i, line) in data.split(|&b| b == b'\n').enumerate() {
        let now = t0 + std::time::Duration::from_millis(i as u64);
        let step = f.on_line(now, line);
        match (&step, parse_from_primary(line)) {
            (Step::Restart, Ok(FromPrimary::Restart)) => expect = Some(Vec::new()),
            (Step::Nothing, Ok(FromPrimary::Entry(e))) => expect.as_mut().expect("an entry while copying").push(e.to_vec()),
            (Step::Commit { seq, entries }, Ok(FromPrimary::Commit(n))) => {
                assert_eq!(*seq, n);
                assert_eq!(Some(entries), expect.as_ref());
                expect = Some(Vec::new());
                f.committed();
                assert!(f.deadline(now) > now);
            }
            (Step::Alive, Ok(FromPrimary::Heartbeat)) => {}
            (Step::End(_), _) => {
                f.connected();
                expect = None;
            }
            (s, p) => panic!("line {line:?}: {s:?} for {p:?}"),
        }
    }
});
