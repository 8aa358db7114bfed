//! The director's decisions, driven input by input with a virtual clock:
//! no socket, no sleep. Each test is a defect a hostile client found, or a
//! rule of §8, pinned.

use std::path::Path;
use std::time::{Duration, Instant};

use epd_core::Position;
use epd_referee::book::Opening;
use epd_referee::director::{Config, ConnId, Director, Input, Output, Reach};
use epd_referee::journal::entry::Entry;
use epd_referee::protocol::{parse_command, ClientRecord, Command, Incoming};
use epd_referee::Event;

/// A director for two players `a` and `b` (a double game), its outputs
/// collected and its appends acknowledged as durable at once.
struct Bench {
    d: Director,
    t0: Instant,
    now: Duration,
    sent: Vec<(ConnId, Incoming)>,
    /// Lines that are not records (the standby protocol's).
    raw: Vec<(ConnId, String)>,
    outputs: Vec<String>,
    entries: Vec<Entry>,
    notes: Vec<String>,
}

impl Bench {
    fn new(extra: &str) -> Bench {
        Bench::of_event(&format!(
            "event = \"t\"\ntime_control = \"60+0\"\nreset_delay = 0\nconclude_delay = 0\n{extra}\n\
             [[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\n"
        ))
    }

    /// A director for the event file `text`.
    fn of_event(text: &str) -> Bench {
        Bench::with_openings(text, Vec::new())
    }

    /// A director for the event file `text`, its book's positions given.
    fn with_openings(text: &str, openings: Vec<Position>) -> Bench {
        Bench::resumed(text, openings.into_iter().map(Into::into).collect(), None)
    }

    /// A director for the event file `text`, its book's openings given,
    /// resumed from the journal's `entries` if any.
    fn resumed(text: &str, openings: Vec<Opening>, entries: Option<&[Entry]>) -> Bench {
        let event = Event::parse(text, Path::new(".")).unwrap();
        let journal = entries.map(|es| es.iter().map(|e| serde_json::to_vec(e).unwrap()).collect());
        let config =
            Config { event, openings, journal, date: "2026.11.25".into(), own: None, web: false, measure: false };
        let t0 = Instant::now();
        let d = Director::new(config, t0).unwrap();
        let mut b = Bench {
            d,
            t0,
            now: Duration::ZERO,
            sent: Vec::new(),
            raw: Vec::new(),
            outputs: Vec::new(),
            entries: Vec::new(),
            notes: Vec::new(),
        };
        b.run();
        b
    }

    fn run(&mut self) {
        loop {
            while let Some(o) = self.d.poll_output() {
                self.outputs.push(format!("{o:?}"));
                match o {
                    Output::Send { id, line, .. } => match parse_command(&line) {
                        Ok(r) => self.sent.push((id, r)),
                        Err(_) => self.raw.push((id, String::from_utf8_lossy(&line).into_owned())),
                    },
                    Output::Append { seq, entries, .. } => {
                        self.entries.extend(entries.iter().map(|e| serde_json::from_slice(e).unwrap()));
                        let at = self.t0 + self.now;
                        self.d.handle(at, Input::Synced { seq });
                    }
                    Output::Note(n) => self.notes.push(n),
                    _ => {}
                }
            }
            match self.d.poll_timeout() {
                Some(t) if t <= self.t0 + self.now => self.d.handle_timeout(self.t0 + self.now),
                _ => return,
            }
        }
    }

    fn after(&mut self, ms: u64) {
        self.now += Duration::from_millis(ms);
        self.run();
    }

    fn input(&mut self, i: Input) {
        self.d.handle(self.t0 + self.now, i);
        self.run();
    }

    fn line(&mut self, id: ConnId, line: Vec<u8>) {
        let at = self.t0 + self.now;
        self.input(Input::Line { id, line, at });
    }

    fn sign_on(&mut self, id: ConnId, name: &str) {
        self.input(Input::Connected { id, peer: format!("test:{id}"), reach: Reach::Remote });
        let rec = ClientRecord { request: "sign_on", sender: Some(("test", name)), ..ClientRecord::default() };
        self.line(id, rec.to_line(&Position::startpos()));
    }

    /// The last record sent to `id`.
    fn last(&self, id: ConnId) -> &Incoming {
        &self.sent.iter().rev().find(|(i, _)| *i == id).expect("a record").1
    }

    fn reply(&mut self, id: ConnId, game: Option<u64>, uci: &str) {
        let pos = self.last(id).current();
        let mv = pos.parse_uci(uci.as_bytes()).unwrap();
        let rec = ClientRecord { request: "reply", sm: Some(mv), game, ..ClientRecord::default() };
        self.line(id, rec.to_line(&pos));
    }

    fn moves(&self) -> usize {
        self.charged().len()
    }

    /// The time charged for each move journalled, in nanoseconds.
    fn charged(&self) -> Vec<u64> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                Entry::Move { ns, .. } => Some(*ns),
                _ => None,
            })
            .collect()
    }

    fn ends(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                Entry::End { result, .. } => Some(result.clone()),
                _ => None,
            })
            .collect()
    }
}

#[test]
fn a_reply_naming_another_game_is_refused_and_touches_no_game() {
    let mut b = Bench::new("");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    assert_eq!(b.last(1).command, Command::Respond, "a is White in game 1");
    b.reply(1, Some(9999), "e2e4");
    let fault = b.last(1);
    assert_eq!(fault.command, Command::Fault);
    assert!(fault.message.as_deref().unwrap_or("").contains("game 9999"), "{fault:?}");
    assert_eq!((b.moves(), b.ends().len()), (0, 0), "no move played, no game over");
    // The same move, for its game, is played.
    let sent = b.sent.len();
    b.after(5);
    b.line(1, {
        let pos = Position::startpos();
        let mv = pos.parse_uci(b"e2e4").unwrap();
        ClientRecord { request: "reply", sm: Some(mv), game: Some(1), ..ClientRecord::default() }.to_line(&pos)
    });
    assert_eq!(b.moves(), 1);
    assert!(b.sent[sent..].iter().any(|(id, r)| *id == 2 && r.command == Command::Respond));
}

#[test]
fn a_late_reply_after_an_adjudication_costs_nothing() {
    let mut b = Bench::new("");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    b.reply(1, Some(1), "e2e4");
    // Black thinks; the supervisor adjudicates meanwhile; game 2 starts
    // (b White, a Black) at once.
    b.input(Input::Console("adjudicate 1 1/2-1/2".into()));
    assert_eq!(b.ends(), ["1/2-1/2"]);
    b.after(1);
    assert_eq!(b.last(2).command, Command::Respond, "game 2: b is White, and asked");
    // b's late reply as Black in game 1 reaches the referee now: with its
    // game's number, then without (its position is not game 2's).
    let pos = {
        let mut p = Position::startpos();
        p.play_unchecked(p.parse_uci(b"e2e4").unwrap());
        p
    };
    let late = ClientRecord {
        request: "reply",
        sm: Some(pos.parse_uci(b"e7e5").unwrap()),
        game: Some(1),
        ..ClientRecord::default()
    };
    b.line(2, late.to_line(&pos));
    assert_eq!(b.last(2).command, Command::Fault, "refused with a fault");
    b.line(2, ClientRecord { game: None, ..late }.to_line(&pos));
    assert_eq!(b.last(2).command, Command::Fault, "refused with a fault");
    assert_eq!(b.ends(), ["1/2-1/2"], "game 2 goes on");
    assert_eq!(b.moves(), 1);
}

