//! TCP parameters. Defaults are ns-2.35's (`tcl/lib/ns-default.tcl`) except
//! where a field says otherwise.

use super::sack::SackProfile;
use super::tcp_ap::TcpApConfig;
use crate::engine::{time::from_secs, Time, NS_PER_MS, NS_PER_S};
use serde::{Deserialize, Serialize};

/// Congestion-control variant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// ns-2 `Agent/TCP/Newreno` (RFC 6582 with partial window deflation).
    #[default]
    NewReno,
    /// ns-2 `Agent/TCP/Reno`: any new ACK ends fast recovery.
    Reno,
    /// ns-2 `Agent/TCP/Vegas` (Brakmo & Peterson, after USC's NetBSD code).
    Vegas,
    /// CUBIC: RFC 9438 with HyStart++ (RFC 9406) over NewReno's loss
    /// recovery, or ns-2.35's TCP-Linux cubic ([`CubicProfile`]).
    Cubic,
    /// BBR v1 (draft-cardwell-iccrg-bbr-congestion-control-00 as ns-3.37's
    /// `TcpBbr`), paced at the sender.
    Bbr,
}

/// Which CUBIC `Variant::Cubic` runs (the scenario's `tcp.cubic.profile`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum CubicProfile {
    /// RFC 9438 with HyStart++ (`congestion/cubic.rs`).
    #[default]
    Rfc9438,
    /// ns-2.35's `Agent/TCP/Linux` with `select_ca cubic` and a plain
    /// `TCPSink`, no timestamps (`congestion/cubic/ns2_linux.rs`).
    Ns2Linux,
}

impl CubicProfile {
    pub fn is_default(&self) -> bool {
        *self == CubicProfile::Rfc9438
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TcpConfig {
    pub variant: Variant,
    /// Payload bytes per data packet (ns-2 `packetSize_`).
    pub payload_bytes: u32,
    /// Receiver-window clamp in packets (ns-2 `window_`, the papers' MaxWin).
    pub max_window: u32,
    /// cwnd once the setup segment is acknowledged (ns-2 `windowInit_`).
    pub initial_window: u32,
    /// Initial slow-start threshold in packets; 0 means "= max_window" (what
    /// ns-2 gives when `Agent/TCP set window_` is set before the agent is
    /// created). The default, 20, is what ns-2.35 scripts that set window_
    /// on the agent get: `TcpAgent::reset()` runs at creation, with the class
    /// default window_ of 20, and is not run again for mobile nodes.
    pub initial_ssthresh: u32,
    pub ecn: bool,
    /// Receiver: delay ACKs (ns-2 `Agent/TCPSink/DelAck`); false = ACK
    /// every packet (`Agent/TCPSink`).
    pub delayed_ack: bool,
    pub delayed_ack_timeout: Time,
    pub min_rto: Time,
    pub max_rto: Time,
    pub initial_rto: Time,
    /// RTT clock granularity (ns-2 `tcpTick_`).
    pub tick: Time,
    /// Duplicate ACKs that trigger fast retransmit (ns-2 `numdupacks_`).
    pub dupack_threshold: u32,
    pub vegas_alpha: f64,
    pub vegas_beta: f64,
    pub vegas_gamma: f64,
    /// Send the 40-byte setup segment first (ns-2 `syn_`).
    pub syn: bool,
    /// Limited transmit (RFC 3042): the first and second duplicate ACKs
    /// each release one new packet. On in ns-2.35 (`singledup_ 1`) for Reno
    /// and NewReno; Vegas has its own duplicate-ACK handling and ignores it.
    pub limited_transmit: bool,
    /// TCP-AP adaptive pacing of the transmit path (None: off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pacing: Option<TcpApConfig>,
    /// BBR: the gain-cycle phase (0..=7) each entry into ProbeBW starts
    /// in, in turn; after these, drawn as ns-3.37 draws them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bbr_phases: Vec<u8>,
    /// CUBIC's profile (read with `variant = Cubic` only).
    #[serde(skip_serializing_if = "CubicProfile::is_default")]
    pub cubic_profile: CubicProfile,
    /// Selective acknowledgments (receiver blocks and the sender's
    /// SACK-based recovery) with this profile; None: off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sack: Option<SackProfile>,
}

/// Defaults of the fields the scenario exposes as `[tcp]` keys; its
/// declarations (`scenario/schema.rs`) read these, so each is written once.
pub const DEFAULT_PAYLOAD_BYTES: u32 = 1460;
/// The papers' chains run with ns-2's class default window_ of 20.
pub const DEFAULT_MAX_WINDOW: u32 = 20;
pub const DEFAULT_INITIAL_WINDOW: u32 = 2;
/// ns-2.35 agents on mobile nodes keep the class default window_ (20).
pub const DEFAULT_INITIAL_SSTHRESH: u32 = 20;
pub const DEFAULT_ECN: bool = false;
pub const DEFAULT_DELAYED_ACK: bool = false;
pub const DEFAULT_MIN_RTO_S: f64 = 0.2;
/// Vegas thresholds in packets (ns-2 v_alpha_, v_beta_, v_gamma_).
pub const DEFAULT_VEGAS_ALPHA: f64 = 1.0;
pub const DEFAULT_VEGAS_BETA: f64 = 3.0;
pub const DEFAULT_VEGAS_GAMMA: f64 = 1.0;

/// The rest are ns-2.35's and not scenario keys.
impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            variant: Variant::NewReno,
            payload_bytes: DEFAULT_PAYLOAD_BYTES,
            max_window: DEFAULT_MAX_WINDOW,
            initial_window: DEFAULT_INITIAL_WINDOW,
            initial_ssthresh: DEFAULT_INITIAL_SSTHRESH,
            ecn: DEFAULT_ECN,
            delayed_ack: DEFAULT_DELAYED_ACK,
            delayed_ack_timeout: 100 * NS_PER_MS,
            min_rto: from_secs(DEFAULT_MIN_RTO_S),
            max_rto: 60 * NS_PER_S,
            initial_rto: 3 * NS_PER_S,
            tick: 10 * NS_PER_MS,
            dupack_threshold: 3,
            vegas_alpha: DEFAULT_VEGAS_ALPHA,
            vegas_beta: DEFAULT_VEGAS_BETA,
            vegas_gamma: DEFAULT_VEGAS_GAMMA,
            syn: true,
            limited_transmit: true,
            pacing: None,
            bbr_phases: Vec::new(),
            cubic_profile: CubicProfile::Rfc9438,
            sack: None,
        }
    }
}

