#![no_main]
//! The journal: bytes after the magic as a journal file (decode, as after
//! a crash), its whole entries re-encoded to exactly the bytes read, and
//! replayed by a director resuming a fixed event. No panic; a journal
//! that does not replay is refused with an error.

use std::path::Path;
use std::time::Instant;

use epd_referee::director::{Config, Director};
use epd_referee::journal::{decode, encode, MAGIC};
use epd_referee::Event;
use libfuzzer_sys::fuzz_target;

const EVENT: &str = "event = \"e\"\ntime_control = \"60+1\"\nrounds = 2\n\
[[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\n[[players]]\nname = \"c\"\n";

fuzz_target!(|data: &[u8]| {
    let mut bytes = MAGIC.to_vec();
    bytes.extend_from_slice(data);
    let Ok((entries, end)) = decode(Path::new("fuzz"), &bytes) else { return };
    assert!(end <= bytes.len());
    let refs: Vec<&[u8]> = entries.iter().map(Vec::as_slice).collect();
    let mut again = MAGIC.to_vec();
    encode(&refs, &mut again).unwrap();
    assert_eq!(again, bytes[..end], "re-encoded entries differ from the bytes read");
    let event = Event::parse(EVENT, Path::new(".")).unwrap();
    let config = Config {
        event,
        openings: Vec::new(),
        journal: Some(entries),
        date: "2026.11.25".into(),
        own: None,
        web: true,
        measure: false,
    };
    if let Ok(mut d) = Director::new(config, Instant::now()) {
        while d.poll_output().is_some() {}
    }
});
