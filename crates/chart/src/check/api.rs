//! Rules API and IMAGE: what the API server refuses although the OpenAPI
//! schema allows it, and image references the kubelet cannot parse, both
//! judged by [`kubernetes::api`] on every object.

use kubernetes::api::{ValidKeys, images, problems_remembering};

use super::{Context, Findings, Invariant};

/// Checks every object of `context`. The label and annotation keys found
/// valid are remembered for this run only: the objects mostly share them.
pub fn check(context: &Context<'_>, findings: &mut Findings<'_>) {
    let mut valid = ValidKeys::default();
    for index in 0..context.objects.len() {
        for (path, message) in problems_remembering(context.objects[index], &mut valid) {
            findings.report(Invariant::Api, index, &path, message);
        }
        for (path, message) in images(context.objects[index]) {
            findings.report(Invariant::Image, index, &path, message);
        }
    }
}
