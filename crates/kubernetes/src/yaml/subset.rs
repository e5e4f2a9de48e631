//! A fast event source for the YAML that templates and ordinary manifests
//! write: the same events, with the same spans, as `saphyr-parser` gives,
//! for a subset of YAML, and a refusal ([`Outside`]) for anything else.
//!
//! saphyr's scanner and parser spend about 2,000 instructions an event;
//! reading back a render's text was most of a render's time. The subset is
//! what templates and [`crate::emit`] write and what values files and
//! manifests mostly hold: block mappings and sequences (indentless ones
//! under a key too), single-line plain, single- and double-quoted scalars,
//! single-line flow collections of scalars and flow collections, comments,
//! and `---` lines. Anything else (tabs, anchors, aliases, tags,
//! directives, `?` keys, block scalars, multi-line scalars or flow
//! collections, `...`, a byte-order mark, a lone carriage return, odd
//! indentation, an empty value in a flow collection, very long keys, deep
//! nesting, any character YAML 1.1 and 1.2 read differently) is
//! [`Outside`]: the caller then reads the whole text with saphyr, so every
//! error, and every reading of the rarer syntax, stays saphyr's. (A text
//! that leaves the subset late is read twice: the price of never guessing.)
//!
//! Positions are saphyr's: a [`Marker`]'s index and column count
//! characters, lines count from 1. The rules each span follows are saphyr's
//! scanner's, written down where they are made; the differential tests in
//! this module and in `tests/it/reading.rs` hold the two to the same events.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::VecDeque;

use saphyr_parser::{Event, Marker, ScalarStyle, Span};

/// Deepest nesting the subset reads; past it saphyr reads the text (and the
/// reader's depth budget speaks).
const MAX_DEPTH: usize = 48;

/// Longest simple key, in bytes, the subset reads: saphyr gives a key up
/// past 1,024 characters.
const MAX_KEY: usize = 1000;

/// The text is not in the subset: read it with saphyr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outside;

type Step<T> = Result<T, Outside>;

/// An open block collection and its indentation (a column).
#[derive(Clone, Copy, Debug)]
enum Open {
    Mapping(usize),
    Sequence(usize),
    /// A sequence whose `-` stand in the column of its mapping's keys.
    Indentless(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Stream,
    Document { first: bool },
    Content { implicit: bool },
    Block,
    Done,
}

/// The events of a text, as saphyr's `Parser` yields them, while the text
/// stays in the subset; then one `Err(Outside)`.
pub struct Events<'t> {
    text: &'t str,
    bytes: &'t [u8],
    ascii: bool,
    /// The byte read next.
    pos: usize,
    /// The line of `pos`, from 1.
    line: usize,
    /// The byte offset of `pos`'s line.
    line_start: usize,
    /// The character offset of `pos`'s line.
    line_chars: usize,
    /// The last place [`Events::mark`] counted to in a non-ASCII text: a
    /// byte offset and its column in characters. Marks mostly move on
    /// along a line, so counting on from it keeps a long line of
    /// non-ASCII text (a flow collection of thousands of items) linear,
    /// not a count from the line's start for each token.
    counted: Cell<(usize, usize)>,
    stack: Vec<Open>,
    queue: VecDeque<(Event<'t>, Span)>,
    phase: Phase,
    failed: bool,
}

/// The events of `text`, with their spans, or `None` when it is outside the
/// subset.
pub fn events(text: &str) -> Option<Vec<(Event<'_>, Span)>> {
    Events::new(text).collect::<Result<_, _>>().ok()
}

impl<'t> Events<'t> {
    /// An event source for `text`.
    pub fn new(text: &'t str) -> Self {
        Events {
            text,
            bytes: text.as_bytes(),
            ascii: text.is_ascii(),
            pos: 0,
            line: 1,
            line_start: 0,
            line_chars: 0,
            counted: Cell::new((0, 0)),
            stack: Vec::new(),
            queue: VecDeque::new(),
            phase: Phase::Stream,
            failed: false,
        }
    }
}

impl<'t> Iterator for Events<'t> {
    type Item = Result<(Event<'t>, Span), Outside>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(event) = self.queue.pop_front() {
                return Some(Ok(event));
            }
            if self.failed || self.phase == Phase::Done {
                return None;
            }
            if let Err(outside) = self.step() {
                self.failed = true;
                self.queue.clear();
                return Some(Err(outside));
            }
        }
    }
}

