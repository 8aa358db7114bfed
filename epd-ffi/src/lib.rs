//! libepdkit: the C ABI over epd-core. The full API is built out in its own
//! issue; this crate currently exposes only the library version.

/// The library version, as a NUL-terminated static string
/// (borrowed; never free it).
#[no_mangle]
pub extern "C" fn epd_version() -> *const core::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
