//! Gastric: the report over result files (`epd report`), as JSON.

use crate::error::{epd_status, guard, Error, Result, EPD_STATUS_INVALID_ARGUMENT};

use crate::ptr::{arg_mut, arg_ref, c_utf8, free_boxed, owned_string, to_boxed, Castable, Out, OwnershipBox};
use core::ffi::{c_char, c_int};
use epd_report::{Grouping, Input, KeyBook, Options};
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::PathBuf;

/// How records are grouped into themes (epd_report_config_set_group_by).
#[allow(non_camel_case_types)]
pub type epd_report_grouping = c_int;
/// By the id without its trailing number (the default: STS's themes).
pub const EPD_REPORT_GROUP_BY_ID: epd_report_grouping = 0;
/// One theme per run file.
pub const EPD_REPORT_GROUP_BY_FILE: epd_report_grouping = 1;
/// By the opcodes that key the record (bm, am, bm+am, dm, points).
pub const EPD_REPORT_GROUP_BY_OPCODE: epd_report_grouping = 2;

/// The runs and settings of a report. Created by epd_report_config_new,
/// freed with epd_report_config_free.
///
/// Thread safety: may be used from any thread, from one at a time.
#[allow(non_camel_case_types)]
#[derive(Debug)]
pub struct epd_report_config {
    _private: [u8; 0],
}

impl Castable for epd_report_config {
    type Ownership = OwnershipBox;
    type RustType = ReportConfig;
}

/// The Rust value behind an epd_report_config handle.
#[derive(Debug, Default)]
pub(crate) struct ReportConfig {
    runs: Vec<(String, PathBuf)>,
    key: Option<PathBuf>,
    grouping: Grouping,
    strict: bool,
    time_scores: bool,
}

/// Creates an empty report configuration in *out_config (free it with
/// epd_report_config_free).
#[no_mangle]
pub extern "C" fn epd_report_config_new(out_config: *mut *mut epd_report_config) -> epd_status {
    guard(|| {
        Out::new(out_config, "out_config")?.set(to_boxed(ReportConfig::default()));
        Ok(())
    })
}

/// Frees a report configuration. NULL is a no-op.
#[no_mangle]
pub extern "C" fn epd_report_config_free(config: *mut epd_report_config) {
    free_boxed(config);
}

/// Adds a run: the results file at `path` (NUL-terminated), labelled
/// `label` (NULL: the file's name). Runs are compared in the order added.
#[no_mangle]
pub extern "C" fn epd_report_config_add_run(
    config: *mut epd_report_config,
    path: *const c_char,
    label: *const c_char,
) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let path = PathBuf::from(c_utf8(path, "path")?);
        let label = if label.is_null() {
            path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
        } else {
            c_utf8(label, "label")?.to_owned()
        };
        c.runs.push((label, path));
        Ok(())
    })
}

/// Sets the solution key: the suite file at `path` (NUL-terminated; NULL
/// for none: the records' own bm, am and dm), matched by id, else by
/// position.
#[no_mangle]
pub extern "C" fn epd_report_config_set_key(config: *mut epd_report_config, path: *const c_char) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        c.key = if path.is_null() { None } else { Some(PathBuf::from(c_utf8(path, "path")?)) };
        Ok(())
    })
}

/// Groups records into themes by an EPD_REPORT_GROUP_BY_ value.
#[no_mangle]
pub extern "C" fn epd_report_config_set_group_by(
    config: *mut epd_report_config,
    grouping: epd_report_grouping,
) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        c.grouping = match grouping {
            EPD_REPORT_GROUP_BY_ID => Grouping::IdPrefix,
            EPD_REPORT_GROUP_BY_FILE => Grouping::File,
            EPD_REPORT_GROUP_BY_OPCODE => Grouping::Opcode,
            _ => return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("unknown grouping {grouping}"))),
        };
        Ok(())
    })
}

