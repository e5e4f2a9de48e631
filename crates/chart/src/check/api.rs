//! Rules API and IMAGE: what the API server refuses although the OpenAPI
//! schema allows it, and image references the kubelet cannot parse, both
//! judged by [`kubernetes::api`] on every object.

use kubernetes::api::{images, problems};

use super::{Context, Findings, Invariant};

/// Checks every object of `context`.
pub fn check(context: &Context<'_>, findings: &mut Findings<'_>) {
    for index in 0..context.objects.len() {
        for (path, message) in problems(context.objects[index]) {
            findings.report(Invariant::Api, index, &path, message);
        }
        for (path, message) in images(context.objects[index]) {
            findings.report(Invariant::Image, index, &path, message);
        }
    }
}
