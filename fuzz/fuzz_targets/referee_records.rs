#![no_main]
//! The referee's protocol, both ways: bytes as a client's record
//! (`parse_request`, what the referee reads from the network) and as a
//! referee's record (`parse_command`, what `epd play` and the C ABI's
//! client read). No panic; a reply that reads is written back by the
//! client's writer and reads again to the same request.

use epd_referee::protocol::{parse_command, parse_request, ClientRecord, Request};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(Request::Reply(r)) = parse_request(data) {
        let mut flags = Vec::new();
        for (on, name) in [
            (r.draw_offer, "draw_offer"),
            (r.draw_accept, "draw_accept"),
            (r.draw_reject, "draw_reject"),
            (r.draw_claim, "draw_claim"),
            (r.resign, "resign"),
        ] {
            if on {
                flags.push(name);
            }
        }
        let line = ClientRecord {
            request: "reply",
            sm: r.mv,
            game: r.game,
            flags: &flags,
            eval: r.eval.clone(),
            ..ClientRecord::default()
        }
        .to_line(&r.position);
        match parse_request(&line) {
            Ok(Request::Reply(back)) => {
                assert_eq!((back.mv, back.game, back.resign, back.draw_claim), (r.mv, r.game, r.resign, r.draw_claim));
                assert_eq!(back.eval, r.eval, "the engine's score, depth and nodes");
                assert_eq!(back.position.fen(), r.position.fen());
            }
            other => panic!("a reply written back does not read: {other:?}: {}", String::from_utf8_lossy(&line)),
        }
    }
    if let Ok(inc) = parse_command(data) {
        // The position to move from is reachable from what was read.
        let _ = inc.current();
    }
});
