//! Trust classes (ADR-0006) as marker types.
//!
//! Every namespaced thing in the plan is tagged with the class of the
//! namespace it lives in, so that what a class allows is decided by the
//! compiler: a `Role<Operator>` accepts only resources that implement
//! `NamespacedGrant<Operator>`, a `Volume<Operator>` has no host-path
//! constructor. The trait is sealed: no fourth class can appear outside
//! this module.

use std::marker::PhantomData;

use serde::Serialize;

use super::adr::{self, Exemption};

mod sealed {
    pub trait Sealed {}
}

/// A trust class: operator, builds or system.
pub trait TrustClass: sealed::Sealed + 'static {
    /// The class's name, as it appears in labels and messages.
    const NAME: &'static str;
    /// The Pod Security Admission level its namespace enforces.
    const POD_SECURITY: &'static str;
    /// The policy exemptions its namespace needs (ADR-0006, T4).
    const EXEMPTIONS: &'static [Exemption];
}

/// The hardened control plane: buildd and the gateway. No policy exemption.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Operator;

/// Rootless build daemons running untrusted builds, their certificates and
/// config, and the BuildProjects. Exempt from the security-context policy.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Builds;

/// Privileged Kata node plumbing. Exempt from the security-context and
/// host-path policies.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct System;

impl sealed::Sealed for Operator {}
impl sealed::Sealed for Builds {}
impl sealed::Sealed for System {}

// Each class's facts are ADR-0006's, written once in `adr`.
impl TrustClass for Operator {
    const NAME: &'static str = adr::OPERATOR.name;
    const POD_SECURITY: &'static str = adr::OPERATOR.pod_security;
    const EXEMPTIONS: &'static [Exemption] = adr::OPERATOR.exemptions;
}

impl TrustClass for Builds {
    const NAME: &'static str = adr::BUILDS.name;
    const POD_SECURITY: &'static str = adr::BUILDS.pod_security;
    const EXEMPTIONS: &'static [Exemption] = adr::BUILDS.exemptions;
}

impl TrustClass for System {
    const NAME: &'static str = adr::SYSTEM.name;
    const POD_SECURITY: &'static str = adr::SYSTEM.pod_security;
    const EXEMPTIONS: &'static [Exemption] = adr::SYSTEM.exemptions;
}

/// A namespace of trust class `C`.
#[derive(Debug, Serialize)]
pub struct Namespace<C: TrustClass> {
    name: String,
    #[serde(skip)]
    class: PhantomData<C>,
}

impl<C: TrustClass> Clone for Namespace<C> {
    fn clone(&self) -> Self {
        Namespace::new(self.name.clone())
    }
}

impl<C: TrustClass> Namespace<C> {
    /// The namespace named `name`, holding class `C`.
    pub fn new(name: impl Into<String>) -> Self {
        Namespace {
            name: name.into(),
            class: PhantomData,
        }
    }

    /// The namespace's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}
