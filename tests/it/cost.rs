//! Cost bounded and linear (issue 9, section 4): hostile inputs that made
//! time or memory grow much faster than the input finish, and budgets stop
//! with an error that names them. No timing here: before the fixes these
//! inputs ran out of memory or time; growth is measured in
//! `benches/cost.rs` and recorded in BENCHMARKS.md.

include!("../fixtures/hostile/cost/shapes.rs");

use crate::harness::{chartgen, chartgen_with_stdin};

fn check_with_hostile_rbac(n: usize) -> crate::harness::Run {
    chartgen_with_stdin(&["check", "out/ovh-prod", "-"], Some(&hostile_rbac(n)))
}

fn findings(run: &crate::harness::Run) -> Vec<&str> {
    run.stdout
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with("info:"))
        .filter(|l| {
            l.split_once(' ').is_some_and(|(id, _)| {
                id.len() <= 7
                    && id
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            })
        })
        .collect()
}

#[test]
fn effective_rbac_of_a_multiplying_input_is_checked_whole() {
    // 60 bindings × 10 subjects × 60 aggregated rules × 60 resources: two
    // million grants, gigabytes once materialised.
    let run = check_with_hostile_rbac(60);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let found = findings(&run);
    // Per role rule and resource, naming a sample of who holds it.
    let secrets: Vec<&&str> = found
        .iter()
        .filter(|f| {
            f.starts_with("R4 ClusterRole hostile-0 rules[0].resources: ")
                && f.contains(" get secrets cluster-wide;")
        })
        .collect();
    assert_eq!(secrets.len(), 1, "{}", run.stdout);
    assert!(
        secrets[0].contains("buildkit-operator/sa-")
            && secrets[0].contains(" and others get secrets"),
        "{}",
        secrets[0]
    );
    // A RoleBinding to an events ClusterRole: one finding per subject.
    assert!(
        found.contains(&"R1 RoleBinding buildkit-operator/hostile-0 roleRef: events granted to Group system:serviceaccounts only in buildkit-operator; events of objects in other namespaces are lost (ADR-2647)"),
        "{}",
        run.stdout
    );
    // buildd holds everything through the wildcard roles: it lacks nothing.
    assert!(!run.stdout.contains("lacks"), "{}", run.stdout);
    // The findings grow with the input, not with its square.
    let small = check_with_hostile_rbac(6);
    assert_eq!(small.code, 1, "{}", small.stderr);
    let (many, few) = (found.len(), findings(&small).len());
    assert!(
        many <= 11 * few,
        "10× the input gave {many} findings against {few}"
    );
}

#[test]
fn aggregation_follows_chains_and_cycles_once() {
    // `top` aggregates `middle`, which aggregates `bottom` and `leaf`;
    // `bottom` aggregates `top`: a cycle. Only `leaf` has rules.
    let role = |name: &str, label: &str, selects: &str| {
        format!(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: {name}, labels: {{{label}: \"x\"}}}}\naggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{{selects}: \"x\"}}}}]}}\nrules: []\n"
        )
    };
    let text = [
        role("top", "a", "b"),
        role("middle", "b", "c"),
        role("bottom", "c", "a"),
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: leaf, labels: {c: \"x\"}}\nrules: [{apiGroups: [\"\"], resources: [configmaps], verbs: [list]}]\n".to_owned(),
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: top}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: top}\nsubjects: [{kind: ServiceAccount, name: reader, namespace: apps}]\n".to_owned(),
    ]
    .concat();
    let run = chartgen_with_stdin(&["rbac", "-"], Some(&text));
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Besides what every account holds through the cluster's default
    // bindings, the one rule `leaf` has, through `top`, once.
    let own: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("ClusterRoleBinding top "))
        .collect();
    assert_eq!(
        own,
        [
            "  cluster-wide  configmaps                                            list    ClusterRoleBinding top → ClusterRole top"
        ],
        "{}",
        run.stdout
    );
}

