//! Go's `net/mail` address grammar, as Kubernetes' `email` string format
//! reads it.
//!
//! The `email` format of CRD schemas (kube-openapi `strfmt.IsEmail`) accepts a
//! value when Go's `mail.ParseAddress` parses it without error and yields a
//! non-empty address. This module ports that parser (Go's
//! `net/mail/message.go`, plus the bits of `mime.WordDecoder` and
//! `encoding/base64` it leans on; a domain literal's address is read by the
//! parent's `netip`) so that the verdict matches Go's byte for byte.
//!
//! What Go accepts that one might not expect:
//!
//! - a display name: `Barry Gibbs <bg@example.com>`, `"Q. Name" <a@b>`,
//!   `<a@b>` alone, and a display name made of dotted atoms (`a.b. <x@y>`);
//! - a trailing comment after a bare address (`a@b (Barry)`), comments
//!   anywhere CFWS is allowed, nested comments, and any bytes inside them
//!   (control characters, CR, LF);
//! - a group holding exactly one address: `team: a@b;` (and `team: <a@b>;`);
//! - spaces and tabs after `<`, after `@` and before the local part
//!   (`< a@ b>`), but none before `@` or before `>`;
//! - quoted local parts with escapes (`"a\ b"@c`) and any non-ASCII
//!   character in atoms, quoted strings and domains (RFC 6532);
//! - a domain without a dot (`a@b`), and IP domain literals (`a@[1.2.3.4]`,
//!   `a@[::1]`) as Go's `net.ParseIP` reads them;
//! - RFC 2047 encoded words in the display name; an encoded word that is
//!   well formed but names a charset other than UTF-8, ISO-8859-1 or US-ASCII
//!   makes the whole value invalid when no earlier word of the display name
//!   yielded text (`=?foo?q?x?= <a@b>`), or when it is any word of a trailing
//!   comment (`a@b (=?foo?q?x?=)`); after a word, it silently ends the name;
//! - Go skips comments inside a display name only once it holds a plain
//!   word, so `=?utf-8?q?x?= (c) <a@b>` fails while `x (c) <a@b>` passes.

/// Whether Go's `net/mail.ParseAddress` reads `text` as one address with a
/// non-empty address part (Kubernetes' `email` format).
pub(crate) fn is_email(text: &str) -> bool {
    Parser { s: text.as_bytes() }.parse_single_address()
}

/// The parse failed; Go would have returned an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reject;

/// The result of one parsing step.
type Step<T> = Result<T, Reject>;

/// The input not yet consumed (Go's `addrParser`).
///
/// The input is valid UTF-8 and every split point is an ASCII byte, so the
/// parser works on bytes: a byte of 0x80 or more is always part of a
/// multibyte character, which Go classifies as visible text.
#[derive(Debug, Clone, Copy)]
struct Parser<'a> {
    /// The unconsumed rest of the input.
    s: &'a [u8],
}

impl<'a> Parser<'a> {
    /// `parseSingleAddress`: one address, then only CFWS.
    fn parse_single_address(&mut self) -> bool {
        let Ok(count) = self.parse_address(true) else {
            return false;
        };
        self.skip_cfws() && self.s.is_empty() && count == 1
    }

    /// `parseAddress`: a mailbox, or (when `handle_group`) a group.
    ///
    /// Returns how many addresses were read.
    fn parse_address(&mut self, handle_group: bool) -> Step<usize> {
        self.skip_space();
        if self.s.is_empty() {
            return Err(Reject);
        }
        // Go first tries a bare addr-spec, then falls back to name-addr.
        if self.consume_addr_spec().is_ok() {
            self.skip_space();
            if self.peek() == Some(b'(') {
                self.consume_display_name_comment()?;
            }
            return Ok(1);
        }
        if self.peek() != Some(b'<') {
            self.consume_phrase()?;
        }
        self.skip_space();
        if handle_group && self.consume(b':') {
            return self.consume_group_list();
        }
        self.consume_angle_addr()?;
        Ok(1)
    }

