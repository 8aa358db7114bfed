//! The records of the referee protocol (EPD §8): what clients send
//! (`refreq`) read and checked with the kit's own record model, and what
//! the referee sends (`refcom`) written in canonical EPD.
//!
//! # On the wire
//!
//! One EPD record per line, at most [`MAX_RECORD`] bytes (the
//! specification asks readers to handle 4096), `\n` or `\r\n` ended.
//!
//! Client to referee:
//!
//! - `sign_on` (§8.2.4): `<position> refreq sign_on; tcsi "ADDRESS"
//!   "NAME";` names the player (the position is not used). A player whose
//!   event entry has a token adds the extension operation `Token "T";`.
//! - `reply` (§8.2.2): `<position> refreq reply; sm MOVE;`, the position
//!   being the one the move is played from (the referee's position after
//!   the opponent's move); `hmvc`/`fmvn` may be given and must then match.
//!   With it, or instead of a move: `draw_offer` (with sm, §6.11),
//!   `draw_claim` (with sm or not: see the referee), `draw_accept`,
//!   `draw_reject`, `resign`. `tcgs N` names the game when given.
//! - `sign_off` (§8.2.3), `fault` (§8.2.1, with `c0 "what"` if known).
//!
//! Referee to client: `refcom` with `reset`, `inform` (`ptp` tag pairs),
//! `respond`, `execute`, `conclude`, `disconnect` or `fault` (§8.1), the
//! position, and where they apply `sm` (the opponent's move, played from
//! the position sent), `hmvc`, `fmvn`, `cc` (time consumed by White and
//! Black, whole seconds, §6.6), `tcgs` (the game), `tcri` (the receiver),
//! `draw_offer` (the opponent offers a draw with its move), `c0` (a
//! fault's reason), and two extension operations with the finer figures
//! a clock needs: `Ccms W B` (time consumed, milliseconds) and `Rtms W B`
//! (time remaining, milliseconds, increment of the last move included).
//!
//! The extensions (`Ccms`, `Rtms`, `Token`) are private to this protocol
//! and so begin with a capital letter, as §5.3 asks of opcodes not in the
//! standard's list; a program that does not know them ignores them.

use std::time::Duration;

use epd_core::{
    has_errors, Clock as EpdClock, Move, Opcode, OperandInput, ParseMode, Position, Record, REFCOM_COMMANDS,
};

use crate::clock::shown_ms;

/// The extension operation carrying the time each side has consumed, in
/// milliseconds. Private to this protocol, so capitalised as §5.3 asks.
pub const CONSUMED_MS: &str = "Ccms";
/// The extension operation carrying the time each side has left, in
/// milliseconds (the increment of the last move included).
pub const REMAINING_MS: &str = "Rtms";
/// The extension operation carrying a sign-on's token.
pub const TOKEN: &str = "Token";

/// The `inform` tag pair that says how many of the game's first moves
/// are the opening book's (a PGN book's): they are sent as `execute`s
/// before the first `respond`, and a player's clock (UCI `movestogo`)
/// does not count them. Absent when there are none.
pub const BOOK_PLIES: &str = "BookPlies";

/// The heartbeat a client asks for on `sign_on` (`Hbms 2000;`): the
/// referee then sends it a blank line whenever it has sent nothing for
/// that many milliseconds (at least [`MIN_HEARTBEAT_MS`]), so that a
/// client that hears nothing for longer knows its referee is gone (frozen,
/// or its host lost) and can fail over. Without it, no blank line is ever
/// sent.
pub const HEARTBEAT_MS: &str = "Hbms";

/// The shortest heartbeat the referee grants.
pub const MIN_HEARTBEAT_MS: u64 = 100;

/// How a fault tells a connection that a newer sign-on of its player
/// took its place (the player was at its `instances`): the message
/// starts so. A client told this stops rather than sign on again, which
/// would replace another of its player's connections in turn.
pub const REPLACED: &str = "replaced by a newer sign-on";

