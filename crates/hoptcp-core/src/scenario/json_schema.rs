//! The scenario file as a JSON Schema (draft-07, which taplo and VS Code's
//! Even Better TOML read), written from the key declarations: every table
//! `additionalProperties: false`, each key's type, enum, range, default and
//! meaning. A subset of hoptcp's own validation: rules between keys (a
//! kind's keys, cs_range_m >= tx_range_m, rates of a standard) stay there.

use super::keys::{declarations, Allowed, Decl, Def, TABLES};
use serde_json::{json, Map, Value};

/// Bumped when a key's meaning changes incompatibly (added keys do not).
pub const SCHEMA_VERSION: u32 = 1;

/// How the declarations say a key is required in every table that holds it.
const UNCONDITIONAL: &[&str] = &["always", "per link", "with [random_flows]"];

/// The schema of a scenario file.
pub fn json_schema() -> Value {
    let decls = declarations();
    let mut root = table("", &decls);
    let top = root.as_object_mut().expect("object");
    top.insert("$schema".into(), json!("http://json-schema.org/draft-07/schema#"));
    top.insert("$id".into(), json!(format!("urn:hoptcp:scenario:{SCHEMA_VERSION}")));
    top.insert("title".into(), json!("hoptcp scenario"));
    top.insert("x-hoptcp-schema-version".into(), json!(SCHEMA_VERSION));
    root
}

/// The object schema of `name` ("" top level, `flows[]` a list's entries)
/// and of the tables below it.
fn table(name: &str, decls: &[Decl]) -> Value {
    let prefix = if name.is_empty() { String::new() } else { format!("{name}.") };
    let mut props = Map::new();
    let mut required = Vec::new();
    for d in decls.iter().filter(|d| d.key.strip_prefix(prefix.as_str()).is_some_and(|k| !k.contains('.'))) {
        let own = &d.key[prefix.len()..];
        // Required wherever its table is; keys a topology kind or an app needs are hoptcp's to check.
        if matches!(d.default, Def::Required(when) if UNCONDITIONAL.contains(&when)) {
            required.push(own);
        }
        props.insert(own.to_string(), key(d));
    }
    for (sub, doc) in TABLES.iter().filter(|(t, _)| t.strip_prefix(prefix.as_str()).is_some_and(|s| !s.contains('.'))) {
        if sub.is_empty() {
            continue;
        }
        let own = sub[prefix.len()..].to_string();
        let mut inner = table(sub, decls);
        inner["description"] = json!(doc);
        let value = match own.strip_suffix("[]") {
            Some(list) => {
                props.insert(list.to_string(), json!({"type": "array", "description": doc, "items": inner}));
                continue;
            }
            None => inner,
        };
        props.insert(own, value);
    }
    if name.is_empty() {
        required.push("topology");
    }
    let mut out = json!({"type": "object", "additionalProperties": false, "properties": props});
    if !required.is_empty() {
        out["required"] = json!(required);
    }
    out
}