/// Whether every character of `text` is one the subset reads: printable
/// ASCII, `\n`, `\r\n`, and printable non-ASCII that is no line break or
/// byte-order mark to any reader.
fn clean(text: &str) -> bool {
    let bytes = text.as_bytes();
    // Which kinds of byte there are, found without a branch a byte so the
    // loop runs on vectors.
    let (mut control, mut cr, mut non_ascii) = (0u8, 0u8, 0u8);
    for chunk in bytes.chunks(64) {
        for &b in chunk {
            control |= u8::from((b < 0x20 && b != b'\n' && b != b'\r') || b == 0x7f);
            cr |= u8::from(b == b'\r');
            non_ascii |= b & 0x80;
        }
        if control != 0 {
            return false;
        }
    }
    let lone_cr = |(i, &b): (usize, &u8)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    if cr != 0 && bytes.iter().enumerate().any(lone_cr) {
        return false;
    }
    non_ascii == 0
        || text.chars().all(|c| {
            c.is_ascii()
                || (c >= '\u{a0}'
                    && !matches!(
                        c,
                        '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                    ))
        })
}

fn is_flow(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'{' | b'}')
}

/// Characters that start something other than a plain scalar.
fn is_indicator(b: u8) -> bool {
    matches!(
        b,
        b'[' | b']'
            | b'{'
            | b'}'
            | b','
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

impl<'t> Events<'t> {
    /// The byte at `i`, or 0 past the end.
    fn byte(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    /// Whether a line ends at `i` (`\n`, `\r\n` or the end of the text).
    fn at_eol(&self, i: usize) -> bool {
        matches!(self.byte(i), 0 | b'\n' | b'\r')
    }

    /// A space, a line break or the end (saphyr's `is_blank_or_breakz`,
    /// tabs being outside the subset).
    fn blank_or_eol(&self, i: usize) -> bool {
        matches!(self.byte(i), 0 | b' ' | b'\n' | b'\r')
    }

    /// Where `i` is, `i` on the current line.
    fn mark(&self, i: usize) -> Marker {
        let col = if self.ascii {
            i - self.line_start
        } else {
            // From the last count when it is on this line and not past `i`
            // (line starts only grow), else from the line's start.
            let (from, col) = match self.counted.get() {
                (byte, col) if (self.line_start..=i).contains(&byte) => (byte, col),
                _ => (self.line_start, 0),
            };
            let col = col + self.text[from..i].chars().count();
            self.counted.set((i, col));
            col
        };
        Marker::new(self.line_chars + col, self.line, col)
    }

    /// The column of `i` in bytes: block indentation is spaces and `- `,
    /// so it is the column in characters where the subset compares them.
    fn col(&self, i: usize) -> usize {
        i - self.line_start
    }

    fn skip_spaces(&self, mut i: usize) -> usize {
        while self.byte(i) == b' ' {
            i += 1;
        }
        i
    }

    /// saphyr's `skip_ws_to_eol`: spaces, then a comment when a space
    /// precedes it (a `#` right after a token is an error).
    fn skip_ws_to_eol(&self, i: usize) -> Step<usize> {
        let j = self.skip_spaces(i);
        if self.byte(j) != b'#' {
            return Ok(j);
        }
        if j == i {
            return Err(Outside);
        }
        Ok(self.line_end(j))
    }

    /// The end of the line `i` is on (before its break).
    fn line_end(&self, i: usize) -> usize {
        self.bytes[i..]
            .iter()
            .position(|b| matches!(b, b'\n' | b'\r'))
            .map_or(self.bytes.len(), |n| i + n)
    }

    /// Moves past the line break at `pos`.
    fn newline(&mut self) {
        let start = if self.byte(self.pos) == b'\r' {
            self.pos + 2
        } else {
            self.pos + 1
        };
        self.line_chars += if self.ascii {
            start - self.line_start
        } else {
            self.text[self.line_start..start].chars().count()
        };
        self.line_start = start;
        self.line += 1;
        self.pos = start;
    }

    /// Skips spaces, comments and line breaks to the next content.
    fn skip_to_content(&mut self) {
        loop {
            self.pos = self.skip_spaces(self.pos);
            match self.byte(self.pos) {
                b'#' => self.pos = self.line_end(self.pos),
                b'\n' | b'\r' => self.newline(),
                _ => return,
            }
        }
    }

    /// The `---` (`b'-'`) or `...` (`b'.'`) line that starts at `i`, if
    /// one does.
    fn document_marker(&self, i: usize) -> Option<u8> {
        if i != self.line_start || !self.blank_or_eol(i + 3) {
            return None;
        }
        match self.bytes.get(i..i + 3)? {
            b"---" => Some(b'-'),
            b"..." => Some(b'.'),
            _ => None,
        }
    }

    /// Whether `i` starts a block sequence entry.
    fn is_entry(&self, i: usize) -> bool {
        self.byte(i) == b'-' && self.blank_or_eol(i + 1)
    }

    fn push(&mut self, event: Event<'t>, start: Marker, end: Marker) {
        self.queue.push_back((event, Span::new(start, end)));
    }

    /// The quoted scalar at `i` as its event; where it ends.
    fn push_quoted_scalar(&mut self, i: usize) -> Step<usize> {
        let (text, style, end) = self.quoted(i)?;
        let (from, to) = (self.mark(i), self.mark(end));
        self.push(Event::Scalar(text, style, 0, None), from, to);
        Ok(end)
    }

    /// The plain scalar of the bytes `start..end`.
    fn push_plain(&mut self, start: usize, end: usize) {
        let text = Cow::Borrowed(&self.text[start..end]);
        let (from, to) = (self.mark(start), self.mark(end));
        self.push(Event::Scalar(text, ScalarStyle::Plain, 0, None), from, to);
    }

    fn push_empty(&mut self, event: Event<'t>, at: Marker) {
        self.queue.push_back((event, Span::empty(at)));
    }

    fn open(&mut self, open: Open) -> Step<()> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(Outside);
        }
        self.stack.push(open);
        Ok(())
    }

    /// Where saphyr puts the end of the stream: the end, moved to the
    /// start of a next line when the last has no line break.
    fn stream_end(&self) -> Marker {
        let end = self.mark(self.bytes.len());
        if end.col() == 0 {
            end
        } else {
            Marker::new(end.index(), end.line() + 1, 0)
        }
    }

    /// The span of the token a block collection of indentation `indent`
    /// ends at, `pos` being the next content: there, or at the end of the
    /// text (where saphyr ends collections deeper than the last line's
    /// column before it moves to a next line).
    fn block_end(&self, indent: usize) -> Marker {
        if self.pos < self.bytes.len() {
            return self.mark(self.pos);
        }
        let end = self.mark(self.pos);
        if indent > end.col() {
            end
        } else {
            self.stream_end()
        }
    }

    /// The span of the `---` at `pos`, or of the stream's end: what an
    /// empty document and a document's end take.
    fn boundary_span(&self) -> (Marker, Marker) {
        if self.pos < self.bytes.len() {
            (self.mark(self.pos), self.mark(self.pos + 3))
        } else {
            let end = self.stream_end();
            (end, end)
        }
    }

    /// Whether `pos` ends the document: the end, or a `---` line.
    fn at_boundary(&self) -> Step<bool> {
        if self.pos >= self.bytes.len() {
            return Ok(true);
        }
        match self.document_marker(self.pos) {
            Some(b'-') => Ok(true),
            Some(_) => Err(Outside),
            None => Ok(false),
        }
    }

    fn step(&mut self) -> Step<()> {
        match self.phase {
            Phase::Stream => {
                if !clean(self.text) {
                    return Err(Outside);
                }
                self.push_empty(Event::StreamStart, Marker::new(0, 1, 0));
                self.phase = Phase::Document { first: true };
            }
            Phase::Document { first } => self.document(first)?,
            Phase::Content { implicit } => self.content(implicit)?,
            Phase::Block => self.block()?,
            Phase::Done => {}
        }
        Ok(())
    }

    /// A document starts, or the stream ends.
    fn document(&mut self, first: bool) -> Step<()> {
        self.skip_to_content();
        if self.pos >= self.bytes.len() {
            self.push_empty(Event::StreamEnd, self.stream_end());
            self.phase = Phase::Done;
            return Ok(());
        }
        match self.document_marker(self.pos) {
            Some(b'-') => {
                let at = self.pos;
                // `---` alone on its line (a comment may follow).
                let end = self.skip_ws_to_eol(at + 3)?;
                if !self.at_eol(end) {
                    return Err(Outside);
                }
                self.push(Event::DocumentStart(true), self.mark(at), self.mark(at + 3));
                self.pos = end;
                self.phase = Phase::Content { implicit: false };
                Ok(())
            }
            None if first => {
                self.phase = Phase::Content { implicit: true };
                Ok(())
            }
            _ => Err(Outside),
        }
    }

    /// The root node of a document, or its emptiness.
    fn content(&mut self, implicit: bool) -> Step<()> {
        self.skip_to_content();
        if self.at_boundary()? {
            if implicit {
                return Err(Outside);
            }
            let (start, end) = self.boundary_span();
            self.push(
                Event::Scalar("".into(), ScalarStyle::Plain, 0, None),
                start,
                end,
            );
            self.push(Event::DocumentEnd, start, end);
            self.phase = Phase::Document { first: false };
            return Ok(());
        }
        let at = self.mark(self.pos);
        if implicit {
            self.push_empty(Event::DocumentStart(false), at);
        }
        self.block_collection_at(self.pos)?;
        self.phase = Phase::Block;
        Ok(())
    }

    /// Opens the block sequence or mapping that starts at `i`.
    fn block_collection_at(&mut self, i: usize) -> Step<()> {
        let col = self.col(i);
        let at = self.mark(i);
        if self.is_entry(i) {
            self.open(Open::Sequence(col))?;
            self.push_empty(Event::SequenceStart(0, None), at);
        } else if self.key(i).is_ok() {
            self.open(Open::Mapping(col))?;
            self.push_empty(Event::MappingStart(0, None), at);
        } else {
            return Err(Outside);
        }
        self.pos = i;
        Ok(())
    }

    /// One step in the innermost open block collection, `pos` at the next
    /// content.
    fn block(&mut self) -> Step<()> {
        let boundary = self.at_boundary()?;
        let col = self.col(self.pos);
        match self.stack.last().copied() {
            None => {
                if !boundary {
                    return Err(Outside);
                }
                let (start, end) = self.boundary_span();
                self.push(Event::DocumentEnd, start, end);
                self.phase = Phase::Document { first: false };
            }
            Some(Open::Mapping(m)) => {
                if boundary || col < m {
                    self.stack.pop();
                    self.push_empty(Event::MappingEnd, self.block_end(m));
                } else if col == m {
                    self.mapping_entry(m)?;
                } else {
                    return Err(Outside);
                }
            }
            Some(Open::Sequence(s)) => {
                if boundary || col < s {
                    self.stack.pop();
                    self.push_empty(Event::SequenceEnd, self.block_end(s));
                } else if col == s && self.is_entry(self.pos) {
                    self.sequence_entry(s)?;
                } else {
                    return Err(Outside);
                }
            }
            Some(Open::Indentless(m)) => {
                if !boundary && col == m && self.is_entry(self.pos) {
                    self.sequence_entry(m)?;
                } else if boundary || col <= m {
                    self.stack.pop();
                    self.push_empty(Event::SequenceEnd, self.block_end(m));
                } else {
                    return Err(Outside);
                }
            }
        }
        Ok(())
    }

    /// A key of the mapping of indentation `m` at `pos`, and its value.
    fn mapping_entry(&mut self, m: usize) -> Step<()> {
        let key_at = self.pos;
        let (text, style, end, colon) = self.key(key_at)?;
        self.push(
            Event::Scalar(text, style, 0, None),
            self.mark(key_at),
            self.mark(end),
        );
        // An empty value's span is saphyr's `Value` token: at the `:`.
        let value_mark = self.mark(colon);
        let after = self.skip_spaces(colon + 1);
        if !(self.at_eol(after) || self.byte(after) == b'#') {
            return self.inline_value(after);
        }
        self.pos = after;
        self.skip_to_content();
        if self.at_boundary()? {
            self.push_empty(
                Event::Scalar("".into(), ScalarStyle::Plain, 0, None),
                value_mark,
            );
            return Ok(());
        }
        let col = self.col(self.pos);
        if col > m {
            self.block_collection_at(self.pos)
        } else if col == m && self.is_entry(self.pos) {
            // An indentless sequence starts at its first `BlockEntry`:
            // past the `-` and the blanks and comment after it.
            let entry = self.skip_ws_to_eol(self.pos + 1)?;
            self.open(Open::Indentless(m))?;
            self.push_empty(Event::SequenceStart(0, None), self.mark(entry));
            Ok(())
        } else {
            self.push_empty(
                Event::Scalar("".into(), ScalarStyle::Plain, 0, None),
                value_mark,
            );
            Ok(())
        }
    }

    /// An entry of the sequence of indentation `s` at `pos` (its `-`).
    fn sequence_entry(&mut self, s: usize) -> Step<()> {
        // saphyr's `BlockEntry` token: past the `-`, the blanks and a comment.
        let entry = self.skip_ws_to_eol(self.pos + 1)?;
        if !self.at_eol(entry) {
            if self.is_entry(entry) || self.key(entry).is_ok() {
                return self.block_collection_at(entry);
            }
            return self.inline_value(entry);
        }
        let empty = self.mark(entry);
        self.pos = entry;
        self.skip_to_content();
        if !self.at_boundary()? && self.col(self.pos) > s {
            return self.block_collection_at(self.pos);
        }
        self.push_empty(Event::Scalar("".into(), ScalarStyle::Plain, 0, None), empty);
        Ok(())
    }

    /// A value that starts at `i` on its key's or entry's line: a scalar or
    /// a flow collection, then nothing but a comment to the line's end.
    fn inline_value(&mut self, i: usize) -> Step<()> {
        let end = match self.byte(i) {
            b'"' | b'\'' => self.push_quoted_scalar(i)?,
            b'[' | b'{' => self.flow(i, self.stack.len())?,
            _ => {
                self.plain_start(i, false)?;
                let (text_end, _) = self.plain_block(i);
                self.push_plain(i, text_end);
                self.skip_ws_to_eol(text_end)?
            }
        };
        if !self.at_eol(end) {
            return Err(Outside);
        }
        self.pos = end;
        self.skip_to_content();
        Ok(())
    }

    /// The simple key at `i`: its text, style, where its span ends, and
    /// where its `:` is.
    fn key(&self, i: usize) -> Step<(Cow<'t, str>, ScalarStyle, usize, usize)> {
        let (text, style, end, colon) = match self.byte(i) {
            b'"' | b'\'' => {
                let (text, style, end) = self.quoted(i)?;
                (text, style, end, end)
            }
            _ => {
                self.plain_start(i, false)?;
                let (text_end, stop) = self.plain_block(i);
                let text = Cow::Borrowed(&self.text[i..text_end]);
                (text, ScalarStyle::Plain, text_end, stop)
            }
        };
        if self.byte(colon) != b':' || !self.blank_or_eol(colon + 1) || colon - i > MAX_KEY {
            return Err(Outside);
        }
        Ok((text, style, end, colon))
    }

    /// Whether a plain scalar may start at `i` (in a flow collection when
    /// `flow`).
    fn plain_start(&self, i: usize, flow: bool) -> Step<()> {
        let b = self.byte(i);
        let next = self.byte(i + 1);
        let refused = match b {
            0 | b' ' | b'\n' | b'\r' => true,
            b'-' => self.blank_or_eol(i + 1) || (flow && is_flow(next)),
            b'?' | b':' => flow || self.blank_or_eol(i + 1),
            _ => is_indicator(b),
        };
        if refused { Err(Outside) } else { Ok(()) }
    }

    /// Whether a word of a plain scalar in block context ends at `j`: a
    /// blank, the line's end, or a `:` indicator.
    fn ends_block_chunk(&self, j: usize) -> bool {
        let b = self.byte(j);
        matches!(b, 0 | b' ' | b'\n' | b'\r') || (b == b':' && self.blank_or_eol(j + 1))
    }

    /// A plain scalar in block context on one line from `i`: where its text
    /// ends, and where it stops (past the spaces after it: the line's end,
    /// a comment or a `:` indicator).
    fn plain_block(&self, i: usize) -> (usize, usize) {
        let mut j = i;
        loop {
            while !self.ends_block_chunk(j) {
                j += 1;
            }
            let end = j;
            let k = self.skip_spaces(j);
            if k == j
                || self.at_eol(k)
                || self.byte(k) == b'#'
                || (self.byte(k) == b':' && self.blank_or_eol(k + 1))
            {
                return (end, k);
            }
            j = k;
        }
    }

    /// A plain scalar in a flow collection from `i`, on one line: where its
    /// text ends and where it stops (past the spaces after it).
    fn plain_flow(&self, i: usize) -> Step<(usize, usize)> {
        let ends_flow_chunk = |j: usize| {
            let b = self.byte(j);
            matches!(b, 0 | b' ' | b'\n' | b'\r')
                || is_flow(b)
                || (b == b':' && (self.blank_or_eol(j + 1) || is_flow(self.byte(j + 1))))
        };
        let mut j = i;
        loop {
            // saphyr refuses `-` followed by a flow character at a word's start.
            if self.byte(j) == b'-' && is_flow(self.byte(j + 1)) {
                return Err(Outside);
            }
            while !ends_flow_chunk(j) {
                j += 1;
            }
            let end = j;
            let k = self.skip_spaces(j);
            match self.byte(k) {
                // A flow collection across lines, or a comment in one.
                0 | b'\n' | b'\r' | b'#' => return Err(Outside),
                _ if ends_flow_chunk(k) => return Ok((end, k)),
                _ => j = k,
            }
        }
    }

    /// A quoted scalar from its quote at `i`, on one line: its text, its
    /// style, and where its span ends (saphyr's: past the closing quote,
    /// the spaces after it and a comment).
    fn quoted(&self, i: usize) -> Step<(Cow<'t, str>, ScalarStyle, usize)> {
        let quote = self.bytes[i];
        let mut owned: Option<String> = None;
        let mut from = i + 1;
        let mut j = i + 1;
        loop {
            // To the next byte that matters, in one tight loop.
            let special = |b: &u8| matches!(b, b'\n' | b'\r' | b'\'' | b'"' | b'\\');
            j += self.bytes[j..].iter().position(special).ok_or(Outside)?;
            match self.bytes[j] {
                b'\n' | b'\r' => return Err(Outside),
                b'\'' if quote == b'\'' => {
                    if self.byte(j + 1) != b'\'' {
                        break;
                    }
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.text[from..=j]);
                    j += 2;
                    from = j;
                }
                b'"' if quote == b'"' => break,
                b'\\' if quote == b'"' => {
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.text[from..j]);
                    let (c, length) = self.escape(j)?;
                    text.push(c);
                    j += length;
                    from = j;
                }
                _ => j += 1,
            }
        }
        let text = match owned {
            Some(mut text) => {
                text.push_str(&self.text[from..j]);
                Cow::Owned(text)
            }
            None => Cow::Borrowed(&self.text[i + 1..j]),
        };
        let style = if quote == b'"' {
            ScalarStyle::DoubleQuoted
        } else {
            ScalarStyle::SingleQuoted
        };
        Ok((text, style, self.skip_ws_to_eol(j + 1)?))
    }

    /// The character a double-quoted escape at `i` (its `\`) stands for,
    /// and the escape's length in bytes.
    fn escape(&self, i: usize) -> Step<(char, usize)> {
        let simple = match self.byte(i + 1) {
            b'0' => '\0',
            b'a' => '\x07',
            b'b' => '\x08',
            b't' => '\t',
            b'n' => '\n',
            b'v' => '\x0b',
            b'f' => '\x0c',
            b'r' => '\r',
            b'e' => '\x1b',
            b' ' => ' ',
            b'"' => '"',
            b'/' => '/',
            b'\\' => '\\',
            b'N' => '\u{85}',
            b'_' => '\u{a0}',
            b'L' => '\u{2028}',
            b'P' => '\u{2029}',
            b'x' => return self.hex_escape(i, 2),
            b'u' => return self.hex_escape(i, 4),
            b'U' => return self.hex_escape(i, 8),
            _ => return Err(Outside),
        };
        Ok((simple, 2))
    }

    fn hex_escape(&self, i: usize, digits: usize) -> Step<(char, usize)> {
        let hex = self.bytes.get(i + 2..i + 2 + digits).ok_or(Outside)?;
        if !hex.iter().all(u8::is_ascii_hexdigit) {
            return Err(Outside);
        }
        let hex = std::str::from_utf8(hex).map_err(|_| Outside)?;
        let value = u32::from_str_radix(hex, 16).map_err(|_| Outside)?;
        let c = char::from_u32(value).ok_or(Outside)?;
        Ok((c, 2 + digits))
    }

    /// A flow collection from its `[` or `{` at `i`, on one line, at
    /// nesting `depth`: its events; where it ends (past the blanks and a
    /// comment after its closing bracket).
    fn flow(&mut self, i: usize, depth: usize) -> Step<usize> {
        if depth >= MAX_DEPTH {
            return Err(Outside);
        }
        let (mapping, close) = match self.bytes[i] {
            b'{' => (true, b'}'),
            _ => (false, b']'),
        };
        let mut j = self.skip_ws_to_eol(i + 1)?;
        let start = if mapping {
            Event::MappingStart(0, None)
        } else {
            Event::SequenceStart(0, None)
        };
        self.push(start, self.mark(i), self.mark(j));
        if self.byte(j) != close {
            loop {
                if mapping {
                    j = self.flow_key(j)?;
                }
                j = self.flow_item(j, depth)?;
                match self.byte(j) {
                    b',' => {
                        j = self.skip_ws_to_eol(j + 1)?;
                        if self.at_eol(j) || self.byte(j) == close {
                            return Err(Outside);
                        }
                    }
                    b if b == close => break,
                    _ => return Err(Outside),
                }
            }
        }
        let end = self.skip_ws_to_eol(j + 1)?;
        let event = if mapping {
            Event::MappingEnd
        } else {
            Event::SequenceEnd
        };
        self.push(event, self.mark(j), self.mark(end));
        Ok(end)
    }

    /// A key of a flow mapping at `i` and its `: `: where its value starts.
    fn flow_key(&mut self, i: usize) -> Step<usize> {
        if matches!(self.byte(i), b'[' | b'{') {
            return Err(Outside);
        }
        let colon = self.flow_item(i, 0)?;
        if self.byte(colon) != b':' || self.byte(colon + 1) != b' ' {
            return Err(Outside);
        }
        let value = self.skip_spaces(colon + 1);
        if self.at_eol(value) || matches!(self.byte(value), b',' | b'}' | b'#') {
            return Err(Outside);
        }
        Ok(value)
    }

    /// A scalar or flow collection in a flow collection at `i`: where the
    /// next token starts.
    fn flow_item(&mut self, i: usize, depth: usize) -> Step<usize> {
        match self.byte(i) {
            b'[' | b'{' => self.flow(i, depth + 1),
            b'"' | b'\'' => self.push_quoted_scalar(i),
            _ => {
                self.plain_start(i, true)?;
                let (text_end, stop) = self.plain_flow(i)?;
                self.push_plain(i, text_end);
                Ok(stop)
            }
        }
    }
}

