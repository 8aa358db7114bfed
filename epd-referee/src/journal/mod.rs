//! The referee's write-ahead journal: an append-only file of framed
//! entries, each made durable (written and synced) before the referee acts
//! on it, so a crash at any instant loses nothing that was acknowledged.
//!
//! A frame is a 4-byte little-endian payload length, the 4-byte
//! little-endian CRC-32 (IEEE) of the length and the payload (so a tail of
//! zeros, which some file systems leave after a crash, never reads as an
//! entry), then the payload. A crash
//! can only tear the last frame (frames are appended and synced one batch
//! at a time): [`Journal::open`] reads every whole frame, drops a torn tail
//! and truncates the file to the last whole frame, so new entries follow
//! good ones. A bad frame with more data after it is corruption, not a
//! crash: opening fails and nothing is misread.
//!
//! The file and its frames know nothing of what the payloads mean:
//! [`entry`] says that, and `replay` reads entries back into games.

pub mod entry;
pub(crate) mod replay;

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The first bytes of every journal file.
pub const MAGIC: &[u8; 16] = b"EPDKIT-JOURNAL1\n";

/// The largest payload a frame may carry.
pub const MAX_ENTRY: usize = 1 << 20;

const HEADER: usize = 8;

/// Why a journal cannot be opened.
#[derive(Debug)]
pub enum JournalError {
    /// The file could not be read or written.
    Io(io::Error),
    /// The file does not start with [`MAGIC`]: not a journal.
    NotAJournal(PathBuf),
    /// A frame that is not the last one is damaged: the file was changed
    /// by something other than an append, and is not read past `offset`.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Byte offset of the damaged frame.
        offset: u64,
        /// What is wrong with it.
        detail: String,
    },
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::Io(e) => write!(f, "journal: {e}"),
            JournalError::NotAJournal(p) => write!(f, "{}: not a referee journal", p.display()),
            JournalError::Corrupt { path, offset, detail } => {
                write!(f, "{}: damaged journal entry at byte {offset}: {detail}", path.display())
            }
        }
    }
}

impl std::error::Error for JournalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            JournalError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for JournalError {
    fn from(e: io::Error) -> JournalError {
        JournalError::Io(e)
    }
}

/// What [`Journal::open`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Every whole entry, in order.
    pub entries: Vec<Vec<u8>>,
    /// Bytes of a torn last frame that were dropped (0 after a clean stop).
    pub dropped_bytes: u64,
}

/// An open journal, positioned at its end.
#[derive(Debug)]
pub struct Journal {
    file: File,
    path: PathBuf,
    len: u64,
    frame: Vec<u8>,
    /// Entries were written since the last sync.
    unsynced: bool,
}