/// The longest record accepted from a client, in bytes.
pub const MAX_RECORD: usize = 4096;

/// What a client asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Sign on as `name`, with the token the event may require.
    SignOn {
        /// The player's name (`tcsi`'s second operand).
        name: String,
        /// The `token` extension operation's operand.
        token: Option<String>,
        /// The heartbeat asked for (`Hbms`), in milliseconds.
        heartbeat_ms: Option<u64>,
    },
    /// Leave.
    SignOff,
    /// A move, a draw or a resignation in the game in progress.
    Reply(Reply),
    /// The client hit a fault it cannot recover from.
    Fault(String),
}

/// What an engine said of the move it replies with (§8 replies may carry
/// operations): its score in centipawns from the mover's side (`ce`),
/// its depth (`acd`) and nodes (`acn`). The referee adjudicates from the
/// scores and writes them into the PGN.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Eval {
    /// `ce`: centipawns from the mover's side (mates as ±(32767 − plies)).
    pub ce: i32,
    /// `acd`: the depth reached.
    pub depth: Option<u32>,
    /// `acn`: the nodes searched.
    pub nodes: Option<u64>,
    /// `pv`: the engine's principal variation from the reply's position
    /// (the move first), for the live display; not journalled.
    #[serde(skip)]
    pub pv: Vec<Move>,
}

/// The longest principal variation a reply carries.
pub const MAX_PV: usize = 16;

/// A reply's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The position the client's move is played from.
    pub position: Position,
    /// `hmvc` and `fmvn` when the client sent them.
    pub counters: (Option<u32>, Option<u32>),
    /// The move (`sm`).
    pub mv: Option<Move>,
    /// The game (`tcgs`), if named.
    pub game: Option<u64>,
    /// `draw_offer`.
    pub draw_offer: bool,
    /// `draw_accept`.
    pub draw_accept: bool,
    /// `draw_reject`.
    pub draw_reject: bool,
    /// `draw_claim`.
    pub draw_claim: bool,
    /// `resign`.
    pub resign: bool,
    /// The engine's score, depth and nodes, when the reply carries `ce`.
    pub eval: Option<Eval>,
}

/// Why a client's record was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError(pub String);

impl core::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProtocolError {}

fn int(rec: &Record, op: Opcode) -> Option<i64> {
    rec.get_known(op).and_then(|o| o.operand(0)).and_then(|o| o.as_integer())
}

fn text_of(rec: &Record, name: &str, index: usize) -> Option<String> {
    rec.operations()
        .find(|o| o.opcode() == name)
        .and_then(|o| o.operand(index))
        .map(|o| String::from_utf8_lossy(o.text()).into_owned())
}