#[test]
fn listing_effective_permissions_stops_at_the_grant_budget() {
    let run = chartgen_with_stdin(&["rbac", "-"], Some(&hostile_rbac(60)));
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.starts_with("error: the effective permissions of this input are more than 500000 grants (the grant budget:")
            && run.stderr.ends_with("out of proportion to the input. `chartgen check` still checks it\n"),
        "{}",
        run.stderr
    );
    // Below the budget the same shape is listed.
    let run = chartgen_with_stdin(&["rbac", "-"], Some(&hostile_rbac(4)));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("Group system:serviceaccounts\n"));
}

/// A rule few grants wide can carry many verbs and names on each: one rule
/// of 300 groups, 300 resources, 200 verbs and 200 names (12 KB) is
/// 90,000 grants, far below the grant budget, but 36 million entries
/// (2.8 GB listed, a review measured). It stops at the entry budget; a
/// narrower rule of the same verbs and names is listed.
#[test]
fn listing_effective_permissions_stops_at_the_entry_budget() {
    let wide = |n: usize| {
        let list = |prefix: &str, count: usize| -> String {
            (0..count)
                .map(|i| format!("{prefix}{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: wide}}\n\
             rules: [{{apiGroups: [{}], resources: [{}], verbs: [{}], resourceNames: [{}]}}]\n---\n\
             apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {{name: wide}}\n\
             roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: wide}}\n\
             subjects: [{{kind: ServiceAccount, name: sa, namespace: ns}}]\n",
            list("g", n),
            list("r", n),
            list("v", 200),
            list("n", 200)
        )
    };
    let run = chartgen_with_stdin(&["rbac", "-"], Some(&wide(300)));
    run.assert_refused(
        2,
        "error: the effective permissions of this input carry more than 2000000 verbs and resource names (the entry budget:",
    );
    assert_eq!(run.stdout, "");
    let run = chartgen_with_stdin(&["rbac", "-"], Some(&wide(3)));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(" r2.g2 "), "{} bytes", run.stdout.len());
}

/// n ClusterRoles each aggregating with a `NotIn` of its own label match
/// nearly all n: n² links (a review's 16,000, 4 MB, made 256 million and
/// took 4.3 GB). Past the link budget `rbac` refuses, naming it, and
/// `check` says in a note what it did not verify; below it the same shape
/// is listed.
#[test]
fn aggregation_stops_at_the_link_budget() {
    let ring = |n: usize| -> String {
        (0..n)
            .map(|i| {
                let aggregates = match i + 1 < n {
                    true => format!(
                        "aggregationRule: {{clusterRoleSelectors: [{{matchExpressions: [{{key: chain, operator: NotIn, values: [l{i}]}}]}}]}}\n"
                    ),
                    false => "rules: [{apiGroups: [''], resources: [pods], verbs: [get]}]\n".to_owned(),
                };
                format!(
                    "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n\
                     metadata: {{name: c{i}, labels: {{chain: l{i}}}}}\n{aggregates}"
                )
            })
            .collect::<String>()
            + "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: c0}\n\
               roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: c0}\n\
               subjects: [{kind: ServiceAccount, name: sa, namespace: ns}]\n"
    };
    let over = ring(2_100);
    let run = chartgen_with_stdin(&["rbac", "-"], Some(&over));
    run.assert_refused(
        2,
        "error: the aggregation selectors of this input's ClusterRoles match more than 4000000 roles together (the link budget)",
    );
    let run = chartgen_with_stdin(&["check", "-"], Some(&over));
    assert!(
        run.stdout.contains("info: ClusterRoles: the aggregation selectors of the input's ClusterRoles match more than 4000000 roles together (the link budget)"),
        "{}",
        run.transcript()
    );
    let run = chartgen_with_stdin(&["rbac", "-"], Some(&ring(50)));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("  cluster-wide  pods "),
        "{}",
        run.stdout
    );
}

