//! `chartgen render` (issue 3): the rendered chart of every environment is
//! pinned, deterministic, valid against the strict Kubernetes schemas of
//! every vendored version, and keeps the ADRs' topology and RBAC split.

use serde_json::Value as Json;

use kubernetes::kube::{KubeSchemas, VERSIONS};
use kubernetes::location::Source;
use kubernetes::yaml;

use crate::harness::{chartgen, chartgen_with, find, relative, root, without_prerequisites};

/// Every environment: the built-in defaults, then each file in `values/`
/// over `values/common.yaml` (as `render --all` layers them), then every
/// workload's pod settings set (`tests/fixtures/render/pod-settings.yaml`);
/// both bundles of each.
fn environments() -> Vec<(String, Vec<String>)> {
    let all = || vec!["--bundle".to_owned(), "all".to_owned()];
    let mut envs = vec![("default".to_owned(), all())];
    let mut files: Vec<_> = std::fs::read_dir(root().join("values"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let common = root().join("values/common.yaml");
    for path in files.into_iter().filter(|p| *p != common) {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let mut args = vec!["-f".to_owned(), relative(&common)];
        args.extend(["-f".to_owned(), relative(&path)]);
        args.extend(all());
        envs.push((name, args));
    }
    let settings = "tests/fixtures/render/pod-settings.yaml";
    let mut args = vec!["-f".to_owned(), settings.to_owned()];
    args.extend(all());
    envs.push(("pod-settings".to_owned(), args));
    envs
}

/// Renders with the CLI; panics unless it succeeds cleanly.
fn render(args: &[String]) -> String {
    let mut full = vec!["render".to_owned()];
    full.extend_from_slice(args);
    let run = chartgen(&full);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "render {args:?}");
    run.stdout
}

/// The objects of a rendered stream, as JSON.
fn objects(stream: &str) -> Vec<Json> {
    yaml::parse_stream(
        &Source::file("render", stream),
        kubernetes::manifest::LIMITS,
    )
    .expect("the render reads back as YAML")
    .iter()
    .map(yaml::Node::to_json)
    .collect()
}

#[test]
fn renders_are_pinned() {
    for (env, args) in environments() {
        insta::assert_snapshot!(format!("render-{env}"), render(&args));
    }
}

#[test]
fn renders_are_deterministic() {
    let args = vec!["-f".to_owned(), "values/ovh-prod.yaml".to_owned()];
    assert_eq!(render(&args), render(&args));
}

#[test]
fn every_document_names_its_template() {
    let stream = render(&[]);
    let documents = stream.split("---\n").skip(1);
    for document in documents {
        let source = document.lines().next().unwrap();
        let template = source.strip_prefix("# Source: templates/").expect(source);
        assert!(
            root().join("templates").join(template).is_file(),
            "{template}"
        );
    }
}

#[test]
fn objects_come_in_helm_install_order() {
    let kinds: Vec<String> = objects(&render(&[
        "-f".to_owned(),
        "values/ovh-prod.yaml".to_owned(),
        "--bundle".to_owned(),
        "all".to_owned(),
    ]))
    .iter()
    .map(|o| o["kind"].as_str().unwrap().to_owned())
    .collect();
    let ranks: Vec<usize> = kinds
        .iter()
        .map(|k| kubernetes::manifest::install_rank(k))
        .collect();
    assert!(ranks.is_sorted(), "{kinds:?}");
    assert_eq!(kinds.first().map(String::as_str), Some("Namespace"));
    // Kinds unknown to Helm's order come last, alphabetically.
    let unknown: Vec<&str> = kinds
        .iter()
        .filter(|k| kubernetes::manifest::install_rank(k) == usize::MAX)
        .map(String::as_str)
        .collect();
    assert!(unknown.is_sorted());
    assert_eq!(kinds.last().map(String::as_str), Some("RuntimeClass"));
}

#[test]
fn every_object_is_valid_against_every_vendored_kubernetes_version() {
    for version in VERSIONS {
        let schemas = KubeSchemas::load(version).unwrap();
        for (env, args) in environments() {
            let findings = check(&schemas, &render(&args));
            assert!(
                findings.is_empty(),
                "Kubernetes {version}, {env}: {findings:#?}"
            );
        }
    }
}

#[test]
fn the_schema_check_catches_unknown_fields() {
    let schemas = KubeSchemas::load(kubernetes::kube::DEFAULT_VERSION).unwrap();
    let mut stream = String::new();
    for mut object in objects(&render(&["-f".to_owned(), "values/dev.yaml".to_owned()])) {
        if let Some("Deployment" | "BuildProject" | "Certificate") = object["kind"].as_str() {
            object["spec"]["replicaz"] = Json::from(1);
        }
        stream += "---\n";
        stream += &kubernetes::emit::block(&yaml::Node::from_json(
            &object,
            &kubernetes::location::Origin::Default,
        ));
    }
    let findings = check(&schemas, &stream);
    let found: Vec<(&str, &str)> = findings
        .iter()
        .map(|f| {
            (
                f.id().unwrap(),
                f.object().unwrap().split(' ').next().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("K8S", "Deployment"),
            ("K8S", "Deployment"),
            ("K8S", "BuildProject"),
            ("K8S", "Certificate"),
            ("K8S", "Certificate"),
            ("K8S", "Certificate")
        ],
        "{findings:#?}"
    );
    assert!(
        findings.iter().all(|f| f.message.contains("replicaz")),
        "{findings:#?}"
    );
}

/// Every finding of `chartgen check` on a rendered stream: the vendored
/// schemas, BuildProjects against the rendered CRD, RBAC and topology.
fn check(schemas: &KubeSchemas, stream: &str) -> Vec<kubernetes::diagnostic::Diagnostic> {
    let set = kubernetes::input::parse("render", stream).unwrap();
    chart::check::run(
        &set.manifests,
        set.artifact(chart::artifacts::EXEMPTIONS_FILE),
        &chart::check::Options {
            schemas,
            extra_crds: &[],
            only_version: false,
        },
    )
    .findings
}

#[test]
fn committed_out_matches_a_fresh_render() {
    let run = chartgen(&["render", "--all", "--output-dir", "out", "--check"]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (0, ""),
        "out/ is stale: run `cargo run -- render --all --output-dir out`\n{}",
        run.stdout
    );
    assert_eq!(
        run.stdout,
        "ok: out/dev/release is up to date (37 files)\nok: out/ovh-prod/release is up to date (40 files)\nok: out/ovh-prod/kata is up to date (8 files)\n"
    );
}

/// ADR-2647: events through a write-only ClusterRole bound cluster-wide;
/// pods and leases in a Role in the operator namespace; the custom-resource
/// ClusterRole holds only custom resources.
#[test]
fn rbac_is_split_as_adr_2647_says() {
    let objects = objects(&render(&[]));
    let events = find(&objects, "ClusterRole", "buildkit-operator-events");
    assert_eq!(
        events["rules"],
        serde_json::json!([{"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]}])
    );
    let binding = find(&objects, "ClusterRoleBinding", "buildkit-operator-events");
    assert_eq!(binding["roleRef"]["name"], "buildkit-operator-events");
    assert_eq!(
        binding["subjects"],
        serde_json::json!([{"kind": "ServiceAccount", "name": "buildkit-buildd", "namespace": "buildkit-operator"}])
    );
    let role = find(&objects, "Role", "buildkit-operator");
    assert_eq!(role["metadata"]["namespace"], "buildkit-operator");
    assert_eq!(
        operator_role_resources(&objects),
        ["pods", "leases", "leases"]
    );
    let crs = find(&objects, "ClusterRole", "buildkit-operator");
    for rule in crs["rules"].as_array().unwrap() {
        assert_eq!(
            rule["apiGroups"],
            serde_json::json!(["buildkit-operator.dev"])
        );
    }
    let daemons = find(&objects, "RoleBinding", "buildkit-daemons");
    assert_eq!(daemons["metadata"]["namespace"], "buildkit-builds");
    assert_eq!(daemons["subjects"][0]["namespace"], "buildkit-operator");
    for object in &objects {
        for rule in object["rules"].as_array().into_iter().flatten() {
            let events = rule["resources"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r == "events");
            if events {
                assert_eq!(
                    object["kind"], "ClusterRole",
                    "events only in a ClusterRole"
                );
            }
        }
    }
}

/// ADR-0006 and T5: buildd takes its Lease where it runs and creates daemons
/// in the builds namespace; the control plane is hardened.
#[test]
fn buildd_is_hardened_and_knows_both_namespaces() {
    let objects = objects(&render(&[]));
    let buildd = find(&objects, "Deployment", "buildkit-buildd");
    let pod = &buildd["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    assert_eq!(
        container["env"][0],
        serde_json::json!({"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}})
    );
    assert!(
        container["args"]
            .as_array()
            .unwrap()
            .contains(&"--namespace=buildkit-builds".into())
    );
    for deployment in ["buildkit-buildd", "buildkit-gateway"] {
        let pod = &find(&objects, "Deployment", deployment)["spec"]["template"]["spec"];
        let security = &pod["containers"][0]["securityContext"];
        assert_eq!(security["runAsNonRoot"], true, "{deployment}");
        assert_eq!(security["readOnlyRootFilesystem"], true, "{deployment}");
        assert_eq!(security["allowPrivilegeEscalation"], false, "{deployment}");
        assert_eq!(
            security["capabilities"]["drop"],
            serde_json::json!(["ALL"]),
            "{deployment}"
        );
        assert_eq!(
            security["seccompProfile"]["type"], "RuntimeDefault",
            "{deployment}"
        );
        assert!(
            pod["volumes"]
                .as_array()
                .unwrap()
                .iter()
                .all(|v| v.get("hostPath").is_none())
        );
    }
}

/// Pod Security Admission labels follow the trust class; the release
/// targets two namespaces and the Kata node plumbing is its own bundle;
/// no object carries key material.
// Over 80 lines: one assertion per ADR-0006 sentence, kept together as the ADR reads.
#[test]
fn namespaces_and_bundles_follow_adr_0006() {
    let default = objects(&render(&[]));
    let level = |objects: &[Json], ns: &str| {
        find(objects, "Namespace", ns)["metadata"]["labels"]["pod-security.kubernetes.io/enforce"]
            .clone()
    };
    assert_eq!(level(&default, "buildkit-operator"), "restricted");
    assert_eq!(level(&default, "buildkit-builds"), "privileged");
    let prod_args =
        |bundle: &str| ["-f", "values/ovh-prod.yaml", "--bundle", bundle].map(str::to_owned);
    let release = objects(&render(&prod_args("release")));
    let kata = objects(&render(&prod_args("kata")));
    // The release: two namespaces, nothing of the Kata plumbing.
    let namespaces = |objects: &[Json]| -> Vec<String> {
        let mut found: Vec<String> = objects
            .iter()
            .map(|o| {
                o["metadata"]["namespace"]
                    .as_str()
                    .or((o["kind"] == "Namespace")
                        .then(|| o["metadata"]["name"].as_str())
                        .flatten())
                    .unwrap_or("(cluster)")
                    .to_owned()
            })
            .collect();
        found.sort();
        found.dedup();
        found
    };
    assert_eq!(
        namespaces(&release),
        ["(cluster)", "buildkit-builds", "buildkit-operator"]
    );
    assert_eq!(namespaces(&kata), ["(cluster)", "buildkit-system"]);
    let kinds = |objects: &[Json]| -> Vec<String> {
        objects
            .iter()
            .map(|o| {
                format!(
                    "{} {}",
                    o["kind"].as_str().unwrap(),
                    o["metadata"]["name"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert_eq!(
        kinds(&kata),
        [
            "Namespace buildkit-system",
            "ServiceAccount buildkit-kata-deploy",
            "ClusterRole buildkit-kata-deploy",
            "ClusterRoleBinding buildkit-kata-deploy",
            "DaemonSet buildkit-kata-clh-vcpu-tune",
            "DaemonSet buildkit-kata-deploy",
            "RuntimeClass kata-clh",
        ]
    );
    assert_eq!(level(&kata, "buildkit-system"), "privileged");
    for object in default.iter().chain(&release).chain(&kata) {
        assert_ne!(
            object["kind"], "Secret",
            "the chart never renders key material"
        );
        let is_workload = matches!(object["kind"].as_str(), Some("Deployment" | "DaemonSet"));
        let host_path = object.to_string().contains("hostPath");
        if is_workload && host_path {
            assert_eq!(
                object["metadata"]["namespace"], "buildkit-system",
                "{}",
                object["metadata"]["name"]
            );
        }
    }
    // The untrusted projects keep their RuntimeClass, which the Kata bundle provides.
    let untrusted = find(&release, "BuildProject", "community-plugins");
    assert_eq!(untrusted["spec"]["runtimeClassName"], "kata-clh");
    assert!(
        find(&release, "BuildProject", "platform-api")["spec"]
            .get("runtimeClassName")
            .is_none()
    );
    // An environment without Kata has no Kata bundle to ask for.
    let run = chartgen(&["render", "-f", "values/dev.yaml", "--bundle", "kata"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert_eq!(
        run.stderr,
        "error: this environment does not run Kata (kata.enabled is false), so it has no Kata bundle\n"
    );
}

/// Checked alone, the release passes and says where its RuntimeClass comes
/// from; checked together with the Kata bundle, it passes with nothing to say.
#[test]
fn each_bundle_and_both_together_pass_check() {
    let release = chartgen(&["check", "out/ovh-prod/release"]);
    assert_eq!(
        (
            release.code,
            without_prerequisites(&release.stdout).as_str()
        ),
        (
            0,
            "info: RuntimeClass kata-clh: used by BuildProject buildkit-builds/community-plugins, BuildProject buildkit-builds/contrib-forks, Deployment buildkit-operator/buildkit-buildd but not in the input; the Kata bundle provides it, applied out-of-band: check both bundles together to verify it\nok: 38 objects, no findings\n"
        )
    );
    let kata = chartgen(&["check", "out/ovh-prod/kata"]);
    assert_eq!(
        (kata.code, without_prerequisites(&kata.stdout).as_str()),
        (0, "ok: 7 objects, no findings\n")
    );
    let both = chartgen(&["check", "out/ovh-prod/release", "out/ovh-prod/kata"]);
    assert_eq!(
        (both.code, without_prerequisites(&both.stdout).as_str()),
        (0, "ok: 45 objects, no findings\n")
    );
}

/// ADR-0006: the security-context entries go in the environment's Kyverno
/// values, the host-path entry in the common file; the system namespace is
/// listed whenever the environment runs Kata, whichever bundle is rendered.
#[test]
fn exemptions_name_the_platform_file_of_each_entry() {
    let run = chartgen(&["exemptions", "-f", "values/ovh-prod.yaml"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout.contains(
            "#   \"securityContextPolicy\" (policy \"add-custom-mas-securitycontext\"): in \"kyverno/<environment>.values.yaml\"\n#   \"disallowHostPath\" (policy \"disallow-host-path\"): in \"kyverno/common.values.yaml\"\n"
        ),
        "{}",
        run.stdout
    );
    let written =
        std::fs::read_to_string(root().join("out/ovh-prod/release/kyverno-exemptions.yaml"))
            .unwrap();
    assert!(written.ends_with(&run.stdout), "{written}");
    assert!(written.contains("disallowHostPath:\n  excludedNamespaces: [buildkit-system]\n"));
}

#[test]
fn kyverno_exemptions_name_builds_and_system_never_operator() {
    let run = chartgen(&["exemptions", "-f", "values/ovh-prod.yaml"]);
    assert_eq!(run.code, 0);
    let artifact = yaml::parse_document(
        &Source::file("x", run.stdout.as_str()),
        yaml::Limits::VALUES,
    )
    .unwrap()
    .unwrap()
    .to_json();
    assert_eq!(
        artifact,
        serde_json::json!({
            "securityContextPolicy": {"excludedNamespaces": ["buildkit-builds", "buildkit-system"]},
            "disallowHostPath": {"excludedNamespaces": ["buildkit-system"]},
        })
    );
}

#[test]
fn bad_values_render_nothing_and_exit_2() {
    let run = chartgen(&["render", "--set", "buildd.replicas=many"]);
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert_eq!(
        run.stderr,
        "error: --set buildd.replicas=…: buildd.replicas: expected integer, found string \"…\"\n"
    );
}

/// Templates from `$CHARTGEN_TEMPLATES`, as a template author edits them.
fn with_edited_template(
    template: &str,
    from: &str,
    to: &str,
    args: &[&str],
) -> crate::harness::Run {
    let tmp = templates_copy();
    let dir = tmp.path().to_path_buf();
    let path = dir.join(template);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from:?} is not in {template}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    let mut run = chartgen_with(args, None, &[("CHARTGEN_TEMPLATES", dir.to_str().unwrap())]);
    // Never silently: the folder is named, once, before anything else.
    let note = format!(
        "note: rendering with the templates of {} ($CHARTGEN_TEMPLATES), not the built-in ones\n",
        dir.display()
    );
    assert!(run.stderr.starts_with(&note), "{}", run.stderr);
    assert_eq!(run.stderr.matches("note: rendering with").count(), 1);
    run.stderr.replace_range(..note.len(), "");
    run
}

/// A copy of the templates in a fresh folder, for `$CHARTGEN_TEMPLATES`.
fn templates_copy() -> tempfile::TempDir {
    let dir = crate::harness::scratch("templates");
    crate::harness::copy_tree(&root().join("templates"), dir.path());
    dir
}

#[test]
fn templates_from_a_folder_are_said_unless_quiet_and_the_render_is_the_same() {
    let dir = templates_copy();
    let env = [("CHARTGEN_TEMPLATES", dir.path().to_str().unwrap())];
    let built_in = chartgen(&["render"]);
    let run = chartgen_with(&["render"], None, &env);
    // The same objects, and the stream says where its templates came from.
    let provenance = format!(
        "# Rendered with the templates of {} ($CHARTGEN_TEMPLATES), not the built-in ones.\n",
        dir.path().display()
    );
    let stdout = format!("{provenance}{}", built_in.stdout);
    assert_eq!((run.code, &run.stdout), (0, &stdout));
    assert_eq!(
        run.stderr,
        format!(
            "note: rendering with the templates of {} ($CHARTGEN_TEMPLATES), not the built-in ones\n",
            dir.path().display()
        )
    );
    let run = chartgen_with(&["--quiet", "render"], None, &env);
    assert_eq!(
        (run.code, &run.stdout, run.stderr.as_str()),
        (0, &stdout, "")
    );
    // A GitOps folder records it in its kustomization, after the marker.
    let out = tempfile::tempdir().unwrap();
    let run = chartgen_with(
        &[
            "--quiet",
            "render",
            "--output-dir",
            out.path().to_str().unwrap(),
        ],
        None,
        &env,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let kustomization =
        std::fs::read_to_string(out.path().join("release/kustomization.yaml")).unwrap();
    let second = kustomization.lines().nth(1).map(|l| format!("{l}\n"));
    assert_eq!(second.as_deref(), Some(provenance.as_str()));
}

/// `CHARTGEN_TEMPLATES=` (set, empty) is unset, as most tools read an
/// empty variable: the built-in templates, no note, no provenance line.
#[test]
fn an_empty_templates_variable_is_unset() {
    let built_in = chartgen(&["render"]);
    let run = chartgen_with(&["render"], None, &[("CHARTGEN_TEMPLATES", "")]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (0, built_in.stdout.as_str(), "")
    );
}

#[test]
fn a_templates_folder_that_lacks_a_template_the_chart_needs_is_refused_naming_it() {
    let dir = templates_copy();
    std::fs::remove_file(dir.path().join("rbac.yaml")).unwrap();
    std::fs::remove_file(dir.path().join("kata/node-plumbing.yaml")).unwrap();
    let run = chartgen_with(
        &["render"],
        None,
        &[("CHARTGEN_TEMPLATES", dir.path().to_str().unwrap())],
    );
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert_eq!(
        run.stderr,
        format!(
            "error: $CHARTGEN_TEMPLATES names {}, which lacks templates/kata/node-plumbing.yaml, templates/rbac.yaml: the chart needs every built-in template; copy templates/ whole and edit the copy\n",
            dir.path().display()
        )
    );
}

#[test]
fn a_misspelt_variable_names_the_template_and_line_and_prints_nothing() {
    let run = with_edited_template("gateway.yaml", "v.replicas", "v.replicaz", &["render"]);
    insta::assert_snapshot!(run.transcript(), @r"
    $ chartgen render
    exit: 2
    --- stdout
    --- stderr
    error: templates/gateway.yaml:12: undefined value: `v.replicaz` is undefined
    ");
}

#[test]
fn a_template_that_breaks_the_yaml_names_its_line() {
    let run = with_edited_template(
        "gateway.yaml",
        "  revisionHistoryLimit: 5\n",
        "  revisionHistoryLimit: 5\n bad: [\n",
        &["render"],
    );
    insta::assert_snapshot!(run.transcript(), @r"
    $ chartgen render
    exit: 2
    --- stdout
    --- stderr
    error: templates/gateway.yaml rendered invalid YAML at templates/gateway.yaml:14 (output line 12): while parsing a block mapping, did not find expected key
    ");
}

#[test]
fn a_template_that_breaks_an_invariant_is_refused() {
    let run = with_edited_template(
        "rbac.yaml",
        "{{ h.rules(rbac.events) }}",
        "{{ h.rules(rbac.events) }}\n  - {apiGroups: [\"\"], resources: [events], verbs: [get]}",
        &["render"],
    );
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert!(
        run.stderr.starts_with("R2 ClusterRole buildkit-operator-events rules[1].verbs: grants get on events; events are write-only: create and patch (ADR-2647)\n  at templates/rbac.yaml:"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .ends_with("error: the render breaks the invariants above; nothing was written\n")
    );
}

/// The templates write the CRD group and version through the plan
/// (`plan.crd`), from `plan::adr`: the CRD and every BuildProject agree
/// with the constant `check` reads, and it is ADR-1058's group.
#[test]
fn the_crd_group_reaches_the_crd_and_every_buildproject_from_the_plan() {
    use chart::plan::adr::{CRD_GROUP, CRD_VERSION};
    assert_eq!(CRD_GROUP, "buildkit-operator.dev");
    let objects = objects(&render(&["-f", "values/ovh-prod.yaml"].map(str::to_owned)));
    let crd = find(
        &objects,
        "CustomResourceDefinition",
        &format!("buildprojects.{CRD_GROUP}"),
    );
    assert_eq!(crd["spec"]["group"], CRD_GROUP);
    assert_eq!(crd["spec"]["versions"][0]["name"], CRD_VERSION);
    let projects: Vec<&Json> = objects
        .iter()
        .filter(|o| o["kind"] == "BuildProject")
        .collect();
    assert!(!projects.is_empty());
    for project in projects {
        assert_eq!(project["apiVersion"], format!("{CRD_GROUP}/{CRD_VERSION}"));
    }
}

/// `--show-only` prints a subset, yet the checks run on the whole render:
/// a template breaking an invariant elsewhere still stops the run, and the
/// selected object is not printed either.
#[test]
fn show_only_still_checks_the_whole_render() {
    let run = with_edited_template(
        "rbac.yaml",
        "{{ h.rules(rbac.events) }}",
        "{{ h.rules(rbac.events) }}\n  - {apiGroups: [\"\"], resources: [events], verbs: [get]}",
        &["render", "--show-only", "Deployment/buildkit-gateway"],
    );
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert!(
        run.stderr
            .starts_with("R2 ClusterRole buildkit-operator-events rules[1].verbs:"),
        "{}",
        run.stderr
    );
}

/// The resources of the operator's Role, rule by rule.
fn operator_role_resources(objects: &[Json]) -> Vec<&Json> {
    find(objects, "Role", "buildkit-operator")["rules"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["resources"].as_array().unwrap())
        .collect()
}

fn set(pairs: &[&str]) -> Vec<String> {
    pairs
        .iter()
        .flat_map(|p| ["--set".to_owned(), (*p).to_owned()])
        .collect()
}

fn buildd_args(objects: &[Json]) -> Vec<String> {
    let buildd = find(objects, "Deployment", "buildkit-buildd");
    buildd["spec"]["template"]["spec"]["containers"][0]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect()
}

/// Issue 12: without leader election buildd takes no Lease, so the operator
/// Role grants nothing on leases and buildd is told no Lease name; the
/// render (which runs `check`) passes, and `check` on the result too.
#[test]
fn leader_election_off_renders_no_lease_grant() {
    let args = set(&["buildd.leaderElection=false", "buildd.replicas=1"]);
    let stream = render(&args);
    let objects = objects(&stream);
    assert_eq!(operator_role_resources(&objects), ["pods"]);
    let args = buildd_args(&objects);
    assert!(
        args.contains(&"--leader-elect=false".to_owned()),
        "{args:?}"
    );
    assert!(
        !args.iter().any(|a| a.starts_with("--leader-election-id")),
        "{args:?}"
    );
    let run = crate::harness::chartgen_with_stdin(&["check", "-"], Some(&stream));
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{}", run.stdout);
}

/// The same manifests with leader election switched back on in buildd's
/// arguments lack the Lease grants: R3 reports them.
#[test]
fn check_asks_for_the_lease_grants_when_buildd_elects_a_leader() {
    let stream = render(&set(&["buildd.leaderElection=false", "buildd.replicas=1"]));
    let elected = stream.replace("--leader-elect=false", "--leader-elect=true");
    assert_ne!(elected, stream);
    let run = crate::harness::chartgen_with_stdin(&["check", "-"], Some(&elected));
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("lacks create on leases, get, update on leases in buildkit-operator"),
        "{}",
        run.stdout
    );
}

fn pdbs(objects: &[Json]) -> Vec<&str> {
    objects
        .iter()
        .filter(|o| o["kind"] == "PodDisruptionBudget")
        .map(|o| o["metadata"]["name"].as_str().unwrap())
        .collect()
}

/// Issue 12: `replicas: 0` scales a component down; a PodDisruptionBudget
/// guards running pods, so a component scaled to 0 has none.
#[test]
fn replicas_zero_scales_down_and_renders_no_pdb() {
    let full = objects(&render(&[]));
    assert_eq!(pdbs(&full), ["buildkit-buildd", "buildkit-gateway"]);
    let no_buildd = objects(&render(&set(&["buildd.replicas=0"])));
    assert_eq!(pdbs(&no_buildd), ["buildkit-gateway"]);
    let buildd = find(&no_buildd, "Deployment", "buildkit-buildd");
    assert_eq!(buildd["spec"]["replicas"], 0);
    let none = objects(&render(&set(&["buildd.replicas=0", "gateway.replicas=0"])));
    assert!(pdbs(&none).is_empty());
    let gateway = find(&none, "Deployment", "buildkit-gateway");
    assert_eq!(gateway["spec"]["replicas"], 0);
}

/// A folder of environments in a fresh temporary directory: `(name, text)`
/// files in `envs/`, the output directory `out/` beside it.
fn environments_folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let base = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(base.path().join("envs")).unwrap();
    for (name, text) in files {
        std::fs::write(base.path().join("envs").join(name), text).unwrap();
    }
    base
}

fn render_all(base: &std::path::Path) -> crate::harness::Run {
    let envs = base.join("envs");
    let out = base.join("out");
    chartgen(&[
        "render",
        "--all",
        envs.to_str().unwrap(),
        "--output-dir",
        out.to_str().unwrap(),
    ])
}

/// Issue 12: `render --all DIR` renders each environment of DIR over the
/// shared `common.yaml`, which is no environment itself.
#[test]
fn environments_are_layered_over_common() {
    let base = environments_folder(&[
        (
            "common.yaml",
            "releaseName: shared\ncommonLabels: {team: platform}\n",
        ),
        ("a.yaml", "commonLabels: {env: a}\n"),
        ("b.yml", "releaseName: bee\n"),
    ]);
    let run = render_all(base.path());
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{}", run.stdout);
    let out = base.path().join("out");
    assert!(
        !out.join("common").exists(),
        "common.yaml is no environment"
    );
    let a = std::fs::read_to_string(
        out.join("a/release/buildkit-operator/deployment-shared-buildd.yaml"),
    )
    .unwrap();
    assert!(a.contains("team: platform") && a.contains("env: a"), "{a}");
    let b = out.join("b/release/buildkit-operator/deployment-bee-buildd.yaml");
    let b = std::fs::read_to_string(b).unwrap();
    assert!(b.contains("team: platform") && !b.contains("env: a"), "{b}");
}

/// A layer that fails names its file and line, and the environment with its
/// layers; nothing is written.
#[test]
fn a_failing_layer_names_the_file_and_the_environment() {
    let base = environments_folder(&[
        ("common.yaml", "buildd:\n  replicas: many\n"),
        ("a.yaml", "commonLabels: {env: a}\n"),
    ]);
    let run = render_all(base.path());
    let envs = base.path().join("envs");
    let common = envs.join("common.yaml").display().to_string();
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert!(
        run.stderr
            .contains(&format!("{common}:2:13: buildd.replicas")),
        "{}",
        run.stderr
    );
    let note = format!(
        "note: in environment `a`, from {common} then {}\n",
        envs.join("a.yaml").display()
    );
    assert!(run.stderr.starts_with(&note), "{}", run.stderr);
    assert!(!base.path().join("out").exists(), "nothing written");
}

/// A missing folder, a folder with only the shared base, two shared bases,
/// a FIFO as the folder: each refused, naming the path, nothing written.
#[test]
fn environments_folders_that_cannot_be_rendered_are_refused() {
    let base = environments_folder(&[]);
    let envs = base.path().join("envs");
    let shown = envs.display().to_string();
    let cases: [(&[(&str, &str)], String); 4] = [
        (&[], format!("error: {shown}/ holds no environment")),
        // An extension in capitals is an environment too: with another of
        // its name, the two would share a folder.
        (
            &[("dev.YAML", "{}\n"), ("dev.yml", "{}\n")],
            format!("error: {shown}/dev.YAML and {shown}/dev.yml would render into one folder"),
        ),
        (
            &[("common.yaml", "{}\n")],
            format!("error: {shown}/ holds no environment"),
        ),
        (
            &[
                ("common.yaml", "{}\n"),
                ("common.yml", "{}\n"),
                ("a.yaml", "{}\n"),
            ],
            format!("error: {shown}/common.yaml and {shown}/common.yml are both the shared base"),
        ),
    ];
    for (files, message) in cases {
        let base = environments_folder(files);
        let run = render_all(base.path());
        let stderr = run
            .stderr
            .replace(&base.path().display().to_string(), &base_of(&shown));
        assert_eq!((run.code, run.stdout.as_str()), (2, ""), "{files:?}");
        assert!(stderr.starts_with(&message), "{files:?}: {stderr}");
        assert!(!base.path().join("out").exists(), "nothing written");
    }
    let missing = base.path().join("nope");
    let run = chartgen(&[
        "render",
        "--all",
        missing.to_str().unwrap(),
        "--output-dir",
        base.path().join("out").to_str().unwrap(),
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "error: {}: cannot read the folder of environments: No such file or directory (os error 2)\n",
            missing.display()
        )
    );
    // A FIFO in place of the folder: refused at once, never opened.
    std::fs::remove_dir(&envs).unwrap();
    let fifo = std::process::Command::new("mkfifo").arg(&envs).status();
    assert!(fifo.unwrap().success());
    let run = render_all(base.path());
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(&format!(
            "error: {shown}: cannot read the folder of environments: Not a directory"
        )),
        "{}",
        run.stderr
    );
    assert!(!base.path().join("out").exists(), "nothing written");
}

/// The base directory of an `envs` path, to compare messages across
/// temporary directories.
fn base_of(envs: &str) -> String {
    envs.strip_suffix("/envs").unwrap().to_owned()
}

/// The shared base found in the folder is read only as a regular file: a
/// link could point at any file (a key), whose first line an error would
/// quote.
#[test]
fn a_linked_shared_base_is_refused_unread() {
    let base = environments_folder(&[("a.yaml", "{}\n")]);
    let secret = base.path().join("id_rsa");
    std::fs::write(&secret, "PRIVATE-KEY-MATERIAL\n").unwrap();
    let common = base.path().join("envs/common.yaml");
    std::os::unix::fs::symlink(&secret, &common).unwrap();
    let run = render_all(base.path());
    assert_eq!((run.code, run.stdout.as_str()), (2, ""));
    assert_eq!(
        run.stderr,
        format!(
            "error: {}: a symbolic link; --all reads only the regular files of its folder (render a linked file with -f FILE --output-dir DIR)\n",
            common.display()
        )
    );
    assert!(!base.path().join("out").exists(), "nothing written");
}

/// Each workload's pod settings land in its pod template and nowhere else:
/// the spec fields in the pod spec, pod labels and annotations on the pod
/// (the selector's labels kept, the workload object without them); the
/// daemons' in the ConfigMap buildd is pointed at; none in a pod's volumes
/// or security context.
#[test]
fn pod_settings_reach_each_pod_and_nothing_else() {
    let fixture = "tests/fixtures/render/pod-settings.yaml";
    let args = [
        "-f".to_owned(),
        fixture.to_owned(),
        "--bundle".to_owned(),
        "all".to_owned(),
    ];
    let objects = objects(&render(&args));
    let text = std::fs::read_to_string(root().join(fixture)).unwrap();
    let values = yaml::parse_stream(&Source::file(fixture, &text), kubernetes::manifest::LIMITS)
        .unwrap()[0]
        .to_json();
    let workloads = [
        ("Deployment", "buildkit-buildd", &values["buildd"]),
        ("Deployment", "buildkit-gateway", &values["gateway"]),
        (
            "DaemonSet",
            "buildkit-kata-deploy",
            &values["kata"]["deploy"],
        ),
        (
            "DaemonSet",
            "buildkit-kata-clh-vcpu-tune",
            &values["kata"]["vcpuTuning"],
        ),
    ];
    for (kind, name, settings) in workloads {
        let object = find(&objects, kind, name);
        let pod = &object["spec"]["template"];
        for field in [
            "tolerations",
            "affinity",
            "topologySpreadConstraints",
            "priorityClassName",
            "imagePullSecrets",
        ] {
            assert_eq!(pod["spec"][field], settings[field], "{name}: {field}");
        }
        for (key, value) in settings["nodeSelector"].as_object().unwrap() {
            assert_eq!(
                &pod["spec"]["nodeSelector"][key], value,
                "{name}: nodeSelector"
            );
        }
        for (key, value) in settings["podLabels"].as_object().into_iter().flatten() {
            assert_eq!(&pod["metadata"]["labels"][key], value, "{name}: podLabels");
            assert_eq!(
                object["metadata"]["labels"][key],
                Json::Null,
                "{name}: not on the workload"
            );
        }
        let selector = object["spec"]["selector"]["matchLabels"]
            .as_object()
            .unwrap();
        for (key, value) in selector {
            assert_eq!(
                &pod["metadata"]["labels"][key], value,
                "{name}: the selector still matches"
            );
        }
        assert_eq!(
            pod["metadata"]["annotations"], settings["podAnnotations"],
            "{name}"
        );
        if let Some(resources) = settings.get("resources") {
            assert_eq!(
                &pod["spec"]["containers"][0]["resources"], resources,
                "{name}"
            );
        }
    }
    let vcpu = find(&objects, "DaemonSet", "buildkit-kata-clh-vcpu-tune");
    assert_eq!(
        vcpu["spec"]["template"]["spec"]["nodeSelector"]["katacontainers.io/kata-runtime"], "true",
        "vcpu-tune keeps to the Kata nodes"
    );
    let template = find(&objects, "ConfigMap", "buildkit-daemon-pod-template");
    assert_eq!(template["metadata"]["namespace"], "buildkit-builds");
    let text = template["data"]["pod-template.yaml"].as_str().unwrap();
    let read = yaml::parse_stream(
        &Source::file("template", text),
        kubernetes::manifest::LIMITS,
    )
    .unwrap()[0]
        .to_json();
    let daemon = &values["builds"]["daemon"];
    assert_eq!(read["metadata"]["labels"], daemon["podLabels"]);
    for field in [
        "nodeSelector",
        "tolerations",
        "topologySpreadConstraints",
        "priorityClassName",
        "imagePullSecrets",
    ] {
        assert_eq!(
            read["spec"][field], daemon[field],
            "daemon pod template: {field}"
        );
    }
    let buildd = find(&objects, "Deployment", "buildkit-buildd");
    let args = &buildd["spec"]["template"]["spec"]["containers"][0]["args"];
    assert!(
        args.as_array().unwrap().contains(&Json::from(
            "--daemon-pod-template=buildkit-daemon-pod-template"
        )),
        "{args}"
    );
}

/// Without daemon settings there is no pod template to read, and buildd is
/// not told of one.
#[test]
fn no_daemon_settings_render_no_daemon_pod_template() {
    let stream = render(&["--bundle".to_owned(), "all".to_owned()]);
    assert!(!stream.contains("daemon-pod-template"), "{stream}");
}

/// Issue 23: `network.cni: cilium` adds the CiliumNetworkPolicies a
/// NetworkPolicy cannot say (checked against chartgen's Cilium schema: the
/// render passes `check`); `standard`, the default, renders none, and
/// named hosts without Cilium are refused.
#[test]
fn cilium_policies_only_when_the_values_ask_for_cilium() {
    let cilium = objects(&render(&[
        "-f".into(),
        "values/dev.yaml".into(),
        "-f".into(),
        "tests/fixtures/render/cilium.yaml".into(),
    ]));
    let api = find(&cilium, "CiliumNetworkPolicy", "buildkit-buildd-api-server");
    assert_eq!(api["spec"]["egress"][0]["toEntities"][0], "kube-apiserver");
    let fqdns = find(&cilium, "CiliumNetworkPolicy", "buildkit-daemons-fqdns");
    let egress = fqdns["spec"]["egress"].as_array().unwrap();
    // Cilium learns the names' addresses only from DNS it proxies: the DNS
    // rule is part of the same policy.
    assert_eq!(
        egress[0]["toPorts"][0]["rules"]["dns"][0]["matchPattern"],
        "*"
    );
    assert_eq!(egress[1]["toFQDNs"][0]["matchName"], "github.com");
    assert_eq!(
        egress[2]["toFQDNs"][0]["matchPattern"],
        "*.githubusercontent.com"
    );
    let standard = objects(&render(&["-f".into(), "values/dev.yaml".into()]));
    assert!(standard.iter().all(|o| o["kind"] != "CiliumNetworkPolicy"));
    let refused = chartgen(&[
        "render",
        "-f",
        "values/dev.yaml",
        "-f",
        "tests/fixtures/render/cilium.yaml",
        "--set",
        "network.cni=standard",
    ]);
    refused.assert_refused(2, "network.buildEgress.fqdns");
}

/// Findings on BuildProjects name the template line the engine's reading
/// names, whole runs alike: their nodes are made only for the findings (by
/// the writer, in two halves from 200 projects on two cores). A
/// LimitRange among the extra objects refuses every project's memory
/// limit. (Every origin of every made node is held to the engine's reading
/// by `render::projects`' and `pipeline`'s unit tests, the writer's
/// against the engine's; here a node a line off names another template
/// line. Without a second core the projects are written in one part.)
#[test]
fn findings_on_written_projects_are_placed_as_the_engine_s_reading_places_them() {
    let dir = tempfile::tempdir().unwrap();
    let values = crate::harness::many_projects(dir.path(), 300);
    let range = dir.path().join("range.yaml");
    std::fs::write(
        &range,
        "extraObjects:\n  - apiVersion: v1\n    kind: LimitRange\n    metadata: {name: daemons, namespace: buildkit-builds}\n    spec:\n      limits:\n        - type: Container\n          max: {memory: 1Gi}\n",
    )
    .unwrap();
    let args = [
        "render",
        "-f",
        values.to_str().unwrap(),
        "-f",
        range.to_str().unwrap(),
    ];
    let written = chartgen(&args);
    // The engine's: the same templates from a folder, read back.
    let read = with_edited_template(
        "projects.yaml",
        "kind: BuildProject",
        "kind: BuildProject",
        &args,
    );
    assert_eq!((written.code, read.code), (1, 1), "{}", written.stderr);
    assert_eq!(written.stderr, read.stderr);
    let placed = "  at templates/projects.yaml:14\n";
    assert_eq!(
        written.stderr.matches(placed).count(),
        300,
        "{}",
        written.stderr
    );
    assert!(written.stdout.is_empty());
}
