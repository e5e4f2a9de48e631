//! Effective RBAC on any manifests ([`resolve`]: roles, bindings,
//! aggregation, `GRANT_BUDGET`) and `chartgen rbac`'s table ([`table`]).
//! The chart's RBAC invariants (R1-R6) are rules of their own in
//! the chart's `check::rules`; they ask [`Rbac`] their questions.

pub mod resolve;
pub mod table;

pub use resolve::{
    GRANT_BUDGET, Permission, Permissions, Rbac, Scope, Subject, effective_permissions,
    resource_name,
};
pub use table::render_text;
