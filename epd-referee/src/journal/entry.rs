//! The journal's entries: one state change each, as JSON (`{"t":"move",...}`).
//! The director writes them ahead of acting; `replay` reads them back.

/// One state change, as the journal keeps it (JSON).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Entry {
    /// The referee starts (`epoch` 1) or resumes (one more each time),
    /// with the seed of a random opening order (so `epd match --resume`
    /// finds the order its first run drew).
    Begin {
        epoch: u64,
        event: String,
        games: usize,
        date: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        openings_seed: Option<u64>,
    },
    /// The event is over: every game played, or the SPRT decided. A
    /// journal that ends so is not resumed; a new event may replace it.
    Over,
    /// Scheduled game `game` (its index in the schedule) starts.
    Start { game: usize },
    /// A move of a game in progress, the time it took, and whether its
    /// player offered a draw with it.
    Move {
        game: usize,
        uci: String,
        ns: u64,
        offer: bool,
        /// The engine's score, depth and nodes, when its reply said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        eval: Option<crate::protocol::Eval>,
    },
    /// A game is over: its result and its PGN as written.
    End {
        game: usize,
        white: usize,
        black: usize,
        result: String,
        pgn: String,
        /// What the loser lost to, when it was a failure the match counts
        /// (a crash, a stall, the flag, an illegal move).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fault: Option<crate::game::Fault>,
    },
    /// A game aborted by the supervisor, or void (`host_loss = "void"`: a
    /// player's host was lost): back in the schedule, not scored.
    Abort {
        game: usize,
        /// Why the game is void; none: the supervisor aborted it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        void: Option<String>,
    },
    /// The supervisor paused a game: its clocks stay stopped, after a
    /// resumption too, until it is unpaused.
    Pause { game: usize },
    /// The supervisor resumed a paused game.
    Unpause { game: usize },
    /// A hot standby follows this journal and would take over at
    /// `listen` after `heartbeat_ms` of silence: a referee resumed from
    /// the journal asks it first, and holds its records until it follows
    /// again or cannot have taken over.
    Standby {
        listen: String,
        #[serde(default)]
        heartbeat_ms: u64,
    },
}
