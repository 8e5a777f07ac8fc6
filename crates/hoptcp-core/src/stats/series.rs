//! Time series a run records only when the scenario asks for them
//! (`stats.series = ["gateway", "tcp_ap"]`): long-format points (time, flow,
//! metric, value) taken whenever a value changes, so nothing is sampled on a
//! clock and a run that asks for none does no work at all.
//!
//! Kinds:
//! - `gateway`: TCP-GAP's per-flow state at the Internet gateway
//!   (`gateway/tcp_gap.rs`);
//! - `tcp_ap`: the same estimate at each TCP-AP sender
//!   (`transport/tcp/tcp_ap.rs`), to hold the gateway's against;
//! - `cwnd`, `ssthresh`, `rtt`, `rto`, `goodput` (per flow) and `queue`,
//!   `mac` (per node), and `air` (every frame on the air with its fate at
//!   each intended receiver, plus the packet events a trace needs):
//!   recorded by [`super::run_trace::RunTrace`] from the simulator.
//!
//! More kinds join by adding a variant and a recorder where the state lives.

use crate::engine::Time;
use serde::{Deserialize, Serialize};

/// A time series a run can record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum SeriesKind {
    Gateway,
    TcpAp,
    Cwnd,
    Ssthresh,
    Rtt,
    Rto,
    Goodput,
    Queue,
    Mac,
    Air,
    Bbr,
}

impl SeriesKind {
    pub fn name(self) -> &'static str {
        match self {
            SeriesKind::Gateway => "gateway",
            SeriesKind::TcpAp => "tcp_ap",
            SeriesKind::Cwnd => "cwnd",
            SeriesKind::Ssthresh => "ssthresh",
            SeriesKind::Rtt => "rtt",
            SeriesKind::Rto => "rto",
            SeriesKind::Goodput => "goodput",
            SeriesKind::Queue => "queue",
            SeriesKind::Mac => "mac",
            SeriesKind::Air => "air",
            SeriesKind::Bbr => "bbr",
        }
    }

    /// The metric names of the kind's points (`metric` indexes them).
    pub fn metrics(self) -> &'static [&'static str] {
        match self {
            SeriesKind::Gateway | SeriesKind::TcpAp => &PACING_METRICS,
            SeriesKind::Cwnd => &["cwnd", "cwnd_traced"],
            SeriesKind::Ssthresh => &["ssthresh"],
            SeriesKind::Rtt => &["rtt_s"],
            SeriesKind::Rto => &["rto_s", "timeouts", "retransmissions"],
            SeriesKind::Goodput => &["bytes_delivered"],
            SeriesKind::Queue => &["queue"],
            SeriesKind::Mac => &MAC_METRICS,
            SeriesKind::Air => &[],
            SeriesKind::Bbr => &BBR_METRICS,
        }
    }

    /// What the `flow` column of the kind's points holds: a flow id or a node id.
    pub fn keyed_by(self) -> &'static str {
        match self {
            SeriesKind::Queue | SeriesKind::Mac | SeriesKind::Air => "node",
            _ => "flow",
        }
    }
}

/// Metrics of the `bbr` kind: BBR's state (0 Startup, 1 Drain, 2 ProbeBW,
/// 3 ProbeRTT), BtlBw and pacing rate (packets/s), RTprop (s), pacing gain.
pub const BBR_METRICS: [&str; 5] = ["state", "btl_bw_pps", "rt_prop_s", "pacing_rate_pps", "pacing_gain"];

/// Metrics of the `mac` kind: the MAC's activity (`Dcf::activity`'s number),
/// its retransmissions so far, and its drops so far by cause
/// (`crate::net::drop_causes()` order).
pub const MAC_METRICS: [&str; 3] = ["state", "retries", "drops"];