impl Journal {
    /// Creates a new, empty journal at `path`: written under a temporary
    /// name and renamed, so a crash leaves either no journal or an empty
    /// one, never a partial header.
    ///
    /// # Errors
    /// The file exists already, or cannot be created and synced.
    pub fn create(path: &Path) -> io::Result<Journal> {
        if path.exists() {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists", path.display())));
        }
        let mut tmp_name = path.as_os_str().to_owned();
        tmp_name.push(".new");
        let tmp = PathBuf::from(tmp_name);
        let mut file = OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&tmp)?;
        file.write_all(MAGIC)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        sync_dir(path)?;
        Ok(Journal { file, path: path.to_owned(), len: MAGIC.len() as u64, frame: Vec::new(), unsynced: false })
    }

    /// Opens an existing journal: reads every whole entry, drops a torn
    /// last frame and truncates the file after the last whole one.
    ///
    /// # Errors
    /// The file cannot be read or truncated, is not a journal, or has a
    /// damaged frame before its last.
    pub fn open(path: &Path) -> Result<(Journal, Recovered), JournalError> {
        let mut file = OpenOptions::new().read(true).write(true).open(path)?;
        // The entries are returned in memory: the file is read whole.
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let (entries, offset) = decode(path, &bytes)?;
        let dropped_bytes = (bytes.len() - offset) as u64;
        if dropped_bytes > 0 {
            file.set_len(offset as u64)?;
            file.sync_all()?;
        }
        file.seek(SeekFrom::Start(offset as u64))?;
        let journal = Journal { file, path: path.to_owned(), len: offset as u64, frame: Vec::new(), unsynced: false };
        Ok((journal, Recovered { entries, dropped_bytes }))
    }

    /// Appends one entry and makes it durable before returning.
    ///
    /// # Errors
    /// The entry is over [`MAX_ENTRY`] bytes (`InvalidInput`), or the
    /// write or sync failed (the journal should then be reopened: the
    /// failed frame, whole or torn, is dealt with by [`Journal::open`]).
    pub fn append(&mut self, payload: &[u8]) -> io::Result<()> {
        self.append_all(&[payload])
    }

    /// Appends several entries with one sync: all are durable on return.
    ///
    /// # Errors
    /// As [`Journal::append`].
    pub fn append_all(&mut self, payloads: &[&[u8]]) -> io::Result<()> {
        self.write_all(payloads)?;
        self.sync()
    }

    /// Appends several entries without a sync: on return they are the
    /// operating system's (a process killed then loses nothing), durable
    /// after the next [`Journal::sync`].
    ///
    /// # Errors
    /// As [`Journal::append`].
    pub fn write_all(&mut self, payloads: &[&[u8]]) -> io::Result<()> {
        self.frame.clear();
        encode(payloads, &mut self.frame)?;
        self.file.write_all(&self.frame)?;
        self.len += self.frame.len() as u64;
        self.unsynced = true;
        Ok(())
    }

    /// Makes every entry written durable.
    ///
    /// # Errors
    /// The sync failed.
    pub fn sync(&mut self) -> io::Result<()> {
        if self.unsynced {
            self.file.sync_data()?;
            self.unsynced = false;
        }
        Ok(())
    }

    /// A handle on the journal's file for a sync made elsewhere (on a
    /// blocking thread, so the writer goes on meanwhile): it makes
    /// durable what was written before it began. The journal still counts
    /// its entries unsynced, so [`Journal::sync`] syncs again.
    ///
    /// # Errors
    /// The file's descriptor cannot be duplicated.
    pub fn sync_handle(&self) -> io::Result<File> {
        self.file.try_clone()
    }

    /// Whether entries were written since the last sync.
    #[must_use]
    pub fn is_unsynced(&self) -> bool {
        self.unsynced
    }

    /// The file's length: where the next entry goes.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// `true` when the journal holds no entry.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == MAGIC.len() as u64
    }

    /// The journal's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Reads the whole entries of the journal at `path` without changing
/// it (a torn last frame is left alone, and not returned): what a
/// journal being written holds so far.
///
/// # Errors
/// As [`Journal::open`].
pub fn read_entries(path: &Path) -> Result<Vec<Vec<u8>>, JournalError> {
    let bytes = std::fs::read(path)?;
    Ok(decode(path, &bytes)?.0)
}

/// Appends the frames of `payloads` to `out` (what [`Journal::append_all`]
/// writes, and what [`decode`] reads).
///
/// # Errors
/// A payload over [`MAX_ENTRY`] bytes (`InvalidInput`); `out` is then
/// left with the frames before it.
pub fn encode(payloads: &[&[u8]], out: &mut Vec<u8>) -> io::Result<()> {
    for p in payloads {
        if p.len() > MAX_ENTRY {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a journal entry of {} bytes (at most {MAX_ENTRY})", p.len()),
            ));
        }
        let len = (p.len() as u32).to_le_bytes();
        out.extend_from_slice(&len);
        out.extend_from_slice(&checksum(&len, p).to_le_bytes());
        out.extend_from_slice(p);
    }
    Ok(())
}