#[cfg(test)]
pub(in crate::yaml) mod tests {
    use saphyr_parser::Parser;

    use super::*;

    /// saphyr's events for `text`, or `None` when it fails.
    pub(in crate::yaml) fn saphyr(text: &str) -> Option<Vec<(Event<'_>, Span)>> {
        Parser::new_from_str(text).collect::<Result<_, _>>().ok()
    }

    /// Whether the subset reads `text` as saphyr does; panics when it reads
    /// it otherwise.
    pub(in crate::yaml) fn agrees(text: &str) -> bool {
        let Some(fast) = events(text) else {
            return false;
        };
        let slow = saphyr(text);
        assert!(
            slow.is_some(),
            "saphyr refuses what the subset reads: {text:?}"
        );
        let slow = slow.unwrap_or_default();
        for (i, (a, b)) in fast.iter().zip(&slow).enumerate() {
            assert_eq!(a, b, "event {i} of {text:?}");
        }
        assert_eq!(fast.len(), slow.len(), "{text:?}");
        true
    }

    #[test]
    fn the_subset_reads_what_saphyr_reads() {
        let cases = [
            "",
            "# only a comment",
            "# only a comment\n",
            "a: 1\n",
            "a: 1",
            "a: 1\nb:\n  - x\n  - y: z\n    w: \"q\"\n",
            "---\nk:\n- a\n-\n- b: \"x y\"  # c\n  c: [a, {b: c}]  \nz: {}\n---\n# only\n---\nq: 1",
            "a:\n  b:\n    c: 1\n# c",
            "a:\n    b: 1\n# c",
            "a:\n  b:\n    c: 1\n  ",
            "- - a\n  - b\n- c\n",
            "key: value # comment\n",
            "a:\nb:\n",
            "a:\n  # c\nb: 1\n",
            "q: \"quoted: with # and \\\" escapes \\u00e9\"\n",
            "q: 'it''s'\n",
            "e: {}\nf: []\ng: {a: 1, b: [x, y]}\n",
            "--- \na: 1\n---   # c\nb: 2\n",
            "a: 1   \nb: 2  \n",
            "a: 1\r\nb:\r\n  - c\r\n",
            "a: h\u{e9}llo w\u{f6}rld\nb: [\u{e9}, \"\u{e9}\"]\n",
            "\"a\" : 1\n'b': 2\n",
            "a: -1\nb: --x\nc: a:b\nd: a#b\n",
            "- a\n- b\n",
            "-\n  a: 1\n-\n  - b\n",
            "- # c\n  a: 1\n",
            "a:\n- b\n- c:\n  - d\ne: f\n",
            "a: [\"x\" , 'y' ]  # c\n",
            "---\n---\n",
            "---\n",
            "a:\n  b: 1\n---\nc: 2\n",
            "a  : 1\n\"b\"  : 2\n",
            "a: 'x' # c\nb: \"x\"\n",
            "- \"x\"\n- [a]\n- {a: 1}  # c\n- - - a\n",
            "  a: 1\n  b:\n  - c\n",
            "a: [\u{e9}, {\u{e9}: \"\u{e9}\"}]   \r\nb: \u{e9}\r\n",
            "---\n- a\n---\n- b\n",
            "a:\n\n\n  b: 1\n\n",
        ];
        for case in cases {
            assert!(agrees(case), "outside: {case:?}");
        }
    }

