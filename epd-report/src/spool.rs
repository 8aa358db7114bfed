//! Lists that can outgrow memory: what a report holds per record (the
//! ids and positions seen, for duplicates; the lines of missed, newly
//! solved and newly failed records; the ids it lists) is kept in a
//! [`Spool`], which holds a bounded number of bytes in memory and writes
//! the rest, in sorted chunks, to an anonymous temporary file. Reading a
//! spool merges its chunks, so items come out ordered by their key, and
//! items of equal key in the order they were pushed. A report's memory
//! is thus bounded by the number of its runs (and their comparisons),
//! not by the number of records.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufRead, Read, Seek, SeekFrom, Write};

/// Bytes a spool keeps in memory before it writes a chunk out.
pub const MEMORY: usize = 1 << 18;

/// What a spool holds: an item with a sort key, written as bytes.
pub trait Item: Sized {
    /// Its sort key.
    fn key(&self) -> u64;
    /// What orders items of one key within a chunk: it must rise with
    /// the order they are pushed in (items that tie on both may come out
    /// in any order).
    fn tiebreak(&self) -> u64 {
        0
    }
    /// Its size in memory, roughly, in bytes.
    fn size(&self) -> usize {
        std::mem::size_of::<Self>()
    }
    /// Appends its bytes to `out`.
    fn encode(&self, out: &mut Vec<u8>);
    /// Reads one back; `Ok(None)` at the end of the input.
    ///
    /// # Errors
    /// Reading failed or the bytes are cut short.
    fn decode(input: &mut impl BufRead) -> io::Result<Option<Self>>;
}

/// An item list kept sorted by key, spilling to disk past [`MEMORY`];
/// or, made with [`Spool::first`], keeping only its first items by key
/// (what a report shows of a long list), in memory, and counting the
/// rest.
#[derive(Debug)]
pub struct Spool<T> {
    memory: Vec<T>,
    bytes: usize,
    /// The chunks written: (start, end) in `file`.
    chunks: Vec<(u64, u64)>,
    file: Option<File>,
    len: u64,
    sorted: bool,
    limit: usize,
    /// Only the first this many items are kept.
    first: Option<usize>,
    /// With `first`, once that many are kept: the (key, tiebreak) of the
    /// last of them. An item that sorts after it is only counted (one
    /// that ties with it is kept until the next trim, which leaves the
    /// later pushed out).
    cut: Option<(u64, u64)>,
}

impl<T> Default for Spool<T> {
    fn default() -> Spool<T> {
        Spool {
            memory: Vec::new(),
            bytes: 0,
            chunks: Vec::new(),
            file: None,
            len: 0,
            sorted: true,
            limit: MEMORY,
            first: None,
            cut: None,
        }
    }
}

impl<T: Item> Spool<T> {
    /// An empty spool that keeps at most `limit` bytes in memory.
    #[must_use]
    pub fn with_limit(limit: usize) -> Spool<T> {
        Spool { limit, ..Spool::default() }
    }

    /// A spool that keeps only its first `n` items by key (items of one
    /// key in push order, as a spool reads them), in memory, and counts
    /// the others: [`Spool::len`] is every item pushed, [`Spool::iter`]
    /// reads those `n`.
    #[must_use]
    pub fn first(n: usize) -> Spool<T> {
        Spool { first: Some(n), ..Spool::default() }
    }

    /// How many items a spool of [`Spool::first`] keeps; `None`: every
    /// item.
    #[must_use]
    pub fn kept(&self) -> Option<usize> {
        self.first
    }

    /// Adds the items of `other`, a spool of [`Spool::first`] that
    /// keeps as many as this one, pushed after this one's: those it kept,
    /// and the count of those it left out (which sort after them, so they
    /// are left out here too).
    pub(crate) fn join(&mut self, other: Spool<T>) {
        debug_assert!(self.first.is_some() && other.first == self.first, "two spools of the first items");
        let left_out = other.len - other.memory.len() as u64;
        for item in other.memory {
            // Never fails: a spool of the first items never writes.
            let _ = self.push(item);
        }
        self.len += left_out;
    }

    /// Items pushed.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// No item.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Chunks written to disk (for tests).
    #[must_use]
    #[cfg(test)]
    pub fn chunks(&self) -> usize {
        self.chunks.len()
    }

