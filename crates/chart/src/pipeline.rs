//! The whole render, stage after stage (the values loaded, the plan, the
//! templates, the parse back, the `extraObjects` placed), and the checks
//! of a render: every rule of `check` on the release and the Kata bundle,
//! alone and together.

use std::collections::HashSet;

use crate::check;
use crate::error::Error;
use crate::model::{Values, extra_objects};
use crate::plan::Plan;
use crate::render;
use crate::values::{self, Inputs, Loaded};
use kubernetes::diagnostic::Diagnostic;
use kubernetes::diagnostic::Problem;
use kubernetes::emit;
use kubernetes::kube::{self, KubeSchemas};
use kubernetes::location::KeyPath;
use kubernetes::location::{Origin, Source};
use kubernetes::manifest::{self, Manifest};
use kubernetes::withhold::Withheld;
use kubernetes::yaml::{self, Node};
use serde_json::Value as Json;

/// The separately applied parts of an environment (ADR-0006): the release
/// targets the operator and builds namespaces; the Kata node plumbing
/// (system namespace, kata-deploy, vCPU tuning, RuntimeClass) is applied
/// with the Kata install, out-of-band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bundle {
    /// The release: the operator and builds namespaces and cluster objects.
    Release,
    /// The Kata node plumbing.
    Kata,
}

impl Bundle {
    /// Both bundles, in apply order.
    pub const ALL: [Bundle; 2] = [Bundle::Release, Bundle::Kata];

    /// Its name, as `--bundle` takes it and as its GitOps directory is called.
    pub fn name(self) -> &'static str {
        match self {
            Bundle::Release => "release",
            Bundle::Kata => "kata",
        }
    }
}

/// Everything one render of an environment produces.
#[derive(Debug)]
pub struct Output {
    /// The release's objects: the chart's in install order, then the
    /// `extraObjects` in the order written (their count is
    /// [`Output::extra`]).
    pub release: Vec<Manifest>,
    /// How many of the release's last objects are `extraObjects`.
    pub extra: usize,
    /// The Kata bundle's objects, in install order; empty when the
    /// environment does not run Kata.
    pub kata: Vec<Manifest>,
    /// The Kyverno exemptions the environment's namespaces need (the system
    /// namespace's whenever it runs Kata), as YAML for the platform's
    /// Kyverno values.
    pub exemptions: String,
    /// The same artifact as a document, for the checks.
    pub exemptions_document: Node,
    /// The values the set flags wrote, which no finding about the render
    /// may quote ([`crate::values::unquote_set_values`]); none for values
    /// rendered without their document.
    pub withheld: Withheld,
}

impl Output {
    /// The objects of `bundle`.
    pub fn bundle(&self, bundle: Bundle) -> &[Manifest] {
        match bundle {
            Bundle::Release => &self.release,
            Bundle::Kata => &self.kata,
        }
    }

    /// The bundles this environment has: the release, and Kata when it runs Kata.
    pub fn bundles(&self) -> Vec<Bundle> {
        Bundle::ALL
            .into_iter()
            .filter(|b| !self.bundle(*b).is_empty())
            .collect()
    }

    /// The objects of `bundles` together, in install order.
    pub fn manifests(&self, bundles: &[Bundle]) -> Vec<Manifest> {
        self.in_order(bundles).into_iter().cloned().collect()
    }

    /// The chart's own objects of `bundle`, in install order.
    pub fn chart_objects(&self, bundle: Bundle) -> &[Manifest] {
        match bundle {
            Bundle::Release => &self.release[..self.release.len() - self.extra],
            Bundle::Kata => &self.kata,
        }
    }

    /// The `extraObjects`, in the order written.
    pub fn extra_objects(&self) -> &[Manifest] {
        &self.release[self.release.len() - self.extra..]
    }

