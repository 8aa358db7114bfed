//! A chess program as a client of an EPD referee (§8): connect and sign
//! on, wait for the referee's next command, read the position, the
//! opponent's move, the clocks and the tags, and answer with a move, a
//! draw offer or claim, a draw acceptance or a resignation.

use crate::error::{
    epd_status, guard, Error, Result, EPD_STATUS_ILLEGAL_MOVE, EPD_STATUS_INVALID_ARGUMENT, EPD_STATUS_IO,
    EPD_STATUS_NOT_FOUND, EPD_STATUS_NO_POSITION,
};
use crate::position::{epd_move, epd_position};
use crate::ptr::{arg_mut, arg_ref, c_utf8, free_boxed, owned_string, to_boxed, Castable, Out, OwnershipBox};
use core::ffi::{c_char, c_int, c_uint, c_ulong};
use epd_referee::client::{Client, Reply};
use epd_referee::protocol::Command;
use std::time::Duration;

/// A connection to a referee, signed on. Made by epd_referee_connect and
/// freed with epd_referee_close.
///
/// Thread safety: one thread at a time; calls block on the network.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_referee_client {
    _private: [u8; 0],
}

impl Castable for epd_referee_client {
    type Ownership = OwnershipBox;
    type RustType = RefereeClient;
}

/// The Rust value behind an epd_referee_client handle.
#[derive(Debug)]
pub(crate) struct RefereeClient {
    client: Option<Client>,
}

/// The referee's commands (§8.1), as epd_referee_next gives them.
#[allow(non_camel_case_types)]
pub type epd_refcom = c_int;
/// The game is over (§8.1.1); the position is the final one.
pub const EPD_REFCOM_CONCLUDE: epd_refcom = 1;
/// The referee is going away (§8.1.2): close the connection.
pub const EPD_REFCOM_DISCONNECT: epd_refcom = 2;
/// Play through a move without answering (§8.1.3, a restart).
pub const EPD_REFCOM_EXECUTE: epd_refcom = 3;
/// The referee hit a fault (§8.1.4); epd_referee_message says which.
pub const EPD_REFCOM_FAULT: epd_refcom = 4;
/// PGN tags (§8.1.5); read them with epd_referee_tag.
pub const EPD_REFCOM_INFORM: epd_refcom = 5;
/// A new game (§8.1.6).
pub const EPD_REFCOM_RESET: epd_refcom = 6;
/// Your move (§8.1.7): answer with epd_referee_reply (or accept, claim,
/// resign).
pub const EPD_REFCOM_RESPOND: epd_refcom = 7;

/// epd_referee_reply flag: offer a draw with the move.
pub const EPD_REPLY_DRAW_OFFER: c_uint = 1;
/// epd_referee_reply flag: claim a draw (threefold repetition or the
/// 50-move rule) with the move.
pub const EPD_REPLY_DRAW_CLAIM: c_uint = 2;

fn io(e: std::io::Error) -> Error {
    Error::io(e.to_string(), &e)
}

fn client_mut(c: *mut epd_referee_client) -> Result<&'static mut Client> {
    let c = arg_mut(c, "client")?;
    c.client.as_mut().ok_or_else(|| Error::new(EPD_STATUS_IO, "the connection is closed"))
}

fn client_ref(c: *const epd_referee_client) -> Result<&'static Client> {
    let c = arg_ref(c, "client")?;
    c.client.as_ref().ok_or_else(|| Error::new(EPD_STATUS_IO, "the connection is closed"))
}

/// Connects to the referee at `address` ("HOST:PORT"), waiting at most
/// `timeout_ms` milliseconds, and signs on as `name`, presenting `token`
/// (NULL when the event requires none). On success *out_client is a new
/// client (free it with epd_referee_close). EPD_STATUS_IO when the
/// referee cannot be reached.
#[no_mangle]
pub extern "C" fn epd_referee_connect(
    address: *const c_char,
    name: *const c_char,
    token: *const c_char,
    timeout_ms: c_ulong,
    out_client: *mut *mut epd_referee_client,
) -> epd_status {
    guard(|| {
        let address = c_utf8(address, "address")?;
        let name = c_utf8(name, "name")?;
        let token = if token.is_null() { None } else { Some(c_utf8(token, "token")?) };
        let out = Out::new(out_client, "out_client")?;
        if name.trim().is_empty() {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, "the name is empty"));
        }
        let c =
            Client::connect(address, name, token, Duration::from_millis(u64::from(timeout_ms).max(1))).map_err(io)?;
        out.set(to_boxed(RefereeClient { client: Some(c) }));
        Ok(())
    })
}