#[test]
fn a_blank_line_is_ignored_even_on_move() {
    let mut b = Bench::new("illegal_move = \"forfeit\"");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    let sent = b.sent.len();
    for blank in [&b""[..], b"   ", b"\r", b"\t \r"] {
        b.line(1, blank.to_vec());
    }
    assert_eq!(b.sent.len(), sent, "no fault, nothing sent");
    assert!(b.ends().is_empty());
    b.reply(1, None, "d2d4");
    assert_eq!(b.moves(), 1);
}

#[test]
fn a_client_that_asks_for_a_heartbeat_hears_one_when_nothing_else_comes() {
    let mut b = Bench::new("");
    b.input(Input::Connected { id: 1, peer: "test:1".into(), reach: Reach::Remote });
    let hello = ClientRecord {
        request: "sign_on",
        sender: Some(("t", "a")),
        heartbeat_ms: Some(500),
        ..ClientRecord::default()
    };
    b.line(1, hello.to_line(&Position::startpos()));
    b.input(Input::Connected { id: 2, peer: "test:2".into(), reach: Reach::Remote });
    // Alone, a is sent nothing: a blank line every 500 ms.
    b.after(499);
    assert!(b.raw.is_empty());
    b.after(1);
    assert_eq!(b.raw, [(1, String::new())], "a heartbeat after 500 ms of silence");
    b.after(500);
    assert_eq!(b.raw.len(), 2);
    // b (no heartbeat asked) signs on: the game starts; a record to a
    // moves its next heartbeat on.
    let hello = ClientRecord { request: "sign_on", sender: Some(("t", "b")), ..ClientRecord::default() };
    b.line(2, hello.to_line(&Position::startpos()));
    b.after(450);
    assert_eq!(b.raw.len(), 2, "records went out: no heartbeat due yet");
    b.after(10_000);
    assert!(b.raw.iter().all(|(id, _)| *id == 1), "only the client that asked hears heartbeats");
}

#[test]
fn a_flag_falls_on_the_virtual_clock() {
    let mut b = Bench::new("");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    b.after(59_999);
    assert!(b.ends().is_empty(), "a minute is not up");
    b.after(1);
    assert_eq!(b.ends(), ["0-1"], "White's flag falls at 60 s exactly");
}

/// A client that never answers loses when its time and the lag run out,
/// to the instant: the director asks to be woken then, not at its next
/// input. (The process test `a_silent_client_loses_on_time_when_its_flag_falls`
/// shows the runtime keeps that appointment over TCP; the instant itself
/// is checked here, on the virtual clock.)
#[test]
fn a_silent_clients_flag_falls_when_its_time_and_the_lag_run_out() {
    let mut b = Bench::of_event(
        "event = \"t\"\ntime_control = \"0.5+0\"\nlag_ms = 20\nreset_delay = 0\nconclude_delay = 0\n\
         [[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\n",
    );
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    assert_eq!(b.last(1).command, Command::Respond, "White is asked at once");
    assert_eq!(b.d.poll_timeout(), Some(b.t0 + Duration::from_millis(520)), "woken when the flag falls");
    b.after(519);
    assert!(b.ends().is_empty(), "0.5 s and the 20 ms lag are not up");
    b.after(1);
    assert_eq!(b.ends(), ["0-1"], "White's flag falls at 520 ms exactly");
    let concluded: Vec<ConnId> =
        b.sent.iter().filter(|(_, r)| r.command == Command::Conclude).map(|(id, _)| *id).collect();
    assert_eq!(concluded, [1, 2], "both told the game is over");
}

#[test]
fn time_is_charged_from_the_respond_going_out() {
    let mut b = Bench::new("lag_ms = 10");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    b.after(250);
    b.reply(1, None, "e2e4");
    assert_eq!(b.charged(), [240_000_000], "250 ms less the 10 ms lag");
}

/// The supervisor's pause stops the clock of the side to move; a move
/// played during the pause waits, and the opponent is asked only when
/// the game is resumed; each move is charged its time up to the pause.
#[test]
fn a_pause_stops_the_clock_and_holds_the_opponent() {
    let mut b = Bench::new("");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    b.after(100);
    b.input(Input::Console("pause 1".into()));
    b.after(5_000);
    let sent = b.sent.len();
    b.reply(1, None, "e2e4");
    b.after(1_000);
    assert!(
        !b.sent[sent..].iter().any(|(id, r)| *id == 2 && r.command == Command::Respond),
        "b is not asked during the pause"
    );
    b.input(Input::Console("resume 1".into()));
    let r = b.last(2);
    assert_eq!((r.command, r.consumed.map(|c| c.0)), (Command::Respond, Some(100)), "asked at the resume");
    // A pause between moves: b's clock stops too.
    b.after(200);
    b.input(Input::Console("pause all".into()));
    b.after(3_000);
    b.reply(2, None, "e7e5");
    b.after(500);
    b.input(Input::Console("resume all".into()));
    assert_eq!(b.last(1).command, Command::Respond);
    assert_eq!(b.charged(), [100_000_000, 200_000_000], "each move is charged up to its pause");
    assert!(b.notes.iter().any(|n| n.contains("game 1 paused by the supervisor")), "{:?}", b.notes);
}

/// Both players of a game drop out while the side to move is thinking,
/// and the side to move comes back first. When the other comes back, the
/// side to move is asked again on its new connection; the respond sent
/// to its old one counts for nothing. (The game stalled before: the
/// referee took the old respond for a live one.)
#[test]
fn both_players_away_the_mover_back_first_is_asked_again() {
    let mut b = Bench::new("disconnect_grace = 10");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    b.reply(1, None, "d2d4");
    assert_eq!(b.last(2).command, Command::Respond);
    b.input(Input::Closed { id: 2, why: "gone".into() });
    b.input(Input::Closed { id: 1, why: "gone".into() });
    b.after(300);
    b.sign_on(3, "b");
    b.after(300);
    b.sign_on(4, "a");
    b.after(10);
    let r = b.last(3).clone();
    assert_eq!(r.command, Command::Respond, "b is asked again");
    assert_eq!(r.position.san(r.sm.expect("the last move")), "d4");
    let pos = r.current();
    b.line(3, ClientRecord { request: "reply", flags: &["resign"], ..ClientRecord::default() }.to_line(&pos));
    assert_eq!(b.ends(), ["1-0"]);
    assert_eq!(b.moves(), 1);
}