    /// The objects of `bundles` together, in install order, borrowed: the
    /// chart's sorted by Helm's install order, then the `extraObjects`
    /// (release) as written.
    pub fn in_order(&self, bundles: &[Bundle]) -> Vec<&Manifest> {
        let mut all: Vec<&Manifest> = (bundles.iter())
            .flat_map(|b| self.chart_objects(*b))
            .collect();
        manifest::sort_in_install_order(&mut all, |m| m);
        if bundles.contains(&Bundle::Release) {
            all.extend(self.extra_objects());
        }
        all
    }
}

/// Renders the chart for validated `values`: both bundles and the exemptions.
/// The `extraObjects` keep no positions (findings about them name no
/// values line); [`render_loaded`] keeps them.
///
/// Each render stops at [`render::OUTPUT_BUDGET`]; the error then names
/// the values that multiply.
pub fn render(values: &Values) -> Result<Output, Error> {
    render_with(values, None, Some(&[]), render::templates()?)
}

/// [`render()`] of loaded values: the `extraObjects` keep the positions of
/// the values files (a finding about one points at its line), and a custom
/// kind's scope is also read from `crds` (`--crd`).
pub fn render_loaded(loaded: &Loaded, crds: &[Manifest]) -> Result<Output, Error> {
    render_with(
        &loaded.values,
        Some(&loaded.document),
        Some(crds),
        render::templates()?,
    )
}

/// What `validate` asks of loaded values: that they render, as
/// [`render_loaded`] without `--crd`, so that what `render` would refuse
/// of them (an `extraObjects` entry the chart renders itself, values
/// past the output budget) is refused there too. A custom kind's scope is
/// then unknown: an entry of one without `metadata.namespace` is left to
/// `render`, whose `--crd` may say it is cluster-scoped.
pub fn render_unscoped(loaded: &Loaded) -> Result<Output, Error> {
    render_with(
        &loaded.values,
        Some(&loaded.document),
        None,
        render::templates()?,
    )
}

/// [`render_loaded`] of the values `inputs` name, as `render` runs it.
/// The templates do not depend on the values: with a second core they
/// are compiled there while the values load, and then what the checks
/// need to compile the BuildProject CRD's schema is built there while the
/// chart renders (`kube::conformance::prepare`). Only the built-in
/// templates: a `CHARTGEN_TEMPLATES` folder is read after the values, as
/// before, so its note and errors come in the same order. The values are
/// freed once rendered: the checks' copy of the objects makes the peak of
/// a large render, and the values are no part of it.
pub fn load_and_render(inputs: &Inputs, crds: &[Manifest]) -> Result<Output, Error> {
    // The values wait for nothing the templates' worker makes, but the
    // render waits for its templates: the two must run at once.
    let overlap = render::templates_dir().is_none() && kubernetes::overlapping();
    if !overlap {
        let loaded = values::load(inputs)?;
        let templates = render::templates()?;
        return render_with(
            &loaded.values,
            Some(&loaded.document),
            Some(crds),
            templates,
        );
    }
    let (send, compiled) = std::sync::mpsc::sync_channel(1);
    let worker = move || {
        // The templates first: the render waits for them.
        let _ = send.send(render::templates());
        kube::conformance::prepare();
    };
    let here = || {
        let loaded = values::load(inputs)?;
        // Nothing sent: the worker panicked, and `beside` raises that
        // panic (the first) once this one ends.
        let templates = compiled
            .recv()
            .expect("the templates' worker sends before it ends");
        render_with(
            &loaded.values,
            Some(&loaded.document),
            Some(crds),
            templates?,
        )
    };
    kubernetes::beside(here, worker).0
}