    /// `"<" addr-spec ">"`, with the `<` not yet consumed.
    fn consume_angle_addr(&mut self) -> Step<()> {
        if !self.consume(b'<') {
            return Err(Reject);
        }
        self.consume_addr_spec()?;
        if self.consume(b'>') {
            Ok(())
        } else {
            Err(Reject)
        }
    }

    /// `consumeGroupList`: the members of a group after its `:`.
    ///
    /// Returns how many addresses the group holds.
    fn consume_group_list(&mut self) -> Step<usize> {
        self.skip_space();
        if self.consume(b';') {
            return self.cfws_then(0);
        }
        let mut count = 0;
        loop {
            self.skip_space();
            count += self.parse_address(false)?;
            if !self.skip_cfws() {
                return Err(Reject);
            }
            if self.consume(b';') {
                return self.cfws_then(count);
            }
            if !self.consume(b',') {
                return Err(Reject);
            }
        }
    }

    /// Skips CFWS, then yields `value` unless a comment was unclosed.
    fn cfws_then(&mut self, value: usize) -> Step<usize> {
        if self.skip_cfws() {
            Ok(value)
        } else {
            Err(Reject)
        }
    }

    /// `consumeAddrSpec`: `local-part "@" domain`; restores the input on
    /// failure.
    fn consume_addr_spec(&mut self) -> Step<()> {
        let orig = *self;
        let result = self.addr_spec_inner();
        if result.is_err() {
            *self = orig;
        }
        result
    }

    /// The body of [`Parser::consume_addr_spec`], without the restore.
    fn addr_spec_inner(&mut self) -> Step<()> {
        self.skip_space();
        match self.peek() {
            None => return Err(Reject),
            Some(b'"') => {
                // An empty quoted local part is an error.
                if !self.consume_quoted_string()? {
                    return Err(Reject);
                }
            }
            Some(_) => {
                self.consume_atom(true, false)?;
            }
        }
        if !self.consume(b'@') {
            return Err(Reject);
        }
        self.skip_space();
        match self.peek() {
            None => Err(Reject),
            Some(b'[') => self.consume_domain_literal(),
            Some(_) => self.consume_atom(true, false).map(|_| ()),
        }
    }

    /// `consumePhrase`: a display name (`1*word`, obs-phrase CFWS allowed
    /// after the first non-encoded word).
    ///
    /// Go stops at the first word it cannot read and only fails if no word
    /// was collected by then. Encoded words are buffered and only count as a
    /// word when they decode to something non-empty.
    fn consume_phrase(&mut self) -> Step<()> {
        let mut words = 0usize;
        let mut pending = false;
        let mut failed = false;
        loop {
            if words > 0 && !self.skip_cfws() {
                return Err(Reject);
            }
            self.skip_space();
            if self.s.is_empty() {
                break;
            }
            match self.phrase_word() {
                Err(Reject) => {
                    failed = true;
                    break;
                }
                Ok(Some(decoded_non_empty)) => pending |= decoded_non_empty,
                Ok(None) => {
                    words += usize::from(pending) + 1;
                    pending = false;
                }
            }
        }
        words += usize::from(pending);
        if failed && words == 0 {
            Err(Reject)
        } else {
            Ok(())
        }
    }

    /// One word of a phrase: a quoted string or a (permissive) dot-atom.
    ///
    /// Returns `None` for a plain word and `Some(non_empty)` for an RFC 2047
    /// encoded word that decoded (to a non-empty text or not).
    fn phrase_word(&mut self) -> Step<Option<bool>> {
        if self.peek() == Some(b'"') {
            self.consume_quoted_string()?;
            return Ok(None);
        }
        let atom = self.consume_atom(true, true)?;
        match encoded_word(atom) {
            EncodedWord::NotEncoded => Ok(None),
            EncodedWord::Decoded { non_empty } => Ok(Some(non_empty)),
            EncodedWord::UnknownCharset => Err(Reject),
        }
    }