/// Groups records into themes by a regular expression over the id
/// (NUL-terminated, Rust regex syntax): its first capture group, or the
/// whole match when it has none; ids it does not match are in "(other)".
/// A bad expression gives EPD_STATUS_INVALID_ARGUMENT with the reason.
#[no_mangle]
pub extern "C" fn epd_report_config_set_group_regex(
    config: *mut epd_report_config,
    pattern: *const c_char,
) -> epd_status {
    guard(|| {
        let c = arg_mut(config, "config")?;
        let pattern = c_utf8(pattern, "pattern")?;
        let re = regex::Regex::new(pattern)
            .map_err(|e| Error::new(EPD_STATUS_INVALID_ARGUMENT, format!("group {pattern:?}: {e}")))?;
        c.grouping = Grouping::Regex(re);
        Ok(())
    })
}

/// Reads records strictly (non-zero) instead of leniently (the default).
#[no_mangle]
pub extern "C" fn epd_report_config_set_strict(config: *mut epd_report_config, strict: c_int) -> epd_status {
    guard(|| {
        arg_mut(config, "config")?.strict = strict != 0;
        Ok(())
    })
}

/// Works out the time-based scores (BT-2630, BT-2450, LCT II) when
/// non-zero. Off by default.
#[no_mangle]
pub extern "C" fn epd_report_config_set_time_scores(config: *mut epd_report_config, on: c_int) -> epd_status {
    guard(|| {
        arg_mut(config, "config")?.time_scores = on != 0;
        Ok(())
    })
}

fn open(path: &PathBuf) -> Result<BufReader<File>> {
    let f = File::open(path).map_err(|e| Error::io(format!("cannot read {}: {e}", path.display()), &e))?;
    if f.metadata().is_ok_and(|m| m.is_dir()) {
        // Reading a directory fails with the system's own error (EISDIR),
        // which goes with the failure.
        let cause = (&f).read(&mut [0u8; 1]).err().unwrap_or_else(|| io::ErrorKind::IsADirectory.into());
        return Err(Error::io(format!("{} is a directory", path.display()), &cause));
    }
    Ok(BufReader::with_capacity(1 << 16, f))
}

/// Reads every run and returns the report as JSON (the schema
/// "epd-report/1" of `epd report --format json`: per run its label,
/// records, solved with its Wilson interval, themes, mates, points,
/// distributions and issues; comparisons of each pair of runs; the
/// objective) in a new NUL-terminated string in *out_json (owned: free it
/// with epd_string_free) of *out_len bytes. Invalid records are counted in
/// the report, not failures; the status reports unreadable files
/// (EPD_STATUS_IO) and a configuration without runs
/// (EPD_STATUS_INVALID_ARGUMENT).
#[no_mangle]
pub extern "C" fn epd_report_run_json(
    config: *const epd_report_config,
    out_json: *mut *mut c_char,
    out_len: *mut usize,
) -> epd_status {
    guard(|| {
        let c = arg_ref(config, "config")?;
        let out_j = Out::new(out_json, "out_json")?;
        let out_l = Out::new(out_len, "out_len")?;
        if c.runs.is_empty() {
            return Err(Error::new(EPD_STATUS_INVALID_ARGUMENT, "the report has no run"));
        }
        let key = match &c.key {
            Some(path) => Some(
                KeyBook::load(open(path)?, |_, _| {})
                    .map_err(|e| Error::io(format!("cannot read {}: {e}", path.display()), &e))?,
            ),
            None => None,
        };
        let mut inputs = Vec::with_capacity(c.runs.len());
        for (label, path) in &c.runs {
            inputs.push(Input {
                label: label.clone(),
                file: path.display().to_string(),
                reader: Box::new(open(path)?),
                path: Some(path.clone()),
            });
        }
        // JSON: every issue and missed id kept.
        let options = Options {
            key,
            grouping: c.grouping.clone(),
            strict: c.strict,
            time_scores: c.time_scores,
            ..Options::default()
        };
        let report = epd_report::build(inputs, &options, None, &mut |_, _| {})
            .map_err(|e| Error::io(format!("report: {e}"), &e))?;
        let json = epd_report::render::json(&report).map_err(|e| Error::io(format!("report: {e}"), &e))?.into_bytes();
        let n = json.len();
        out_j.set(owned_string(json)?);
        out_l.set(n);
        Ok(())
    })
}
