#![no_main]
//! The hot standby's lines: a hello (with and without the event's token),
//! the primary's lines to its standby, and acknowledgements. No panic; a
//! follow names an address; a commit and an ack written back read back.

use epd_referee::standby::wire::{parse_ack, parse_from_primary, parse_hello, reachable, FromPrimary, Hello};
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
});