/// Reads a journal's bytes (from [`MAGIC`] on): its whole entries, and
/// the offset after the last, where a torn tail (which a crash may leave)
/// begins. `path` only names the file in errors.
///
/// # Errors
/// The bytes do not start with [`MAGIC`], or a frame before the last is
/// damaged.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<(Vec<Vec<u8>>, usize), JournalError> {
    if !bytes.starts_with(MAGIC) {
        return Err(JournalError::NotAJournal(path.to_owned()));
    }
    let mut offset = MAGIC.len();
    let mut entries = Vec::new();
    while offset < bytes.len() {
        let rest = &bytes[offset..];
        if rest.len() < HEADER {
            break; // a torn header
        }
        let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let crc = u32::from_le_bytes([rest[4], rest[5], rest[6], rest[7]]);
        if rest.len() - HEADER < len {
            break; // a torn payload (or a torn length)
        }
        let payload = &rest[HEADER..HEADER + len];
        let detail = if len > MAX_ENTRY {
            format!("a length of {len} bytes (at most {MAX_ENTRY})")
        } else if checksum(&rest[..4], payload) != crc {
            "its checksum does not match".to_owned()
        } else {
            entries.push(payload.to_vec());
            offset += HEADER + len;
            continue;
        };
        // A damaged frame is a torn append when nothing but zeros
        // follows it (the file grew before its data landed); damage
        // with data after it is corruption, never read past.
        if rest.iter().all(|&b| b == 0) || rest.len() == HEADER + len {
            break;
        }
        return Err(JournalError::Corrupt { path: path.to_owned(), offset: offset as u64, detail });
    }
    Ok((entries, offset))
}

/// The CRC-32 of a frame's length field and payload.
fn checksum(len: &[u8], payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(len);
    h.update(payload);
    h.finalize()
}

