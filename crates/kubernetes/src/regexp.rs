//! Go's `regexp` syntax, as the API server compiles a CRD schema's
//! `pattern` with it: which patterns it takes, and each written for the
//! regex crate's syntax, which the schema engine reads ([`read`]; the
//! verdict alone: [`check`]). Both are RE2's, but for Go's
//! quotes, literal braces, class members, named classes, flags and
//! Unicode class names. Not modelled: how the schema engine's translation
//! reads `.` and `\s` (as ECMA-262 does) where a custom resource is
//! matched against such a pattern.

/// Whether Go's `regexp` compiles `pattern` (the API server refuses a
/// CRD whose schema has a pattern it cannot), read through the regex
/// crate's parser, whose syntax is RE2's as Go's is, with Go's own rules
/// on top: `\Q…\E` quotes, a `{` that starts no repeat is a literal, a
/// repeat count is at most 1000 and its minimum not above its maximum, and
/// a repetition operator cannot follow another (`a**`, `a{2}{3}`).
pub fn check(pattern: &str) -> Result<(), String> {
    read(pattern).map(|_| ())
}

/// A pattern Go's `regexp` compiles ([`check`]) in the regex crate's
/// syntax (Go's quotes, literal braces and ASCII classes written out),
/// read once for both; why Go refuses it otherwise.
pub fn read(pattern: &str) -> Result<String, String> {
    use regex_syntax::ast::{Ast, GroupKind, RepetitionKind, RepetitionRange};
    let read = as_the_regex_crate_reads_it(pattern)?;
    // Go lets a pattern nest 1000 deep (`maxHeight`, the innermost atom
    // counted), the parser 250.
    let ast = regex_syntax::ast::parse::ParserBuilder::new()
        .nest_limit(999)
        .build()
        .parse(&read)
        .map_err(|e| e.kind().to_string())?;
    let mut classes = Classes::default();
    // Each node with how many copies of it the repeats around it still
    // allow (Go's `repeatIsValid`: a repeat's count, or its minimum when
    // unbounded, divides 1000 down through the repeats inside it).
    let mut stack = vec![(&ast, 1000_u32)];
    while let Some((node, budget)) = stack.pop() {
        match node {
            Ast::Repetition(repetition) => {
                let mut inner = budget;
                if let RepetitionKind::Range(range) = &repetition.op.kind {
                    let (min, max) = match *range {
                        RepetitionRange::Exactly(n) => (n, n),
                        RepetitionRange::AtLeast(n) => (n, n),
                        RepetitionRange::Bounded(m, n) => (m, n),
                    };
                    if min > 1000 || max > 1000 || min > max || max > budget {
                        return Err("invalid repeat count".to_owned());
                    }
                    // `{0}` repeats nothing: what is inside starts afresh.
                    inner = budget.checked_div(max).unwrap_or(1000);
                }
                if matches!(*repetition.ast, Ast::Repetition(_)) {
                    return Err("invalid nested repetition operator".to_owned());
                }
                stack.push((&repetition.ast, inner));
            }
            Ast::Group(group) => {
                if let GroupKind::NonCapturing(flags) = &group.kind {
                    go_flags(flags)?;
                }
                stack.push((&group.ast, budget));
            }
            Ast::Flags(flags) => go_flags(&flags.flags)?,
            Ast::ClassUnicode(class) => classes.unicode(class)?,
            Ast::ClassBracketed(class) => classes.bracketed(&class.kind)?,
            Ast::Alternation(alternation) => {
                stack.extend(alternation.asts.iter().map(|a| (a, budget)))
            }
            Ast::Concat(concat) => stack.extend(concat.asts.iter().map(|a| (a, budget))),
            _ => {}
        }
    }
    Ok(read)
}