/// The director (and the standby's follower) take decisions only: no
/// runtime, no file, no socket, no clock, no printing, no process or
/// thread in any of their files. Its
/// imports run down (core, game, journal entries, standby lines), never
/// up to the runtime.
#[test]
fn the_director_does_no_io() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/director");
    let mut files = 0;
    let follower = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/standby/follower.rs");
    let paths = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path());
    for path in paths.chain([follower]) {
        let text = std::fs::read_to_string(&path).unwrap();
        // Unit tests may take a base instant from the clock.
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        files += 1;
        for banned in [
            "tokio",
            "std::fs",
            "std::net",
            "std::io::Write",
            "Instant::now",
            "SystemTime",
            "println!",
            "eprintln!",
            "print!(",
            "std::process",
            "std::thread",
            "crate::runtime",
            "HashMap",
        ] {
            assert!(!text.contains(banned), "{} uses {banned}", path.display());
        }
    }
    assert!(files >= 6, "the director's files: {files}");
    // Nothing below the runtime reaches up into it.
    for sub in ["journal", "standby"] {
        for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(sub)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(!text.contains("crate::runtime") && !text.contains("tokio"), "{} reaches up", path.display());
        }
    }
}

/// With a hot standby, every record waits for the standby's
/// acknowledgement of a batch sent after it (an empty batch when the
/// turn wrote no entry); a referee whose standby is gone asks it, and
/// steps down without sending anything when it took over.
#[test]
fn with_a_standby_nothing_goes_out_unacknowledged_and_a_superseded_referee_sends_nothing() {
    let mut b = Bench::new("supervisor_token = \"sup\"");
    b.input(Input::Connected { id: 9, peer: "127.0.0.1:5000".into(), reach: Reach::Remote });
    b.line(9, b"EPDKIT-STANDBY follow token=sup listen=127.0.0.1:7000 heartbeat_ms=2000".to_vec());
    assert!(b.outputs.iter().any(|o| o.contains("CopyJournal")), "the standby gets the journal");
    let acks = |b: &Bench| b.raw.iter().filter(|(id, l)| *id == 9 && l.starts_with('C')).count();
    let ack_last = |b: &mut Bench| {
        let n = b
            .raw
            .iter()
            .rev()
            .find(|(id, l)| *id == 9 && l.contains("C "))
            .map(|(_, l)| l.lines().last().unwrap().trim_start_matches("C ").to_owned());
        b.line(9, format!("A {}", n.unwrap()).into_bytes());
    };
    ack_last(&mut b);
    // A stranger's garbage: its fault (no journal entry) waits for an
    // acknowledgement all the same.
    b.input(Input::Connected { id: 3, peer: "test:3".into(), reach: Reach::Remote });
    let before = acks(&b);
    b.line(3, b"garbage".to_vec());
    assert!(b.sent.iter().all(|(id, _)| *id != 3), "nothing to #3 before the standby acknowledges");
    assert_eq!(acks(&b), before + 1, "an empty batch went to the standby");
    ack_last(&mut b);
    assert_eq!(b.last(3).command, Command::Fault, "released by the acknowledgement");
    // Frozen meanwhile, the referee finds its standby gone and its
    // records unacknowledged: it asks, hears a newer epoch, steps down.
    let faults = b.sent.len();
    b.line(3, b"more garbage".to_vec());
    b.input(Input::Closed { id: 9, why: "reset".into() });
    assert!(b.outputs.iter().any(|o| o.contains("Probe")), "it asks the standby");
    b.input(Input::Probed(Some(7)));
    assert_eq!(b.sent.len(), faults, "nothing sent by the superseded referee");
    assert!(b.outputs.last().unwrap().contains("SteppedDown"), "{:?}", b.outputs.last());
}

impl Bench {
    /// A reply with its engine's score from the mover's side (`ce`) and
    /// depth 12.
    fn reply_scored(&mut self, id: ConnId, uci: &str, ce: i32) {
        let pos = self.last(id).current();
        let mv = pos.parse_uci(uci.as_bytes()).unwrap();
        let eval = Some(epd_referee::protocol::Eval { ce, depth: Some(12), nodes: Some(5000), pv: vec![mv] });
        let rec = ClientRecord { request: "reply", sm: Some(mv), game: Some(1), eval, ..ClientRecord::default() };
        self.line(id, rec.to_line(&pos));
    }

    /// Knight moves back and forth in game 1 (a White on 1, b Black on
    /// 2), each side's replies scored as given, until `plies` are played
    /// or the game ends; returns the plies played.
    fn shuffle(&mut self, plies: usize, white: i32, black: i32) -> usize {
        let moves = ["g1f3", "g8f6", "f3g1", "f6g8"];
        for i in 0..plies {
            if !self.ends().is_empty() {
                return i;
            }
            let (id, ce) = if i % 2 == 0 { (1, white) } else { (2, black) };
            self.after(1);
            self.reply_scored(id, moves[i % 4], ce);
        }
        plies
    }

