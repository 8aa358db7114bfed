//! libepdkit: the C ABI of EPD Kit, over epd-core and the crates above it
//! (the engines, the report, the referee's client). The guide (install,
//! linking, the API) is docs/c-api.md in the repository.
//!
//! Built as `libepdkit.so` and `libepdkit.a`; the header
//! `include/epdkit.h` is generated from this crate by cbindgen (see
//! `cbindgen.toml`) and committed. The conventions (statuses, handles,
//! owned and borrowed strings, thread safety) are stated at the top of the
//! header.
//!
//! The exported functions are safe Rust `extern "C"` functions, as in
//! rustls-ffi: they are meant to be called from C, whose caller contract
//! is documented in the header; the `rlib` exists for the Rust tests and
//! benchmarks. Every raw pointer goes through the helpers in `ptr`, and
//! every body runs inside the panic boundary in `error`.

// C's long and unsigned long are 64 bits wide here and 32 bits on other
// platforms: conversions that are no-ops on this target are not on all.
#![allow(clippy::useless_conversion, clippy::unnecessary_fallible_conversions)]

// Declared in the order the header presents them (cbindgen follows the
// module order; the blank lines keep rustfmt from sorting them).
mod error;

mod ptr;

mod position;

mod san;

mod diag;

mod record;

mod score;

mod registers;

mod cancel;

mod verbs;

mod select;

mod batch;

mod engine;

mod mate;

mod pgn;

/// The referee client (§8).
mod referee;
mod report;

pub use batch::*;
pub use cancel::*;
pub use diag::*;
pub use engine::*;
pub use error::*;
pub use mate::*;
pub use pgn::*;
pub use position::*;
pub use ptr::epd_string_free;
pub use record::*;
pub use referee::*;
pub use registers::*;
pub use report::*;
pub use san::*;
pub use score::*;
pub use select::*;
pub use verbs::*;

use core::ffi::{c_char, c_int};

/// The major version of the library this header belongs to.
pub const EPDKIT_VERSION_MAJOR: c_int = 0;
/// The minor version of the library this header belongs to.
pub const EPDKIT_VERSION_MINOR: c_int = 1;
/// The patch version of the library this header belongs to.
pub const EPDKIT_VERSION_PATCH: c_int = 0;

/// The version of the library actually loaded, "MAJOR.MINOR.PATCH", as a
/// static string (borrowed: never free it). Compare it with the
/// EPDKIT_VERSION_... macros to detect a header/library mismatch.
#[no_mangle]
pub extern "C" fn epd_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_constants_match_cargo_toml() {
        let parse = |s: &str| s.parse::<c_int>().unwrap();
        assert_eq!(EPDKIT_VERSION_MAJOR, parse(env!("CARGO_PKG_VERSION_MAJOR")));
        assert_eq!(EPDKIT_VERSION_MINOR, parse(env!("CARGO_PKG_VERSION_MINOR")));
        assert_eq!(EPDKIT_VERSION_PATCH, parse(env!("CARGO_PKG_VERSION_PATCH")));
    }
}
