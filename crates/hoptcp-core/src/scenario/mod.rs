//! Scenario files: schema, `--set` overrides, validation with clear errors,
//! the canonical resolved form, and building a network plan.

pub mod build;
pub mod error;
pub mod overrides;
pub mod schema;
pub mod validate;
pub mod warnings;

pub use build::{build, FlowPlan, Plan};
pub use error::ScenarioError;
pub use schema::Scenario;
pub use warnings::warnings;

/// Parse scenario TOML, apply `(dotted.key, value)` overrides, deserialize
/// (unknown keys rejected) and validate, filling every default.
pub fn parse(text: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
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
    validate::resolve(sc)
}

/// Parse and also build the network (all checks a run would make).
pub fn load(text: &str, overrides: &[(String, String)]) -> Result<Plan, ScenarioError> {
    build(&parse(text, overrides)?)
}

/// Canonical JSON of a resolved scenario: sorted keys, no whitespace. Two
/// scenarios that run identically (same values, defaults included) give the
/// same string; the seed is part of it.
pub fn canonical_json(sc: &Scenario) -> String {
    let v = serde_json::to_value(sc).expect("scenario serializes");
    serde_json::to_string(&v).expect("json")
}

fn syntax_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    let msg = e.message().trim().to_string();
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            ScenarioError::new("", format!("scenario is not valid TOML (line {line}, column {col}): {msg}"))
        }
        None => ScenarioError::new("", format!("scenario is not valid TOML: {msg}")),
    }
}