    /// The last game's PGN, its lines joined by spaces (comments wrap).
    fn last_pgn(&self) -> String {
        let pgn = self
            .entries
            .iter()
            .rev()
            .find_map(|e| match e {
                Entry::End { pgn, .. } => Some(pgn.clone()),
                _ => None,
            })
            .unwrap_or_default();
        pgn.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// resign_adjudication: the side whose last three replies scored -600 or
/// less loses at its third; two-sided, only when its opponent agrees.
#[test]
fn resign_adjudication_one_and_two_sided() {
    let mut b = Bench::new("resign_adjudication = { movecount = 3, score = 600 }");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    assert_eq!(b.shuffle(10, -700, 50), 5, "White's third scored move ends the game");
    assert_eq!(b.ends(), ["0-1"]);
    let pgn = b.last_pgn();
    assert!(pgn.contains("[Termination \"adjudication\"]"), "{pgn}");
    assert!(pgn.contains("White resigns, its engine's score -600 cp or less for 3 moves"), "{pgn}");
    assert!(pgn.contains("{-7.00/12 0.001s [%clk"), "cutechess's score beside the clock: {pgn}");
    assert!(pgn.contains("{+0.50/12 0.001s [%clk"), "{pgn}");

    let mut b = Bench::new("resign_adjudication = { movecount = 3, score = 600, twosided = true }");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    assert_eq!(b.shuffle(12, -700, 100), 12, "Black does not agree: no adjudication");
    assert!(b.ends().is_empty());
    let mut b = Bench::new("resign_adjudication = { movecount = 3, score = 600, twosided = true }");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    // fastchess's rule: six plies in a row scored 600 or more from 0;
    // at the sixth Black (+650) moved, so White loses at its next move.
    assert_eq!(b.shuffle(12, -700, 650), 7, "six agreeing plies, then White's own");
    assert_eq!(b.ends(), ["0-1"]);
    assert!(b.last_pgn().contains("White resigns, both engines' scores 600 cp or more from 0 for 3 moves"));
}

/// draw_adjudication from move movenumber, both sides within the score
/// (one side outside: no draw); max_moves ends a long game.
#[test]
fn draw_adjudication_and_max_moves() {
    let mut b = Bench::new("draw_adjudication = { movenumber = 3, movecount = 2, score = 20 }");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    // fastchess's units: the board's move number less one must reach
    // 3, which it does after ply 6 (move number 4), the last four plies
    // scored within 20.
    assert_eq!(b.shuffle(10, 10, -10), 6);
    assert_eq!(b.ends(), ["1/2-1/2"]);
    assert!(b.last_pgn().contains("a draw, both engines' scores within 20 cp for 2 moves"), "{}", b.last_pgn());

    let mut b = Bench::new("draw_adjudication = { movenumber = 3, movecount = 2, score = 20 }");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    assert_eq!(b.shuffle(6, 10, 30), 6, "Black's scores are outside: no draw");
    assert!(b.ends().is_empty());

    let mut b = Bench::new("max_moves = 3");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    assert_eq!(b.shuffle(10, 0, 0), 6);
    assert_eq!(b.ends(), ["1/2-1/2"]);
    assert!(b.last_pgn().contains("a draw, the game reached 3 moves"), "{}", b.last_pgn());
}

/// draw_adjudication counts no score from before the last capture or
/// pawn move, as fastchess's counter restarts there: four drawish plies
/// in a row end in a pawn move, so three more are needed.
#[test]
fn draw_adjudication_restarts_at_a_pawn_move() {
    let mut b = Bench::new("draw_adjudication = { movenumber = 0, movecount = 2, score = 20 }");
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    let mut played = 0;
    for (i, uci) in ["g1f3", "g8f6", "f3g1", "e7e5", "g1f3", "b8c6", "f3g1", "c6b8"].iter().enumerate() {
        if !b.ends().is_empty() {
            break;
        }
        b.after(1);
        b.reply_scored(if i % 2 == 0 { 1 } else { 2 }, uci, 5);
        played += 1;
    }
    assert_eq!(played, 7, "the pawn move at ply 4 starts the run: plies 4 to 7");
    assert_eq!(b.ends(), ["1/2-1/2"]);
}

/// Time odds: a player's own time_control is its clock's, its inform's
/// TimeControl, and the PGN's WhiteTimeControl or BlackTimeControl.
#[test]
fn time_odds_give_each_side_its_own_clock() {
    let text = "event = \"t\"\ntime_control = \"60+1\"\nreset_delay = 0\nconclude_delay = 0\n\
                max_moves = 1\n[[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\ntime_control = \"30\"\n";
    let mut b = Bench::of_event(text);
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    // Each side's inform names its own control.
    let informs: Vec<(ConnId, String)> = b
        .sent
        .iter()
        .filter(|(_, r)| r.command == Command::Inform)
        .map(|(id, r)| (*id, r.tags.iter().find(|(k, _)| k == "TimeControl").unwrap().1.clone()))
        .collect();
    assert_eq!(informs, [(1, "60+1".to_owned()), (2, "30".to_owned())]);
    // The clocks: White 60 s, Black 30 s, as the respond says.
    assert_eq!(b.last(1).remaining, Some((60_000, 30_000)), "{:?}", b.last(1));
    b.after(1000);
    b.reply_scored(1, "e2e4", 0);
    assert_eq!(b.last(2).remaining, Some((60_000, 30_000)), "White 60 - 1 + 1 s; {:?}", b.last(2));
    b.after(2000);
    b.reply_scored(2, "e7e5", 0);
    assert_eq!(b.ends(), ["1/2-1/2"], "max_moves = 1");
    let pgn = b.last_pgn();
    assert!(pgn.contains("[WhiteTimeControl \"60+1\"] [BlackTimeControl \"30\"] "), "{pgn}");
    assert!(!pgn.contains("[TimeControl "), "{pgn}");
    assert!(pgn.contains("e5 {0.00/12 2.000s [%clk 0:00:28] [%emt 0:00:02]}"), "{pgn}");
}

/// Chess960 (here Double Fischer Random: the sides' back ranks differ):
/// the informs say `Variant "Chess960"`, castling on both wings is taken
/// in king-takes-rook form (`b1a1`: the king's one-square move to c1
/// would read the same in standard form; `g8h8`: the king does not
/// move), sent on as SAN, and the PGN has the variant and the start.
#[test]
fn chess960_castling_on_both_wings() {
    let start: Position = "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w GAhb - 0 1".parse().unwrap();
    let text = "event = \"t\"\ntime_control = \"60+0\"\nreset_delay = 0\nconclude_delay = 0\nmax_moves = 1\n\
                variant = \"fischerandom\"\n[[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\n";
    let mut b = Bench::with_openings(text, vec![start]);
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    let informs = b.sent.iter().filter(|(_, r)| r.command == Command::Inform).count();
    let chess960 = b
        .sent
        .iter()
        .filter(|(_, r)| r.command == Command::Inform && r.tags.iter().any(|(k, v)| k == "Variant" && v == "Chess960"))
        .count();
    assert_eq!((informs, chess960), (2, 2), "both players are told");
    b.after(1);
    b.reply(1, Some(1), "b1a1");
    let to_black = b.last(2);
    let mv = to_black.sm.expect("White's move comes with the respond");
    assert!(mv.is_castle(), "{mv:?}");
    assert_eq!(to_black.current().fen(), "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/2KR2R1 b kq - 1 1");
    b.after(1);
    b.reply(2, Some(1), "g8h8");
    assert_eq!(b.ends(), ["1/2-1/2"], "max_moves = 1");
    let pgn = b.last_pgn();
    assert!(
        pgn.contains(
            "[Variant \"Chess960\"] [SetUp \"1\"] [FEN \"1r4kr/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w KQkq - 0 1\"]"
        ),
        "{pgn}"
    );
    assert!(pgn.contains("1. O-O-O {") && pgn.contains("1... O-O {"), "{pgn}");
}

/// A PGN book's opening (1. e4 e5 2. Nf3 Nc6 3. Bb5): the game begins
/// with its moves, sent before the first respond as `execute`s from the
/// book game's start (so that a player's engine is sent `position
/// startpos moves e2e4 ...`, as fastchess sends it), and the informs
/// say how many (`BookPlies`). The clocks start with the players' moves,
/// `max_moves` counts those only, the PGN writes the book's moves with
/// `{book}` and counts them in `PlyCount`; a referee resumed from the
/// journal plays the same game on.
#[test]
fn a_pgn_books_moves_begin_the_game() {
    let start = Position::startpos();
    let mut pos = start;
    let book: Vec<epd_core::Move> = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]
        .iter()
        .map(|u| {
            let m = pos.parse_uci(u.as_bytes()).unwrap();
            pos.play_unchecked(m);
            m
        })
        .collect();
    let opening = Opening { start, moves: book.clone() };
    let text = "event = \"t\"\ntime_control = \"60+0\"\nreset_delay = 0\nconclude_delay = 0\nmax_moves = 2\n\
                [[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\n";
    let mut b = Bench::resumed(text, vec![opening.clone()], None);
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    // White (a) hears the five book moves; Black (b), to move, four and
    // the fifth with its respond.
    for (id, executes) in [(1, 5), (2, 4)] {
        let got: Vec<&Incoming> = b.sent.iter().filter(|(i, _)| *i == id).map(|(_, r)| r).collect();
        let commands: Vec<Command> = got.iter().map(|r| r.command).collect();
        let mut want = vec![Command::Reset, Command::Inform];
        want.extend(std::iter::repeat_n(Command::Execute, executes));
        if id == 2 {
            want.push(Command::Respond);
        }
        assert_eq!(commands, want, "{id}");
        assert_eq!(got[0].position, start, "reset: the book game's start");
        assert!(got[1].tags.iter().any(|(k, v)| k == "BookPlies" && v == "5"), "{:?}", got[1].tags);
        let mut p = start;
        for (r, &m) in got[2..].iter().zip(&book) {
            assert_eq!((r.position, r.sm), (p, Some(m)));
            p.play_unchecked(m);
        }
    }
    b.after(1);
    b.reply(2, Some(1), "a7a6");
    b.after(1);
    b.reply(1, Some(1), "b5a4");
    assert_eq!(b.moves(), 2, "the journal has the players' moves only");
    // Killed here: a referee resumed from its journal plays the game on
    // from the same moves.
    let entries = b.entries.clone();
    let mut b = Bench::resumed(text, vec![opening], Some(&entries));
    b.sign_on(1, "a");
    b.sign_on(2, "b");
    let to_black = b.last(2);
    assert_eq!(to_black.command, Command::Respond);
    assert_eq!(to_black.current().fen(), "r1bqkbnr/1ppp1ppp/p1n5/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 1 4");
    b.after(1);
    b.reply(2, Some(1), "g8f6");
    assert!(b.ends().is_empty(), "three of the players' plies: max_moves = 2 not reached");
    b.after(1);
    b.reply(1, Some(1), "e1g1");
    assert_eq!(b.ends(), ["1/2-1/2"], "four of the players' plies");
    let pgn = b.last_pgn();
    assert!(!pgn.contains("[FEN"), "the standard start: no FEN: {pgn}");
    assert!(pgn.contains("[PlyCount \"9\"]"), "{pgn}");
    assert!(
        pgn.contains("1. e4 {book} 1... e5 {book} 2. Nf3 {book} 2... Nc6 {book} 3. Bb5 {book} 3... a6 {[%clk"),
        "{pgn}"
    );
    assert!(pgn.contains("5. O-O {[%clk") && pgn.contains("a draw, the game reached 2 moves"), "{pgn}");
}

impl Bench {
    /// The games started, in order (journal numbering, from 0).
    fn started(&self) -> Vec<usize> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                Entry::Start { game } => Some(*game),
                _ => None,
            })
            .collect()
    }

    /// The games over, in order, each with its result.
    fn over(&self) -> Vec<(usize, String)> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                Entry::End { game, result, .. } => Some((*game, result.clone())),
                _ => None,
            })
            .collect()
    }

    /// Player b (clients 2 and 4) resigns the game numbered `tcgs`, after
    /// a move of a's if a is to move.
    fn b_resigns(&mut self, tcgs: u64) {
        loop {
            let (id, pos) = self
                .sent
                .iter()
                .rev()
                .find(|(_, r)| r.game == Some(tcgs) && r.command == Command::Respond)
                .map(|(id, r)| (*id, r.current()))
                .expect("a respond in that game");
            if id % 2 == 0 {
                let rec =
                    ClientRecord { request: "reply", game: Some(tcgs), flags: &["resign"], ..ClientRecord::default() };
                self.line(id, rec.to_line(&pos));
                return;
            }
            let mv = pos.legal_moves().iter().copied().next().expect("a move");
            let rec = ClientRecord { request: "reply", sm: Some(mv), game: Some(tcgs), ..ClientRecord::default() };
            self.line(id, rec.to_line(&pos));
        }
    }
}

