//! Analytic models the simulator is validated against:
//!
//! * [`wstar`]: Fu et al.'s optimal TCP window W* for chain, cross and grid;
//! * [`single_hop`](mod@single_hop): exact cycle-time goodput of one saturated 802.11 sender
//!   under ns-2 timing;
//! * [`bianchi`]: Bianchi's (2000) saturation throughput of n stations, with
//!   ns-2's backoff draw, retry limit and EIFS mapped on;
//! * [`linkdrop`]: Fu et al.'s retry Markov chain and loss/load model of
//!   contention drops;
//! * [`common`]: access modes, backoff draws and frame durations they share.
//!
//! Derivations and the numbers the tests check: `docs/models.md`.

pub mod bianchi;
pub mod common;
pub mod evaluate;
pub mod linkdrop;
pub mod single_hop;
pub mod wstar;

pub use bianchi::{attempt_probability, saturation_throughput, BianchiParams, BianchiResult, CollisionRecovery};
pub use common::{Access, BackoffDraw, FrameTimes, TCP_IP_OVERHEAD_BYTES, UDP_IP_OVERHEAD_BYTES};
pub use evaluate::evaluate;
pub use linkdrop::{
    drop_state_probability, link_drop_at, link_drop_curve, predict_from_backlog, state_probabilities,
    BacklogPrediction, LinkDropParams, LinkDropPoint, LoadModel,
};
pub use single_hop::{single_hop, SingleHop, SingleHopParams};
pub use wstar::{optimal_window, Topology, WStar};

/// Invalid input to a model.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("invalid model parameter: {0}")]
    InvalidParameter(String),
}

/// A model's name (as a CLI would take it) and what it computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ModelInfo {
    pub name: &'static str,
    pub description: &'static str,
}

/// The available models, for listings.
pub fn describe() -> Vec<ModelInfo> {
    vec![
        ModelInfo {
            name: "wstar",
            description: "Fu et al. optimal TCP window W*: chain h/4, cross ceil((h+4)/8), \
                          grid ceil((h+9)/14) (text: ceil((h+5)/10))",
        },
        ModelInfo {
            name: "single_hop",
            description: "exact goodput of one saturated 802.11 sender (RTS/CTS or basic) \
                          from the ns-2 DCF cycle",
        },
        ModelInfo {
            name: "bianchi",
            description: "Bianchi (2000) saturation throughput of n stations, with ns-2's \
                          backoff draw, retry limit and EIFS as options",
        },
        ModelInfo {
            name: "linkdrop",
            description: "Fu et al. retry Markov chain and loss/load model of contention drops \
                          (B*, C*, r), from load or measured backlog",
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_lists_each_model_once() {
        let d = describe();
        let names: Vec<_> = d.iter().map(|m| m.name).collect();
        assert_eq!(names, ["wstar", "single_hop", "bianchi", "linkdrop"]);
        assert!(d.iter().all(|m| !m.description.is_empty()));
        assert!(serde_json::to_string(&d).unwrap().contains("\"bianchi\""));
    }

    #[test]
    fn results_serialize() {
        let r = saturation_throughput(&BianchiParams::ns2(10, 1000)).unwrap();
        let v: serde_json::Value = serde_json::to_value(&r).unwrap();
        assert_eq!(v["draw"], "ns2");
        assert_eq!(v["collision"], "eifs");
        assert_eq!(v["retry_limit"], 7);
        let s = single_hop(&SingleHopParams::ns2(1460, UDP_IP_OVERHEAD_BYTES, 200.0));
        assert!(serde_json::to_value(&s).unwrap()["goodput_bps"].as_f64().unwrap() > 1.5e6);
        let l = link_drop_curve(&LinkDropParams::new(2.0, 3.0), 5).unwrap();
        assert_eq!(serde_json::to_value(&l).unwrap().as_array().unwrap().len(), 5);
    }
}