    /// Adds an item.
    ///
    /// # Errors
    /// Writing a chunk to the temporary file failed.
    pub fn push(&mut self, item: T) -> io::Result<()> {
        if let Some(n) = self.first {
            self.len += 1;
            if self.cut.is_some_and(|cut| (item.key(), item.tiebreak()) > cut) {
                return Ok(());
            }
            if let Some(last) = self.memory.last() {
                self.sorted &= last.key() <= item.key();
            }
            self.memory.push(item);
            if self.memory.len() >= n.saturating_mul(2).max(64) {
                self.trim(n);
            }
            return Ok(());
        }
        if let Some(last) = self.memory.last() {
            self.sorted &= last.key() <= item.key();
        }
        self.bytes += item.size();
        self.memory.push(item);
        self.len += 1;
        if self.bytes >= self.limit {
            self.spill()?;
        }
        Ok(())
    }

    /// Keeps the first `n` items in memory, sorted, and notes where they
    /// end.
    fn trim(&mut self, n: usize) {
        // Stable: items that tie on key and tiebreak keep their order,
        // so the one pushed later is the one left out.
        self.memory.sort_by_key(|i| (i.key(), i.tiebreak()));
        self.sorted = true;
        if self.memory.len() >= n {
            self.memory.truncate(n);
            self.cut = self.memory.last().map(|i| (i.key(), i.tiebreak()));
        }
    }

    /// Takes out the items `take` picks (a spool of [`Spool::first`],
    /// which never writes to disk): to be pushed again once completed.
    pub(crate) fn take_where(&mut self, take: impl Fn(&T) -> bool) -> Vec<T> {
        debug_assert!(self.first.is_some() && self.chunks.is_empty(), "only a spool of the first items");
        let (out, kept): (Vec<T>, Vec<T>) = std::mem::take(&mut self.memory).into_iter().partition(|i| take(i));
        self.memory = kept;
        // They sort no later than the cut, so they come back in.
        self.len -= out.len() as u64;
        out
    }

    /// Adds the item `make` makes, whose (key, tiebreak) is `at`; a
    /// spool of [`Spool::first`] that would leave it out only counts it,
    /// without making it.
    ///
    /// # Errors
    /// As [`Spool::push`].
    pub fn push_with(&mut self, at: (u64, u64), make: impl FnOnce() -> T) -> io::Result<()> {
        if self.cut.is_some_and(|cut| at > cut) {
            self.len += 1;
            return Ok(());
        }
        self.push(make())
    }

    fn sort(&mut self) {
        if let Some(n) = self.first {
            self.trim(n);
            return;
        }
        if !self.sorted {
            // Equal keys keep the order they came in, by the tiebreak.
            self.memory.sort_unstable_by_key(|i| (i.key(), i.tiebreak()));
            self.sorted = true;
        }
    }

    /// Writes the items in memory out as one sorted chunk.
    fn spill(&mut self) -> io::Result<()> {
        self.sort();
        let file = match &mut self.file {
            Some(f) => f,
            None => self.file.insert(tempfile::tempfile()?),
        };
        let start = self.chunks.last().map_or(0, |c| c.1);
        let mut bytes = Vec::with_capacity(self.bytes);
        for item in self.memory.drain(..) {
            item.encode(&mut bytes);
        }
        file.seek(SeekFrom::Start(start))?;
        file.write_all(&bytes)?;
        self.chunks.push((start, start + bytes.len() as u64));
        self.bytes = 0;
        Ok(())
    }

    /// Sorts what is in memory; call it once every item is in, before
    /// reading.
    pub fn seal(&mut self) {
        self.sort();
    }

    /// The items, by key (equal keys in push order). Each call reads the
    /// spool from its start.
    ///
    /// # Panics
    /// If the spool was pushed to after [`Spool::seal`] without sealing it
    /// again.
    pub fn iter(&self) -> Iter<'_, T> {
        assert!(self.sorted, "a spool is sealed before it is read");
        let mut iter =
            Iter { heap: BinaryHeap::new(), readers: Vec::new(), memory: &self.memory, at: 0, failed: false };
        if let Some(file) = &self.file {
            for &(start, end) in &self.chunks {
                iter.readers.push(Chunk { file, pos: start, end, buf: Vec::new(), at: 0 });
            }
        }
        for i in 0..iter.readers.len() {
            iter.refill(i);
        }
        if !iter.readers.is_empty() {
            iter.refill_memory();
        }
        iter
    }
}

/// A chunk of the temporary file read on its own: positioned reads, so
/// every chunk can be merged at once over one file handle.
struct Chunk<'a> {
    file: &'a File,
    pos: u64,
    end: u64,
    buf: Vec<u8>,
    at: usize,
}

/// Bytes read from a chunk at a time.
const READ: usize = 1 << 13;

impl Read for Chunk<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, out)
    }
}

/// `Read::read` of a reader that buffers: from its buffer, filled when
/// empty.
pub(crate) fn read_buffered(r: &mut impl BufRead, out: &mut [u8]) -> io::Result<usize> {
    let n = {
        let avail = r.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        n
    };
    r.consume(n);
    Ok(n)
}

