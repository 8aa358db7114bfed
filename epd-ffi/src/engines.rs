//! Engines the library runs itself (the built-in search, UCI programs)
//! and the forced-mate prover (pfms, section 7.3).

// C functions take their options as arguments, outputs last.
#![allow(clippy::too_many_arguments)]

use crate::analysis::{epd_engine, start_program, Program};
use crate::cancel::epd_cancel;
use crate::error::{epd_status, guard, Error, Result, EPD_STATUS_INVALID_ARGUMENT};
use crate::position::boxed;
use crate::ptr::{arg_mut, bytes, c_utf8, owned_string, slice, Out};
use crate::verbs::{io_error, open_pair};
use ::epd_engine::mate::{MateOptions, MateProver};
use ::epd_engine::{Engine as _, UciConfig};
use core::ffi::{c_char, c_int, c_uint, c_ulong};
use core::ptr;
use epd_core::pipeline::{self, Config};
use std::io::{BufReader, BufWriter, Read, Write};
use std::sync::Arc;

/// Creates an engine in *out_engine (free it with epd_engine_free) that
/// runs EPD Kit's own search, with a hash table of `hash_mb` MiB (0: 16)
/// per job. It works with every epd_engine_ function that takes an engine;
/// without a limit it searches 1 second per position.
#[no_mangle]
pub extern "C" fn epd_engine_new_builtin(hash_mb: c_uint, out_engine: *mut *mut epd_engine) -> epd_status {
    guard(|| {
        let out = Out::new(out_engine, "out_engine")?;
        let hash_mb = if hash_mb == 0 { 16 } else { hash_mb as usize };
        out.set(boxed(epd_engine::with(
            None,
            ptr::null_mut(),
            Some(Program::Builtin { hash_mb, options: Vec::new() }),
        )));
        Ok(())
    })
}

/// Creates an engine in *out_engine (free it with epd_engine_free) that
/// runs the UCI program `program` (a NUL-terminated path, or a name looked
/// up on PATH) with the `argc` NUL-terminated arguments at `argv` (NULL
/// when `argc` is 0). The program is started when a verb runs, once per
/// job, and stopped at its end; a program that cannot be started or does
/// not complete the UCI handshake in 10 s makes the verb fail with
/// EPD_STATUS_ENGINE. Without a limit it searches 1 second per position.
#[no_mangle]
pub extern "C" fn epd_engine_new_uci(
    program: *const c_char,
    argv: *const *const c_char,
    argc: usize,
    out_engine: *mut *mut epd_engine,
) -> epd_status {
    guard(|| {
        let program = c_utf8(program, "program")?.to_owned();
        let out = Out::new(out_engine, "out_engine")?;
        let args = if argc == 0 { &[][..] } else { slice(argv, argc, "argv")? };
        let args = args.iter().map(|&a| c_utf8(a, "argv[i]").map(str::to_owned)).collect::<Result<Vec<_>>>()?;
        if program.is_empty() {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, "program is empty"));
        }
        let config = UciConfig { args, ..UciConfig::new(program) };
        out.set(boxed(epd_engine::with(None, ptr::null_mut(), Some(Program::Uci(config)))));
        Ok(())
    })
}

/// Adds a UCI option to an engine made by epd_engine_new_uci (`setoption
/// name NAME value VALUE`, sent after the handshake, in the order added)
/// or by epd_engine_new_builtin (the options `epd uci` declares: Hash,
/// Threads, MultiPV, PawnValue, KnightValue, BishopValue, RookValue,
/// QueenValue, MobilityWeight, FutilityMargin; a Hash given here replaces
/// epd_engine_new_builtin's). An option the engine does not declare, or
/// a value the built-in engine does not take, makes the engine fail to
/// start (EPD_STATUS_ENGINE, from epd_engine_start or the first run).
/// Callback engines give EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_engine_add_uci_option(
    engine: *mut epd_engine,
    name: *const c_char,
    value: *const c_char,
) -> epd_status {
    guard(|| {
        let (e, name, value) = option_args(engine, name, value)?;
        match &mut e.program {
            Some(Program::Uci(UciConfig { options, .. }) | Program::Builtin { options, .. }) => {
                options.push((name, value));
                Ok(())
            }
            _ => Err(Error::new(
                EPD_STATUS_INVALID_ARGUMENT,
                "UCI options are for engines made by epd_engine_new_uci or epd_engine_new_builtin",
            )),
        }
    })
}

