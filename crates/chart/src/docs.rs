//! The values reference (`docs/values.md`), generated from the same schema
//! as `schema/values.schema.json`, so the two cannot disagree.

use std::fmt::Write as _;

use serde_json::Value as Json;

use crate::schema::{deref, values_schema};
use kubernetes::emit;

/// How text becomes values: the one place the reading rules are written.
const READING: &str = "
## How values are read

Values files are YAML. Where a key's type is `string`, a plain scalar
is the text as written, even where YAML would read a number: `tag:
1.10` is the tag `1.10` (never `1.1`), and so are `20240101`, `1e3`,
`0x1F` and `0644` as written. The same holds for `--set KEY=VALUE`.
Booleans are not taken as text (`tag: true`, `tag: yes` are errors:
quote them if you mean the word), nor numbers no JSON number holds
(`tag: 4e51234`, a short commit id, is infinity to YAML, and so to Helm
and to an editor; `99999999999999999999` is past 64 bits): these are
errors that say so; quote them, or use `--set-string`. Elsewhere YAML's
reading applies, with YAML 1.1's `yes`/`no`/`on`/`off` booleans and
`0644` octal as Helm reads them.

Layers, later ones winning (mappings merge key by key, anything else is
replaced): the defaults below, each `-f FILE` in order (`-f -` reads
standard input, once), then the set flags in command-line order:
`--set KEY=VALUE` (the value read as one YAML scalar),
`--set-string KEY=VALUE` (always the text), `--set-file KEY=PATH` (the
file's text as it is, a last line break included, as Helm reads it; at
most 4 MiB; a named pipe is read up to that) and
`--set-json KEY=JSON` (a JSON value; a mapping merges over the key).
Unlike Helm, which applies its set flags kind by kind, the order is
the order you wrote them in.