/// Go's flags: `i`, `m`, `s` and `U`, each set or cleared.
fn go_flags(flags: &regex_syntax::ast::Flags) -> Result<(), String> {
    use regex_syntax::ast::{Flag, FlagsItemKind};
    let go = |item: &regex_syntax::ast::FlagsItem| match item.kind {
        FlagsItemKind::Negation => true,
        // `u` is never the pattern's (its flags are read as Go reads them
        // first): the ASCII word boundary Go's `\b` is, written out.
        FlagsItemKind::Flag(flag) => matches!(
            flag,
            Flag::CaseInsensitive
                | Flag::MultiLine
                | Flag::DotMatchesNewLine
                | Flag::SwapGreed
                | Flag::Unicode
        ),
    };
    match flags.items.iter().all(go) {
        true => Ok(()),
        false => Err("invalid or unsupported Perl syntax".to_owned()),
    }
}

/// The Unicode classes of a pattern as Go reads them: a general category
/// (`L`, `Lu`), a script (`Greek`, `Old_Italic`) or `Any`, each name as
/// Go writes it; and how many runes they hold together, which Go bounds
/// (`maxRunes`: "expression too large"). Each name is looked up once.
#[derive(Default)]
struct Classes {
    ranges: std::collections::HashMap<String, usize>,
    runes: usize,
}

impl Classes {
    /// Go's bound on the runes of a pattern's classes, two a range.
    const MAX_RUNES: usize = (128 << 20) / 4;

    fn unicode(&mut self, class: &regex_syntax::ast::ClassUnicode) -> Result<(), String> {
        use regex_syntax::ast::ClassUnicodeKind;
        let name = match &class.kind {
            ClassUnicodeKind::OneLetter(letter) => letter.to_string(),
            ClassUnicodeKind::Named(name) => name.strip_prefix('^').unwrap_or(name).to_owned(),
            // Ours ([`unicode_15`]): no pattern's.
            ClassUnicodeKind::NamedValue { name, value, .. }
                if format!("{name}={value}") == AGE =>
            {
                return Ok(());
            }
            ClassUnicodeKind::NamedValue { .. } => {
                return Err("invalid character class range".to_owned());
            }
        };
        let ranges = match self.ranges.get(&name) {
            Some(&ranges) => ranges,
            None => {
                let ranges = go_class_ranges(&name)?;
                self.ranges.insert(name, ranges);
                ranges
            }
        };
        self.runes += 2 * ranges;
        match self.runes > Self::MAX_RUNES {
            true => Err("expression too large".to_owned()),
            false => Ok(()),
        }
    }

