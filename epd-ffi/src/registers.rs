//! The scanning registers: c0-c9, v0-v9 (section 6.5, section 6.32), ECO and NIC
//! (section 6.13, section 6.17) and the PGN tags of ptp (section 6.20).

use crate::error::{epd_status, guard, Error, Result, EPD_STATUS_INVALID_ARGUMENT, EPD_STATUS_NOT_FOUND};

use crate::ptr::{arg_mut, arg_ref, c_utf8, free_boxed, to_boxed, Castable, Out, OwnershipBox};
use crate::record::epd_record;
use core::ffi::{c_char, c_uint};
use epd_core::Registers;

/// Register state for one game or game fragment, kept while a program
/// scans its records from left to right. Created by epd_registers_new
/// (all registers null), freed with epd_registers_free.
///
/// Thread safety: may be used from any thread, and read from several at
/// once; not changed (apply, reset) while another thread uses it.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_registers {
    _private: [u8; 0],
}

impl Castable for epd_registers {
    type Ownership = OwnershipBox;
    type RustType = RegistersBuf;
}

/// The Rust value behind an epd_registers handle.
#[derive(Debug)]
pub(crate) struct RegistersBuf {
    regs: Registers,
}

/// Creates a register set with every register null, in *out_registers
/// (free it with epd_registers_free).
#[no_mangle]
pub extern "C" fn epd_registers_new(out_registers: *mut *mut epd_registers) -> epd_status {
    guard(|| {
        Out::new(out_registers, "out_registers")?.set(to_boxed(RegistersBuf { regs: Registers::new() }));
        Ok(())
    })
}

/// Frees a register set. Does nothing if `registers` is NULL.
#[no_mangle]
pub extern "C" fn epd_registers_free(registers: *mut epd_registers) {
    free_boxed(registers);
}

/// Starts a new game or fragment: every register back to null.
#[no_mangle]
pub extern "C" fn epd_registers_reset(registers: *mut epd_registers) -> epd_status {
    guard(|| {
        arg_mut(registers, "registers")?.regs.reset();
        Ok(())
    })
}

/// Processes the operations of one record from left to right: cN (vN)
/// clears registers N..9 then sets register N if a string is given; eco
/// and nic set or clear their register; each ptp pair sets a tag.
#[no_mangle]
pub extern "C" fn epd_registers_apply(registers: *mut epd_registers, record: *const epd_record) -> epd_status {
    guard(|| {
        let regs = arg_mut(registers, "registers")?;
        let r = arg_ref(record, "record")?;
        regs.regs.apply(&r.rec);
        Ok(())
    })
}

fn give(value: Option<&[u8]>, what: &str, out_text: *mut *const c_char, out_len: *mut usize) -> Result<()> {
    let t = Out::new(out_text, "out_text")?;
    let l = Out::new(out_len, "out_len")?;
    let v = value.ok_or_else(|| Error::new(EPD_STATUS_NOT_FOUND, format!("{what} is null")))?;
    t.set(v.as_ptr().cast());
    l.set(v.len());
    Ok(())
}

fn index(n: c_uint) -> Result<usize> {
    usize::try_from(n)
        .ok()
        .filter(|&n| n <= 9)
        .ok_or_else(|| Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("register {n} is not in 0..9")))
}

/// Comment register `n` (0..9): *out_text points at *out_len bytes, NOT
/// NUL-terminated, borrowed from `registers` and valid until it is next
/// applied, reset or freed. EPD_STATUS_NOT_FOUND if the register is null.
#[no_mangle]
pub extern "C" fn epd_registers_comment(
    registers: *const epd_registers,
    n: c_uint,
    out_text: *mut *const c_char,
    out_len: *mut usize,
) -> epd_status {
    guard(|| {
        let regs = arg_ref(registers, "registers")?;
        let i = index(n)?;
        give(regs.regs.comment(i), &format!("c{i}"), out_text, out_len)
    })
}

/// Variation name register `n` (0..9), as epd_registers_comment.
#[no_mangle]
pub extern "C" fn epd_registers_variation(
    registers: *const epd_registers,
    n: c_uint,
    out_text: *mut *const c_char,
    out_len: *mut usize,
) -> epd_status {
    guard(|| {
        let regs = arg_ref(registers, "registers")?;
        let i = index(n)?;
        give(regs.regs.variation(i), &format!("v{i}"), out_text, out_len)
    })
}

/// The ECO register, as epd_registers_comment.
#[no_mangle]
pub extern "C" fn epd_registers_eco(
    registers: *const epd_registers,
    out_text: *mut *const c_char,
    out_len: *mut usize,
) -> epd_status {
    guard(|| give(arg_ref(registers, "registers")?.regs.eco(), "eco", out_text, out_len))
}

/// The NIC register, as epd_registers_comment.
#[no_mangle]
pub extern "C" fn epd_registers_nic(
    registers: *const epd_registers,
    out_text: *mut *const c_char,
    out_len: *mut usize,
) -> epd_status {
    guard(|| give(arg_ref(registers, "registers")?.regs.nic(), "nic", out_text, out_len))
}

/// The value of the PGN tag named by the NUL-terminated `name` (for
/// example "White"), as epd_registers_comment.
#[no_mangle]
pub extern "C" fn epd_registers_tag(
    registers: *const epd_registers,
    name: *const c_char,
    out_text: *mut *const c_char,
    out_len: *mut usize,
) -> epd_status {
    guard(|| {
        let regs = arg_ref(registers, "registers")?;
        let name = c_utf8(name, "name")?;
        give(regs.regs.tag(name), &format!("tag {name}"), out_text, out_len)
    })
}

/// The number of PGN tags set so far, in *out_count.
#[no_mangle]
pub extern "C" fn epd_registers_tag_count(registers: *const epd_registers, out_count: *mut usize) -> epd_status {
    guard(|| {
        let regs = arg_ref(registers, "registers")?;
        Out::new(out_count, "out_count")?.set(regs.regs.tags().len());
        Ok(())
    })
}

/// Tag number `index` (in the order first seen): its name and value, each
/// as a pointer and a length, NOT NUL-terminated, borrowed as in
/// epd_registers_comment.
#[no_mangle]
pub extern "C" fn epd_registers_tag_at(
    registers: *const epd_registers,
    index: usize,
    out_name: *mut *const c_char,
    out_name_len: *mut usize,
    out_value: *mut *const c_char,
    out_value_len: *mut usize,
) -> epd_status {
    guard(|| {
        let regs = arg_ref(registers, "registers")?;
        let name = Out::new(out_name, "out_name")?;
        let name_len = Out::new(out_name_len, "out_name_len")?;
        let value = Out::new(out_value, "out_value")?;
        let value_len = Out::new(out_value_len, "out_value_len")?;
        let tags = regs.regs.tags();
        let (n, v) = tags
            .get(index)
            .ok_or_else(|| Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("tag {index} of {}", tags.len())))?;
        name.set(n.as_ptr().cast());
        name_len.set(n.len());
        value.set(v.as_ptr().cast());
        value_len.set(v.len());
        Ok(())
    })
}