    #[test]
    fn a_long_line_of_non_ascii_text_is_counted_once() {
        // Each mark's column in characters was counted from the line's
        // start: a flow collection of 100,000 items on one line took
        // some 10^10 steps. The count now goes on from the last mark.
        let line = |n: usize| format!("a: [{}]\n", vec!["\u{e9}"; n].join(", "));
        assert!(agrees(&line(2_000)));
        let long = line(100_000);
        let events = events(&long).expect("in the subset");
        let last = (events.iter().rev())
            .find(|(event, _)| matches!(event, Event::Scalar(..)))
            .unwrap();
        // `a: [` is 4 characters, each item `é, ` 3.
        assert_eq!(last.1.start.col(), 4 + 3 * 99_999);
        assert_eq!(last.1.start.index(), 4 + 3 * 99_999);
    }

    #[test]
    fn the_subset_gives_up_outside_itself() {
        let cases = [
            "a: &x 1\n",
            "a: *x\n",
            "a: !!str 1\n",
            "%YAML 1.2\n---\na: 1\n",
            "? a\n: 1\n",
            "a: |\n  x\n",
            "a: >\n  x\n",
            "a: b\n  c\n",
            "a: \"b\n  c\"\n",
            "a:\tb\n",
            "a: 1\n...\n",
            "\u{feff}a: 1\n",
            "a: [1,\n 2]\n",
            "a: b: c\n",
            "a: 1\n  b: 2\n",
            "a: 1\rb: 2\n",
            "a: \"x\" y\n",
            "plain\n",
            "a: {b}\n",
            "a: [b: c]\n",
            "a: [b,]\n",
        ];
        for case in cases {
            assert!(events(case).is_none(), "read: {case:?}");
        }
    }
}