/// `diff` compares effective permissions under the same grant budget:
/// past it, the objects are still compared and the permissions section
/// says it did not compare them.
#[test]
fn diff_compares_permissions_under_the_grant_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let (old, new) = (dir.join("old.yaml"), dir.join("new.yaml"));
    std::fs::write(&old, hostile_rbac(60)).unwrap();
    std::fs::write(&new, hostile_rbac(61)).unwrap();
    let run = chartgen(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("+ ClusterRole "), "{}", run.stdout);
    assert!(
        run.stdout.contains(
            "not compared: the effective permissions of this input are more than 500000 grants"
        ),
        "{}",
        run.stdout
    );
    // The gate fails closed: what the new roles grant cannot be ruled out,
    // so an input cannot switch off `--fail-on security` by growing.
    let gate = ["diff", "--fail-on", "security"];
    let run = chartgen(&[&gate[..], &[old.to_str().unwrap(), new.to_str().unwrap()]].concat());
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("  security    ClusterRole hostile-60: the effective permissions were not compared (more than the grant budget of 500000 grants, the entry budget of 2000000 verbs and resource names, or the link budget of 4000000 roles matched by aggregation), so what it grants cannot be ruled out\n"),
        "{}",
        run.stdout
    );
}

/// A chain of aggregated ClusterRoles, each bound, grants little (the
/// last role's one rule to every binding's user), though each binding's
/// walk is as long as the chain: it is listed, not refused as past the
/// grant budget (the walks are counted apart, and roles of no rules are
/// not carried along).
#[test]
fn a_long_chain_of_aggregated_roles_is_listed() {
    let n = 600;
    let mut text = String::new();
    for i in 0..n {
        text += &format!(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: r{i}, labels: {{l{i}: x}}}}\naggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{l{}: x}}}}]}}\n",
            i + 1
        );
        text += &format!(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {{name: b{i}}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r{i}}}\nsubjects: [{{kind: User, name: u{i}}}]\n"
        );
    }
    text += &format!(
        "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: r{n}, labels: {{l{n}: x}}}}\nrules: [{{apiGroups: [''], resources: [pods], verbs: [get]}}]\n"
    );
    let run = chartgen_with_stdin(&["rbac", "--output", "json", "-"], Some(&text));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let listed: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let pods = |user: &str| {
        let subject = (listed["subjects"].as_array().unwrap().iter())
            .find(|s| s["subject"]["name"] == user)
            .unwrap_or_else(|| panic!("{user} is not listed"));
        (subject["permissions"].as_array().unwrap().iter())
            .filter(|p| p["resource"] == "pods")
            .map(|p| p["verbs"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(pods("u0"), [serde_json::json!(["get"])]);
    assert_eq!(pods(&format!("u{}", n - 1)), [serde_json::json!(["get"])]);
}

/// Thousands of `--set` pairs would each walk the document: past the
/// budget, the run stops and says to use a file.
#[test]
fn set_arguments_have_a_budget() {
    let mut args = vec!["validate".to_owned()];
    for i in 0..=chart::values::MAX_SET_ARGUMENTS {
        args.push("--set".to_owned());
        args.push(format!("commonLabels.k{i}=v"));
    }
    let run = chartgen(&args);
    run.assert_refused(
        2,
        "more than 1000 --set pairs, past the budget; put the values in a file (-f) instead",
    );
    args.truncate(args.len() - 2);
    let run = chartgen(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Pairs in one argument count one by one.
    let pairs: Vec<String> = (0..=chart::values::MAX_SET_ARGUMENTS)
        .map(|i| format!("commonLabels.k{i}=v"))
        .collect();
    let run = chartgen(&["validate", "--set", &pairs.join(",")]);
    run.assert_refused(2, "more than 1000 --set pairs");
    // A huge argument of tiny pairs stops at the budget, never allocating
    // a pair for each.
    let many = "a=1,".repeat(30_000); // under the 128 KiB of one argv entry
    let run = chartgen(&["validate", "--set", &many]);
    run.assert_refused(2, "more than 1000 --set pairs");
}

#[test]
fn set_paths_obey_the_budgets_of_values_files() {
    let deep = format!("{}=1", vec!["k"; 1000].join("."));
    let run = chartgen(&["validate", "--set", &deep]);
    run.assert_refused(
        2,
        "the key is 1000 levels deep, past the limit of 64 levels that values files have too",
    );
    let run = chartgen(&["validate", "--set", "projects[99999999].name=x"]);
    run.assert_refused(2, "`projects` has 0 items; [99999999] is past the end");
}

#[test]
fn values_that_multiply_stop_at_the_output_budget() {
    // 0.9 MB of labels (within a values file's 4 MB) on each of 100
    // BuildProjects: 90 MB of YAML before anything else.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let file = dir.join("amplifying.yaml");
    std::fs::write(&file, amplifying_values(10_000, 100)).unwrap();
    // `validate` refuses what `render` refuses of the values.
    for command in ["render", "validate"] {
        let run = chartgen(&[command, "-f", file.to_str().unwrap()]);
        assert_eq!(run.code, 2, "{command}");
        assert_eq!(run.stdout, "", "{command}");
        assert!(
            run.stderr.starts_with("error: the values would render more than 64 MiB, the output budget (the BuildProjects alone would pass it): `commonLabels` (880000 bytes) and `commonAnnotations` (0 bytes) are written into every object, and `projects` adds 100 objects"),
            "{command}: {}",
            run.stderr
        );
    }
}

#[test]
fn long_texts_and_long_lines_diff_in_full() {
    use kubernetes::diff::lines::{Line, diff};
    let [(old, new), (one, longer)] = long_texts(20_000);
    let changed: Vec<Line<'_>> = diff(&old, &new)
        .into_iter()
        .filter(|l| !matches!(l, Line::Same(_)))
        .collect();
    assert_eq!(
        changed,
        [
            Line::Removed("line 10000 of a long text"),
            Line::Added("a changed line of a long text")
        ]
    );
    assert_eq!(
        diff(&one, &longer),
        [Line::Removed(&one), Line::Added(&longer)]
    );
}

#[test]
fn a_grant_held_by_several_subjects_is_one_finding_naming_them() {
    let role = "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: svc}\nrules: [{apiGroups: [\"\"], resources: [services], verbs: [get]}]\n";
    let binding = |name: &str, account: &str| {
        format!(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {{name: {name}, namespace: elsewhere}}\nroleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: svc}}\nsubjects: [{{kind: ServiceAccount, name: {account}, namespace: buildkit-operator}}]\n"
        )
    };
    let r6 = |text: String| {
        let run = chartgen_with_stdin(&["check", "out/ovh-prod", "-"], Some(&text));
        assert_eq!(run.code, 1, "{}", run.stderr);
        run.stdout
            .lines()
            .filter(|l| l.starts_with("R6 "))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        r6(format!("{role}{}", binding("one", "a"))),
        [
            "R6 ClusterRole svc rules[0].resources: buildkit-operator/a may use services in elsewhere; daemon objects are granted only in the builds namespace"
        ]
    );
    let many: String = (0..5)
        .map(|i| binding(&format!("b{i}"), &format!("a{i}")))
        .collect();
    assert_eq!(
        r6(format!("{role}{many}")),
        [
            "R6 ClusterRole svc rules[0].resources: buildkit-operator/a0 (in elsewhere), buildkit-operator/a1 (in elsewhere), buildkit-operator/a2 (in elsewhere) and others may use services; daemon objects are granted only in the builds namespace"
        ]
    );
}

/// CRD patterns run on a linear-time engine, as the API server's RE2 does:
/// a backreference does not compile (a finding, as the API server refuses
/// the CRD), and a pattern that would backtrack costs what its input weighs.
#[test]
fn crd_patterns_cannot_backtrack() {
    let crd = |pattern: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: widgets.example.com}}\nspec:\n  group: example.com\n  scope: Namespaced\n  names: {{plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              items: {{type: array, items: {{type: string, pattern: '{pattern}'}}}}\n"
        )
    };
    let widgets: String = (0..300)
        .map(|i| {
            format!(
                "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {{name: w{i}, namespace: apps}}\nspec: {{items: [\"{}b\"]}}\n",
                "a".repeat(60)
            )
        })
        .collect();
    let run = chartgen_with_stdin(
        &["check", "--output", "json", "-"],
        Some(&format!("{}{widgets}", crd(r"^(a|aa)+\1c$"))),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("the schema of CRD widgets.example.com does not compile"),
        "{}",
        &run.stdout[..run.stdout.len().min(2000)]
    );
    // Without the backreference the pattern compiles, and each value is
    // matched in linear time: 300 of them, each refused.
    let run = chartgen_with_stdin(
        &["check", "--output", "json", "-"],
        Some(&format!("{}{widgets}", crd(r"^(a|aa)+c$"))),
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stdout.matches("does not match").count(), 300);
}

