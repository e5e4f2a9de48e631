//! A line diff for multi-line strings (a ConfigMap's TOML, a script) and
//! for files: the longest common subsequence, shown as `-`/`+`/` ` lines
//! with a little context.

/// One line of a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// In both.
    Same(&'a str),
    /// Only in the old text.
    Removed(&'a str),
    /// Only in the new text.
    Added(&'a str),
}

/// The lines of `old` and `new`, aligned. Quadratic in the line counts,
/// which is fine for the strings and files of a chart; past 2,000 lines a
/// side it falls back to "all removed, all added".
pub fn diff<'a>(old: &'a str, new: &'a str) -> Vec<Line<'a>> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    if a.len() > 2000 || b.len() > 2000 {
        return a
            .into_iter()
            .map(Line::Removed)
            .chain(b.into_iter().map(Line::Added))
            .collect();
    }
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out.push(Line::Same(a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // Removals before additions, as people read a change.
            out.push(Line::Removed(a[i]));
            i += 1;
        } else {
            out.push(Line::Added(b[j]));
            j += 1;
        }
    }
    out
}

/// The changed lines with `context` unchanged lines around each change;
/// `...` stands for the lines left out.
pub fn render(lines: &[Line<'_>], context: usize, indent: &str) -> String {
    let changed: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !matches!(l, Line::Same(_)))
        .map(|(i, _)| i)
        .collect();
    let near = |i: usize| changed.iter().any(|c| c.abs_diff(i) <= context);
    let mut out = String::new();
    let mut skipped = false;
    for (i, line) in lines.iter().enumerate() {
        if !near(i) {
            skipped = true;
            continue;
        }
        if skipped {
            out += &format!("{indent}...\n");
            skipped = false;
        }
        let (sign, text) = match line {
            Line::Same(t) => (' ', t),
            Line::Removed(t) => ('-', t),
            Line::Added(t) => ('+', t),
        };
        out += &format!("{indent}{sign} {text}\n");
    }
    if skipped && !out.is_empty() {
        out += &format!("{indent}...\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_lines_and_shows_context() {
        let old = "a\nb\nc\nd\ne\nf\n";
        let new = "a\nb\nC\nd\ne\nf\ng\n";
        let lines = diff(old, new);
        assert_eq!(
            render(&lines, 1, "  "),
            "  ...\n    b\n  - c\n  + C\n    d\n  ...\n    f\n  + g\n"
        );
    }

    #[test]
    fn equal_texts_have_no_changes() {
        assert!(
            diff("x\ny", "x\ny")
                .iter()
                .all(|l| matches!(l, Line::Same(_)))
        );
    }
}