As in Helm, a flag may hold several pairs separated by commas
(`--set buildd.replicas=2,gateway.replicas=2`); a comma inside a value
is escaped, `\\,`; `{a,b}` is a list (`--set`, `--set-string`); a
`--set-json` value ends where its JSON does. A null (`key: null`,
`key: ~`, an empty `key:`, `--set key=null`) deletes the key from the
layers below (Helm's rule): `commonLabels: {team: null}` removes a label
a lower file set (a null inside a list is no deletion: lists are values).
Where the key has a built-in default, the default
applies again; a required key deleted this way is an error that names
the null, and so is a null of a key the values do not have (a mistyped
`nodeSelectr: ~` would delete nothing). A list is replaced whole; to add items after those a lower
layer gives, write its key with a `+`: `projects+: [...]` in an
environment's file appends its projects to those of `common.yaml`, each
keeping its file and line (in errors and in `explain`). The list must be
set below, by a default or an earlier file; `KEY+` where nothing is
below, beside `KEY` in one mapping, on a key that is no list, or inside
a list item (written whole) is an error where it is written. No key
chartgen reads ends with `+` (label and annotation keys and registry
hosts cannot), so `KEY+` is never a key of its own. With the set flags,
`--set-json 'projects+=[...]'` appends as `projects+:` does, and `--set
'projects[N].name=…'` (N the list's length) appends one item.

In an editor, the overlay schema (`schema/values.overlay.schema.json`)
reads each file as chartgen does, but for what only the text or the
other layers show: it sees a plain number where a string is wanted as
the number, and takes it when its ordinary writing fits the string
(`1.10` as `1.1`), so `+1` or `1E3` in a DNS label pass there and not
here; `yes`, `no`, `on` and `off` are text to the editor (YAML 1.2);
it takes `KEY+` whatever is below, refuses a null under a key it does
not know (which deletes nothing here), and judges no rule across keys.

## Pod settings

Every workload takes the same pod settings, under its own key: `buildd`,
`gateway`, `kata.deploy`, `kata.vcpuTuning`, and `builds.daemon` for the
pod template buildd starts each build daemon from. They are
`nodeSelector`, `tolerations`, `affinity`, `topologySpreadConstraints`,
`priorityClassName`, `imagePullSecrets`, `podLabels` and
`podAnnotations`; container CPU and memory are each workload's
`resources` (the daemons': `builds.daemonResources` and each project's).
The Kubernetes structures are Kubernetes' own types (API version 1.33,
the oldest the chart supports), checked as the API server checks them:
an unknown key, an operator or effect it does not know, a weight outside
1-100, `Gt` with other than one value are errors at their key.
None of them can add a volume, a host namespace or a security context:
the trust classes alone decide those. So a pod annotation under
`io.katacontainers.` (Kata's overrides of the VM), AppArmor's or
seccomp's is refused, as are labels the chart sets itself; and the build
daemons, which run untrusted builds, may not tolerate every taint or the
control plane's, nor run at a `system-*` priority.

## Escape hatches

`buildd`, `gateway` and `builds.daemon` (the daemons' pod template, whose
own container is `buildkitd`) also take `extraEnv`, `extraArgs`,
`extraVolumes`, `extraVolumeMounts` (for the workload's own container)
and `sidecars` (containers beside it), Kubernetes' own types, empty by
default and rendered as written:

```yaml
gateway:
  extraEnv:
    - {name: HTTP_PROXY, value: http://proxy.example.com:3128}
    - name: TOKEN
      valueFrom: {secretKeyRef: {name: gateway-token, key: token}}
  extraArgs: [--verbose]
  extraVolumes:
    - {name: ca-bundle, configMap: {name: corporate-ca}}
  extraVolumeMounts:
    - {name: ca-bundle, mountPath: /etc/ssl/corporate, readOnly: true}
```

Unlike the pod settings they can reach a volume and a security context,
so they are proven instead: what would change a behaviour the chart or
the ADRs own is refused at its key, with the reason. A flag the chart
passes, in every spelling Go's flag package reads (`--namespace=x`,
`--namespace x`, `-namespace`, `-namespace=x`) wherever it stands, and buildd's `--leader-election-namespace` (ADR-0006) or
buildkitd's `--allow-insecure-entitlement`; a variable the chart sets
(buildd's `POD_NAMESPACE`); a volume name, mount path (or a path inside
it) or container name of the chart's; a volume source Pod Security
`restricted` does not allow (the operator namespace enforces it, and
ADR-0006 holds the build daemons to it), and `hostPath` always
(Kyverno's disallow-host-path); and what the API server would refuse in
the pod they render (a variable name, a sidecar's image, ports, probes,
mounts of undeclared volumes), as `check` words it, the daemons' pod
template too. Sidecars are held to their namespace's
Pod Security level by `check` (T3; in the operator namespace a
read-only root filesystem too, ROOTFS): `render` checks its output
before printing, so it refuses a privileged sidecar as it refuses any
ADR breach. `chartgen explain` names the values line behind each field
a hatch rendered.
";

/// The Markdown reference of every values key: path, type, default, and
/// the doc comment of its field.
pub fn values_reference() -> String {
    let schema = values_schema();
    let mut out = String::from(
        "# Values reference\n\n\
         Generated by `chartgen docs` from the Rust types (the same source as\n\
         `schema/values.schema.json`); do not edit. Every key is optional:\n\
         the default applies when a values file leaves it out.\n",
    );
    out += READING;
    let properties = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for (key, property) in &properties {
        let _ = write!(out, "\n## `{key}`\n\n");
        if let Some(text) = description(&schema, property) {
            let _ = writeln!(out, "{text}\n");
        }
        out += "| Key | Type | Default | Description |\n|---|---|---|---|\n";
        rows(&schema, key, property, None, false, &mut out);
    }
    out
}

/// One row per leaf below `property`; `inherited` is the default the
/// enclosing object gives this key.
fn rows(
    root: &Json,
    path: &str,
    property: &Json,
    inherited: Option<&Json>,
    required: bool,
    out: &mut String,
) {
    if let Some(kind) = kubernetes_type(property) {
        let _ = writeln!(
            out,
            "| `{path}` | {kind} | {} | {} |",
            if property["type"] == "array" {
                "`[]`"
            } else {
                "(unset)"
            },
            description(root, property)
                .unwrap_or_default()
                .replace('\n', " ")
                .replace('|', "\\|")
        );
        return;
    }
    let target = deref(root, property);
    let children = target["properties"].as_object();
    let default = property
        .get("default")
        .or_else(|| target.get("default"))
        .or(inherited);
    let items = deref(root, &target["items"]);
    match children {
        Some(children) if !children.is_empty() => {
            let needed = |key: &str| {
                target["required"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|k| k == key))
            };
            for (key, child) in children {
                let inherited = default.and_then(|d| d.get(key));
                rows(
                    root,
                    &format!("{path}.{key}"),
                    child,
                    inherited,
                    needed(key),
                    out,
                );
            }
        }
        _ if items["properties"].is_object() => {
            let _ = writeln!(
                out,
                "| `{path}` | {} | `{}` | {} |",
                type_name(root, property),
                default.map_or_else(|| "[]".to_owned(), emit::flow),
                description(root, property)
                    .unwrap_or_default()
                    .replace('\n', " ")
            );
            let needed = |key: &str| {
                items["required"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|k| k == key))
            };
            for (key, child) in items["properties"].as_object().into_iter().flatten() {
                rows(
                    root,
                    &format!("{path}[].{key}"),
                    child,
                    None,
                    needed(key),
                    out,
                );
            }
        }
        _ => {
            let _ = writeln!(
                out,
                "| `{path}` | {} | {} | {} |",
                type_name(root, property),
                match default {
                    Some(d) => format!("`{}`", emit::flow(d).replace('|', "\\|")),
                    None if required => "(required)".to_owned(),
                    None => "(unset)".to_owned(),
                },
                description(root, property)
                    .unwrap_or_default()
                    .replace('\n', " ")
                    .replace('|', "\\|")
            );
        }
    }
}

/// A property typed by a Kubernetes API type (k8s-openapi's, `$defs`
/// named `io.k8s.*`), itself or as list items: one row naming the type and
/// linking its API reference, whose own documentation covers its fields.
fn kubernetes_type(property: &Json) -> Option<String> {
    let reference = [&property["$ref"], &property["items"]["$ref"]]
        .into_iter()
        .chain(
            property["anyOf"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|b| &b["$ref"]),
        )
        .find_map(Json::as_str)?;
    let name = reference.strip_prefix("#/$defs/io.k8s.")?;
    // api.core.v1.Toleration, apimachinery.pkg.apis.meta.v1.LabelSelector
    let mut parts: Vec<&str> = name.rsplitn(3, '.').collect();
    parts.reverse();
    let [group, version, kind] = parts[..] else {
        return None;
    };
    let group = group.rsplit('.').next().unwrap_or(group);
    let list = if property["type"] == "array" {
        "list of "
    } else {
        ""
    };
    Some(format!(
        "{list}Kubernetes [{kind}]({API_REFERENCE}#{}-{version}-{group})",
        kind.to_ascii_lowercase()
    ))
}

/// The Kubernetes API reference of the oldest supported version, the one
/// the pod settings' types are built for.
const API_REFERENCE: &str = "https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.33/";

fn description(root: &Json, property: &Json) -> Option<String> {
    property["description"]
        .as_str()
        .or_else(|| deref(root, property)["description"].as_str())
        .map(str::to_owned)
}

fn type_name(root: &Json, property: &Json) -> String {
    let target = deref(root, property);
    if let Some(options) = target["enum"].as_array() {
        return options
            .iter()
            .map(|o| format!("`{}`", o.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join(" \\| ");
    }
    if let Some(options) = target["oneOf"].as_array() {
        let consts: Vec<String> = options
            .iter()
            .filter_map(|o| o["const"].as_str())
            .map(|c| format!("`{c}`"))
            .collect();
        if !consts.is_empty() {
            return consts.join(" \\| ");
        }
    }
    let named = property
        .get("$ref")
        .or_else(|| {
            property["anyOf"]
                .as_array()
                .and_then(|b| b.iter().find_map(|s| s.get("$ref")))
        })
        .and_then(Json::as_str)
        .and_then(|r| r.rsplit('/').next());
    match (named, &target["type"]) {
        (Some(name), _) => name.to_owned(),
        (None, Json::String(t)) if t == "array" => {
            format!("list of {}", type_name(root, &target["items"]))
        }
        (None, Json::String(t)) if t == "object" => format!(
            "map of {}",
            type_name(root, &target["additionalProperties"])
        ),
        (None, Json::String(t)) => t.clone(),
        (None, Json::Array(types)) => types
            .iter()
            .filter_map(Json::as_str)
            .filter(|t| *t != "null")
            .collect::<Vec<_>>()
            .join(" or "),
        _ => "any".to_owned(),
    }
}
