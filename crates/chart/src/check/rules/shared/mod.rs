//! What the rules share; no rule (the build script reads only the files
//! of `rules/` itself).

pub(super) mod demand;
pub(super) mod grants;
pub(super) mod info;
pub(super) mod namespaces;
pub(super) mod placements;