/// KEYS compares the daemons' Certificates' names through an index: two
/// Certificates of 20,000 names each (400 million pairs, minutes when
/// compared pair by pair) are checked at once, the one shared name found.
#[test]
fn daemon_certificates_with_many_names_are_compared_through_an_index() {
    let certificate = |name: &str, secret: &str, level: &str, last: &str| {
        let mut names: Vec<String> = (0..20_000)
            .map(|i| format!("      - d{i}.{level}.buildkit-builds.svc\n"))
            .collect();
        names.push(format!("      - \"{last}\"\n"));
        format!(
            "---\napiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {{name: {name}, namespace: buildkit-builds}}\nspec:\n  secretName: {secret}\n  issuerRef: {{name: ca, kind: ClusterIssuer}}\n  dnsNames:\n{}",
            names.concat()
        )
    };
    let extra = certificate(
        "many-trusted",
        "buildkit-daemon-tls-trusted",
        "t",
        "shared.buildkit-builds.svc",
    ) + &certificate(
        "many-untrusted",
        "buildkit-daemon-tls-untrusted",
        "u",
        "*.buildkit-builds.svc",
    );
    let run = chartgen_with_stdin(&["check", "out/ovh-prod", "-"], Some(&extra));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let found = findings(&run);
    let keys: Vec<&&str> = found.iter().filter(|f| f.starts_with("KEYS ")).collect();
    assert_eq!(keys.len(), 1, "{}", run.stdout);
    assert!(
        keys[0].contains("*.buildkit-builds.svc of the untrusted daemons' Certificate many-untrusted is valid for shared.buildkit-builds.svc"),
        "{}",
        keys[0]
    );
}

