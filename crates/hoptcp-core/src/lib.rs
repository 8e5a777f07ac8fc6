//! hoptcp-core: a fast, deterministic packet-level simulator of TCP over
//! multihop IEEE 802.11 networks, faithful by default to ns-2.35's wireless
//! model (the simulator the reproduced papers used).
//!
//! Layers, one folder each, lowest first; each imports only folders below
//! it (`tests/layers.rs` fails otherwise): `engine` (time, events, random
//! streams, the arena), `wire` (what travels: node ids, 802.11 frames, IP
//! packets, TCP segments, ECN, AODV messages), `phy` (propagation,
//! channel, reception), `mac` (802.11 DCF and link policies) beside `wired`
//! (point-to-point links), `net` (interface queue, drop causes, LDM,
//! routing), `transport` (UDP, TCP, TCP-AP), then `app` (traffic
//! sources), [`models`] (analytic models) and `topology` (node placement),
//! `stats` (series, run trace, pcap, batch means), `gateway` (TCP-GAP),
//! `scenario` (the scenario file), and `sim`, the sole dispatcher, which
//! wires them together and owns the event loop.
//!
//! The crate's edge is this file, and nothing else is public: run a scenario
//! ([`run_scenario`]) and its report ([`RunReport`]); load one without
//! running it ([`load_scenario`]: its canonical JSON, resolved TOML and
//! network plan); the scenario's key declarations ([`keys`]); the errors;
//! the analytic models ([`models`], [`ldm`]); the name tables reports use;
//! the version.

mod app;
mod engine;
mod gateway;
mod mac;
pub mod models;
mod net;
mod phy;
mod scenario;
mod sim;
mod stats;
mod topology;
mod transport;
mod wire;
mod wired;

pub use mac::LinkReport;
pub use scenario::ScenarioError;
pub use sim::report::{NodeReport, RunReport, VERSION};
pub use stats::series::SeriesTable;

use sim::Simulation;

/// Low Delay Marking's analytic side: the marking probabilities and the
/// target window (the LDM paper's equations; `net/ldm.rs`).
pub mod ldm {
    pub use crate::net::ldm::{node_probability, path_probability, target_window, LdmParams};
}

/// A scenario parsed, its overrides applied, validated with every default
/// filled, and its network built: every check a run makes, without running.
#[derive(Debug)]
pub struct LoadedScenario {
    plan: scenario::Plan,
}

/// Load a scenario with `(dotted.key, value)` overrides (as a run would,
/// the network built once); the error names the key, the value and what is
/// allowed.
pub fn load_scenario(text: &str, overrides: &[(String, String)]) -> Result<LoadedScenario, ScenarioError> {
    scenario::load(text, overrides).map(|plan| LoadedScenario { plan })
}

impl LoadedScenario {
    /// The resolved scenario as canonical JSON (sorted keys, no whitespace),
    /// hashed into every stored run: the same string for scenarios that run
    /// identically.
    pub fn canonical_json(&self) -> String {
        scenario::canonical_json(&self.plan.scenario)
    }

    /// The resolved scenario as TOML, every default written out (what
    /// `hoptcp scenario show` prints; it loads back to the same scenario).
    pub fn resolved_toml(&self) -> Result<String, toml::ser::Error> {
        toml::to_string(&self.plan.scenario)
    }

    /// The network a run would build, as JSON: the resolved scenario, node
    /// positions, links, and every flow with its path and TCP settings.
    pub fn plan_json(&self) -> String {
        self.plan.to_json().to_string()
    }
}

/// The scenario's keys as declared once in the core (on their fields, `scenario/schema.rs`),
/// read-only, for the scenario reference.
pub mod keys {
    pub use crate::scenario::keys::{DeclText, TABLES};

    /// Every key's declaration as text (key, type, default, allowed
    /// values, unit, meaning), in declaration order.
    pub fn declarations() -> Vec<DeclText> {
        crate::scenario::keys::declarations().iter().map(crate::scenario::keys::Decl::text).collect()
    }

    /// The scenario file's JSON Schema (draft-07) from the same declarations:
    /// a subset of validation (rules between keys are hoptcp's own).
    pub fn json_schema() -> serde_json::Value {
        crate::scenario::json_schema::json_schema()
    }
}

/// Drop causes as reports name them, in report order.
pub const DROP_CAUSES: &[&str] = <net::DropCause as strum::VariantNames>::VARIANTS;
/// Packet kinds as reports name them, in report order.
pub const PACKET_KINDS: &[&str] = <wire::PacketKind as strum::VariantNames>::VARIANTS;

/// Why a run could not complete.
#[derive(Debug)]
pub enum RunError {
    /// The scenario is invalid (one clear message naming the key).
    Scenario(ScenarioError),
    /// The pcap trace could not be written.
    Io(std::io::Error),
    /// The caller's progress hook asked to stop.
    Stopped,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Scenario(e) => e.fmt(f),
            RunError::Io(e) => write!(f, "cannot write the trace: {e}"),
            RunError::Stopped => f.write_str("the run was stopped"),
        }
    }
}

impl std::error::Error for RunError {}

/// Options of one run beyond the scenario itself.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Overrides the scenario's seed.
    pub seed: Option<u64>,
    /// Write every frame to this pcap file.
    pub pcap: Option<std::path::PathBuf>,
    /// With `pcap`: only this node's frames, in a file with its interface alone.
    pub pcap_node: Option<u32>,
}

/// Parse, validate and run a scenario with `(dotted.key, value)` overrides.
pub fn run_scenario(text: &str, overrides: &[(String, String)], opts: &RunOptions) -> Result<RunReport, RunError> {
    run_scenario_observed(text, overrides, opts, |_| true)
}

/// As [`run_scenario`], with a hook called now and then with the fraction
/// of simulated time done; returning false stops the run.
pub fn run_scenario_observed(
    text: &str,
    overrides: &[(String, String)],
    opts: &RunOptions,
    observe: impl FnMut(f64) -> bool,
) -> Result<RunReport, RunError> {
    let mut overrides = overrides.to_vec();
    if let Some(s) = opts.seed {
        overrides.push(("seed".into(), s.to_string()));
    }
    let plan = scenario::load(text, &overrides).map_err(RunError::Scenario)?;
    let seed = plan.scenario.seed;
    let mut sim = Simulation::new(plan, seed);
    if let Some(k) = opts.pcap_node {
        let n = sim.node_count();
        if k as usize >= n {
            let last = n.saturating_sub(1);
            return Err(RunError::Scenario(ScenarioError::value(
                "pcap_node",
                k,
                format!("the scenario's wireless nodes are 0 to {last}"),
            )));
        }
    }
    if let Some(p) = &opts.pcap {
        sim.trace_node_to(p, opts.pcap_node).map_err(RunError::Io)?;
    }
    sim.run_observed(observe).map_err(RunError::Io)?.ok_or(RunError::Stopped)
}
