//! The Kubernetes API verbs a grant may name: [`Verb`], and [`NamedVerb`],
//! the verbs a rule's `resourceNames` can restrict. The ADR facts
//! ([`super::adr`]) and the grants ([`super::rbac`]) both speak them.

use serde::Serialize;

/// A Kubernetes API verb. There is deliberately no `*`. Written as
/// [`Verb::name`] says, in the rendered rules and in `check` alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verb {
    /// Read one object.
    Get,
    /// Read all objects.
    List,
    /// Stream changes.
    Watch,
    /// Create an object.
    Create,
    /// Replace an object.
    Update,
    /// Patch an object.
    Patch,
    /// Delete an object.
    Delete,
    /// Delete many objects at once.
    DeleteCollection,
}

impl Verb {
    /// The verb as the API writes it.
    pub fn name(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
            Verb::DeleteCollection => "deletecollection",
        }
    }
}

impl Serialize for Verb {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// A verb whose request names one object, so that a rule's
/// `resourceNames` can restrict it. `create` names no object yet and
/// `deletecollection` none at all: the authorizer never matches a
/// `resourceNames` rule for them, so they are not here. `list` and `watch`
/// match a name only when the request selects one object by
/// `fieldSelector=metadata.name=<name>` (what a client-go informer given
/// that field selector sends); a plain list or watch is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NamedVerb {
    /// Read the named object.
    Get,
    /// List the named object (with a `metadata.name` field selector).
    List,
    /// Watch the named object (with a `metadata.name` field selector).
    Watch,
    /// Replace the named object.
    Update,
    /// Patch the named object.
    Patch,
    /// Delete the named object.
    Delete,
}

impl NamedVerb {
    /// The verb as a rule's `verbs` writes it.
    pub const fn verb(self) -> Verb {
        match self {
            NamedVerb::Get => Verb::Get,
            NamedVerb::List => Verb::List,
            NamedVerb::Watch => Verb::Watch,
            NamedVerb::Update => Verb::Update,
            NamedVerb::Patch => Verb::Patch,
            NamedVerb::Delete => Verb::Delete,
        }
    }

    /// The verb as the API writes it.
    pub fn name(self) -> &'static str {
        self.verb().name()
    }
}