/// Reads one record from a client.
///
/// # Errors
/// [`ProtocolError`]: over-long, not a valid EPD record (strict reading),
/// no `refreq`, an unknown request, a sign-on without a name.
pub fn parse_request(line: &[u8]) -> Result<Request, ProtocolError> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.len() > MAX_RECORD {
        return Err(ProtocolError(format!("a record of {} bytes; at most {MAX_RECORD}", line.len())));
    }
    let (rec, mut diags) = Record::parse(line, ParseMode::Strict);
    // §6.10 wants a move with draw_claim, but §8 (step 10) lets a client
    // claim without one (a dead position): a reply may do so.
    if rec.get_known(Opcode::Refreq).is_some_and(|o| o.operand(0).is_some_and(|x| x.text() == b"reply")) {
        diags.retain(|d| !(d.code == epd_core::Code::MissingSm && d.opcode.as_deref() == Some("draw_claim")));
    }
    if has_errors(&diags) || rec.position().is_none() {
        let first = diags.iter().find(|d| d.severity == epd_core::Severity::Error);
        let why = first.map_or_else(
            || "not a legal position".to_owned(),
            |d| format!("column {}: {} [{}]", d.column(), d.message, d.code),
        );
        return Err(ProtocolError(format!("not a valid EPD record: {why}")));
    }
    let Some(req) = text_of(&rec, "refreq", 0) else {
        return Err(ProtocolError(
            "no refreq operation: a client's records carry refreq (sign_on, reply, sign_off, fault)".into(),
        ));
    };
    match req.as_str() {
        "sign_on" => {
            let name = text_of(&rec, "tcsi", 1)
                .filter(|n| !n.trim().is_empty())
                .ok_or_else(|| ProtocolError("sign_on needs tcsi \"ADDRESS\" \"NAME\" naming the player".into()))?;
            let heartbeat_ms = match text_of(&rec, HEARTBEAT_MS, 0) {
                None => None,
                Some(v) => Some(
                    v.parse::<u64>()
                        .map_err(|_| {
                            ProtocolError(format!("{HEARTBEAT_MS} needs a number of milliseconds, not {v:?}"))
                        })?
                        .clamp(MIN_HEARTBEAT_MS, 3_600_000),
                ),
            };
            Ok(Request::SignOn { name, token: text_of(&rec, TOKEN, 0), heartbeat_ms })
        }
        "sign_off" => Ok(Request::SignOff),
        "fault" => Ok(Request::Fault(text_of(&rec, "c0", 0).unwrap_or_default())),
        "reply" => {
            let has = |op: Opcode| rec.get_known(op).is_some();
            let counter = |op: Opcode| int(&rec, op).and_then(|v| u32::try_from(v).ok());
            let mv = rec.get_known(Opcode::Sm).and_then(|o| o.operand(0)).and_then(|o| o.as_move());
            if has(Opcode::Sm) && mv.is_none() {
                return Err(ProtocolError("sm is not a legal move".into()));
            }
            Ok(Request::Reply(Reply {
                position: *rec.position().expect("checked above"),
                counters: (counter(Opcode::Hmvc), counter(Opcode::Fmvn)),
                mv,
                game: int(&rec, Opcode::Tcgs).and_then(|v| u64::try_from(v).ok()),
                draw_offer: has(Opcode::DrawOffer),
                draw_accept: has(Opcode::DrawAccept),
                draw_reject: has(Opcode::DrawReject),
                draw_claim: has(Opcode::DrawClaim),
                resign: has(Opcode::Resign),
                eval: int(&rec, Opcode::Ce).and_then(|ce| i32::try_from(ce).ok()).map(|ce| Eval {
                    ce,
                    depth: int(&rec, Opcode::Acd).and_then(|v| u32::try_from(v).ok()),
                    nodes: int(&rec, Opcode::Acn).and_then(|v| u64::try_from(v).ok()),
                    pv: rec
                        .get_known(Opcode::Pv)
                        .map(|o| o.operands().take(MAX_PV).filter_map(|x| x.as_move()).collect())
                        .unwrap_or_default(),
                }),
            }))
        }
        other => Err(ProtocolError(format!("unknown request {other:?}: sign_on, reply, sign_off or fault"))),
    }
}

/// A referee command (§8.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Conclude the game (§8.1.1).
    Conclude,
    /// The referee is going away (§8.1.2).
    Disconnect,
    /// Play through a move without answering (§8.1.3).
    Execute,
    /// An unrecoverable fault (§8.1.4).
    Fault,
    /// PGN tag pairs (§8.1.5).
    Inform,
    /// Set up for a new game (§8.1.6).
    Reset,
    /// Answer the opponent's move (§8.1.7).
    Respond,
}

impl Command {
    /// Every command, in the order of the kit's table of `refcom`
    /// operands ([`REFCOM_COMMANDS`]).
    pub const ALL: [Command; 7] = [
        Command::Conclude,
        Command::Disconnect,
        Command::Execute,
        Command::Fault,
        Command::Inform,
        Command::Reset,
        Command::Respond,
    ];