/// Starts the program of an engine made by epd_engine_new_builtin or
/// epd_engine_new_uci now, and keeps it for epd_engine_analyze_record,
/// which otherwise starts it on first use. EPD_STATUS_ENGINE when the
/// program cannot be started, does not complete the UCI handshake, does
/// not declare an option given with epd_engine_add_uci_option, or
/// declares it with a type or range the value given is outside of (a
/// spin option's min and max, a check option's true and false, a combo
/// option's vars); EPD_STATUS_ENGINE_TERMINATED when it exits during the
/// handshake; EPD_STATUS_CANCELLED when the engine's cancel flag
/// (epd_engine_set_cancel) is raised during the handshake, which is then
/// given up at once (the program killed); in each case nothing is kept. Does nothing if the program is running already.
/// Other engines give EPD_STATUS_INVALID_ARGUMENT. The file verbs start
/// instances of their own, one per job.
#[no_mangle]
pub extern "C" fn epd_engine_start(engine: *mut epd_engine) -> epd_status {
    guard(|| {
        let e = arg_mut(engine, "engine")?;
        if e.program.is_none() {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, "only a program engine is started"));
        }
        if e.kept.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).is_none() {
            let started = start_program(e)?;
            *e.kept.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(started);
        }
        Ok(())
    })
}

/// Sets a UCI option of an engine made by epd_engine_new_uci or
/// epd_engine_new_builtin from now on, as python-chess's `configure`: a
/// running UCI program is sent `setoption name NAME value VALUE` at once
/// (only when the value differs from the one it has), the built-in
/// engine is made again with it (its hash emptied); either way the value
/// replaces one given before for later starts. EPD_STATUS_ENGINE for an
/// option the engine does not declare or a value outside its declared
/// type or range (nothing changes then); a UCI program not running
/// checks it when it starts. Other engines give
/// EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_engine_set_uci_option(
    engine: *mut epd_engine,
    name: *const c_char,
    value: *const c_char,
) -> epd_status {
    guard(|| {
        let (e, name, value) = option_args(engine, name, value)?;
        let set = |options: &mut Vec<(String, String)>| {
            options.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
            options.push((name.clone(), value.clone()));
        };
        let mut program = e.program.clone();
        let kept = e.kept.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        match &mut program {
            Some(Program::Uci(UciConfig { options, .. })) => {
                if let Some(running) = kept.as_mut() {
                    running
                        .set_option(&name, &value)
                        .map_err(|err| crate::analysis::engine_failure("cannot set the option", &err))?;
                }
                set(options);
            }
            Some(Program::Builtin { options, .. }) => {
                set(options);
                // Made again at once, running or not, so a bad value is
                // refused here and not at the next start.
                let fresh = program
                    .as_ref()
                    .map(|p| p.start(None))
                    .transpose()
                    .map_err(|err| crate::analysis::engine_failure("cannot set the option", &err))?;
                if kept.is_some() {
                    *kept = fresh;
                    e.new_game.store(true, std::sync::atomic::Ordering::SeqCst);
                }
            }
            None => {
                return Err(Error::new(
                    EPD_STATUS_INVALID_ARGUMENT,
                    "UCI options are for engines made by epd_engine_new_uci or epd_engine_new_builtin",
                ))
            }
        }
        e.program = program;
        Ok(())
    })
}