    fn bracketed(&mut self, set: &regex_syntax::ast::ClassSet) -> Result<(), String> {
        use regex_syntax::ast::{ClassSet, ClassSetItem};
        let mut items = vec![set];
        let mut members = Vec::new();
        while let Some(set) = items.pop() {
            match set {
                ClassSet::Item(item) => members.push(item),
                ClassSet::BinaryOp(op) => items.extend([&*op.lhs, &*op.rhs]),
            }
            while let Some(item) = members.pop() {
                match item {
                    ClassSetItem::Unicode(class) => self.unicode(class)?,
                    ClassSetItem::Bracketed(inner) => items.push(&inner.kind),
                    ClassSetItem::Union(union) => members.extend(&union.items),
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// How many ranges the Unicode class `name` holds, where Go (1.25 and
/// later) knows it: the name read as Go's `canonicalName` reads it (its
/// first letter upper case, the rest lower, without `_`, `-` or spaces),
/// then `Any`, `Assigned`, `Ascii`, `Lc`, a general category (`Lu`), a
/// script whose name is one such word (`Greek`; `Old_Italic` never is), or
/// a category's alias (`Letter`, `Uppercase_Letter`, `digit`).
fn go_class_ranges(name: &str) -> Result<usize, String> {
    const CATEGORIES: [&str; 37] = [
        "C", "Cc", "Cf", "Cn", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me",
        "Mn", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc",
        "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs",
    ];
    // Go's `unicode.Scripts` (Unicode 15.0) of one word each: the others
    // (`Old_Italic`) no canonical name reaches.
    const SCRIPTS: &str = "Adlam Ahom Arabic Armenian Avestan Balinese Bamum Batak Bengali \
        Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Carian Chakma Cham Cherokee Chorasmian \
        Common Coptic Cuneiform Cypriot Cyrillic Deseret Devanagari Dogra Duployan Elbasan \
        Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati Gurmukhi Han Hangul \
        Hanunoo Hatran Hebrew Hiragana Inherited Javanese Kaithi Kannada Katakana Kawi \
        Kharoshthi Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Lisu Lycian Lydian Mahajani \
        Makasar Malayalam Mandaic Manichaean Marchen Medefaidrin Miao Modi Mongolian Mro \
        Multani Myanmar Nabataean Nandinagari Newa Nko Nushu Ogham Oriya Osage Osmanya \
        Palmyrene Phoenician Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham Sinhala \
        Sogdian Soyombo Sundanese Syriac Tagalog Tagbanwa Takri Tamil Tangsa Tangut Telugu \
        Thaana Thai Tibetan Tifinagh Tirhuta Toto Ugaritic Vai Vithkuqi Wancho Yezidi Yi";
    // `unicode.CategoryAliases`, each with its category.
    const ALIASES: [(&str, &str); 42] = [
        ("Cased_Letter", "LC"),
        ("Close_Punctuation", "Pe"),
        ("Combining_Mark", "M"),
        ("Connector_Punctuation", "Pc"),
        ("Control", "Cc"),
        ("Currency_Symbol", "Sc"),
        ("Dash_Punctuation", "Pd"),
        ("Decimal_Number", "Nd"),
        ("Enclosing_Mark", "Me"),
        ("Final_Punctuation", "Pf"),
        ("Format", "Cf"),
        ("Initial_Punctuation", "Pi"),
        ("Letter", "L"),
        ("Letter_Number", "Nl"),
        ("Line_Separator", "Zl"),
        ("Lowercase_Letter", "Ll"),
        ("Mark", "M"),
        ("Math_Symbol", "Sm"),
        ("Modifier_Letter", "Lm"),
        ("Modifier_Symbol", "Sk"),
        ("Nonspacing_Mark", "Mn"),
        ("Number", "N"),
        ("Open_Punctuation", "Ps"),
        ("Other", "C"),
        ("Other_Letter", "Lo"),
        ("Other_Number", "No"),
        ("Other_Punctuation", "Po"),
        ("Other_Symbol", "So"),
        ("Paragraph_Separator", "Zp"),
        ("Private_Use", "Co"),
        ("Punctuation", "P"),
        ("Separator", "Z"),
        ("Space_Separator", "Zs"),
        ("Spacing_Mark", "Mc"),
        ("Surrogate", "Cs"),
        ("Symbol", "S"),
        ("Titlecase_Letter", "Lt"),
        ("Unassigned", "Cn"),
        ("Uppercase_Letter", "Lu"),
        ("cntrl", "Cc"),
        ("digit", "Nd"),
        ("punct", "P"),
    ];
    let canonical = go_canonical(name);
    let class = match &*canonical {
        "Any" => "\\p{Any}".to_owned(),
        "Assigned" => "\\p{Assigned}".to_owned(),
        "Ascii" => "\\p{ASCII}".to_owned(),
        "Lc" => "\\p{LC}".to_owned(),
        c if CATEGORIES.contains(&c) => format!("\\p{{{c}}}"),
        c if SCRIPTS.split_whitespace().any(|script| script == c) => format!("\\p{{Script={c}}}"),
        c => match ALIASES.iter().find(|(alias, _)| go_canonical(alias) == c) {
            Some((_, category)) => format!("\\p{{{category}}}"),
            None => return Err("invalid character class range".to_owned()),
        },
    };
    let hir = regex_syntax::Parser::new()
        .parse(&class)
        .map_err(|_| "invalid character class range".to_owned())?;
    match hir.kind() {
        regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) => {
            Ok(class.ranges().len())
        }
        _ => Ok(1),
    }
}

/// The Unicode version of Go's tables, as the regex crate names it; in
/// lower case, which no class name read from a pattern is
/// ([`go_canonical`] writes each with a capital).
const AGE: &str = "age=15.0";

/// The Unicode class `name` (as the regex crate names it) as Go's tables
/// hold it, or (`positive` false) its complement: Go's are of Unicode
/// 15.0, the regex crate's newer, so a character assigned since is in
/// none of Go's classes. A class of its own, inside a class too.
fn unicode_15(name: &str, positive: bool) -> String {
    let negated = if positive { "" } else { "^" };
    match name {
        "Any" => format!("[{negated}\\p{{Any}}]"),
        _ => format!("[{negated}\\p{{{name}}}&&\\p{{{AGE}}}]"),
    }
}

/// A Unicode class name as Go's `canonicalName` writes it: the first
/// letter upper case, the others lower, `_`, `-` and spaces left out.
fn go_canonical(name: &str) -> String {
    let mut first = true;
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .map(|c| match std::mem::replace(&mut first, false) {
            true => c.to_ascii_uppercase(),
            false => c.to_ascii_lowercase(),
        })
        .collect()
}

/// `pattern` as the regex crate reads what Go reads: the text of a
/// `\Q…\E` quote escaped, and a `{` outside a class that starts no
/// repeat (`{n}`, `{n,}`, `{n,m}`) escaped as the literal Go takes it for;
/// an ASCII class Go does not know (`[:foo:]`) refused, where the regex
/// crate would read a nested class.
fn as_the_regex_crate_reads_it(pattern: &str) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    let mut in_class = false;
    let last_close = pattern.rfind(":]");
    while let Some(c) = rest.chars().next() {
        if c == '\\' {
            if let Some(quoted) = rest.strip_prefix("\\Q").filter(|_| !in_class) {
                let (literal, after) = quoted.split_once("\\E").unwrap_or((quoted, ""));
                out.push_str(&regex_syntax::escape(literal));
                rest = after;
                continue;
            }
            // Escaped punctuation is the character to Go: `\<` and `\>` too,
            // which the regex crate reads as word boundaries.
            if let Some(after) = rest.strip_prefix("\\<").or(rest.strip_prefix("\\>")) {
                out.push_str(&rest[1..2]);
                rest = after;
                continue;
            }
            match rest[1..].chars().next() {
                // Go has no `\u` or `\U`, which the regex crate reads as hex.
                Some('u' | 'U') => return Err("invalid escape sequence".to_owned()),
                // Go's octal: `\0` and up to two more octal digits, `\1` to
                // `\7` with at least one more (alone, a back-reference).
                Some(first @ '0'..='7') => {
                    let digits: String = (rest[1..].chars())
                        .take(3)
                        .take_while(|c| ('0'..='7').contains(c))
                        .collect();
                    if first == '0' || digits.len() > 1 {
                        let value = u32::from_str_radix(&digits, 8).unwrap_or_default();
                        out.push_str(&format!("\\x{{{value:X}}}"));
                        rest = &rest[1 + digits.len()..];
                        continue;
                    }
                }
                // Go's Perl classes are ASCII: `\d` is `[0-9]`, `\s`
                // `[\t\n\f\r ]` (no `\v`), `\w` `[0-9A-Za-z_]`.
                Some(perl @ ('d' | 'D' | 's' | 'S' | 'w' | 'W')) => {
                    let members = match perl.to_ascii_lowercase() {
                        'd' => "0-9",
                        's' => "\\t\\n\\x0C\\r ",
                        _ => "0-9A-Za-z_",
                    };
                    let negated = if perl.is_ascii_uppercase() { "^" } else { "" };
                    if in_class && negated.is_empty() {
                        out.push_str(members);
                    } else {
                        out.push_str(&format!("[{negated}{members}]"));
                    }
                    rest = literal_dash(&rest[2..], in_class, &mut out);
                    continue;
                }
                // And so is its word boundary.
                Some(boundary @ ('b' | 'B')) if !in_class => {
                    out.push_str(&format!("(?-u:\\{boundary})"));
                    rest = &rest[2..];
                    continue;
                }
                _ => {}
            }
            let escaped: String = rest.chars().take(2).collect();
            // `\x{…}`, `\p{…}`, `\P{…}`: the braces are the escape's.
            let end = match &*escaped {
                "\\x" if rest[2..].starts_with('{') => braced_escape(rest).unwrap_or(2),
                // A class name as Go reads it, in the words the regex
                // crate knows it by (`uppercase-letter` is `Uppercaseletter`).
                "\\p" | "\\P" if rest[2..].starts_with('{') => {
                    let close = rest[3..].char_indices().take(64).find(|&(_, c)| c == '}');
                    let Some((length, _)) = close else {
                        return Err("invalid character class range".to_owned());
                    };
                    let name = &rest[3..3 + length];
                    let (negated, name) = match name.strip_prefix('^') {
                        Some(name) => ("^", name),
                        None => ("", name),
                    };
                    let canonical = go_canonical(name);
                    if canonical == "Cs" || canonical == "Surrogate" {
                        // Surrogates, which no text holds (a JSON string's
                        // lone one is read as U+FFFD): nothing, or anything.
                        let nothing = (escaped == "\\p") == negated.is_empty();
                        out.push_str(match (nothing, in_class) {
                            (true, _) => "[^\\x{0}-\\x{10FFFF}]",
                            (false, true) => "\\x{0}-\\x{10FFFF}",
                            (false, false) => "[\\x{0}-\\x{10FFFF}]",
                        });
                    } else {
                        let positive = (escaped == "\\p") == negated.is_empty();
                        out.push_str(&unicode_15(&canonical, positive));
                    }
                    rest = literal_dash(&rest[3 + length + 1..], in_class, &mut out);
                    continue;
                }
                // `\pL`: the class's one letter is the escape's.
                "\\p" | "\\P" => {
                    let letter: String = rest.chars().skip(2).take(1).collect();
                    out.push_str(&unicode_15(&letter, escaped == "\\p"));
                    rest = literal_dash(&rest[2 + letter.len()..], in_class, &mut out);
                    continue;
                }
                _ => escaped.len(),
            };
            out.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        }
        match c {
            // Go's groups: a named one's name checked as Go checks it (it
            // may start with a digit, and repeat another's), then a plain
            // group; flags read as Go reads them, written once each.
            '(' if !in_class && rest.starts_with("(?") => {
                rest = go_group(&rest[2..], &mut out)?;
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                rest = &rest[1..];
                // A `]` (after a `^`) first in a class is a member.
                for lead in ["^]", "]", "^"] {
                    if let Some(after) = rest.strip_prefix(lead) {
                        out.push_str(&lead.replace(']', "\\]"));
                        rest = after;
                        break;
                    }
                }
                continue;
            }
            // A named class, where Go finds a `:]` after the `[:`: the
            // nearest, within the longest name (`^xdigit`), else one past
            // it, whose name no class has.
            '[' if rest.starts_with("[:")
                && last_close.is_some_and(|at| at >= pattern.len() - rest.len() + 2) =>
            {
                let near = &rest.as_bytes()[2..rest.len().min(2 + 9)];
                let close = near.windows(2).position(|w| w == b":]");
                let named = close.and_then(|at| {
                    let name = &rest[2..2 + at];
                    let (negated, name) = match name.strip_prefix('^') {
                        Some(name) => (true, name),
                        None => (false, name),
                    };
                    Some((at, ascii_class(name, negated)?))
                });
                let Some((at, ranges)) = named else {
                    return Err("invalid character class range".to_owned());
                };
                // Written out as its ranges: the schema engine's
                // translation escapes a `[` in a class.
                out.push_str(&ranges);
                rest = literal_dash(&rest[2 + at + 2..], in_class, &mut out);
                continue;
            }
            // Go has no nested class: a `[` in one is a member.
            '[' if in_class => {
                out.push_str("\\[");
                rest = &rest[1..];
                continue;
            }
            ']' if in_class => in_class = false,
            // Go has no class operators: `&&`, `~~` and `--` are members
            // (the last a range ending at `-`).
            '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
                rest = &rest[1..];
                continue;
            }
            '-' if in_class && rest.starts_with("--") => {
                out.push_str("-\\-");
                rest = &rest[2..];
                continue;
            }
            '{' if !in_class && !starts_repeat(rest) => {
                out.push_str("\\{");
                rest = &rest[1..];
                continue;
            }
            _ => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Ok(out)
}

/// After a class in a class (`[\d-z]`), a `-` that ends no range is a
/// member to Go (Perl's rule: `-` anywhere), where the regex crate reads a
/// range: written escaped. Returns the text after it.
fn literal_dash<'t>(rest: &'t str, in_class: bool, out: &mut String) -> &'t str {
    match rest.strip_prefix('-') {
        Some(after) if in_class && !after.starts_with(']') => {
            out.push_str("\\-");
            after
        }
        _ => rest,
    }
}

/// A group Go opens with `(?` (`text` is what follows it), as the regex
/// crate reads the same: a named group (`P<name>` or `<name>`, a name of
/// ASCII letters, digits and `_`) as a plain one, as its name changes
/// nothing it matches; flags (`i`, `m`, `s`, `U`, then `-` and those it
/// clears, each at least once after it) written once each, `(?)` as
/// nothing. Returns the text after what it wrote.
fn go_group<'t>(text: &'t str, out: &mut String) -> Result<&'t str, String> {
    let named = text.strip_prefix("P<").or_else(|| text.strip_prefix('<'));
    if let Some(named) = named {
        let end = named.find('>').ok_or("invalid named capture")?;
        let name = &named[..end];
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err("invalid named capture".to_owned());
        }
        out.push('(');
        return Ok(&named[end + 1..]);
    }
    let (mut set, mut clear) = (String::new(), String::new());
    let (mut negative, mut saw) = (false, false);
    for (at, c) in text.char_indices() {
        match c {
            'i' | 'm' | 's' | 'U' => {
                saw = true;
                if negative {
                    set.retain(|f| f != c);
                    if !clear.contains(c) {
                        clear.push(c);
                    }
                } else if !set.contains(c) {
                    set.push(c);
                }
            }
            '-' if !negative => (negative, saw) = (true, false),
            ')' | ':' if !negative || saw => {
                let flags = match clear.is_empty() {
                    true => set,
                    false => format!("{set}-{clear}"),
                };
                match (c, flags.is_empty()) {
                    (')', true) => {}
                    (')', false) => out.push_str(&format!("(?{flags})")),
                    _ => out.push_str(&format!("(?{flags}:")),
                }
                return Ok(&text[at + 1..]);
            }
            _ => break,
        }
    }
    Err("invalid or unsupported Perl syntax".to_owned())
}

