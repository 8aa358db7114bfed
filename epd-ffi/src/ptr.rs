//! Pointer plumbing: every raw pointer from C passes through one of these
//! helpers, which check it for NULL and turn it into a reference, a slice
//! or an out-parameter slot. A handle pointer is cast only to its own
//! handle's Rust type, and freed only if the handle is boxed
//! ([`Castable`]).
//!
//! The exported functions are safe Rust functions (as in rustls-ffi): the
//! C caller's contract (valid, aligned pointers that live for the call,
//! handles made by this library) is stated in the header, and these
//! helpers are the only place that relies on it.

use crate::error::{Error, Result, EPD_STATUS_INVALID_ARGUMENT, EPD_STATUS_INVALID_UTF8, EPD_STATUS_NULL_POINTER};
use core::ffi::{c_char, CStr};

fn null(name: &str) -> Error {
    Error::new(EPD_STATUS_NULL_POINTER, format!("{name} is NULL"))
}

/// What a pointer to a handle type points at, and who owns it: the
/// scheme of rustls-ffi's `Castable`. Every opaque C type (`epd_record`,
/// `epd_engine`, ...) is a zero-sized struct that C only ever sees behind
/// a pointer; its `Castable` impl names the Rust value such a pointer
/// points at (`RustType`) and how that value is owned (`Ownership`), so
/// that a pointer is only ever cast to its own handle's Rust type, and
/// only a handle the library hands out in a `Box` can be freed.
pub(crate) trait Castable {
    /// [`OwnershipBox`] or [`OwnershipRef`].
    type Ownership;
    /// The Rust value behind a pointer to the C type.
    type RustType;
}

/// A handle made by a `_new` (`_parse`, `_clone` ...) function as a `Box`
/// and given back to its `_free` function, which drops it.
#[derive(Debug)]
pub(crate) struct OwnershipBox;

/// A handle the library only lends (the request and result of a search
/// callback, valid during the call): C never frees it, and no `Box` is
/// ever made of it.
#[derive(Debug)]
pub(crate) struct OwnershipRef;

/// A shared reference to the Rust value behind a handle from C.
pub(crate) fn arg_ref<'a, C: Castable>(p: *const C, name: &str) -> Result<&'a C::RustType> {
    // SAFETY: non-NULL handle pointers from C point to the handle's Rust
    // value, made by this library (a `Box` from `to_boxed` or a lent
    // reference from `lend`), valid for the call (the header's contract).
    unsafe { p.cast::<C::RustType>().as_ref() }.ok_or_else(|| null(name))
}

/// An exclusive reference to the Rust value behind a handle from C.
pub(crate) fn arg_mut<'a, C: Castable>(p: *mut C, name: &str) -> Result<&'a mut C::RustType> {
    // SAFETY: as arg_ref; the caller does not use the handle elsewhere
    // during the call (no handle is documented as safe for that).
    unsafe { p.cast::<C::RustType>().as_mut() }.ok_or_else(|| null(name))
}

/// A new boxed handle holding `value`, for C to free with the handle's
/// `_free` function (which calls [`free_boxed`]).
pub(crate) fn to_boxed<C: Castable<Ownership = OwnershipBox>>(value: C::RustType) -> *mut C {
    Box::into_raw(Box::new(value)).cast()
}

/// Takes a boxed handle back from C: `None` for NULL.
pub(crate) fn try_box_from_ptr<C: Castable<Ownership = OwnershipBox>>(p: *mut C) -> Option<Box<C::RustType>> {
    // SAFETY: a non-NULL pointer to a boxed handle came from `to_boxed`
    // (Box::into_raw of its Rust type) and is given back once (the
    // caller's contract for _free functions).
    (!p.is_null()).then(|| unsafe { Box::from_raw(p.cast::<C::RustType>()) })
}

/// Frees a boxed handle (the body of every `_free` function): NULL does
/// nothing, and a panic in a destructor stays on this side.
pub(crate) fn free_boxed<C: Castable<Ownership = OwnershipBox>>(p: *mut C) {
    if p.is_null() {
        return;
    }
    crate::error::guard_void(|| drop(try_box_from_ptr(p)));
}

/// Lends `value` to C as a handle pointer (valid as long as the borrow,
/// which the function handing it out documents).
pub(crate) fn lend<C: Castable>(value: &C::RustType) -> *const C {
    core::ptr::from_ref(value).cast()
}

/// Lends `value` to C as a handle pointer it may change through.
pub(crate) fn lend_mut<C: Castable>(value: &mut C::RustType) -> *mut C {
    core::ptr::from_mut(value).cast()
}

/// An out-parameter slot, checked for NULL before any work is done and
/// written only on success.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    pub(crate) fn new(p: *mut T, name: &str) -> Result<Out<T>> {
        if p.is_null() {
            Err(null(name))
        } else {
            Ok(Out(p))
        }
    }

    /// An optional out-parameter: NULL means "not wanted".
    pub(crate) fn optional(p: *mut T) -> Option<Out<T>> {
        (!p.is_null()).then_some(Out(p))
    }

    pub(crate) fn set(self, value: T) {
        // SAFETY: checked non-NULL; the caller's slot is valid for writes.
        // `write` does not read or drop the (possibly uninitialized) old
        // value.
        unsafe { self.0.write(value) }
    }
}