    /// The `refcom` operand.
    #[must_use]
    pub fn name(self) -> &'static str {
        REFCOM_COMMANDS[self as usize]
    }

    /// The command a `refcom` operand names.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// A record the referee sends.
#[derive(Clone, Debug)]
pub struct Outgoing<'a> {
    /// The command.
    pub command: Command,
    /// The position (before `sm`, when a move is given).
    pub position: &'a Position,
    /// The opponent's move from `position`.
    pub sm: Option<Move>,
    /// Time consumed by White and Black.
    pub consumed: Option<(Duration, Duration)>,
    /// Time remaining for White and Black.
    pub remaining: Option<(Duration, Duration)>,
    /// PGN tag pairs.
    pub tags: &'a [(&'a str, String)],
    /// The game.
    pub game: Option<u64>,
    /// The receiver's name.
    pub receiver: Option<&'a str>,
    /// The opponent offers a draw.
    pub draw_offer: bool,
    /// A fault's reason.
    pub message: Option<&'a str>,
}

impl<'a> Outgoing<'a> {
    /// `command` at `position`, nothing else.
    #[must_use]
    pub fn new(command: Command, position: &'a Position) -> Outgoing<'a> {
        Outgoing {
            command,
            position,
            sm: None,
            consumed: None,
            remaining: None,
            tags: &[],
            game: None,
            receiver: None,
            draw_offer: false,
            message: None,
        }
    }

    /// The record, canonical EPD, without a newline.
    #[must_use]
    pub fn to_line(&self) -> Vec<u8> {
        let mut rec = Record::from_position(self.position);
        // Every value below is valid by construction; a refusal would be
        // a bug, and leaves the operation out rather than the record.
        let _ = rec.set("refcom", &[OperandInput::Identifier(self.command.name())]);
        if let Some(m) = self.sm {
            let _ = rec.set("sm", &[OperandInput::Move(m)]);
        }
        if matches!(self.command, Command::Respond | Command::Execute | Command::Conclude | Command::Reset) {
            let _ = rec.set("hmvc", &[OperandInput::Integer(i64::from(self.position.halfmoves()))]);
            let _ = rec.set("fmvn", &[OperandInput::Integer(i64::from(self.position.fullmoves()))]);
        }
        // Milliseconds rounded as the PGN rounds them (clock::shown_ms),
        // so that what a client is told equals what the PGN records.
        let (used_w, used_b) = self.consumed.unwrap_or_default();
        if let Some((w, b)) = self.consumed {
            let c = |d: Duration| OperandInput::Clock(EpdClock::from_seconds(d.as_secs()));
            let _ = rec.set("cc", &[c(w), c(b)]);
            let (w, b) = (shown_ms(w, Duration::ZERO).0.to_string(), shown_ms(b, Duration::ZERO).0.to_string());
            let _ = rec.set(CONSUMED_MS, &[OperandInput::Raw(w.as_bytes()), OperandInput::Raw(b.as_bytes())]);
        }
        if let Some((w, b)) = self.remaining {
            let (w, b) = (shown_ms(used_w, w).1.to_string(), shown_ms(used_b, b).1.to_string());
            let _ = rec.set(REMAINING_MS, &[OperandInput::Raw(w.as_bytes()), OperandInput::Raw(b.as_bytes())]);
        }
        if !self.tags.is_empty() {
            let mut ops = Vec::with_capacity(self.tags.len() * 2);
            for (k, v) in self.tags {
                ops.push(OperandInput::Identifier(k));
                ops.push(OperandInput::String(v.as_bytes()));
            }
            let _ = rec.set("ptp", &ops);
        }
        if let Some(g) = self.game {
            let _ = rec.set("tcgs", &[OperandInput::Integer(i64::try_from(g).unwrap_or(i64::MAX))]);
        }
        if let Some(r) = self.receiver {
            let _ = rec.set("tcri", &[OperandInput::String(b"argus"), OperandInput::String(r.as_bytes())]);
        }
        if self.draw_offer {
            let _ = rec.set("draw_offer", &[]);
        }
        if let Some(m) = self.message {
            let cleaned: String =
                m.chars().map(|c| if c == '"' || c == '\\' || c.is_control() { '\'' } else { c }).take(200).collect();
            let _ = rec.set("c0", &[OperandInput::String(cleaned.as_bytes())]);
        }
        let mut out = Vec::with_capacity(160);
        rec.append_canonical(&mut out);
        out
    }
}

/// A referee record as a client reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incoming {
    /// The command.
    pub command: Command,
    /// The position sent, with the counters of `hmvc` and `fmvn`.
    pub position: Position,
    /// The opponent's move, played from `position`.
    pub sm: Option<Move>,
    /// Time consumed by White and Black, in milliseconds (`Ccms`, else
    /// `cc` in whole seconds).
    pub consumed: Option<(u64, u64)>,
    /// Time remaining for White and Black, in milliseconds (`Rtms`).
    pub remaining: Option<(u64, u64)>,
    /// PGN tag pairs (`ptp`).
    pub tags: Vec<(String, String)>,
    /// The game (`tcgs`).
    pub game: Option<u64>,
    /// The opponent offers a draw.
    pub draw_offer: bool,
    /// A fault's reason (`c0`).
    pub message: Option<String>,
}