/// Waits for the referee's next record and writes its command
/// (EPD_REFCOM_...) to *out_command. EPD_STATUS_IO when the connection
/// closed or failed, EPD_STATUS_INVALID_RECORD for a record that is not
/// the referee's.
#[no_mangle]
pub extern "C" fn epd_referee_next(client: *mut epd_referee_client, out_command: *mut epd_refcom) -> epd_status {
    guard(|| {
        let c = client_mut(client)?;
        let out = Out::new(out_command, "out_command")?;
        let command = c.next_command().map_err(|e| {
            if e.kind() == std::io::ErrorKind::InvalidData {
                Error::new(crate::error::EPD_STATUS_INVALID_RECORD, e.to_string())
            } else {
                io(e)
            }
        })?;
        out.set(match command {
            Command::Conclude => EPD_REFCOM_CONCLUDE,
            Command::Disconnect => EPD_REFCOM_DISCONNECT,
            Command::Execute => EPD_REFCOM_EXECUTE,
            Command::Fault => EPD_REFCOM_FAULT,
            Command::Inform => EPD_REFCOM_INFORM,
            Command::Reset => EPD_REFCOM_RESET,
            Command::Respond => EPD_REFCOM_RESPOND,
        });
        Ok(())
    })
}

/// The position to move from (the last record's position after the
/// opponent's move), as a new position in *out_position (free it with
/// epd_position_free).
#[no_mangle]
pub extern "C" fn epd_referee_position(
    client: *const epd_referee_client,
    out_position: *mut *mut epd_position,
) -> epd_status {
    guard(|| {
        let c = client_ref(client)?;
        let out = Out::new(out_position, "out_position")?;
        if c.record().is_none() {
            return Err(Error::new(EPD_STATUS_NO_POSITION, "no record from the referee yet"));
        }
        out.set(to_boxed(c.position()));
        Ok(())
    })
}

/// The opponent's last move (sm of the last record) in *out_move, and 1
/// in *out_has_move; 0 in *out_has_move (and *out_move untouched) when
/// the record has none.
#[no_mangle]
pub extern "C" fn epd_referee_last_move(
    client: *const epd_referee_client,
    out_move: *mut epd_move,
    out_has_move: *mut c_int,
) -> epd_status {
    guard(|| {
        let c = client_ref(client)?;
        let out = Out::new(out_move, "out_move")?;
        let has = Out::new(out_has_move, "out_has_move")?;
        match c.last_move() {
            Some(m) => {
                out.set(m.into());
                has.set(1);
            }
            None => has.set(0),
        }
        Ok(())
    })
}

/// Time left for White and Black, in milliseconds, from the last record.
/// EPD_STATUS_NOT_FOUND when it carried no clocks.
#[no_mangle]
pub extern "C" fn epd_referee_clocks(
    client: *const epd_referee_client,
    out_white_ms: *mut c_ulong,
    out_black_ms: *mut c_ulong,
) -> epd_status {
    guard(|| {
        let c = client_ref(client)?;
        let w = Out::new(out_white_ms, "out_white_ms")?;
        let b = Out::new(out_black_ms, "out_black_ms")?;
        let (wt, bt) = c.clocks().ok_or_else(|| Error::new(EPD_STATUS_NOT_FOUND, "the record has no clocks"))?;
        w.set(c_ulong::try_from(wt).unwrap_or(c_ulong::MAX));
        b.set(c_ulong::try_from(bt).unwrap_or(c_ulong::MAX));
        Ok(())
    })
}

