//! The diff for a person: coloured when the caller says so (the command
//! decides, from `crate::terminal`); the colours are `anstyle` styles, and
//! only they write escape sequences.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::Value as Json;

use anstyle::{AnsiColor, Style as Colour};

use super::{Diff, FieldChange, Level, lines};
use crate::text::printable;

/// The colours of a diff: green added, red removed, yellow changed, and
/// each impact level's label in bold (`refused` and `destructive` red,
/// `security` magenta, `restart` yellow, `change` cyan), where a reviewer
/// looks first; the default writes none.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    added: Colour,
    removed: Colour,
    changed: Colour,
    on: bool,
}

impl Style {
    /// ANSI colours.
    pub fn colour() -> Self {
        Style {
            added: AnsiColor::Green.on_default(),
            removed: AnsiColor::Red.on_default(),
            changed: AnsiColor::Yellow.on_default(),
            on: true,
        }
    }

    /// The label of an impact level: bold, in the level's colour.
    fn level(self, level: Level) -> Colour {
        if !self.on {
            return Colour::new();
        }
        let colour = match level {
            Level::Refused | Level::Destructive => AnsiColor::Red,
            Level::Security => AnsiColor::Magenta,
            Level::Restart => AnsiColor::Yellow,
            Level::Change => AnsiColor::Cyan,
        };
        colour.on_default().effects(anstyle::Effects::BOLD)
    }

    /// [`Style::colour`] when `on`, else no colour.
    pub fn when(on: bool) -> Self {
        if on { Self::colour() } else { Self::default() }
    }
}

fn value(json: &Json) -> String {
    match json {
        Json::String(s) => crate::emit::quote(s),
        other => crate::emit::flow(other),
    }
}

/// The diff for a person. Every line goes through [`printable`]: names,
/// keys and values come from the input, and none may break a line or reach
/// the terminal as a control sequence.
pub fn render_text(diff: &Diff, style: Style) -> String {
    let Style {
        added,
        removed,
        changed,
        ..
    } = style;
    let mut out = String::new();
    impact(&mut out, diff, style);
    for m in &diff.matched {
        let shown = format!("{} as {} (map {})", m.old, m.new, m.map);
        let _ = writeln!(out, "{changed}= {}{changed:#}", printable(&shown));
    }
    for id in &diff.added {
        let _ = writeln!(out, "{added}+ {}{added:#}", printable(id));
    }
    for id in &diff.removed {
        let _ = writeln!(out, "{removed}- {}{removed:#}", printable(id));
    }
    for r in &diff.renamed {
        let _ = writeln!(
            out,
            "{changed}{}{changed:#} (most of its objects go there; point the GitOps application at it)",
            printable(&format!("application {} continues as {}", r.from, r.to))
        );
    }
    moves(&mut out, diff, style);
    for object in &diff.changed {
        let _ = writeln!(out, "{changed}~ {}{changed:#}", printable(&object.object));
        for field in &object.fields {
            field_change(&mut out, field, style);
        }
    }
    if !diff.rbac.is_empty() {
        let _ = writeln!(out, "Effective permissions:");
        for line in &diff.rbac {
            let _ = writeln!(out, "  {}", printable(line));
        }
    }
    summary(&mut out, diff);
    out
}

/// The impact summary, first: what a reviewer needs before the details.
fn impact(out: &mut String, diff: &Diff, style: Style) {
    if diff.impact.is_empty() {
        return;
    }
    let _ = writeln!(out, "Impact, most severe first:");
    for item in &diff.impact {
        // The label in its colour, the object and why as they are: the
        // line's words do not change with colour.
        let label = style.level(item.level);
        let object = match &item.from {
            Some(from) => format!("{from} → {}", item.object),
            None => item.object.clone(),
        };
        let name = item.level.name();
        let pad = " ".repeat(11usize.saturating_sub(name.len()));
        let rest = format!("{object}: {}", item.why);
        let _ = writeln!(out, "  {label}{name}{label:#}{pad} {}", printable(&rest));
    }
}