/// Starts a new game on the program kept by an engine made by
/// epd_engine_new_builtin or epd_engine_new_uci: the next
/// epd_engine_analyze_position or epd_engine_analyze_record sends it
/// `ucinewgame` and `isready` (the built-in engine clears its hash)
/// before its search. Searches between two new games are one game, as
/// python-chess's are: the engine keeps its hash from one to the next.
/// The first search after the program starts (epd_engine_start, or a
/// restart after it died) is a new game without this call. The file
/// verbs (epd_engine_run_files, epd_engine_run_memory) start a new game
/// for every record, as `epd analyze` does. Other engines give
/// EPD_STATUS_INVALID_ARGUMENT.
#[no_mangle]
pub extern "C" fn epd_engine_new_game(engine: *mut epd_engine) -> epd_status {
    guard(|| {
        let e = arg_mut(engine, "engine")?;
        if e.program.is_none() {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, "only a program engine starts a new game"));
        }
        e.new_game.store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    })
}

/// Stops the program that epd_engine_start or epd_engine_analyze_record
/// started (a UCI engine is sent `quit`, and killed if it does not exit);
/// the next epd_engine_analyze_record starts it again. Does nothing if
/// none is running. epd_engine_free stops it too.
#[no_mangle]
pub extern "C" fn epd_engine_stop(engine: *mut epd_engine) -> epd_status {
    guard(|| {
        let e = arg_mut(engine, "engine")?;
        let kept = e.kept.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        drop(kept);
        Ok(())
    })
}

/// Whether the file verbs write Solve_ms, Solve_acn and Solve_acd (when
/// the move played first led the principal variation and then held it);
/// non-zero for yes. Off by default. Only the built-in and UCI engines
/// report it; a callback engine writes nothing.
#[no_mangle]
pub extern "C" fn epd_engine_set_solution_time(engine: *mut epd_engine, on: c_int) -> epd_status {
    guard(|| {
        arg_mut(engine, "engine")?.solution_time = on != 0;
        Ok(())
    })
}

/// Counts from epd_mate_run_files and epd_mate_run_memory.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct epd_mate_summary {
    /// Lines read (blank ones included).
    pub lines: c_ulong,
    /// Records read (non-blank lines).
    pub records: c_ulong,
    /// Records with at least one error (copied through unchanged).
    pub invalid: c_ulong,
    /// Records searched.
    pub searched: c_ulong,
    /// Records skipped: they already held a dm of at most `moves`.
    pub skipped: c_ulong,
    /// Records given a dm (a forced mate of at most `moves` moves).
    pub solved: c_ulong,
    /// Nodes searched, all records.
    pub nodes: c_ulong,
}

fn run_mate(
    moves: c_uint,
    single_pass: c_int,
    jobs: c_uint,
    input: impl Read + Send,
    output: impl Write,
    cancel: *const epd_cancel,
    out_summary: *mut epd_mate_summary,
    what: &str,
) -> Result<()> {
    let cancel = crate::cancel::watched(cancel)?;
    if !(1..=60).contains(&moves) {
        return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("moves is {moves}: it must be 1 to 60")));
    }
    let options = MateOptions { moves, single_pass: single_pass != 0, table_bits: 20, timeout: None };
    let mut workers: Vec<MateProver<'_>> = (0..jobs.max(1))
        .map(|_| match &cancel {
            Some(flag) => MateProver::new(&options).with_stop(Arc::clone(flag)),
            None => MateProver::new(&options),
        })
        .collect();
    let input = BufReader::with_capacity(64 << 10, input);
    let output = BufWriter::with_capacity(64 << 10, output);
    let config = Config { flush_each: true, stop: cancel.as_deref(), ..Config::default() };
    let s = pipeline::run(input, output, &mut workers, &config, &|_, _| {}, &mut |_| {}, &mut |_| {})
        .map_err(|err| io_error(&err, what))?;
    if s.interrupted {
        return Err(crate::cancel::cancelled(&format!("{what}: {} records read", s.records)));
    }
    if let Some(o) = Out::optional(out_summary) {
        let sat = |v: u64| c_ulong::try_from(v).unwrap_or(c_ulong::MAX);
        o.set(epd_mate_summary {
            lines: sat(s.lines),
            records: sat(s.records),
            invalid: sat(s.invalid),
            searched: sat(s.counts.searched),
            skipped: sat(s.counts.skipped),
            solved: sat(s.counts.solved.iter().sum()),
            nodes: sat(s.counts.nodes),
        });
    }
    Ok(())
}

