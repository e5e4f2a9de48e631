//! What the API server refuses in a pod's volumes (`ValidateVolumes`,
//! `validateVolumeSource` and the functions of each source) and in a
//! container's volume mounts (`ValidateVolumeMounts`), judged as the server
//! judges them after its defaults: a volume without a source is an
//! `emptyDir`, a projected service account token expires after an hour,
//! an Azure disk is `Shared` and cached `ReadWrite`, an image volume's pull
//! policy is chosen from its reference; projections of cluster trust
//! bundles and pod certificates are dropped (their features are off by
//! default), so nothing of them is read. And a CSIDriver's spec
//! (`validateCSIDriverSpec`).

use std::collections::BTreeSet;

use serde_json::Value as Json;

use super::one_of;
use super::pod::{Reader, field_ref, resource_field_ref};
use crate::json::{Field, Found, each, whole};
use crate::location::KeyPath;
use crate::names;
use crate::quantity::of_value;

/// The sources a volume may have, in the order the server reads them; any
/// other member but `name` is refused by the schema.
const SOURCES: [&str; 30] = [
    "emptyDir",
    "hostPath",
    "gitRepo",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "flocker",
    "persistentVolumeClaim",
    "rbd",
    "cinder",
    "cephfs",
    "quobyte",
    "downwardAPI",
    "fc",
    "flexVolume",
    "configMap",
    "azureFile",
    "vsphereVolume",
    "photonPersistentDisk",
    "portworxVolume",
    "azureDisk",
    "storageos",
    "projected",
    "scaleIO",
    "csi",
    "ephemeral",
    "image",
];

/// The host path types (`supportedHostPathTypes`); empty is unset.
const HOST_PATH_TYPES: [&str; 8] = [
    "",
    "DirectoryOrCreate",
    "Directory",
    "FileOrCreate",
    "File",
    "Socket",
    "CharDevice",
    "BlockDevice",
];

/// The largest file mode: `0777`.
const MAX_MODE: i64 = 0o777;

/// The volumes of a pod spec at `at` (its `volumes`), the pod's name
/// `pod_name` where the spec is a Pod's (`None` for a template): one source
/// each, and that source's own rules; for a Pod, the claims its ephemeral
/// volumes create are valid names and no `persistentVolumeClaim` volume
/// names one of them, and an image volume names its image.
pub(super) fn volumes(pod: &Json, pod_name: Option<&str>, at: &KeyPath, found: &mut Found) {
    let created: BTreeSet<String> = match pod_name {
        Some(name) if !name.is_empty() => (each(pod.field("volumes")))
            .filter(|(_, v)| !v.field("ephemeral").is_null())
            .map(|(_, v)| format!("{name}-{}", text(v, "name")))
            .collect(),
        _ => BTreeSet::new(),
    };
    for (i, volume) in each(pod.field("volumes")) {
        let at = at.clone().key("volumes").index(i);
        let given = sources_of(volume, &SOURCES, "a volume", &at, found);
        let name = text(volume, "name");
        if let [source] = given[..] {
            let source_at = at.clone().key(source);
            let is_pod = pod_name.is_some();
            one_source(
                source,
                volume.field(source),
                name,
                is_pod,
                &source_at,
                found,
            );
            if source == "ephemeral"
                && let Some(pod) = pod_name.filter(|p| !p.is_empty() && !name.is_empty())
                && let Err(why) = names::dns1123_subdomain(&format!("{pod}-{name}"))
            {
                found.push((
                    at.clone().key("name"),
                    format!(
                        "the claim this volume creates, `{pod}-{name}`, is no valid name: {why}"
                    ),
                ));
            }
        }
        let claim = text(volume.field("persistentVolumeClaim"), "claimName");
        if created.contains(claim) {
            found.push((
                at.key("persistentVolumeClaim").key("claimName"),
                format!("`{claim}` is the claim an ephemeral volume of this pod creates; a volume does not name it"),
            ));
        }
    }
}

/// The rules of one volume source `source` (`validate<Source>VolumeSource`),
/// of volume `name` in a Pod (`is_pod`) or a template.
fn one_source(
    source: &str,
    value: &Json,
    name: &str,
    is_pod: bool,
    at: &KeyPath,
    found: &mut Found,
) {
    let need = |field: &str, found: &mut Found| required(value, field, at, found);
    match source {
        "emptyDir" => match value.get_field("sizeLimit").and_then(of_value) {
            Some(Ok(limit)) if limit.is_negative() => found.push((
                at.key("sizeLimit"),
                "an emptyDir's sizeLimit is not negative".to_owned(),
            )),
            Some(Err(why)) => found.push((at.key("sizeLimit"), why)),
            _ => {}
        },
        "hostPath" => {
            // Without a path, the server reads nothing else of it.
            let given = need("path", found);
            if given {
                no_backsteps(value, "path", at, found);
                one_of(&value["type"], &HOST_PATH_TYPES, at.key("type"), found);
            }
        }
        "gitRepo" => {
            need("repository", found);
            local_path(value, "directory", Local::Descending, at, found);
        }
        "gcePersistentDisk" => {
            need("pdName", found);
            in_range(value, "partition", 0, 255, at, found);
        }
        "awsElasticBlockStore" => {
            need("volumeID", found);
            in_range(value, "partition", 0, 255, at, found);
        }
        "secret" | "configMap" => {
            need(
                if source == "secret" {
                    "secretName"
                } else {
                    "name"
                },
                found,
            );
            mode(value, "defaultMode", at, found);
            for (i, item) in each(value.field("items")) {
                key_to_path(item, &at.clone().key("items").index(i), found);
            }
        }
        "nfs" => {
            need("server", found);
            if need("path", found) && !text(value, "path").starts_with('/') {
                found.push((at.key("path"), "an NFS path is absolute".to_owned()));
            }
        }
        "iscsi" => iscsi(value, name, at, found),
        "glusterfs" => {
            need("endpoints", found);
            need("path", found);
        }
        "persistentVolumeClaim" => {
            need("claimName", found);
        }
        "rbd" => {
            listed(value, "monitors", at, found);
            need("image", found);
        }
        "cinder" => {
            need("volumeID", found);
            reference_named(value, "secretRef", at, found);
        }
        "cephfs" => listed(value, "monitors", at, found),
        "flocker" => {
            let (named, uuid) = (text(value, "datasetName"), text(value, "datasetUUID"));
            if named.is_empty() == uuid.is_empty() {
                found.push((
                    at.clone(),
                    "a flocker volume names exactly one of datasetName and datasetUUID".to_owned(),
                ));
            }
            if named.contains('/') {
                found.push((at.key("datasetName"), format!("`{named}` holds a `/`")));
            }
        }
        "downwardAPI" => {
            mode(value, "defaultMode", at, found);
            for (i, file) in each(value.field("items")) {
                downward_file(file, &at.clone().key("items").index(i), found);
            }
        }
        "fc" => fibre_channel(value, at, found),
        "flexVolume" => {
            need("driver", found);
            for key in value
                .field("options")
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, _)| k)
            {
                let domain = key.split_once('/').map_or(key.as_str(), |(d, _)| d);
                let domain = format!(".{}", names::go_lowercase(domain));
                if domain.ends_with(".kubernetes.io") || domain.ends_with(".k8s.io") {
                    found.push((
                        at.key("options").key(key),
                        format!(
                            "`{key}` is in a namespace Kubernetes reserves (kubernetes.io, k8s.io)"
                        ),
                    ));
                }
            }
        }
        "azureFile" => {
            need("secretName", found);
            need("shareName", found);
        }
        "vsphereVolume" => {
            need("volumePath", found);
        }
        "quobyte" => quobyte(value, at, found),
        "azureDisk" => azure_disk(value, at, found),
        "photonPersistentDisk" => {
            need("pdID", found);
        }
        "portworxVolume" => {
            need("volumeID", found);
        }
        "scaleIO" => {
            need("gateway", found);
            need("system", found);
            need("volumeName", found);
        }
        "storageos" => {
            if need("volumeName", found) {
                dns_label(value, "volumeName", at, found);
            }
            if !text(value, "volumeNamespace").is_empty() {
                dns_label(value, "volumeNamespace", at, found);
            }
            reference_named(value, "secretRef", at, found);
        }
        "projected" => projected(value, at, found),
        "csi" => {
            csi_driver(text(value, "driver"), &at.key("driver"), found);
            let secret = value.field("nodePublishSecretRef");
            if !secret.is_null()
                && reference_named(value, "nodePublishSecretRef", at, found)
                && let Err(why) = names::dns1123_subdomain(text(secret, "name"))
            {
                found.push((
                    at.key("nodePublishSecretRef").key("name"),
                    format!("`{}` is no Secret name: {why}", text(secret, "name")),
                ));
            }
        }
        "image" => {
            if is_pod {
                need("reference", found);
            }
            // Empty, the server chooses it from the reference.
            if !text(value, "pullPolicy").is_empty() {
                one_of(
                    &value["pullPolicy"],
                    &["Always", "IfNotPresent", "Never"],
                    at.key("pullPolicy"),
                    found,
                );
            }
        }
        // An ephemeral volume's claim template: `claims::ephemeral`.
        _ => {}
    }
}

