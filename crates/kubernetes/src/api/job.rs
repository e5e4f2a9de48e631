//! What the API server refuses in a Job's pod failure and success
//! policies (`pkg/apis/batch/validation`).

use serde_json::Value as Json;

use crate::json::{Found, each, whole};
use crate::location::KeyPath;
use crate::names;

/// A `podFailurePolicy` of at most 20 rules, each with an action
/// (`FailIndex` only beside a `backoffLimitPerIndex`) and exactly one of
/// `onExitCodes` (an operator `In` or `NotIn`, a container of the pod, 1 to
/// 255 values, ordered, each once, no 0 under `In`) and `onPodConditions`
/// (at most 20, qualified condition types, a status `True`, `False` or
/// `Unknown`, `True` when unset).
pub(super) fn failure_policy(spec: &Json, at: &KeyPath, found: &mut Found) {
    let policy = &spec["podFailurePolicy"];
    if !policy.is_object() {
        return;
    }
    let rules: Vec<(usize, &Json)> = each(&policy["rules"]).collect();
    let at = at.key("podFailurePolicy").key("rules");
    if rules.len() > 20 {
        found.push((
            at.clone(),
            format!("{} rules; a pod failure policy has at most 20", rules.len()),
        ));
    }
    let pod = &spec["template"]["spec"];
    let containers: Vec<&str> = ["containers", "initContainers"]
        .iter()
        .flat_map(|list| each(&pod[*list]))
        .filter_map(|(_, c)| c["name"].as_str())
        .collect();
    for (i, rule) in rules {
        let at = at.index(i);
        match rule["action"].as_str().unwrap_or_default() {
            "FailIndex" if spec["backoffLimitPerIndex"].is_null() => found.push((
                at.key("action"),
                "action FailIndex needs a backoffLimitPerIndex".to_owned(),
            )),
            "Count" | "FailIndex" | "FailJob" | "Ignore" => {}
            other => found.push((
                at.key("action"),
                format!("`{other}` is not an action (Count, FailIndex, FailJob, Ignore)"),
            )),
        }
        let codes = &rule["onExitCodes"];
        let conditions: Vec<(usize, &Json)> = each(&rule["onPodConditions"]).collect();
        match (codes.is_object(), conditions.is_empty()) {
            (true, false) => found.push((
                at.clone(),
                "a rule has onExitCodes or onPodConditions, not both".to_owned(),
            )),
            (false, true) => found.push((
                at.clone(),
                "a rule has onExitCodes or onPodConditions".to_owned(),
            )),
            _ => {}
        }
        if codes.is_object() {
            exit_codes(codes, &containers, &at.key("onExitCodes"), found);
        }
        if conditions.len() > 20 {
            found.push((
                at.key("onPodConditions"),
                format!("{} patterns; at most 20", conditions.len()),
            ));
        }
        for (j, pattern) in conditions {
            let at = at.key("onPodConditions").index(j);
            let kind = pattern["type"].as_str().unwrap_or_default();
            if let Err(why) = names::qualified_name(kind) {
                found.push((
                    at.key("type"),
                    format!("`{kind}` is not a condition type: {why}"),
                ));
            }
            // Unset (or empty), the server defaults it to True.
            let status = pattern["status"].as_str().unwrap_or_default();
            if !matches!(status, "" | "True" | "False" | "Unknown") {
                found.push((
                    at.key("status"),
                    format!("`{status}` is not a condition status (True, False, Unknown)"),
                ));
            }
        }
    }
}