/// What a pacing estimator's series holds (gateway and TCP-AP sender).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum PacingMetric {
    /// One RTT sample of the wireless part (s): every sample is a point.
    RttWirelessS,
    /// FHD^ (s).
    FhdS,
    /// cov_RTT (or the ns-2 code's mean absolute deviation ratio).
    Variation,
    /// The pacing rate in force (packets/s), a Goodput Control cap included.
    RatePps,
    /// Packets waiting in the flow's pacing queue.
    Queue,
    /// Gateway, wireless-to-wired flows: RTT_wired written into an ACK (s).
    RttWiredS,
    /// Gateway: the flow's goodput over the last Goodput Control period (bit/s).
    GoodputBps,
    /// Gateway: Goodput Control's cap (packets/s; 0 = none).
    CapPps,
}

/// Names of [`PacingMetric`] by discriminant, as the report writes them.
pub const PACING_METRICS: [&str; 8] =
    ["rtt_wireless_s", "fhd_s", "variation", "rate_pps", "queue", "rtt_wired_s", "goodput_bps", "cap_pps"];

/// Last value of each metric of one flow, to record changes only.
#[derive(Clone, Debug)]
pub struct LastValues([f64; PACING_METRICS.len()]);

impl Default for LastValues {
    fn default() -> Self {
        LastValues([f64::NAN; PACING_METRICS.len()])
    }
}

/// Points in long format, column by column.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeriesLog {
    pub time: Vec<Time>,
    pub flow: Vec<u32>,
    pub metric: Vec<u8>,
    pub value: Vec<f64>,
}

impl SeriesLog {
    /// A point, whatever the previous value.
    pub fn push(&mut self, t: Time, flow: u32, m: PacingMetric, value: f64) {
        self.push_index(t, flow, m as u8, value);
    }

    /// A point of metric number `m` of its kind's [`SeriesKind::metrics`].
    pub fn push_index(&mut self, t: Time, flow: u32, m: u8, value: f64) {
        self.time.push(t);
        self.flow.push(flow);
        self.metric.push(m);
        self.value.push(value);
    }

    /// A point if `value` differs from the flow's last one of `m`.
    pub fn changed(&mut self, last: &mut LastValues, t: Time, flow: u32, m: PacingMetric, value: f64) {
        let slot = &mut last.0[m as usize];
        if *slot != value {
            *slot = value;
            self.push(t, flow, m, value);
        }
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

/// A series as the report writes it: metric names once, then the columns
/// (`metric` indexes `metrics`).
#[derive(Clone, Debug, Serialize)]
pub struct SeriesTable {
    pub metrics: &'static [&'static str],
    /// "flow" or "node": what the `flow` column holds.
    pub keyed_by: &'static str,
    pub time_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub metric: Vec<u8>,
    pub value: Vec<f64>,
}

impl SeriesTable {
    /// `log` of `kind` with its flow labels mapped through `flow_id`.
    pub fn from_log(kind: SeriesKind, log: &SeriesLog, flow_id: impl Fn(u32) -> u32) -> Self {
        SeriesTable {
            metrics: kind.metrics(),
            keyed_by: kind.keyed_by(),
            time_s: log.time.iter().map(|&t| crate::engine::time::to_secs(t)).collect(),
            flow: log.flow.iter().map(|&f| flow_id(f)).collect(),
            metric: log.metric.clone(),
            value: log.value.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_only_unless_pushed() {
        let mut log = SeriesLog::default();
        let mut last = LastValues::default();
        log.changed(&mut last, 1, 0, PacingMetric::Queue, 0.0);
        log.changed(&mut last, 2, 0, PacingMetric::Queue, 0.0);
        log.changed(&mut last, 3, 0, PacingMetric::Queue, 1.0);
        log.changed(&mut last, 3, 0, PacingMetric::RatePps, 1.0);
        log.push(4, 0, PacingMetric::RttWirelessS, 0.02);
        log.push(5, 0, PacingMetric::RttWirelessS, 0.02);
        assert_eq!(log.time, vec![1, 3, 3, 4, 5]);
        assert_eq!(log.metric, vec![4, 4, 3, 0, 0]);
        let t = SeriesTable::from_log(SeriesKind::Gateway, &log, |f| f + 7);
        assert_eq!(t.flow, vec![7; 5]);
        assert_eq!(t.time_s[4], 5e-9);
        assert_eq!(PACING_METRICS[PacingMetric::CapPps as usize], "cap_pps");
    }
}