/// An SPRT's verdict comes with the first game of the next pair under
/// way: that pair is played out (its second game starts after the
/// verdict), so the pentanomial counts whole pairs, and no other game
/// starts.
#[test]
fn after_the_sprt_verdict_a_begun_pair_is_finished_and_no_other_begins() {
    let openings: Vec<Position> = [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1",
    ]
    .iter()
    .map(|f| f.parse().unwrap())
    .collect();
    let mut b = Bench::with_openings(
        "event = \"t\"\ntime_control = \"60+0\"\nreset_delay = 0\nconclude_delay = 0\nconcurrency = 2\nrounds = 3\n\
         openings = \"book.epd\"\n[sprt]\nelo0 = 0\nelo1 = 400\nalpha = 0.45\nbeta = 0.45\n\
         [[players]]\nname = \"a\"\ninstances = 2\n[[players]]\nname = \"b\"\ninstances = 2\n",
        openings,
    );
    for (id, name) in [(1, "a"), (2, "b"), (3, "a"), (4, "b")] {
        b.sign_on(id, name);
    }
    assert_eq!(b.started(), [0, 1], "the first pair, both at once");
    // Pair 0's first game ends; the next game (pair 1's first) takes
    // its place.
    b.after(5);
    b.b_resigns(1);
    assert_eq!(b.started(), [0, 1, 2]);
    // Pair 0's second game ends: the pair is complete, a wins both, and
    // the SPRT decides.
    b.after(5);
    b.b_resigns(2);
    let ends = b.over();
    assert_eq!(ends.len(), 2, "{ends:?}");
    assert!(b.notes.iter().any(|n| n.contains("H1 accepted after 1 pairs")), "a verdict: {:?}", b.notes);
    // Pair 1's second game starts all the same; nothing after it.
    assert_eq!(b.started(), [0, 1, 2, 3], "the begun pair is finished");
    b.after(5);
    b.b_resigns(3);
    b.after(5);
    b.b_resigns(4);
    assert_eq!(b.over().len(), 4);
    b.after(1000);
    assert_eq!(b.started(), [0, 1, 2, 3], "no game after the verdict's pair");
}

