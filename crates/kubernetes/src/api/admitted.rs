//! Which roles and bindings exist once applied: the API server refuses a
//! Role, ClusterRole, RoleBinding or ClusterRoleBinding that breaks its
//! schema ([`crate::kube::conformance`]), an `API`
//! rule ([`super::problems`]), or whose apiVersion it does not serve
//! (`rbac.authorization.k8s.io/v1beta1`). Such an object grants nothing;
//! the other objects of the input are applied all the same. Read by the
//! effective permissions ([`crate::rbac`], which names each in a note)
//! and by the diff's, so that both say what [`super::refused`] says of
//! the same object.

use serde_json::Value as Json;

use crate::json::Field as _;
use crate::kube::KubeSchemas;

/// The RBAC kinds whose refusal changes what is granted.
const KINDS: [&str; 4] = ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"];

/// The indexes of the roles and bindings of `objects` the API server
/// refuses, in input order, each with its first reason.
pub fn refused(objects: &[Json], schemas: &KubeSchemas) -> Vec<(usize, String)> {
    let rbac: Vec<(usize, &Json)> = (objects.iter().enumerate())
        .filter(|(_, o)| KINDS.contains(&o.field("kind").as_str().unwrap_or_default()))
        .collect();
    let judged: Vec<&Json> = rbac.iter().map(|&(_, o)| o).collect();
    (super::refused::refused(&judged, schemas, &[]).into_iter())
        .map(|refusal| (rbac[refusal.index].0, refusal.why))
        .collect()
}

/// `objects` without those [`refused`] names.
pub fn without_refused(objects: &[Json], schemas: &KubeSchemas) -> Vec<Json> {
    let refused = refused(objects, schemas);
    let mut next = refused.iter().map(|&(i, _)| i).peekable();
    (objects.iter().enumerate())
        .filter(|&(i, _)| next.next_if_eq(&i).is_none())
        .map(|(_, o)| o.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A role refused by its schema (an explicit null is the field unset,
    /// as `check` reads it), by an API rule, or by its apiVersion, is
    /// named; a valid one and other kinds are not.
    #[test]
    fn names_the_roles_and_bindings_the_server_refuses() {
        let schemas = KubeSchemas::load(crate::kube::DEFAULT_VERSION).unwrap();
        let role = |extra: Json| {
            let mut role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "r", "labels": null},
                "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"], "resourceNames": null}]});
            role.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            role
        };
        let objects = [
            role(json!({"aggregationRule": null})),
            role(json!({"aggregationRule": {}})),
            role(json!({"apiVersion": "rbac.authorization.k8s.io/v1beta1"})),
            role(json!({"rulez": []})),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "dta": {}}),
        ];
        let refused = refused(&objects, &schemas);
        let at: Vec<usize> = refused.iter().map(|&(i, _)| i).collect();
        assert_eq!(at, [1, 2, 3], "{refused:?}");
        assert!(
            refused[0]
                .1
                .starts_with("aggregationRule.clusterRoleSelectors: "),
            "{refused:?}"
        );
        assert_eq!(
            refused[1].1,
            "no rbac.authorization.k8s.io/v1beta1 ClusterRole is served"
        );
        assert_eq!(without_refused(&objects, &schemas).len(), 2);
    }
}
