//! Recording what each interpolation read: the plan handed to the
//! templates as [`Tracked`] objects that log every leaf they give out, and
//! an observer ([`observe`]) that attaches the reads to the interpolation
//! that wrote them. Only `explain` renders this way.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use minijinja::value::{Enumerator, Object, ObjectRepr, Value as TemplateValue};

use kubernetes::location::{KeyPath, Segment};

/// One interpolation: the text it wrote, whether it is a macro's output
/// (written as it is), the plan paths it read, and the plan path of the
/// collection it wrote whole, if it did.
#[derive(Debug)]
pub struct Emission {
    /// What the formatter wrote.
    pub text: String,
    /// A macro's output, laid out by a template.
    pub safe: bool,
    /// The plan leaves it read.
    pub reads: Vec<KeyPath>,
    /// The plan collection it wrote whole (`labels: {{ w.labels }}`).
    pub whole: Option<KeyPath>,
}

/// A leaf read since the last interpolation.
struct Read {
    path: KeyPath,
    value: TemplateValue,
}

#[derive(Default)]
struct Log {
    /// Leaves read since the last interpolation.
    pending: Vec<Read>,
    /// Every string leaf given out, by the address of its text: a value
    /// kept in a variable (`{% set builds = … %}`) and written later is
    /// still the same string. The values are kept alive in `strings`, so
    /// no address is reused.
    by_address: HashMap<usize, KeyPath>,
    strings: Vec<TemplateValue>,
    emissions: Vec<Emission>,
}

thread_local! {
    static LOG: RefCell<Log> = RefCell::new(Log::default());
}

/// Forgets everything recorded on this thread.
pub fn reset() {
    LOG.with_borrow_mut(|log| *log = Log::default());
}

/// The interpolations recorded since the last call (or [`reset`]).
pub fn take_emissions() -> Vec<Emission> {
    LOG.with_borrow_mut(|log| {
        log.pending.clear();
        std::mem::take(&mut log.emissions)
    })
}

/// The plan as a template value whose every access is recorded.
pub fn tracked(plan: serde_json::Value) -> TemplateValue {
    wrap(&Arc::new(plan), KeyPath::root())
}

/// A node of the plan (by its path from `root`) as a template value: a
/// collection stays [`Tracked`]; a leaf is logged as read.
fn wrap(root: &Arc<serde_json::Value>, path: KeyPath) -> TemplateValue {
    let Some(node) = walk(root, &path) else {
        return TemplateValue::UNDEFINED;
    };
    let value = match node {
        serde_json::Value::Object(_) | serde_json::Value::Array(_) => {
            return TemplateValue::from_object(Tracked {
                root: Arc::clone(root),
                path,
            });
        }
        serde_json::Value::Null => return TemplateValue::from(()),
        // A string of its own allocation, never inlined: its address
        // identifies it wherever the template passes it on.
        serde_json::Value::String(s) => TemplateValue::from(Arc::<str>::from(s.as_str())),
        serde_json::Value::Bool(b) => TemplateValue::from(*b),
        serde_json::Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => TemplateValue::from(u),
            (None, Some(i)) => TemplateValue::from(i),
            _ => TemplateValue::from(n.as_f64().unwrap_or(f64::NAN)),
        },
    };
    LOG.with_borrow_mut(|log| {
        if let Some(text) = value.as_str() {
            log.by_address.insert(text.as_ptr() as usize, path.clone());
            log.strings.push(value.clone());
        }
        log.pending.push(Read {
            path,
            value: value.clone(),
        });
    });
    value
}

fn walk<'j>(root: &'j serde_json::Value, path: &KeyPath) -> Option<&'j serde_json::Value> {
    path.0
        .iter()
        .try_fold(root, |node, segment| match (segment, node) {
            (Segment::Key(key), serde_json::Value::Object(map)) => map.get(key),
            (Segment::Index(i), serde_json::Value::Array(items)) => items.get(*i),
            _ => None,
        })
}

/// A mapping or list of the plan, handed to the templates: each access
/// gives out its child, logged when a leaf.
#[derive(Debug)]
pub struct Tracked {
    root: Arc<serde_json::Value>,
    path: KeyPath,
}

