//! The declarations (`#[derive(Keys)]` on the schema's fields) against the
//! parser and the resolver: serde's own errors list exactly the declared keys
//! of each table and the declared names of each enum-valued key (what the
//! derive cannot know: serde's and strum's names of a variant agree), each
//! declared default is what resolution fills in, and every numeric key's
//! declared range is the one validation enforces.

use super::keys::{declarations, Allowed, Decl, Def};
use super::parse;
use std::collections::BTreeSet;

/// `key` as a path into FULL: list entries at index 0.
fn concrete(key: &str) -> String {
    key.replace("[]", ".0")
}

fn error_at(base: &str, key: &str, value: &str) -> Option<super::ScenarioError> {
    parse(base, &[(key.to_string(), value.to_string())]).err()
}

#[test]
fn each_tables_unknown_key_error_lists_exactly_its_declared_keys() {
    let decls = declarations();
    let tables: BTreeSet<&str> = decls.iter().map(|d| d.key.rsplit_once('.').map_or("", |(t, _)| t)).collect();
    for table in tables {
        let probe = if table.is_empty() { "nosuch".to_string() } else { format!("{}.nosuch", concrete(table)) };
        let e = error_at(FULL_LINKS, &probe, "1").expect("an unknown key is refused");
        let listed = e.message.rsplit_once("allowed keys here: ").map(|(_, l)| l).unwrap_or_else(|| panic!("{e:?}"));
        let listed: BTreeSet<&str> = listed.split(", ").collect();
        let prefix = if table.is_empty() { String::new() } else { format!("{table}.") };
        let mut declared: BTreeSet<&str> = decls
            .iter()
            .filter_map(|d| d.key.strip_prefix(prefix.as_str()))
            .map(|rest| rest.split(['.', '[']).next().unwrap_or(rest))
            .collect();
        // Sub-tables are keys of their table too.
        declared.extend(
            decls
                .iter()
                .filter_map(|d| d.key.strip_prefix(prefix.as_str()))
                .filter_map(|rest| rest.split_once(['.', '[']).map(|(t, _)| t)),
        );
        assert_eq!(listed, declared, "[{table}]: serde accepts {listed:?}, declared {declared:?}");
    }
}

#[test]
fn enum_keys_declare_exactly_the_names_serde_accepts() {
    let mut checked = 0;
    for d in declarations() {
        let Allowed::Words(words) = d.allowed else { continue };
        if d.ty == "bool" {
            continue;
        }
        let value = if d.ty.starts_with("list") { "[\"nosuch\"]" } else { "\"nosuch\"" };
        let e = error_at(FULL_LINKS, &concrete(d.key), value).expect("an unknown name is refused");
        let listed = e.message.rsplit_once("allowed values: ").map(|(_, l)| l).unwrap_or_else(|| panic!("{e:?}"));
        let listed: BTreeSet<&str> = listed.split(", ").collect();
        let declared: BTreeSet<&str> = words.iter().copied().collect();
        assert_eq!(listed, declared, "{}", d.key);
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} enum keys");
}

/// Base scenarios where `key` is read: its topology kind's, FULL otherwise
/// (grids of one row and of one column, as rows × cols is bounded too).
fn bases_for(key: &str) -> Vec<String> {
    let grid = |rows: u32, cols: u32| GRID.replace("rows = 2\ncols = 2", &format!("rows = {rows}\ncols = {cols}"));
    match key {
        "topology.rows" | "topology.cols" => vec![grid(2, 2), grid(1, 2), grid(2, 1)],
        "topology.chains" | "topology.chain_gap_m" => vec![PARALLEL.into()],
        "topology.leaves" | "topology.radius_m" => vec![STAR.into()],
        "topology.nodes" | "topology.width_m" | "topology.height_m" => vec![RANDOM.into()],
        // Keys bounded by another key too, or read only by one kind of flow.
        "mac.cw_max" => vec![FULL_LINKS.replace("[mac.link_red]", "[mac]\ncw_min = 1\n[mac.link_red]")],
        k if k.starts_with("routing.aodv.") => {
            vec![FULL_LINKS
                .replace("\"aodv\"\n", "\"aodv\"\n[routing.aodv]\nttl_start = 1\nlink_detection = \"hello\"\n")]
        }
        "flows[].rate_bps" | "flows[].packet_bytes" | "flows[].jitter" => {
            vec![FULL_LINKS.replacen("transport = \"tcp\"\napp = \"http\"", "transport = \"udp\"\nrate_bps = 1e5", 1)]
        }
        "random_flows.mean_page_bytes" | "random_flows.page_shape" | "random_flows.mean_think_s" => {
            vec![FULL_LINKS.replace(
                "count = 1\ntransport = \"udp\"\nrate_bps = 10000\n",
                "count = 1\ntransport = \"tcp\"\napp = \"http\"\n",
            )]
        }
        _ => vec![FULL_LINKS.into()],
    }
}

/// Values just inside and just outside each end of a declared range, as TOML.
fn edges(d: &Decl) -> Vec<(String, String)> {
    let num = |v: f64| super::keys::num_text(v);
    match d.allowed {
        Allowed::Ints(lo, hi) => {
            // Below 0 and above u32::MAX are outside too (serde refuses them at the key).
            vec![(lo.to_string(), (lo as i64 - 1).to_string()), (hi.to_string(), (hi + 1).to_string())]
        }
        Allowed::Num(r) => {
            let step = |v: f64| v.abs().max(1.0) * 1e-9;
            let mut out = Vec::new();
            if r.lo.is_finite() {
                let inside = if r.lo_open { r.lo + step(r.lo) } else { r.lo };
                let outside = if r.lo_open { r.lo } else { r.lo - step(r.lo) };
                out.push((num(inside), num(outside)));
            }
            if r.hi.is_finite() {
                let inside = if r.hi_open { r.hi - step(r.hi) } else { r.hi };
                let outside = if r.hi_open { r.hi } else { r.hi + step(r.hi) };
                out.push((num(inside), num(outside)));
            }
            out
        }
        _ => Vec::new(),
    }
}

