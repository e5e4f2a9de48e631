//! Rendering the plan through the minijinja templates in `templates/`.
//!
//! Templates are compiled into the binary (see `build.rs`; a syntax error
//! fails the build). Rendering is strict: an undefined variable or attribute
//! is an error naming the template and line, never an empty field. Every
//! `{{ value }}` goes through [`emit::flow`], so it lands as one YAML scalar
//! or flow collection whatever it holds; only macro output (already laid out
//! by a template) is written as it is, and the `safe` and `tojson` filters,
//! which would bypass that, are removed. What the interpolations write is
//! counted against [`OUTPUT_BUDGET`], so values that multiply (labels in
//! every object) stop the render before it takes gigabytes.

use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Serde, Value as TemplateValue};
use minijinja::{AutoEscape, Environment, UndefinedBehavior};

use crate::error::Error;
use crate::model::Values;
use crate::plan::Plan;
use kubernetes::emit;
// A template's output and its trace are what `manifest` parses back.
use kubernetes::manifest::{Output, Rendered, Trace};

pub mod projects;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/templates.rs"));
}

/// The templates, by name relative to `templates/`.
pub use embedded::TEMPLATES;

/// The environment variable naming a directory to read templates from at
/// run time instead of the embedded ones: for template authors, who can
/// iterate without rebuilding. Syntax errors are then reported at run time.
/// Set but empty, it is unset ([`templates_dir`]).
pub const TEMPLATES_DIR_VAR: &str = "CHARTGEN_TEMPLATES";

/// The folder `$CHARTGEN_TEMPLATES` names; `None` when it is unset or
/// empty (`CHARTGEN_TEMPLATES= chartgen render` renders with the built-in
/// templates, as most tools read an empty variable).
pub fn templates_dir() -> Option<std::ffi::OsString> {
    std::env::var_os(TEMPLATES_DIR_VAR).filter(|dir| !dir.is_empty())
}

/// Most bytes the interpolations of one render may write (each bundle and
/// the exemptions artifact are one render each): 64 MiB. The largest
/// environment renders about 35 KB, so this is some two thousand times
/// any real output, yet a render this size is still parsed back, checked
/// and written in well under the memory of a small CI runner. Values within
/// their own budgets can multiply (labels and annotations written into
/// every object, once per project): past this the render stops, before the
/// output exists in full. Interpolations inside macros count again when the
/// macro's output is written, so the budget is conservative.
pub const OUTPUT_BUDGET: usize = 64 << 20;

thread_local! {
    /// What the current render's interpolations wrote so far.
    static WRITTEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Whether the last render on this thread stopped at [`OUTPUT_BUDGET`].
pub fn output_budget_spent() -> bool {
    WRITTEN.get() > OUTPUT_BUDGET
}

/// Counts `text` against [`OUTPUT_BUDGET`], failing the render past it.
fn spend(text: &str) -> Result<(), minijinja::Error> {
    let written = WRITTEN.get().saturating_add(text.len());
    WRITTEN.set(written);
    if written > OUTPUT_BUDGET {
        return Err(minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            format!(
                "the render wrote more than {} MiB, the output budget",
                OUTPUT_BUDGET >> 20
            ),
        ));
    }
    Ok(())
}

/// The folder of the templates of the Kata bundle.
pub const KATA_DIR: &str = "kata/";

/// The template of the Kyverno exemptions artifact.
pub const EXEMPTIONS_TEMPLATE: &str = "artifacts/kyverno-exemptions.yaml";

/// The templates and which of them render objects.
pub struct Templates {
    /// The environment holding every template.
    pub env: Environment<'static>,
    /// The release's object templates: every top-level file not starting
    /// with `_`, sorted.
    pub objects: Vec<String>,
    /// The Kata bundle's object templates: the files in `kata/`, sorted.
    pub kata: Vec<String>,
    /// Whether these are the built-in templates, not a
    /// `$CHARTGEN_TEMPLATES` folder's: [`render_bundle`] then writes the
    /// BuildProjects without the engine ([`projects`]).
    pub builtin: bool,
}

/// The provenance line of a render with templates from
/// `$CHARTGEN_TEMPLATES` (a YAML comment naming the folder), or `None`
/// with the built-in templates: `render` writes it at the top of the
/// stream and into each kustomization it writes.
pub fn templates_provenance() -> Option<String> {
    let dir = templates_dir()?;
    let shown = kubernetes::text::printable(&std::path::PathBuf::from(dir).display().to_string())
        .replace(['\n', '\r'], " ");
    Some(format!(
        "# Rendered with the templates of {shown} (${TEMPLATES_DIR_VAR}), not the built-in ones."
    ))
}

