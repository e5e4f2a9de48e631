//! `render --show-only`: which rendered objects to print.
//!
//! A selector is `KIND/NAME` (in any namespace), `NAMESPACE/KIND/NAME`, or a
//! template path as Helm writes it (`templates/rbac.yaml`, every object that
//! template rendered, as its `# Source:` line names it). Kinds match
//! ignoring case, as `kubectl get deployment/x` does; namespaces, names and
//! template paths match exactly. The checks run on the whole render
//! whatever is selected, and the subset is printed only when they pass.

use kubernetes::diagnostic::closest;
use kubernetes::error::Error;
use kubernetes::manifest::Manifest;
use kubernetes::text::printable;

/// How many of the existing choices an error lists.
const CHOICES_SHOWN: usize = 3;

/// The longest selector: a namespace (63), a kind (63) and a name (253)
/// take 381 bytes; templates' paths are shorter.
const MAX_SELECTOR: usize = 512;

/// One `--show-only` argument, parsed.
#[derive(Debug, PartialEq, Eq)]
pub enum Selector {
    /// Every object the template (relative to `templates/`) rendered.
    Template(String),
    /// An object by kind and name, in `namespace` if given.
    Object {
        /// The namespace; `None` for any (and for cluster-scoped objects).
        namespace: Option<String>,
        /// The kind, matched ignoring case.
        kind: String,
        /// The name.
        name: String,
    },
}

impl Selector {
    /// Parses `arg`; an error names it and the forms a selector takes.
    pub fn parse(arg: &str) -> Result<Selector, Error> {
        if arg.len() > MAX_SELECTOR {
            // Also bounds the edit distances an unmatched one costs.
            return Err(malformed(
                arg,
                &format!("longer than {MAX_SELECTOR} bytes, more than any object's"),
            ));
        }
        if let Some(template) = arg.strip_prefix("templates/") {
            if template.is_empty() || template.split('/').any(str::is_empty) {
                return Err(malformed(
                    arg,
                    "a template path names a file under templates/",
                ));
            }
            return Ok(Selector::Template(template.to_owned()));
        }
        let parts: Vec<&str> = arg.split('/').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(malformed(arg, "an empty part"));
        }
        match parts[..] {
            [kind, name] => Ok(Selector::Object {
                namespace: None,
                kind: kind.to_owned(),
                name: name.to_owned(),
            }),
            [namespace, kind, name] => Ok(Selector::Object {
                namespace: Some(namespace.to_owned()),
                kind: kind.to_owned(),
                name: name.to_owned(),
            }),
            [file] if file.ends_with(".yaml") || file.ends_with(".yml") => Err(malformed(
                arg,
                &format!("a template path starts with templates/, as in templates/{file}"),
            )),
            _ => Err(malformed(arg, "not one of the forms")),
        }
    }

    /// Whether `manifest` is selected.
    pub fn matches(&self, manifest: &Manifest) -> bool {
        match self {
            Selector::Template(template) => manifest.template.as_deref() == Some(template),
            Selector::Object {
                namespace,
                kind,
                name,
            } => {
                let id = &manifest.id;
                id.kind.eq_ignore_ascii_case(kind)
                    && id.name == *name
                    && namespace
                        .as_ref()
                        .is_none_or(|ns| id.namespace.as_ref() == Some(ns))
            }
        }
    }
}

fn malformed(arg: &str, why: &str) -> Error {
    Error::Usage {
        reason: format!(
            "invalid --show-only `{}` ({why}): write KIND/NAME, NAMESPACE/KIND/NAME or templates/FILE, e.g. Deployment/buildd or templates/rbac.yaml",
            printable(arg)
        ),
    }
}

/// The objects of `manifests` (kept in their order) that any of `args`
/// selects. Every selector must select something: one that selects nothing
/// is an error naming the choices that exist, closest first, or, when it
/// selects only objects `left_out` (the bundles `--bundle` left out), saying
/// so.
pub fn select<'m>(
    manifests: &[&'m Manifest],
    args: &[String],
    left_out: &[&Manifest],
) -> Result<Vec<&'m Manifest>, Error> {
    let selectors = args
        .iter()
        .map(|arg| Selector::parse(arg))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some((arg, selector)) = args
        .iter()
        .zip(&selectors)
        .find(|(_, s)| !manifests.iter().any(|m| s.matches(m)))
    {
        if left_out.iter().any(|m| selector.matches(m)) {
            return Err(Error::Usage {
                reason: format!(
                    "--show-only `{}` selects only objects of a bundle --bundle leaves out; add --bundle all (or name that bundle)",
                    printable(arg)
                ),
            });
        }
        return Err(nothing_selected(arg, manifests));
    }
    Ok(manifests
        .iter()
        .copied()
        .filter(|m| selectors.iter().any(|s| s.matches(m)))
        .collect())
}