/// Which of `sources` `value` has (a null is none); a finding at `at` when
/// more than one, `what` saying what has them.
fn sources_of<'s>(
    value: &Json,
    sources: &[&'s str],
    what: &str,
    at: &KeyPath,
    found: &mut Found,
) -> Vec<&'s str> {
    let given: Vec<&str> = (sources.iter().copied())
        .filter(|s| !value.field(s).is_null())
        .collect();
    if given.len() > 1 {
        found.push((
            at.clone(),
            format!(
                "{what} has one source, this one {}: {}",
                given.len(),
                given.join(", ")
            ),
        ));
    }
    given
}

/// A text member of an object, empty when it has none.
fn text<'a>(value: &'a Json, field: &str) -> &'a str {
    value.field(field).as_str().unwrap_or_default()
}

/// Whether `field` of `value` is given (not empty); a finding where not.
fn required(value: &Json, field: &str, at: &KeyPath, found: &mut Found) -> bool {
    let given = !text(value, field).is_empty();
    if !given {
        found.push((
            at.key(field),
            format!("`{field}` is required and not empty"),
        ));
    }
    given
}

/// A list member `field` of `value` with at least one item.
fn listed(value: &Json, field: &str, at: &KeyPath, found: &mut Found) {
    if each(value.field(field)).next().is_none() {
        found.push((at.key(field), format!("`{field}` names at least one")));
    }
}

/// Where `value` has a reference `field`, that it names something; whether
/// it does (or there is none).
fn reference_named(value: &Json, field: &str, at: &KeyPath, found: &mut Found) -> bool {
    let reference = value.field(field);
    if reference.is_null() {
        return false;
    }
    required(reference, "name", &at.key(field), found)
}

/// An integer member `field` of `value` in `low..=high`, if set.
fn in_range(value: &Json, field: &str, low: i64, high: i64, at: &KeyPath, found: &mut Found) {
    if let Some(n) = whole(value.field(field))
        && !(low..=high).contains(&n)
    {
        found.push((at.key(field), format!("{n} is not in {low}..{high}")));
    }
}

/// A file mode `field` of `value` in `0..=0777`, if set.
fn mode(value: &Json, field: &str, at: &KeyPath, found: &mut Found) {
    if let Some(n) = whole(value.field(field))
        && !(0..=MAX_MODE).contains(&n)
    {
        found.push((
            at.key(field),
            format!("{n} is no file mode: one of 0 to 0777 (511)"),
        ));
    }
}

/// A DNS-1123 label member `field` of `value`.
fn dns_label(value: &Json, field: &str, at: &KeyPath, found: &mut Found) {
    if let Err(why) = names::dns1123_label(text(value, field)) {
        found.push((
            at.key(field),
            format!("`{}` is not a valid {field}: {why}", text(value, field)),
        ));
    }
}

/// No `..` part of path `field` of `value` (`validatePathNoBacksteps`).
fn no_backsteps(value: &Json, field: &str, at: &KeyPath, found: &mut Found) {
    let path = text(value, field);
    if path.split('/').any(|part| part == "..") {
        found.push((at.key(field), format!("`{path}` has a `..` part")));
    }
}

/// How far a path in a volume is held: below the volume
/// (`validateLocalDescendingPath`), or also not starting with `..`
/// (`ValidateLocalNonReservedPath`, the paths of files).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Local {
    Descending,
    NonReserved,
}

/// Path `field` of `value` held as `local` says; empty is taken here
/// (where it is required, the caller says so).
fn local_path(value: &Json, field: &str, local: Local, at: &KeyPath, found: &mut Found) {
    let path = text(value, field);
    if let Err(why) = local_path_of(path, local) {
        found.push((at.key(field), format!("`{path}` {why}")));
    }
}

/// Why `path` is not held as `local` says.
fn local_path_of(path: &str, local: Local) -> Result<(), &'static str> {
    if path.starts_with('/') {
        Err("is an absolute path; it is relative to the volume")
    } else if path.split('/').any(|part| part == "..") {
        Err("has a `..` part")
    } else if local == Local::NonReserved && path.starts_with("..") {
        Err("starts with `..`")
    } else {
        Ok(())
    }
}

