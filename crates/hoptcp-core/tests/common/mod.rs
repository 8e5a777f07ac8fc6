//! Helpers shared by the integration tests: running scenarios given as TOML
//! text and reading the report.
#![allow(dead_code)]

use hoptcp_core::{run_scenario, RunOptions, RunReport};
use serde_json::Value;

/// Run `toml` with `overrides` (dotted key, value) and the file's seed.
pub fn run(toml: &str, overrides: &[(&str, String)]) -> RunReport {
    let ov: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    match run_scenario(toml, &ov, &RunOptions::default()) {
        Ok(r) => r,
        Err(e) => panic!("scenario failed: {e}\n{toml}"),
    }
}

/// Run with a seed given through `RunOptions`.
pub fn run_seed(toml: &str, overrides: &[(&str, String)], seed: u64) -> RunReport {
    let ov: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    match run_scenario(toml, &ov, &RunOptions { seed: Some(seed), pcap: None, pcap_node: None }) {
        Ok(r) => r,
        Err(e) => panic!("scenario failed: {e}\n{toml}"),
    }
}

/// `[[flows]]` entry for a saturated (or given-rate) CBR flow.
pub fn cbr(src: u32, dst: u32, rate_bps: f64, packet_bytes: u32) -> String {
    format!("[[flows]]\nsrc = {src}\ndst = {dst}\ntransport = \"udp\"\nrate_bps = {rate_bps}\npacket_bytes = {packet_bytes}\n")
}

/// Sum of a per-node MAC counter.
pub fn node_sum(r: &RunReport, f: impl Fn(&hoptcp_core::NodeReport) -> u64) -> u64 {
    r.nodes.iter().map(f).sum()
}

/// A report field of `drops` as an integer (`queue_overflow`, `total`, ...).
pub fn drops(r: &RunReport, cause: &str) -> u64 {
    r.drops.get(cause).and_then(Value::as_u64).unwrap_or_else(|| panic!("drops.{cause} missing: {:?}", r.drops))
}

/// Relative difference (a − b) / b.
pub fn rel(a: f64, b: f64) -> f64 {
    (a - b) / b
}

/// A model's output field as f64.
pub fn model(name: &str, params: Value, field: &str) -> f64 {
    let v = hoptcp_core::models::evaluate(name, &params).unwrap_or_else(|e| panic!("model {name}: {e:?}"));
    v[field].as_f64().unwrap_or_else(|| panic!("model {name} has no numeric `{field}`: {v}"))
}

pub fn manifest_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file of the repository's `examples/` directory.
pub fn example(name: &str) -> String {
    let p = manifest_dir().join("../../examples").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}
