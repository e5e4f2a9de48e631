//! Rules API and IMAGE: what the API server refuses although the OpenAPI
//! schema allows it, and image references the kubelet cannot parse, both
//! judged by [`kubernetes::api`] on every object as the API server
//! validates it, decoded and defaulted ([`kubernetes::kube::as_validated`]).

use kubernetes::api::{ValidKeys, images, problems_remembering};
use kubernetes::kube::KubeSchemas;
use kubernetes::manifest::ObjectScope;

use super::rules::Invariant;
use super::{Context, Findings};

/// Checks every object of `context`. The label and annotation keys found
/// valid are remembered for this run only: the objects mostly share them.
pub fn check(context: &Context<'_>, findings: &mut Findings<'_>, schemas: &KubeSchemas) {
    let read: Vec<Option<_>> = (context.objects.iter())
        .map(|o| kubernetes::kube::as_validated(o, schemas))
        .collect();
    let mut valid = ValidKeys::default();
    for (index, (written, read)) in context.objects.iter().zip(&read).enumerate() {
        let object = read.as_ref().unwrap_or(written);
        let scope = ObjectScope::of(&context.manifests[index].id);
        for (path, message) in problems_remembering(object, scope, &mut valid) {
            findings.report(Invariant::Api, index, &path, message);
        }
        for (path, message) in images(written) {
            findings.report(Invariant::Image, index, &path, message);
        }
    }
}
