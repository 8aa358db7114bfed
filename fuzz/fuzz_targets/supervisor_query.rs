#![no_main]
//! The live display's supervisor query (`action=pause&game=3`): its fields
//! become a console command or nothing, and any command reaches a running
//! director without a panic.

use std::path::Path;
use std::time::{Duration, Instant};

use epd_referee::director::{supervisor_command, Config, Director, Input};
use epd_referee::Event;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(query) = std::str::from_utf8(data) else { return };
    let (mut action, mut game, mut result, mut player) = ("", None, None, None);
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "action" => action = v,
            "game" => game = Some(v),
            "result" => result = Some(v),
            "player" => player = Some(v),
            _ => {}
        }
    }
    let Some(command) = supervisor_command(action, game, result, player) else { return };
    assert!(!command.contains('\n'));
    let event = Event::parse(
        "event = \"e\"\ntime_control = \"60\"\n[[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\n",
        Path::new("."),
    )
    .unwrap();
    let config = Config {
        event,
        openings: Vec::new(),
        journal: None,
        date: "2026.11.25".into(),
        own: None,
        web: false,
        measure: false,
    };
    let t0 = Instant::now();
    let mut d = Director::new(config, t0).unwrap();
    d.handle(t0 + Duration::from_millis(1), Input::Supervisor { command, from: "fuzz".into() });
    while d.poll_output().is_some() {}
});