/// A Secret's values are kept out of messages by a search whose build is
/// linear in them: one value of 1.1 MB beside a finding (an automaton built
/// as a DFA took minutes for 200 KB) is reported at once, and not shown.
#[test]
fn a_long_secret_value_is_hidden_without_an_automaton_that_grows_with_it() {
    let value = "s3cr3t-".repeat(160_000);
    let secret = format!(
        "apiVersion: v1\nkind: Secret\nmetadata: {{name: s, namespace: apps, labels: {{'bad key': x}}}}\nstringData: {{token: '{value}'}}\n"
    );
    let run = chartgen_with_stdin(&["check", "-"], Some(&secret));
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("`bad key` is not a valid label key"),
        "{}",
        run.transcript()
    );
    assert!(
        run.stdout
            .contains("more than the 1048576 a Secret may hold"),
        "{}",
        run.transcript()
    );
    run.assert_shows_nowhere("s3cr3t");
}

/// Tens of thousands of block scalars in a text with a tab and a
/// character past ASCII: the check of a block scalar's indentation ran to
/// its end and sent the reader's position back to the text's start for the
/// next check, once per scalar (221 s at 30,000, a review found).
#[test]
fn many_block_scalars_beside_a_tab_are_read_in_one_pass() {
    let mut text = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: é}\ndata:\n");
    for i in 0..20_000 {
        text.push_str(&format!("  k{i}: |\n    line {i}\n"));
    }
    text.push_str("# a\ttab\n");
    let run = chartgen_with_stdin(&["check", "-"], Some(&text));
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stdout
            .starts_with("API ConfigMap default/é metadata.name"),
        "{}",
        run.stdout
    );
}

