#![no_main]
//! The director fed hostile clients: the input is a script of steps (a
//! byte picks the connection, the kind of step and a pause; lines run to
//! the next newline). Every record the director sends reads back, every
//! append it asks for holds JSON entries, and it never panics, whatever
//! the bytes.

use std::path::Path;
use std::time::{Duration, Instant};

use epd_referee::director::{Config, Director, Input, Output};
use epd_referee::protocol::parse_command;
use epd_referee::Event;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let event = Event::parse(
        "event = \"e\"\ntime_control = \"5+0.1\"\nreset_delay = 0\nconclude_delay = 0\ndisconnect_grace = 1\n\
         supervisor_token = \"sup\"\n[[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\ntoken = \"t\"\n",
        Path::new("."),
    )
    .unwrap();
    let config = Config {
        event,
        openings: Vec::new(),
        journal: None,
        date: "2026.11.25".into(),
        own: None,
        web: true,
        measure: false,
    };
    let t0 = Instant::now();
    let mut now = Duration::ZERO;
    let mut d = Director::new(config, t0).unwrap();
    let mut rest = data;
    let mut steps = 0;
    while let Some((&op, tail)) = rest.split_first() {
        steps += 1;
        if steps > 400 {
            break;
        }
        let id = u64::from(op & 3) + 1;
        let end = tail.iter().position(|&b| b == b'\n').unwrap_or(tail.len());
        let (line, after) = (&tail[..end], tail.get(end + 1..).unwrap_or(&[]));
        rest = after;
        now += Duration::from_millis(u64::from(op >> 4) * 37);
        let at = t0 + now;
        match (op >> 2) & 3 {
            0 => d.handle(at, Input::Connected { id, peer: format!("fuzz:{id}") }),
            1 => d.handle(at, Input::Line { id, line: line.to_vec(), at }),
            2 => d.handle(at, Input::Closed { id, why: "fuzz".into() }),
            _ => d.handle_timeout(at),
        }
        while let Some(o) = d.poll_output() {
            match o {
                Output::Send { line, id, .. } if id <= 4 => {
                    if !line.starts_with(b"F ") && !line.starts_with(b"P ") && line != b"D" && !line.starts_with(b"R\n") && !line.starts_with(b"J ") && !line.starts_with(b"C ") && line != b"H" && line != b"E" && line != b"Q" {
                        parse_command(&line).unwrap_or_else(|e| panic!("a record that does not read: {e}: {}", String::from_utf8_lossy(&line)));
                    }
                }
                Output::Append { seq, entries } => {
                    for e in &entries {
                        serde_json::from_slice::<serde_json::Value>(e).expect("a JSON entry");
                    }
                    d.handle(at, Input::Synced { seq });
                }
                _ => {}
            }
        }
    }
});
