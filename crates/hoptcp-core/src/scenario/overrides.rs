//! `--set key=value` overrides applied to the parsed TOML before it is
//! deserialized, so an override is validated exactly like the file itself.
//! Paths are dotted; numeric segments index arrays (`flows.0.rate_bps`).

use super::error::ScenarioError;
use toml::{Table, Value};

/// Parse a value as TOML (`3`, `1e5`, `true`, `"x"`, `[1, 2]`); a bare word
/// that is not valid TOML is taken as a string (`ofdm`).
pub fn parse_value(raw: &str) -> Value {
    let raw = raw.trim();
    match format!("v = {raw}").parse::<Table>() {
        Ok(mut t) => t.remove("v").unwrap_or(Value::String(raw.to_string())),
        Err(_) => Value::String(raw.to_string()),
    }
}

/// Set `path` to `raw` in `root`, creating missing tables on the way.
pub fn apply(root: &mut Table, path: &str, raw: &str) -> Result<(), ScenarioError> {
    let parts: Vec<&str> = path.split('.').collect();
    if path.is_empty() || parts.iter().any(|p| p.is_empty()) {
        return Err(ScenarioError::new(
            path,
            format!("override key `{path}` is not a dotted path like `mac.queue_limit`"),
        ));
    }
    let digits = raw.trim().trim_start_matches(['+', '-']);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && raw.trim().parse::<i64>().is_err() {
        return Err(super::integer_range_error(path, raw.trim()));
    }
    let mut whole = Value::Table(std::mem::take(root));
    let result = set_in(&mut whole, &parts, 0, parse_value(raw));
    if let Value::Table(t) = whole {
        *root = t;
    }
    result
}

fn set_in(cur: &mut Value, parts: &[&str], i: usize, value: Value) -> Result<(), ScenarioError> {
    let here = parts[..i].join(".");
    let head = parts[i];
    let last = i + 1 == parts.len();
    match cur {
        Value::Table(t) => {
            if last {
                t.insert(head.to_string(), value);
                return Ok(());
            }
            let next_is_index = parts[i + 1].parse::<usize>().is_ok();
            let entry = t.entry(head.to_string()).or_insert_with(|| {
                if next_is_index {
                    Value::Array(Vec::new())
                } else {
                    Value::Table(Table::new())
                }
            });
            set_in(entry, parts, i + 1, value)
        }
        Value::Array(a) => {
            let Ok(idx) = head.parse::<usize>() else {
                return Err(ScenarioError::new(
                    &here,
                    format!("`{here}` is a list: index it with a number, not `{head}`"),
                ));
            };
            let len = a.len();
            let Some(slot) = a.get_mut(idx) else {
                return Err(ScenarioError::new(
                    format!("{here}.{idx}"),
                    format!(
                        "`{here}` has {len} {}; index {idx} is out of range (allowed: 0..={})",
                        if len == 1 { "entry" } else { "entries" },
                        len.saturating_sub(1)
                    ),
                ));
            };
            if last {
                *slot = value;
                return Ok(());
            }
            set_in(slot, parts, i + 1, value)
        }
        _ => Err(ScenarioError::new(
            parts.join("."),
            format!("cannot set `{}`: `{here}` is a single value, not a table", parts.join(".")),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(s: &str) -> Table {
        s.parse().unwrap()
    }

    #[test]
    fn sets_nested_and_indexed_values() {
        let mut t = table("[topology]\nkind='chain'\n[[flows]]\nsrc=0\n");
        apply(&mut t, "topology.hops", "15").unwrap();
        apply(&mut t, "flows.0.rate_bps", "1e5").unwrap();
        apply(&mut t, "mac.long_retry_limit", "10").unwrap();
        apply(&mut t, "radio.standard", "ofdm").unwrap();
        assert_eq!(t["topology"]["hops"].as_integer(), Some(15));
        assert_eq!(t["flows"][0]["rate_bps"].as_float(), Some(1e5));
        assert_eq!(t["mac"]["long_retry_limit"].as_integer(), Some(10));
        assert_eq!(t["radio"]["standard"].as_str(), Some("ofdm"));
    }

    #[test]
    fn out_of_range_index_is_an_error() {
        let mut t = table("[[flows]]\nsrc=0\n");
        let e = apply(&mut t, "flows.3.rate_bps", "1").unwrap_err();
        assert!(e.message.contains("`flows` has 1 entry"), "{}", e.message);
        assert_eq!(e.key, "flows.3");
    }

    #[test]
    fn scalar_parent_is_an_error() {
        let mut t = table("duration_s = 5\n");
        let e = apply(&mut t, "duration_s.x", "1").unwrap_err();
        assert!(e.message.contains("single value"), "{}", e.message);
    }
}
