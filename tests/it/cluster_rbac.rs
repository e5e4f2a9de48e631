//! `chartgen rbac` against the RBAC authorizer of the real control plane
//! (`scripts/control-plane/cluster`, v1.35.4): for every ServiceAccount of
//! a set (declared, named by a binding, or run by a workload) and every
//! namespace of the set plus `default` and an unused probe namespace, the
//! server's SelfSubjectRulesReview (what `kubectl auth can-i --list`
//! prints) is chartgen's effective permissions, tuple for tuple, compared
//! as `tests/it/rbac_truth.rs` compares them.
//!
//! The sets: every committed environment (`out/<env>/`, its bundles
//! together), the shared corpus's sets (`tests/fixtures/k8s-truth/rbac/
//! sets/`) and the sets generated below ([`generated`]: aggregation chains
//! and cycles, aggregated roles with rules of their own, aggregation into
//! the default roles, group subjects, Lists,
//! resourceNames, subresources, non-resource URLs, wildcards, objects
//! named as the cluster's default ones, applied over them and put back
//! after).
//!
//! With `CHARTGEN_RECORD=1` the server's answers for the corpus's and the
//! generated sets are written to `tests/fixtures/k8s-truth/rbac/
//! recorded-v1.35.4.jsonl` (the layout of `truth.jsonl`) and the generated
//! sets to `tests/fixtures/k8s-truth/rbac/generated/`; without it the live
//! test fails where the server now answers differently from the recording.
//! [`every_account_holds_what_v1_35_4_answered`] checks chartgen against
//! the recording without a server.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use kubernetes::rbac::resolve::{Cluster, permissions_with};

use kubernetes::rbac::defaults;
use serde_json::{Value as Json, json};

use crate::cluster_apply::{environments, read};
use crate::rbac_truth::{
    Tuple, UrlTuple, account_of, assert_none_disagree, chartgen_tuples, disagreements_in, objects,
    root, server_tuples, set_paths, strings,
};
use crate::server::{self, Server};

/// The release the control plane runs, and the default roles chartgen
/// reads for it (`--kube-version 1.35`).
const SERVER_VERSION: &str = "v1.35.4";
const VERSION: defaults::Version = (1, 35);
/// A namespace no set uses: what an account may do there is what it may
/// do cluster-wide.
const PROBE: &str = "k8s-truth-probe";

fn recorded_path() -> PathBuf {
    root().join(format!("recorded-{SERVER_VERSION}.jsonl"))
}

fn generated_dir() -> PathBuf {
    root().join("generated")
}

