//! Pieces shared by the MAC-level models ([`single_hop`](mod@super::single_hop) and
//! [`super::bianchi`]): access mode, how the backoff is drawn, the per-stage
//! contention windows, and the on-air durations of one exchange.

use crate::engine::{Time, NS_PER_S};
use crate::mac::{FrameFormat, Timing};

/// IP + UDP header bytes added to a UDP payload (20 + 8).
pub const UDP_IP_OVERHEAD_BYTES: u32 = 28;
/// IP + TCP header bytes added to a TCP payload (20 + 20; ns-2 adds 40).
pub const TCP_IP_OVERHEAD_BYTES: u32 = 40;
/// Propagation speed used by ns-2 (and hoptcp's PHY): 3·10⁸ m/s.
pub const SPEED_OF_LIGHT_M_PER_S: f64 = 3e8;

/// Nanoseconds (the simulator's integer time) to seconds.
pub fn ns_to_s(t: Time) -> f64 {
    t as f64 / NS_PER_S as f64
}

/// One-way propagation delay over `distance_m` metres, in seconds.
pub fn propagation_delay_s(distance_m: f64) -> f64 {
    distance_m / SPEED_OF_LIGHT_M_PER_S
}

/// How a unicast DATA frame gets on the air.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Four-way handshake RTS–CTS–DATA–ACK (ns-2's default: RTS threshold 0).
    RtsCts,
    /// Two-way DATA–ACK (basic access).
    Basic,
}

/// How the random backoff is drawn from a contention window `cw`, which
/// decides the window size W_i (number of equally likely slot counts) of
/// each backoff stage i in the models.
///
/// The contention-window sequence is the same in all three: cw_0 = CWmin,
/// cw_{i+1} = min(2·cw_i + 1, CWmax) (31, 63, …, 1023 for DSSS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackoffDraw {
    /// IEEE 802.11 and Bianchi (2000): uniform in 0..=cw, so W_i = cw_i + 1
    /// (W = CWmin + 1 = 32, doubling exactly to 1024). Mean (W_i − 1)/2 = cw_i/2.
    Standard,
    /// ns-2.35 (`Random::random() % cw`): uniform in 0..=cw−1, so W_i = cw_i
    /// exactly (31, 63, 127, …, 1023). Mean (cw_i − 1)/2: half a slot less
    /// than the standard at every stage (15 instead of 15.5 slots at stage 0).
    Ns2,
    /// The usual shortcut for ns-2 in Bianchi's closed form: W = CWmin (31)
    /// in place of CWmin + 1 and W_i = 2^i·W (31, 62, 124, …, 992). Stage 0
    /// is exact; later stages are 1.6–3 % smaller than ns-2's real windows.
    Ns2Scaled,
}

impl BackoffDraw {
    /// Window sizes W_0..=W_m for the contention windows of `cw_min`..`cw_max`
    /// (see [`contention_windows`]); the last entry is the final stage W_m.
    pub fn stage_windows(self, cw_min: u32, cw_max: u32) -> Vec<u32> {
        let cws = contention_windows(cw_min, cw_max);
        match self {
            BackoffDraw::Standard => cws.iter().map(|&cw| cw + 1).collect(),
            BackoffDraw::Ns2 => cws,
            BackoffDraw::Ns2Scaled => (0..cws.len() as u32).map(|i| cw_min << i).collect(),
        }
    }

    /// Mean number of idle backoff slots drawn at the first stage (cw = CWmin):
    /// (W_0 − 1)/2.
    pub fn mean_first_backoff_slots(self, cw_min: u32) -> f64 {
        let w0 = match self {
            BackoffDraw::Standard => cw_min + 1,
            BackoffDraw::Ns2 | BackoffDraw::Ns2Scaled => cw_min,
        };
        (w0 as f64 - 1.0) / 2.0
    }
}

/// ns-2's contention-window sequence: CWmin, then cw ← 2·cw + 1 until CWmax
/// (inclusive, capped). Its length is m + 1, m being Bianchi's number of
/// backoff stages (5 for DSSS 31..1023, 6 for OFDM 15..1023).
pub fn contention_windows(cw_min: u32, cw_max: u32) -> Vec<u32> {
    let mut cws = vec![cw_min];
    let mut cw = cw_min;
    while cw < cw_max {
        cw = (2 * cw + 1).min(cw_max);
        cws.push(cw);
    }
    cws
}