    /// `consumeQuotedString`: a quoted string starting at `"`.
    ///
    /// Returns whether its content is non-empty. On failure nothing is
    /// consumed.
    fn consume_quoted_string(&mut self) -> Step<bool> {
        let mut i = 1;
        let mut escaped = false;
        loop {
            let &b = self.s.get(i).ok_or(Reject)?;
            if escaped {
                if !is_vchar(b) && !is_wsp(b) {
                    return Err(Reject);
                }
                escaped = false;
            } else if b == b'"' {
                break;
            } else if b == b'\\' {
                escaped = true;
            } else if !is_qtext(b) && !is_wsp(b) {
                return Err(Reject);
            }
            i += 1;
        }
        self.s = self.s.get(i + 1..).unwrap_or_default();
        Ok(i > 1)
    }

    /// `consumeAtom`: an atom (or dot-atom when `dot`); unless `permissive`,
    /// leading, trailing and doubled dots are rejected (after consuming).
    fn consume_atom(&mut self, dot: bool, permissive: bool) -> Step<&'a [u8]> {
        let len = self.s.iter().take_while(|&&b| is_atext(b, dot)).count();
        if len == 0 {
            return Err(Reject);
        }
        let (atom, rest) = self.s.split_at(len);
        self.s = rest;
        let bad_dots =
            atom.starts_with(b".") || atom.ends_with(b".") || atom.windows(2).any(|w| w == b"..");
        if !permissive && bad_dots {
            return Err(Reject);
        }
        Ok(atom)
    }

    /// `consumeDomainLiteral`: `[dtext]` holding an IP address.
    fn consume_domain_literal(&mut self) -> Step<()> {
        if !self.consume(b'[') {
            return Err(Reject);
        }
        let len = self.s.iter().take_while(|&&b| b != b']').count();
        let (dtext, rest) = self.s.split_at(len);
        // Go fails at the first non-dtext byte, or when `]` never comes.
        if rest.is_empty() || !dtext.iter().all(|&b| is_dtext(b)) {
            return Err(Reject);
        }
        self.s = rest;
        if self.consume(b']')
            && matches!(
                super::netip(dtext),
                Some(super::NetIp::V4 | super::NetIp::V6)
            )
        {
            Ok(())
        } else {
            Err(Reject)
        }
    }

    /// `consumeDisplayNameComment`: the `(comment)` after a bare addr-spec;
    /// fails when a word of it is an encoded word with an unknown charset.
    fn consume_display_name_comment(&mut self) -> Step<()> {
        if !self.consume(b'(') {
            return Err(Reject);
        }
        let comment = self.consume_comment().ok_or(Reject)?;
        let unknown_charset = comment
            .split(|&b| is_wsp(b))
            .filter(|word| !word.is_empty())
            .any(|word| encoded_word(word) == EncodedWord::UnknownCharset);
        if unknown_charset { Err(Reject) } else { Ok(()) }
    }

    /// Consumes `c` if it is next.
    fn consume(&mut self, c: u8) -> bool {
        match self.s.split_first() {
            Some((&first, rest)) if first == c => {
                self.s = rest;
                true
            }
            _ => false,
        }
    }

    /// Skips spaces and tabs.
    fn skip_space(&mut self) {
        let len = self.s.iter().take_while(|&&b| is_wsp(b)).count();
        self.s = self.s.get(len..).unwrap_or_default();
    }

    /// The next byte, if any.
    fn peek(&self) -> Option<u8> {
        self.s.first().copied()
    }

    /// `skipCFWS`: spaces, tabs and comments; false on an unclosed comment.
    fn skip_cfws(&mut self) -> bool {
        self.skip_space();
        while self.consume(b'(') {
            if self.consume_comment().is_none() {
                return false;
            }
            self.skip_space();
        }
        true
    }

    /// `consumeComment`: the rest of a comment whose `(` is consumed.
    ///
    /// Iterative, with a depth counter for nesting; `\` quotes the next byte
    /// (and is dropped). Returns the comment text, or `None` if unclosed.
    fn consume_comment(&mut self) -> Option<Vec<u8>> {
        let mut depth = 1usize;
        let mut comment = Vec::new();
        while depth > 0 {
            let (&first, rest) = self.s.split_first()?;
            let (byte, rest) = match (first, rest.split_first()) {
                (b'\\', Some((&next, after))) => (next, after),
                (b'(', _) => {
                    depth += 1;
                    (first, rest)
                }
                (b')', _) => {
                    depth -= 1;
                    (first, rest)
                }
                _ => (first, rest),
            };
            if depth > 0 {
                comment.push(byte);
            }
            self.s = rest;
        }
        Some(comment)
    }
}

