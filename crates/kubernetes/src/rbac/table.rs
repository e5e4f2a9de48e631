//! Effective permissions as aligned text, a row per subject, scope and resource.

use std::fmt::Write as _;

use super::resolve::{Permissions, Scope};

/// Permissions as aligned text: a block per subject (named once:
/// `ServiceAccount ns/name`, `User alice`, `Group g`), a row per
/// resource, then a row per non-resource URL, each saying through which
/// bindings and roles (and groups) it comes.
pub fn render_text(all: &[Permissions]) -> String {
    let mut out = String::new();
    for (i, entry) in all.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let subject = &entry.subject;
        let _ = match (&subject.namespace, subject.kind.as_str()) {
            (Some(_), "ServiceAccount") => writeln!(out, "ServiceAccount {}", subject.describe()),
            _ => writeln!(out, "{}", subject.describe()),
        };
        if entry.permissions.is_empty() && entry.non_resource.is_empty() {
            let _ = writeln!(out, "  (no permissions)");
            continue;
        }
        if !entry.permissions.is_empty() {
            let rows: Vec<Vec<String>> = entry
                .permissions
                .iter()
                .map(|p| {
                    vec![
                        match &p.scope {
                            Scope::Cluster => "cluster-wide".to_owned(),
                            Scope::Namespace(ns) => ns.clone(),
                        },
                        super::resolve::shown_resource(&p.resource, &p.group),
                        super::resolve::shown_names(&p.resource_names, ","),
                        p.verbs.join(", "),
                        p.via.join("; "),
                    ]
                })
                .collect();
            table(
                &mut out,
                &["SCOPE", "RESOURCE", "NAMES", "VERBS", "VIA"],
                &rows,
            );
        }
        if !entry.non_resource.is_empty() {
            let rows: Vec<Vec<String>> = entry
                .non_resource
                .iter()
                .map(|p| {
                    vec![
                        match &p.scope {
                            Scope::Cluster => "cluster-wide".to_owned(),
                            // Listed by `kubectl auth can-i --list -n`, never allowed.
                            Scope::Namespace(ns) => format!("{ns} (listed, not allowed)"),
                        },
                        p.url.clone(),
                        p.verbs.join(", "),
                        p.via.join("; "),
                    ]
                })
                .collect();
            table(
                &mut out,
                &["SCOPE", "NON-RESOURCE URL", "VERBS", "VIA"],
                &rows,
            );
        }
    }
    out
}

/// Rows under `header`, each column as wide as its widest cell, indented
/// by two spaces; the last column is not padded.
fn table(out: &mut String, header: &[&str], rows: &[Vec<String>]) {
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let last = header.len() - 1;
    let widths: Vec<usize> = (0..last)
        .map(|c| {
            rows.iter()
                .chain([&header])
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::from(" ");
        for (c, cell) in row.iter().enumerate() {
            line.push(' ');
            line.push_str(cell);
            if c < last {
                let pad = widths[c] - cell.chars().count() + 1;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::rbac::resolve::effective_permissions;

    #[test]
    fn each_subject_is_named_once_with_its_kind() {
        let objects = [
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                "metadata": {"name": "b"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                "subjects": [{"kind": "User", "name": "alice"}, {"kind": "Group", "name": "devs"},
                    {"kind": "ServiceAccount", "name": "ci", "namespace": "apps"}]}),
        ];
        let text = render_text(&effective_permissions(&objects).unwrap());
        let heads: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with(' ') && !l.is_empty())
            .collect();
        assert_eq!(
            heads,
            ["Group devs", "ServiceAccount apps/ci", "User alice"]
        );
        let pods = text
            .lines()
            .filter(|l| l.split_whitespace().take(2).eq(["cluster-wide", "pods"]))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>();
        let row = "cluster-wide pods get, list, watch ClusterRoleBinding b → ClusterRole view (cluster default)";
        assert_eq!(pods, [row, row, row], "{text}");
        assert!(text.contains("  SCOPE         NON-RESOURCE URL"), "{text}");
    }
}
