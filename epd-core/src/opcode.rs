//! The opcode catalog: every opcode of §6 plus `acd`, with its operand
//! types, arity and ordering rule.

use core::fmt;

/// The basetype an operand of an opcode must have (§5.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OperandType {
    /// An identifier (§5.2.1).
    Identifier,
    /// A chess move in SAN (§5.2.2).
    Move,
    /// An integer (§5.2.3).
    Integer,
    /// A floating point number (§5.2.4).
    Float,
    /// A date, `YYYY.MM.DD` (§5.2.5).
    Date,
    /// A time of day, `HH:MM:SS` (§5.2.6).
    TimeOfDay,
    /// A clock, `DDD:HH:MM:SS` (§5.2.7).
    Clock,
    /// A quoted string (§5.1).
    String,
    /// Anything (`noop`, unknown opcodes).
    Any,
}

impl fmt::Display for OperandType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OperandType::Identifier => "an identifier",
            OperandType::Move => "a SAN move",
            OperandType::Integer => "an integer",
            OperandType::Float => "a floating point number",
            OperandType::Date => "a date (YYYY.MM.DD)",
            OperandType::TimeOfDay => "a time of day (HH:MM:SS)",
            OperandType::Clock => "a clock value (DDD:HH:MM:SS)",
            OperandType::String => "a quoted string",
            OperandType::Any => "an operand",
        })
    }
}

/// How many operands an opcode takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Arity {
    /// Exactly this many.
    Exactly(u8),
    /// None or one.
    Optional,
    /// Any number.
    Any,
    /// An even number (pairs).
    Pairs,
}

impl Arity {
    /// `true` if an operation may have `n` operands.
    #[must_use]
    pub const fn accepts(self, n: usize) -> bool {
        match self {
            Arity::Exactly(k) => n == k as usize,
            Arity::Optional => n <= 1,
            Arity::Any => true,
            Arity::Pairs => n.is_multiple_of(2),
        }
    }
}

/// The cross-checks between the operations of one record, written once:
/// the general parser makes them all, and the record fast path takes only
/// opcodes whose checks it makes (see [`Opcode::cross_check`]).
///
/// The move of the first opcode must be the first move of the second
/// (pm and pv, sm and sv).
pub const FIRST_MOVE_PAIRS: [(Opcode, Opcode); 2] = [(Opcode::Pm, Opcode::Pv), (Opcode::Sm, Opcode::Sv)];

/// Opcodes that exclude each other in one record (§6: a draw offer and
/// its claim, an acceptance and a rejection, a resignation and any draw
/// operation).
pub const EXCLUSIVE_PAIRS: [(Opcode, Opcode); 6] = [
    (Opcode::DrawAccept, Opcode::DrawReject),
    (Opcode::DrawClaim, Opcode::DrawOffer),
    (Opcode::Resign, Opcode::DrawAccept),
    (Opcode::Resign, Opcode::DrawClaim),
    (Opcode::Resign, Opcode::DrawOffer),
    (Opcode::Resign, Opcode::DrawReject),
];

/// Opcodes that need an sm operation in the same record.
pub const NEED_SM: [Opcode; 2] = [Opcode::DrawOffer, Opcode::DrawClaim];

/// Which cross-checks an opcode takes part in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CrossCheck {
    /// None.
    None,
    /// A first-move check ([`FIRST_MOVE_PAIRS`]): the slot is the
    /// opcode's place in that table, 0 and 1 for the first pair's two
    /// opcodes, 2 and 3 for the second's.
    FirstMove(u8),
    /// Another check ([`EXCLUSIVE_PAIRS`], [`NEED_SM`]).
    Other,
}

/// Whether an opcode's operands may be reordered by normalization.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// A set: normalization sorts the operands in ASCII order (am, bm).
    Set,
    /// Order matters and is kept (pv, sv, cc, ts, ptp …).
    Sequence,
}

