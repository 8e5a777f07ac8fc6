//! hoptcp-core: a fast, deterministic packet-level simulator of TCP over
//! multihop IEEE 802.11 networks, faithful by default to ns-2.35's wireless
//! model (the simulator the reproduced papers used).
//!
//! Layers, one folder each: [`engine`] (time, events, random streams),
//! [`phy`] (propagation, channel, reception), [`mac`] (802.11 DCF),
//! [`net`] (IP, queues, routing), [`transport`] (UDP, TCP), [`app`]
//! (traffic sources), [`topology`], [`scenario`] (the scenario file),
//! [`stats`] (counters, results, pcap), [`models`] (analytic models), and
//! [`sim`], which wires them together and owns the event loop.

pub mod app;
pub mod engine;
pub mod mac;
pub mod net;
pub mod phy;
pub mod scenario;
pub mod sim;
pub mod topology;
pub mod transport;

pub use scenario::ScenarioError;
pub use sim::{RunReport, Simulation};

/// Parse, validate and run a scenario; `seed` overrides the file's seed.
pub fn run_scenario(
    text: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<RunReport, ScenarioError> {
    let mut overrides = overrides.to_vec();
    if let Some(s) = seed {
        overrides.push(("seed".into(), s.to_string()));
    }
    let plan = scenario::load(text, &overrides)?;
    let seed = plan.scenario.seed;
    Ok(Simulation::new(&plan, seed).run())
}
