//! Scenario files: schema, `--set` overrides, validation with clear errors,
//! the canonical resolved form, and building a network plan.
//!
//! Three stages: the parsed [`Scenario`] (what the file says; optional keys
//! are `Option`s), the [`Resolved`] scenario (`validate::resolve` checked
//! every value and filled every default; no `Option` is left, and it is what
//! is hashed and stored) and the [`Plan`] built from it, which the simulator
//! runs.

pub(crate) mod build;
pub(crate) mod error;
pub(crate) mod json_schema;
pub(crate) mod keys;
pub(crate) mod overrides;
pub(crate) mod resolved;
pub(crate) mod schema;
pub(crate) mod validate;
pub(crate) mod warnings;
pub(crate) mod wstar;

#[cfg(test)]
mod keys_tests;
#[cfg(test)]
mod load_tests;

pub(crate) use build::{build, FlowPlan, Plan};
pub use error::ScenarioError;
pub(crate) use resolved::Resolved;
pub(crate) use schema::Scenario;
pub(crate) use warnings::warnings;

/// Parse scenario TOML, apply `(dotted.key, value)` overrides, deserialize
/// (unknown keys rejected) and validate, filling every default (the unit
/// tests' way to a resolved scenario; a run goes through [`load`]).
#[cfg(test)]
pub(crate) fn parse(text: &str, overrides: &[(String, String)]) -> Result<Resolved, ScenarioError> {
    resolve_text(text, overrides).map(|(sc, _)| sc)
}

/// [`parse`], and the plan when resolution already had to build it (a
/// `max_window = "wstar"` needs each flow's path), so no run builds twice.
fn resolve_text(text: &str, overrides: &[(String, String)]) -> Result<(Resolved, Option<Plan>), ScenarioError> {
    let mut table: toml::Table = text.parse().map_err(|e: toml::de::Error| syntax_error(text, &e))?;
    for (k, v) in overrides {
        overrides::apply(&mut table, k, v)?;
    }
    let value = toml::Value::Table(table);
    let sc: Scenario = serde_path_to_error::deserialize(value).map_err(|e| {
        // serde_path_to_error writes list indices as `flows[0]`; scenario keys use `flows.0`.
        let path = e.path().to_string().replace('[', ".").replace(']', "");
        let msg = e.inner().message().trim().to_string();
        error::from_serde(if path == "." { "" } else { &path }, &msg)
    })?;
    let sc = validate::resolve(sc)?;
    if wstar::named(&sc) {
        let plan = build(&sc)?;
        return Ok((plan.scenario.clone(), Some(plan)));
    }
    Ok((sc, None))
}

/// Parse and also build the network (all checks a run would make), once.
pub(crate) fn load(text: &str, overrides: &[(String, String)]) -> Result<Plan, ScenarioError> {
    match resolve_text(text, overrides)? {
        (_, Some(plan)) => Ok(plan),
        (sc, None) => build(&sc),
    }
}

/// Canonical JSON of a resolved scenario: sorted keys, no whitespace. Two
/// scenarios that run identically (same values, defaults included) give the
/// same string; the seed is part of it.
pub(crate) fn canonical_json(sc: &Resolved) -> String {
    let v = serde_json::to_value(sc).expect("scenario serializes");
    serde_json::to_string(&v).expect("json")
}

fn syntax_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    let msg = e.message().trim().to_string();
    match e.span() {
        Some(span) => {
            let start = span.start.min(text.len());
            let before = &text[..start];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            if msg.contains("too large") || msg.contains("as i128") {
                if let Some(err) = integer_out_of_range(text, start) {
                    return err;
                }
            }
            ScenarioError::new("", format!("scenario is not valid TOML (line {line}, column {col}): {msg}"))
        }
        None => ScenarioError::new("", format!("scenario is not valid TOML: {msg}")),
    }
}

/// An integer literal beyond TOML's 64 bits at byte `at`: name the key (with
/// its table) and the allowed range rather than calling the file invalid.
fn integer_out_of_range(text: &str, at: usize) -> Option<ScenarioError> {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next()?;
    let (key, value) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    let value = value.split('#').next()?.trim();
    let table = text[..line_start]
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && !l.starts_with("[["))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string());
    let path = match table {
        Some(t) if !t.is_empty() => format!("{t}.{key}"),
        _ => key.to_string(),
    };
    Some(integer_range_error(&path, value))
}

/// "`key` = value: out of range" for an integer that does not fit in 64 bits.
pub(crate) fn integer_range_error(path: &str, value: &str) -> ScenarioError {
    let allowed = if path == "seed" {
        format!("expected an integer from 0 to {}", i64::MAX)
    } else {
        format!("out of range: integers must be between {} and {}", i64::MIN, i64::MAX)
    };
    ScenarioError::value(path, value, allowed)
}