/// Go's ASCII class `name` (`[:alpha:]`, `[:^alpha:]` when `negated`) as
/// the ranges of a class's members, in the regex crate's escapes.
fn ascii_class(name: &str, negated: bool) -> Option<String> {
    let ranges: &[(u32, u32)] = match name {
        "alnum" => &[(0x30, 0x39), (0x41, 0x5a), (0x61, 0x7a)],
        "alpha" => &[(0x41, 0x5a), (0x61, 0x7a)],
        "ascii" => &[(0x00, 0x7f)],
        "blank" => &[(0x09, 0x09), (0x20, 0x20)],
        "cntrl" => &[(0x00, 0x1f), (0x7f, 0x7f)],
        "digit" => &[(0x30, 0x39)],
        "graph" => &[(0x21, 0x7e)],
        "lower" => &[(0x61, 0x7a)],
        "print" => &[(0x20, 0x7e)],
        "punct" => &[(0x21, 0x2f), (0x3a, 0x40), (0x5b, 0x60), (0x7b, 0x7e)],
        "space" => &[(0x09, 0x0d), (0x20, 0x20)],
        "upper" => &[(0x41, 0x5a)],
        "word" => &[(0x30, 0x39), (0x41, 0x5a), (0x5f, 0x5f), (0x61, 0x7a)],
        "xdigit" => &[(0x30, 0x39), (0x41, 0x46), (0x61, 0x66)],
        _ => return None,
    };
    let mut members: Vec<(u32, u32)> = ranges.to_vec();
    if negated {
        let mut from = 0;
        members = Vec::new();
        for &(lo, hi) in ranges {
            if lo > from {
                members.push((from, lo - 1));
            }
            from = hi + 1;
        }
        members.push((from, 0x10ffff));
    }
    // Each end as itself (the schema engine's translation reads no
    // `\x{…}`), the class's own characters escaped.
    let end = |code: u32| {
        let c = char::from_u32(code).unwrap_or('\u{fffd}');
        match c {
            '\\' | ']' | '[' | '^' | '-' => format!("\\{c}"),
            c => c.to_string(),
        }
    };
    Some(
        members
            .iter()
            .map(|&(lo, hi)| format!("{}-{}", end(lo), end(hi)))
            .collect(),
    )
}

