//! What `explain` is asked about: `OBJECT[.field.path]`, the object as
//! `render --show-only` selects one (`KIND/NAME`, `NAMESPACE/KIND/NAME`,
//! and `KIND/NAMESPACE/NAME` as `kubectl` users write it), the field in
//! the syntax `diff` prints and `--ignore` takes (`KeyPath::parse` with
//! `Syntax::Pattern`: `"…"` quotes a key with dots, `[name]` is a list item
//! by name, `[0]` by index).

use crate::error::Error;
use kubernetes::diagnostic::closest;
use kubernetes::location::{KeyPath, Segment, Syntax};
use kubernetes::manifest::Manifest;
use kubernetes::text::{clip, printable};
use kubernetes::yaml::{Node, Value};

/// The longest argument: an object (381 bytes at most, as for
/// `--show-only`) and a field path far deeper than any object's.
pub const MAX_ARGUMENT: usize = 2048;

/// How many existing choices an error lists.
const CHOICES_SHOWN: usize = 3;

/// How an error quotes the argument: escaped and clipped.
fn shown(text: &str) -> String {
    printable(&clip(text, 120)).into_owned()
}

fn usage(reason: String) -> Error {
    Error::usage(reason)
}

/// The spellings of `m`'s identity `explain` accepts.
fn spellings(m: &Manifest) -> Vec<String> {
    let id = &m.id;
    let mut all = vec![format!("{}/{}", id.kind, id.name)];
    if let Some(ns) = &id.namespace {
        all.push(format!("{ns}/{}/{}", id.kind, id.name));
        all.push(format!("{}/{ns}/{}", id.kind, id.name));
    }
    all
}

/// Whether `arg` starts with `spelling` (its kind ignoring case) followed
/// by its end or a `.`.
fn starts_with_object(arg: &str, spelling: &str) -> bool {
    let Some(head) = arg.get(..spelling.len()) else {
        return false;
    };
    let same = head
        .split('/')
        .zip(spelling.split('/'))
        .all(|(a, b)| a == b || (a.eq_ignore_ascii_case(b) && b.starts_with(char::is_uppercase)));
    same && matches!(arg.as_bytes().get(spelling.len()), None | Some(b'.'))
}

/// The object `arg` names, and the field path after it (`None` for the
/// whole object).
pub fn object<'m, 'a>(
    manifests: &'m [Manifest],
    arg: &'a str,
) -> Result<(&'m Manifest, Option<&'a str>), Error> {
    if arg.len() > MAX_ARGUMENT {
        return Err(usage(format!(
            "the argument `{}` is longer than {MAX_ARGUMENT} bytes, more than any object and field",
            shown(arg)
        )));
    }
    // The longest spelling wins: names may hold dots.
    let mut best: Vec<(&Manifest, usize)> = Vec::new();
    for m in manifests {
        for s in spellings(m) {
            if starts_with_object(arg, &s) {
                match best.first() {
                    Some((_, len)) if *len > s.len() => {}
                    Some((_, len)) if *len == s.len() => best.push((m, s.len())),
                    _ => best = vec![(m, s.len())],
                }
            }
        }
    }
    match best[..] {
        [(m, len)] => Ok((m, arg.get(len + 1..))),
        [] => Err(no_object(manifests, arg)),
        _ => {
            let namespaces: Vec<String> = best
                .iter()
                .map(|(m, _)| m.id.namespace.clone().unwrap_or_default())
                .collect();
            Err(usage(format!(
                "`{}` names {} objects, in the namespaces {}; write NAMESPACE/KIND/NAME",
                shown(&arg[..best[0].1]),
                best.len(),
                namespaces.join(", ")
            )))
        }
    }
}