impl BufRead for Chunk<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.at == self.buf.len() && self.pos < self.end {
            let want = usize::try_from(self.end - self.pos).unwrap_or(READ).min(READ);
            self.buf.resize(want, 0);
            let mut f = self.file;
            f.seek(SeekFrom::Start(self.pos))?;
            f.read_exact(&mut self.buf)?;
            self.pos += want as u64;
            self.at = 0;
        }
        Ok(&self.buf[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.buf.len());
    }
}

/// The merged items of a spool; an I/O error ends it after yielding the
/// error.
pub struct Iter<'a, T> {
    /// (key, source, item): the smallest key first, ties by source (the
    /// chunks in the order written, then memory).
    heap: BinaryHeap<Reverse<Head<T>>>,
    readers: Vec<Chunk<'a>>,
    memory: &'a [T],
    at: usize,
    failed: bool,
}

impl<T> std::fmt::Debug for Iter<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Iter").field("chunks", &self.readers.len()).finish_non_exhaustive()
    }
}

/// The next item of one source.
struct Head<T> {
    key: u64,
    source: usize,
    item: HeadItem<T>,
}

enum HeadItem<T> {
    Read(T),
    Memory(usize),
    Failed(io::Error),
}

impl<T> PartialEq for Head<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.key, self.source) == (other.key, other.source)
    }
}
impl<T> Eq for Head<T> {}
impl<T> PartialOrd for Head<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Head<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.key, self.source).cmp(&(other.key, other.source))
    }
}

impl<T: Item> Iter<'_, T> {
    fn refill(&mut self, i: usize) {
        match T::decode(&mut self.readers[i]) {
            Ok(Some(item)) => self.heap.push(Reverse(Head { key: item.key(), source: i, item: HeadItem::Read(item) })),
            Ok(None) => {}
            Err(e) => self.heap.push(Reverse(Head { key: 0, source: i, item: HeadItem::Failed(e) })),
        }
    }

    fn refill_memory(&mut self) {
        if let Some(item) = self.memory.get(self.at) {
            let source = self.readers.len();
            self.heap.push(Reverse(Head { key: item.key(), source, item: HeadItem::Memory(self.at) }));
            self.at += 1;
        }
    }
}

impl<'a, T: Item + Clone> Iterator for Iter<'a, T> {
    type Item = io::Result<T>;

    fn next(&mut self) -> Option<io::Result<T>> {
        if self.failed {
            return None;
        }
        if self.readers.is_empty() {
            // Nothing on disk: the memory, in order, with no merge.
            let item = self.memory.get(self.at)?;
            self.at += 1;
            return Some(Ok(item.clone()));
        }
        let Reverse(head) = self.heap.pop()?;
        match head.item {
            HeadItem::Read(item) => {
                self.refill(head.source);
                Some(Ok(item))
            }
            HeadItem::Memory(i) => {
                self.refill_memory();
                Some(Ok(self.memory[i].clone()))
            }
            HeadItem::Failed(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// Reads exactly `N` bytes, or none at the end of the input.
pub(crate) fn read_array<const N: usize>(input: &mut impl BufRead) -> io::Result<Option<[u8; N]>> {
    let mut out = [0; N];
    if input.fill_buf()?.is_empty() {
        return Ok(None);
    }
    input.read_exact(&mut out)?;
    Ok(Some(out))
}

/// A record's line and where its id's operand starts in it
/// ([`At::NO_ID`] when it has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    /// The 1-based line.
    pub line: u64,
    /// The id operand's offset in the line.
    pub offset: u32,
}

impl At {
    /// The offset of a record without an id.
    pub const NO_ID: u32 = u32::MAX;
    /// The offset of an id not known: the line is read as a record.
    pub const UNKNOWN: u32 = u32::MAX - 1;
}

impl Item for At {
    fn key(&self) -> u64 {
        self.line
    }
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.line.to_le_bytes());
        out.extend_from_slice(&self.offset.to_le_bytes());
    }
    fn decode(input: &mut impl BufRead) -> io::Result<Option<At>> {
        Ok(read_array::<12>(input)?.map(|b| At {
            line: u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            offset: u32::from_le_bytes(b[8..].try_into().expect("4 bytes")),
        }))
    }
}

/// An id or position seen (its hash), at a line, for duplicates; an id
/// with where it is in its line, to be read again without parsing the
/// line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The hash of the id or of the position.
    pub hash: u64,
    /// The line, times 2^24, plus the offset (`OFFSET_UNKNOWN` for none
    /// or one too large): 16 bytes an item, as many in memory as
    /// without the offset.
    at: u64,
}

