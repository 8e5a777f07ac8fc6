//! The scenario file (version 1): the public contract of hoptcp. Parsed with
//! serde; unknown keys are errors. Defaults follow ns-2.35's wireless model.
//! `validate.rs` checks values and cross-field rules; `resolve` fills every
//! default so the canonical form (and its hash) says exactly what ran.

use super::keys as k;
pub use super::wstar::MaxWindow;
use crate::engine::time::from_secs;
use crate::engine::Time;
use crate::gateway::tcp_gap::AgingRule;
use crate::mac::{FrameFormat, PacingExtra, PacingTrigger, PacingWait, SlotCount, Standard};
use crate::net::ldm::{LdmEstimate, LdmParams};
use crate::net::MarkAction;
use crate::transport::tcp::tcp_ap::{PaceTimer, ShortPath, TcpApConfig, Variation};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Simulated time (s).
    #[serde(default = "d_duration")]
    pub duration_s: f64,
    /// Run seed; every random stream derives from it.
    #[serde(default = "d_seed")]
    pub seed: u64,
    pub topology: TopologySpec,
    #[serde(default)]
    pub radio: RadioSpec,
    #[serde(default)]
    pub mac: MacSpec,
    #[serde(default)]
    pub ip: IpSpec,
    #[serde(default)]
    pub routing: RoutingSpec,
    #[serde(default)]
    pub tcp: TcpSpec,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Flows between random node pairs (drawn from the seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_flows: Option<RandomFlowsSpec>,
    #[serde(default)]
    pub stats: StatsSpec,
    /// A wired domain behind an Internet gateway (absent: all wireless).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wired: Option<WiredSpec>,
    /// Settings resolution dropped because their table is disabled; kept for
    /// the run's warnings, never part of the canonical form.
    #[serde(skip)]
    pub ignored: Vec<String>,
}

fn d_duration() -> f64 {
    k::DURATION_S.num()
}
fn d_seed() -> u64 {
    k::SEED.int()
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TopologyKind {
    Chain,
    Grid,
    Cross,
    ParallelChains,
    Star,
    Random,
    Explicit,
}

/// One table for all topology kinds; `validate` rejects keys a kind does not
/// use, naming the ones it does.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    pub kind: TopologyKind,
    /// chain, cross (hops per arm, even), parallel_chains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hops: Option<u32>,
    /// Distance between neighbouring nodes (m); chain, grid, cross, parallel_chains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spacing_m: Option<f64>,
    /// grid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cols: Option<u32>,
    /// parallel_chains: number of chains and the distance between them (m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chains: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_gap_m: Option<f64>,
    /// star: hub is node 0, leaves 1..=n on a circle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaves: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius_m: Option<f64>,
    /// random: node count and the rectangle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_m: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height_m: Option<f64>,
    /// random: seed of the placement (default: the run seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_seed: Option<u64>,
    /// random: reject a draw whose link graph is disconnected (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_connected: Option<bool>,
    /// explicit: [[x, y], ...] in metres; node i is the i-th entry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<[f64; 2]>>,
    /// parallel_chains: one more node (the last id), the Internet gateway
    /// joining the chains (ElRakabawy et al. Fig. 5), level with the chains'
    /// last nodes and midway between the outer chains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<bool>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RadioSpec {
    /// Range at which frames can still be decoded (sets RXThresh).
    pub tx_range_m: f64,
    /// Range at which the carrier is still sensed (sets CSThresh).
    pub cs_range_m: f64,
    /// Capture threshold (dB): a frame being received survives a later one
    /// this much weaker.
    pub capture_db: f64,
    pub standard: Standard,
    /// Default: 2 Mb/s (DSSS, as Fu and Lee) or 54 Mb/s (OFDM, ERP, ns2_g).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_rate_mbps: Option<f64>,
    /// Rate of RTS/CTS/ACK. Default: 1 Mb/s (DSSS, ns2_g) or 6 Mb/s (OFDM, ERP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basic_rate_mbps: Option<f64>,
    /// Two-ray ground parameters (ns-2 defaults).
    pub tx_power_w: f64,
    pub frequency_hz: f64,
    pub antenna_height_m: f64,
    pub system_loss: f64,
}