/// A CRD whose every level holds a default above a wide schema: each
/// default is judged against the part of its node it reaches, so the
/// check costs the defaults' size, not each level's whole subtree (the
/// top one's member `p1` belongs 25 levels down, so it is unknown).
#[test]
fn defaults_on_every_level_of_a_deep_wide_schema_are_judged_once() {
    let mut node = serde_json::json!({"type": "object", "properties": {}});
    for i in 0..5_000 {
        node["properties"][format!("p{i}")] = serde_json::json!({"type": "string", "default": "x"});
    }
    for _ in 0..25 {
        node = serde_json::json!({"type": "object", "default": {}, "properties": {"next": node}});
    }
    node["default"] = serde_json::json!({"next": {"p1": 5}});
    let crd = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "deeps.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "deeps", "kind": "Deep"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": node}}}}]}});
    let run = chartgen_with_stdin(&["check", "-"], Some(&crd.to_string()));
    assert_eq!(run.code, 1, "{}", run.transcript());
    assert!(
        run.stdout.contains(r#"openAPIV3Schema.properties.spec.default: the default {"next":{"p1":5}} is refused by its own schema at next: Additional properties are not allowed ('p1' was unexpected)"#),
        "{}",
        run.stdout
    );
}

/// A custom resource's list of many items against a long `required` and
/// a large `enum` whose first member is large: each item names a few
/// missing fields and counts the rest, the enum's members are listed
/// once, clipped, and the resource reports its first 100 findings (a
/// review's 38 KB made 3.2 million errors, 1.4 GB, and a 200 KB member was
/// copied into each of 5,000 messages). The findings and their size are
/// what is held: they no longer grow with the product.
#[test]
fn many_items_against_long_required_and_large_enums_are_bounded() {
    let required: Vec<String> = (0..4_000).map(|i| format!("f{i}")).collect();
    let mut members = vec![serde_json::json!("m".repeat(200_000))];
    members.extend((0..5_000).map(|i| serde_json::json!(format!("member-{i}"))));
    let crd = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
        "versions": [{"name": "v1", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object",
                "properties": {
                    "items": {"type": "array", "items": {"type": "object", "required": required}},
                    "words": {"type": "array", "items": {"type": "string", "enum": members}},
                }}}}}}]}});
    let widget = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"},
        "spec": {"items": vec![serde_json::json!({}); 800], "words": vec!["n"; 5_000]}});
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [crd, widget]});
    let run = chartgen_with_stdin(&["check", "--output", "json", "-"], Some(&list.to_string()));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let found = report["findings"].as_array().unwrap();
    assert_eq!(found.len(), 101, "{}", run.stdout.len());
    assert!(run.stdout.len() < 200_000, "{}", run.stdout.len());
    assert!(
        found[8]["message"]
            .as_str()
            .unwrap()
            .contains("and 3992 more required properties are missing")
    );
}

/// Past a run's eight patterns that compile past the regex crate's usual
/// limit, a ninth is not matched, and `check` says so in a note on the
/// resource rather than pass it in silence; the eight are matched.
#[test]
fn a_pattern_past_the_runs_large_ones_is_a_note() {
    let mut properties = serde_json::Map::new();
    let mut spec = serde_json::Map::new();
    for (i, letter) in ('a'..='i').enumerate() {
        // Each past 1 MiB as the regex crate compiles it, each its own.
        properties.insert(
            format!("f{i}"),
            serde_json::json!({"type": "string", "pattern": format!("^{letter}\\p{{L}}{{30}}$")}),
        );
        spec.insert(format!("f{i}"), serde_json::json!("0"));
    }
    let crd = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object",
                    "properties": properties}}}}}]}});
    let widget = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default"}, "spec": spec});
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [crd, widget]});
    let run = chartgen_with_stdin(&["check", "--output", "json", "-"], Some(&list.to_string()));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let found = report["findings"].as_array().unwrap();
    assert_eq!(found.len(), 8, "{}", run.stdout);
    assert!(
        found
            .iter()
            .all(|f| f["message"].as_str().unwrap().contains("does not match"))
    );
    let info = report["info"].as_array().unwrap();
    assert_eq!(info.len(), 1, "{}", run.stdout);
    assert_eq!(info[0]["subject"], "Widget default/w");
    assert!(
        info[0]["message"]
            .as_str()
            .unwrap()
            .contains("its strings were not matched against it")
    );
}
