//! The declarations in `keys.rs` against the parser itself: the set
//! of keys serde accepts (read from the derived `Deserialize` impls by a
//! probing deserializer, not written by hand) must equal the declared set,
//! enum keys must declare exactly the names serde accepts, and each declared
//! default must be what resolution fills in.

use super::keys::{declarations, Allowed, Def};
use super::{parse, Scenario};
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// What a type asked the deserializer for at the end of a probed path.
#[derive(Clone, Debug)]
enum Found {
    Struct(Vec<&'static str>),
    Enum(Vec<&'static str>),
    Seq,
    Leaf,
}

/// The probe's way of stopping a deserialization once it has looked.
#[derive(Debug)]
struct Stop(String);

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Stop {}
impl de::Error for Stop {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Stop(msg.to_string())
    }
}

/// A deserializer that walks `path` (struct fields by name, `[]` into a
/// list) and records what is asked for at its end.
struct Probe<'a> {
    path: &'a [String],
    found: &'a RefCell<Option<Found>>,
}

impl<'a> Probe<'a> {
    fn record(self, f: Found) -> Stop {
        *self.found.borrow_mut() = Some(f);
        Stop("probed".into())
    }
    fn next(&self) -> Probe<'a> {
        Probe { path: &self.path[1..], found: self.found }
    }
}

struct OneField<'a> {
    key: Option<String>,
    value: Probe<'a>,
}

impl<'de> MapAccess<'de> for OneField<'_> {
    type Error = Stop;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Stop> {
        match self.key.take() {
            Some(k) => seed.deserialize(k.into_deserializer()).map(Some),
            None => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Stop> {
        seed.deserialize(Probe { path: self.value.path, found: self.value.found })
    }
}

struct OneEntry<'a>(Option<Probe<'a>>);