/// A known opcode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum Opcode {
    Acd,
    Acn,
    Acs,
    Am,
    Bm,
    C0,
    C1,
    C2,
    C3,
    C4,
    C5,
    C6,
    C7,
    C8,
    C9,
    Cc,
    Ce,
    Dm,
    DrawAccept,
    DrawClaim,
    DrawOffer,
    DrawReject,
    Eco,
    Fmvn,
    Hmvc,
    Id,
    Nic,
    Noop,
    Pm,
    Ptp,
    Pv,
    Rc,
    Refcom,
    Refreq,
    Resign,
    Sm,
    Sv,
    Tcgs,
    Tcri,
    Tcsi,
    Ts,
    V0,
    V1,
    V2,
    V3,
    V4,
    V5,
    V6,
    V7,
    V8,
    V9,
}

/// The enumerated operands of `refcom` (§6.23).
pub const REFCOM_COMMANDS: [&str; 7] = ["conclude", "disconnect", "execute", "fault", "inform", "reset", "respond"];
/// The enumerated operands of `refreq` (§6.24).
pub const REFREQ_REQUESTS: [&str; 4] = ["fault", "reply", "sign_off", "sign_on"];

impl Opcode {
    /// Every known opcode, in ASCII order of mnemonic.
    pub const ALL: [Opcode; 51] = [
        Opcode::Acd,
        Opcode::Acn,
        Opcode::Acs,
        Opcode::Am,
        Opcode::Bm,
        Opcode::C0,
        Opcode::C1,
        Opcode::C2,
        Opcode::C3,
        Opcode::C4,
        Opcode::C5,
        Opcode::C6,
        Opcode::C7,
        Opcode::C8,
        Opcode::C9,
        Opcode::Cc,
        Opcode::Ce,
        Opcode::Dm,
        Opcode::DrawAccept,
        Opcode::DrawClaim,
        Opcode::DrawOffer,
        Opcode::DrawReject,
        Opcode::Eco,
        Opcode::Fmvn,
        Opcode::Hmvc,
        Opcode::Id,
        Opcode::Nic,
        Opcode::Noop,
        Opcode::Pm,
        Opcode::Ptp,
        Opcode::Pv,
        Opcode::Rc,
        Opcode::Refcom,
        Opcode::Refreq,
        Opcode::Resign,
        Opcode::Sm,
        Opcode::Sv,
        Opcode::Tcgs,
        Opcode::Tcri,
        Opcode::Tcsi,
        Opcode::Ts,
        Opcode::V0,
        Opcode::V1,
        Opcode::V2,
        Opcode::V3,
        Opcode::V4,
        Opcode::V5,
        Opcode::V6,
        Opcode::V7,
        Opcode::V8,
        Opcode::V9,
    ];