/// How Go's `decodeRFC2047Word` treats a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EncodedWord {
    /// Not a well-formed encoded word: kept literally, no error.
    NotEncoded,
    /// Decoded; `non_empty` tells whether the decoded text has any bytes.
    Decoded {
        /// Whether the decoded text is non-empty.
        non_empty: bool,
    },
    /// Well formed and decodable, but the charset is unknown: an error.
    UnknownCharset,
}

/// Classifies `word` the way `mime.WordDecoder.Decode` (with Go's
/// `net/mail` charset reader, which knows no extra charsets) would.
fn encoded_word(word: &[u8]) -> EncodedWord {
    let well_framed = word.len() >= 8
        && word.starts_with(b"=?")
        && word.ends_with(b"?=")
        && word.iter().filter(|&&b| b == b'?').count() == 4;
    let inner = match word.get(2..word.len().saturating_sub(2)) {
        Some(inner) if well_framed => inner,
        _ => return EncodedWord::NotEncoded,
    };
    let (charset, rest) = cut(inner, b'?');
    let (encoding, text) = cut(rest, b'?');
    if charset.is_empty() {
        return EncodedWord::NotEncoded;
    }
    let decoded_len = match encoding {
        [b'B' | b'b'] => base64_decoded_len(text),
        [b'Q' | b'q'] => q_decoded_len(text),
        _ => None,
    };
    match decoded_len {
        None => EncodedWord::NotEncoded,
        Some(_) if !known_charset(charset) => EncodedWord::UnknownCharset,
        Some(len) => EncodedWord::Decoded { non_empty: len > 0 },
    }
}

/// Go's `strings.Cut`: the parts before and after the first `sep` (the
/// whole input and nothing when there is none).
fn cut(s: &[u8], sep: u8) -> (&[u8], &[u8]) {
    match s.iter().position(|&b| b == sep) {
        Some(at) => (
            s.get(..at).unwrap_or_default(),
            s.get(at + 1..).unwrap_or_default(),
        ),
        None => (s, &[]),
    }
}

/// Whether the Go word decoder handles `charset` itself (`strings.EqualFold`
/// with `utf-8`, `iso-8859-1` or `us-ascii`).
fn known_charset(charset: &[u8]) -> bool {
    let Ok(charset) = std::str::from_utf8(charset) else {
        return false;
    };
    ["utf-8", "iso-8859-1", "us-ascii"]
        .iter()
        .any(|known| equal_fold(charset, known))
}

/// Go's `strings.EqualFold` against an ASCII lower-case `known`, under
/// Unicode simple case folding (so `ſ` matches `s` and `K` matches `k`).
fn equal_fold(s: &str, known: &str) -> bool {
    let mut left = s.chars();
    let mut right = known.chars();
    loop {
        match (left.next(), right.next()) {
            (None, None) => return true,
            (Some(a), Some(b)) if fold_to_ascii(a) == Some(b) => {}
            _ => return false,
        }
    }
}

/// The lower-case ASCII letter or symbol `c` folds to, if any.
fn fold_to_ascii(c: char) -> Option<char> {
    match c {
        '\u{17F}' => Some('s'),
        '\u{212A}' => Some('k'),
        _ if c.is_ascii() => Some(c.to_ascii_lowercase()),
        _ => None,
    }
}