/// A key's schema: type, allowed values, default and meaning.
fn key(d: &Decl) -> Value {
    let mut s = match d.ty {
        "integer" => json!({"type": "integer", "minimum": 0}),
        "number" => json!({"type": "number"}),
        "bool" => json!({"type": "boolean"}),
        "string" => json!({"type": "string"}),
        "integer or \"wstar\"" => json!({"anyOf": [{"type": "integer"}, {"const": "wstar"}]}),
        "list of integers" => json!({"type": "array", "items": {"type": "integer", "minimum": 0}}),
        "list of strings" => json!({"type": "array", "items": {"type": "string"}}),
        "[number, number]" => pair(),
        "list of [x, y]" | "list of [from, to]" => json!({"type": "array", "items": pair()}),
        other => panic!("{}: no JSON Schema for type {other:?}", d.key),
    };
    // Where the bounds go: the integer itself, or each entry of a list.
    let target = match &mut s {
        Value::Object(m) if m.contains_key("anyOf") => &mut m["anyOf"][0],
        Value::Object(m) if m.get("type") == Some(&json!("array")) => &mut m["items"],
        other => other,
    };
    match d.allowed {
        Allowed::Ints(lo, hi) => {
            target["minimum"] = json!(lo);
            target["maximum"] = json!(hi);
        }
        Allowed::Num(r) => {
            if r.lo.is_finite() {
                target[if r.lo_open { "exclusiveMinimum" } else { "minimum" }] = json!(r.lo);
            }
            if r.hi.is_finite() {
                target[if r.hi_open { "exclusiveMaximum" } else { "maximum" }] = json!(r.hi);
            }
        }
        Allowed::Words(w) if d.ty != "bool" => {
            target.as_object_mut().expect("object").remove("type");
            target["enum"] = json!(w);
        }
        _ => {}
    }
    let default = match d.default {
        Def::Int(v) => Some(json!(v)),
        Def::Num(v) => Some(json!(v)),
        Def::Bool(v) => Some(json!(v)),
        Def::Word(w) => Some(json!(w)),
        _ => None,
    };
    if let Some(v) = default {
        s["default"] = v;
    }
    let unit = if d.unit.is_empty() { String::new() } else { format!(" [{}]", d.unit) };
    s["description"] = json!(format!("{}{unit} Allowed: {}. Default: {}.", d.doc, d.range_text(), d.default_text()));
    s
}

fn pair() -> Value {
    json!({"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every object in the schema, with its path.
    fn objects<'a>(v: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
        if v.get("type") == Some(&json!("object")) {
            out.push((path.clone(), v));
        }
        for (k, child) in v.get("properties").and_then(Value::as_object).into_iter().flatten() {
            objects(child, format!("{path}.{k}"), out);
        }
        if let Some(items) = v.get("items") {
            objects(items, format!("{path}[]"), out);
        }
    }

    #[test]
    fn every_table_is_closed_and_every_declared_key_is_in_it() {
        let s = json_schema();
        let mut all = Vec::new();
        objects(&s, String::new(), &mut all);
        for (path, o) in &all {
            assert_eq!(o["additionalProperties"], json!(false), "{path}");
        }
        assert!(all.iter().any(|(p, _)| p == ".flows[]"), "[[flows]] entries are described");
        for d in declarations() {
            let mut here = &s;
            for part in d.key.split('.') {
                let (name, list) = part.strip_suffix("[]").map_or((part, false), |n| (n, true));
                here = &here["properties"][name];
                if list {
                    here = &here["items"];
                }
            }
            assert!(here.is_object(), "{} is missing from the schema", d.key);
        }
        assert_eq!(s["properties"]["flows"]["items"]["required"], json!(["src", "dst", "transport"]));
        assert_eq!(s["properties"]["topology"]["required"], json!(["kind"]));
        assert_eq!(s["properties"]["random_flows"]["required"], json!(["count", "transport"]));
        assert_eq!(s["properties"]["wired"]["properties"]["links"]["items"]["required"], json!(["a", "b"]));
    }

    #[test]
    fn ranges_and_names_are_the_declared_ones() {
        let s = json_schema();
        let radio = &s["properties"]["radio"]["properties"];
        assert_eq!(radio["tx_range_m"]["exclusiveMinimum"], json!(0.0));
        assert_eq!(radio["standard"]["enum"], json!(["dsss", "ofdm", "erp", "ns2_g"]));
        let w = &s["properties"]["tcp"]["properties"]["max_window"]["anyOf"];
        assert_eq!(w[0]["maximum"], json!(1_000_000));
        assert_eq!(w[1]["const"], json!("wstar"));
        let ap = &s["properties"]["tcp"]["properties"]["ap"]["properties"]["alpha"];
        assert_eq!((ap["minimum"].clone(), ap["exclusiveMaximum"].clone()), (json!(0.0), json!(1.0)));
        assert_eq!(s["properties"]["stats"]["properties"]["series"]["items"]["enum"][0], json!("gateway"));
    }
}