    /// The mnemonic.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Opcode::Acd => "acd",
            Opcode::Acn => "acn",
            Opcode::Acs => "acs",
            Opcode::Am => "am",
            Opcode::Bm => "bm",
            Opcode::C0 => "c0",
            Opcode::C1 => "c1",
            Opcode::C2 => "c2",
            Opcode::C3 => "c3",
            Opcode::C4 => "c4",
            Opcode::C5 => "c5",
            Opcode::C6 => "c6",
            Opcode::C7 => "c7",
            Opcode::C8 => "c8",
            Opcode::C9 => "c9",
            Opcode::Cc => "cc",
            Opcode::Ce => "ce",
            Opcode::Dm => "dm",
            Opcode::DrawAccept => "draw_accept",
            Opcode::DrawClaim => "draw_claim",
            Opcode::DrawOffer => "draw_offer",
            Opcode::DrawReject => "draw_reject",
            Opcode::Eco => "eco",
            Opcode::Fmvn => "fmvn",
            Opcode::Hmvc => "hmvc",
            Opcode::Id => "id",
            Opcode::Nic => "nic",
            Opcode::Noop => "noop",
            Opcode::Pm => "pm",
            Opcode::Ptp => "ptp",
            Opcode::Pv => "pv",
            Opcode::Rc => "rc",
            Opcode::Refcom => "refcom",
            Opcode::Refreq => "refreq",
            Opcode::Resign => "resign",
            Opcode::Sm => "sm",
            Opcode::Sv => "sv",
            Opcode::Tcgs => "tcgs",
            Opcode::Tcri => "tcri",
            Opcode::Tcsi => "tcsi",
            Opcode::Ts => "ts",
            Opcode::V0 => "v0",
            Opcode::V1 => "v1",
            Opcode::V2 => "v2",
            Opcode::V3 => "v3",
            Opcode::V4 => "v4",
            Opcode::V5 => "v5",
            Opcode::V6 => "v6",
            Opcode::V7 => "v7",
            Opcode::V8 => "v8",
            Opcode::V9 => "v9",
        }
    }

    /// Looks up a mnemonic (exact, case-sensitive).
    #[must_use]
    pub fn from_name(name: &[u8]) -> Option<Opcode> {
        use Opcode::*;
        Some(match name {
            b"acd" => Acd,
            b"acn" => Acn,
            b"acs" => Acs,
            b"am" => Am,
            b"bm" => Bm,
            [b'c', d @ b'0'..=b'9'] => [C0, C1, C2, C3, C4, C5, C6, C7, C8, C9][usize::from(d - b'0')],
            [b'v', d @ b'0'..=b'9'] => [V0, V1, V2, V3, V4, V5, V6, V7, V8, V9][usize::from(d - b'0')],
            b"cc" => Cc,
            b"ce" => Ce,
            b"dm" => Dm,
            b"draw_accept" => DrawAccept,
            b"draw_claim" => DrawClaim,
            b"draw_offer" => DrawOffer,
            b"draw_reject" => DrawReject,
            b"eco" => Eco,
            b"fmvn" => Fmvn,
            b"hmvc" => Hmvc,
            b"id" => Id,
            b"nic" => Nic,
            b"noop" => Noop,
            b"pm" => Pm,
            b"ptp" => Ptp,
            b"pv" => Pv,
            b"rc" => Rc,
            b"refcom" => Refcom,
            b"refreq" => Refreq,
            b"resign" => Resign,
            b"sm" => Sm,
            b"sv" => Sv,
            b"tcgs" => Tcgs,
            b"tcri" => Tcri,
            b"tcsi" => Tcsi,
            b"ts" => Ts,
            _ => return None,
        })
    }

    /// The operand count rule.
    #[must_use]
    pub const fn arity(self) -> Arity {
        use Opcode::*;
        match self {
            Acd | Acn | Acs | Ce | Dm | Fmvn | Hmvc | Id | Pm | Rc | Refcom | Refreq | Sm | Tcgs => Arity::Exactly(1),
            Cc | Tcri | Tcsi | Ts => Arity::Exactly(2),
            DrawAccept | DrawClaim | DrawOffer | DrawReject | Resign => Arity::Exactly(0),
            C0 | C1 | C2 | C3 | C4 | C5 | C6 | C7 | C8 | C9 | Eco | Nic | V0 | V1 | V2 | V3 | V4 | V5 | V6 | V7
            | V8 | V9 => Arity::Optional,
            Am | Bm | Noop | Pv | Sv => Arity::Any,
            Ptp => Arity::Pairs,
        }
    }

    /// The basetype of operand `index` (0-based).
    #[must_use]
    pub const fn operand_type(self, index: usize) -> OperandType {
        use Opcode::*;
        match self {
            Acd | Acn | Acs | Ce | Dm | Fmvn | Hmvc | Rc | Tcgs => OperandType::Integer,
            Am | Bm | Pm | Pv | Sm | Sv => OperandType::Move,
            Cc => OperandType::Clock,
            C0 | C1 | C2 | C3 | C4 | C5 | C6 | C7 | C8 | C9 | Eco | Id | Nic | Tcri | Tcsi | V0 | V1 | V2 | V3 | V4
            | V5 | V6 | V7 | V8 | V9 => OperandType::String,
            Refcom | Refreq => OperandType::Identifier,
            Ptp => {
                if index.is_multiple_of(2) {
                    OperandType::Identifier
                } else {
                    OperandType::String
                }
            }
            Ts => {
                if index == 0 {
                    OperandType::Date
                } else {
                    OperandType::TimeOfDay
                }
            }
            DrawAccept | DrawClaim | DrawOffer | DrawReject | Resign | Noop => OperandType::Any,
        }
    }

    /// The cross-checks this opcode takes part in, from the tables
    /// [`FIRST_MOVE_PAIRS`], [`EXCLUSIVE_PAIRS`] and [`NEED_SM`].
    #[must_use]
    pub const fn cross_check(self) -> CrossCheck {
        let me = self as usize;
        let mut i = 0;
        while i < FIRST_MOVE_PAIRS.len() {
            let (a, b) = FIRST_MOVE_PAIRS[i];
            if a as usize == me {
                return CrossCheck::FirstMove(2 * i as u8);
            }
            if b as usize == me {
                return CrossCheck::FirstMove(2 * i as u8 + 1);
            }
            i += 1;
        }
        let mut i = 0;
        while i < EXCLUSIVE_PAIRS.len() {
            let (a, b) = EXCLUSIVE_PAIRS[i];
            if a as usize == me || b as usize == me {
                return CrossCheck::Other;
            }
            i += 1;
        }
        let mut i = 0;
        while i < NEED_SM.len() {
            if NEED_SM[i] as usize == me {
                return CrossCheck::Other;
            }
            i += 1;
        }
        CrossCheck::None
    }

    /// `true` for the opcodes whose moves are played one after the other
    /// (pv, sv), each from the position the one before it leaves.
    #[must_use]
    pub const fn plays_in_sequence(self) -> bool {
        matches!(self, Opcode::Pv | Opcode::Sv)
    }

    /// Whether normalization may sort the operands.
    #[must_use]
    pub const fn order(self) -> Order {
        match self {
            Opcode::Am | Opcode::Bm => Order::Set,
            _ => Order::Sequence,
        }
    }

    /// The inclusive range an integer operand must lie in, if any.
    #[must_use]
    pub const fn integer_range(self) -> Option<(i64, i64)> {
        match self {
            Opcode::Ce => Some((-32768, 32766)),
            Opcode::Dm | Opcode::Rc | Opcode::Fmvn | Opcode::Tcgs => Some((1, i64::MAX)),
            Opcode::Acn | Opcode::Acs | Opcode::Acd | Opcode::Hmvc => Some((0, i64::MAX)),
            _ => None,
        }
    }

    /// For `c0`–`c9` and `v0`–`v9`: the register family and index.
    #[must_use]
    pub const fn register(self) -> Option<(char, usize)> {
        use Opcode::*;
        Some(match self {
            C0 => ('c', 0),
            C1 => ('c', 1),
            C2 => ('c', 2),
            C3 => ('c', 3),
            C4 => ('c', 4),
            C5 => ('c', 5),
            C6 => ('c', 6),
            C7 => ('c', 7),
            C8 => ('c', 8),
            C9 => ('c', 9),
            V0 => ('v', 0),
            V1 => ('v', 1),
            V2 => ('v', 2),
            V3 => ('v', 3),
            V4 => ('v', 4),
            V5 => ('v', 5),
            V6 => ('v', 6),
            V7 => ('v', 7),
            V8 => ('v', 8),
            V9 => ('v', 9),
            _ => return None,
        })
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `true` if `name` is a well-formed opcode (§5.1): a letter, then up to
/// fourteen letters, digits or underscores.
#[must_use]
pub fn is_valid_opcode(name: &[u8]) -> bool {
    !name.is_empty()
        && name.len() <= 15
        && name[0].is_ascii_alphabetic()
        && name.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_is_sorted_and_complete() {
        let names: Vec<&str> = Opcode::ALL.iter().map(|o| o.name()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        for op in Opcode::ALL {
            assert_eq!(Opcode::from_name(op.name().as_bytes()), Some(op));
        }
        assert_eq!(Opcode::from_name(b"D1"), None);
        assert_eq!(Opcode::from_name(b"BM"), None);
        assert_eq!(Opcode::ALL.len(), 30 + 20 + 1);
    }

    #[test]
    fn opcode_syntax() {
        for ok in ["bm", "c0", "draw_accept", "D1", "A23456789012345"] {
            assert!(is_valid_opcode(ok.as_bytes()), "{ok}");
        }
        for bad in ["", "0", "00:00", "--:--", "Duals(117)", "A234567890123456", "_x"] {
            assert!(!is_valid_opcode(bad.as_bytes()), "{bad}");
        }
    }
}
