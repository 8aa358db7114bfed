//! What every file verb of the CLI does around the line pipeline: opening
//! the inputs, choosing the output (`-o`, `--in-place`, stdout), stopping
//! cleanly on SIGINT or SIGTERM, and naming the right file when I/O
//! fails.

use std::borrow::Cow;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context};
use epd_core::pipeline::{PipelineError, Summary};

use crate::input::file_error;

/// Raised by SIGINT or SIGTERM: the run takes no new record, writes
/// every finished one, prints its summary and exits 128 + the signal.
/// A second signal while the first is being handled ends the process at
/// once.
#[derive(Debug)]
pub struct Stop {
    flag: Arc<AtomicBool>,
    signal: Arc<AtomicUsize>,
}

impl Stop {
    /// Installs the handlers.
    ///
    /// # Errors
    /// The handlers could not be installed.
    pub fn install() -> anyhow::Result<Stop> {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let stop = Stop { flag: Arc::new(AtomicBool::new(false)), signal: Arc::new(AtomicUsize::new(0)) };
        for sig in [SIGINT, SIGTERM] {
            // Registered first, so it sees the flag as the previous signal
            // left it: only a second signal exits at once.
            signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, Arc::clone(&stop.flag))?;
            signal_hook::flag::register_usize(sig, Arc::clone(&stop.signal), sig as usize)?;
            signal_hook::flag::register(sig, Arc::clone(&stop.flag))?;
        }
        Ok(stop)
    }

    /// The flag the pipeline watches.
    #[must_use]
    pub fn flag(&self) -> &AtomicBool {
        &self.flag
    }

    /// The same flag, shared, for work that outlives a borrow (a search
    /// that polls it between nodes).
    #[must_use]
    pub fn shared(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.flag)
    }

    /// The signal received, if any.
    #[must_use]
    pub fn signal(&self) -> Option<i32> {
        match self.signal.load(Ordering::Relaxed) {
            0 => None,
            s => i32::try_from(s).ok(),
        }
    }

    /// How a run that read `total` ends: stopped by a signal (exit 128 +
    /// the signal), with invalid records (exit 1), or fine.
    #[must_use]
    pub fn outcome<C>(&self, total: &Summary<C>) -> crate::Outcome {
        match self.signal() {
            Some(sig) if total.interrupted => crate::Outcome::Interrupted(sig),
            _ if total.invalid > 0 => crate::Outcome::Invalid,
            _ => crate::Outcome::Ok,
        }
    }
}

/// Where a run writes.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    Stdout,
    File(PathBuf),
    InPlace,
}

