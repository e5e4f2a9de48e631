//! What the rules share; no rule (the build script reads only the files
//! of `rules/` itself).

pub(super) mod grants;
pub(super) mod info;
pub(super) mod namespaces;
