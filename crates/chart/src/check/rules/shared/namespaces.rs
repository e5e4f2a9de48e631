//! What the topology rules share about namespaces.

use std::collections::HashMap;

use serde_json::Value as Json;

use crate::check::{Class, Context};
use crate::plan::MANAGED_BY;
use kubernetes::json::Field;

/// For each namespace, its Namespace object, else the first object living
/// in it: where a finding about the namespace is reported. The names are
/// borrowed from the objects: no copy per object.
pub(in crate::check::rules) fn namespace_objects<'a>(
    context: &Context<'a>,
) -> HashMap<&'a str, usize> {
    let mut found: HashMap<&'a str, usize> = HashMap::new();
    for (index, object) in context.objects.iter().enumerate() {
        if object.field("kind") == "Namespace"
            && let Some(name) = object.field("metadata").field("name").as_str()
        {
            found.insert(name, index);
        }
    }
    for (index, object) in context.objects.iter().enumerate() {
        if let Some(namespace) = object.field("metadata").field("namespace").as_str() {
            found.entry(namespace).or_insert(index);
        }
    }
    found
}

/// A Namespace object whose class the input shows.
pub(in crate::check::rules) struct ClassedNamespace<'a> {
    /// Its object index.
    pub index: usize,
    /// The object.
    pub object: &'a Json,
    /// Its name.
    pub name: &'a str,
    /// Its class.
    pub class: Class,
    /// Whether chartgen wrote it: it states what chartgen always writes.
    pub ours: bool,
}

/// The Namespace objects whose class the input shows, in input order.
pub(in crate::check::rules) fn classed<'a>(
    context: &'a Context<'_>,
) -> impl Iterator<Item = ClassedNamespace<'a>> + 'a {
    context
        .objects
        .iter()
        .enumerate()
        .filter(|(_, o)| o.field("kind") == "Namespace")
        .filter_map(|(index, object)| {
            let name = object
                .field("metadata")
                .field("name")
                .as_str()
                .unwrap_or_default();
            Some(ClassedNamespace {
                index,
                object,
                name,
                class: context.class_of(name)?,
                ours: object.field("metadata").field("labels").field(MANAGED_BY.0) == MANAGED_BY.1,
            })
        })
}