fn recorded() -> Vec<Json> {
    std::fs::read_to_string(recorded_path())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The sets generated for the server: name, then YAML. Each has an
/// account `sa` in `rbac-<name>` and a bystander account elsewhere.
fn generated() -> Vec<(&'static str, String)> {
    let head = |ns: &str| {
        format!(
            "apiVersion: v1\nkind: Namespace\nmetadata: {{name: {ns}}}\n---\n\
             apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: sa, namespace: {ns}}}\n---\n\
             apiVersion: v1\nkind: Namespace\nmetadata: {{name: k8s-truth-bystander}}\n---\n\
             apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: bystander, namespace: k8s-truth-bystander}}\n"
        )
    };
    let rbac = "apiVersion: rbac.authorization.k8s.io/v1";
    let sets: Vec<(&'static str, &'static str, String)> = vec![
        (
            "g01-aggregation-chain-and-cycle",
            "a chain of aggregated ClusterRoles (A gathers B, B gathers C) and a cycle (E gathers F, F gathers E) fed by a plain role, bound cluster-wide and in a namespace",
            format!(
                "---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g01-a}}\n\
                 aggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{g01/into-a: 'true'}}}}]}}\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g01-b, labels: {{g01/into-a: 'true'}}}}\n\
                 aggregationRule: {{clusterRoleSelectors: [{{matchExpressions: [{{key: g01/into-b, operator: Exists}}]}}]}}\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g01-c, labels: {{g01/into-b: x}}}}\n\
                 rules: [{{apiGroups: [''], resources: [configmaps], verbs: [get, list]}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g01-d, labels: {{g01/into-a: 'true'}}}}\n\
                 rules: [{{apiGroups: [apps], resources: [deployments], verbs: [watch]}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g01-e, labels: {{g01/ring: e}}}}\n\
                 aggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{g01/ring: f}}}}]}}\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g01-f, labels: {{g01/ring: f}}}}\n\
                 aggregationRule: {{clusterRoleSelectors: [{{matchExpressions: [{{key: g01/ring, operator: In, values: [e, g]}}]}}]}}\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g01-g, labels: {{g01/ring: g}}}}\n\
                 rules: [{{apiGroups: [batch], resources: [jobs], verbs: [create]}}]\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: g01-a}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g01-a}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g01}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g01-e, namespace: rbac-g01}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g01-e}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g01}}]\n"
            ),
        ),
        (
            "g02-aggregate-into-default-roles",
            "ClusterRoles labelled aggregate-to-edit and aggregate-to-view (edit feeds admin), bound through the default admin and view roles",
            format!(
                "---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g02-widgets-edit, labels: {{rbac.authorization.k8s.io/aggregate-to-edit: 'true'}}}}\n\
                 rules: [{{apiGroups: [example.com], resources: [widgets], verbs: [create, delete]}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g02-widgets-view, labels: {{rbac.authorization.k8s.io/aggregate-to-view: 'true'}}}}\n\
                 rules: [{{apiGroups: [example.com], resources: [widgets, widgets/status], verbs: [get, list, watch]}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g02-admin, namespace: rbac-g02}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g02}}]\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: g02-bystander-view}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}\n\
                 subjects: [{{kind: ServiceAccount, name: bystander, namespace: k8s-truth-bystander}}]\n"
            ),
        ),
        (
            "g03-groups",
            "bindings to Group system:serviceaccounts, system:serviceaccounts:<ns>, system:authenticated (all reach sa) and system:unauthenticated, system:serviceaccounts:<other> (reach nobody here)",
            format!(
                "---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g03-all-accounts}}\n\
                 rules: [{{apiGroups: [''], resources: [nodes], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: g03-all-accounts}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g03-all-accounts}}\n\
                 subjects: [{{kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccounts'}}]\n\
                 ---\n{rbac}\nkind: Role\nmetadata: {{name: g03-ns, namespace: rbac-g03}}\n\
                 rules: [{{apiGroups: [''], resources: [events], verbs: [create]}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g03-ns, namespace: rbac-g03}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: g03-ns}}\n\
                 subjects: [{{kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccounts:rbac-g03'}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g03-authenticated}}\n\
                 rules: [{{apiGroups: [storage.k8s.io], resources: [storageclasses], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g03-authenticated, namespace: k8s-truth-bystander}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g03-authenticated}}\n\
                 subjects: [{{kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:authenticated'}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g03-nobody}}\n\
                 rules: [{{apiGroups: [''], resources: [secrets], verbs: ['*']}}]\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: g03-nobody}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g03-nobody}}\n\
                 subjects:\n\
                 - {{kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:unauthenticated'}}\n\
                 - {{kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccounts:elsewhere'}}\n\
                 - {{kind: User, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccount:elsewhere:sa'}}\n"
            ),
        ),
        (
            "g04-lists",
            "roles and bindings inside a v1 List and inside typed lists (RoleList, ClusterRoleBindingList) whose items carry no kind",
            format!(
                "---\napiVersion: v1\nkind: List\nitems:\n\
                 - {{apiVersion: rbac.authorization.k8s.io/v1, kind: Role, metadata: {{name: g04-listed, namespace: rbac-g04}}, rules: [{{apiGroups: [''], resources: [services], verbs: [list]}}]}}\n\
                 - {{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {{name: g04-listed, namespace: rbac-g04}}, roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: g04-listed}}, subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g04}}]}}\n\
                 ---\n{rbac}\nkind: RoleList\nitems:\n\
                 - {{metadata: {{name: g04-typed, namespace: rbac-g04}}, rules: [{{apiGroups: [apps], resources: [statefulsets], verbs: [get]}}]}}\n\
                 ---\n{rbac}\nkind: RoleBindingList\nitems:\n\
                 - {{metadata: {{name: g04-typed, namespace: rbac-g04}}, roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: g04-typed}}, subjects: [{{kind: ServiceAccount, name: sa}}]}}\n\
                 ---\n{rbac}\nkind: ClusterRoleList\nitems:\n\
                 - {{metadata: {{name: g04-typed}}, rules: [{{apiGroups: [policy], resources: [poddisruptionbudgets], verbs: [list]}}]}}\n\
                 ---\n{rbac}\nkind: ClusterRoleBindingList\nitems:\n\
                 - {{metadata: {{name: g04-typed}}, roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g04-typed}}, subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g04}}]}}\n"
            ),
        ),
        (
            "g05-resource-names",
            "resourceNames on a Role and a ClusterRole, beside the same resource without names, and on create (which names nothing)",
            format!(
                "---\n{rbac}\nkind: Role\nmetadata: {{name: g05, namespace: rbac-g05}}\n\
                 rules:\n\
                 - {{apiGroups: [''], resources: [configmaps], resourceNames: [app-config, feature-flags], verbs: [get, update]}}\n\
                 - {{apiGroups: [''], resources: [configmaps], verbs: [list]}}\n\
                 - {{apiGroups: [''], resources: [secrets, secrets/status], resourceNames: [tls], verbs: [get, create]}}\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g05, namespace: rbac-g05}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: g05}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g05}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g05}}\n\
                 rules: [{{apiGroups: [apps], resources: [deployments, deployments/scale], resourceNames: [web], verbs: [patch]}}]\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: g05}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g05}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g05}}]\n"
            ),
        ),
        (
            "g06-subresources",
            "subresources: pods/log, pods/exec, every subresource of pods (pods/*), the scale subresource of every resource (*/scale), status only",
            format!(
                "---\n{rbac}\nkind: Role\nmetadata: {{name: g06, namespace: rbac-g06}}\n\
                 rules:\n\
                 - {{apiGroups: [''], resources: [pods/log, pods/exec], verbs: [get, create]}}\n\
                 - {{apiGroups: [''], resources: ['pods/*'], verbs: [get]}}\n\
                 - {{apiGroups: [apps, extensions], resources: ['*/scale'], verbs: [update]}}\n\
                 - {{apiGroups: [batch], resources: [jobs/status], verbs: [patch]}}\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g06, namespace: rbac-g06}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: g06}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g06}}]\n"
            ),
        ),
        (
            "g07-non-resource-urls",
            "non-resource URLs (exact, a trailing *, every URL) bound cluster-wide, and a ClusterRole with URLs bound by a RoleBinding (listed in its namespace, never allowed)",
            format!(
                "---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g07-cluster}}\n\
                 rules:\n\
                 - {{nonResourceURLs: [/healthz, '/metrics/*'], verbs: [get]}}\n\
                 - {{nonResourceURLs: [/debug/flags/v], verbs: [put]}}\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: g07-cluster}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g07-cluster}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g07}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g07-namespaced}}\n\
                 rules:\n\
                 - {{nonResourceURLs: ['*'], verbs: [head]}}\n\
                 - {{apiGroups: [''], resources: [pods], verbs: [list]}}\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g07-namespaced, namespace: rbac-g07}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g07-namespaced}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g07}}]\n"
            ),
        ),
        (
            "g08-accounts-of-workloads",
            "accounts named only by workloads (a Deployment's serviceAccountName, a Job with none: default, a CronJob's deprecated serviceAccount) and a RoleBinding subject without a namespace",
            format!(
                "---\n{rbac}\nkind: Role\nmetadata: {{name: g08, namespace: rbac-g08}}\n\
                 rules: [{{apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, update]}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g08, namespace: rbac-g08}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: g08}}\n\
                 subjects: [{{kind: ServiceAccount, name: runner}}, {{kind: ServiceAccount, name: default}}]\n\
                 ---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: runner, namespace: rbac-g08}}\n\
                 spec:\n  replicas: 0\n  selector: {{matchLabels: {{app: runner}}}}\n\
                 \x20 template:\n    metadata: {{labels: {{app: runner}}}}\n\
                 \x20   spec: {{serviceAccountName: runner, containers: [{{name: c, image: registry.example/runner:1}}]}}\n\
                 ---\napiVersion: batch/v1\nkind: Job\nmetadata: {{name: once, namespace: rbac-g08}}\n\
                 spec:\n  suspend: true\n  template:\n    spec: {{restartPolicy: Never, containers: [{{name: c, image: registry.example/once:1}}]}}\n\
                 ---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {{name: nightly, namespace: rbac-g08}}\n\
                 spec:\n  schedule: '0 3 * * *'\n  suspend: true\n  jobTemplate:\n    spec:\n      template:\n\
                 \x20       spec: {{serviceAccount: nightly, restartPolicy: Never, containers: [{{name: c, image: registry.example/nightly:1}}]}}\n"
            ),
        ),
        (
            "g09-wildcards-and-escalation",
            "every verb, group and resource of a namespace through a Role; escalate, bind and impersonate on named objects cluster-wide",
            format!(
                "---\n{rbac}\nkind: Role\nmetadata: {{name: g09, namespace: rbac-g09}}\n\
                 rules: [{{apiGroups: ['*'], resources: ['*'], verbs: ['*']}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g09, namespace: rbac-g09}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: g09}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g09}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g09-escalate}}\n\
                 rules:\n\
                 - {{apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], resourceNames: [view], verbs: [escalate, bind]}}\n\
                 - {{apiGroups: [''], resources: [serviceaccounts, users, groups], verbs: [impersonate]}}\n\
                 - {{apiGroups: [authentication.k8s.io], resources: [userextras/scopes], verbs: [impersonate]}}\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: g09-escalate}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g09-escalate}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g09}}]\n"
            ),
        ),
        (
            "g10-aggregated-roles-with-rules-of-their-own",
            "aggregated ClusterRoles that also write rules: one gathering an aggregated one that gathers a plain one, one that selects itself beside a plain one, one that selects only itself, and one whose selector matches nothing, gathered in turn by another",
            format!(
                "---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g10-a}}\n\
                 aggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{g10/into-a: 'true'}}}}]}}\n\
                 rules: [{{apiGroups: [''], resources: [secrets], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g10-b, labels: {{g10/into-a: 'true'}}}}\n\
                 aggregationRule: {{clusterRoleSelectors: [{{matchExpressions: [{{key: g10/into-b, operator: Exists}}]}}]}}\n\
                 rules: [{{apiGroups: [''], resources: [pods], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g10-c, labels: {{g10/into-b: x}}}}\n\
                 rules: [{{apiGroups: [''], resources: [configmaps], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g10-self, labels: {{g10/self: 'true'}}}}\n\
                 aggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{g10/self: 'true'}}}}]}}\n\
                 rules: [{{apiGroups: [''], resources: [secrets], verbs: [list]}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g10-self-source, labels: {{g10/self: 'true'}}}}\n\
                 rules: [{{apiGroups: [''], resources: [services], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g10-only, labels: {{g10/only: x}}}}\n\
                 aggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{g10/only: x}}}}]}}\n\
                 rules: [{{apiGroups: [''], resources: [endpoints], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g10-hollow, labels: {{g10/outer: 'true'}}}}\n\
                 aggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{g10/none: 'true'}}}}]}}\n\
                 rules: [{{apiGroups: [apps], resources: [replicasets], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g10-outer}}\n\
                 aggregationRule: {{clusterRoleSelectors: [{{matchLabels: {{g10/outer: 'true'}}}}]}}\n\
                 rules: [{{apiGroups: [batch], resources: [jobs], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: g10-a}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g10-a}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g10}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g10-b, namespace: rbac-g10}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g10-b}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g10}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g10-self, namespace: rbac-g10}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g10-self}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g10}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g10-only, namespace: rbac-g10}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g10-only}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g10}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g10-outer, namespace: rbac-g10}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g10-outer}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g10}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g10-hollow, namespace: k8s-truth-bystander}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g10-hollow}}\n\
                 subjects: [{{kind: ServiceAccount, name: bystander, namespace: k8s-truth-bystander}}]\n"
            ),
        ),
        (
            "g11-names-no-account-has",
            "subjects that name no ServiceAccount a token can carry (a User spelled as an account with an uppercase name or three parts, a ServiceAccount subject in an uppercase namespace: users in no ServiceAccount group), a ServiceAccount groups reach as usual, and a workload whose serviceAccountName is empty beside the deprecated serviceAccount",
            format!(
                "---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g11-odd}}\n\
                 rules: [{{apiGroups: [''], resources: [configmaps], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g11-odd, namespace: rbac-g11}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g11-odd}}\n\
                 subjects:\n\
                 - {{kind: User, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccount:rbac-g11:Robot'}}\n\
                 - {{kind: User, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccount:rbac-g11:a:b'}}\n\
                 - {{kind: ServiceAccount, name: sa, namespace: RBAC-G11}}\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g11-group}}\n\
                 rules: [{{apiGroups: [''], resources: [secrets], verbs: [list]}}]\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: g11-group}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g11-group}}\n\
                 subjects: [{{kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccounts:rbac-g11'}}]\n\
                 ---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: runner, namespace: rbac-g11}}\n\
                 ---\n{rbac}\nkind: Role\nmetadata: {{name: g11-runner, namespace: rbac-g11}}\n\
                 rules: [{{apiGroups: [apps], resources: [deployments], verbs: [watch]}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g11-runner, namespace: rbac-g11}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: g11-runner}}\n\
                 subjects: [{{kind: ServiceAccount, name: runner}}]\n\
                 ---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: g11-old-field, namespace: rbac-g11}}\n\
                 spec:\n  replicas: 0\n  selector: {{matchLabels: {{app: g11}}}}\n  template:\n\
                 \x20   metadata: {{labels: {{app: g11}}}}\n\
                 \x20   spec: {{serviceAccountName: '', serviceAccount: runner, containers: [{{name: c, image: 'registry.example/x:1'}}]}}\n"
            ),
        ),
        (
            "g12-bindings-to-missing-roles",
            "bindings whose role does not exist (a ClusterRole of no name the cluster has, a Role of another namespace): they grant nothing, but the accounts they alone name (a ServiceAccount subject, a User spelled as one) are accounts all the same, with what their groups are given",
            format!(
                "---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: rbac-g12-other}}\n\
                 ---\n{rbac}\nkind: Role\nmetadata: {{name: g12-elsewhere, namespace: rbac-g12-other}}\n\
                 rules: [{{apiGroups: [''], resources: [pods], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g12-missing, namespace: rbac-g12}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g12-missing}}\n\
                 subjects:\n\
                 - {{kind: ServiceAccount, name: ghost, namespace: rbac-g12}}\n\
                 - {{kind: User, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccount:rbac-g12:spelled'}}\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g12-elsewhere, namespace: rbac-g12}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: g12-elsewhere}}\n\
                 subjects: [{{kind: ServiceAccount, name: wanderer, namespace: rbac-g12-other}}]\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: g12-missing}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g12-missing}}\n\
                 subjects: [{{kind: ServiceAccount, name: drifter, namespace: rbac-g12}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g12-view, namespace: rbac-g12}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}\n\
                 subjects: [{{kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccounts:rbac-g12'}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: g12-everyone}}\n\
                 rules: [{{apiGroups: [''], resources: [configmaps], verbs: [list]}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g12-everyone, namespace: rbac-g12-other}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: g12-everyone}}\n\
                 subjects: [{{kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:serviceaccounts'}}]\n"
            ),
        ),
        (
            "g13-objects-named-as-defaults",
            "objects named as the cluster's default ones, applied over them (server-side, taking the fields other managers hold): `view` with rules of its own keeps its aggregation rule and so the rules it gathers; `system:aggregate-to-edit` written without labels keeps its label and so stays in `edit`; `system:discovery`'s binding with other subjects loses `system:authenticated`; `system:basic-user`'s binding to another role is refused (roleRef is immutable) and the default stands",
            format!(
                "---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: view}}\n\
                 rules: [{{apiGroups: [''], resources: [configmaps], verbs: [get]}}]\n\
                 ---\n{rbac}\nkind: ClusterRole\nmetadata: {{name: 'system:aggregate-to-edit'}}\n\
                 rules: [{{apiGroups: [''], resources: [secrets], verbs: [list]}}]\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: 'system:discovery'}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: 'system:discovery'}}\n\
                 subjects: [{{kind: ServiceAccount, name: bystander, namespace: k8s-truth-bystander}}]\n\
                 ---\n{rbac}\nkind: ClusterRoleBinding\nmetadata: {{name: 'system:basic-user'}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}\n\
                 subjects: [{{kind: Group, apiGroup: rbac.authorization.k8s.io, name: 'system:authenticated'}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g13-view, namespace: rbac-g13}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g13}}]\n\
                 ---\n{rbac}\nkind: RoleBinding\nmetadata: {{name: g13-edit, namespace: k8s-truth-bystander}}\n\
                 roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}}\n\
                 subjects: [{{kind: ServiceAccount, name: sa, namespace: rbac-g13}}]\n"
            ),
        ),
    ];
    sets.into_iter()
        .map(|(name, about, body)| {
            let ns = format!("rbac-{}", &name[..3]);
            (
                name,
                format!(
                    "# {name}: {about}\n# Generated by tests/it/cluster_rbac.rs (CHARTGEN_RECORD=1); the server's answers are in ../recorded-{SERVER_VERSION}.jsonl.\n{}{body}",
                    head(&ns)
                ),
            )
        })
        .collect()
}

/// The ServiceAccounts of a set: declared, named by a binding (or by a
/// User subject spelled `system:serviceaccount:NS:NAME`), or run by a
/// workload (`default` when its pod names none).
fn accounts(objects: &[Json]) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for object in objects {
        let namespace = object["metadata"]["namespace"]
            .as_str()
            .unwrap_or("default");
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        let kind = object["kind"].as_str().unwrap_or_default();
        match kind {
            "ServiceAccount" => {
                found.insert(format!("{namespace}/{name}"));
            }
            "RoleBinding" | "ClusterRoleBinding" => {
                for subject in object["subjects"].as_array().into_iter().flatten() {
                    let name = subject["name"].as_str().unwrap_or_default();
                    match subject["kind"].as_str() {
                        Some("ServiceAccount") => {
                            let ns = subject["namespace"].as_str().unwrap_or(namespace);
                            found.insert(format!("{ns}/{name}"));
                        }
                        Some("User") => {
                            if let Some((ns, sa)) = name
                                .strip_prefix("system:serviceaccount:")
                                .and_then(|rest| rest.split_once(':'))
                            {
                                found.insert(format!("{ns}/{sa}"));
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {
                let pod = match kind {
                    "Pod" => &object["spec"],
                    "Deployment"
                    | "ReplicaSet"
                    | "StatefulSet"
                    | "DaemonSet"
                    | "Job"
                    | "ReplicationController" => &object["spec"]["template"]["spec"],
                    "CronJob" => &object["spec"]["jobTemplate"]["spec"]["template"]["spec"],
                    _ => continue,
                };
                let account = [&pod["serviceAccountName"], &pod["serviceAccount"]]
                    .into_iter()
                    .find_map(|name| name.as_str().filter(|n| !n.is_empty()))
                    .unwrap_or("default");
                found.insert(format!("{namespace}/{account}"));
            }
        }
    }
    found
}

/// The namespaces of a set (its objects', its Namespaces, its accounts'),
/// `default`, and the probe namespace.
fn namespaces(objects: &[Json], accounts: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found: BTreeSet<String> = objects
        .iter()
        .filter_map(|o| {
            if o["kind"] == "Namespace" {
                o["metadata"]["name"].as_str()
            } else {
                o["metadata"]["namespace"].as_str()
            }
        })
        .map(str::to_owned)
        .collect();
    found.extend(
        accounts
            .iter()
            .map(|a| a.split_once('/').unwrap().0.to_owned()),
    );
    found.insert("default".to_owned());
    found.insert(PROBE.to_owned());
    found
}

/// The server's SelfSubjectRulesReview for `account` (`NS/NAME`) in each
/// of `namespaces`, as the account (with its groups).
fn reviews(
    server: &Server,
    account: &str,
    namespaces: &BTreeSet<String>,
) -> BTreeMap<String, Json> {
    let (ns, name) = account.split_once('/').unwrap();
    server.rules_reviews(
        &format!("system:serviceaccount:{ns}:{name}"),
        namespaces.iter().map(String::as_str),
    )
}

/// chartgen's tuples from `chartgen rbac --output json` for one subject in
/// `namespace` (what applies cluster-wide and there).
fn json_tuples(subject: &Json, namespace: &str) -> (BTreeSet<Tuple>, BTreeSet<UrlTuple>) {
    let applies = |scope: &Json| scope == "cluster" || scope["namespace"] == namespace;
    let mut resources = BTreeSet::new();
    for p in subject["permissions"].as_array().into_iter().flatten() {
        if !applies(&p["scope"]) {
            continue;
        }
        // `resource.group`, the group given apart: a rule's resource may
        // hold a dot.
        let group = p["group"].as_str().unwrap();
        let resource = p["resource"].as_str().unwrap();
        let resource = match group {
            "" => resource,
            _ => resource.strip_suffix(&format!(".{group}")).unwrap(),
        };
        let names = strings(&p["resource_names"]);
        let names: Vec<Option<String>> = if names.is_empty() {
            vec![None]
        } else {
            names.into_iter().map(Some).collect()
        };
        for name in &names {
            for verb in strings(&p["verbs"]) {
                resources.insert((group.to_owned(), resource.to_owned(), name.clone(), verb));
            }
        }
    }
    let mut urls = BTreeSet::new();
    for p in subject["non_resource"].as_array().into_iter().flatten() {
        if applies(&p["scope"]) {
            for verb in strings(&p["verbs"]) {
                urls.insert((p["url"].as_str().unwrap().to_owned(), verb));
            }
        }
    }
    (resources, urls)
}

fn difference(
    what: &str,
    server: &(BTreeSet<Tuple>, BTreeSet<UrlTuple>),
    other: &(BTreeSet<Tuple>, BTreeSet<UrlTuple>),
) -> Option<String> {
    (server != other).then(|| {
        format!(
            "{what}:\n  only the server: {:?} {:?}\n  only the other side: {:?} {:?}",
            server.0.difference(&other.0).collect::<Vec<_>>(),
            server.1.difference(&other.1).collect::<Vec<_>>(),
            other.0.difference(&server.0).collect::<Vec<_>>(),
            other.1.difference(&server.1).collect::<Vec<_>>(),
        )
    })
}

/// Asks the server for `account` until its answer in every namespace is
/// `expected` (the authorizer's informers trail a write by milliseconds),
/// at most five times; returns the last answers.
fn settled(
    server: &Server,
    account: &str,
    namespaces: &BTreeSet<String>,
    expected: impl Fn(&str) -> (BTreeSet<Tuple>, BTreeSet<UrlTuple>),
) -> BTreeMap<String, Json> {
    let mut answers = reviews(server, account, namespaces);
    for _ in 0..5 {
        if answers
            .iter()
            .all(|(ns, status)| server_tuples(status) == expected(ns))
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
        answers = reviews(server, account, namespaces);
    }
    answers
}

/// The cluster's default RBAC objects that `objects` name, as the server
/// holds them now, ready to be put back with `kubectl replace`.
fn defaults_in(server: &Server, objects: &[Json]) -> Vec<Json> {
    let rbac = ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"];
    (objects.iter())
        .filter(|o| rbac.contains(&o["kind"].as_str().unwrap_or_default()))
        .filter(|o| defaults::may_be_default(o))
        .filter_map(|o| {
            let kind = o["kind"].as_str().unwrap().to_lowercase();
            let name = o["metadata"]["name"].as_str().unwrap();
            let mut args = vec!["get", &kind, name, "-o", "json", "--ignore-not-found"];
            let namespace = o["metadata"]["namespace"].as_str();
            if let Some(namespace) = namespace {
                args.extend(["-n", namespace]);
            }
            let text = server.kubectl_ok(&args, None);
            let mut held: Json = serde_json::from_str(&text).ok()?;
            let metadata = held["metadata"].as_object_mut()?;
            for key in [
                "resourceVersion",
                "uid",
                "managedFields",
                "creationTimestamp",
            ] {
                metadata.remove(key);
            }
            Some(held)
        })
        .collect()
}

fn recording() -> bool {
    std::env::var_os("CHARTGEN_RECORD").is_some_and(|v| v == "1")
}

/// Every environment's ServiceAccounts: `chartgen rbac --kube-version
/// 1.35` on its bundles is what the server authorizes, in every
/// namespace of the environment, `default` and the probe namespace.
#[test]
fn cluster_rbac_of_every_environment_is_what_the_server_authorizes() {
    let Some(server) = server::server("cluster_rbac_of_every_environment") else {
        return;
    };
    let _alone = server.exclusive();
    // RBAC only: what other tests left grants nothing once every role and
    // binding but the cluster's own is gone (each set starts so).
    server.apply_crds();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (env, bundles) in environments() {
        server.reset_rbac();
        let objects = read(&bundles);
        server.apply_objects(&objects, "chartgen-test");
        server.wait_aggregated();
        let mut args = vec!["rbac", "--output", "json", "--kube-version", "1.35"];
        let paths: Vec<String> = bundles.iter().map(|b| b.display().to_string()).collect();
        args.extend(paths.iter().map(String::as_str));
        let run = crate::harness::chartgen(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let report: Json = serde_json::from_str(&run.stdout).unwrap();
        let subjects = report["subjects"].as_array().unwrap();
        let accounts = accounts(&objects);
        let namespaces = namespaces(&objects, &accounts);
        for account in &accounts {
            let (ns, name) = account.split_once('/').unwrap();
            let subject = subjects.iter().find(|s| {
                s["subject"]["kind"] == "ServiceAccount"
                    && s["subject"]["namespace"] == ns
                    && s["subject"]["name"] == name
            });
            let ours = |namespace: &str| {
                subject.map_or_else(Default::default, |s| json_tuples(s, namespace))
            };
            let answers = settled(&server, account, &namespaces, ours);
            for (namespace, status) in &answers {
                checked += 1;
                let what = format!("{env} {account} in {namespace}");
                wrong.extend(difference(&what, &server_tuples(status), &ours(namespace)));
            }
        }
    }
    server.reset_rbac();
    eprintln!("cluster_rbac: {checked} (environment, account, namespace) compared");
    assert!(checked > 0);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The shared corpus's sets and the generated ones, each applied alone:
/// the server's answer for every account and namespace is chartgen's
/// (library, default roles of 1.35) and what was recorded from the server
/// before (or, with `CHARTGEN_RECORD=1`, becomes the recording).
#[test]
fn cluster_rbac_of_the_corpus_and_generated_sets_is_what_the_server_authorizes() {
    let Some(server) = server::server("cluster_rbac_of_the_corpus_and_generated_sets") else {
        return;
    };
    let record = recording();
    let version = server.version();
    assert_eq!(version, SERVER_VERSION, "the control plane's release");
    let generated = generated();
    if !record {
        for (name, text) in &generated {
            let committed = std::fs::read_to_string(generated_dir().join(format!("{name}.yaml")))
                .unwrap_or_default();
            assert_eq!(
                &committed, text,
                "the generated set {name} changed: record again (CHARTGEN_RECORD=1)"
            );
        }
    }
    let before: BTreeMap<(String, String, String), Json> = if record {
        BTreeMap::new()
    } else {
        recorded()
            .into_iter()
            .map(|l| {
                let key = (
                    l["set"].as_str().unwrap().to_owned(),
                    l["sa"].as_str().unwrap().to_owned(),
                    l["namespace"].as_str().unwrap().to_owned(),
                );
                (key, l)
            })
            .collect()
    };
    // The sets: the corpus's by name, then the generated (read from their
    // text, as they will be committed).
    let corpus = root().join("sets");
    let mut sets: Vec<(String, Vec<Json>)> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") || p.is_dir())
        .map(|p| {
            let name = p.file_stem().unwrap().to_str().unwrap().to_owned();
            let objects = objects(&name);
            (name, objects)
        })
        .collect();
    sets.sort_by(|a, b| a.0.cmp(&b.0));
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    for (name, text) in &generated {
        let path = dir.join(format!("{name}.yaml"));
        std::fs::write(&path, text).unwrap();
        sets.push(((*name).to_owned(), read(&[path])));
    }

    let _alone = server.exclusive();
    // RBAC only: what other tests left grants nothing once every role and
    // binding but the cluster's own is gone (each set starts so).
    server.apply_crds();
    let mut lines = Vec::new();
    let mut wrong = Vec::new();
    for (set, objects) in &sets {
        server.reset_rbac();
        // The cluster's default objects a set applies over, as they were,
        // to put back after it (`reset_rbac` keeps them).
        let overwritten = defaults_in(&server, objects);
        let applied = match overwritten.is_empty() {
            true => server.apply_objects(objects, "chartgen-test"),
            false => server.apply_each(objects, "chartgen-test"),
        };
        server.wait_aggregated();
        let all = permissions_with(objects, Cluster::RolesAndBindings, VERSION).unwrap();
        let accounts = accounts(objects);
        let namespaces = namespaces(objects, &accounts);
        for account in &accounts {
            let held = account_of(&all, account);
            let ours = |namespace: &str| {
                held.map_or_else(Default::default, |h| chartgen_tuples(h, namespace))
            };
            let answers = settled(&server, account, &namespaces, ours);
            for (namespace, status) in answers {
                let what = format!("{set} {account} in {namespace}");
                let live = server_tuples(&status);
                wrong.extend(difference(
                    &format!("{what} (chartgen)"),
                    &live,
                    &ours(&namespace),
                ));
                if record {
                    let (ns, name) = account.split_once('/').unwrap();
                    let command = format!(
                        "kubectl auth can-i --list --as=system:serviceaccount:{ns}:{name} -n {namespace}"
                    );
                    let as_user = format!("--as=system:serviceaccount:{ns}:{name}");
                    let text = server.kubectl_ok(
                        &["auth", "can-i", "--list", &as_user, "-n", &namespace],
                        None,
                    );
                    lines.push(json!({
                        "set": set, "sa": account, "namespace": namespace,
                        "probe_namespace": namespace == PROBE,
                        "command": command, "cani_text": text, "ssrr": status,
                        "server_version": version,
                        "admit": [format!(
                            "# {} accepted, {} refused, {} accepted with warnings",
                            applied.applied.len(), applied.refused.len(), applied.warnings.len()
                        )],
                    }));
                } else {
                    let key = (set.clone(), account.clone(), namespace.clone());
                    match before.get(&key) {
                        Some(line) => wrong.extend(difference(
                            &format!("{what} (recorded from {SERVER_VERSION})"),
                            &live,
                            &server_tuples(&line["ssrr"]),
                        )),
                        None => wrong.push(format!(
                            "{what}: not recorded: record again (CHARTGEN_RECORD=1)"
                        )),
                    }
                }
            }
        }
        for object in &overwritten {
            server.kubectl_ok(&["replace", "-f", "-"], Some(&object.to_string()));
        }
    }
    server.reset_rbac();
    if record {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(recorded_path(), text).unwrap();
        std::fs::create_dir_all(generated_dir()).unwrap();
        for (name, text) in &generated {
            std::fs::write(generated_dir().join(format!("{name}.yaml")), text).unwrap();
        }
        eprintln!(
            "recorded {} answers of {SERVER_VERSION} into {}",
            lines.len(),
            recorded_path().display()
        );
    }
    assert!(
        wrong.is_empty(),
        "{} disagree:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Without a server: chartgen's effective permissions (default roles of
/// 1.35) for every recorded (set, account, namespace) are what v1.35.4
/// answered, and every set of the corpus and every generated set is
/// recorded.
#[test]
fn every_account_holds_what_v1_35_4_answered() {
    let lines = recorded();
    assert!(lines.iter().all(|l| l["server_version"] == SERVER_VERSION));
    let sets: BTreeSet<&str> = lines.iter().filter_map(|l| l["set"].as_str()).collect();
    let mut expected: BTreeSet<String> = std::fs::read_dir(root().join("sets"))
        .unwrap()
        .chain(std::fs::read_dir(generated_dir()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") || p.is_dir())
        .map(|p| p.file_stem().unwrap().to_str().unwrap().to_owned())
        .collect();
    expected.retain(|s| !set_paths(s).is_empty());
    assert_eq!(
        sets,
        expected.iter().map(String::as_str).collect(),
        "every set is recorded"
    );
    let wrong = disagreements_in(&lines, VERSION);
    assert_none_disagree(&wrong, lines.len());
}