/// `onExitCodes`: see [`failure_policy`].
fn exit_codes(codes: &Json, containers: &[&str], at: &KeyPath, found: &mut Found) {
    let operator = codes["operator"].as_str().unwrap_or_default();
    if !matches!(operator, "In" | "NotIn") {
        found.push((
            at.key("operator"),
            format!("`{operator}` is not an operator (In, NotIn)"),
        ));
    }
    if let Some(name) = codes["containerName"].as_str()
        && !containers.contains(&name)
    {
        found.push((
            at.key("containerName"),
            format!("`{name}` is no container or init container of the pod"),
        ));
    }
    let values: Vec<(usize, i64)> = each(&codes["values"])
        .filter_map(|(j, v)| Some((j, whole(v)?)))
        .collect();
    if values.is_empty() || values.len() > 255 {
        found.push((
            at.key("values"),
            format!("{} exit codes; a rule names 1 to 255", values.len()),
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for (j, code) in &values {
        if operator == "In" && *code == 0 {
            found.push((
                at.key("values").index(*j),
                "exit code 0 is no failure to match with In".to_owned(),
            ));
        }
        if !seen.insert(code) {
            found.push((
                at.key("values").index(*j),
                format!("exit code {code} is named twice"),
            ));
        }
    }
    if values.windows(2).any(|pair| pair[0].1 > pair[1].1) {
        found.push((
            at.key("values"),
            "the exit codes are in ascending order".to_owned(),
        ));
    }
}

/// A `successPolicy` of an Indexed Job with `completions`: 1 to 20 rules,
/// each with `succeededIndexes` (at most 64 KiB of ascending intervals
/// `a` or `a-b` below `completions`) or `succeededCount` (non-negative, at
/// most `completions` and the indexes named) or both.
pub(super) fn success_policy(spec: &Json, completions: i64, at: &KeyPath, found: &mut Found) {
    let rules: Vec<(usize, &Json)> = each(&spec["successPolicy"]["rules"]).collect();
    let at = at.key("successPolicy").key("rules");
    if rules.is_empty() || rules.len() > 20 {
        found.push((
            at.clone(),
            format!("{} rules; a success policy has 1 to 20", rules.len()),
        ));
    }
    for (i, rule) in rules {
        let at = at.index(i);
        let (indexes, count) = (&rule["succeededIndexes"], &rule["succeededCount"]);
        if indexes.is_null() && count.is_null() {
            found.push((
                at.clone(),
                "a rule has succeededIndexes or succeededCount".to_owned(),
            ));
        }
        let mut total = None;
        if let Some(text) = indexes.as_str() {
            if text.len() > 64 * 1024 {
                found.push((
                    at.key("succeededIndexes"),
                    "succeededIndexes is at most 64 KiB".to_owned(),
                ));
            }
            match intervals(text, completions) {
                Ok(sum) => total = Some(sum),
                Err(why) => found.push((
                    at.key("succeededIndexes"),
                    format!("`{text}` is no list of indexes: {why}"),
                )),
            }
        }
        if let Some(count) = whole(count) {
            let at = at.key("succeededCount");
            if count < 0 {
                found.push((at, format!("{count} is negative")));
            } else if count > completions {
                found.push((
                    at,
                    format!("{count} is more than completions {completions}"),
                ));
            } else if total.is_some_and(|t| count > t) {
                found.push((
                    at,
                    format!(
                        "{count} is more than the {} indexes succeededIndexes names",
                        total.unwrap_or_default()
                    ),
                ));
            }
        }
    }
}

/// How many indexes `a,b-c,...` names, each interval above the last and
/// below `completions` (empty names none).
fn intervals(text: &str, completions: i64) -> Result<i64, String> {
    if text.is_empty() {
        return Ok(0);
    }
    let number = |part: &str| {
        let digits = part.strip_prefix(['+', '-']).unwrap_or(part);
        match !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            true => part
                .parse::<i64>()
                .map_err(|_| format!("`{part}` is no index")),
            false => Err(format!("`{part}` is no index")),
        }
    };
    let (mut last, mut total) = (None, 0);
    for interval in text.split(',') {
        let parts: Vec<&str> = interval.split('-').collect();
        if parts.len() > 2 {
            return Err(format!("`{interval}` has more than two parts"));
        }
        let first = number(parts[0])?;
        let end = match parts.get(1) {
            Some(part) => number(part)?,
            None => first,
        };
        if first >= completions || end >= completions {
            return Err(format!(
                "`{interval}` is not below completions {completions}"
            ));
        }
        if parts.len() == 2 && first >= end {
            return Err(format!("`{interval}` does not ascend"));
        }
        if last.is_some_and(|l| l >= first) {
            return Err("the intervals do not ascend".to_owned());
        }
        total += end - first + 1;
        last = Some(end);
    }
    Ok(total)
}