/// The objects that move between GitOps applications, and a warning when
/// deleting one deletes others.
fn moves(out: &mut String, diff: &Diff, style: Style) {
    let Style {
        removed, changed, ..
    } = style;
    if diff.moves.is_empty() {
        return;
    }
    let _ = writeln!(out, "moved between GitOps applications:");
    for m in &diff.moves {
        let moved = format!("{}: {} → {}", m.object, m.from, m.to);
        let _ = writeln!(out, "  {changed}{}{changed:#}", printable(&moved));
    }
    let mut others: Vec<&str> = Vec::new();
    for other in diff.moves.iter().filter_map(|m| m.takes_others) {
        if !others.contains(&other) {
            others.push(other);
        }
    }
    if !others.is_empty() {
        let _ = writeln!(
            out,
            "{removed}warning: a GitOps tool that prunes can delete a moved object from its old application before the new one creates it; {}.{removed:#}",
            others.join("; ")
        );
        let _ = writeln!(
            out,
            "  The README section \"Handing over objects between applications\" says how to move it safely."
        );
    }
}

/// One field's change: a line diff for multi-line strings, else one line.
fn field_change(out: &mut String, field: &FieldChange, style: Style) {
    let Style { added, removed, .. } = style;
    match (&field.old, &field.new) {
        (Some(Json::String(a)), Some(Json::String(b))) if a.contains('\n') || b.contains('\n') => {
            let _ = writeln!(out, "    {}:", printable(&field.path));
            let shown = lines::render(&lines::diff(a, b), 2, "      ");
            if shown.is_empty() {
                let _ = writeln!(
                    out,
                    "      (the same lines; only line endings or the final newline differ)"
                );
            }
            for line in shown.lines() {
                let colour = match line.trim_start().chars().next() {
                    Some('+') => added,
                    Some('-') => removed,
                    _ => Colour::new(),
                };
                let _ = writeln!(out, "{colour}{}{colour:#}", printable(line));
            }
        }
        (Some(a), Some(b)) => {
            let shown = format!("{}: {} → {}", field.path, value(a), value(b));
            let _ = writeln!(out, "    {}", printable(&shown));
        }
        (None, Some(b)) => {
            let shown = format!("{}: {}", field.path, value(b));
            let _ = writeln!(out, "    {added}+ {}{added:#}", printable(&shown));
        }
        (Some(a), None) => {
            let shown = format!("{}: {}", field.path, value(a));
            let _ = writeln!(out, "    {removed}- {}{removed:#}", printable(&shown));
        }
        (None, None) => {}
    }
}

/// The last line: how many objects differ, and how.
fn summary(out: &mut String, diff: &Diff) {
    // A moved object may also have changed: count it once.
    let changed_or_moved: BTreeSet<&str> = diff
        .changed
        .iter()
        .map(|c| c.object.as_str())
        .chain(diff.moves.iter().map(|m| m.object.as_str()))
        .collect();
    // A map's match is shown as one, not counted as a rename.
    let mapped: BTreeSet<(&str, &str)> = (diff.matched.iter())
        .map(|m| (m.old.as_str(), m.new.as_str()))
        .collect();
    let renames = (diff.impact.iter())
        .filter_map(|i| Some((i.from.as_deref()?, i.object.as_str())))
        .filter(|pair| !mapped.contains(pair))
        .count();
    let total = diff.added.len() + diff.removed.len() + changed_or_moved.len() + renames;
    let _ = if total == 0 && diff.is_empty() {
        writeln!(out, "no differences")
    } else if total == 0 {
        // What `--exit-code` sees: the impact says what applying does.
        writeln!(
            out,
            "no object differs field by field, but applying has the impact above"
        )
    } else {
        writeln!(
            out,
            "{total} {} differ{}: {} added, {} removed, {} changed{}{}",
            if total == 1 { "object" } else { "objects" },
            if total == 1 { "s" } else { "" },
            diff.added.len(),
            diff.removed.len(),
            diff.changed.len(),
            if renames == 0 {
                String::new()
            } else {
                format!(", {renames} renamed")
            },
            if diff.moves.is_empty() {
                String::new()
            } else {
                format!("; {} moved between applications", diff.moves.len())
            }
        )
    };
}
