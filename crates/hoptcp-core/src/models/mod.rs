//! Analytic models the simulator is validated against:
//!
//! * `wstar`: Fu et al.'s optimal TCP window W* for chain, cross and grid;
//! * `single_hop`: exact cycle-time goodput of one saturated 802.11 sender
//!   under ns-2 timing;
//! * `bianchi`: Bianchi's (2000) saturation throughput of n stations, with
//!   ns-2's backoff draw, retry limit and EIFS mapped on;
//! * `linkdrop`: Fu et al.'s retry Markov chain and loss/load model of
//!   contention drops;
//! * `common`: access modes, backoff draws and frame durations they share.
//!
//! Derivations and the numbers the tests check: `docs/models.md`.

pub(crate) mod bianchi;
pub(crate) mod common;
pub(crate) mod evaluate;
pub(crate) mod linkdrop;
pub(crate) mod single_hop;
pub(crate) mod wstar;

pub(crate) use bianchi::{saturation_throughput, BianchiParams};
pub use evaluate::evaluate;
pub(crate) use linkdrop::{link_drop_at, link_drop_curve, predict_from_backlog, LinkDropParams, LinkDropPoint};
pub(crate) use single_hop::{single_hop, SingleHopParams};
pub(crate) use wstar::{optimal_window, Topology};

/// Invalid input to a model.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("invalid model parameter: {0}")]
    InvalidParameter(String),
}

#[cfg(test)]
mod tests {
    use super::common::UDP_IP_OVERHEAD_BYTES;
    use super::*;

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