impl Tracked {
    fn node(&self) -> Option<&serde_json::Value> {
        walk(&self.root, &self.path)
    }
}

impl Object for Tracked {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        match self.node() {
            Some(serde_json::Value::Array(_)) => ObjectRepr::Seq,
            _ => ObjectRepr::Map,
        }
    }

    fn get_value(self: &Arc<Self>, key: &TemplateValue) -> Option<TemplateValue> {
        let segment = match self.node()? {
            serde_json::Value::Object(map) => {
                let key = key.as_str()?;
                map.contains_key(key)
                    .then(|| Segment::Key(key.to_owned()))?
            }
            serde_json::Value::Array(items) => {
                let index = key.as_usize()?;
                (index < items.len()).then_some(Segment::Index(index))?
            }
            _ => return None,
        };
        let mut path = self.path.clone();
        path.0.push(segment);
        Some(wrap(&self.root, path))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        match self.node() {
            Some(serde_json::Value::Object(map)) => Enumerator::Values(
                map.keys()
                    .map(|k| TemplateValue::from(k.as_str()))
                    .collect(),
            ),
            Some(serde_json::Value::Array(items)) => Enumerator::Seq(items.len()),
            _ => Enumerator::Empty,
        }
    }
}

/// The observer of the recording formatter: what the interpolation that
/// wrote `text` from `value` read.
///
/// A collection written whole read what lies under it. A string the plan
/// gave out is that leaf, however it reached the interpolation. Otherwise
/// (a string built by the template: `"--namespace=" ~ name`, a number) the
/// leaves read since the last interpolation whose text it wrote: a leaf
/// read only to decide (`{% if kata.enabled %}`) is not a source.
pub fn observe(value: &TemplateValue, text: &str) {
    // Nothing that could read the plan runs while the log is borrowed.
    let whole = value
        .downcast_object_ref::<Tracked>()
        .map(|t| t.path.clone());
    let written = match value.as_object() {
        Some(_) => Written::Collection,
        None => Written::Scalar {
            address: value.as_str().map(|s| s.as_ptr() as usize),
            shown: value.to_string(),
        },
    };
    LOG.with_borrow_mut(|log| {
        let pending = std::mem::take(&mut log.pending);
        let reads = match &whole {
            Some(under) => pending
                .into_iter()
                .map(|r| r.path)
                .filter(|p| p.0.starts_with(&under.0))
                .collect(),
            // A list or mapping the template built: what writing it read.
            None if matches!(written, Written::Collection) => {
                pending.into_iter().map(|r| r.path).collect()
            }
            None => scalar_reads(log, value, &written, pending),
        };
        log.emissions.push(Emission {
            text: text.to_owned(),
            safe: value.is_safe(),
            reads,
            whole,
        });
    });
}

/// What an interpolation wrote, as [`observe`] needs it.
enum Written {
    /// A list or mapping.
    Collection,
    /// A string (with the address of its text), number, boolean or none.
    Scalar {
        address: Option<usize>,
        shown: String,
    },
}

fn scalar_reads(
    log: &Log,
    value: &TemplateValue,
    written: &Written,
    pending: Vec<Read>,
) -> Vec<KeyPath> {
    let Written::Scalar { address, shown } = written else {
        return Vec::new();
    };
    if let Some(path) = address.and_then(|a| log.by_address.get(&a)) {
        return vec![path.clone()];
    }
    if address.is_none()
        && let Some(same) = pending.iter().rev().find(|r| r.value == *value)
    {
        return vec![same.path.clone()];
    }
    let mut reads: Vec<KeyPath> = pending
        .into_iter()
        .filter(|r| {
            let part = leaf_text(&r.value);
            !part.is_empty() && shown.contains(&part)
        })
        .map(|r| r.path)
        .collect();
    reads.dedup();
    reads
}

/// A leaf as a template writes it with `~`: a boolean as YAML and JSON
/// write it (`true`), not as minijinja shows it (`True`). Leaves are
/// strings, numbers and booleans: no plan is read here.
fn leaf_text(value: &TemplateValue) -> String {
    match value.kind() {
        minijinja::value::ValueKind::Bool => value.is_true().to_string(),
        _ => value.to_string(),
    }
}
