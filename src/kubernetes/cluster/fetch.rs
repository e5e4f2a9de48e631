//! The requests of a live diff, read-only: discovery, GET, LIST, and a
//! server-side apply with `dryRun=All`, which the server answers with the
//! object it would store and stores nothing.

use std::collections::BTreeSet;

use ::kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use ::kube::core::GroupVersionKind;
use ::kube::discovery::{ApiCapabilities, ApiResource, Discovery, Scope, verbs};
use serde_json::Value as Json;

use super::connect::Connection;
use super::{ClusterError, Refusal, strip};
use crate::manifest::{Manifest, ObjectId};

/// The field manager of the dry-run apply.
pub const FIELD_MANAGER: &str = "chartgen";

/// The label every object chartgen renders carries, and its value.
pub const MANAGED_BY: (&str, &str) = ("app.kubernetes.io/managed-by", "chartgen");

/// The label naming the release an object belongs to.
pub const INSTANCE: &str = "app.kubernetes.io/instance";

/// What the cluster says of the local objects.
pub struct Reading {
    /// The live objects: the counterparts of the local objects that exist,
    /// and the release's objects the local side lacks; server fields
    /// stripped.
    pub live: Vec<Json>,
    /// For each local object, in order: what the server would make of it
    /// (the dry run's answer), or, where it refused, the object as written;
    /// server fields stripped.
    pub applied: Vec<Json>,
    /// The objects whose dry run the server refused, and why.
    pub refusals: Vec<Refusal>,
    /// What could not be looked at, one line each.
    pub notes: Vec<String>,
}

/// Reads the cluster for the local objects `local`.
pub async fn read(connection: &Connection, local: &[Manifest]) -> Result<Reading, ClusterError> {
    let discovery = discover(connection).await?;
    let mut reading = Reading {
        live: Vec::new(),
        applied: Vec::with_capacity(local.len()),
        refusals: Vec::new(),
        notes: Vec::new(),
    };
    for manifest in local {
        let (live, applied) = one_object(connection, &discovery, manifest, &mut reading).await?;
        reading.live.extend(live);
        reading.applied.push(applied);
    }
    let extra = release_objects(connection, &discovery, local, &mut reading.notes).await?;
    reading.live.extend(extra);
    Ok(reading)
}

/// The API's resource types: aggregated discovery (two requests), or the
/// per-group one where the server does not offer it.
async fn discover(connection: &Connection) -> Result<Discovery, ClusterError> {
    match Discovery::new(connection.client.clone())
        .run_aggregated()
        .await
    {
        Ok(discovery) => Ok(discovery),
        Err(::kube::Error::Api(_)) => Discovery::new(connection.client.clone())
            .run()
            .await
            .map_err(|e| unreachable(connection, e)),
        Err(e) => Err(unreachable(connection, e)),
    }
}

/// A failure that is not the server's answer about one object: the
/// connection, TLS, credentials, a time-out.
fn unreachable(connection: &Connection, error: ::kube::Error) -> ClusterError {
    let source: Box<dyn std::error::Error + Send + Sync> = match error {
        // The server's own words, not the client's debug form of them.
        ::kube::Error::Api(status) => format!(
            "the server answered {} {}: {}",
            status.code, status.reason, status.message
        )
        .into(),
        other => Box::new(other),
    };
    ClusterError::Unreachable {
        context: connection.context.clone(),
        server: connection.server.clone(),
        source,
    }
}

/// The live object and the dry run's answer for one local object (the
/// local object itself where the server refused, with a [`Refusal`]).
async fn one_object(
    connection: &Connection,
    discovery: &Discovery,
    manifest: &Manifest,
    reading: &mut Reading,
) -> Result<(Option<Json>, Json), ClusterError> {
    let id = &manifest.id;
    let mut written = manifest.node.to_json();
    let served = discovery.resolve_gvk(&GroupVersionKind::gvk(&id.group, &id.version, &id.kind));
    let Some((resource, capabilities)) = served else {
        reading.refusals.push(Refusal {
            object: id.to_string(),
            message: format!(
                "the server serves no {} {} (is its CustomResourceDefinition installed?)",
                api_version(id),
                id.kind
            ),
            rejected: false,
        });
        // The kind may be served under another version of its group.
        let live = match discovery
            .get(&id.group)
            .and_then(|group| group.recommended_kind(&id.kind))
        {
            Some((resource, capabilities)) => {
                let api = api_for(connection, &resource, &capabilities, id);
                get(connection, &api, &resource, id, reading).await?
            }
            None => None,
        };
        strip::server_fields(&mut written);
        return Ok((live, written));
    };
    let api = api_for(connection, &resource, &capabilities, id);
    let live = get(connection, &api, &resource, id, reading).await?;
    if capabilities.scope == Scope::Cluster
        && let Some(metadata) = written.get_mut("metadata").and_then(Json::as_object_mut)
    {
        // A cluster-scoped object has no namespace; the server refuses one
        // that differs from the request's.
        metadata.remove("namespace");
    }
    let params = PatchParams::apply(FIELD_MANAGER).force().dry_run();
    let mut applied = match api.patch(&id.name, &params, &Patch::Apply(&written)).await {
        Ok(object) => typed(object, &resource),
        Err(::kube::Error::Api(status)) => {
            // A message about a Secret may quote its values.
            let message = if crate::secret::could_be_secret_kind(written.get("kind")) {
                crate::text::mask_quoted(&status.message)
            } else {
                status.message.clone()
            };
            reading.refusals.push(Refusal {
                object: id.to_string(),
                rejected: rejects(status.code, &status.message),
                message,
            });
            written
        }
        Err(e) => return Err(unreachable(connection, e)),
    };
    strip::server_fields(&mut applied);
    Ok((live, applied))
}

