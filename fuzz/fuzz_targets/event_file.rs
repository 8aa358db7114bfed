#![no_main]
//! The event file (TOML): any text is read or refused with an error, and
//! an event that reads has a schedule for any number of openings.

use std::path::Path;

use epd_referee::Event;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match Event::parse(text, Path::new("/fuzz")) {
        Ok(e) => {
            for openings in [0, 1, 7] {
                let s = e.schedule(openings);
                assert!(s.iter().all(|g| g.white != g.black && g.white < e.players.len() && g.black < e.players.len()));
            }
        }
        Err(err) => assert!(!err.to_string().is_empty()),
    }
});