/// Decoded length of standard padded base64 as Go's lenient
/// `base64.StdEncoding.DecodeString` reads it (CR and LF ignored), or `None`
/// if Go reports an error.
fn base64_decoded_len(text: &[u8]) -> Option<usize> {
    let chars: Vec<u8> = text
        .iter()
        .copied()
        .filter(|&b| b != b'\r' && b != b'\n')
        .collect();
    let pad = chars.iter().rev().take_while(|&&b| b == b'=').count();
    let (body, _) = chars.split_at(chars.len() - pad);
    let alphabet = |b: &u8| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/';
    if !chars.len().is_multiple_of(4) || pad > 2 || !body.iter().all(alphabet) {
        return None;
    }
    Some(chars.len() / 4 * 3 - pad)
}

/// Decoded length of RFC 2047 Q-encoded `text` as Go's `qDecode` reads it,
/// or `None` if Go reports an error.
fn q_decoded_len(text: &[u8]) -> Option<usize> {
    let mut i = 0;
    let mut len = 0;
    while let Some(&c) = text.get(i) {
        if c == b'=' {
            let hex = text.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            i += 2;
        } else if !(c == b'_' || (b' '..=b'~').contains(&c) || matches!(c, b'\n' | b'\r' | b'\t')) {
            return None;
        }
        i += 1;
        len += 1;
    }
    Some(len)
}

/// RFC 5322 atext (plus `.` when `dot`); multibyte characters count.
fn is_atext(b: u8, dot: bool) -> bool {
    match b {
        b'.' => dot,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b':' | b';' | b'@' | b'\\' | b',' | b'"' => false,
        _ => is_vchar(b),
    }
}

/// RFC 5322 qtext: visible, but not `\` or `"`.
fn is_qtext(b: u8) -> bool {
    b != b'\\' && b != b'"' && is_vchar(b)
}

/// RFC 5322 dtext: visible, but not `[`, `]` or `\`.
fn is_dtext(b: u8) -> bool {
    !matches!(b, b'[' | b']' | b'\\') && is_vchar(b)
}

/// Visible ASCII, or any byte of a multibyte UTF-8 character (RFC 6532).
fn is_vchar(b: u8) -> bool {
    (b'!'..=b'~').contains(&b) || b >= 0x80
}