fn no_object(manifests: &[Manifest], arg: &str) -> Error {
    // The object part: up to the first `.` after the last `/`.
    let slash = arg.rfind('/').map_or(0, |i| i + 1);
    let end = arg[slash..].find('.').map_or(arg.len(), |i| slash + i);
    let wanted = &arg[..end];
    // Spelled as the user spelled it: with a namespace or without.
    let parts = wanted.matches('/').count();
    let mut all: Vec<String> = manifests
        .iter()
        .flat_map(spellings)
        .filter(|s| s.matches('/').count() == parts.clamp(1, 2))
        .collect();
    all.dedup();
    let mut choices: Vec<&str> = all.iter().map(String::as_str).collect();
    choices.sort_by_key(|c| strsim::levenshtein(&wanted.to_lowercase(), &c.to_lowercase()));
    let hint = match closest(wanted, all.iter().map(String::as_str)) {
        Some(near) => format!("did you mean `{near}`?"),
        None => format!(
            "objects include {}",
            choices[..choices.len().min(CHOICES_SHOWN)]
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    usage(format!(
        "no rendered object is `{}`: write KIND/NAME, NAMESPACE/KIND/NAME or KIND/NAMESPACE/NAME, then .field.path; {hint}",
        shown(wanted)
    ))
}

/// The field `path` (after the object's `.`) of `manifest`, resolved to
/// keys and list indexes.
pub fn field(manifest: &Manifest, path: &str) -> Result<KeyPath, Error> {
    let steps = KeyPath::parse(path, Syntax::Pattern).map_err(|why| {
        usage(format!(
            "invalid field path `{}`: {}",
            shown(path),
            printable(&why)
        ))
    })?;
    let mut node = manifest.node();
    let mut resolved = KeyPath::root();
    for step in steps.0 {
        let step = match step {
            Segment::Key(key) => key,
            Segment::Index(index) => index.to_string(),
        };
        let (segment, child) = child(node, &step).map_err(|choices| {
            let at = if resolved.is_root() {
                format!("{}", manifest.id)
            } else {
                format!("`{}`", super::named_path(manifest.node(), &resolved))
            };
            let hint = match closest(&step, choices.iter().map(String::as_str)) {
                Some(near) => format!("; did you mean `{}`?", printable(near)),
                None if choices.is_empty() => {
                    format!(" ({} has no fields)", node.value.type_name())
                }
                None => format!(
                    "; it has {}",
                    choices
                        .iter()
                        .take(CHOICES_SHOWN * 2)
                        .map(|c| format!("`{}`", printable(c)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            usage(format!("{at} has no field `{}`{hint}", shown(&step)))
        })?;
        resolved.0.push(segment);
        node = child;
    }
    Ok(resolved)
}

/// The child `step` of `node`: a mapping's key; a list item by its name or
/// index. `Err` holds the choices there are.
fn child<'n>(node: &'n Node, step: &str) -> Result<(Segment, &'n Node), Vec<String>> {
    match &node.value {
        Value::Mapping(entries) => entries
            .iter()
            .find(|(k, _)| k.name == step)
            .map(|(k, v)| (Segment::Key(k.name.clone()), v))
            .ok_or_else(|| entries.iter().map(|(k, _)| k.name.clone()).collect()),
        Value::Sequence(items) => items
            .iter()
            .position(|item| super::item_name(item) == Some(step))
            .or_else(|| step.parse::<usize>().ok().filter(|i| *i < items.len()))
            .map(|i| (Segment::Index(i), &items[i]))
            .ok_or_else(|| {
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| super::item_name(item).map_or(i.to_string(), str::to_owned))
                    .collect()
            }),
        _ => Err(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubernetes::location::Source;
    use kubernetes::manifest::{LIMITS, identify};
    use kubernetes::yaml::parse_manifests;

    fn manifests(text: &str) -> Vec<Manifest> {
        parse_manifests(&Source::file("t.yaml", text), LIMITS)
            .unwrap()
            .into_iter()
            .map(|node| Manifest::new(identify(&node).unwrap(), node))
            .collect()
    }

    const TWO_ROLES: &str = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: a}
rules: []
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: b}
rules: []
---
apiVersion: v1
kind: ConfigMap
metadata: {name: my.config, namespace: a}
data: {k: v}
";

    #[test]
    fn an_object_in_two_namespaces_asks_for_the_namespace() {
        let all = manifests(TWO_ROLES);
        let error = object(&all, "Role/r.rules").unwrap_err().to_string();
        assert!(
            error.contains("names 2 objects, in the namespaces a, b"),
            "{error}"
        );
        for spelled in ["b/Role/r.rules", "Role/b/r.rules", "role/b/r.rules"] {
            let (found, field) = object(&all, spelled).unwrap();
            assert_eq!(found.id.namespace.as_deref(), Some("b"), "{spelled}");
            assert_eq!(field, Some("rules"));
        }
    }

    #[test]
    fn a_name_with_dots_is_read_whole() {
        let all = manifests(TWO_ROLES);
        let (found, field) = object(&all, "ConfigMap/my.config.data.k").unwrap();
        assert_eq!(found.id.name, "my.config");
        assert_eq!(field, Some("data.k"));
        assert_eq!(field_of(found, "data.k"), "data.k");
        let (_, field) = object(&all, "ConfigMap/my.config").unwrap();
        assert_eq!(field, None);
        assert!(object(&all, "ConfigMap/my.conf").is_err());
    }

    fn field_of(m: &Manifest, path: &str) -> String {
        field(m, path).unwrap().to_string()
    }
}