impl Incoming {
    /// The position after `sm`: the one to move from.
    #[must_use]
    pub fn current(&self) -> Position {
        let mut p = self.position;
        if let Some(m) = self.sm {
            p.play_unchecked(m);
        }
        p
    }
}

/// Reads a record from the referee (the client side of the protocol).
///
/// # Errors
/// Not a valid EPD record, no or an unknown `refcom`.
pub fn parse_command(line: &[u8]) -> Result<Incoming, ProtocolError> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let (rec, diags) = Record::parse(line, ParseMode::Lenient);
    if has_errors(&diags) || rec.position().is_none() {
        return Err(ProtocolError("not a valid EPD record".into()));
    }
    let command = match text_of(&rec, "refcom", 0) {
        Some(name) => Command::from_name(&name).ok_or_else(|| ProtocolError(format!("unknown refcom {name:?}")))?,
        None => return Err(ProtocolError("no refcom operation".into())),
    };
    let pair = |name: &str| -> Option<(u64, u64)> {
        let w = text_of(&rec, name, 0)?.parse().ok()?;
        let b = text_of(&rec, name, 1)?.parse().ok()?;
        Some((w, b))
    };
    let cc = rec.get_known(Opcode::Cc).and_then(|o| {
        let secs = |i: usize| EpdClock::from_ascii(o.operand(i)?.text()).map(|c| c.total_seconds() * 1000);
        Some((secs(0)?, secs(1)?))
    });
    let tags = rec
        .get_known(Opcode::Ptp)
        .map(|o| {
            let texts: Vec<String> = o.operands().map(|x| String::from_utf8_lossy(x.text()).into_owned()).collect();
            texts.chunks(2).filter(|c| c.len() == 2).map(|c| (c[0].clone(), c[1].clone())).collect()
        })
        .unwrap_or_default();
    Ok(Incoming {
        command,
        position: rec.position_with_counters().expect("checked above"),
        sm: rec.get_known(Opcode::Sm).and_then(|o| o.operand(0)).and_then(|o| o.as_move()),
        consumed: pair(CONSUMED_MS).or(cc),
        remaining: pair(REMAINING_MS),
        tags,
        game: int(&rec, Opcode::Tcgs).and_then(|v| u64::try_from(v).ok()),
        draw_offer: rec.get_known(Opcode::DrawOffer).is_some(),
        message: text_of(&rec, "c0", 0),
    })
}

