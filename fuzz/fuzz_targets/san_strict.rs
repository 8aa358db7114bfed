#![no_main]
//! SAN decoding in strict mode on positions from random legal play.

use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let (pos, text) = common::position_from_play(data);
    common::check_san(pos, text, epd_core::SanMode::Strict);
});