impl TcpConfig {
    /// ns-2.35's TCP-Linux runs this flow (CUBIC's `ns2_linux` profile).
    pub fn tcp_linux(&self) -> bool {
        self.variant == Variant::Cubic && self.cubic_profile == CubicProfile::Ns2Linux
    }

    /// The RTT clock's tick: TCP-Linux sets ns-2's `tcp_tick_` to one
    /// jiffy (1 ms) when its congestion module is installed.
    pub fn rtt_tick(&self) -> Time {
        if self.tcp_linux() {
            NS_PER_MS
        } else {
            self.tick
        }
    }

    /// The initial ssthresh actually used (resolves the 0 = max_window rule).
    pub fn effective_initial_ssthresh(&self) -> u32 {
        if self.initial_ssthresh == 0 {
            self.max_window
        } else {
            self.initial_ssthresh
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_serde_names() {
        assert_eq!(serde_json::to_string(&Variant::NewReno).unwrap(), "\"newreno\"");
        assert_eq!(serde_json::to_string(&Variant::Reno).unwrap(), "\"reno\"");
        assert_eq!(serde_json::to_string(&Variant::Vegas).unwrap(), "\"vegas\"");
        assert_eq!(serde_json::to_string(&Variant::Bbr).unwrap(), "\"bbr\"");
        let v: Variant = serde_json::from_str("\"vegas\"").unwrap();
        assert_eq!(v, Variant::Vegas);
        assert!(serde_json::from_str::<Variant>("\"tahoe\"").is_err());
    }

    #[test]
    fn defaults_and_partial_deserialize() {
        let c: TcpConfig = serde_json::from_str(r#"{"max_window": 4, "variant": "reno"}"#).unwrap();
        assert_eq!(c.max_window, 4);
        assert_eq!(c.variant, Variant::Reno);
        assert_eq!(c.payload_bytes, 1460);
        assert_eq!(c.initial_rto, 3 * NS_PER_S);
        assert_eq!(c.effective_initial_ssthresh(), 20);
        let c0 = TcpConfig { initial_ssthresh: 0, ..c };
        assert_eq!(c0.effective_initial_ssthresh(), 4);
    }
}