/// Whether a refused dry run means the apply itself fails: the object is
/// invalid (422), malformed (400), or an admission plugin or webhook
/// forbids it (403 for another reason than the user's own permission to
/// patch, which the authorizer words as `cannot patch resource`). A
/// missing namespace (404) or a conflict is not the object's fault.
pub fn rejects(code: u16, message: &str) -> bool {
    match code {
        400 | 422 => true,
        403 => !message.contains("cannot patch resource"),
        _ => false,
    }
}

/// `group/version`, or `version` for the core group.
fn api_version(id: &ObjectId) -> String {
    if id.group.is_empty() {
        id.version.clone()
    } else {
        format!("{}/{}", id.group, id.version)
    }
}

/// The API of the object's resource in its namespace (the default one for
/// a namespaced object written without), or cluster-wide.
fn api_for(
    connection: &Connection,
    resource: &ApiResource,
    capabilities: &ApiCapabilities,
    id: &ObjectId,
) -> Api<DynamicObject> {
    match capabilities.scope {
        Scope::Namespaced => Api::namespaced_with(
            connection.client.clone(),
            id.namespace
                .as_deref()
                .unwrap_or(crate::manifest::DEFAULT_NAMESPACE),
            resource,
        ),
        Scope::Cluster => Api::all_with(connection.client.clone(), resource),
    }
}

/// The live object, stripped; `None` when there is none, or (with a note)
/// when the server does not let the user read it.
async fn get(
    connection: &Connection,
    api: &Api<DynamicObject>,
    resource: &ApiResource,
    id: &ObjectId,
    reading: &mut Reading,
) -> Result<Option<Json>, ClusterError> {
    match api.get_opt(&id.name).await {
        Ok(object) => Ok(object.map(|object| {
            let mut json = typed(object, resource);
            strip::server_fields(&mut json);
            json
        })),
        Err(::kube::Error::Api(status)) => {
            reading.notes.push(format!(
                "{id}: cannot read the live object, compared as absent: {}",
                status.message
            ));
            Ok(None)
        }
        Err(e) => Err(unreachable(connection, e)),
    }
}

/// An object as JSON with its `apiVersion` and `kind`, which the items of
/// a list leave out.
fn typed(object: DynamicObject, resource: &ApiResource) -> Json {
    let mut json = serde_json::to_value(object).unwrap_or(Json::Null);
    if let Some(fields) = json.as_object_mut() {
        fields.insert("apiVersion".into(), resource.api_version.clone().into());
        fields.insert("kind".into(), resource.kind.clone().into());
    }
    json
}

/// The label selector of the release the local objects belong to: the
/// objects chartgen manages with one of the local side's instance values;
/// `None` when no local object carries both labels.
pub fn release_selector(local: &[Manifest]) -> Option<String> {
    let instances: BTreeSet<String> = local
        .iter()
        .filter_map(|m| {
            let labels = m.node.get("metadata")?.get("labels")?.to_json();
            if labels.get(MANAGED_BY.0)?.as_str()? != MANAGED_BY.1 {
                return None;
            }
            let instance = labels.get(INSTANCE)?.as_str()?.to_owned();
            crate::names::label_value(&instance).ok()?;
            (!instance.is_empty()).then_some(instance)
        })
        .collect();
    if instances.is_empty() {
        return None;
    }
    let values: Vec<&str> = instances.iter().map(String::as_str).collect();
    Some(format!(
        "{}={},{INSTANCE} in ({})",
        MANAGED_BY.0,
        MANAGED_BY.1,
        values.join(",")
    ))
}

