//! The hot standby (`epd referee EVENT.toml --standby PRIMARY`): a second
//! referee that follows the primary's journal as it is written and takes
//! the event over when the primary stops answering.
//!
//! The standby reaches the primary at the address its clients use. Its
//! first line, `EPDKIT-STANDBY follow token=T listen=ADDR heartbeat_ms=N`,
//! presents the event's `supervisor_token`; a client record never starts
//! so, and a line without the token is refused. The primary answers with
//! lines of its own protocol:
//!
//! - `R`: the journal starts again (the standby's copy is replaced);
//! - `J PAYLOAD`: one journal entry, verbatim (JSON, never a newline);
//! - `C SEQ`: the entries since the last `C` are a batch: the standby
//!   appends them to its journal, syncs, and answers `A SEQ`;
//! - `H`: a heartbeat, every quarter of the standby's heartbeat;
//! - `E`: the event is over; `Q`: the supervisor stopped the primary
//!   (`quit`, to be resumed later): either way the standby leaves;
//! - `X`: the primary goes on without this standby (it did not
//!   acknowledge a batch within a second, and did not answer as having
//!   taken over), then closes the connection: the standby's copy is
//!   behind, so it follows again from a fresh copy and takes nothing
//!   over before it has one.
//!
//! The primary holds every record of a turn until the standby has
//! acknowledged the turn's entries (or is gone), so a move acknowledged to
//! a client is in the standby's journal before the client hears of it.
//!
//! When nothing has come from the primary for a heartbeat (2 s unless
//! told), or its address refuses connections (the host is up, the
//! referee's process is gone), the standby takes over: it resumes the
//! event from its copy of the journal, as `--resume` does, with a new
//! epoch, on its own listen address. It binds that address when it starts
//! and accepts nothing until it takes over, so clients that fail over to
//! it (`epd play --referee A,B`) wait in the listen queue and are served
//! the moment it does.
//!
//! Split brain is prevented by epochs. Every start and resumption writes a
//! `Begin` entry with one more epoch than the journal held. A referee that
//! took over tells the old primary to yield (`EPDKIT-STANDBY yield
//! epoch=N`) until it does: a primary whose epoch is not newer steps down.
//! A primary that loses its standby holds its records and asks the
//! standby's address for its epoch (`EPDKIT-STANDBY probe`): if the
//! standby has taken over with a newer epoch, the primary steps down
//! without sending them. A primary restarted with `--resume` asks the
//! standby its journal names before it acts, and steps down the same way.
//!
//! A partition between the primary and the standby that leaves both
//! reachable by clients is not settled: the standby takes over after its
//! heartbeat, the primary's probe gets no answer and it goes on without
//! a standby, and both act until the partition heals, when the primary
//! yields to the newer epoch. Two referees cannot tell a partition from a
//! dead peer without a third party.

pub mod follower;
pub mod wire;