impl<'de> SeqAccess<'de> for OneEntry<'_> {
    type Error = Stop;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Stop> {
        match self.0.take() {
            Some(p) => seed.deserialize(p).map(Some),
            None => Ok(None),
        }
    }
}

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _v: V) -> Result<V::Value, Stop> {
        if self.path.is_empty() {
            Err(self.record(Found::Leaf))
        } else {
            Err(Stop(format!("a plain value has no key {:?}", self.path)))
        }
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Stop> {
        if self.path.is_empty() {
            return Err(self.record(Found::Struct(fields.to_vec())));
        }
        let key = Some(self.path[0].clone());
        v.visit_map(OneField { key, value: self.next() })
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Stop> {
        v.visit_some(self)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value, Stop> {
        v.visit_newtype_struct(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Stop> {
        match self.path.first().map(String::as_str) {
            None => Err(self.record(Found::Seq)),
            Some("[]") => v.visit_seq(OneEntry(Some(self.next()))),
            Some(_) => Err(Stop(format!("a list has no key {:?}", self.path))),
        }
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        _v: V,
    ) -> Result<V::Value, Stop> {
        Err(self.record(Found::Enum(variants.to_vec())))
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct tuple tuple_struct map identifier ignored_any
    }
}

fn probe(path: &[String]) -> Found {
    let found = RefCell::new(None);
    let _ = Scenario::deserialize(Probe { path, found: &found });
    found.into_inner().unwrap_or_else(|| panic!("probing {path:?} recorded nothing"))
}

fn key_of(path: &[String]) -> String {
    path.join(".").replace(".[]", "[]")
}

/// Every leaf key the parser accepts, and the names each enum-valued key takes.
fn accepted() -> (BTreeSet<String>, BTreeMap<String, Vec<&'static str>>) {
    fn walk(path: Vec<String>, keys: &mut BTreeSet<String>, enums: &mut BTreeMap<String, Vec<&'static str>>) {
        let with = |p: &[String], s: &str| p.iter().cloned().chain([s.to_string()]).collect::<Vec<_>>();
        match probe(&path) {
            Found::Struct(fields) => {
                for f in fields {
                    walk(with(&path, f), keys, enums);
                }
            }
            Found::Seq => match probe(&with(&path, "[]")) {
                Found::Struct(_) => walk(with(&path, "[]"), keys, enums),
                Found::Enum(v) => {
                    enums.insert(key_of(&path), v);
                    keys.insert(key_of(&path));
                }
                _ => {
                    keys.insert(key_of(&path));
                }
            },
            Found::Enum(v) => {
                enums.insert(key_of(&path), v);
                keys.insert(key_of(&path));
            }
            Found::Leaf => {
                keys.insert(key_of(&path));
            }
        }
    }
    let (mut keys, mut enums) = (BTreeSet::new(), BTreeMap::new());
    walk(Vec::new(), &mut keys, &mut enums);
    (keys, enums)
}

#[test]
fn the_probe_reads_the_parser() {
    // A known shape: enough to trust the walk below.
    let (keys, enums) = accepted();
    for k in ["duration_s", "topology.rows", "flows[].src", "wired.links[].queue_limit", "ip.ldm.initial_ttls"] {
        assert!(keys.contains(k), "{k} not found among {} keys", keys.len());
    }
    assert!(!keys.contains("flows") && !keys.contains("mac.link_red"), "tables are not keys");
    assert_eq!(enums["radio.standard"], ["dsss", "ofdm", "erp", "ns2_g"]);
}

#[test]
fn every_key_the_parser_accepts_is_declared_and_no_other() {
    let (accepted, _) = accepted();
    let declared: BTreeSet<String> = declarations().iter().map(|d| d.key.to_string()).collect();
    let undeclared: Vec<_> = accepted.difference(&declared).collect();
    let unknown: Vec<_> = declared.difference(&accepted).collect();
    assert!(undeclared.is_empty(), "accepted by the parser but not declared in scenario/keys.rs: {undeclared:?}");
    assert!(unknown.is_empty(), "declared in scenario/keys.rs but not accepted by the parser: {unknown:?}");
}

#[test]
fn enum_keys_declare_exactly_the_names_serde_accepts() {
    let (_, enums) = accepted();
    for d in declarations() {
        match (enums.get(d.key), d.allowed) {
            (Some(names), Allowed::Words(words)) => {
                let a: BTreeSet<_> = names.iter().collect();
                let b: BTreeSet<_> = words.iter().collect();
                assert_eq!(a, b, "{}: serde accepts {names:?}, declared {words:?}", d.key);
            }
            (Some(names), _) => panic!("{}: an enum of {names:?} declared without its names", d.key),
            (None, _) => {}
        }
    }
}

/// Every optional table switched on, so resolution fills all of them.
const FULL: &str = r#"
duration_s = 20
[topology]
kind = "chain"
hops = 4
[mac.link_red]
enabled = true
[mac.adaptive_pacing]
enabled = true
[ip.ldm]
enabled = true
[routing]
protocol = "aodv"
[tcp]
variant = "tcp_ap"
[[flows]]
src = 0
dst = 4
transport = "tcp"
app = "http"
[[flows]]
src = 0
dst = 3
transport = "udp"
rate_bps = 100000
[random_flows]
count = 1
transport = "udp"
rate_bps = 10000
[stats]
batch_packets = 10
batches = 3
[wired]
[wired.tcp_gap]
"#;

/// Keys FULL sets to something other than their default.
const SET_IN_FULL: &[&str] = &[
    "duration_s",
    "mac.link_red.enabled",
    "mac.adaptive_pacing.enabled",
    "ip.ldm.enabled",
    "routing.protocol",
    "tcp.variant",
    "flows[].src",
    "flows[].dst",
    "flows[].transport",
    "flows[].app",
    "flows[].rate_bps",
    "random_flows.count",
    "random_flows.transport",
    "random_flows.rate_bps",
];

fn values_at<'a>(v: &'a serde_json::Value, key: &str) -> Vec<&'a serde_json::Value> {
    let mut here = vec![v];
    for part in key.split('.') {
        let (name, list) = part.strip_suffix("[]").map_or((part, false), |n| (n, true));
        here = here
            .into_iter()
            .filter_map(|x| x.get(name))
            .flat_map(|x| if list { x.as_array().map(|a| a.iter().collect()).unwrap_or_default() } else { vec![x] })
            .collect();
    }
    here
}

#[test]
fn declared_defaults_are_what_resolution_fills_in() {
    let sc = parse(FULL, &[]).expect("FULL is a valid scenario");
    let json = serde_json::to_value(&sc).unwrap();
    let mut compared = 0;
    for d in declarations() {
        if SET_IN_FULL.contains(&d.key) {
            continue;
        }
        let want = match d.default {
            Def::Int(v) => serde_json::json!(v),
            Def::Num(v) => serde_json::json!(v),
            Def::Bool(v) => serde_json::json!(v),
            Def::Word(w) => serde_json::json!(w),
            _ => continue,
        };
        for got in values_at(&json, d.key) {
            assert_eq!(got, &want, "{}: resolved {got}, declared default {want}", d.key);
            compared += 1;
        }
    }
    // Every optional table was resolved, so its defaults were compared (76 values
    // today; keys resolution leaves unset, e.g. flows[].count, are not).
    for k in ["mac.link_red.min_th", "mac.adaptive_pacing.trigger", "ip.ldm.action", "routing.aodv.ttl_start"] {
        assert_eq!(values_at(&json, k).len(), 1, "{k} missing from the resolved FULL");
    }
    for k in ["wired.tcp_gap.period_s", "random_flows.min_hops", "stats.batch_confidence", "flows[].jitter"] {
        assert_eq!(values_at(&json, k).len(), 1, "{k} missing from the resolved FULL");
    }
    assert!(compared >= 70, "only {compared} defaults compared");
}

#[test]
fn aodv_table_defaults_are_the_routing_layers_defaults() {
    // Written once (net/routing/aodv/params.rs): the resolved [routing.aodv]
    // of a scenario that sets nothing gives exactly AodvParams::default().
    let d = super::schema::AodvSpec::default();
    assert_eq!(d.params(), Default::default());
}