/// A client's record: `refreq` with the position and what goes with it.
#[derive(Clone, Debug, Default)]
pub struct ClientRecord<'a> {
    /// The request: `sign_on`, `reply`, `sign_off` or `fault`.
    pub request: &'a str,
    /// The move.
    pub sm: Option<Move>,
    /// `tcsi` address and name (sign_on).
    pub sender: Option<(&'a str, &'a str)>,
    /// `token` (sign_on).
    pub token: Option<&'a str>,
    /// `Hbms` (sign_on): the heartbeat asked for, in milliseconds.
    pub heartbeat_ms: Option<u64>,
    /// The game (`tcgs`).
    pub game: Option<u64>,
    /// Draw and resignation flags, by opcode: `draw_offer`, `draw_accept`,
    /// `draw_reject`, `draw_claim`, `resign`.
    pub flags: &'a [&'a str],
    /// `c0` (a fault's reason).
    pub message: Option<&'a str>,
    /// `ce`, `acd`, `acn` (a reply's engine score).
    pub eval: Option<Eval>,
}

impl ClientRecord<'_> {
    /// The record at `position`, canonical EPD, no newline.
    #[must_use]
    pub fn to_line(&self, position: &Position) -> Vec<u8> {
        let mut rec = Record::from_position(position);
        let _ = rec.set("refreq", &[OperandInput::Identifier(self.request)]);
        if let Some(m) = self.sm {
            let _ = rec.set("sm", &[OperandInput::Move(m)]);
        }
        if let Some((a, n)) = self.sender {
            let _ = rec.set("tcsi", &[OperandInput::String(a.as_bytes()), OperandInput::String(n.as_bytes())]);
        }
        if let Some(t) = self.token {
            let _ = rec.set(TOKEN, &[OperandInput::String(t.as_bytes())]);
        }
        if let Some(ms) = self.heartbeat_ms {
            let _ = rec.set(HEARTBEAT_MS, &[OperandInput::Integer(i64::try_from(ms).unwrap_or(i64::MAX))]);
        }
        if let Some(g) = self.game {
            let _ = rec.set("tcgs", &[OperandInput::Integer(i64::try_from(g).unwrap_or(i64::MAX))]);
        }
        for f in self.flags {
            // §8 (step 10) lets a reply claim a draw without a move, as
            // parse_request reads it: the rule that draw_claim comes with
            // sm (E024) is relaxed here, and only here.
            let _ = rec.set_allowing(f, &[], &[epd_core::Code::MissingSm]);
        }
        if let Some(m) = self.message {
            let _ = rec.set("c0", &[OperandInput::String(m.as_bytes())]);
        }
        if let Some(e) = &self.eval {
            let _ = rec.set("ce", &[OperandInput::Integer(i64::from(e.ce))]);
            if !e.pv.is_empty() {
                let pv: Vec<OperandInput<'_>> = e.pv.iter().take(MAX_PV).map(|&m| OperandInput::Move(m)).collect();
                let _ = rec.set("pv", &pv);
            }
            if let Some(d) = e.depth {
                let _ = rec.set("acd", &[OperandInput::Integer(i64::from(d))]);
            }
            if let Some(n) = e.nodes {
                let _ = rec.set("acn", &[OperandInput::Integer(i64::try_from(n).unwrap_or(i64::MAX))]);
            }
        }
        let mut out = Vec::with_capacity(120);
        rec.append_canonical(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use epd_core::SanMode;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    #[test]
    fn reads_client_requests() {
        assert_eq!(
            parse_request(format!("{START} refreq sign_on; tcsi \"host\" \"alpha\"; Token \"s3\";").as_bytes()),
            Ok(Request::SignOn { name: "alpha".into(), token: Some("s3".into()), heartbeat_ms: None })
        );
        assert_eq!(parse_request(format!("{START} refreq sign_off;\r").as_bytes()), Ok(Request::SignOff));
        let Ok(Request::Reply(r)) =
            parse_request(format!("{START} draw_offer; hmvc 0; refreq reply; sm e4; tcgs 3;").as_bytes())
        else {
            panic!()
        };
        let pos = Position::startpos();
        assert_eq!(r.mv, Some(pos.parse_san(b"e4", SanMode::Strict).unwrap()));
        assert_eq!((r.game, r.counters, r.draw_offer, r.resign), (Some(3), (Some(0), None), true, false));
        for (bad, why) in [
            ("garbage \x1b[31m", "not a valid EPD record"),
            (&format!("{START} sm e4;"), "no refreq"),
            (&format!("{START} refreq dance;"), "refreq dance is not one of: fault, reply, sign_off, sign_on"),
            (&format!("{START} refreq sign_on;"), "needs tcsi"),
            (&format!("{START} refreq reply; sm e5;"), "not a valid EPD record"),
            (&format!("{START} refreq reply; sm e4; sm d4;"), "not a valid EPD record"),
        ] {
            let e = parse_request(bad.as_bytes()).unwrap_err();
            assert!(e.0.contains(why), "{bad}: {e}");
        }
        // A claim without a move (§8 step 10) is a reply; a draw offer
        // still needs its move.
        let Ok(Request::Reply(r)) = parse_request(format!("{START} draw_claim; refreq reply;").as_bytes()) else {
            panic!("a moveless claim")
        };
        assert!(r.draw_claim && r.mv.is_none());
        assert!(parse_request(format!("{START} draw_offer; refreq reply;").as_bytes()).is_err());
        // And a client writes one: the record's edits relax only that rule.
        let claim = ClientRecord { request: "reply", flags: &["draw_claim"], ..ClientRecord::default() };
        let line = claim.to_line(&Position::startpos());
        assert_eq!(line, format!("{START} draw_claim; refreq reply;").into_bytes());
        assert!(matches!(parse_request(&line), Ok(Request::Reply(r)) if r.draw_claim));
        let long = format!("{START} refreq reply; c0 \"{}\";", "x".repeat(5000));
        assert!(parse_request(long.as_bytes()).unwrap_err().0.contains("at most 4096"));
    }

    #[test]
    fn writes_referee_commands_that_read_back() {
        let pos = Position::startpos();
        let e4 = pos.parse_san(b"e4", SanMode::Strict).unwrap();
        let tags = [("Event", "Argus test".to_owned()), ("White", "alpha".to_owned())];
        let mut o = Outgoing::new(Command::Respond, &pos);
        o.sm = Some(e4);
        o.consumed = Some((Duration::from_millis(61_250), Duration::from_millis(3_999)));
        o.remaining = Some((Duration::from_millis(238_750), Duration::from_millis(296_001)));
        o.game = Some(7);
        o.receiver = Some("beta");
        o.draw_offer = true;
        let line = String::from_utf8(o.to_line()).unwrap();
        assert_eq!(
            line,
            format!(
                "{START} Ccms 61250 3999; Rtms 238750 296001; cc 000:00:01:01 000:00:00:03; draw_offer; fmvn 1; \
                 hmvc 0; refcom respond; sm e4; tcgs 7; tcri \"argus\" \"beta\";"
            )
        );
        let (rec, diags) = Record::parse(line.as_bytes(), ParseMode::Strict);
        assert!(!has_errors(&diags), "{diags:?}");
        assert_eq!(rec.get_known(Opcode::Sm).and_then(|o| o.operand(0)).and_then(|o| o.as_move()), Some(e4));
        let mut o = Outgoing::new(Command::Inform, &pos);
        o.tags = &tags;
        let line = String::from_utf8(o.to_line()).unwrap();
        assert_eq!(line, format!("{START} ptp Event \"Argus test\" White \"alpha\"; refcom inform;"));
        let mut o = Outgoing::new(Command::Fault, &pos);
        o.message = Some("illegal move \"e5\"\n");
        assert!(String::from_utf8(o.to_line()).unwrap().ends_with("c0 \"illegal move 'e5''\"; refcom fault;"));
    }
}
