//! The requests of a live diff, read-only: discovery, GET, LIST, and a
//! server-side apply with `dryRun=All`, which the server answers with the
//! object it would store and stores nothing.

use std::collections::BTreeSet;

use ::kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams};
use ::kube::core::GroupVersionKind;
use ::kube::discovery::{ApiCapabilities, ApiResource, Discovery, Scope, verbs};
use serde_json::Value as Json;

use super::connect::Connection;
use super::{ClusterError, Manager, Refusal, strip};
use crate::manifest::{Manifest, ObjectId};

/// The label naming the tool that manages an object; its value is the
/// manager [`crate::cluster::read`] is given.
pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";

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

/// Reads the cluster for the local objects `local`, which `manager` (a
/// program's name) manages: the dry runs apply as that field manager, and
/// the release's objects are those labelled [`MANAGED_BY`] it.
pub async fn read(
    connection: &Connection,
    manager: Manager,
    local: &[Manifest],
) -> Result<Reading, ClusterError> {
    let discovery = discover(connection).await?;
    let mut reading = Reading {
        live: Vec::new(),
        applied: Vec::with_capacity(local.len()),
        refusals: Vec::new(),
        notes: Vec::new(),
    };
    let jobs = local
        .iter()
        .map(|manifest| run(job(connection, &discovery, manifest), manager))
        .collect();
    for found in bounded(jobs).await {
        let found = found.map_err(|e| unreachable(connection, e))?;
        reading.live.extend(found.live);
        reading.applied.push(found.applied);
        reading.refusals.extend(found.refusal);
        reading.notes.extend(found.note);
    }
    let extra =
        release_objects(connection, &discovery, (manager, local), &mut reading.notes).await?;
    reading.live.extend(extra);
    Ok(reading)
}

/// How many requests run at once: a remote cluster answers each after a
/// round trip, and one at a time would wait for every one in turn.
const IN_FLIGHT: usize = 8;

/// Runs `tasks` on the runtime, at most [`IN_FLIGHT`] at once; their
/// results in the order given.
async fn bounded<T, F>(tasks: Vec<F>) -> Vec<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let mut results: Vec<Option<T>> = std::iter::repeat_with(|| None).take(tasks.len()).collect();
    let mut running = tokio::task::JoinSet::new();
    let mut pending = tasks.into_iter().enumerate();
    loop {
        while running.len() < IN_FLIGHT {
            let Some((index, task)) = pending.next() else {
                break;
            };
            running.spawn(async move { (index, task.await) });
        }
        match running.join_next().await {
            Some(Ok((index, result))) => results[index] = Some(result),
            Some(Err(error)) => std::panic::resume_unwind(error.into_panic()),
            None => break,
        }
    }
    results.into_iter().flatten().collect()
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

/// One local object's requests, owned so that it runs beside others.
struct Job {
    id: ObjectId,
    /// The object as written, without a namespace for a cluster-scoped
    /// type (the server refuses one that differs from the request's).
    written: Json,
    /// The API to read the live object by (its type at the object's
    /// version, or, where that version is not served, at its group's
    /// preferred one), and that type.
    read: Option<(Api<DynamicObject>, ApiResource)>,
    /// Where the object's version is not served: why it is not dry-run.
    unserved: Option<Refusal>,
}

/// What one [`Job`] fetched: the live object, the dry run's answer.
struct Fetched {
    live: Option<Json>,
    applied: Json,
    refusal: Option<Refusal>,
    note: Option<String>,
}

/// The requests for one local object, resolved against discovery.
fn job(connection: &Connection, discovery: &Discovery, manifest: &Manifest) -> Job {
    let id = manifest.id.clone();
    let mut written = manifest.json();
    let served = discovery.resolve_gvk(&GroupVersionKind::gvk(&id.group, &id.version, &id.kind));
    let unserved = served.is_none().then(|| Refusal {
        object: id.to_string(),
        message: format!(
            "the server serves no {} {} (is its CustomResourceDefinition installed?)",
            api_version(&id),
            id.kind
        ),
        rejected: false,
    });
    // Where the version is not served, the kind may be under another one.
    let resolved = served.or_else(|| {
        discovery
            .get(&id.group)
            .and_then(|group| group.recommended_kind(&id.kind))
    });
    if resolved
        .as_ref()
        .is_some_and(|(_, capabilities)| capabilities.scope == Scope::Cluster)
        && let Some(metadata) = written.get_mut("metadata").and_then(Json::as_object_mut)
    {
        metadata.remove("namespace");
    }
    let read = resolved.map(|(resource, capabilities)| {
        (api_for(connection, &resource, &capabilities, &id), resource)
    });
    Job {
        id,
        written,
        read,
        unserved,
    }
}