/// Every selector that names something in `manifests`: each object as
/// `NAMESPACE/KIND/NAME` (`KIND/NAME` when cluster-scoped), each template
/// as `templates/FILE`.
pub fn choices(manifests: &[&Manifest]) -> Vec<String> {
    let mut choices: Vec<String> = manifests
        .iter()
        .map(|m| match &m.id.namespace {
            Some(ns) => format!("{ns}/{}/{}", m.id.kind, m.id.name),
            None => format!("{}/{}", m.id.kind, m.id.name),
        })
        .collect();
    let mut templates: Vec<String> = manifests
        .iter()
        .filter_map(|m| m.template.as_ref().map(|t| format!("templates/{t}")))
        .collect();
    templates.sort();
    templates.dedup();
    choices.extend(templates);
    choices
}

/// The error for `arg`, which selects nothing: the closest choice as a
/// "did you mean", then the first [`CHOICES_SHOWN`] choices, closest first.
fn nothing_selected(arg: &str, manifests: &[&Manifest]) -> Error {
    let all = choices(manifests);
    // `KIND/NAME` is compared with the choices' last two parts.
    let short = |choice: &str| -> String {
        let parts: Vec<&str> = choice.split('/').collect();
        if arg.split('/').count() == 2 && parts.len() == 3 && !choice.starts_with("templates/") {
            parts[1..].join("/")
        } else {
            choice.to_owned()
        }
    };
    let compared: Vec<(String, &str)> = all.iter().map(|c| (short(c), c.as_str())).collect();
    let mut ranked: Vec<(usize, &str)> = compared
        .iter()
        .map(|(form, choice)| (distance(arg, form), *choice))
        .collect();
    // Objects first for an object's selector, templates first for a template's.
    let template = arg.starts_with("templates/");
    ranked.sort_by_key(|(d, choice)| (choice.starts_with("templates/") != template, *d));
    let guess = closest(arg, compared.iter().map(|(form, _)| form.as_str()))
        .and_then(|form| compared.iter().find(|(f, _)| f == form))
        .map(|(_, choice)| format!("did you mean `{}`? The", printable(choice)))
        .unwrap_or_else(|| "the".to_owned());
    let shown: Vec<String> = ranked
        .iter()
        .take(CHOICES_SHOWN)
        .map(|(_, c)| printable(c).into_owned())
        .collect();
    let more = match all.len().saturating_sub(CHOICES_SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Error::Usage {
        reason: format!(
            "--show-only `{}` selects no object of this render; {guess} render has (closest first): {}{more}",
            printable(arg),
            shown.join(", ")
        ),
    }
}

/// Edit distance ignoring case.
fn distance(a: &str, b: &str) -> usize {
    strsim::levenshtein(&a.to_lowercase(), &b.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(namespace: Option<&str>, kind: &str, name: &str) -> Selector {
        Selector::Object {
            namespace: namespace.map(str::to_owned),
            kind: kind.to_owned(),
            name: name.to_owned(),
        }
    }

    #[test]
    fn selectors_take_three_forms() {
        assert_eq!(
            Selector::parse("Deployment/x").unwrap(),
            object(None, "Deployment", "x")
        );
        assert_eq!(
            Selector::parse("ns/Deployment/x").unwrap(),
            object(Some("ns"), "Deployment", "x")
        );
        assert_eq!(
            Selector::parse("templates/kata/node-plumbing.yaml").unwrap(),
            Selector::Template("kata/node-plumbing.yaml".to_owned())
        );
        for bad in [
            "",
            "x",
            "/x",
            "a//b",
            "a/b/c/d",
            "templates/",
            "templates/a//b.yaml",
        ] {
            assert!(Selector::parse(bad).is_err(), "{bad:?}");
        }
    }
}