/// `true` if `path` is `-`, standard input or output.
fn is_std(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The inputs and output of a file verb.
#[derive(Debug)]
pub struct Plan {
    files: Vec<PathBuf>,
    target: Target,
    /// `-o FILE` is extended, not replaced (a resumed run).
    append: bool,
}

/// `true` if `a` and `b` name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

impl Plan {
    /// The plan for `files` (none: standard input) and `-o OUTPUT` or
    /// `--in-place`. `-o` naming one of the inputs never destroys it: with
    /// one input the run is an in-place rewrite, with several it is
    /// refused (exit 2).
    ///
    /// # Errors
    /// `--in-place` without files, or `-o` naming one input of several.
    pub fn new(files: &[PathBuf], output: Option<&Path>, in_place: bool) -> anyhow::Result<Plan> {
        let files: Vec<PathBuf> = if files.is_empty() { vec!["-".into()] } else { files.to_vec() };
        let has_stdin = files.iter().any(|f| is_std(f));
        let target = match output {
            _ if in_place => {
                if has_stdin {
                    bail!("--in-place needs FILE arguments, not standard input");
                }
                Target::InPlace
            }
            None => Target::Stdout,
            Some(out) if is_std(out) => Target::Stdout,
            Some(out) => {
                let clash = files.iter().filter(|f| !is_std(f)).any(|f| same_file(f, out));
                match (clash, files.len()) {
                    (false, _) => Target::File(out.to_owned()),
                    (true, 1) => Target::InPlace,
                    (true, _) => {
                        bail!("-o {} is also one of the inputs: write elsewhere, or use --in-place", out.display())
                    }
                }
            }
        };
        Ok(Plan { files, target, append: false })
    }

    /// Writes at the end of the `-o` file instead of replacing it.
    pub fn append(&mut self) {
        self.append = true;
    }

    /// The number of inputs.
    #[must_use]
    pub fn inputs(&self) -> usize {
        self.files.len()
    }

    /// The name shown for input `i`: the file (bytes that are not UTF-8
    /// replaced), `<stdin>` or `<argument>`.
    #[must_use]
    pub fn name(&self, i: usize) -> Cow<'_, str> {
        match self.files.get(i) {
            Some(f) if is_std(f) => "<stdin>".into(),
            None => "<stdin>".into(),
            Some(f) if std::fs::metadata(f).is_ok() => f.to_string_lossy(),
            Some(_) => "<argument>".into(),
        }
    }

    /// Runs `each` over every input in turn: it gets the name to show,
    /// the input, its size when known, and the output. Stops after an
    /// input whose run was interrupted. Returns the sum of the summaries.
    ///
    /// # Errors
    /// An input that cannot be opened or read, an output that cannot be
    /// created or written: each error names its file.
    pub fn run<C: Default + core::ops::AddAssign>(
        &self,
        stdout: &mut dyn Write,
        mut each: impl FnMut(&str, Box<dyn Read + Send>, Option<u64>, &mut dyn Write) -> Result<Summary<C>, PipelineError>,
    ) -> anyhow::Result<Summary<C>> {
        let mut total = Summary::<C>::default();
        let mut file_out = match &self.target {
            Target::File(path) => Some(OutputFile::create(path, self.append)?),
            _ => None,
        };
        let out_name = match &self.target {
            Target::File(path) => path.to_string_lossy(),
            _ => "<stdout>".into(),
        };
        for name in &self.files {
            let (display, input, size): (Cow<'_, str>, Box<dyn Read + Send>, Option<u64>) =
                match crate::input::source(name)? {
                    crate::input::Source::Stdin => {
                        if io::stdin().is_terminal() {
                            // Not a silent wait: say what the program expects.
                            eprintln!("epd: reading records from the terminal; end with Ctrl-D (or give a FILE)");
                        }
                        ("<stdin>".into(), open_input(name)?.reader, None)
                    }
                    crate::input::Source::File => {
                        let input = open_input(name)?;
                        if input.compression.is_some() && self.target == Target::InPlace {
                            let format = input.compression.map_or("", Compression::name);
                            bail!(
                            "--in-place would write {} uncompressed ({format} input): write with -o FILE.gz instead",
                            name.display()
                        );
                        }
                        (name.to_string_lossy(), input.reader, input.size)
                    }
                    crate::input::Source::Text(text) => {
                        if self.target == Target::InPlace {
                            bail!("--in-place needs files; {text:?} is a position");
                        }
                        let bytes = format!("{text}\n").into_bytes();
                        ("<argument>".into(), Box::new(io::Cursor::new(bytes)), None)
                    }
                };
            let display = &*display;
            let blame = |e: PipelineError, out: &str| match e {
                // Invalid data is the caller's own finding about the input
                // (a resumed output that does not match it): already worded.
                PipelineError::Read(e) if e.kind() == io::ErrorKind::InvalidData => anyhow::Error::new(e),
                PipelineError::Read(e) => file_error("read", display, &e),
                PipelineError::Write(e) => file_error("write", out, &e),
            };
            let summary = if self.target == Target::InPlace {
                rewrite(name, |w| each(display, input, size, w)).map_err(|e| match e {
                    Rewrite::Pipeline(e) => blame(e, display),
                    Rewrite::Other(e) => e,
                })?
            } else {
                let r = match file_out.as_mut() {
                    Some(w) => each(display, input, size, w),
                    None => each(display, input, size, &mut *stdout),
                };
                r.map_err(|e| blame(e, &out_name))?
            };
            let stopped = summary.interrupted;
            total += summary;
            if stopped {
                break;
            }
        }
        if let Some(w) = file_out {
            w.finish().map_err(|e| file_error("write", &out_name, &e))?;
        }
        stdout.flush().context("cannot write <stdout>")?;
        Ok(total)
    }
}

enum Rewrite {
    Pipeline(PipelineError),
    Other(anyhow::Error),
}

/// The temporary file an in-place rewrite of `path` writes first.
fn temp_path(path: &Path) -> PathBuf {
    let mut name = OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".epd-tmp-{}", std::process::id()));
    path.with_file_name(name)
}

/// Rewrites `path` atomically: `work` writes a temporary file beside it,
/// which replaces the original only when the run finished. On an error or
/// an interruption the original is left untouched and the temporary file
/// removed.
fn rewrite<C>(
    path: &Path,
    work: impl FnOnce(&mut dyn Write) -> Result<Summary<C>, PipelineError>,
) -> Result<Summary<C>, Rewrite> {
    let tmp = temp_path(path);
    let result = (|| -> Result<Summary<C>, Rewrite> {
        let file =
            File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display())).map_err(Rewrite::Other)?;
        let mut w = BufWriter::new(file);
        let s = work(&mut w).map_err(Rewrite::Pipeline)?;
        if s.interrupted {
            return Ok(s);
        }
        let f = w.into_inner().map_err(|e| Rewrite::Pipeline(PipelineError::Write(e.into_error())))?;
        f.sync_all().map_err(|e| Rewrite::Pipeline(PipelineError::Write(e)))?;
        if let Ok(meta) = std::fs::metadata(path) {
            let _ = std::fs::set_permissions(&tmp, meta.permissions());
        }
        std::fs::rename(&tmp, path)
            .with_context(|| format!("cannot replace {}", path.display()))
            .map_err(Rewrite::Other)?;
        Ok(s)
    })();
    if !matches!(&result, Ok(s) if !s.interrupted) {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

pub use epd_core::io_reason;

/// A compression format recognised by its magic bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Zstd,
    Xz,
    Bzip2,
}