/// The write-ahead rule by who hears: a record to a player the referee
/// runs itself goes out in the step that decided it, before the append
/// is durable (that player dies with the referee); a record to a remote
/// client waits for the sync. An append only local players heard of may
/// wait for its sync; one a remote client waits for asks for it at once,
/// and a record held behind a waiting append asks with an empty one.
#[test]
fn only_remote_clients_wait_for_the_disk() {
    let event = Event::parse(
        "event = \"t\"\ntime_control = \"60+0\"\nreset_delay = 0\nconclude_delay = 0\n\
         [[players]]\nname = \"local\"\n[[players]]\nname = \"remote\"\n",
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
    // Every output until none is left: the records sent (connection,
    // command; a close as None) and the appends not yet synced (number,
    // entries, urgent).
    let drain = |d: &mut Director, unsynced: &mut Vec<(u64, usize, bool)>| {
        let mut sent = Vec::new();
        while let Some(o) = d.poll_output() {
            match o {
                Output::Send { id, line, .. } if !line.is_empty() => {
                    sent.push((id, Some(parse_command(&line).unwrap().command)));
                }
                Output::Close { id } => sent.push((id, None)),
                Output::Append { seq, entries, urgent } => unsynced.push((seq, entries.len(), urgent)),
                _ => {}
            }
        }
        sent
    };
    let mut unsynced = Vec::new();
    let sync_all = |d: &mut Director, unsynced: &mut Vec<(u64, usize, bool)>| {
        for (seq, _, _) in std::mem::take(unsynced) {
            d.handle(t0, Input::Synced { seq });
        }
    };
    for (id, name, reach) in [(1, "local", Reach::Local), (2, "remote", Reach::Remote)] {
        d.handle(t0, Input::Connected { id, peer: format!("test:{id}"), reach });
        let rec = ClientRecord { request: "sign_on", sender: Some(("test", name)), ..ClientRecord::default() };
        d.handle(t0, Input::Line { id, line: rec.to_line(&Position::startpos()), at: t0 });
    }
    // Game 1 starts (local is White): the local player hears of it at
    // once, before the game's start is durable; the remote one not yet.
    let sent = drain(&mut d, &mut unsynced);
    assert!(!unsynced.is_empty(), "the start is appended");
    assert!(sent.iter().any(|&(id, _)| id == 1), "the local player hears before the sync: {sent:?}");
    assert!(sent.iter().all(|&(id, _)| id != 2), "nothing reaches the remote client before the sync: {sent:?}");
    let mut heard = sent;
    for _ in 0..10 {
        sync_all(&mut d, &mut unsynced);
        if let Some(t) = d.poll_timeout().filter(|&t| t <= t0) {
            d.handle_timeout(t);
        }
        heard.extend(drain(&mut d, &mut unsynced));
    }
    assert!(heard.contains(&(1, Some(Command::Respond))), "the local player is asked to move: {heard:?}");
    assert!(heard.iter().any(|&(id, _)| id == 2), "the remote client hears of the game once it is durable");

    // The local player moves: the remote one is asked only after the
    // move is durable.
    let start = Position::startpos();
    let e4 = start.parse_uci(b"e2e4").unwrap();
    let reply = ClientRecord { request: "reply", sm: Some(e4), game: Some(1), ..ClientRecord::default() };
    let at = t0 + Duration::from_millis(10);
    d.handle(at, Input::Line { id: 1, line: reply.to_line(&start), at });
    let sent = drain(&mut d, &mut unsynced);
    assert_eq!(unsynced, [(unsynced[0].0, 1, true)], "the move is appended, its sync asked at once");
    assert!(!sent.contains(&(2, Some(Command::Respond))), "the remote client waits for the disk: {sent:?}");
    sync_all(&mut d, &mut unsynced);
    assert!(drain(&mut d, &mut unsynced).contains(&(2, Some(Command::Respond))));

    // The remote player answers: the local one is asked in the same step,
    // its append not yet durable.
    let mut after = start;
    after.play_unchecked(e4);
    let e5 = after.parse_uci(b"e7e5").unwrap();
    let reply = ClientRecord { request: "reply", sm: Some(e5), game: Some(1), ..ClientRecord::default() };
    let at = t0 + Duration::from_millis(20);
    d.handle(at, Input::Line { id: 2, line: reply.to_line(&after), at });
    let sent = drain(&mut d, &mut unsynced);
    let (seq, _, urgent) = unsynced[0];
    assert_eq!(unsynced, [(seq, 1, false)], "the move is appended, its sync left to wait");
    assert!(!urgent);
    assert!(sent.contains(&(1, Some(Command::Respond))), "the local player is asked before the sync: {sent:?}");

    // A remote connection signs on as nobody: closed, with no entry; the
    // close waits for the move's append, whose sync it asks for.
    d.handle(at, Input::Connected { id: 3, peer: "test:3".into(), reach: Reach::Remote });
    let rec = ClientRecord { request: "sign_on", sender: Some(("test", "nobody")), ..ClientRecord::default() };
    d.handle(at, Input::Line { id: 3, line: rec.to_line(&Position::startpos()), at });
    let sent = drain(&mut d, &mut unsynced);
    assert!(!sent.contains(&(3, None)), "the close waits for the disk: {sent:?}");
    assert_eq!(unsynced, [(seq, 1, false), (seq + 1, 0, true)], "an empty append asks for the sync");
    d.handle(at, Input::Synced { seq });
    assert!(!drain(&mut d, &mut unsynced).contains(&(3, None)), "the move's sync alone is not asked for");
    d.handle(at, Input::Synced { seq: seq + 1 });
    assert!(drain(&mut d, &mut unsynced).contains(&(3, None)), "closed once its sync is made");
}

/// A local engine that fails mid-game loses that game at once, as
/// fastchess rules: a crash or a stall is Termination "abandoned" ("White
/// disconnects", "White's connection stalls"), an illegal move "illegal
/// move"; the End entry says what the loser lost to, and the report
/// counts it per player. With `recover = false` a crash stops the event
/// (its report kept); an illegal move does not.
#[test]
fn a_failed_engine_loses_its_game_at_once() {
    use epd_referee::{EngineFailure, Fault};
    for (failure, tag, reason, fault) in [
        (EngineFailure::Crashed, "abandoned", "White disconnects", Fault::Crash),
        (EngineFailure::Stalled, "abandoned", "White's connection stalls", Fault::Stall),
        (EngineFailure::IllegalMove, "illegal move", "White makes an illegal move: e2e5", Fault::Illegal),
    ] {
        for recover in [true, false] {
            let mut b = Bench::new(&format!("rounds = 1\nrecover = {recover}"));
            b.sign_on(1, "a");
            b.sign_on(2, "b");
            assert_eq!(b.last(1).command, Command::Respond, "a is White in game 1");
            b.after(3);
            b.input(Input::Failed { id: 1, failure, why: "e2e5".into() });
            let ends: Vec<_> = b
                .entries
                .iter()
                .filter_map(|e| match e {
                    Entry::End { result, pgn, fault, .. } => Some((result.clone(), pgn.clone(), *fault)),
                    _ => None,
                })
                .collect();
            assert_eq!(ends.len(), 1, "{failure:?}: the game ends at once");
            let (result, pgn, f) = &ends[0];
            assert_eq!((result.as_str(), *f), ("0-1", Some(fault)), "{failure:?}");
            assert!(pgn.contains(&format!("[Termination \"{tag}\"]")), "{pgn}");
            assert!(pgn.contains(&format!("{{{reason}}}")), "{pgn}");
            let stops = !recover && failure != EngineFailure::IllegalMove;
            let report = b.outputs.iter().find(|o| o.starts_with("Done(")).cloned();
            if stops {
                let report = report.unwrap_or_else(|| panic!("{failure:?}: the event stops: {:?}", b.notes));
                assert!(report.contains("EngineFailed(\"game 1: the engine of a "), "{report}");
                assert!(report.contains("Player: a"), "the report is kept: {report}");
            } else {
                assert!(report.is_none(), "{failure:?}, recover {recover}: the event goes on");
                // a comes back, the second game is played and the report
                // counts the failure.
                b.sign_on(3, "a");
                b.after(100);
                assert_eq!(b.last(3).game, Some(2), "a plays game 2 with its engine started afresh");
                b.input(Input::Console("adjudicate 2 1/2-1/2".into()));
                b.after(100);
                let report = b.outputs.iter().find(|o| o.starts_with("Done(")).cloned().expect("the event ends");
                let want = format!(
                    "Player: a\\n  Timeouts: 0\\n  Crashed: {}\\n  Stalled: {}\\n  Illegal moves: {}\\n",
                    u32::from(fault == Fault::Crash),
                    u32::from(fault == Fault::Stall),
                    u32::from(fault == Fault::Illegal)
                );
                assert!(report.contains(&want), "{report}");
                assert!(!report.contains("Stopped"), "{report}");
            }
        }
    }
}

/// A player has at most `instances` connections signed on. One more sign
/// on, with the player's token, replaces the oldest (told so, closed),
/// and the new connection takes over its game at once: the game is not
/// lost by abandonment and the player never plays two games at once.
/// Without a token nothing proves it is the same player: refused.
#[test]
fn a_second_sign_on_of_a_player_replaces_its_oldest_or_is_refused() {
    let mut b = Bench::of_event(
        "event = \"t\"\ntime_control = \"60+0\"\nreset_delay = 0\nconclude_delay = 0\nconcurrency = 2\n\
         disconnect_grace = 5\n[[players]]\nname = \"a\"\ntoken = \"ta\"\n[[players]]\nname = \"b\"\n\
         [[players]]\nname = \"c\"\n",
    );
    let sign_on = |b: &mut Bench, id: ConnId, name: &str, token: Option<&str>| {
        b.input(Input::Connected { id, peer: format!("test:{id}"), reach: Reach::Remote });
        let rec = ClientRecord { request: "sign_on", sender: Some(("test", name)), token, ..ClientRecord::default() };
        b.line(id, rec.to_line(&Position::startpos()));
    };
    sign_on(&mut b, 1, "a", Some("ta"));
    sign_on(&mut b, 2, "b", None);
    b.after(1);
    let game = b.last(1).game.expect("a plays a game");
    assert_eq!(b.last(1).command, Command::Respond, "a is White in game {game}");
    // a's program restarts; its old connection is still open here.
    sign_on(&mut b, 3, "a", Some("ta"));
    b.after(1);
    let told = b.last(1);
    assert_eq!(told.command, Command::Fault, "the old connection is told");
    assert!(told.message.as_deref().unwrap_or("").contains("replaced by a newer sign-on"), "{told:?}");
    assert!(b.outputs.iter().any(|o| o == "Close { id: 1 }"), "and closed: {:?}", b.outputs);
    assert_eq!(b.last(3).game, Some(game), "the new connection takes the game over");
    assert_eq!(b.last(3).command, Command::Respond, "and is asked to move at once");
    // It plays on: no abandonment, however long the grace.
    b.after(6_000);
    b.reply(3, Some(game), "e2e4");
    assert_eq!(b.moves(), 1);
    assert!(b.ends().is_empty(), "{:?}", b.ends());
    // b has no token: a second connection of b is refused, the first
    // plays on.
    sign_on(&mut b, 4, "b", None);
    let told = b.last(4);
    assert_eq!(told.command, Command::Fault);
    assert!(told.message.as_deref().unwrap_or("").contains("instances = 1"), "{told:?}");
    assert!(b.outputs.iter().any(|o| o == "Close { id: 4 }"));
    assert_eq!(b.last(2).command, Command::Respond, "b, still in its game, is asked");
    // a plays one game at a time: c waits though concurrency is 2.
    sign_on(&mut b, 5, "c", None);
    b.after(1);
    assert!(b.sent.iter().all(|(id, _)| *id != 5) || b.last(5).game.is_none(), "c has nobody free to play");
}

/// A local player's clock runs from when its engine was asked (its `go`
/// written: [`Input::Asked`]), as fastchess times an engine from `go` to
/// `bestmove`: the hand-over from the director is not the engine's time,
/// and its flag falls that much later. A remote client's word on it is
/// ignored, and an instant past the director's own is taken as now.
#[test]
fn a_local_engines_clock_runs_from_its_go() {
    let mut b = Bench::of_event(
        "event = \"t\"\ntime_control = \"1+0\"\nreset_delay = 0\nconclude_delay = 0\nrounds = 1\n\
         [[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\n",
    );
    b.input(Input::Connected { id: 1, peer: "local a".into(), reach: Reach::Local });
    let rec = ClientRecord { request: "sign_on", sender: Some(("test", "a")), ..ClientRecord::default() };
    b.line(1, rec.to_line(&Position::startpos()));
    b.sign_on(2, "b");
    assert_eq!(b.last(1).command, Command::Respond, "a is White in game 1");
    // a's engine gets its go 300 ms after the director asked.
    b.after(300);
    let at = b.t0 + b.now;
    b.input(Input::Asked { id: 1, at });
    // Its second runs from there: no flag at 1.1 s.
    b.after(800);
    assert!(b.ends().is_empty(), "the flag falls a second after the go, not after the respond: {:?}", b.ends());
    b.after(100);
    b.reply(1, Some(1), "e2e4");
    assert_eq!(b.charged(), [900_000_000], "charged from the go (0.3 s) to the reply (1.2 s)");
    // b is remote: what it says of its go is ignored.
    b.after(100);
    let at = b.t0 + b.now;
    b.input(Input::Asked { id: 2, at });
    b.after(200);
    b.reply(2, Some(1), "e7e5");
    assert_eq!(b.charged()[1], 300_000_000, "a remote client is charged from the respond");
    // An instant ahead of the director's is taken as now (a has 0.1 s
    // left: asked at 1.5 s, its go said to be 5 s later, taken as 1.55).
    b.after(50);
    let ahead = b.t0 + b.now + Duration::from_secs(5);
    b.input(Input::Asked { id: 1, at: ahead });
    b.after(50);
    b.reply(1, Some(1), "g1f3");
    assert_eq!(b.charged()[2], 50_000_000, "charged from the director's now at most");
    // b, asked at 1.6 s with 0.7 s left, flags at 2.3 s.
    b.after(650);
    assert_eq!(b.ends(), Vec::<String>::new(), "b's clock still runs at 2.25 s");
    b.after(100);
    assert_eq!(b.ends(), ["1-0"], "b's flag falls 0.7 s after its respond");
}

/// `host_loss = "void"`: a remote player away past the disconnect grace
/// (its host killed, its link cut) does not lose; the game is void (an
/// abort entry with the reason), not scored, and played again from its
/// start once the player is back. A resumed referee keeps the count. With
/// the default (`forfeit`), the same departure loses by abandonment.
#[test]
fn a_lost_host_voids_its_game_with_host_loss_void() {
    for void in [false, true] {
        let extra = format!("rounds = 1\ndisconnect_grace = 2\n{}", if void { "host_loss = \"void\"" } else { "" });
        let mut b = Bench::new(&extra);
        b.sign_on(1, "a");
        b.sign_on(2, "b");
        b.after(5);
        b.reply(1, Some(1), "e2e4");
        b.input(Input::Closed { id: 2, why: "connection reset by peer".into() });
        b.after(1900);
        assert!(b.ends().is_empty(), "within the grace");
        b.after(200);
        if !void {
            assert_eq!(b.ends(), ["1-0"], "forfeit: lost by abandonment");
            assert!(b.last_pgn().contains("[Termination \"abandoned\"]"), "{}", b.last_pgn());
            continue;
        }
        assert!(b.ends().is_empty(), "a void game is not scored");
        let voids: Vec<String> = b
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::Abort { game: 0, void: Some(why) } => Some(why.clone()),
                _ => None,
            })
            .collect();
        let why = "b (black) away past the disconnect grace (connection reset by peer)";
        assert_eq!(voids, [why]);
        assert!(b.notes.iter().any(|n| n == &format!("game 1 void: {why}; it is played again")), "{:?}", b.notes);
        assert_eq!(b.last(1).command, Command::Reset, "a is told to reset");
        // b's host is back: the game is played again from its start, and
        // scored once.
        b.sign_on(4, "b");
        b.after(10);
        assert_eq!(b.started(), [0, 0], "played again");
        assert_eq!(b.last(1).command, Command::Respond);
        assert_eq!(b.last(1).position, Position::startpos(), "from its start");
        b.b_resigns(1);
        b.after(10);
        assert_eq!(b.over(), [(0, "1-0".to_owned())]);
        b.b_resigns(2);
        b.after(10);
        assert_eq!(b.over().len(), 2, "the event is over");
        let report = b.outputs.iter().rev().find(|o| o.starts_with("Report(")).expect("a report");
        assert!(report.contains("Void: 1 (not scored, played again)"), "the results block counts it: {report}");
        assert!(report.contains(&format!("Void (not scored, played again): 1\\n  game 1: {why}")), "{report}");
        // Resumed from the journal, the count stands.
        let text = format!(
            "event = \"t\"\ntime_control = \"60+0\"\nreset_delay = 0\nconclude_delay = 0\n{extra}\n\
             [[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\n"
        );
        let entries = b.entries.clone();
        let again = Bench::resumed(&text, Vec::new(), Some(&entries));
        let done = again.outputs.iter().rev().find(|o| o.starts_with("Done(")).expect("over, as it was");
        assert!(done.contains("Void: 1 (not scored, played again)"), "{done}");
    }
}