fn render_with(
    values: &Values,
    document: Option<&Node>,
    crds: Option<&[Manifest]>,
    templates: render::Templates,
) -> Result<Output, Error> {
    // Every BuildProject carries the common labels and annotations: when
    // that alone passes the budget, say so before rendering anything.
    let carried = carried_by_every_object(values);
    if carried.saturating_mul(values.projects.len()) > render::OUTPUT_BUDGET {
        return Err(budget_error(
            "the BuildProjects alone would pass it",
            values,
        ));
    }
    // The values as the built-in templates read them: without the
    // BuildProjects, which the writer renders (`render::bundle_context`).
    let shown = templates.builtin.then(|| values.without_projects());
    let mut plan = Plan::new(values);
    let context = render::bundle_context(&mut plan, shown.as_ref());
    let budget = |error| over_budget(error, values);
    let bundle = |names| render::render_bundle(&templates, names, &plan, &context);
    let release = manifest::collect_outputs(bundle(&templates.objects).map_err(budget)?)?;
    let kata = manifest::collect_outputs(bundle(&templates.kata).map_err(budget)?)?;
    let mut release = release;
    let extras = extra_objects(values, document, crds, &release, &kata)?;
    let extra = extras.len();
    release.extend(extras);
    let (exemptions, exemptions_document) = canonical(
        render::EXEMPTIONS_TEMPLATE,
        &render::render_template(&templates.env, render::EXEMPTIONS_TEMPLATE, &context)
            .map_err(budget)?,
    )?;
    Ok(Output {
        release,
        extra,
        kata,
        exemptions,
        exemptions_document,
        withheld: document.map(crate::values::withheld).unwrap_or_default(),
    })
}

