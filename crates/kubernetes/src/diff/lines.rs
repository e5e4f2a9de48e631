//! A line diff for multi-line strings (a ConfigMap's TOML, a script) and
//! for files: Myers' algorithm from the `similar` crate (linear space, a
//! bounded search), shown as `-`/`+`/` ` lines with a little context.

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

/// How long one diff may search for a shorter edit script before it
/// settles for the one it has (still a correct diff, maybe not the
/// shortest). Similar's Myers already bounds its search by the input's
/// size; this is the last safeguard, far above what any chart needs.
const DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// The lines of `old` and `new`, aligned by Myers' algorithm (the `similar`
/// crate): space linear in the line counts, time `O((N+M)·D)` with a
/// bounded search, so long texts and long single lines stay cheap.
/// Removals come before additions, as people read a change.
pub fn diff<'a>(old: &'a str, new: &'a str) -> Vec<Line<'a>> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let deadline = std::time::Instant::now() + DEADLINE;
    let ops =
        similar::capture_diff_slices_deadline(similar::Algorithm::Myers, &a, &b, Some(deadline));
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    for op in ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        match tag {
            similar::DiffTag::Equal => out.extend(a[old_range].iter().copied().map(Line::Same)),
            _ => {
                out.extend(a[old_range].iter().copied().map(Line::Removed));
                out.extend(b[new_range].iter().copied().map(Line::Added));
            }
        }
    }
    out
}

/// The changed lines with `context` unchanged lines around each change;
/// `...` stands for the lines left out. Linear in the lines.
pub fn render(lines: &[Line<'_>], context: usize, indent: &str) -> String {
    // Distance of each line to the nearest change, both ways, in two passes.
    let changed = |l: &Line<'_>| !matches!(l, Line::Same(_));
    let mut distance = vec![usize::MAX; lines.len()];
    let mut last = None;
    for (i, line) in lines.iter().enumerate() {
        if changed(line) {
            last = Some(i);
        }
        distance[i] = last.map_or(usize::MAX, |c| i - c);
    }
    last = None;
    for (i, line) in lines.iter().enumerate().rev() {
        if changed(line) {
            last = Some(i);
        }
        distance[i] = distance[i].min(last.map_or(usize::MAX, |c| c - i));
    }
    let mut out = String::new();
    let mut skipped = false;
    for (i, line) in lines.iter().enumerate() {
        if distance[i] > context {
            skipped = true;
            continue;
        }
        if skipped {
            out += indent;
            out += "...\n";
            skipped = false;
        }
        let (sign, text) = match line {
            Line::Same(t) => ("  ", t),
            Line::Removed(t) => ("- ", t),
            Line::Added(t) => ("+ ", t),
        };
        // Pieces, not a format!: a long line is copied once.
        out += indent;
        out += sign;
        out += text;
        out.push('\n');
    }
    if skipped && !out.is_empty() {
        out += indent;
        out += "...\n";
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
    fn long_texts_and_lines_are_diffed_in_full() {
        // Past the old 2,000-line cut-off, and one line of a megabyte: the
        // one change is found, not "everything removed, everything added".
        let old: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        let new = old.replacen("line 10000\n", "line ten thousand\n", 1);
        let changes: Vec<Line<'_>> = diff(&old, &new)
            .into_iter()
            .filter(|l| !matches!(l, Line::Same(_)))
            .collect();
        assert_eq!(
            changes,
            [
                Line::Removed("line 10000"),
                Line::Added("line ten thousand")
            ]
        );
        let long = "x".repeat(1 << 20);
        let longer = format!("{long}y");
        let lines = diff(&long, &longer);
        assert_eq!(lines.len(), 2);
        assert!(render(&lines, 3, "").len() > 2 << 20);
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