/// pfms (section 7.3) over the file at `input_path`, writing the file at
/// `output_path` (created or truncated; NUL-terminated paths naming
/// different files): each valid record whose side to move forces mate in
/// at most `moves` (1 to 60) fullmoves gets dm (the shortest such mate, or
/// with `single_pass` non-zero the spec's one pass: dm `moves` for any
/// mate within it), pm and pv; records keep their order; invalid records
/// are copied through unchanged. `jobs` threads search at once (0 is taken
/// as 1); the output is the same with any number. Counts go to
/// *out_summary unless it is NULL. The status reports only I/O errors and
/// bad arguments.
#[no_mangle]
pub extern "C" fn epd_mate_run_files(
    moves: c_uint,
    single_pass: c_int,
    jobs: c_uint,
    input_path: *const c_char,
    output_path: *const c_char,
    out_summary: *mut epd_mate_summary,
) -> epd_status {
    epd_mate_run_files_cancellable(moves, single_pass, jobs, ptr::null(), input_path, output_path, out_summary)
}

/// As epd_mate_run_files, watching `cancel` (see epd_cancel; NULL: none):
/// a run that sees it raised stops the search in progress (within a few
/// thousand nodes), takes no new record and fails with
/// EPD_STATUS_CANCELLED, the output file holding every record finished
/// before, each whole; *out_summary is then left unwritten.
#[no_mangle]
pub extern "C" fn epd_mate_run_files_cancellable(
    moves: c_uint,
    single_pass: c_int,
    jobs: c_uint,
    cancel: *const epd_cancel,
    input_path: *const c_char,
    output_path: *const c_char,
    out_summary: *mut epd_mate_summary,
) -> epd_status {
    guard(|| {
        let (file, out, what) = open_pair(input_path, output_path)?;
        run_mate(moves, single_pass, jobs, file, out, cancel, out_summary, &what)
    })
}

/// As epd_mate_run_files, over `len` bytes of text at `input`; the output
/// is returned as a new string in *out_text (owned: free it with
/// epd_string_free; it may contain NUL bytes copied from invalid lines, so
/// use *out_len, which receives its length).
#[no_mangle]
pub extern "C" fn epd_mate_run_memory(
    moves: c_uint,
    single_pass: c_int,
    jobs: c_uint,
    input: *const c_char,
    len: usize,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
    out_summary: *mut epd_mate_summary,
) -> epd_status {
    epd_mate_run_memory_cancellable(moves, single_pass, jobs, ptr::null(), input, len, out_text, out_len, out_summary)
}

/// As epd_mate_run_memory, watching `cancel` as
/// epd_mate_run_files_cancellable does; a cancelled run writes none of
/// the out-parameters.
#[no_mangle]
pub extern "C" fn epd_mate_run_memory_cancellable(
    moves: c_uint,
    single_pass: c_int,
    jobs: c_uint,
    cancel: *const epd_cancel,
    input: *const c_char,
    len: usize,
    out_text: *mut *mut c_char,
    out_len: *mut usize,
    out_summary: *mut epd_mate_summary,
) -> epd_status {
    guard(|| {
        let input = bytes(input, len, "input")?;
        let out_t = Out::new(out_text, "out_text")?;
        let out_l = Out::new(out_len, "out_len")?;
        let mut output = Vec::with_capacity(input.len() + input.len() / 2);
        run_mate(moves, single_pass, jobs, input, &mut output, cancel, out_summary, "memory")?;
        let n = output.len();
        out_t.set(owned_string(output)?);
        out_l.set(n);
        Ok(())
    })
}

/// The engine, and an option's name and value as both option setters
/// take them: UTF-8, trimmed, the name not empty.
fn option_args<'a>(
    engine: *mut epd_engine,
    name: *const c_char,
    value: *const c_char,
) -> Result<(&'a mut epd_engine, String, String)> {
    let e = arg_mut(engine, "engine")?;
    let name = c_utf8(name, "name")?.trim().to_owned();
    let value = c_utf8(value, "value")?.trim().to_owned();
    if name.is_empty() {
        return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, "the option name is empty"));
    }
    Ok((e, name, value))
}