/// A `key` to `path` item of a Secret or ConfigMap volume
/// (`validateKeyToPath`): both given, the path a file's, a file mode.
fn key_to_path(item: &Json, at: &KeyPath, found: &mut Found) {
    required(item, "key", at, found);
    required(item, "path", at, found);
    local_path(item, "path", Local::NonReserved, at, found);
    mode(item, "mode", at, found);
}

/// A file of a `downwardAPI` volume or projection
/// (`validateDownwardAPIVolumeFile`): a path, exactly one of `fieldRef`
/// (a field a file may read) and `resourceFieldRef` (a container's
/// resource), a file mode.
fn downward_file(file: &Json, at: &KeyPath, found: &mut Found) {
    required(file, "path", at, found);
    local_path(file, "path", Local::NonReserved, at, found);
    let (field, resource) = (file.field("fieldRef"), file.field("resourceFieldRef"));
    match (field.is_null(), resource.is_null()) {
        (false, false) => found.push((
            at.clone(),
            "a file reads one of fieldRef and resourceFieldRef, not both".to_owned(),
        )),
        (false, true) => field_ref(field, Reader::File, &at.key("fieldRef"), found),
        (true, false) => {
            resource_field_ref(resource, Reader::File, &at.key("resourceFieldRef"), found)
        }
        (true, true) => found.push((
            at.clone(),
            "a file reads one of fieldRef and resourceFieldRef".to_owned(),
        )),
    }
    mode(file, "mode", at, found);
}

/// A projected volume (`validateProjectedVolumeSource`): a file mode, each
/// source one of a Secret, a ConfigMap, the downward API or a service
/// account token, and no path twice among the Secrets', ConfigMaps' and
/// downward API's files.
fn projected(value: &Json, at: &KeyPath, found: &mut Found) {
    mode(value, "defaultMode", at, found);
    let mut paths = BTreeSet::new();
    let mut once = |path: &str, found: &mut Found| {
        if !path.is_empty() && !paths.insert(path.to_owned()) {
            found.push((
                at.clone(),
                format!("`{path}` is the path of two files of this volume"),
            ));
        }
    };
    for (i, source) in each(value.field("sources")) {
        let at = at.clone().key("sources").index(i);
        // Cluster trust bundles and pod certificates are dropped.
        let kinds = ["secret", "configMap", "downwardAPI", "serviceAccountToken"];
        let given = sources_of(source, &kinds, "a projection", &at, found);
        for kind in given {
            let value = source.field(kind);
            let at = at.clone().key(kind);
            match kind {
                "secret" | "configMap" => {
                    required(value, "name", &at, found);
                    for (j, item) in each(value.field("items")) {
                        key_to_path(item, &at.clone().key("items").index(j), found);
                        once(text(item, "path"), found);
                    }
                }
                "downwardAPI" => {
                    for (j, file) in each(value.field("items")) {
                        downward_file(file, &at.clone().key("items").index(j), found);
                        once(text(file, "path"), found);
                    }
                }
                _ => {
                    // Unset, a token expires after an hour; a number past
                    // `i64` is refused as out of range.
                    let seconds = value.field("expirationSeconds");
                    let seconds = match whole(seconds) {
                        Some(n) => n,
                        None if seconds.is_number() => i64::MAX,
                        None => 3600,
                    };
                    if !(600..=1 << 32).contains(&seconds) {
                        found.push((
                            at.key("expirationSeconds"),
                            format!(
                                "{seconds} is not in 600..4294967296 (ten minutes to 2^32 seconds)"
                            ),
                        ));
                    }
                    if required(value, "path", &at, found) {
                        local_path(value, "path", Local::NonReserved, &at, found);
                    }
                }
            }
        }
    }
}

/// An iSCSI volume (`validateISCSIVolumeSource`): a target portal, an IQN
/// and an initiator name in one of the three forms, a LUN in 0..255, a
/// Secret for CHAP, and with an initiator name at most 64 characters of
/// `<volume name>:<target portal>`.
fn iscsi(value: &Json, volume: &str, at: &KeyPath, found: &mut Found) {
    required(value, "targetPortal", at, found);
    if required(value, "iqn", at, found) {
        iscsi_name(value, "iqn", at, found);
    }
    in_range(value, "lun", 0, 255, at, found);
    let chap = value.field("chapAuthDiscovery") == true || value.field("chapAuthSession") == true;
    if chap && value.field("secretRef").is_null() {
        found.push((
            at.key("secretRef"),
            "CHAP authentication needs a secretRef".to_owned(),
        ));
    }
    if !value.field("initiatorName").is_null() {
        iscsi_name(value, "initiatorName", at, found);
        let joined = volume.len() + 1 + text(value, "targetPortal").len();
        if joined > 64 {
            found.push((
                at.clone(),
                format!("with an initiatorName, `<volume name>:<targetPortal>` has at most 64 characters, here {joined}"),
            ));
        }
    }
}

/// An iSCSI qualified name `field` of `value`, as the server's patterns
/// read it: `iqn.YYYY-MM.<authority>:<name>` (found anywhere in the text),
/// `eui.` and 16 letters or digits, or `naa.` and 32.
fn iscsi_name(value: &Json, field: &str, at: &KeyPath, found: &mut Found) {
    let name = text(value, field);
    let valid = if name.starts_with("iqn") {
        iqn(name)
    } else if let Some(rest) = name.strip_prefix("eui") {
        any_then_alphanumeric(rest, 16)
    } else if let Some(rest) = name.strip_prefix("naa") {
        any_then_alphanumeric(rest, 32)
    } else {
        found.push((
            at.key(field),
            format!("`{name}` starts with none of iqn, eui and naa"),
        ));
        return;
    };
    if !valid {
        found.push((
            at.key(field),
            format!("`{name}` is no valid {} name", &name[..3]),
        ));
    }
}

/// Whether `text` matches, somewhere, the server's unanchored
/// `iqn\.\d{4}-\d{2}\.([[:alnum:]-.]+)(:[^,;*&$|\s]+)$`; in linear time
/// (RE2's is): where each run of authority bytes ends is found once, and
/// the name after the `:` runs to the end, so it starts past the last byte
/// it may not hold.
fn iqn(text: &str) -> bool {
    let bytes = text.as_bytes();
    let last_forbidden = bytes.iter().rposition(|b| b",;*&$| \t\n\x0c\r".contains(b));
    // Where the run of `[[:alnum:]-.]` that starts at each byte ends.
    let mut run_end = vec![bytes.len(); bytes.len() + 1];
    for i in (0..bytes.len()).rev() {
        let authority = bytes[i].is_ascii_alphanumeric() || bytes[i] == b'-' || bytes[i] == b'.';
        run_end[i] = if authority { run_end[i + 1] } else { i };
    }
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    text.match_indices("iqn.").any(|(start, _)| {
        let date = &bytes[start + 4..];
        if date.len() < 8
            || !digits(&date[..4])
            || date[4] != b'-'
            || !digits(&date[5..7])
            || date[7] != b'.'
        {
            return false;
        }
        // The authority runs to the first byte outside `[[:alnum:]-.]`,
        // which is the `:` before the name.
        let from = start + 12;
        let colon = run_end[from];
        colon > from
            && bytes.get(colon) == Some(&b':')
            && colon + 1 < bytes.len()
            && last_forbidden.is_none_or(|bad| bad < colon)
    })
}