/// The templates: embedded, or read from `$CHARTGEN_TEMPLATES` when set.
pub fn templates() -> Result<Templates, Error> {
    templates_in(environment(None))
}

/// The templates with a formatter that also hands every interpolation, the
/// value and the text it wrote, to `observe` (`explain` records with it);
/// `render` never pays for it, as it uses [`templates`].
pub fn observed_templates(observe: Observer) -> Result<Templates, Error> {
    templates_in(environment(Some(observe)))
}

/// What an observed formatter calls after each interpolation: the value
/// and the text it wrote.
pub type Observer = fn(&TemplateValue, &str);

fn templates_in(mut env: Environment<'static>) -> Result<Templates, Error> {
    let mut names: Vec<String> = Vec::new();
    let dir = templates_dir();
    let builtin = dir.is_none();
    match dir {
        None => {
            for (name, source) in TEMPLATES {
                env.add_template(name, source)
                    .expect("templates are compiled by build.rs");
                names.push((*name).to_owned());
            }
        }
        Some(dir) => {
            let dir = std::path::PathBuf::from(dir);
            let shown = kubernetes::text::printable(&dir.display().to_string()).into_owned();
            for (name, source) in read_dir_templates(&dir)? {
                env.add_template_owned(name.clone(), source)
                    .map_err(|e| template_fault(&name, e))?;
                names.push(name);
            }
            // A folder that lacks a template would render a chart without
            // its objects, silently: every built-in one is needed (a
            // folder may add templates of its own).
            let mut missing: Vec<&str> = (TEMPLATES.iter())
                .map(|(name, _)| *name)
                .filter(|name| !names.iter().any(|n| n == name))
                .collect();
            missing.sort_unstable();
            if !missing.is_empty() {
                return Err(Error::usage(format!(
                    "${TEMPLATES_DIR_VAR} names {shown}, which lacks {}: the chart needs every built-in template; copy templates/ whole and edit the copy",
                    missing
                        .iter()
                        .map(|name| format!("templates/{name}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            // Said once per run, however many renders (`--all`).
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                kubernetes::terminal::note(&format!(
                    "rendering with the templates of {shown} (${TEMPLATES_DIR_VAR}), not the built-in ones"
                ));
            });
        }
    }
    let object = |name: &str| !name.contains('/') && !name.starts_with('_');
    let mut objects: Vec<String> = names.iter().filter(|n| object(n)).cloned().collect();
    objects.sort();
    let mut kata: Vec<String> = names
        .iter()
        .filter(|n| n.strip_prefix(KATA_DIR).is_some_and(object))
        .cloned()
        .collect();
    kata.sort();
    Ok(Templates {
        env,
        objects,
        kata,
        builtin,
    })
}

fn read_dir_templates(root: &std::path::Path) -> Result<Vec<(String, String)>, Error> {
    let io = |path: &std::path::Path, source| Error::ReadTemplates {
        path: path.display().to_string(),
        source,
    };
    let mut found = Vec::new();
    for entry in kubernetes::files::walk(root) {
        let entry = entry.map_err(|e| {
            let at = e.path().unwrap_or(root).to_path_buf();
            io(&at, kubernetes::files::walk_error(e))
        })?;
        if entry.file_type().is_dir() {
            continue;
        }
        let path = entry.path();
        let name = path
            .strip_prefix(root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        let source = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
        found.push((name, source));
    }
    Ok(found)
}

/// The environment, strict and YAML-escaping, without templates; with
/// `observe`, told of every interpolation.
fn environment(observe: Option<Observer>) -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_syntax(
        SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .build()
            .expect("the default delimiters are valid"),
    );
    env.set_auto_escape_callback(|_| AutoEscape::Custom("yaml".into()));
    match observe {
        None => env.set_formatter(|out, _state, value| {
            if value.is_safe() {
                let text = value.as_str().unwrap_or_default();
                spend(text)?;
                return out.write_str(text).map_err(minijinja::Error::from);
            }
            let text = flow(value)?;
            spend(&text)?;
            out.write_str(&text).map_err(minijinja::Error::from)
        }),
        Some(observe) => env.set_formatter(move |out, _state, value| {
            let text = match value.is_safe() {
                true => value.as_str().unwrap_or_default().to_owned(),
                false => flow(value)?,
            };
            spend(&text)?;
            observe(value, &text);
            out.write_str(&text).map_err(minijinja::Error::from)
        }),
    }
    env.remove_filter("safe");
    env.remove_filter("tojson");
    env
}

/// An interpolation as one YAML scalar or flow collection ([`emit::flow`]).
fn flow(value: &TemplateValue) -> Result<String, minijinja::Error> {
    // Most interpolations are strings, and maps and lists of them: written
    // without a JSON copy.
    let mut out = String::new();
    if flow_direct(value, &mut out).is_some() {
        return Ok(out);
    }
    let json = serde_json::to_value(value).map_err(|e| {
        minijinja::Error::new(
            minijinja::ErrorKind::BadSerialization,
            format!("cannot write {} as YAML: {e}", value.kind()),
        )
    })?;
    Ok(emit::flow(&json))
}

/// Appends `value` as [`flow`] writes it through JSON ([`emit::flow`]),
/// walking the template value itself: strings, booleans, none, and maps
/// (with string keys) and lists of them. `None` for anything else (a
/// number, bytes, a plain object, an invalid value, a key that is no
/// string), which the JSON path writes; `out` is then left partial.
fn flow_direct(value: &TemplateValue, out: &mut String) -> Option<()> {
    use minijinja::value::{ObjectRepr, ValueKind};
    match value.kind() {
        ValueKind::String => emit::push_flow_string(value.as_str()?, out),
        ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
        ValueKind::None => out.push_str("null"),
        ValueKind::Seq | ValueKind::Iterable => {
            let object = value.as_object()?;
            if !matches!(object.repr(), ObjectRepr::Seq | ObjectRepr::Iterable) {
                return None;
            }
            out.push('[');
            for (i, item) in object.try_iter()?.enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                flow_direct(&item, out)?;
            }
            out.push(']');
        }
        ValueKind::Map => {
            let object = value.as_object()?;
            if !matches!(object.repr(), ObjectRepr::Map) {
                return None;
            }
            out.push('{');
            for (i, (key, item)) in object.try_iter_pairs()?.enumerate() {
                if key.kind() != ValueKind::String {
                    return None;
                }
                if i > 0 {
                    out.push_str(", ");
                }
                emit::push_flow_string(key.as_str()?, out);
                out.push_str(": ");
                flow_direct(&item, out)?;
            }
            out.push('}');
        }
        _ => return None,
    }
    Some(())
}

/// The plan as the templates read it: converted once for every template
/// of a render (a copy of every value of the plan: 17 M instructions at
/// 1,000 projects).
pub fn plan_value(plan: &Plan<'_>) -> TemplateValue {
    TemplateValue::from(Serde(plan))
}

/// The plan as [`render_bundle`] hands it to the templates. With the
/// built-in templates (`shown`: the values without their BuildProjects,
/// [`Values::without_projects`]), which read the BuildProjects only in the
/// template the writer takes over ([`projects`]): without `plan.projects`
/// and with `shown` as `plan.values` (at 5,000 projects the two lists were
/// most of the conversion, and dropping the converted copy after the
/// render was more again: BENCHMARKS.md). Otherwise, `shown` being
/// `None`, [`plan_value`].
pub fn bundle_context<'v>(plan: &mut Plan<'v>, shown: Option<&'v Values>) -> TemplateValue {
    let Some(shown) = shown else {
        return plan_value(plan);
    };
    let projects = std::mem::take(&mut plan.projects);
    let values = std::mem::replace(&mut plan.values, shown);
    let context = plan_value(plan);
    (plan.projects, plan.values) = (projects, values);
    context
}

/// Renders each of the object templates `names` with `plan` ([`plan_value`]).
pub fn render_objects(
    templates: &Templates,
    names: &[String],
    plan: &TemplateValue,
) -> Result<Vec<Rendered>, Error> {
    render_objects_with(templates, names, plan, |_| {})
}

/// Renders each of the object templates `names` with `plan` given as a
/// template value, calling `done` after each template (`explain` collects
/// what its observer saw there); one output budget for them all.
pub fn render_objects_with(
    templates: &Templates,
    names: &[String],
    plan: &TemplateValue,
    mut done: impl FnMut(&Rendered),
) -> Result<Vec<Rendered>, Error> {
    WRITTEN.set(0);
    names
        .iter()
        .map(|template| {
            let (text, trace) = render_traced(&templates.env, template, plan)?;
            let rendered = Rendered {
                template: template.clone(),
                text,
                trace,
            };
            done(&rendered);
            Ok(rendered)
        })
        .collect()
}

/// Renders each of the object templates `names` as `render` needs them:
/// the BuildProjects of the built-in templates written directly, objects
/// and all ([`projects::build`]; the same text, trace, objects and budget),
/// every other template through the engine with `context`
/// ([`bundle_context`] of `plan`), and the BuildProjects near a limit with
/// the whole plan. One output budget for them all.
pub fn render_bundle(
    templates: &Templates,
    names: &[String],
    plan: &Plan<'_>,
    context: &TemplateValue,
) -> Result<Vec<Output>, Error> {
    WRITTEN.set(0);
    names
        .iter()
        .map(|template| {
            if templates.builtin
                && template == projects::TEMPLATE
                && let Some((built, written)) = projects::build(plan, WRITTEN.get())
            {
                WRITTEN.set(written);
                return Ok(Output::Built(built));
            }
            let whole;
            let context = match templates.builtin && template == projects::TEMPLATE {
                true => {
                    whole = plan_value(plan);
                    &whole
                }
                false => context,
            };
            let (text, trace) = render_traced(&templates.env, template, context)?;
            Ok(Output::Text(Rendered {
                template: template.clone(),
                text,
                trace,
            }))
        })
        .collect()
}

/// Renders one template (such as `artifacts/kyverno-exemptions.yaml`)
/// with `plan` ([`plan_value`]).
pub fn render_template(
    env: &Environment<'static>,
    template: &str,
    plan: &TemplateValue,
) -> Result<String, Error> {
    WRITTEN.set(0);
    render_one(env, template, plan)
}

fn render_traced(
    env: &Environment<'static>,
    template: &str,
    plan: &TemplateValue,
) -> Result<(String, Trace), Error> {
    let (text, spans) = env
        .get_template(template)
        .and_then(|t| t.render_with_spans(minijinja::context! { plan => plan }))
        .map_err(|e| template_fault(template, e))?;
    let mut trace = Trace::default();
    trace.reserve(spans.len());
    for span in &spans {
        let template = trace.template(span.name());
        trace.push(
            span.output_range(),
            template,
            span.line(),
            span.kind() == minijinja::OutputSpanKind::Raw,
        );
    }
    Ok((text, trace))
}

fn template_fault(template: &str, error: minijinja::Error) -> Error {
    Error::Template {
        template: error.name().unwrap_or(template).to_owned(),
        line: error.line(),
        message: match error.detail() {
            Some(detail) => format!("{}: {detail}", error.kind()),
            None => error.kind().to_string(),
        },
    }
}

fn render_one(
    env: &Environment<'static>,
    template: &str,
    plan: &TemplateValue,
) -> Result<String, Error> {
    env.get_template(template)
        .and_then(|t| t.render(minijinja::context! { plan => plan }))
        .map_err(|e| template_fault(template, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_str(source: &str, plan: serde_json::Value) -> Result<String, minijinja::Error> {
        let env = templates().unwrap().env;
        env.render_str(source, minijinja::context! { plan => Serde(plan) })
    }

    /// The built-in templates read the BuildProjects only where the writer
    /// takes over: every other one renders the same from the context
    /// without them ([`bundle_context`]) as from the whole plan, and with
    /// a folder of templates the context is the whole plan.
    #[test]
    fn the_context_without_the_buildprojects_renders_every_other_template_alike() {
        let mut values = Values::default();
        values.kata.enabled = true;
        values.projects = serde_json::from_value(serde_json::json!([
            {"name": "app", "repository": "https://git.example.com/app.git", "trusted": true},
            {"name": "web", "repository": "https://git.example.com/web.git", "trusted": false},
        ]))
        .unwrap();
        let templates = templates().unwrap();
        let shown = values.without_projects();
        let mut plan = Plan::new(&values);
        let whole = plan_value(&plan);
        let context = bundle_context(&mut plan, Some(&shown));
        assert_eq!(plan.projects.len(), 2, "the plan keeps its BuildProjects");
        assert_eq!(plan.values.projects.len(), 2);
        let exemptions = EXEMPTIONS_TEMPLATE.to_owned();
        let names = (templates.objects.iter().chain(&templates.kata))
            .filter(|name| *name != projects::TEMPLATE)
            .chain([&exemptions]);
        for name in names {
            let render = |context| render_traced(&templates.env, name, context).unwrap().0;
            assert_eq!(render(&context), render(&whole), "{name}");
        }
        let count = |value: Result<TemplateValue, _>| value.unwrap().len();
        assert_eq!(count(context.get_attr("projects")), Some(0));
        assert_eq!(count(whole.get_attr("projects")), Some(2));
        let read = |value: &TemplateValue| value.get_attr("values")?.get_attr("projects");
        assert_eq!(count(read(&context)), Some(0));
        assert_eq!(count(read(&whole)), Some(2));
        let folder = bundle_context(&mut plan, None);
        assert_eq!(count(read(&folder)), Some(2));
    }

    #[test]
    fn interpolations_are_yaml_scalars() {
        let out = render_str(
            "a: {{ plan.x }}\n",
            serde_json::json!({"x": "b\n---\nc: d"}),
        )
        .unwrap();
        assert_eq!(out, "a: \"b\\n---\\nc: d\"\n");
    }

    #[test]
    fn interpolations_walked_directly_write_what_the_json_path_writes() {
        // Each value, and whether it is walked directly (numbers go the JSON way).
        let values = [
            (serde_json::json!("plain"), true),
            (
                serde_json::json!("quote \" backslash \\ tab \t line\nU+0085 \u{85} \u{1fffe} é"),
                true,
            ),
            (serde_json::json!(true), true),
            (serde_json::json!(null), true),
            (serde_json::json!([]), true),
            (serde_json::json!({}), true),
            (
                serde_json::json!(["a", false, null, ["b"], {"c": "d"}]),
                true,
            ),
            (
                serde_json::json!({"z": "first", "a": {"b": [true, "x"]}, "m": null, "": ""}),
                true,
            ),
            (serde_json::json!({"n": 1}), false),
            (serde_json::json!([1.5, -2]), false),
            (serde_json::json!(7), false),
        ];
        for (json, walks) in values {
            let value = TemplateValue::from(Serde(&json));
            let mut direct = String::new();
            assert_eq!(flow_direct(&value, &mut direct).is_some(), walks, "{json}");
            if walks {
                assert_eq!(direct, emit::flow(&json), "{json}");
            }
            assert_eq!(flow(&value).unwrap(), emit::flow(&json), "{json}");
        }
        // A map with keys that are no strings goes the JSON way.
        let value = TemplateValue::from(Serde(std::collections::BTreeMap::from([(1, "one")])));
        assert!(flow_direct(&value, &mut String::new()).is_none());
        assert_eq!(flow(&value).unwrap(), "{\"1\": \"one\"}");
    }

    #[test]
    fn undefined_values_are_errors() {
        let error = render_str("a: {{ plan.missing }}\n", serde_json::json!({})).unwrap_err();
        assert_eq!(error.kind(), minijinja::ErrorKind::UndefinedError);
    }

    #[test]
    fn a_render_error_names_the_template_and_line() {
        let mut env = templates().unwrap().env;
        env.add_template("broken.yaml", "a: 1\nb: {{ plan.nope }}\n")
            .unwrap();
        let plan = TemplateValue::from(Serde(serde_json::json!({})));
        let error = render_one(&env, "broken.yaml", &plan).unwrap_err();
        assert_eq!(
            error.to_string(),
            "templates/broken.yaml:2: undefined value: `plan.nope` is undefined"
        );
    }

    #[test]
    fn a_render_stops_at_the_output_budget() {
        WRITTEN.set(OUTPUT_BUDGET - 4);
        let error = render_str("a: {{ plan.x }}\n", serde_json::json!({"x": "12345"})).unwrap_err();
        assert!(output_budget_spent());
        assert_eq!(
            error.detail(),
            Some("the render wrote more than 64 MiB, the output budget")
        );
        WRITTEN.set(0);
        assert!(render_str("a: {{ plan.x }}\n", serde_json::json!({"x": "12345"})).is_ok());
    }

    #[test]
    fn the_safe_filter_is_gone() {
        let error =
            render_str("a: {{ plan.x | safe }}\n", serde_json::json!({"x": "y"})).unwrap_err();
        assert_eq!(error.kind(), minijinja::ErrorKind::UnknownFilter);
    }
}