/// Durations (seconds) and sizes of one frame exchange carrying one packet,
/// taken from the simulator's [`Timing`] (integer ns) and [`FrameFormat`].
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct FrameTimes {
    /// Application payload per packet (UDP or TCP payload), bytes.
    pub payload_bytes: u32,
    /// IP packet: payload + IP/transport headers, bytes.
    pub ip_bytes: u32,
    /// MAC DATA frame: IP packet + MAC header and FCS, bytes.
    pub mac_bytes: u32,
    /// Backoff slot σ.
    pub slot_s: f64,
    pub sifs_s: f64,
    pub difs_s: f64,
    /// EIFS = SIFS + DIFS + ACK at the lowest PLCP rate (364 µs for DSSS).
    pub eifs_s: f64,
    /// RTS airtime at the basic rate, PLCP included.
    pub rts_s: f64,
    /// CTS airtime at the basic rate.
    pub cts_s: f64,
    /// ACK airtime at the basic rate.
    pub ack_s: f64,
    /// DATA airtime at the data rate (PLCP + MAC header + IP packet + FCS).
    pub data_s: f64,
    /// One-way propagation delay δ.
    pub prop_s: f64,
    /// Data rate, bit/s.
    pub data_rate_bps: f64,
}

impl FrameTimes {
    pub fn new(timing: &Timing, format: FrameFormat, payload_bytes: u32, ip_overhead_bytes: u32, prop_s: f64) -> Self {
        let ip_bytes = payload_bytes + ip_overhead_bytes;
        let mac_bytes = ip_bytes + format.data_overhead_bytes();
        FrameTimes {
            payload_bytes,
            ip_bytes,
            mac_bytes,
            slot_s: ns_to_s(timing.slot),
            sifs_s: ns_to_s(timing.sifs),
            difs_s: ns_to_s(timing.difs),
            eifs_s: ns_to_s(timing.eifs),
            rts_s: ns_to_s(timing.basic_airtime(format.rts_bytes())),
            cts_s: ns_to_s(timing.basic_airtime(format.cts_bytes())),
            ack_s: ns_to_s(timing.basic_airtime(format.ack_bytes())),
            data_s: ns_to_s(timing.data_airtime(mac_bytes)),
            prop_s,
            data_rate_bps: timing.data_rate_bps,
        }
    }

    /// Application payload bits carried per successful exchange.
    pub fn payload_bits(&self) -> f64 {
        8.0 * self.payload_bytes as f64
    }

    /// Busy time of a successful exchange, from the first bit of the first
    /// frame to the end of the ACK at the sender, without DIFS or backoff:
    /// RTS + SIFS + CTS + SIFS + DATA + SIFS + ACK + 4δ (RTS/CTS) or
    /// DATA + SIFS + ACK + 2δ (basic).
    pub fn exchange_s(&self, access: Access) -> f64 {
        match access {
            Access::RtsCts => {
                self.rts_s + self.cts_s + self.data_s + self.ack_s + 3.0 * self.sifs_s + 4.0 * self.prop_s
            }
            Access::Basic => self.data_s + self.ack_s + self.sifs_s + 2.0 * self.prop_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::Standard;

    #[test]
    fn dsss_windows() {
        assert_eq!(contention_windows(31, 1023), vec![31, 63, 127, 255, 511, 1023]);
        assert_eq!(BackoffDraw::Standard.stage_windows(31, 1023), vec![32, 64, 128, 256, 512, 1024]);
        assert_eq!(BackoffDraw::Ns2.stage_windows(31, 1023), vec![31, 63, 127, 255, 511, 1023]);
        assert_eq!(BackoffDraw::Ns2Scaled.stage_windows(31, 1023), vec![31, 62, 124, 248, 496, 992]);
        assert_eq!(contention_windows(15, 1023).len(), 7);
        assert_eq!(contention_windows(1023, 1023), vec![1023]);
        assert_eq!(BackoffDraw::Ns2.mean_first_backoff_slots(31), 15.0);
        assert_eq!(BackoffDraw::Standard.mean_first_backoff_slots(31), 15.5);
    }

    #[test]
    fn frame_times_default_scenario() {
        let t = Timing::new(Standard::Dsss, 2.0, 1.0);
        let f = FrameTimes::new(&t, FrameFormat::Ns2, 1460, UDP_IP_OVERHEAD_BYTES, 0.0);
        assert_eq!((f.ip_bytes, f.mac_bytes), (1488, 1522));
        assert!((f.data_s - 6280e-6).abs() < 1e-15);
        assert!((f.rts_s - 352e-6).abs() < 1e-15);
        assert!((f.cts_s - 304e-6).abs() < 1e-15);
        assert!((f.ack_s - 304e-6).abs() < 1e-15);
        assert!((f.exchange_s(Access::RtsCts) - 7270e-6).abs() < 1e-12);
        assert!((f.exchange_s(Access::Basic) - 6594e-6).abs() < 1e-12);
    }
}