/// Must show (issue #40): for every numeric key, a value just outside its
/// declared range is refused with an error naming the key, and one just
/// inside is not refused at that key (unless the range is also stated with
/// another key: `radio.cs_range_m` >= `tx_range_m`); its default is accepted.
#[test]
fn every_numeric_key_refuses_just_outside_its_declared_range_and_accepts_inside() {
    let mut keys = 0;
    for d in declarations() {
        let pairs = edges(&d);
        if pairs.is_empty() {
            continue;
        }
        keys += 1;
        let key = concrete(d.key);
        let bases = bases_for(d.key);
        for (inside, outside) in pairs {
            for base in &bases {
                let e = error_at(base, &key, &outside)
                    .unwrap_or_else(|| panic!("{key} = {outside} is outside {} and was accepted", d.range_text()));
                assert_eq!(e.key, key, "{key} = {outside}: the error names another key: {}", e.message);
                assert!(e.message.contains(&key), "{}", e.message);
            }
            // A range stated with another key ("cs_range_m >= tx_range_m") may
            // refuse a value just inside its fixed bound; its default is checked below.
            if matches!(d.allowed, Allowed::Num(r) if !r.text.is_empty()) {
                continue;
            }
            if NOT_TRIED_INSIDE.iter().any(|(k, v, _)| *k == key && *v == inside) {
                continue;
            }
            let refused: Vec<_> =
                bases.iter().filter_map(|b| error_at(b, &key, &inside)).filter(|e| e.key == key).collect();
            assert!(
                refused.len() < bases.len(),
                "{key} = {inside} is inside {} and was refused: {}",
                d.range_text(),
                refused[0].message
            );
        }
        let default = match d.default {
            Def::Int(v) => v.to_string(),
            Def::Num(v) => super::keys::num_text(v),
            _ => continue,
        };
        if let Some(e) = error_at(&bases[0], &key, &default) {
            panic!("{key} = {default} (its default) was refused: {}", e.message);
        }
    }
    eprintln!("{keys} numeric keys checked at both ends of their declared range");
    // 105 integer and number keys with a fixed range at issue #40.
    assert!(keys >= 105, "only {keys} numeric keys have a machine-readable range");
}

#[test]
fn enum_and_flag_defaults_are_values_of_their_allowed_list() {
    for d in declarations() {
        if let (Def::Word(w), Allowed::Words(list)) = (d.default, d.allowed) {
            assert!(list.contains(&w), "{}: default {w} not in {list:?}", d.key);
        }
        if let (Def::Bool(_), ty) = (d.default, d.ty) {
            assert_eq!(ty, "bool", "{}", d.key);
        }
    }
}

/// Values inside a range the test does not run, and why.
const NOT_TRIED_INSIDE: &[(&str, &str, &str)] =
    &[("wired.nodes", "100000", "the wired domain's all-pairs route table (wired::WiredNet) would take 40 GB")];

const GRID: &str = "duration_s = 20\n[topology]\nkind = \"grid\"\nrows = 2\ncols = 2\n[[flows]]\nsrc = 0\ndst = 3\ntransport = \"tcp\"\n";
const PARALLEL: &str = "duration_s = 20\n[topology]\nkind = \"parallel_chains\"\nchains = 2\nhops = 2\n[[flows]]\nsrc = 0\ndst = 2\ntransport = \"tcp\"\n";
const STAR: &str =
    "duration_s = 20\n[topology]\nkind = \"star\"\nleaves = 3\n[[flows]]\nsrc = 1\ndst = 2\ntransport = \"tcp\"\n";
const RANDOM: &str = "duration_s = 20\n[topology]\nkind = \"random\"\nnodes = 5\nwidth_m = 300\nheight_m = 300\n[[flows]]\nsrc = 0\ndst = 4\ntransport = \"tcp\"\n";

/// FULL with its wired link written out (the default one), so `[[wired.links]]` keys have an entry.
const FULL_LINKS: &str = concat!(include_str!("keys_tests_full.toml"), "[[wired.links]]\na = 4\nb = 5\n");

/// Every optional table switched on, so resolution fills all of them.
const FULL: &str = include_str!("keys_tests_full.toml");

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

/// `#[keys(filled = ...)]`: the resolved form is the parsed one with its
/// defaults filled, so their JSON is the same, and a key left unfilled is
/// named rather than defaulted.
#[test]
fn filled_tables_serialize_as_their_filled_spec_and_name_an_unfilled_key() {
    use super::schema::{RadioSpec, WiredLinkSpec};
    let spec = RadioSpec { data_rate_mbps: Some(2.0), basic_rate_mbps: Some(1.0), ..RadioSpec::default() };
    let filled = spec.clone().fill().expect("every key filled");
    assert_eq!(filled.data_rate_mbps, 2.0);
    assert_eq!(serde_json::to_string(&filled).unwrap(), serde_json::to_string(&spec).unwrap());
    let e = RadioSpec { basic_rate_mbps: None, ..spec }.fill().unwrap_err();
    assert_eq!(e.key, "radio.basic_rate_mbps");
    let link = WiredLinkSpec { a: 3, b: 4, bandwidth_mbps: Some(2.0), delay_ms: None, queue_limit: Some(10) };
    assert_eq!(link.fill().unwrap_err().key, "wired.links[].delay_ms");
}