/// Whether a controller made the object, not whoever applied the release:
/// it has an owner (a Deployment's ReplicaSets, which copy its pod
/// template's labels), or a Kubernetes controller's own `managed-by` label
/// (`endpoints.kubernetes.io/managed-by` on the Endpoints the endpoints
/// controller makes for a Service, copying its labels). GitOps tools leave
/// both out of a prune.
pub fn made_by_controller(metadata: &::kube::core::ObjectMeta) -> bool {
    let owned = metadata
        .owner_references
        .as_ref()
        .is_some_and(|owners| !owners.is_empty());
    let controller_label = metadata.labels.as_ref().is_some_and(|labels| {
        labels.keys().any(|key| {
            key != MANAGED_BY.0
                && (key.ends_with(".kubernetes.io/managed-by")
                    || key.ends_with(".k8s.io/managed-by"))
        })
    });
    owned || controller_label
}

/// The release's objects in the cluster that the local side lacks: every
/// served, listable resource type listed with [`release_selector`];
/// objects a controller made ([`made_by_controller`]) left out.
async fn release_objects(
    connection: &Connection,
    discovery: &Discovery,
    local: &[Manifest],
    notes: &mut Vec<String>,
) -> Result<Vec<Json>, ClusterError> {
    let Some(selector) = release_selector(local) else {
        notes.push(format!(
            "no local object carries {}={} and {INSTANCE}: objects removed from the release are not looked for",
            MANAGED_BY.0, MANAGED_BY.1
        ));
        return Ok(Vec::new());
    };
    let known: BTreeSet<(&str, &str, Option<&str>, &str)> = local
        .iter()
        .map(|m| {
            let id = &m.id;
            (
                id.group.as_str(),
                id.kind.as_str(),
                id.namespace.as_deref(),
                id.name.as_str(),
            )
        })
        .collect();
    // A cluster-scoped custom resource whose CRD the local side lacks was
    // placed in `default` by the reader: match those by name alone.
    let known_anywhere: BTreeSet<(&str, &str, &str)> =
        known.iter().map(|(g, k, _, n)| (*g, *k, *n)).collect();
    let mut seen = BTreeSet::new();
    let mut found = Vec::new();
    let params = ListParams::default().labels(&selector);
    for group in discovery.groups() {
        for (resource, capabilities) in group.recommended_resources() {
            if !capabilities.supports_operation(verbs::LIST) {
                continue;
            }
            let api: Api<DynamicObject> = Api::all_with(connection.client.clone(), &resource);
            let list = match api.list(&params).await {
                Ok(list) => list,
                Err(::kube::Error::Api(status)) => {
                    notes.push(format!(
                        "cannot list {} ({}): removed objects of that kind are not looked for",
                        resource.plural, status.message
                    ));
                    continue;
                }
                Err(e) => return Err(unreachable(connection, e)),
            };
            for object in list.items {
                let owned = made_by_controller(&object.metadata);
                // The same object served by two groups (events) counts once.
                let uid = object.metadata.uid.clone().unwrap_or_default();
                let name = object.metadata.name.clone().unwrap_or_default();
                let namespace = object.metadata.namespace.clone();
                let key = (
                    resource.group.as_str(),
                    resource.kind.as_str(),
                    namespace.as_deref(),
                    name.as_str(),
                );
                let local = match capabilities.scope {
                    Scope::Namespaced => known.contains(&key),
                    Scope::Cluster => known_anywhere.contains(&(key.0, key.1, key.3)),
                };
                if owned || local || (!uid.is_empty() && !seen.insert(uid)) {
                    continue;
                }
                let mut json = typed(object, &resource);
                strip::server_fields(&mut json);
                found.push(json);
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(json: serde_json::Value) -> ::kube::core::ObjectMeta {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn what_a_controller_made_is_not_the_release() {
        let applied = metadata(serde_json::json!({
            "name": "gateway",
            "labels": {"app.kubernetes.io/managed-by": "chartgen", "app.kubernetes.io/instance": "buildkit"}
        }));
        assert!(!made_by_controller(&applied));
        let replica_set = metadata(serde_json::json!({
            "name": "gateway-5d4f",
            "labels": {"app.kubernetes.io/managed-by": "chartgen"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "gateway", "uid": "1"}]
        }));
        assert!(made_by_controller(&replica_set));
        let endpoints = metadata(serde_json::json!({
            "name": "gateway",
            "labels": {
                "app.kubernetes.io/managed-by": "chartgen",
                "endpoints.kubernetes.io/managed-by": "endpoint-controller"
            }
        }));
        assert!(made_by_controller(&endpoints));
        // Another tool's own managed-by label is no Kubernetes controller's.
        let other = metadata(serde_json::json!({
            "name": "x",
            "labels": {"example.com/managed-by": "someone"}
        }));
        assert!(!made_by_controller(&other));
    }
}