/// Whether `text`, at a `{`, is a repeat as Go parses one: `{n}`,
/// `{n,}` or `{n,m}`, each number decimal digits without a leading zero
/// (`{01}` is literal text to Go). Reads only the digits, so a pattern of
/// many `{` costs its length.
fn starts_repeat(text: &str) -> bool {
    let bytes = text.as_bytes();
    let number = |at: usize| {
        let end = at
            + bytes[at..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
        let leading_zero = end - at > 1 && bytes[at] == b'0';
        (end > at && !leading_zero).then_some(end)
    };
    let Some(after_min) = number(1) else {
        return false;
    };
    match bytes.get(after_min) {
        Some(b'}') => true,
        Some(b',') => match bytes.get(after_min + 1) {
            Some(b'}') => true,
            _ => number(after_min + 1).is_some_and(|end| bytes.get(end) == Some(&b'}')),
        },
        _ => false,
    }
}

/// The length of `\x{…}` at the start of `text` (a `{`, hex digits, a
/// `}`), if it is one: read once, whatever follows.
fn braced_escape(text: &str) -> Option<usize> {
    let inner = text.get(3..)?;
    let allowed = |c: char| c.is_ascii_hexdigit();
    let length = inner.chars().take_while(|c| allowed(*c)).count();
    inner[length..].starts_with('}').then_some(3 + length + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What Go's regexp refused and took, as a real v1.35 server answered
    /// for a CRD with each pattern.
    #[test]
    fn patterns_as_go_reads_them() {
        for refused in [
            "[",
            "a{1001}",
            "a**",
            "a{2}{3}",
            r"\1",
            "(?=a)",
            r"\C",
            "x{2,1}",
            r"\8",
            "a*+",
            r"\e",
            r"\Q(\E)",
            "a{1,1001}",
            r"[a-\d]",
            r"\p{Foo}",
            "[[:foo:]]",
        ] {
            assert!(check(refused).is_err(), "{refused}");
        }
        for taken in [
            "a{1000}",
            "(a*)*",
            r"\Q.\E",
            "(?i)a",
            r"\pL",
            "[[:alpha:]]",
            r"\z",
            "(?<n>a)",
            "(?P<n>a)",
            "a{,5}",
            "[a&&b]",
            r"\b",
            "(?m)^a$",
            r"\x{10FFFF}",
            "a+?",
            r"\_",
            "^[0-9]+%?$",
            "[]a]",
            "[^]a]",
            "a{",
            "{}",
            r"\Q(\E",
            r"\Qunclosed(",
            "x{0}",
            "(?i:a)b",
            r"\p{Greek}",
            "a{1}?",
            "[[:a]",
            "[[:^alpha:]]",
        ] {
            assert_eq!(check(taken), Ok(()), "{taken}");
        }
    }

    /// Go's syntax where the regex crate's differs, as a real v1.35 server
    /// took or refused each in a CRD (a review's cases): octal escapes,
    /// capture names of any word characters (repeated too), flags given
    /// twice or set and cleared, `(?)`, a `-` after a class in a class,
    /// surrogate classes; and no `\u`. What they match is Go's too: its
    /// Perl classes and word boundary are ASCII.
    #[test]
    fn go_syntax_the_regex_crate_spells_otherwise() {
        for taken in [
            r"\0",
            r"\01",
            r"\08",
            r"\12",
            r"\77",
            r"\101",
            r"\400",
            r"\777",
            r"\0000",
            r"[\0]",
            r"[\101-\132]",
            "(?P<1a>x)",
            "(?P<1>x)",
            "(?<1>x)",
            "(?P<a>x)(?P<a>y)",
            "(?<a>x)(?<a>y)",
            r"[\d-z]",
            r"[\w-z]",
            r"[\s-\d]",
            r"[\pL-z]",
            r"\p{Cs}",
            r"\p{Cs}+",
            r"\p{surrogate}",
            "(?)",
            "(?ii)a",
            "(?i-i)a",
            "(?i)^[a-z]+$",
            "(?s).",
            "(?U)a+",
            r"[[:alpha:]-z]",
        ] {
            assert_eq!(check(taken), Ok(()), "{taken}");
        }
        for refused in [
            r"\u0041",
            "(?P<\u{e9}>x)",
            "(?P<>x)",
            "(?i-)a",
            "(?x)a",
            "(?P<a",
            r"\8",
            r"\1",
        ] {
            assert!(check(refused).is_err(), "{refused}");
        }
        let matches = |pattern: &str, text: &str| {
            regex::Regex::new(&read(pattern).unwrap())
                .unwrap()
                .is_match(text)
        };
        assert!(matches(r"^\101$", "A"));
        assert!(matches(r"^\08$", "\u{0}8"));
        assert!(matches(r"^[\d-z]+$", "1-z"));
        assert!(!matches(r"^[\d-z]+$", "b"));
        assert!(matches(r"\bfoo\b", "\u{e9}foo"));
        assert!(!matches(r"^a\B", "a\u{e9}"));
        assert!(!matches(r"^\s$", "\u{a0}"));
        assert!(!matches(r"^\s$", "\u{b}"));
        assert!(matches(r"^\s$", "\u{c}"));
        assert!(!matches(r"^\d$", "\u{664}"));
        assert!(!matches(r"^\w$", "\u{e9}"));
        assert!(matches(r"^.$", "\r"));
        assert!(!matches(r"\p{Cs}", "a"));
        assert!(matches(r"^\P{Cs}$", "\n"));
        // Go's classes are Unicode 15.0's: Garay (16.0) is no letter, and
        // no `\pL` (one letter) or class inside a class either.
        assert!(!matches(r"^\p{L}$", "\u{10D4A}") && matches(r"^\P{L}$", "\u{10D4A}"));
        assert!(!matches(r"^\pL$", "\u{10D4A}") && matches(r"^[\PLx]$", "\u{10D4A}"));
        assert!(!matches(r"^[a\p{So}]$", "\u{1CC00}") && matches(r"^\p{L}$", "é"));
        assert!(check(r"\p{age=15.0}").is_err() && check(r"\p{Age=15.0}").is_err());
        assert!(matches("(?i-i)^a$", "a") && !matches("(?i-i)^a$", "A"));
        assert!(matches("(?P<1a>x)(?P<1a>y)", "xy"));
    }

    /// Hostile patterns cost their length: many `{` with no `}`, many
    /// `[:` in a class with a `:]` far away, many `\x{` unclosed (each
    /// once read to the end would be quadratic: minutes at this size).
    #[test]
    fn patterns_that_would_be_quadratic_are_read_once() {
        let n = 200_000;
        assert!(check(&"{".repeat(n)).is_ok());
        let classes = format!("[{}a:]]", "[:".repeat(n));
        assert_eq!(
            check(&classes),
            Err("invalid character class range".to_owned())
        );
        assert!(check(&r"\x{".repeat(n)).is_err());
        assert!(check(&r"\p{".repeat(n)).is_err());
        assert!(check(&format!(r"\p{{é{}}}", "é".repeat(n))).is_err());
        assert!(check(&format!("a{}", "{1".repeat(n))).is_ok());
        // Classes past Go's rune bound: refused without being built.
        assert_eq!(
            check(&r"\pL".repeat(n)),
            Err("expression too large".to_owned())
        );
        // Nested as deep as Go lets it, and a long literal: taken.
        assert!(check(&format!("{}a{}", "(".repeat(999), ")".repeat(999))).is_ok());
        assert!(check(&format!("{}a{}", "(".repeat(1000), ")".repeat(1000))).is_err());
        assert!(check(&"a".repeat(n)).is_ok());
    }
}