/// 1 in *out_offered when the opponent offers a draw with its last move,
/// else 0.
#[no_mangle]
pub extern "C" fn epd_referee_draw_offered(client: *const epd_referee_client, out_offered: *mut c_int) -> epd_status {
    guard(|| {
        let c = client_ref(client)?;
        Out::new(out_offered, "out_offered")?.set(c_int::from(c.draw_offered()));
        Ok(())
    })
}

/// The value of PGN tag `name` for the current game (sent with inform),
/// as a new string in *out_value (owned: free it with epd_string_free).
/// EPD_STATUS_NOT_FOUND when the referee has not sent it.
#[no_mangle]
pub extern "C" fn epd_referee_tag(
    client: *const epd_referee_client,
    name: *const c_char,
    out_value: *mut *mut c_char,
) -> epd_status {
    guard(|| {
        let c = client_ref(client)?;
        let name = c_utf8(name, "name")?;
        let out = Out::new(out_value, "out_value")?;
        let v = c.tag(name).ok_or_else(|| Error::new(EPD_STATUS_NOT_FOUND, format!("no tag {name}")))?;
        out.set(owned_string(v.as_bytes().to_vec())?);
        Ok(())
    })
}

/// The reason the last fault record gave, as a new string in *out_message
/// (owned: free it with epd_string_free); empty when none was given.
#[no_mangle]
pub extern "C" fn epd_referee_message(client: *const epd_referee_client, out_message: *mut *mut c_char) -> epd_status {
    guard(|| {
        let c = client_ref(client)?;
        let out = Out::new(out_message, "out_message")?;
        let m = c.record().and_then(|r| r.message.clone()).unwrap_or_default();
        out.set(owned_string(m.into_bytes())?);
        Ok(())
    })
}

/// Answers the last respond with `mv`, legal in the position of
/// epd_referee_position, and `flags` (0, EPD_REPLY_DRAW_OFFER or
/// EPD_REPLY_DRAW_CLAIM). EPD_STATUS_ILLEGAL_MOVE for an illegal move
/// (nothing is sent).
#[no_mangle]
pub extern "C" fn epd_referee_reply(client: *mut epd_referee_client, mv: epd_move, flags: c_uint) -> epd_status {
    guard(|| {
        let c = client_mut(client)?;
        if flags & !(EPD_REPLY_DRAW_OFFER | EPD_REPLY_DRAW_CLAIM) != 0 {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("unknown reply flags {flags:#x}")));
        }
        let pos = c.position();
        let m = mv.to_move()?;
        if !pos.is_legal(m) {
            return Err(Error::new(EPD_STATUS_ILLEGAL_MOVE, "the move is not legal in the referee's position"));
        }
        let reply = Reply::Move {
            mv: m,
            draw_offer: flags & EPD_REPLY_DRAW_OFFER != 0,
            draw_claim: flags & EPD_REPLY_DRAW_CLAIM != 0,
        };
        c.reply(reply).map_err(io)
    })
}

/// Accepts the opponent's draw offer (instead of a move).
#[no_mangle]
pub extern "C" fn epd_referee_accept_draw(client: *mut epd_referee_client) -> epd_status {
    guard(|| client_mut(client)?.reply(Reply::AcceptDraw).map_err(io))
}

/// Claims a draw without moving (the position already qualifies).
#[no_mangle]
pub extern "C" fn epd_referee_claim_draw(client: *mut epd_referee_client) -> epd_status {
    guard(|| client_mut(client)?.reply(Reply::ClaimDraw).map_err(io))
}

/// Resigns the game in progress.
#[no_mangle]
pub extern "C" fn epd_referee_resign(client: *mut epd_referee_client) -> epd_status {
    guard(|| client_mut(client)?.reply(Reply::Resign).map_err(io))
}

/// Signs off, closes the connection and frees `client`. NULL is a no-op.
#[no_mangle]
pub extern "C" fn epd_referee_close(client: *mut epd_referee_client) {
    if client.is_null() {
        return;
    }
    crate::error::guard_void(|| {
        if let Ok(c) = arg_mut(client, "client") {
            if let Some(c) = c.client.take() {
                let _ = c.sign_off();
            }
        }
    });
    free_boxed(client);
}