/// `len` bytes at `p`.
pub(crate) fn bytes<'a>(p: *const c_char, len: usize, name: &str) -> Result<&'a [u8]> {
    if p.is_null() {
        return Err(null(name));
    }
    if len > isize::MAX as usize {
        return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("{name}: length {len} is too large")));
    }
    // SAFETY: the caller guarantees `len` readable bytes at `p`.
    Ok(unsafe { core::slice::from_raw_parts(p.cast::<u8>(), len) })
}

/// `count` values at `p`; `p` may be NULL when `count` is 0.
pub(crate) fn slice<'a, T>(p: *const T, count: usize, name: &str) -> Result<&'a [T]> {
    if count == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(null(name));
    }
    if count > isize::MAX as usize / core::mem::size_of::<T>().max(1) {
        return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("{name}: count {count} is too large")));
    }
    // SAFETY: the caller guarantees `count` readable values at `p`.
    Ok(unsafe { core::slice::from_raw_parts(p, count) })
}

/// Writes `values` into the caller's array at `p` (room for at least
/// `values.len()` checked by the caller against its stated capacity).
pub(crate) fn write_array<T: Copy>(p: *mut T, values: &[T], name: &str) -> Result<()> {
    if values.is_empty() {
        return Ok(());
    }
    if p.is_null() {
        return Err(null(name));
    }
    // SAFETY: the caller guarantees room for its stated capacity, which is
    // at least values.len(); the regions cannot overlap (ours is Rust's).
    unsafe { core::ptr::copy_nonoverlapping(values.as_ptr(), p, values.len()) };
    Ok(())
}

/// A NUL-terminated string's bytes (without the NUL).
pub(crate) fn c_str<'a>(p: *const c_char, name: &str) -> Result<&'a [u8]> {
    if p.is_null() {
        return Err(null(name));
    }
    // SAFETY: the caller guarantees a NUL-terminated string at `p`.
    Ok(unsafe { CStr::from_ptr(p) }.to_bytes())
}

/// Bytes that must be UTF-8.
pub(crate) fn utf8<'a>(b: &'a [u8], name: &str) -> Result<&'a str> {
    core::str::from_utf8(b).map_err(|e| {
        Error::new(EPD_STATUS_INVALID_UTF8, format!("{name} is not UTF-8 (byte {})", e.valid_up_to() + 1))
            .at(e.valid_up_to() + 1)
    })
}

/// A NUL-terminated UTF-8 string.
pub(crate) fn c_utf8<'a>(p: *const c_char, name: &str) -> Result<&'a str> {
    utf8(c_str(p, name)?, name)
}

/// Bytes in front of every owned string: its length, so that
/// epd_string_free frees exactly what was allocated even if the text holds
/// a NUL or the caller wrote one into it.
const HEADER: usize = core::mem::size_of::<u64>();

/// An owned, NUL-terminated string for the caller (freed with
/// epd_string_free). Never fails; the `Result` keeps call sites uniform.
pub(crate) fn owned_string(text: Vec<u8>) -> Result<*mut c_char> {
    let mut v = Vec::with_capacity(HEADER + text.len() + 1);
    v.extend_from_slice(&(text.len() as u64).to_ne_bytes());
    v.extend_from_slice(&text);
    v.push(0);
    let base = Box::into_raw(v.into_boxed_slice()).cast::<u8>();
    // SAFETY: the allocation is HEADER + len + 1 bytes long.
    Ok(unsafe { base.add(HEADER) }.cast())
}

/// Copies `text` and a NUL into the caller's buffer of `cap` bytes.
pub(crate) fn copy_to_buffer(text: &[u8], buf: *mut c_char, cap: usize, name: &str) -> Result<()> {
    if buf.is_null() {
        return Err(null(name));
    }
    if text.len() >= cap {
        return Err(Error::new(
            crate::error::EPD_STATUS_BUFFER_TOO_SMALL,
            format!("{name} needs {} bytes, has {cap}", text.len() + 1),
        ));
    }
    // SAFETY: the caller guarantees `cap` writable bytes at `buf`, and
    // text.len() + 1 <= cap.
    unsafe {
        core::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
        *buf.add(text.len()) = 0;
    }
    Ok(())
}

/// Frees a string returned by libepdkit (an owned `char *` out-parameter).
/// Does nothing if `s` is NULL. `s` must come from this library (never
/// from malloc) and must not be freed twice. Thread-safe.
#[no_mangle]
pub extern "C" fn epd_string_free(s: *mut c_char) {
    if s.is_null() {
        return;
    }
    crate::error::guard_void(|| {
        // SAFETY: `s` came from owned_string: HEADER bytes before it hold
        // the text's length, and the allocation is a boxed slice of
        // HEADER + len + 1 bytes.
        unsafe {
            let base = s.cast::<u8>().sub(HEADER);
            let len = base.cast::<u64>().read_unaligned() as usize;
            drop(Box::from_raw(core::ptr::slice_from_raw_parts_mut(base, HEADER + len + 1)));
        }
    });
}