/// The `extraObjects` as manifests, in the order written: each node as the
/// values hold it (from `document`, with its positions, when given), not
/// templated, so written as it is (no commonLabels or commonAnnotations).
///
/// Where each lives is decided, never guessed: a cluster-scoped kind (a
/// built-in one, or a custom kind whose CRD, among the `extraObjects` or
/// in `crds`, says `scope: Cluster`) has no namespace; any other object
/// needs `metadata.namespace`, as chartgen has no release namespace to put
/// it in (a `kubectl apply` would put it in `default`). An object the
/// chart renders too is refused: the two would fight over it. Without
/// `crds` (`validate`, which takes no `--crd`) a custom kind's scope is
/// unknown: an entry of one without a namespace is neither refused nor
/// compared.
pub fn extra_objects(
    values: &Values,
    document: Option<&Node>,
    crds: Option<&[Manifest]>,
    release: &[Manifest],
    kata: &[Manifest],
) -> Result<Vec<Manifest>, Error> {
    if values.extra_objects.is_empty() {
        // Nothing to add, nor to compare with the chart's objects.
        return Ok(Vec::new());
    }
    let mut manifests = Vec::new();
    for (i, object) in values.extra_objects.iter().enumerate() {
        let at = KeyPath::root().key(extra_objects::KEY).index(i);
        let node = document
            .and_then(|d| d.at(&at))
            .cloned()
            .unwrap_or_else(|| Node::from_json(&Json::Object(object.0.clone()), &Origin::Default));
        let id = manifest::identify(&node).map_err(|why| {
            let mut problems = vec![Problem::new(
                node.origin.clone(),
                at.clone(),
                format!(
                    "{}[{i}] is no Kubernetes object: an object {why}",
                    extra_objects::KEY
                ),
            )];
            if let Some(document) = document {
                crate::values::unquote_set_values(&mut problems, document);
            }
            Error::InvalidValues { problems }
        })?;
        manifests.push(Manifest::new(id, node));
    }
    let cluster_scoped =
        manifest::cluster_scoped_custom_kinds(crds.unwrap_or_default().iter().chain(&manifests));
    // Without `--crd`, the custom kinds known to be namespaced: those
    // chartgen holds schemas for (all namespaced), and those a CRD among
    // the entries declares so.
    let schemas = crds
        .is_none()
        .then(|| KubeSchemas::load(kube::DEFAULT_VERSION).ok())
        .flatten();
    let declared: HashSet<(String, String)> = (manifests.iter())
        .filter(|m| m.id.is_crd())
        .filter_map(|m| {
            let json = m.json();
            let spec = json.get("spec")?;
            (spec.get("scope")? == "Namespaced").then_some(())?;
            Some((
                spec.get("group")?.as_str()?.to_owned(),
                spec.get("names")?.get("kind")?.as_str()?.to_owned(),
            ))
        })
        .collect();
    let namespaced = |manifest: &Manifest| {
        let api_version = manifest.json()["apiVersion"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        declared.contains(&(manifest.id.group.clone(), manifest.id.kind.clone()))
            || schemas
                .as_ref()
                .is_some_and(|s| s.root(&api_version, &manifest.id.kind).is_some())
    };
    let chart: HashSet<(&str, &str, Option<&str>, &str)> = (release.iter().chain(kata))
        .map(|m| identity(&m.id))
        .collect();
    let mut problems = Vec::new();
    for (i, manifest) in manifests.iter_mut().enumerate() {
        let at = KeyPath::root().key(extra_objects::KEY).index(i);
        let custom_cluster =
            cluster_scoped.contains(&(manifest.id.group.clone(), manifest.id.kind.clone()));
        if custom_cluster {
            manifest.id.namespace = None;
        }
        let id = &manifest.id;
        let unplaced =
            !custom_cluster && id.namespace.is_none() && !manifest::is_cluster_scoped(&id.kind);
        if unplaced
            && crds.is_none()
            && !kube::is_kubernetes_group(&id.group)
            && !namespaced(manifest)
        {
            // Its CRD, which `render --crd` reads, may say cluster-scoped.
            continue;
        }
        if unplaced {
            let metadata = at.key("metadata");
            let origin = manifest
                .node()
                .nearest(&KeyPath::root().key("metadata"))
                .origin
                .clone();
            let mut problem = Problem::new(
                origin,
                metadata.key("namespace"),
                format!(
                    "{}[{i}] ({} `{}`) has no metadata.namespace: chartgen has no release namespace to put a namespaced object in, and `kubectl apply` would put it in `default`",
                    extra_objects::KEY,
                    id.kind,
                    id.name
                ),
            );
            problem.hint = Some(format!(
                "write the namespace it belongs in (the operator's is `{}`, the builds' `{}`); a custom kind that is cluster-scoped needs its CRD (--crd) for chartgen to know",
                values.namespaces.operator.as_str(),
                values.namespaces.builds.as_str()
            ));
            problems.push(problem);
            continue;
        }
        if chart.contains(&identity(id)) {
            problems.push(Problem::new(
                manifest.node().nearest(&KeyPath::root().key("metadata").key("name")).origin.clone(),
                at.key("metadata").key("name"),
                format!(
                    "{}[{i}] is {id}, which the chart renders itself: the two would replace each other",
                    extra_objects::KEY
                ),
            ));
        }
    }
    if problems.is_empty() {
        Ok(manifests)
    } else {
        if let Some(document) = document {
            crate::values::unquote_set_values(&mut problems, document);
        }
        Err(Error::InvalidValues { problems })
    }
}

/// What identifies an object in a cluster, the version aside (one object
/// is served at each version of its group).
fn identity(id: &manifest::ObjectId) -> (&str, &str, Option<&str>, &str) {
    (&id.group, &id.kind, id.namespace.as_deref(), &id.name)
}

/// A render that stopped at the output budget, said in terms of the values
/// that multiply: the labels and annotations every object carries, and the
/// projects that each add objects.
fn over_budget(error: Error, values: &Values) -> Error {
    match &error {
        Error::Template { template, line, .. } if render::output_budget_spent() => {
            let at = line.map_or(String::new(), |l| format!(":{l}"));
            budget_error(&format!("stopped at templates/{template}{at}"), values)
        }
        _ => error,
    }
}

/// Bytes of the common labels and annotations, about as the output writes
/// them (key, value, quotes and separators).
fn carried_by_every_object(values: &Values) -> usize {
    [&values.common_labels, &values.common_annotations]
        .into_iter()
        .flatten()
        .map(|(k, v)| k.len() + v.len() + 6)
        .sum()
}

fn budget_error(what: &str, values: &Values) -> Error {
    let size = |map: &std::collections::BTreeMap<String, String>| {
        map.iter()
            .map(|(k, v)| k.len() + v.len() + 6)
            .sum::<usize>()
    };
    let mut keys = [
        ("commonLabels", size(&values.common_labels)),
        ("commonAnnotations", size(&values.common_annotations)),
    ];
    keys.sort_by_key(|(_, bytes)| std::cmp::Reverse(*bytes));
    let [(key, bytes), (other, other_bytes)] = keys;
    Error::usage(format!(
        "the values would render more than {} MiB, the output budget ({what}): `{key}` ({bytes} bytes) and `{other}` ({other_bytes} bytes) are written into every object, and `projects` adds {} objects; keep what every object carries small",
        render::OUTPUT_BUDGET >> 20,
        values.projects.len()
    ))
}

/// Runs every check of `chartgen check` on a fresh render, against the
/// default Kubernetes version: on the release alone, on the Kata bundle
/// alone and on both together, as each may be applied.
pub fn check(output: &Output) -> Vec<Diagnostic> {
    check_at(output, kube::DEFAULT_VERSION)
}

/// [`check()`] against the schemas of Kubernetes `version` (one of
/// [`kube::VERSIONS`]; another is read as the default).
pub fn check_at(output: &Output, version: &str) -> Vec<Diagnostic> {
    check_with(output, version, &[])
}

/// [`check_at`] with CustomResourceDefinitions given besides the render
/// (`--crd`): the schemas of the custom kinds of the `extraObjects`.
pub fn check_with(output: &Output, version: &str, crds: &[Manifest]) -> Vec<Diagnostic> {
    check_leaving(output, (version, false), crds).0
}

/// [`check_with`], handing back the objects' JSON copy
/// ([`check::Copies`]). With a second core, at any size, the worker makes
/// half of that copy and checks the bundles alone.
///
/// `version` is the Kubernetes version and whether it was chosen
/// ([`check::Options::only_version`]).
pub fn check_leaving(
    output: &Output,
    version: (&str, bool),
    crds: &[Manifest],
) -> (Vec<Diagnostic>, check::Copies) {
    check_on(output, version, crds, kubernetes::second_core())
}

/// [`check_leaving`], the second half of the JSON copy made and the
/// bundles alone checked on the worker (`kubernetes::beside`) when
/// `beside` (at prod that core is idle by then: BENCHMARKS.md).
fn check_on(
    output: &Output,
    (version, only_version): (&str, bool),
    crds: &[Manifest],
    beside: bool,
) -> (Vec<Diagnostic>, check::Copies) {
    // Baked into the binary: loading is a lookup.
    let schemas = KubeSchemas::load(version)
        .or_else(|_| KubeSchemas::load(kube::DEFAULT_VERSION))
        .expect("the default version is vendored");
    let options = check::Options {
        schemas: &schemas,
        extra_crds: crds,
        only_version,
    };
    // Each object converted once (through its writer: `Manifest::json`);
    // the runs below borrow it. An `extraObjects` entry is marked: they
    // follow the chart's objects.
    let extra_from = output.release.len() - output.extra;
    let chosen: Vec<(Bundle, bool, &Manifest)> = Bundle::ALL
        .iter()
        .flat_map(|b| {
            (output.bundle(*b).iter().enumerate())
                .map(move |(i, m)| (*b, *b == Bundle::Release && i >= extra_from, m))
        })
        .collect();
    let json: Vec<(Bundle, bool, &Manifest, serde_json::Value)> =
        split_map(&chosen, beside, |&(b, extra, m)| (b, extra, m, m.json()));
    let findings = check_copies(&json, output, &options, beside);
    let copies = check::Copies::of(json.into_iter().map(|(.., copy)| copy).collect());
    (findings, copies)
}

/// The checks of [`check_leaving`] on the objects and their copies.
fn check_copies(
    json: &[(Bundle, bool, &Manifest, Json)],
    output: &Output,
    options: &check::Options<'_>,
    beside: bool,
) -> Vec<Diagnostic> {
    let artifact = std::slice::from_ref(&output.exemptions_document);
    let run = |bundles: &[Bundle], schema: Option<&check::Options<'_>>| {
        // Each object with its install rank, found once (a search of the
        // kinds) rather than at each comparison.
        let mut chosen: Vec<(bool, usize, &Manifest, &serde_json::Value)> = json
            .iter()
            .filter(|(b, ..)| bundles.contains(b))
            .map(|(_, extra, m, j)| (*extra, manifest::install_rank(&m.id.kind), *m, j))
            .collect();
        // In install order, as `Output::in_order` gives them: the chart's
        // objects sorted, then the extra objects as written (a stable sort).
        // The chart's objects compare as `manifest::install_order` compares
        // them (rank, kind, namespace, name), the rank read from above.
        fn key(rank: usize, m: &Manifest) -> (usize, &String, &Option<String>, &String) {
            (rank, &m.id.kind, &m.id.namespace, &m.id.name)
        }
        chosen.sort_by(|(a_extra, a_rank, a, _), (b_extra, b_rank, b, _)| {
            a_extra.cmp(b_extra).then_with(|| match a_extra {
                false => key(*a_rank, a).cmp(&key(*b_rank, b)),
                true => std::cmp::Ordering::Equal,
            })
        });
        let (manifests, objects): (Vec<&Manifest>, Vec<&serde_json::Value>) =
            chosen.into_iter().map(|(_, _, m, j)| (m, j)).unzip();
        check::run_borrowed(&manifests, &objects, artifact, schema).findings
    };
    if output.kata.is_empty() {
        return run(&[Bundle::Release], Some(options));
    }
    // Every object's schema once, with both bundles; how the objects relate
    // for each bundle as it may be applied: alone, and both together. The
    // runs only read the objects: `beside`, the bundles alone are checked
    // on the worker.
    let alone = || Bundle::ALL.map(|bundle| run(&[bundle], None));
    let (mut findings, alone) = if beside {
        kubernetes::beside(|| run(&Bundle::ALL, Some(options)), alone)
    } else {
        (run(&Bundle::ALL, Some(options)), alone())
    };
    for finding in alone.into_iter().flatten() {
        if !findings.contains(&finding) {
            findings.push(finding);
        }
    }
    findings
}

