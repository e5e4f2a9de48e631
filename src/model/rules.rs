//! Rules across fields that a JSON Schema cannot state.
//!
//! Architecture invariant: these run on typed [`Values`] after the schema
//! passed, and report key paths, never positions; the values stage turns the
//! paths back into `file:line:col` (or `(default)` for a built-in value).

use std::collections::BTreeMap;

use super::Values;
use crate::diagnostic::KeyPath;

/// One broken rule: the key it is reported at, the message and a hint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The key the violation is reported at.
    pub path: KeyPath,
    /// Other keys involved; the violation is shown at the first of `path`
    /// and these that the user wrote, rather than at a built-in default.
    pub also: Vec<KeyPath>,
    /// What is wrong, naming every key involved.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

/// Namespaces that no class of this chart may use: `default` holds whatever
/// lands without a namespace; `kube-system` is the platform's most trusted
/// namespace (ADR-0006 rejects putting Kata there).
const RESERVED_NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// Checks every rule and returns all violations, in a stable order.
pub fn check(values: &Values) -> Vec<Violation> {
    let mut violations = Vec::new();
    check_release_name(values, &mut violations);
    check_namespaces(values, &mut violations);
    check_projects(values, &mut violations);
    violations
}

/// Longest release name: object names add suffixes such as
/// `-operator-events` and must stay within 63 characters.
pub const MAX_RELEASE_NAME: usize = 40;

fn check_release_name(values: &Values, violations: &mut Vec<Violation>) {
    let name = values.release_name.as_str();
    if name.len() > MAX_RELEASE_NAME {
        violations.push(Violation {
            path: KeyPath::dotted("releaseName"),
            also: Vec::new(),
            message: format!(
                "`{name}` is {} characters; a release name has at most {MAX_RELEASE_NAME}",
                name.len()
            ),
            hint: Some(
                "object names are `<releaseName>-<component>` and must fit in 63 characters"
                    .to_owned(),
            ),
        });
    }
}

fn check_namespaces(values: &Values, violations: &mut Vec<Violation>) {
    let ns = &values.namespaces;
    let classes = [
        ("namespaces.operator", ns.operator.as_str()),
        ("namespaces.builds", ns.builds.as_str()),
        ("namespaces.system", ns.system.as_str()),
    ];
    for (key, name) in classes {
        if RESERVED_NAMESPACES.contains(&name) {
            violations.push(Violation {
                path: KeyPath::dotted(key),
                also: Vec::new(),
                message: format!("`{name}` is reserved and cannot hold a trust class of this chart"),
                hint: Some(
                    "give each class its own namespace (ADR-0006), such as buildkit-operator, buildkit-builds, buildkit-system"
                        .to_owned(),
                ),
            });
        }
    }
    for (i, (key, name)) in classes.iter().enumerate() {
        if let Some((first, _)) = classes[..i].iter().find(|(_, other)| other == name) {
            violations.push(Violation {
                path: KeyPath::dotted(key),
                also: vec![KeyPath::dotted(first)],
                message: format!("{first} and {key} are both `{name}`; the three namespaces must be distinct"),
                hint: Some("each trust class needs its own namespace so that each carries only its own policy exemptions (ADR-0006)".to_owned()),
            });
        }
    }
}

fn check_projects(values: &Values, violations: &mut Vec<Violation>) {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, project) in values.projects.iter().enumerate() {
        let name = project.name.as_str();
        if let Some(first) = seen.insert(name, i) {
            seen.insert(name, first);
            violations.push(Violation {
                path: KeyPath::root().key("projects").index(i).key("name"),
                also: Vec::new(),
                message: format!("project name `{name}` is also used by projects[{first}]"),
                hint: Some("project names become BuildProject names and must be unique".to_owned()),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DnsLabel, Project, Resources};

    fn project(name: &'static str) -> Project {
        Project {
            name: DnsLabel::from_static(name),
            repository: "https://example.com/x.git".to_owned(),
            trusted: false,
            resources: Resources::default(),
        }
    }

    #[test]
    fn the_defaults_break_no_rule() {
        assert_eq!(check(&Values::default()), vec![]);
    }

    #[test]
    fn namespaces_must_be_distinct_and_not_reserved() {
        let mut values = Values::default();
        values.namespaces.builds = DnsLabel::from_static("buildkit-operator");
        values.namespaces.system = DnsLabel::from_static("kube-system");
        let paths: Vec<String> = check(&values).iter().map(|v| v.path.to_string()).collect();
        assert_eq!(paths, ["namespaces.system", "namespaces.builds"]);
    }

    #[test]
    fn project_names_must_be_unique() {
        let values = Values {
            projects: vec![project("a"), project("b"), project("a"), project("a")],
            ..Values::default()
        };
        let messages: Vec<String> = check(&values).into_iter().map(|v| v.message).collect();
        assert_eq!(
            messages,
            [
                "project name `a` is also used by projects[0]",
                "project name `a` is also used by projects[0]"
            ]
        );
    }
}