/// Whether `rest` is one character but a line break, then exactly `count`
/// ASCII letters or digits (`^eui.[[:alnum:]]{16}$`).
fn any_then_alphanumeric(rest: &str, count: usize) -> bool {
    let mut chars = rest.chars();
    matches!(chars.next(), Some(c) if c != '\n')
        && chars.as_str().len() == count
        && chars.as_str().bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A Fibre Channel volume (`validateFCVolumeSource`): target WWNs or WWIDs,
/// not both, and with target WWNs a LUN in 0..255.
fn fibre_channel(value: &Json, at: &KeyPath, found: &mut Found) {
    let targets = each(value.field("targetWWNs")).next().is_some();
    let ids = each(value.field("wwids")).next().is_some();
    if targets == ids {
        found.push((
            at.key("targetWWNs"),
            "a Fibre Channel volume names exactly one of targetWWNs and wwids".to_owned(),
        ));
    }
    if targets {
        if value.field("lun").is_null() {
            found.push((
                at.key("lun"),
                "with targetWWNs, a Fibre Channel volume names its lun".to_owned(),
            ));
        }
        in_range(value, "lun", 0, 255, at, found);
    }
}

/// A Quobyte volume (`validateQuobyteVolumeSource`): a registry of
/// `host:port` pairs separated by commas (as Go's `net.SplitHostPort` reads
/// each), a tenant of at most 64 characters, a volume.
fn quobyte(value: &Json, at: &KeyPath, found: &mut Found) {
    let registry = text(value, "registry");
    if registry.is_empty() {
        found.push((
            at.key("registry"),
            "a Quobyte volume names its registry (host:port pairs separated by commas)".to_owned(),
        ));
    } else if text(value, "tenant").len() >= 65 {
        found.push((
            at.key("tenant"),
            "a Quobyte tenant has at most 64 characters".to_owned(),
        ));
    } else if let Some(pair) = registry.split(',').find(|p| !host_port(p)) {
        found.push((at.key("registry"), format!("`{pair}` is no host:port pair")));
    }
    required(value, "volume", at, found);
}

/// Whether Go's `net.SplitHostPort` splits `text`: a last `:`, before it a
/// host without `:` or a `[...]` ending just before it, and no stray
/// bracket.
fn host_port(text: &str) -> bool {
    let Some(colon) = text.rfind(':') else {
        return false;
    };
    let (mut open_from, mut close_from) = (0, 0);
    if text.starts_with('[') {
        match text.find(']') {
            Some(end) if end + 1 == colon => (open_from, close_from) = (1, end + 1),
            _ => return false,
        }
    } else if text[..colon].contains(':') {
        return false;
    }
    !text[open_from..].contains('[') && !text[close_from..].contains(']')
}

/// An Azure disk (`validateAzureDisk`): a name and URI, a caching mode and
/// kind of the known words, a managed disk's URI under `/subscriptions/`
/// and any other's `https://`.
fn azure_disk(value: &Json, at: &KeyPath, found: &mut Found) {
    required(value, "diskName", at, found);
    required(value, "diskURI", at, found);
    one_of(
        &value["cachingMode"],
        &["None", "ReadOnly", "ReadWrite"],
        at.key("cachingMode"),
        found,
    );
    one_of(
        &value["kind"],
        &["Shared", "Dedicated", "Managed"],
        at.key("kind"),
        found,
    );
    // Unset, the kind is `Shared`.
    let uri = text(value, "diskURI");
    let (prefix, why) = match value.field("kind").as_str().unwrap_or("Shared") {
        "Managed" => (
            "/subscriptions/",
            "a managed disk's URI starts with /subscriptions/",
        ),
        _ => ("https://", "a blob disk's URI starts with https://"),
    };
    if !uri.starts_with(prefix) {
        found.push((at.key("diskURI"), format!("`{uri}`: {why}")));
    }
}

/// A CSI driver's name (`ValidateCSIDriverName`): given, at most 63
/// characters, a DNS subdomain in lowercase.
fn csi_driver(driver: &str, at: &KeyPath, found: &mut Found) {
    let why = if driver.is_empty() {
        Err("a CSI volume names its driver".to_owned())
    } else if driver.len() > 63 {
        Err(format!("`{driver}` has more than 63 characters"))
    } else {
        names::dns1123_subdomain(&names::go_lowercase(driver))
            .map_err(|why| format!("`{driver}` is no driver name: {why}"))
    };
    if let Err(why) = why {
        found.push((at.clone(), why));
    }
}

/// The sources a PersistentVolume may have, in the order the server reads
/// them (`ValidatePersistentVolumeSpec`).
pub(crate) const PERSISTENT_SOURCES: [&str; 22] = [
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "glusterfs",
    "flocker",
    "nfs",
    "rbd",
    "quobyte",
    "cephfs",
    "iscsi",
    "cinder",
    "fc",
    "flexVolume",
    "azureFile",
    "vsphereVolume",
    "photonPersistentDisk",
    "portworxVolume",
    "azureDisk",
    "scaleIO",
    "local",
    "storageos",
    "csi",
];

/// The deprecated `volume.beta.kubernetes.io/mount-options` annotation
/// is refused, present at all (empty too), on a PersistentVolume whose
/// source is none of those that take mount options (`checkMountOption`;
/// `spec.mountOptions` is not held to this).
fn mount_options_annotation(object: &Json, found: &mut Found) {
    const ANNOTATION: &str = "volume.beta.kubernetes.io/mount-options";
    const MOUNTED: [&str; 13] = [
        "gcePersistentDisk",
        "awsElasticBlockStore",
        "glusterfs",
        "nfs",
        "rbd",
        "quobyte",
        "iscsi",
        "cinder",
        "cephfs",
        "azureFile",
        "vsphereVolume",
        "azureDisk",
        "photonPersistentDisk",
    ];
    let annotations = object.field("metadata").field("annotations");
    let spec = object.field("spec");
    if annotations
        .as_object()
        .is_some_and(|a| a.contains_key(ANNOTATION))
        && MOUNTED.iter().all(|source| spec.field(source).is_null())
    {
        let at = KeyPath::root()
            .key("metadata")
            .key("annotations")
            .key(ANNOTATION);
        found.push((
            at,
            "mount options are not taken by this PersistentVolume's source (only by nfs, iscsi, rbd, cephfs, cinder and the other network and cloud disks)".to_owned(),
        ));
    }
}

/// A PersistentVolume's spec (`ValidatePersistentVolumeSpec`, judged after
/// its defaults: an empty reclaim policy is `Retain`): access modes as a
/// claim's; a `capacity` of `storage` alone, more than zero, and not
/// below zero as Go's int64 `Value()` reads it (wrapped); a reclaim
/// policy `Delete`, `Recycle` or `Retain` (not `Recycle` for the host's
/// `/`); a node affinity with a required term; exactly one source, each
/// held to its rules (a `local` one only with a node affinity; the secret
/// references of CSI, Cinder, StorageOS naming a namespace); a class name
/// and a volume attributes class name that are DNS subdomains (the latter
/// not empty, and only on a CSI volume); a volume mode `Block` or
/// `Filesystem`; the mount options annotation only on a source that
/// takes mount options.
pub(super) fn persistent_volume(object: &Json, found: &mut Found) {
    let spec = object.field("spec");
    let at = KeyPath::root().key("spec");
    let name = text(object.field("metadata"), "name");
    mount_options_annotation(object, found);
    super::claims::access_modes(spec, &at, "a PersistentVolume", found);
    let capacity = spec.field("capacity").as_object();
    let storage_alone = capacity.is_some_and(|c| c.len() == 1 && c.contains_key("storage"));
    if !storage_alone {
        found.push((
            at.key("capacity"),
            "a PersistentVolume's capacity is its `storage`, and nothing else".to_owned(),
        ));
    }
    for (resource, amount) in capacity.into_iter().flatten() {
        match crate::quantity::of_value(amount) {
            // The server also reads the amount as Go's int64 `Value()`,
            // which wraps just past 2^63-1 (`9223372036854775808`, not
            // `1e19`, which is 0): below zero it is refused.
            Some(Ok(q)) if q.nanos() > 0 => {
                if let Some(value) =
                    crate::quantity::go_scaled_value_of(amount, 0).filter(|v| *v < 0)
                {
                    found.push((
                        at.key("capacity").key(resource),
                        format!(
                            "the capacity's {resource} must be a valid resource quantity: the API server reads {amount} as the int64 {value}, wrapped past 2^63-1"
                        ),
                    ));
                }
            }
            Some(Err(why)) => found.push((at.key("capacity").key(resource), why)),
            _ => found.push((
                at.key("capacity").key(resource),
                format!("the capacity's {resource} is more than zero"),
            )),
        }
    }
    let policy = text(spec, "persistentVolumeReclaimPolicy");
    if !policy.is_empty() {
        one_of(
            spec.field("persistentVolumeReclaimPolicy"),
            &["Delete", "Recycle", "Retain"],
            at.key("persistentVolumeReclaimPolicy"),
            found,
        );
    }
    let affinity = spec.field("nodeAffinity");
    if affinity.is_object() {
        let required = affinity.field("required");
        let required_at = at.key("nodeAffinity").key("required");
        if !required.is_object() {
            found.push((
                required_at,
                "a volume's node affinity names its required node constraints".to_owned(),
            ));
        } else {
            crate::scheduling::node_selector(required, &required_at, found);
        }
    }
    // In the server's order, each source past the first is refused, but a
    // `flexVolume`, which the server counts without that test (so that a
    // flexVolume beside an earlier source is taken, both judged).
    let mut counted = 0;
    for source in PERSISTENT_SOURCES {
        let value = spec.field(source);
        if value.is_null() {
            continue;
        }
        if counted > 0 && source != "flexVolume" {
            found.push((
                at.key(source),
                "a PersistentVolume has one source; this is another".to_owned(),
            ));
            continue;
        }
        counted += 1;
        persistent_source(source, value, name, &at.key(source), found);
        if source == "local" && !affinity.is_object() {
            found.push((
                at.key("nodeAffinity"),
                "a local volume needs a node affinity".to_owned(),
            ));
        }
    }
    if counted == 0 {
        found.push((
            at.clone(),
            "a PersistentVolume names its volume (hostPath, nfs, csi, local, ...)".to_owned(),
        ));
    }
    if !spec.field("hostPath").is_null()
        && policy == "Recycle"
        && names::clean_path(text(spec.field("hostPath"), "path")) == "/"
    {
        found.push((
            at.key("persistentVolumeReclaimPolicy"),
            "a hostPath volume of the host's `/` is not recycled".to_owned(),
        ));
    }
    if let Some(class) = spec
        .field("storageClassName")
        .as_str()
        .filter(|c| !c.is_empty())
        && let Err(why) = names::dns1123_subdomain(class)
    {
        found.push((
            at.key("storageClassName"),
            format!("`{class}` is not a class name: {why}"),
        ));
    }
    one_of(
        spec.field("volumeMode"),
        &["Block", "Filesystem"],
        at.key("volumeMode"),
        found,
    );
    if let Some(class) = spec.field("volumeAttributesClassName").as_str() {
        let why = match class {
            "" => Err("it is not empty where given".to_owned()),
            _ => names::dns1123_subdomain(class),
        };
        if let Err(why) = why {
            found.push((
                at.key("volumeAttributesClassName"),
                format!("`{class}` is not a class name: {why}"),
            ));
        }
        if spec.field("csi").is_null() {
            found.push((
                at.key("csi"),
                "a volume attributes class is a CSI volume's".to_owned(),
            ));
        }
    }
}

/// The rules of a PersistentVolume's source (`validate<Source>PersistentVolumeSource`
/// where it has one of its own, else the pod volume's).
fn persistent_source(source: &str, value: &Json, volume: &str, at: &KeyPath, found: &mut Found) {
    match source {
        "glusterfs" => {
            required(value, "endpoints", at, found);
            required(value, "path", at, found);
            if let Some(namespace) = value.field("endpointsNamespace").as_str()
                && let Err(why) = names::dns1123_label(namespace)
            {
                found.push((
                    at.key("endpointsNamespace"),
                    format!("`{namespace}` is not a namespace: {why}"),
                ));
            }
        }
        "cinder" => {
            required(value, "volumeID", at, found);
            secret_reference(value, "secretRef", false, at, found);
        }
        // A pod's iSCSI volume, and a Secret reference with its name where
        // given, CHAP or not (`validateISCSIPersistentVolumeSource`).
        "iscsi" => {
            one_source(source, value, volume, false, at, found);
            let reference = value.field("secretRef");
            if !reference.is_null() {
                required(reference, "name", &at.key("secretRef"), found);
            }
        }
        "azureFile" => {
            required(value, "secretName", at, found);
            required(value, "shareName", at, found);
            if value.field("secretNamespace") == "" {
                found.push((
                    at.key("secretNamespace"),
                    "`secretNamespace` is not empty where given".to_owned(),
                ));
            }
        }
        "local" => {
            if required(value, "path", at, found) {
                no_backsteps(value, "path", at, found);
            }
        }
        "storageos" => {
            if required(value, "volumeName", at, found) {
                dns_label(value, "volumeName", at, found);
            }
            if !text(value, "volumeNamespace").is_empty() {
                dns_label(value, "volumeNamespace", at, found);
            }
            secret_reference(value, "secretRef", false, at, found);
        }
        "csi" => {
            csi_driver(text(value, "driver"), &at.key("driver"), found);
            required(value, "volumeHandle", at, found);
            for reference in [
                "controllerPublishSecretRef",
                "controllerExpandSecretRef",
                "nodePublishSecretRef",
                "nodeExpandSecretRef",
            ] {
                secret_reference(value, reference, true, at, found);
            }
        }
        _ => one_source(source, value, volume, false, at, found),
    }
}

/// A PersistentVolume's reference to a Secret, where given: a name and a
/// namespace (with `names`, a DNS subdomain and a DNS label:
/// `validatePVSecretReference`).
fn secret_reference(value: &Json, field: &str, names: bool, at: &KeyPath, found: &mut Found) {
    let reference = value.field(field);
    if reference.is_null() {
        return;
    }
    let at = at.key(field);
    if required(reference, "name", &at, found) && names {
        let name = text(reference, "name");
        if let Err(why) = names::dns1123_subdomain(name) {
            found.push((at.key("name"), format!("`{name}` is no Secret name: {why}")));
        }
    }
    if required(reference, "namespace", &at, found) && names {
        dns_label(reference, "namespace", &at, found);
    }
}

/// A container's volume mounts at `at` (`ValidateVolumeMounts`, but for
/// the names, checked with the pod's volumes): a mount path, a `subPath`
/// and `subPathExpr` below the volume and not both, a mount propagation of
/// the known words (`Bidirectional` only in a privileged container), and a
/// recursive read-only mode `Disabled`, or `Enabled` or `IfPossible` on a
/// read-only mount that propagates nothing.
pub(super) fn mounts(container: &Json, at: &KeyPath, found: &mut Found) {
    let privileged = container.field("securityContext").field("privileged") == true;
    for (i, mount) in each(container.field("volumeMounts")) {
        let at = at.clone().key("volumeMounts").index(i);
        required(mount, "mountPath", &at, found);
        for field in ["subPath", "subPathExpr"] {
            local_path(mount, field, Local::Descending, &at, found);
        }
        if !text(mount, "subPath").is_empty() && !text(mount, "subPathExpr").is_empty() {
            found.push((
                at.key("subPathExpr"),
                "a mount has a subPath or a subPathExpr, not both".to_owned(),
            ));
        }
        let propagation = mount.field("mountPropagation");
        one_of(
            propagation,
            &["Bidirectional", "HostToContainer", "None"],
            at.key("mountPropagation"),
            found,
        );
        if propagation == "Bidirectional" && !privileged {
            found.push((
                at.key("mountPropagation"),
                "Bidirectional mount propagation is for privileged containers only".to_owned(),
            ));
        }
        match mount.field("recursiveReadOnly").as_str() {
            None | Some("Disabled") => {}
            Some("Enabled" | "IfPossible") => {
                if mount.field("readOnly") != true {
                    found.push((
                        at.key("recursiveReadOnly"),
                        "a recursive read-only mount is readOnly".to_owned(),
                    ));
                }
                if propagation.as_str().is_some_and(|p| p != "None") {
                    found.push((
                        at.key("recursiveReadOnly"),
                        "a recursive read-only mount propagates nothing (mountPropagation None or unset)".to_owned(),
                    ));
                }
            }
            Some(word) => found.push((
                at.key("recursiveReadOnly"),
                format!("`{word}` is not one of Disabled, Enabled, IfPossible"),
            )),
        }
    }
}

/// A CSIDriver's spec (`validateCSIDriverSpec`, after its defaults, which
/// fill in every flag it requires): an `fsGroupPolicy` of
/// `ReadWriteOnceWithFSType`, `File` or `None`; volume lifecycle modes
/// `Persistent` or `Ephemeral`; token requests for distinct audiences,
/// each expiring in 10 minutes to 2^32 seconds; a
/// `nodeAllocatableUpdatePeriodSeconds` of at least 10; and no
/// `serviceAccountTokenInSecrets` (even `false`) without token requests.
pub(super) fn csi_driver_spec(object: &Json, found: &mut Found) {
    let spec = object.field("spec");
    let at = KeyPath::root().key("spec");
    if !spec.field("fsGroupPolicy").is_null() {
        one_of(
            spec.field("fsGroupPolicy"),
            &["ReadWriteOnceWithFSType", "File", "None"],
            at.key("fsGroupPolicy"),
            found,
        );
    }
    for (i, mode) in each(spec.field("volumeLifecycleModes")) {
        one_of(
            mode,
            &["Persistent", "Ephemeral"],
            at.key("volumeLifecycleModes").index(i),
            found,
        );
    }
    let mut audiences = BTreeSet::new();
    let requests = spec.field("tokenRequests");
    for (i, request) in each(requests) {
        let path = at.key("tokenRequests").index(i);
        let audience = request.field("audience").as_str().unwrap_or_default();
        if !audiences.insert(audience) {
            found.push((
                path.key("audience"),
                format!("the audience `{audience}` is requested twice"),
            ));
            continue;
        }
        if let Some(seconds) = whole(request.field("expirationSeconds"))
            && !(600..=1 << 32).contains(&seconds)
        {
            found.push((
                path.key("expirationSeconds"),
                format!("{seconds} seconds: a token expires in 10 minutes (600) to 2^32 seconds"),
            ));
        }
    }
    if let Some(period) = whole(spec.field("nodeAllocatableUpdatePeriodSeconds"))
        && period < 10
    {
        found.push((
            at.key("nodeAllocatableUpdatePeriodSeconds"),
            format!("{period} seconds: the period is at least 10"),
        ));
    }
    let no_requests = requests.as_array().is_none_or(Vec::is_empty);
    if !spec.field("serviceAccountTokenInSecrets").is_null() && no_requests {
        found.push((
            at.key("serviceAccountTokenInSecrets"),
            "serviceAccountTokenInSecrets is set but no tokenRequests are".to_owned(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The paths of the findings of a Pod (named `p` when `named`) or a
    /// template whose spec has `volumes` and one container with `mounts`.
    fn found(named: bool, volumes: Json, mounts: Json) -> Vec<String> {
        let pod = json!({
            "containers": [{"name": "app", "image": "a:1", "volumeMounts": mounts}],
            "volumes": volumes,
        });
        let mut found = Vec::new();
        volumes_of(&pod, named.then_some("p"), &mut found);
        (found.into_iter())
            .map(|(path, why)| format!("{path}: {why}"))
            .collect()
    }

    fn volumes_of(pod: &Json, name: Option<&str>, found: &mut Found) {
        volumes(pod, name, &KeyPath::root(), found);
        for (i, container) in each(pod.field("containers")) {
            mounts(
                container,
                &KeyPath::root().key("containers").index(i),
                found,
            );
        }
    }

    fn one(volume: Json) -> Vec<String> {
        found(false, json!([volume]), json!([]))
    }

    #[test]
    fn a_volume_has_one_source_and_none_is_an_empty_dir() {
        assert!(one(json!({"name": "v"})).is_empty());
        assert!(one(json!({"name": "v", "emptyDir": {}, "secret": null})).is_empty());
        let two = one(json!({"name": "v", "emptyDir": {}, "hostPath": {"path": "/x"}}));
        assert_eq!(two.len(), 1, "{two:?}");
        assert!(two[0].contains("emptyDir, hostPath"), "{two:?}");
    }

    #[test]
    fn each_source_holds_its_required_fields_and_ranges() {
        for (volume, at) in [
            (
                json!({"hostPath": {"path": ""}}),
                "volumes[0].hostPath.path",
            ),
            (
                json!({"hostPath": {"path": "/a/../b"}}),
                "volumes[0].hostPath.path",
            ),
            (
                json!({"hostPath": {"path": "/x", "type": "directory"}}),
                "volumes[0].hostPath.type",
            ),
            (
                json!({"gitRepo": {"repository": "r", "directory": "/abs"}}),
                "volumes[0].gitRepo.directory",
            ),
            (
                json!({"gcePersistentDisk": {"pdName": "d", "partition": 256}}),
                "volumes[0].gcePersistentDisk.partition",
            ),
            (
                json!({"secret": {"secretName": "s", "defaultMode": 512}}),
                "volumes[0].secret.defaultMode",
            ),
            (json!({"configMap": {}}), "volumes[0].configMap.name"),
            (
                json!({"configMap": {"name": "c", "items": [{"key": "k", "path": "..x"}]}}),
                "volumes[0].configMap.items[0].path",
            ),
            (
                json!({"nfs": {"server": "s", "path": "rel"}}),
                "volumes[0].nfs.path",
            ),
            (
                json!({"rbd": {"monitors": [], "image": "i"}}),
                "volumes[0].rbd.monitors",
            ),
            (json!({"flocker": {}}), "volumes[0].flocker"),
            (json!({"fc": {"targetWWNs": ["a"]}}), "volumes[0].fc.lun"),
            (
                json!({"flexVolume": {"driver": "d", "options": {"Example.K8S.io/x": "1"}}}),
                "volumes[0].flexVolume.options.\"Example.K8S.io/x\"",
            ),
            (
                json!({"azureDisk": {"diskName": "d", "diskURI": "/subscriptions/x"}}),
                "volumes[0].azureDisk.diskURI",
            ),
            (
                json!({"storageos": {"volumeName": "Bad"}}),
                "volumes[0].storageos.volumeName",
            ),
            (
                json!({"csi": {"driver": "bad_driver"}}),
                "volumes[0].csi.driver",
            ),
            (
                json!({"csi": {"driver": "c.example.com", "nodePublishSecretRef": {"name": "Bad_Name"}}}),
                "volumes[0].csi.nodePublishSecretRef.name",
            ),
            (
                json!({"emptyDir": {"sizeLimit": "-1Gi"}}),
                "volumes[0].emptyDir.sizeLimit",
            ),
            (
                json!({"image": {"reference": "r:1", "pullPolicy": "Sometimes"}}),
                "volumes[0].image.pullPolicy",
            ),
        ] {
            let mut volume = volume;
            volume["name"] = json!("v");
            let found = one(volume.clone());
            assert!(
                found.iter().any(|f| f.starts_with(&format!("{at}:"))),
                "{volume}: {found:?}"
            );
        }
        for valid in [
            json!({"hostPath": {"path": "/a/..b", "type": ""}}),
            json!({"secret": {"secretName": "Not_A_Dns_Name", "defaultMode": 511}}),
            json!({"azureDisk": {"diskName": "d", "diskURI": "/subscriptions/x", "kind": "Managed"}}),
            json!({"csi": {"driver": "Csi.Example.COM"}}),
            json!({"emptyDir": {"medium": "Anything", "sizeLimit": "-0"}}),
            json!({"fc": {"wwids": ["b"], "lun": 300}}),
            json!({"image": {"pullPolicy": ""}}),
            json!({"persistentVolumeClaim": {"claimName": "Not_A_Dns_Name"}}),
        ] {
            let mut volume = valid;
            volume["name"] = json!("v");
            assert!(
                one(volume.clone()).is_empty(),
                "{volume}: {:?}",
                one(volume.clone())
            );
        }
    }

    #[test]
    fn downward_api_files_read_the_fields_a_file_may_read() {
        let file = |item: Json| one(json!({"name": "v", "downwardAPI": {"items": [item]}}));
        assert!(
            file(json!({"path": "f", "fieldRef": {"fieldPath": "metadata.labels"}})).is_empty()
        );
        assert!(
            file(json!({"path": "f", "fieldRef": {"apiVersion": "", "fieldPath": "metadata.uid"}}))
                .is_empty()
        );
        // A variable's field, not a file's; `spec.host` is `spec.nodeName`.
        assert_eq!(
            file(json!({"path": "f", "fieldRef": {"fieldPath": "spec.host"}})).len(),
            1
        );
        // A file names the container whose resources it reads.
        let found = file(json!({"path": "f", "resourceFieldRef": {"resource": "limits.cpu"}}));
        assert!(found[0].contains("containerName"), "{found:?}");
        assert_eq!(file(json!({"path": "f"})).len(), 1);
        // Two files of one path: a downwardAPI volume takes them, a
        // projected one does not.
        let items = json!([
            {"path": "f", "fieldRef": {"fieldPath": "metadata.name"}},
            {"path": "f", "fieldRef": {"fieldPath": "metadata.uid"}},
        ]);
        assert!(one(json!({"name": "v", "downwardAPI": {"items": items}})).is_empty());
        let projected = one(
            json!({"name": "v", "projected": {"sources": [{"downwardAPI": {"items": items}}]}}),
        );
        assert!(
            projected[0].contains("`f` is the path of two files"),
            "{projected:?}"
        );
    }

    #[test]
    fn projections_tokens_and_dropped_sources() {
        let sources = |sources: Json| one(json!({"name": "v", "projected": {"sources": sources}}));
        assert!(sources(json!([{"serviceAccountToken": {"path": "t"}}])).is_empty());
        assert_eq!(
            sources(json!([{"serviceAccountToken": {"path": "t", "expirationSeconds": 599}}]))
                .len(),
            1
        );
        assert!(sources(json!([{"serviceAccountToken": {"path": "t", "expirationSeconds": 4_294_967_296_i64}}])).is_empty());
        // Whole floats are integers (kubectl writes `599.0` as `599`);
        // past `i64`, no number the server decodes.
        assert_eq!(
            sources(json!([{"serviceAccountToken": {"path": "t", "expirationSeconds": 599.0}}]))
                .len(),
            1
        );
        assert_eq!(sources(json!([{"serviceAccountToken": {"path": "t", "expirationSeconds": 9_223_372_036_854_775_808_u64}}])).len(), 1);
        assert_eq!(
            one(json!({"name": "v", "secret": {"secretName": "s", "defaultMode": 512.0}})).len(),
            1
        );
        assert_eq!(
            sources(json!([{"secret": {"name": "a"}, "configMap": {"name": "b"}}])).len(),
            1
        );
        // Off by default: the server drops them unread.
        assert!(
            sources(json!([{"clusterTrustBundle": {}}, {"podCertificate": {"keyType": "X"}}, {}]))
                .is_empty()
        );
    }

    #[test]
    fn iscsi_names_read_as_the_servers_patterns() {
        assert!(iqn("iqn.2001-04.com.example:storage"));
        assert!(
            iqn("iqnX iqn.2001-04.com.example:a"),
            "unanchored at the start"
        );
        assert!(
            iqn("iqn.2001-04.com.example:a\u{b}b"),
            "\\v is no \\s in RE2"
        );
        assert!(!iqn("iqn.2001-04.com.example"));
        assert!(!iqn("iqn.2001-04.com.example:a b"));
        assert!(!iqn("iqn.01-04.com.example:a"));
        assert!(!iqn("iqn.2001-04.:a"));
        assert!(any_then_alphanumeric("_0123456789abcdef", 16));
        assert!(any_then_alphanumeric("ü0123456789abcdef", 16));
        assert!(!any_then_alphanumeric("\n0123456789abcdef", 16));
        assert!(!any_then_alphanumeric(".123", 16));
        let long = json!({"name": "v".repeat(30), "iscsi": {"targetPortal": "t".repeat(34), "iqn": "iqn.2001-04.a:b", "initiatorName": "iqn.2001-04.a:c"}});
        assert_eq!(one(long).len(), 1);
    }

    /// A text of many `iqn.` prefixes is read in linear time, and names
    /// are lowercased as Go lowercases them.
    #[test]
    fn hostile_names_are_read_as_the_server_reads_them() {
        let many = "iqn.2001-04.a:b".repeat(20_000) + ",";
        assert!(!iqn(&many));
        assert!(iqn(&("iqn.2001-04.a:b".repeat(20_000))));
        assert!(one(json!({"name": "v", "csi": {"driver": "İ.example.com"}})).is_empty());
        let reserved = one(
            json!({"name": "v", "flexVolume": {"driver": "d", "options": {"a.k8s.İo/x": "1"}}}),
        );
        assert_eq!(reserved.len(), 1, "{reserved:?}");
    }

    #[test]
    fn quobyte_registries_split_as_go_splits_host_and_port() {
        for (text, valid) in [
            ("a:1", true),
            ("[::1]:80", true),
            ("a:", true),
            (":1", true),
            ("[a]:1", true),
            ("host", false),
            ("::1:80", false),
            ("", false),
            ("a:b:1", false),
            ("[a:1", false),
            ("[a]1:2", false),
            ("a]:1", false),
        ] {
            assert_eq!(host_port(text), valid, "{text:?}");
        }
    }

    #[test]
    fn a_pods_ephemeral_claims_are_valid_names_no_volume_names() {
        let ephemeral = json!({"volumeClaimTemplate": {"spec": {}}});
        let volumes = json!([
            {"name": "data", "ephemeral": ephemeral},
            {"name": "c", "persistentVolumeClaim": {"claimName": "p-data"}},
        ]);
        let pod = found(true, volumes.clone(), json!([]));
        assert!(
            pod.iter()
                .any(|f| f.starts_with("volumes[1].persistentVolumeClaim.claimName:")),
            "{pod:?}"
        );
        assert!(found(false, volumes, json!([])).is_empty());
        let mut found_long = Vec::new();
        let pod = json!({"volumes": [{"name": "data", "ephemeral": ephemeral}]});
        volumes_of(&pod, Some(&"p".repeat(250)), &mut found_long);
        assert_eq!(found_long.len(), 1, "{found_long:?}");
        // An image volume names its image in a Pod, not in a template.
        let image = json!([{"name": "i", "image": {}}]);
        assert_eq!(found(true, image.clone(), json!([])).len(), 1);
        assert!(found(false, image, json!([])).is_empty());
    }

    #[test]
    fn mounts_paths_propagation_and_recursive_read_only() {
        let mount = |m: Json| found(false, json!([{"name": "v"}]), json!([m]));
        let m = |extra: Json| {
            let mut m = json!({"name": "v", "mountPath": "/m"});
            m.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            m
        };
        assert_eq!(mount(m(json!({"mountPath": ""}))).len(), 1);
        assert_eq!(
            mount(m(json!({"subPath": "a", "subPathExpr": "b"}))).len(),
            1
        );
        assert_eq!(mount(m(json!({"subPathExpr": "$(A)/../b"}))).len(), 1);
        assert!(mount(m(json!({"subPath": "..x", "mountPath": "relative"}))).is_empty());
        assert_eq!(
            mount(m(json!({"mountPropagation": "Bidirectional"}))).len(),
            1
        );
        assert_eq!(mount(m(json!({"mountPropagation": ""}))).len(), 1);
        assert_eq!(mount(m(json!({"recursiveReadOnly": "Enabled"}))).len(), 1);
        assert!(
            mount(m(
                json!({"recursiveReadOnly": "IfPossible", "readOnly": true})
            ))
            .is_empty()
        );
        assert_eq!(
            mount(m(json!({"recursiveReadOnly": "Enabled", "readOnly": true, "mountPropagation": "HostToContainer"}))).len(),
            1
        );
        assert_eq!(mount(m(json!({"recursiveReadOnly": ""}))).len(), 1);
        let privileged = json!({"containers": [{"name": "app", "securityContext": {"privileged": true},
            "volumeMounts": [m(json!({"mountPropagation": "Bidirectional"}))]}], "volumes": [{"name": "v"}]});
        let mut found = Vec::new();
        volumes_of(&privileged, None, &mut found);
        assert!(found.is_empty(), "{found:?}");
    }
}