/// Players as a pool (issue 47): a game goes to any free slot of each
/// player, so slots that sign on mid-event (a worker host joining) raise
/// the games played at once, up to `concurrency`, a ceiling; slots that
/// leave lower it; games start in schedule order, so a pair's two games
/// are played side by side.
#[test]
fn the_games_at_once_follow_the_slots_up_to_concurrency() {
    let mut b = Bench::of_event(
        "event = \"t\"\ntime_control = \"60+0\"\nreset_delay = 0\nconclude_delay = 0.05\nconcurrency = 4\n\
         rounds = 6\n[[players]]\nname = \"a\"\ntoken = \"ta\"\ninstances = 6\n\
         [[players]]\nname = \"b\"\ntoken = \"tb\"\ninstances = 6\n",
    );
    // Player a's slots on odd connections, b's on even ones.
    let slot = |b: &mut Bench, id: ConnId| {
        let (name, token) = if id % 2 == 1 { ("a", "ta") } else { ("b", "tb") };
        b.input(Input::Connected { id, peer: format!("host:{id}"), reach: Reach::Remote });
        let rec =
            ClientRecord { request: "sign_on", sender: Some(("test", name)), token: Some(token), ..Default::default() };
        b.line(id, rec.to_line(&Position::startpos()));
    };
    let running = |b: &Bench| b.started().len() - b.over().len();
    // The slots whose last record is of game `number`.
    let slots_of = |b: &Bench, number: u64| -> Vec<ConnId> {
        (1..=12)
            .filter(|&id| b.sent.iter().rev().find(|(i, _)| *i == id).is_some_and(|(_, r)| r.game == Some(number)))
            .collect()
    };
    slot(&mut b, 1);
    slot(&mut b, 2);
    assert_eq!(b.started(), [0], "one slot each: one game");
    // A second host joins with a slot of each player: a second game at
    // once, the first one's pair.
    slot(&mut b, 3);
    slot(&mut b, 4);
    assert_eq!(b.started(), [0, 1], "the pair side by side");
    for id in 5..=10 {
        slot(&mut b, id);
    }
    assert_eq!(b.started(), [0, 1, 2, 3], "four games at once: the ceiling, a fifth pair of slots free");
    // A game ends: the next in the schedule starts at once, on the free
    // slots.
    b.after(5);
    b.b_resigns(1);
    assert_eq!((b.started(), running(&b)), (vec![0, 1, 2, 3, 4], 4));
    // Hosts leave: game 1's slots, then game 2's, close after their
    // games; three games at once are left.
    for id in slots_of(&b, 1) {
        b.input(Input::Closed { id, why: "host gone".into() });
    }
    b.after(5);
    b.b_resigns(2);
    for id in slots_of(&b, 2) {
        b.input(Input::Closed { id, why: "host gone".into() });
    }
    b.after(100);
    assert_eq!((b.started().len(), running(&b)), (5, 3), "no free slots: three games at once");
    // A host joins again: a fourth game at once.
    slot(&mut b, 11);
    slot(&mut b, 12);
    assert_eq!((b.started(), running(&b)), (vec![0, 1, 2, 3, 4, 5], 4));
}