/// The live object and the dry run's answer for one local object (the
/// local object itself where the server refused, with a [`Refusal`]);
/// an error only for a failure that is no answer about the object.
/// `manager` is the dry run's field manager.
async fn run(job: Job, manager: Manager) -> Result<Fetched, ::kube::Error> {
    let Job {
        id,
        mut written,
        read,
        unserved,
    } = job;
    let mut note = None;
    let live = match &read {
        Some((api, resource)) => match api.get_opt(&id.name).await {
            Ok(object) => object.map(|object| {
                let mut json = typed(object, resource);
                strip::server_fields(&mut json);
                json
            }),
            Err(::kube::Error::Api(status)) => {
                note = Some(format!(
                    "{id}: cannot read the live object, compared as absent: {}",
                    status.message
                ));
                None
            }
            Err(e) => return Err(e),
        },
        None => None,
    };
    let (Some((api, resource)), None) = (&read, &unserved) else {
        strip::server_fields(&mut written);
        return Ok(Fetched {
            live,
            applied: written,
            refusal: unserved,
            note,
        });
    };
    let params = PatchParams::apply(manager.name()).force().dry_run();
    let (mut applied, refusal) = match api.patch(&id.name, &params, &Patch::Apply(&written)).await {
        Ok(object) => (typed(object, resource), None),
        Err(::kube::Error::Api(status)) => {
            // A message about a Secret may quote its values.
            let message = if crate::secret::could_be_secret_kind(written.get("kind")) {
                crate::text::mask_quoted(&status.message)
            } else {
                status.message.clone()
            };
            let refusal = Refusal {
                object: id.to_string(),
                rejected: rejects(status.code, &status.message),
                message,
            };
            (written, Some(refusal))
        }
        Err(e) => return Err(e),
    };
    strip::server_fields(&mut applied);
    Ok(Fetched {
        live,
        applied,
        refusal,
        note,
    })
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
/// objects `manager` manages with one of the local side's instance values;
/// `None` when no local object carries both labels.
pub fn release_selector(local: &[Manifest], manager: Manager) -> Option<String> {
    let manager = manager.name();
    let instances: BTreeSet<String> = local
        .iter()
        .filter_map(|m| {
            let labels = m.node().get("metadata")?.get("labels")?.to_json();
            if labels.get(MANAGED_BY)?.as_str()? != manager {
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
        "{MANAGED_BY}={manager},{INSTANCE} in ({})",
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
            key != MANAGED_BY
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
    (manager, local): (Manager, &[Manifest]),
    notes: &mut Vec<String>,
) -> Result<Vec<Json>, ClusterError> {
    let Some(selector) = release_selector(local, manager) else {
        notes.push(format!(
            "no local object carries {MANAGED_BY}={} and {INSTANCE}: objects removed from the release are not looked for",
            manager.name()
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
    let lists = discovery
        .groups()
        .flat_map(|group| group.recommended_resources())
        .filter(|(_, capabilities)| capabilities.supports_operation(verbs::LIST))
        .map(|(resource, capabilities)| {
            let api: Api<DynamicObject> = Api::all_with(connection.client.clone(), &resource);
            let params = params.clone();
            async move { (resource, capabilities, api.list(&params).await) }
        })
        .collect();
    for (resource, capabilities, list) in bounded(lists).await {
        let list = match list {
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
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(json: serde_json::Value) -> ::kube::core::ObjectMeta {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn requests_run_side_by_side_bounded_and_answer_in_order() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let tasks: Vec<_> = (0..20u64)
            .map(|i| {
                let (now, most) = (now.clone(), most.clone());
                async move {
                    let running = now.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(running, Ordering::SeqCst);
                    // Later tasks finish first.
                    tokio::time::sleep(std::time::Duration::from_millis(20 - i)).await;
                    now.fetch_sub(1, Ordering::SeqCst);
                    i
                }
            })
            .collect();
        let results = runtime.block_on(bounded(tasks));
        assert_eq!(results, (0..20).collect::<Vec<_>>());
        assert_eq!(most.load(Ordering::SeqCst), IN_FLIGHT);
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