impl Default for RadioSpec {
    fn default() -> Self {
        RadioSpec {
            tx_range_m: k::RADIO_TX_RANGE_M.num(),
            cs_range_m: k::RADIO_CS_RANGE_M.num(),
            capture_db: k::RADIO_CAPTURE_DB.num(),
            standard: k::RADIO_STANDARD.word(),
            data_rate_mbps: None,
            basic_rate_mbps: None,
            tx_power_w: k::RADIO_TX_POWER_W.num(),
            frequency_hz: k::RADIO_FREQUENCY_HZ.num(),
            antenna_height_m: k::RADIO_ANTENNA_HEIGHT_M.num(),
            system_loss: k::RADIO_SYSTEM_LOSS.num(),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MacSpec {
    /// RTS/CTS precedes unicast DATA frames at least this long (bytes).
    pub rts_threshold_bytes: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    /// Interface queue limit in packets, ns-2 semantics: `queue_limit - 1`
    /// wait in the queue and one more is held by the MAC.
    pub queue_limit: u32,
    /// Contention window bounds (default from the standard: 31/1023 DSSS and
    /// ns2_g, 15/1023 OFDM and ERP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cw_min: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cw_max: Option<u32>,
    /// Header sizes: "ns2" (ns-2.35) or "standard" (IEEE 802.11-2016).
    pub frame_format: FrameFormat,
    /// How a frozen backoff counts the slots that elapsed: "exact" (integer
    /// clock) or "ns2" (ns-2.35's double arithmetic, which drops a slot at
    /// exact slot boundaries about every other time; see mac/backoff.rs).
    #[serde(skip_serializing_if = "SlotCount::is_exact")]
    pub backoff_slots: SlotCount,
    /// Link RED (Fu et al.): mark or drop as the average MAC retry count rises.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_red: Option<LinkRedSpec>,
    /// Adaptive pacing (Fu et al.): an extra backoff of one exchange after a success.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adaptive_pacing: Option<AdaptivePacingSpec>,
}

/// `[mac.link_red]`. The papers print the averaging weight (1/8) but not the
/// thresholds; the defaults come from the `lred-calibration` reproduction
/// entry (see docs/model.md).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LinkRedSpec {
    pub enabled: bool,
    /// Average retries per packet at which marking starts (and the pacing
    /// trigger's threshold).
    pub min_th: f64,
    /// The marking probability would reach 1 here; it is capped at max_p.
    pub max_th: f64,
    pub max_p: f64,
    /// EWMA weight of the newest packet's retries.
    pub weight: f64,
    /// "mark": CE on ECN-capable packets, drop the others (RFC 3168);
    /// "mark_ect_only": CE on ECN-capable packets, leave the others; "drop".
    pub action: MarkAction,
}

impl Default for LinkRedSpec {
    fn default() -> Self {
        // From `lred-calibration` (3 chains x 60 settings, RFC 3168 marking):
        // every setting that acts costs goodput, and the criterion picks the
        // least active corner of the grid.
        LinkRedSpec {
            enabled: k::LINK_RED_ENABLED.flag(),
            min_th: k::LINK_RED_MIN_TH.num(),
            max_th: k::LINK_RED_MAX_TH.num(),
            max_p: k::LINK_RED_MAX_P.num(),
            weight: k::LINK_RED_WEIGHT.num(),
            action: k::LINK_RED_ACTION.word(),
        }
    }
}

/// `[mac.adaptive_pacing]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AdaptivePacingSpec {
    pub enabled: bool,
    /// "below_min_th" (tech report), "at_or_above_min_th" (INFOCOM), "always".
    pub trigger: PacingTrigger,
    /// How the extra wait elapses: "frozen_backoff" (added to the backoff
    /// counter) or "timer" (runs through busy medium; no contention meanwhile).
    #[serde(skip_serializing_if = "PacingWait::is_default")]
    pub wait: PacingWait,
    /// How long it is: "exchange" (RTS+CTS+DATA+ACK) or "data" (the DATA frame).
    #[serde(skip_serializing_if = "PacingExtra::is_default")]
    pub extra: PacingExtra,
}

impl Default for AdaptivePacingSpec {
    fn default() -> Self {
        AdaptivePacingSpec {
            enabled: k::PACING_ENABLED.flag(),
            trigger: k::PACING_TRIGGER.word(),
            wait: k::PACING_WAIT.word(),
            extra: k::PACING_EXTRA.word(),
        }
    }
}

impl Default for MacSpec {
    fn default() -> Self {
        MacSpec {
            rts_threshold_bytes: k::MAC_RTS_THRESHOLD_BYTES.int() as u32,
            short_retry_limit: k::MAC_SHORT_RETRY_LIMIT.int() as u32,
            long_retry_limit: k::MAC_LONG_RETRY_LIMIT.int() as u32,
            queue_limit: k::MAC_QUEUE_LIMIT.int() as u32,
            cw_min: None,
            cw_max: None,
            frame_format: k::MAC_FRAME_FORMAT.word(),
            backoff_slots: k::MAC_BACKOFF_SLOTS.word(),
            link_red: None,
            adaptive_pacing: None,
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct IpSpec {
    /// Initial TTL of every packet.
    pub ttl: u32,
    /// ns-2's link-layer (LL) delay, applied going down to the queue and
    /// going up from the MAC (µs).
    pub ll_delay_us: f64,
    /// Low Delay Marking at every forwarding node (`[ip.ldm]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ldm: Option<LdmSpec>,
}

impl Default for IpSpec {
    fn default() -> Self {
        IpSpec { ttl: k::IP_TTL.int() as u32, ll_delay_us: k::IP_LL_DELAY_US.num(), ldm: None }
    }
}

/// `[ip.ldm]`: Lee et al.'s Low Delay Marking (`net/ldm.rs`). The paper
/// prints k, the 4 hops per packet of window and the floor of 2; the
/// bit-vector size, its clearing period and the TTL conventions are hoptcp's
/// choices where the paper is silent (docs/model.md).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LdmSpec {
    pub enabled: bool,
    /// "estimated" (TTLs and the bit vector) or "oracle" (true counts).
    pub estimate: LdmEstimate,
    /// p = k/w² (0.76).
    pub k: f64,
    /// w_opt = h/(hops_per_window·n) (4).
    pub hops_per_window: f64,
    /// A w_opt at or below min_window is replaced by floor_window (1 → 2).
    pub min_window: f64,
    pub floor_window: f64,
    /// A fixed target window instead of w_opt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_window: Option<f64>,
    /// Bits of the flow-count vector (64).
    pub flow_bits: u32,
    /// Every bit, and the hop record under it, is cleared once per period (s).
    pub clear_period_s: f64,
    /// Conventional initial TTLs the hop estimate assumes, ascending.
    pub initial_ttls: Vec<u32>,
    /// What a picked packet gets: "mark" (RFC 3168: CE, or a drop if not
    /// ECN-capable), "mark_ect_only" or "drop".
    pub action: MarkAction,
}

impl Default for LdmSpec {
    /// The paper's constants, as `net::ldm` defines them.
    fn default() -> Self {
        let p = LdmParams::default();
        LdmSpec {
            enabled: k::LDM_ENABLED.flag(),
            estimate: k::LDM_ESTIMATE.word(),
            k: p.k,
            hops_per_window: p.hops_per_window,
            min_window: p.min_window,
            floor_window: p.floor_window,
            target_window: p.target_window,
            flow_bits: p.flow_bits,
            clear_period_s: crate::engine::time::to_secs(p.clear_period),
            initial_ttls: p.initial_ttls.iter().map(|&t| t.into()).collect(),
            action: k::LDM_ACTION.word(),
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum RoutingProtocol {
    /// Shortest hop path on the link graph (or the flow's explicit route),
    /// fixed for the whole run.
    #[default]
    Static,
    /// AODV as ns-2.35 runs it (route discovery, link breaks from MAC
    /// failures, local repair); constants in `[routing.aodv]`.
    Aodv,
}

impl RoutingProtocol {
    pub fn name(self) -> &'static str {
        match self {
            RoutingProtocol::Static => "static",
            RoutingProtocol::Aodv => "aodv",
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingSpec {
    pub protocol: RoutingProtocol,
    /// AODV's constants (only with protocol = "aodv"; filled with ns-2.35's
    /// defaults when resolved).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aodv: Option<AodvSpec>,
}

/// `[routing.aodv]`: ns-2.35's AODV constants (aodv.h, aodv_rqueue.h).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AodvSpec {
    /// Expanding ring search: TTL_START, TTL_INCREMENT, TTL_THRESHOLD.
    pub ttl_start: u32,
    pub ttl_increment: u32,
    pub ttl_threshold: u32,
    /// NETWORK_DIAMETER (hops): TTL of network-wide RREQs, RREPs and data.
    pub network_diameter: u32,
    /// RREQ_RETRIES: network-wide retries before a discovery gives up.
    pub rreq_retries: u32,
    /// MAX_RREQ_TIMEOUT (s).
    pub max_rreq_timeout_s: f64,
    /// NODE_TRAVERSAL_TIME (s).
    pub node_traversal_time_s: f64,
    /// ACTIVE_ROUTE_TIMEOUT (s).
    pub active_route_timeout_s: f64,
    /// MY_ROUTE_TIMEOUT (s): lifetime granted by a destination's RREP.
    pub my_route_timeout_s: f64,
    /// REV_ROUTE_LIFE (s).
    pub reverse_route_life_s: f64,
    /// BCAST_ID_SAVE (s): duplicate-RREQ memory and its purge period.
    pub bcast_id_save_s: f64,
    /// AODV_RTQ_MAX_LEN: packets buffered while awaiting a route.
    pub buffer_packets: u32,
    /// AODV_RTQ_TIMEOUT (s).
    pub buffer_timeout_s: f64,
    /// Jitter of forwarded RREQs and propagated RERRs: U(0, this) s.
    pub broadcast_jitter_s: f64,
    /// ARP_DELAY (s): spacing of buffered packets sent once a route is found.
    pub arp_delay_s: f64,
    /// Period of the route-table purge that also retries discoveries (s).
    pub purge_interval_s: f64,
    /// AODV_LOCAL_REPAIR.
    pub local_repair: bool,
    /// ns-2.35: the first RREQ to a destination is network-wide (a new
    /// route entry's last hop count is "infinite"); false: TTL_START.
    pub first_rreq_network_wide: bool,
    /// "mac" (ns-2.35's build: a MAC retry-limit drop breaks the link) or
    /// "hello" (HELLO messages, RFC 3561 §6.9). Left out of the canonical
    /// form at its default, so existing scenarios keep their identity.
    #[serde(skip_serializing_if = "is_mac_detection")]
    pub link_detection: crate::net::routing::aodv::LinkDetection,
    /// HELLO_INTERVAL (s), with link_detection = "hello".
    #[serde(skip_serializing_if = "is_default_hello_interval")]
    pub hello_interval_s: f64,
    /// ALLOWED_HELLO_LOSS, with link_detection = "hello".
    #[serde(skip_serializing_if = "is_default_hello_loss")]
    pub allowed_hello_loss: u32,
}

fn is_mac_detection(d: &crate::net::routing::aodv::LinkDetection) -> bool {
    *d == crate::net::routing::aodv::LinkDetection::Mac
}

fn is_default_hello_interval(v: &f64) -> bool {
    *v == k::AODV_HELLO_INTERVAL_S.num()
}

fn is_default_hello_loss(v: &u32) -> bool {
    u64::from(*v) == k::AODV_ALLOWED_HELLO_LOSS.int()
}

impl Default for AodvSpec {
    fn default() -> Self {
        AodvSpec {
            ttl_start: k::AODV_TTL_START.int() as u32,
            ttl_increment: k::AODV_TTL_INCREMENT.int() as u32,
            ttl_threshold: k::AODV_TTL_THRESHOLD.int() as u32,
            network_diameter: k::AODV_NETWORK_DIAMETER.int() as u32,
            rreq_retries: k::AODV_RREQ_RETRIES.int() as u32,
            max_rreq_timeout_s: k::AODV_MAX_RREQ_TIMEOUT_S.num(),
            node_traversal_time_s: k::AODV_NODE_TRAVERSAL_TIME_S.num(),
            active_route_timeout_s: k::AODV_ACTIVE_ROUTE_TIMEOUT_S.num(),
            my_route_timeout_s: k::AODV_MY_ROUTE_TIMEOUT_S.num(),
            reverse_route_life_s: k::AODV_REVERSE_ROUTE_LIFE_S.num(),
            bcast_id_save_s: k::AODV_BCAST_ID_SAVE_S.num(),
            buffer_packets: k::AODV_BUFFER_PACKETS.int() as u32,
            buffer_timeout_s: k::AODV_BUFFER_TIMEOUT_S.num(),
            broadcast_jitter_s: k::AODV_BROADCAST_JITTER_S.num(),
            arp_delay_s: k::AODV_ARP_DELAY_S.num(),
            purge_interval_s: k::AODV_PURGE_INTERVAL_S.num(),
            local_repair: k::AODV_LOCAL_REPAIR.flag(),
            first_rreq_network_wide: k::AODV_FIRST_RREQ_NETWORK_WIDE.flag(),
            link_detection: k::AODV_LINK_DETECTION.word(),
            hello_interval_s: k::AODV_HELLO_INTERVAL_S.num(),
            allowed_hello_loss: k::AODV_ALLOWED_HELLO_LOSS.int() as u32,
        }
    }
}

impl AodvSpec {
    /// The simulator's parameters (times in nanoseconds).
    pub fn params(&self) -> crate::net::routing::aodv::AodvParams {
        use crate::engine::time::from_secs;
        crate::net::routing::aodv::AodvParams {
            ttl_start: self.ttl_start as u8,
            ttl_increment: self.ttl_increment as u8,
            ttl_threshold: self.ttl_threshold as u8,
            network_diameter: self.network_diameter as u8,
            rreq_retries: self.rreq_retries as u8,
            max_rreq_timeout: from_secs(self.max_rreq_timeout_s),
            node_traversal_time: from_secs(self.node_traversal_time_s),
            active_route_timeout: from_secs(self.active_route_timeout_s),
            my_route_timeout: from_secs(self.my_route_timeout_s),
            reverse_route_life: from_secs(self.reverse_route_life_s),
            bcast_id_save: from_secs(self.bcast_id_save_s),
            buffer_packets: self.buffer_packets,
            buffer_timeout: from_secs(self.buffer_timeout_s),
            broadcast_jitter: from_secs(self.broadcast_jitter_s),
            arp_delay: from_secs(self.arp_delay_s),
            purge_interval: from_secs(self.purge_interval_s),
            local_repair: self.local_repair,
            first_rreq_network_wide: self.first_rreq_network_wide,
            link_detection: self.link_detection,
            hello_interval: from_secs(self.hello_interval_s),
            allowed_hello_loss: self.allowed_hello_loss,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum TcpVariantSpec {
    #[default]
    Newreno,
    Reno,
    Vegas,
    /// NewReno with TCP-AP adaptive pacing (settings in `[tcp.ap]`).
    TcpAp,
    /// BBR v1, paced at the sender.
    Bbr,
}

/// Which defaults `[tcp.ap]` starts from.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum ApProfile {
    /// The paper's formula (Eqs. 1–5).
    #[default]
    Paper,
    /// The authors' public ns-2 code (tcp-ap.cc).
    Ns2,
}

/// TCP-AP settings (`[tcp.ap]`). Every key defaults from `profile`; the
/// resolved scenario lists them all.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct TcpApSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ApProfile>,
    /// "cov" (paper: coefficient of variation of RTT samples) or "mad"
    /// (code: mean absolute deviation of FHD samples).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variation: Option<Variation>,
    /// Smoothing of FHD^ (0.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Spatial-reuse hops k (4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hop_factor: Option<u32>,
    /// Below `hop_factor` hops: "h_hop" (paper) or "one_hop" (code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_path: Option<ShortPath>,
    /// Samples kept for the variation (50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<u32>,
    /// Header bytes per frame in s_data = payload + overhead and s_ACK =
    /// overhead: 40 (paper: IP packet sizes) or 112 (code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_bytes: Option<u32>,
    /// FHD samples at or above this are ignored (code: 0.5 s; 0 = none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_bound_s: Option<f64>,
    /// Interval before the first RTT sample (code: 0.05 s; 0 = unpaced).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_interval_s: Option<f64>,
    /// "on_demand" (paper) or "free_running" (code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer: Option<PaceTimer>,
    /// Exponential RTO backoff (paper: true, code: false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_backoff: Option<bool>,
    /// A fast retransmission empties the pacing queue (code: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupack_flush: Option<bool>,
}

impl TcpApSpec {
    /// Fill every unset key from the profile's defaults.
    pub fn resolved(&self) -> TcpApSpec {
        let profile = self.profile.unwrap_or_default();
        let d = match profile {
            ApProfile::Paper => TcpApConfig::paper(0.0),
            ApProfile::Ns2 => TcpApConfig::ns2(0.0),
        };
        let secs = |t: Option<crate::engine::Time>| t.map_or(0.0, |t| t as f64 * 1e-9);
        TcpApSpec {
            profile: Some(profile),
            variation: Some(self.variation.unwrap_or(d.variation)),
            alpha: Some(self.alpha.unwrap_or(d.alpha)),
            hop_factor: Some(self.hop_factor.unwrap_or(d.hop_factor)),
            short_path: Some(self.short_path.unwrap_or(d.short_path)),
            history: Some(self.history.unwrap_or(d.history)),
            overhead_bytes: Some(self.overhead_bytes.unwrap_or(d.overhead_bytes)),
            delay_bound_s: Some(self.delay_bound_s.unwrap_or(secs(d.delay_bound))),
            initial_interval_s: Some(self.initial_interval_s.unwrap_or(secs(d.initial_interval))),
            timer: Some(self.timer.unwrap_or(d.timer)),
            timeout_backoff: Some(self.timeout_backoff.unwrap_or(d.timeout_backoff)),
            dupack_flush: Some(self.dupack_flush.unwrap_or(d.dupack_flush)),
        }
    }

    /// The pacing configuration for a link of `link_rate_bps`: every unset
    /// key from the profile's defaults (the values `resolved` writes).
    pub fn config(&self, link_rate_bps: f64) -> TcpApConfig {
        let d = match self.profile.unwrap_or_default() {
            ApProfile::Paper => TcpApConfig::paper(link_rate_bps),
            ApProfile::Ns2 => TcpApConfig::ns2(link_rate_bps),
        };
        // Through seconds as `resolved` writes them, so both give the same ns.
        let time = |s: Option<f64>, default: Option<Time>| {
            let s = s.unwrap_or(default.map_or(0.0, |t| t as f64 * 1e-9));
            (s > 0.0).then(|| from_secs(s))
        };
        TcpApConfig {
            variation: self.variation.unwrap_or(d.variation),
            alpha: self.alpha.unwrap_or(d.alpha),
            hop_factor: self.hop_factor.unwrap_or(d.hop_factor),
            short_path: self.short_path.unwrap_or(d.short_path),
            history: self.history.unwrap_or(d.history),
            overhead_bytes: self.overhead_bytes.unwrap_or(d.overhead_bytes),
            delay_bound: time(self.delay_bound_s, d.delay_bound),
            initial_interval: time(self.initial_interval_s, d.initial_interval),
            timer: self.timer.unwrap_or(d.timer),
            timeout_backoff: self.timeout_backoff.unwrap_or(d.timeout_backoff),
            dupack_flush: self.dupack_flush.unwrap_or(d.dupack_flush),
            link_rate_bps,
        }
    }
}

/// Defaults for every TCP flow (each flow may override them).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpSpec {
    pub variant: TcpVariantSpec,
    /// Payload bytes per segment (ns-2 packetSize_); +40 B TCP/IP header.
    pub payload_bytes: u32,
    /// Maximum window in packets (ns-2 window_, the papers' MaxWin), or W*.
    pub max_window: MaxWindow,
    pub ecn: bool,
    pub delayed_ack: bool,
    pub min_rto_s: f64,
    pub initial_window: u32,
    /// Initial slow-start threshold (packets). ns-2.35 sets ssthresh_ =
    /// window_ in `TcpAgent::reset()`, which runs when the agent is created
    /// (tcp/tcp.cc, `delay_bind_init_all`) and never again for agents on
    /// mobile nodes (`Node/MobileNode instproc reset` skips them): a script
    /// that sets `$tcp set window_ 32` afterwards, as usual, starts with the
    /// class default window_ of 20.
    pub initial_ssthresh: u32,
    /// Vegas thresholds in packets (ns-2: v_alpha_ 1, v_beta_ 3, v_gamma_ 1).
    pub vegas_alpha: f64,
    pub vegas_beta: f64,
    pub vegas_gamma: f64,
    /// BBR's ProbeBW starting phases, in turn (empty: drawn per flow).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bbr_phases: Vec<u8>,
    /// TCP-AP settings for flows with variant = "tcp_ap".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ap: Option<TcpApSpec>,
}

impl Default for TcpSpec {
    fn default() -> Self {
        TcpSpec {
            variant: k::TCP_VARIANT.word(),
            payload_bytes: k::TCP_PAYLOAD_BYTES.int() as u32,
            max_window: MaxWindow::Packets(k::TCP_MAX_WINDOW.int() as u32),
            ecn: k::TCP_ECN.flag(),
            delayed_ack: k::TCP_DELAYED_ACK.flag(),
            min_rto_s: k::TCP_MIN_RTO_S.num(),
            initial_window: k::TCP_INITIAL_WINDOW.int() as u32,
            initial_ssthresh: k::TCP_INITIAL_SSTHRESH.int() as u32,
            vegas_alpha: k::TCP_VEGAS_ALPHA.num(),
            vegas_beta: k::TCP_VEGAS_BETA.num(),
            vegas_gamma: k::TCP_VEGAS_GAMMA.num(),
            bbr_phases: Vec::new(),
            ap: None,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    Udp,
    Tcp,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AppKind {
    /// Constant bit rate: over UDP, one datagram per packet; over TCP, the
    /// bytes are written into the send buffer at that rate (ns-2's CBR
    /// attached to a TCP agent).
    Cbr,
    /// Always-backlogged bulk transfer (TCP).
    Ftp,
    /// HTTP-like pages with think times (TCP).
    Http,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub src: u32,
    pub dst: u32,
    pub transport: TransportKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<AppKind>,
    /// CBR offered load (bit/s of payload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_bps: Option<f64>,
    /// CBR payload bytes per packet (+28 B UDP/IP header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_bytes: Option<u32>,
    /// CBR: each gap is the interval × U(1−jitter, 1+jitter); ns-2's
    /// `random_ 1` is 0.5. Default 0 (strictly periodic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<f64>,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_s: Option<f64>,
    /// FTP over TCP: [from, to] intervals (s) in which the application
    /// offers no new data and then resumes on the same connection, like
    /// ns-2's `$ftp stop` / `$ftp start` (ElRakabawy et al. Figs. 13-14).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pauses: Option<Vec<[f64; 2]>>,
    /// HTTP: mean page size (bytes; default 30 000), Pareto shape of the
    /// page sizes (default 1.5), mean exponential think time (s; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_page_bytes: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_shape: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_think_s: Option<f64>,
    /// Explicit route: node ids from src to dst, each within range of the next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<Vec<u32>>,
    /// Replicate this flow this many times (identical endpoints).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    // Per-flow TCP overrides of [tcp].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<TcpVariantSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_window: Option<MaxWindow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto_s: Option<f64>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RandomFlowsSpec {
    pub count: u32,
    pub transport: TransportKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<AppKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_bps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_page_bytes: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_shape: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_think_s: Option<f64>,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_s: Option<f64>,
    /// Only pairs at least this many hops apart (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_hops: Option<u32>,
    /// Only pairs at most this many hops apart (default: no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_hops: Option<u32>,
    /// Seed of the pair draw (default: the run seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_seed: Option<u64>,
}

impl RandomFlowsSpec {
    /// The flow this template gives between `src` and `dst`.
    pub fn flow(&self, src: u32, dst: u32) -> FlowSpec {
        FlowSpec {
            src,
            dst,
            transport: self.transport,
            app: self.app,
            rate_bps: self.rate_bps,
            packet_bytes: self.packet_bytes,
            jitter: self.jitter,
            mean_page_bytes: self.mean_page_bytes,
            page_shape: self.page_shape,
            mean_think_s: self.mean_think_s,
            start_s: self.start_s,
            stop_s: self.stop_s,
            pauses: None,
            route: None,
            count: None,
            variant: None,
            payload_bytes: None,
            max_window: None,
            ecn: None,
            delayed_ack: None,
            min_rto_s: None,
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct StatsSpec {
    /// Record per-flow goodput in intervals of this length (s).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput_interval_s: Option<f64>,
    /// Exclude deliveries before this time from goodput (s).
    pub warmup_s: f64,
    /// Batch-means support: record each flow's goodput over consecutive
    /// batches of this many delivered packets (`batch_goodput_bps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_packets: Option<u32>,
    /// Batch means as a stop rule: run until all flows together have
    /// delivered `batches` × `batch_packets` packets (or duration_s), and
    /// report means with confidence intervals (`batch_means`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batches: Option<u32>,
    /// Batches discarded as the initial transient (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_discard: Option<u32>,
    /// Confidence level of the intervals (default 0.95).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_confidence: Option<f64>,
    /// Time series to record (`"gateway"`: TCP-GAP's per-flow estimate at
    /// the gateway; `"tcp_ap"`: the same at TCP-AP senders); none by default.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<crate::stats::series::SeriesKind>,
    /// The air trace (`series` containing "air") only from..to (s): a
    /// window of a long or large run; default: the whole run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub air_window_s: Option<[f64; 2]>,
}

impl Standard {
    pub fn name(self) -> &'static str {
        match self {
            Standard::Dsss => "dsss",
            Standard::Ofdm => "ofdm",
            Standard::Erp => "erp",
            Standard::Ns2G => "ns2_g",
        }
    }
}

/// `[wired]`: wired hosts and routers behind one Internet gateway, as in
/// ElRakabawy et al.'s hybrid scenarios. Wired node ids follow the wireless
/// ones: `n_wireless .. n_wireless + nodes`. Links are ns-2 duplex links
/// (bandwidth, one-way delay, drop-tail queue); without `[[wired.links]]`
/// the wired nodes form a chain from the gateway (gateway – n – n+1 – …)
/// with the table's bandwidth, delay and queue limit.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WiredSpec {
    /// The wireless node with the wired interface. Default: the last node
    /// of a chain (node `hops`), the joining node of parallel chains with
    /// `topology.gateway = true`; required for other kinds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<u32>,
    /// Number of wired hosts and routers (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    /// Defaults of every link (the paper's 10 Mb/s, 40 ms; ns-2's limit 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_mbps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_limit: Option<u32>,
    /// The links; resolved, the list is explicit with every value filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<WiredLinkSpec>>,
    /// TCP-GAP at the gateway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_gap: Option<TcpGapSpec>,
}

/// `[[wired.links]]`: a duplex link between node ids `a` and `b` (the
/// gateway or wired nodes).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WiredLinkSpec {
    pub a: u32,
    pub b: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_mbps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_limit: Option<u32>,
}

/// `[wired.tcp_gap]`: Gateway Adaptive Pacing (ElRakabawy et al. §4.3–4.4).
/// Pacing uses the `[tcp.ap]` settings (profile "paper" by default).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpGapSpec {
    pub enabled: bool,
    /// Goodput Control (Fig. 7).
    pub goodput_control: bool,
    /// S: a wired-to-wireless flow above this multiple of the mean goodput
    /// is throttled to the mean (1.1).
    pub threshold: f64,
    /// Goodput Control's period (5 s).
    pub period_s: f64,
    /// The aging's coefficient: Fig. 7's 1.1.
    pub aging: f64,
    /// How a cap ages: as Fig. 7 writes it (additive) or as a factor. Left out
    /// of the canonical form at its default.
    #[serde(skip_serializing_if = "is_default_aging_rule")]
    pub aging_rule: AgingRule,
    /// Gateway buffer for pacing queues (packets; Σ awnd_i of paced flows).
    pub buffer_packets: u32,
    /// Soft state: a flow is forgotten after this long without a packet (s).
    pub flow_timeout_s: f64,
}

fn is_default_aging_rule(r: &AgingRule) -> bool {
    *r == k::GAP_AGING_RULE.word::<AgingRule>()
}

impl Default for TcpGapSpec {
    fn default() -> Self {
        TcpGapSpec {
            enabled: k::GAP_ENABLED.flag(),
            goodput_control: k::GAP_GOODPUT_CONTROL.flag(),
            threshold: k::GAP_THRESHOLD.num(),
            period_s: k::GAP_PERIOD_S.num(),
            aging: k::GAP_AGING.num(),
            aging_rule: k::GAP_AGING_RULE.word(),
            buffer_packets: k::GAP_BUFFER_PACKETS.int() as u32,
            flow_timeout_s: k::GAP_FLOW_TIMEOUT_S.num(),
        }
    }
}
