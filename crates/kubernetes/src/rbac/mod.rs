//! Effective RBAC on any manifests, as the API server's authorizer
//! decides it ([`resolve`]: roles, bindings, groups, aggregation,
//! `GRANT_BUDGET`), over the input and the cluster's default roles and
//! bindings ([`defaults`]), and the permissions as a table ([`table`]).
//! The chart's RBAC invariants (R1-R6) are rules of their own in
//! the chart's `check::rules`; they ask [`resolve::Rbac`] their questions.

pub mod defaults;
pub mod resolve;
pub mod table;