/// `items` mapped by `f`, in order; the second half on the worker when
/// `parallel`.
fn split_map<T: Sync, U: Send>(items: &[T], parallel: bool, f: impl Fn(&T) -> U + Sync) -> Vec<U> {
    if !parallel {
        return items.iter().map(f).collect();
    }
    let (first, second) = items.split_at(items.len() / 2);
    let (mut all, second) = kubernetes::beside(
        || first.iter().map(&f).collect::<Vec<U>>(),
        || second.iter().map(&f).collect::<Vec<U>>(),
    );
    all.extend(second);
    all
}

/// A rendered artifact written canonically: its leading comment lines, then
/// its one document as [`emit::block`] writes it; and that document.
fn canonical(template: &str, text: &str) -> Result<(String, Node), Error> {
    let header: String = text
        .lines()
        .take_while(|line| line.starts_with('#'))
        .map(|line| format!("{line}\n"))
        .collect();
    let source = Source::file(format!("templates/{template}"), text);
    let document = yaml::parse_document(&source, manifest::LIMITS)
        .map_err(|e| kubernetes::error::Error::Rendered {
            template: template.to_owned(),
            problem: format!("invalid YAML: {}", e.message),
        })?
        .ok_or_else(|| kubernetes::error::Error::Rendered {
            template: template.to_owned(),
            problem: "nothing".to_owned(),
        })?;
    Ok((header + &emit::block(&document), document))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubernetes::yaml::Value;

    #[test]
    fn a_fresh_render_passes_every_check() {
        let mut values = Values::default();
        values.kata.enabled = true;
        let output = render(&values).unwrap();
        assert!(!output.kata.is_empty());
        assert_eq!(check(&output), vec![]);
    }

    fn extra(json: serde_json::Value) -> crate::model::extra_objects::ExtraObject {
        let serde_json::Value::Object(map) = json else {
            unreachable!()
        };
        crate::model::extra_objects::ExtraObject(map)
    }

    #[test]
    fn extra_objects_follow_the_charts_objects_in_the_order_written_and_pass_check() {
        let mut values = Values::default();
        values.kata.enabled = true;
        // Helm's order would put the PriorityClass and the Namespace first.
        values.extra_objects = vec![
            extra(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "settings", "namespace": "buildkit-builds"}})),
            extra(serde_json::json!({"apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass", "metadata": {"name": "builds"}, "value": 10})),
            extra(serde_json::json!({"apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": "tools"}})),
        ];
        let output = render(&values).unwrap();
        assert_eq!(output.extra, 3);
        let names = |objects: Vec<&Manifest>| -> Vec<String> {
            objects.iter().map(|m| m.id.to_string()).collect()
        };
        let expected = [
            "ConfigMap buildkit-builds/settings",
            "PriorityClass builds",
            "Namespace tools",
        ];
        for bundles in [&[Bundle::Release][..], &Bundle::ALL] {
            let all = names(output.in_order(bundles));
            assert_eq!(all[all.len() - 3..], expected, "{bundles:?}");
            // The chart's own objects keep Helm's install order.
            let chart = &output.in_order(bundles)[..all.len() - 3];
            assert!(chart.is_sorted_by(|a, b| manifest::install_order(a, b).is_le()));
        }
        assert!(
            names(output.in_order(&[Bundle::Kata]))
                .iter()
                .all(|n| !expected.contains(&n.as_str()))
        );
        assert_eq!(check(&output), vec![]);
    }

    #[test]
    fn an_extra_object_that_breaks_an_adr_fails_the_render_check() {
        let values = Values {
            extra_objects: vec![extra(serde_json::json!({
                "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                "metadata": {"name": "events", "namespace": "buildkit-operator"},
                "rules": [{"apiGroups": [""], "resources": ["events"], "verbs": ["create"]}],
            }))],
            ..Values::default()
        };
        let findings = check(&render(&values).unwrap());
        assert!(
            findings.iter().any(|f| f.id()
                == Some(check::rules::Invariant::EventsClusterWide.id())
                && f.object() == Some("Role buildkit-operator/events")),
            "{findings:#?}"
        );
    }

    #[test]
    fn the_buildprojects_written_directly_are_those_the_engine_renders() {
        let mut values = Values {
            common_annotations: [("example.com/team".into(), "builds".into())].into(),
            ..Values::default()
        };
        values.kata.enabled = true;
        // Past render::projects' split: written on two threads.
        values.projects = (0..250)
            .map(|i| crate::model::Project {
                name: serde_json::from_value(serde_json::json!(format!("p{i:03}"))).unwrap(),
                repository: format!("https://git.example.com/p{i}.git"),
                trusted: i % 3 == 0,
                resources: Default::default(),
            })
            .collect();
        let render_by = |builtin: bool| {
            let mut templates = render::templates().unwrap();
            templates.builtin = builtin;
            render_with(&values, None, Some(&[]), templates).unwrap()
        };
        let (direct, engine) = (render_by(true), render_by(false));
        let shown = |o: &Output| {
            (o.in_order(&Bundle::ALL).into_iter())
                .map(|m| (m.id.clone(), m.node().clone(), m.template.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(shown(&direct), shown(&engine));
        // The artifact renders from the plan without its BuildProjects too.
        assert_eq!(direct.exemptions, engine.exemptions);
        assert_eq!(check(&direct), check(&engine));
    }

    #[test]
    fn a_render_split_over_two_threads_finds_what_one_thread_finds() {
        // A schema finding and a relational one, among the chart's objects.
        let few = Values {
            extra_objects: vec![
                extra(serde_json::json!({
                    "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                    "metadata": {"name": "events", "namespace": "buildkit-operator"},
                    "rules": [{"apiGroups": [""], "resources": ["events"], "verbs": ["create"]}],
                })),
                extra(serde_json::json!({
                    "apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "settings", "namespace": "buildkit-builds"},
                    "data": {"n": 5},
                })),
            ],
            ..Values::default()
        };
        // With the Kata bundle: the bundles are checked alone too.
        let mut few = few;
        few.kata.enabled = true;
        // Enough BuildProjects for the parse-back, the JSON and the checks
        // to split ([`kubernetes::PARALLEL_FROM`], [`yaml::SPLIT_FROM`]).
        let mut many = few.clone();
        many.projects = (0..300)
            .map(|i| crate::model::Project {
                name: serde_json::from_value(serde_json::json!(format!("p{i:03}"))).unwrap(),
                repository: format!("https://git.example.com/p{i}.git"),
                trusted: true,
                resources: Default::default(),
            })
            .collect();
        let (few, many) = (render(&few).unwrap(), render(&many).unwrap());
        assert!(many.release.len() > kubernetes::PARALLEL_FROM);
        let findings = check(&many);
        let ids: Vec<_> = findings.iter().filter_map(|f| f.id()).collect();
        assert!(
            ids.contains(&check::rules::Invariant::EventsClusterWide.id()),
            "{findings:#?}"
        );
        assert!(
            ids.contains(&check::rules::Invariant::Schema.id()),
            "{findings:#?}"
        );
        assert_eq!(findings, check(&few));
        // The bundles alone checked beside the run on both, or after it.
        for output in [&few, &many] {
            assert!(!output.kata.is_empty());
            let on = |beside| check_on(output, (kube::DEFAULT_VERSION, false), &[], beside).0;
            assert_eq!(on(true), on(false));
        }
        // The BuildProjects written in two halves keep their lines: the
        // last one's node, made when asked, has its name on the line its
        // origin names.
        let project = many.release.iter().find(|m| m.id.name == "p299").unwrap();
        let name = project
            .node()
            .at(&KeyPath::root().key("metadata").key("name"));
        let Some(Node {
            origin: kubernetes::location::Origin::At { source, line, .. },
            ..
        }) = name
        else {
            unreachable!()
        };
        let written = source.text.lines().nth(*line as usize - 1).unwrap();
        assert_eq!(written.trim(), "name: \"p299\"", "line {line}");
    }

    #[test]
    fn findings_on_a_render_name_the_template_line() {
        let mut output = render(&Values::default()).unwrap();
        let role = output
            .release
            .iter_mut()
            .find(|m| m.id.kind == "ClusterRole" && m.id.name == "buildkit-operator-events")
            .unwrap();
        let Value::Mapping(entries) = &mut role.node_mut().value else {
            unreachable!()
        };
        let rules = &mut entries
            .iter_mut()
            .find(|(k, _)| k.name == "rules")
            .unwrap()
            .1;
        let Value::Sequence(rules) = &mut rules.value else {
            unreachable!()
        };
        let Value::Mapping(rule) = &mut rules[0].value else {
            unreachable!()
        };
        let verbs = &mut rule.iter_mut().find(|(k, _)| k.name == "verbs").unwrap().1;
        let Value::Sequence(verbs) = &mut verbs.value else {
            unreachable!()
        };
        verbs[0].value = Value::String("get".to_owned());
        let findings = check(&output);
        let r2: Vec<_> = findings
            .iter()
            .filter(|f| f.id() == Some(check::rules::Invariant::EventsWriteOnly.id()))
            .collect();
        assert_eq!(r2.len(), 1, "{findings:#?}");
        assert_eq!(r2[0].path, "rules[0].verbs");
        // The rules come from the `rules` macro in _helpers.yaml, called by rbac.yaml.
        let location = r2[0].location().unwrap().to_string();
        assert!(location.starts_with("templates/rbac.yaml:"), "{location}");
    }
}