/// `host_loss = "void"`: when a remote mover's flag falls, the verdict
/// waits `LOST_HOST_WINDOW` for its host: its connection closing in the
/// window (the runtime closes a dead one within `DEAD_LINK`) voids the
/// game at once; a reply in it proves the host alive and the flag
/// stands; silence to its end is a loss on time. With `forfeit`, the
/// flag stands at once.
#[test]
fn a_flag_that_falls_on_a_lost_host_voids_the_game() {
    use epd_referee::director::LOST_HOST_WINDOW;
    let window = LOST_HOST_WINDOW.as_millis() as u64;
    for (void, then) in [(false, "nothing"), (true, "close"), (true, "reply"), (true, "silence")] {
        let extra = format!("rounds = 1\ntime_control = \"1+0\"\n{}", if void { "host_loss = \"void\"" } else { "" });
        let text = format!(
            "event = \"t\"\nreset_delay = 0\nconclude_delay = 0\n{extra}\n\
             [[players]]\nname = \"a\"\n[[players]]\nname = \"b\"\n"
        );
        let mut b = Bench::of_event(&text);
        b.sign_on(1, "a");
        b.sign_on(2, "b");
        b.after(5);
        b.reply(1, Some(1), "e2e4");
        // b thinks past its second.
        b.after(1001);
        if !void {
            assert_eq!(b.ends(), ["1-0"], "forfeit: the flag stands at once");
            continue;
        }
        assert!(b.ends().is_empty(), "{then}: the verdict waits");
        assert!(b.notes.iter().any(|n| n.contains("black's flag fell; the verdict waits")), "{:?}", b.notes);
        let voids = |b: &Bench| b.entries.iter().filter(|e| matches!(e, Entry::Abort { void: Some(_), .. })).count();
        match then {
            "close" => {
                b.after(window / 2);
                b.input(Input::Closed { id: 2, why: "connection timed out".into() });
                assert!(b.ends().is_empty(), "not scored");
                assert_eq!(voids(&b), 1, "void at once");
                assert!(
                    b.notes
                        .iter()
                        .any(|n| n.starts_with("game 1 void: b (black) lost its connection as its flag fell")),
                    "{:?}",
                    b.notes
                );
            }
            "reply" => {
                b.after(window / 2);
                b.reply(2, Some(1), "e7e5");
                assert_eq!(b.ends(), ["1-0"], "a reply proves the host alive: lost on time");
                assert!(b.last_pgn().contains("[Termination \"time forfeit\"]"), "{}", b.last_pgn());
                assert_eq!(b.moves(), 1, "the late move is not played");
            }
            _ => {
                b.after(window - 1);
                assert!(b.ends().is_empty());
                b.after(1);
                assert_eq!(b.ends(), ["1-0"], "silence through the window: lost on time");
                assert_eq!(voids(&b), 0);
            }
        }
    }
}
