//! One clear error per bad input: the key, the value, and what is allowed.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Dotted path of the offending key (`flows.0.rate_bps`), or "" for
    /// whole-file problems such as a TOML syntax error.
    pub key: String,
    pub message: String,
}

impl ScenarioError {
    pub(crate) fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { key: key.into(), message: message.into() }
    }

    /// "`key` = value: what is allowed".
    pub(crate) fn value(key: &str, value: impl fmt::Display, allowed: impl fmt::Display) -> Self {
        ScenarioError::new(key, format!("`{key}` = {value}: {allowed}"))
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// Turn serde's messages into the project's wording, keeping the path.
pub(crate) fn from_serde(path: &str, msg: &str) -> ScenarioError {
    let list = |s: &str| s.replace('`', "").replace(" or ", ", ");
    if let Some(rest) = msg.strip_prefix("unknown field `") {
        if let Some((field, tail)) = rest.split_once('`') {
            let key = join(path_parent(path, field), field);
            let allowed = tail
                .trim_start_matches(", expected one of ")
                .trim_start_matches(", expected ")
                .trim_start_matches(", there are no fields");
            let allowed = if allowed.is_empty() {
                "no keys are allowed here".to_string()
            } else {
                format!("allowed keys here: {}", list(allowed))
            };
            return ScenarioError::new(key.clone(), format!("unknown key `{key}`; {allowed}"));
        }
    }
    if let Some(rest) = msg.strip_prefix("unknown variant `") {
        if let Some((value, tail)) = rest.split_once('`') {
            let allowed = tail.trim_start_matches(", expected one of ").trim_start_matches(", expected ");
            return ScenarioError::value(path, format!("\"{value}\""), format!("allowed values: {}", list(allowed)));
        }
    }
    if let Some(rest) = msg.strip_prefix("missing field `") {
        let field = rest.trim_end_matches('`');
        let key = join(path.to_string(), field);
        return ScenarioError::new(key.clone(), format!("`{key}` is required but missing"));
    }
    if let Some(rest) = msg.strip_prefix("invalid type: ") {
        if let Some((got, expected)) = rest.split_once(", expected ") {
            return ScenarioError::new(
                path,
                format!("`{path}` has the wrong type: got {got}, expected {}", friendly_type(expected)),
            );
        }
    }
    if let Some(rest) = msg.strip_prefix("invalid value: ") {
        if let Some((got, expected)) = rest.split_once(", expected ") {
            return ScenarioError::new(path, format!("`{path}` = {got}: expected {}", friendly_type(expected)));
        }
    }
    if let Some(shown) = msg.strip_prefix(super::wstar::OTHER_WORD) {
        return super::wstar::other_word(path, shown);
    }
    if let Some(rest) = msg.strip_prefix("invalid length ") {
        return ScenarioError::new(path, format!("`{path}` has the wrong length: {rest}"));
    }
    ScenarioError::new(path, format!("`{path}`: {msg}"))
}

fn friendly_type(expected: &str) -> String {
    match expected {
        "u32" | "u64" | "u16" | "u8" => "a non-negative integer".into(),
        "f64" | "f32" => "a number".into(),
        "a boolean" | "bool" => "true or false".into(),
        other => other.to_string(),
    }
}

fn path_parent(path: &str, field: &str) -> String {
    // serde_path_to_error reports the unknown key's own path; keep only the parent.
    match path.strip_suffix(field) {
        Some(p) => p.trim_end_matches('.').to_string(),
        None => path.to_string(),
    }
}

fn join(parent: String, field: &str) -> String {
    if parent.is_empty() || parent == "." {
        field.to_string()
    } else {
        format!("{parent}.{field}")
    }
}
