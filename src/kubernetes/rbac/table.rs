//! `chartgen rbac`'s table: effective permissions as aligned text.

use std::fmt::Write as _;

use super::resolve::{Permissions, Scope};

/// Permissions as aligned text: a block per subject, a row per resource.
pub fn render_text(all: &[Permissions]) -> String {
    let mut out = String::new();
    for (i, entry) in all.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{} {}", entry.subject.kind, entry.subject.describe());
        let rows: Vec<[String; 4]> = entry
            .permissions
            .iter()
            .map(|p| {
                [
                    match &p.scope {
                        Scope::Cluster => "cluster-wide".to_owned(),
                        Scope::Namespace(ns) => ns.clone(),
                    },
                    p.resource.clone(),
                    p.resource_names.join(","),
                    p.verbs.join(", "),
                ]
            })
            .collect();
        let header = ["SCOPE", "RESOURCE", "NAMES", "VERBS"].map(str::to_owned);
        let widths: Vec<usize> = (0..3)
            .map(|c| {
                rows.iter()
                    .chain([&header])
                    .map(|r| r[c].len())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        for row in std::iter::once(&header).chain(&rows) {
            let line = format!(
                "  {:w0$}  {:w1$}  {:w2$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2]
            );
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    out
}
