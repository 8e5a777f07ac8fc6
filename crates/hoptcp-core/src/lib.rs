//! hoptcp-core: a fast, deterministic packet-level simulator of TCP over
//! multihop IEEE 802.11 networks, faithful by default to ns-2.35's wireless
//! model (the simulator the reproduced papers used).
//!
//! Layers, one folder each: [`engine`] (time, events, random streams),
//! [`phy`] (propagation, channel, reception), [`mac`] (802.11 DCF),
//! [`net`] (IP, queues, routing, the TCP-GAP gateway), [`transport`] (UDP,
//! TCP, TCP-AP), [`app`] (traffic sources), [`wired`] (point-to-point
//! links), [`topology`], [`scenario`] (the scenario file),
//! [`stats`] (counters, results, pcap), [`models`] (analytic models), and
//! [`sim`], which wires them together and owns the event loop.

pub mod app;
pub mod engine;
pub mod gateway;
pub mod mac;
pub mod models;
pub mod net;
pub mod phy;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod topology;
pub mod transport;
pub mod wire;
pub mod wired;

pub use scenario::ScenarioError;
pub use sim::{RunReport, Simulation};

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