/// Space or horizontal tab.
fn is_wsp(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

#[cfg(test)]
mod tests {
    use super::is_email;

    /// Asserts every `(input, verdict)` pair; verdicts come from Go 1.26.
    fn check(cases: &[(&str, bool)]) {
        for &(input, want) in cases {
            assert_eq!(is_email(input), want, "is_email({input:?})");
        }
    }

    #[test]
    fn bare_addr_specs() {
        // Plain dot-atoms, non-ASCII included; a domain needs no dot.
        check(&[
            ("a@b", true),
            ("foo.bar@example.com", true),
            ("a@b.c", true),
            ("é@例え.jp", true),
        ]);
        // Missing parts, stray or doubled dots, a second `@`.
        check(&[
            ("", false),
            ("a@", false),
            ("@b", false),
            ("a", false),
            (".a@b", false),
            ("a.@b", false),
            ("a..b@c", false),
            ("a@b.", false),
            ("a@.b", false),
            ("a@b@c", false),
        ]);
        // Spaces are allowed before the local part and after `@`, not before `@`.
        check(&[
            ("a @b", false),
            ("a@ b", true),
            (" a@b ", true),
            ("a@b c", false),
            ("a\t<b@c>", true),
            ("a@b\r\n", false),
        ]);
    }

    #[test]
    fn quoted_local_parts() {
        // Quoted strings take spaces, tabs and escapes, but must not be empty.
        check(&[
            ("\"a b\"@c", true),
            ("\"a\\\"b\"@c", true),
            ("\"a\tb\"@c", true),
            ("\"a\\\tb\"@c", true),
            ("\"é\"@b", true),
            ("\"\"@b", false),
            ("\"a", false),
        ]);
    }

    #[test]
    fn comments() {
        // A comment may follow an address; it may nest and hold any byte.
        check(&[
            ("a@b (Barry)", true),
            ("a@b (c) (d)", true),
            ("a@b ((nested) comment)", true),
            ("a@b (\\))", true),
            ("a@b (\r\n)", true),
            ("x <a@b> (c)", true),
        ]);
        // Unclosed comments, and comments before a bare address, are rejected.
        check(&[("a@b (c", false), ("(c) a@b", false)]);
    }

    #[test]
    fn display_names() {
        // Display names: atoms, dotted atoms, quoted strings, inner comments.
        check(&[
            ("Barry Gibbs <bg@example.com>", true),
            ("<a@b>", true),
            ("< a@ b>", true),
            ("\"\" <a@b>", true),
            ("a.b. <x@y>", true),
            ("x (c) y <a@b>", true),
        ]);
        // No space before `@` or `>`; nothing but CFWS after the address.
        check(&[
            ("<a @b>", false),
            ("<a@b >", false),
            ("x <a@b> y", false),
            ("<a@b> <c@d>", false),
            ("a@b <c@d>", false),
        ]);
    }

    #[test]
    fn groups() {
        // A group counts when it holds exactly one address.
        check(&[
            ("g: a@b;", true),
            ("g: <a@b>;", true),
            ("g: a@b, c@d;", false),
            ("g:;", false),
            ("g: a@b", false),
            ("g: h: a@b;;", false),
        ]);
    }

    #[test]
    fn domain_literals() {
        // Domain literals must be IP addresses as `net.ParseIP` reads them.
        check(&[
            ("a@[1.2.3.4]", true),
            ("a@[::1]", true),
            ("a@[::ffff:1.2.3.4]", true),
            ("a@[1.2.3]", false),
            ("a@[01.2.3.4]", false),
            ("a@[fe80::1%eth0]", false),
            ("a@[ 1.2.3.4]", false),
        ]);
    }

    #[test]
    fn encoded_words_in_display_names() {
        // Known charsets decode; a broken encoding is kept as a plain word.
        check(&[
            ("=?utf-8?q?J=C3=B6rg?= <a@b>", true),
            ("=?iso-8859-1?b?SvZyZw==?= <a@b>", true),
            ("=?foo?q?=4?= <a@b>", true),
        ]);
        // An unknown charset fails only as the first word; an empty or
        // encoded first word leaves no room for a comment.
        check(&[
            ("=?foo?q?x?= <a@b>", false),
            ("x =?foo?q?x?= <a@b>", true),
            ("=?utf-8?q?x?= (c) <a@b>", false),
            ("=?utf-8?q??= <a@b>", false),
            ("=?utf-8?q?x?= =?foo?q?x?= <a@b>", true),
            ("=?utf-8?q??= =?foo?q?x?= <a@b>", false),
            ("\"\" =?foo?q?x?= <a@b>", true),
        ]);
    }

    #[test]
    fn encoded_words_in_trailing_comments() {
        // Every word of a trailing comment is checked for an unknown charset,
        // with Unicode case folding on the charset name.
        check(&[
            ("a@b (=?foo?q?x?=)", false),
            ("a@b (=?utf-8?q?x?=)", true),
            ("a@b (=?uſ-ascii?q?x?=)", true),
            ("a@b (=?foo?b?YQ=?=)", true),
        ]);
    }

    #[test]
    fn hostile_inputs_stay_linear() {
        // Deep nesting and long runs neither overflow the stack nor hang.
        let deep = format!("a@b ({}{})", "(".repeat(500_000), ")".repeat(500_000));
        assert!(is_email(&deep));
        assert!(!is_email(&"(".repeat(1_000_000)));
        assert!(!is_email(&"\"".repeat(1_000_000)));
        assert!(is_email(&format!("{}<a@b>", "x ".repeat(500_000))));
        assert!(!is_email(&format!("g: {}a@b;", "a@b, ".repeat(200_000))));
    }
}