/// Syncs the directory holding `path`, so a new file's name is durable.
fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match File::open(dir) {
        Ok(d) => d.sync_all().or(Ok(())),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(n: usize) -> Vec<Vec<u8>> {
        (0..n).map(|i| format!("{{\"move\":{i},\"san\":\"e4\"}}").repeat(i % 3 + 1).into_bytes()).collect()
    }

    #[test]
    fn entries_come_back_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let mut j = Journal::create(&path).unwrap();
        assert!(j.is_empty());
        let want = entries(20);
        for e in &want[..10] {
            j.append(e).unwrap();
        }
        let refs: Vec<&[u8]> = want[10..].iter().map(Vec::as_slice).collect();
        j.append_all(&refs).unwrap();
        j.append(b"").unwrap();
        drop(j);
        let (j, got) = Journal::open(&path).unwrap();
        let mut all = want.clone();
        all.push(Vec::new());
        assert_eq!(got, Recovered { entries: all, dropped_bytes: 0 });
        assert_eq!(j.len(), std::fs::metadata(&path).unwrap().len());
        assert!(Journal::create(&path).is_err(), "create never overwrites a journal");
    }

    #[test]
    fn a_torn_last_frame_at_every_byte_is_dropped_and_appends_follow() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let want = entries(4);
        let mut j = Journal::create(&path).unwrap();
        for e in &want {
            j.append(e).unwrap();
        }
        drop(j);
        let full = std::fs::read(&path).unwrap();
        let last_start = full.len() - HEADER - want[3].len();
        // Cut inside the last frame at every byte; also flip a byte of its
        // payload (a write that reached the disk half done).
        for cut in last_start..full.len() {
            std::fs::write(&path, &full[..cut]).unwrap();
            let (mut j, got) = Journal::open(&path).unwrap();
            assert_eq!(got.entries, want[..3], "cut at {cut}");
            assert_eq!(got.dropped_bytes, (cut - last_start) as u64);
            assert_eq!(std::fs::metadata(&path).unwrap().len(), last_start as u64, "truncated");
            j.append(b"after").unwrap();
            drop(j);
            let (_, again) = Journal::open(&path).unwrap();
            assert_eq!(again.entries.last().unwrap(), b"after");
            assert_eq!(again.entries.len(), 4);
        }
        let mut flipped = full.clone();
        *flipped.last_mut().unwrap() ^= 0x40;
        std::fs::write(&path, &flipped).unwrap();
        let (_, got) = Journal::open(&path).unwrap();
        assert_eq!(got.entries, want[..3]);
        assert_eq!(got.dropped_bytes, (full.len() - last_start) as u64);
    }

    #[test]
    fn damage_before_the_last_frame_is_an_error_not_a_misreading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let mut j = Journal::create(&path).unwrap();
        for e in entries(3) {
            j.append(&e).unwrap();
        }
        drop(j);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[MAGIC.len() + HEADER + 2] ^= 1; // the first payload
        std::fs::write(&path, &bytes).unwrap();
        match Journal::open(&path) {
            Err(JournalError::Corrupt { offset, .. }) => assert_eq!(offset, MAGIC.len() as u64),
            other => panic!("{other:?}"),
        }
        // A wrong length in the middle is damage too.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[MAGIC.len() + HEADER + 2] ^= 1;
        bytes[MAGIC.len()] += 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(matches!(Journal::open(&path), Err(JournalError::Corrupt { .. })));
        // A tail of zeros (a crash after the file grew, before its data
        // landed) is a torn frame, not empty entries.
        bytes[MAGIC.len()] -= 1;
        bytes.extend_from_slice(&[0u8; 64]);
        std::fs::write(&path, &bytes).unwrap();
        let (_, got) = Journal::open(&path).unwrap();
        assert_eq!((got.entries.len(), got.dropped_bytes), (3, 64));
        std::fs::write(&path, b"not a journal at all").unwrap();
        assert!(matches!(Journal::open(&path), Err(JournalError::NotAJournal(_))));
        std::fs::write(&path, b"EPD").unwrap();
        assert!(matches!(Journal::open(&path), Err(JournalError::NotAJournal(_))));
    }

    #[test]
    fn oversized_entries_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = Journal::create(&dir.path().join("j")).unwrap();
        let err = j.append(&vec![0u8; MAX_ENTRY + 1]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(j.is_empty());
    }

    /// The writer of the kill test, run as a child process of the test
    /// binary: appends numbered entries to the journal named by
    /// EPDKIT_JOURNAL_CHILD, continuing after what is there, until killed.
    #[test]
    fn journal_writer_child() {
        let Some(path) = std::env::var_os("EPDKIT_JOURNAL_CHILD") else { return };
        let path = PathBuf::from(path);
        let (mut j, got) = match Journal::open(&path) {
            Ok(x) => x,
            Err(JournalError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
                (Journal::create(&path).unwrap(), Recovered::default())
            }
            Err(e) => panic!("{e}"),
        };
        for i in got.entries.len().. {
            j.append(numbered(i).as_bytes()).unwrap();
        }
    }

    fn numbered(i: usize) -> String {
        format!("entry {i} {}", "x".repeat(i % 97))
    }

    #[test]
    fn killed_writers_leave_a_prefix_and_the_next_one_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j");
        let exe = std::env::current_exe().unwrap();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut seen = 0;
        for kill in 0..12 {
            let mut child = std::process::Command::new(&exe)
                .args(["--exact", "journal::tests::journal_writer_child", "--test-threads", "1"])
                .env("EPDKIT_JOURNAL_CHILD", &path)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            std::thread::sleep(std::time::Duration::from_millis(20 + seed % 60));
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            if !path.exists() {
                continue; // killed before the journal was created
            }
            let (_, got) = Journal::open(&path).unwrap();
            for (i, e) in got.entries.iter().enumerate() {
                assert_eq!(e, numbered(i).as_bytes(), "entry {i} after kill {kill}");
            }
            assert!(got.entries.len() >= seen, "entries were lost: {} after {seen}", got.entries.len());
            seen = got.entries.len();
        }
        assert!(seen > 0, "the writers wrote nothing");
    }
}