impl Compression {
    /// The format whose magic bytes begin `head`, if any.
    #[must_use]
    pub fn sniff(head: &[u8]) -> Option<Compression> {
        match head {
            [0x1f, 0x8b, ..] => Some(Compression::Gzip),
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Some(Compression::Zstd),
            [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Some(Compression::Xz),
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Some(Compression::Bzip2),
            _ => None,
        }
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Bzip2 => "bzip2",
        }
    }
}

/// Decompressed bytes; a corrupt stream is an error that says which
/// format it was (`not valid gzip data: ...`).
struct Decoded {
    inner: Box<dyn Read + Send>,
    format: Compression,
}

impl Read for Decoded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner
            .read(buf)
            .map_err(|e| io::Error::other(format!("not valid {} data: {}", self.format.name(), io_reason(&e))))
    }
}

/// An input opened for reading: its bytes (decompressed when the file is
/// gzip, zstd, xz or bzip2), its size on disk when that measures the
/// bytes read (not for compressed input), and its compression.
pub struct Input {
    pub reader: Box<dyn Read + Send>,
    pub size: Option<u64>,
    pub compression: Option<Compression>,
}

/// Opens `name` (`-`: standard input) for every reading verb: a
/// directory or a missing file is `cannot open NAME: REASON`, and
/// compressed data is recognised by its magic bytes and decompressed.
///
/// # Errors
/// The file cannot be opened, or its first bytes cannot be read.
pub fn open_input(name: &Path) -> anyhow::Result<Input> {
    let (raw, size): (Box<dyn Read + Send>, Option<u64>) = if is_std(name) {
        (Box::new(io::stdin()), None)
    } else {
        let file = File::open(name).map_err(|e| file_error("open", name.display(), &e))?;
        let meta = file.metadata().map_err(|e| file_error("open", name.display(), &e))?;
        if meta.is_dir() {
            bail!("cannot open {}: Is a directory", name.display());
        }
        (Box::new(file), Some(meta.len()))
    };
    let display = if is_std(name) { "<stdin>".into() } else { name.to_string_lossy() };
    let mut buffered = io::BufReader::with_capacity(1 << 16, raw);
    let head = io::BufRead::fill_buf(&mut buffered).map_err(|e| file_error("read", &display, &e))?;
    let compression = Compression::sniff(head);
    let reader: Box<dyn Read + Send> = match compression {
        None => return Ok(Input { reader: Box::new(buffered), size, compression }),
        Some(Compression::Gzip) => Box::new(flate2::bufread::MultiGzDecoder::new(buffered)),
        Some(Compression::Zstd) => {
            Box::new(zstd::stream::read::Decoder::with_buffer(buffered).map_err(|e| file_error("read", &display, &e))?)
        }
        Some(Compression::Xz) => Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(buffered)),
        Some(Compression::Bzip2) => Box::new(bzip2::bufread::MultiBzDecoder::new(buffered)),
    };
    let format = compression.unwrap_or(Compression::Gzip);
    Ok(Input { reader: Box::new(Decoded { inner: reader, format }), size: None, compression })
}

/// Where `-o FILE` writes: plain, or gzip when FILE ends in `.gz`.
pub enum OutputFile {
    Plain(BufWriter<File>),
    Gzip(flate2::write::GzEncoder<BufWriter<File>>),
}

impl OutputFile {
    /// Creates (or, with `append`, extends) `path`.
    ///
    /// # Errors
    /// The file cannot be created.
    pub fn create(path: &Path, append: bool) -> anyhow::Result<OutputFile> {
        let file = if append { std::fs::OpenOptions::new().append(true).open(path) } else { File::create(path) };
        let w = BufWriter::new(file.map_err(|e| file_error("create", path.display(), &e))?);
        Ok(if path.as_os_str().as_encoded_bytes().ends_with(b".gz") {
            OutputFile::Gzip(flate2::write::GzEncoder::new(w, flate2::Compression::default()))
        } else {
            OutputFile::Plain(w)
        })
    }

    /// Writes what is buffered (and gzip's trailer).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn finish(self) -> io::Result<()> {
        match self {
            OutputFile::Plain(mut w) => w.flush(),
            OutputFile::Gzip(g) => g.finish()?.flush(),
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            OutputFile::Plain(w) => w.write(buf),
            OutputFile::Gzip(g) => g.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            OutputFile::Plain(w) => w.flush(),
            OutputFile::Gzip(g) => g.flush(),
        }
    }
}