/// Offsets from this one up are not kept in a [`Seen`].
const OFFSET_UNKNOWN: u64 = (1 << 24) - 1;

impl Seen {
    /// `hash` seen at line `line` (below 2^40), its id operand at
    /// `offset` ([`At::UNKNOWN`] or [`At::NO_ID`]: not said).
    #[must_use]
    pub fn new(hash: u64, line: u64, offset: u32) -> Seen {
        debug_assert!(line < 1 << 40);
        Seen { hash, at: line << 24 | u64::from(offset).min(OFFSET_UNKNOWN) }
    }

    /// The line.
    #[must_use]
    pub fn line(&self) -> u64 {
        self.at >> 24
    }

    /// Where the id is in the line ([`At::UNKNOWN`]: not said).
    #[must_use]
    pub fn offset(&self) -> u32 {
        match self.at & OFFSET_UNKNOWN {
            OFFSET_UNKNOWN => At::UNKNOWN,
            o => o as u32,
        }
    }
}

impl Item for Seen {
    fn key(&self) -> u64 {
        self.hash
    }
    fn tiebreak(&self) -> u64 {
        self.at
    }
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.hash.to_le_bytes());
        out.extend_from_slice(&self.at.to_le_bytes());
    }
    fn decode(input: &mut impl BufRead) -> io::Result<Option<Seen>> {
        Ok(read_array::<16>(input)?.map(|b| Seen {
            hash: u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            at: u64::from_le_bytes(b[8..].try_into().expect("8 bytes")),
        }))
    }
}

/// A text at a line (an id the report lists, an issue's message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    /// The line.
    pub line: u64,
    /// A small tag (an issue's kind), ordering texts of one line.
    pub tag: u8,
    /// The text.
    pub text: String,
}

impl Item for Text {
    /// By line, then by tag.
    fn key(&self) -> u64 {
        self.line.saturating_mul(256) | u64::from(self.tag)
    }
    fn size(&self) -> usize {
        std::mem::size_of::<Self>() + self.text.len()
    }
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.line.to_le_bytes());
        out.push(self.tag);
        out.extend_from_slice(&(self.text.len() as u64).to_le_bytes());
        out.extend_from_slice(self.text.as_bytes());
    }
    fn decode(input: &mut impl BufRead) -> io::Result<Option<Text>> {
        let Some(b) = read_array::<17>(input)? else { return Ok(None) };
        let line = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
        let len = u64::from_le_bytes(b[9..].try_into().expect("8 bytes"));
        let mut text = vec![0; usize::try_from(len).map_err(|_| io::Error::from(io::ErrorKind::InvalidData))?];
        input.read_exact(&mut text)?;
        let text = String::from_utf8(text).map_err(|_| io::Error::from(io::ErrorKind::InvalidData))?;
        Ok(Some(Text { line, tag: b[8], text }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_out_by_key_in_push_order_across_chunks() {
        let mut s: Spool<Seen> = Spool::with_limit(100);
        let mut want = Vec::new();
        let mut x = 12345u64;
        for line in 1..=2000u64 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let item = Seen::new(x >> 56, line, (x >> 20) as u32 & 0xff);
            want.push(item);
            s.push(item).unwrap();
        }
        s.seal();
        assert!(s.chunks() > 10, "{} chunks", s.chunks());
        want.sort_by_key(|i| i.hash);
        let got: Vec<Seen> = s.iter().map(Result::unwrap).collect();
        assert_eq!(got, want);
        // Read twice, same answer.
        assert_eq!(s.iter().count(), 2000);
        assert_eq!(s.len(), 2000);
        // The line and the offset read back.
        for (line, offset, back) in
            [(1, 0, 0), (7, 1 << 20, 1 << 20), (1 << 39, At::UNKNOWN, At::UNKNOWN), (3, At::NO_ID, At::UNKNOWN)]
        {
            let s = Seen::new(9, line, offset);
            assert_eq!((s.line(), s.offset()), (line, back));
        }
    }

    #[test]
    fn texts_round_trip_through_the_file() {
        let mut s: Spool<Text> = Spool::with_limit(64);
        let items: Vec<Text> =
            (1..=300u64).map(|l| Text { line: l, tag: (l % 3) as u8, text: "é".repeat(l as usize % 5) }).collect();
        for t in &items {
            s.push(t.clone()).unwrap();
        }
        s.seal();
        assert!(s.chunks() > 1);
        assert_eq!(s.iter().map(Result::unwrap).collect::<Vec<_>>(), items);
    }

    #[test]
    fn an_empty_spool_reads_nothing() {
        let mut s: Spool<At> = Spool::default();
        s.seal();
        assert_eq!(s.iter().count(), 0);
        assert!(s.is_empty());
    }
}
