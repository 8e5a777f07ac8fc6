//! The scenario file (version 1): the public contract of hoptcp. Parsed with
//! serde; unknown keys are errors. Defaults follow ns-2.35's wireless model.
//! Every key is declared here, once, on its field (`#[derive(Keys)]`, see
//! `keys.rs`): default, allowed values, unit, and its doc comment as its
//! meaning. `validate.rs` checks values and cross-field rules; `resolve`
//! fills every default so the canonical form (and its hash) says exactly
//! what ran.

use super::keys::{self as k, ge, gt, within, Keys, MAX_COUNT};
pub use super::wstar::MaxWindow;
use crate::engine::time::from_secs;
use crate::engine::Time;
use crate::gateway::tcp_gap as gap;
use crate::gateway::tcp_gap::AgingRule;
use crate::mac::{FrameFormat, PacingExtra, PacingTrigger, PacingWait, SlotCount, Standard};
use crate::net::ldm::{LdmEstimate, LdmParams};
use crate::net::routing::aodv::params as aodv;
use crate::net::routing::aodv::LinkDetection;
use crate::net::MarkAction;
use crate::stats::series::SeriesKind;
use crate::transport::tcp::config as tcp_cfg;
use crate::transport::tcp::config::CubicProfile;
use crate::transport::tcp::tcp_ap::{PaceTimer, ShortPath, TcpApConfig, Variation};
use crate::transport::tcp::SackProfile;
use serde::{Deserialize, Serialize};

k::word_keys!(
    TopologyKind,
    Standard,
    FrameFormat,
    SlotCount,
    MarkAction,
    PacingTrigger,
    PacingWait,
    PacingExtra,
    LdmEstimate,
    RoutingProtocol,
    LinkDetection,
    TcpVariantSpec,
    ApProfile,
    Variation,
    ShortPath,
    PaceTimer,
    TransportKind,
    AppKind,
    AgingRule,
    CubicProfile,
    SackProfile,
);

impl k::KeyType for MaxWindow {
    const TY: &'static str = "integer or \"wstar\"";
}
impl k::FromDef for MaxWindow {
    fn from_def(d: &k::Decl) -> Self {
        MaxWindow::Packets(d.int() as u32)
    }
}

/// Where a number must be positive, as the file states it.
const POSITIVE_M: k::NumRange = gt(0.0).hint("metres");
const POSITIVE_S: k::NumRange = gt(0.0).hint("seconds");
const SECONDS: k::NumRange = ge(0.0).hint("seconds");
/// AODV's periodic timers: at least a millisecond, so a run cannot drown in their events.
const MILLISECOND_AT_LEAST: k::NumRange = ge(1e-3).says("must be a number of seconds >= 0.001");

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A name for the scenario.
    #[key(def = Unset("no name"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What the scenario is for.
    #[key(def = Unset("none"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Simulated time.
    #[key(num = 300.0, range = gt(0.0).hint("simulated seconds"), unit = "s")]
    #[serde(default = "d_duration")]
    pub duration_s: f64,
    /// Run seed; every random stream derives from it.
    #[key(int = 1, allowed = Text("0..=9223372036854775807"))]
    #[serde(default = "d_seed")]
    pub seed: u64,
    #[key(table)]
    pub topology: TopologySpec,
    #[key(table)]
    #[serde(default)]
    pub radio: RadioSpec,
    #[key(table)]
    #[serde(default)]
    pub mac: MacSpec,
    #[key(table)]
    #[serde(default)]
    pub ip: IpSpec,
    #[key(table)]
    #[serde(default)]
    pub routing: RoutingSpec,
    #[key(table)]
    #[serde(default)]
    pub tcp: TcpSpec,
    #[key(table)]
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Flows between random node pairs (drawn from the seed).
    #[key(table)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_flows: Option<RandomFlowsSpec>,
    #[key(table)]
    #[serde(default)]
    pub stats: StatsSpec,
    /// A wired domain behind an Internet gateway (absent: all wireless).
    #[key(table)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wired: Option<WiredSpec>,
    /// Settings resolution dropped because their table is disabled; kept for
    /// the run's warnings, never part of the canonical form.
    #[key(skip)]
    #[serde(skip)]
    pub ignored: Vec<String>,
}

fn d_duration() -> f64 {
    Scenario::DURATION_S.num()
}
fn d_seed() -> u64 {
    Scenario::SEED.int()
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
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
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "topology")]
#[serde(deny_unknown_fields)]
pub struct TopologySpec {
    /// Shape of the wireless network; each kind takes only its own keys below.
    #[key(def = Required("always"))]
    pub kind: TopologyKind,
    /// chain: hops from node 0 to the last node; cross: hops per arm (even, >= 2); parallel_chains: hops per chain.
    #[key(def = Required("chain, cross, parallel_chains"), ints = (1, MAX_COUNT), unit = "hops")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hops: Option<u32>,
    /// chain, grid, cross, parallel_chains: distance between neighbouring nodes.
    #[key(num = crate::topology::DEFAULT_SPACING_M, range = POSITIVE_M, unit = "m")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spacing_m: Option<f64>,
    /// grid: rows (rows × cols in 2..=1000000).
    #[key(def = Required("grid"), ints = (1, MAX_COUNT), unit = "nodes")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u32>,
    /// grid: columns.
    #[key(def = Required("grid"), ints = (1, MAX_COUNT), unit = "nodes")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cols: Option<u32>,
    /// parallel_chains: number of chains.
    #[key(def = Required("parallel_chains"), ints = (1, MAX_COUNT), unit = "chains")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chains: Option<u32>,
    /// parallel_chains: distance between neighbouring chains.
    #[key(def = Derived(|| "topology.spacing_m".to_string()), range = POSITIVE_M, unit = "m")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_gap_m: Option<f64>,
    /// star: leaves 1..=leaves on a circle around hub node 0.
    #[key(def = Required("star"), ints = (1, MAX_COUNT), unit = "nodes")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaves: Option<u32>,
    /// star: radius of the leaves' circle.
    #[key(num = crate::topology::DEFAULT_SPACING_M, range = POSITIVE_M, unit = "m")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius_m: Option<f64>,
    /// random: node count.
    #[key(def = Required("random"), ints = (2, MAX_COUNT), unit = "nodes")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    /// random: width of the rectangle the nodes are drawn in.
    #[key(def = Required("random"), range = POSITIVE_M, unit = "m")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_m: Option<f64>,
    /// random: height of the rectangle.
    #[key(def = Required("random"), range = POSITIVE_M, unit = "m")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height_m: Option<f64>,
    /// random: seed of the placement.
    #[key(def = Unset("the run seed"), allowed = Text("0..=9223372036854775807"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_seed: Option<u64>,
    /// random: reject a draw whose link graph is disconnected.
    #[key(flag = true)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_connected: Option<bool>,
    /// explicit: node i is at the i-th [x, y].
    #[key(def = Required("explicit"), ty = "list of [x, y]", allowed = Text("at least 2 pairs of finite numbers"), unit = "m")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<[f64; 2]>>,
    /// parallel_chains: add one node (the last id), an Internet gateway level with the chains' last nodes, midway between the outer chains.
    #[key(def = Unset("false: no gateway node"), ty = "bool")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<bool>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "radio", default, filled = Radio)]
#[serde(deny_unknown_fields, default)]
pub struct RadioSpec {
    /// Range at which frames can still be decoded (sets RXThresh).
    #[key(num = 250.0, range = POSITIVE_M, unit = "m")]
    pub tx_range_m: f64,
    /// Range at which the carrier is still sensed (sets CSThresh).
    #[key(num = 550.0, range = POSITIVE_M.text(">= radio.tx_range_m"), unit = "m")]
    pub cs_range_m: f64,
    /// Capture threshold: a frame being received survives a later one this much weaker.
    #[key(num = 10.0, range = ge(0.0).hint("dB"), unit = "dB")]
    pub capture_db: f64,
    /// 802.11 PHY/MAC timing: DSSS (802.11b), OFDM (802.11a), ERP (802.11g), or ns-2's 802.11g settings.
    #[key(word = "dsss")]
    pub standard: Standard,
    /// Rate of DATA frames.
    #[key(def = Derived(|| k::rates_by_standard(|s| s.default_rates_mbps().0)), unit = "Mb/s",
          allowed = Text("a rate of radio.standard: dsss 1, 2, 5.5, 11; ofdm 6..54; erp and ns2_g 1..54"))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_rate_mbps: Option<f64>,
    /// Rate of RTS, CTS and ACK frames.
    #[key(def = Derived(|| k::rates_by_standard(|s| s.default_rates_mbps().1)), unit = "Mb/s",
          allowed = Text("a rate of radio.standard (as data_rate_mbps)"))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basic_rate_mbps: Option<f64>,
    /// Transmit power (two-ray ground; ns-2's default).
    #[key(num = 0.281_838_15, range = gt(0.0).hint("watts"), unit = "W")]
    pub tx_power_w: f64,
    /// Carrier frequency (two-ray ground).
    #[key(num = 914e6, range = gt(0.0).hint("hertz"), unit = "Hz")]
    pub frequency_hz: f64,
    /// Antenna height of every node (two-ray ground).
    #[key(num = 1.5, range = POSITIVE_M, unit = "m")]
    pub antenna_height_m: f64,
    /// System loss factor L (two-ray ground).
    #[key(num = 1.0, range = ge(1.0))]
    pub system_loss: f64,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "mac", default, filled = Mac)]
#[serde(deny_unknown_fields, default)]
pub struct MacSpec {
    /// RTS/CTS precedes unicast DATA frames at least this long (0: always).
    #[key(int = 0, ints = (0, u32::MAX), unit = "bytes")]
    pub rts_threshold_bytes: u32,
    /// Transmission attempts of an RTS (or of a DATA frame sent without RTS).
    #[key(int = 7, ints = (1, 255), unit = "attempts")]
    pub short_retry_limit: u32,
    /// Transmission attempts of a DATA frame after its RTS/CTS.
    #[key(int = 4, ints = (1, 255), unit = "attempts")]
    pub long_retry_limit: u32,
    /// Interface queue limit, ns-2 semantics: queue_limit - 1 wait in the queue and the MAC holds one more.
    #[key(int = 50, ints = (2, 10_000_000), unit = "packets")]
    pub queue_limit: u32,
    /// Smallest contention window.
    #[key(def = Derived(|| k::cw_by_standard(|c| c.0)), ints = (1, MAX_COUNT), unit = "slots")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cw_min: Option<u32>,
    /// Largest contention window (>= mac.cw_min).
    #[key(def = Derived(|| k::cw_by_standard(|c| c.1)), ints = (1, MAX_COUNT), unit = "slots")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cw_max: Option<u32>,
    /// Header sizes: ns-2.35's or IEEE 802.11-2016's.
    #[key(word = "ns2")]
    pub frame_format: FrameFormat,
    /// How a frozen backoff counts elapsed slots: exactly, or with ns-2.35's double arithmetic (drops a slot at exact slot boundaries).
    #[key(word = "exact")]
    #[serde(skip_serializing_if = "SlotCount::is_exact")]
    pub backoff_slots: SlotCount,
    /// Kept (possibly disabled) when adaptive pacing's trigger reads its
    /// retry average; absent otherwise unless enabled.
    #[key(table, given = super::resolved::LinkRed)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_red: Option<LinkRedSpec>,
    /// Absent unless enabled.
    #[key(table, given = AdaptivePacingSpec)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adaptive_pacing: Option<AdaptivePacingSpec>,
}

/// `[mac.link_red]`. The papers print the averaging weight (1/8) but not the
/// thresholds; the defaults come from the `lred-calibration` reproduction
/// entry (3 chains x 60 settings, RFC 3168 marking: every setting that acts
/// costs goodput, and the criterion picks the least active corner of the
/// grid; see docs/model.md).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "mac.link_red", default)]
#[serde(deny_unknown_fields, default)]
pub struct LinkRedSpec {
    /// Link RED (Fu et al.): mark or drop as the average MAC retry count rises.
    #[key(flag = false)]
    pub enabled: bool,
    /// Average retries at which marking starts (and adaptive pacing's threshold).
    #[key(num = 1.0, range = ge(0.0).hint("average retries per packet"), unit = "retries/packet")]
    pub min_th: f64,
    /// The marking probability would reach 1 here; it is capped at max_p.
    #[key(num = 1.5, allowed = Text("> mac.link_red.min_th"), unit = "retries/packet")]
    pub max_th: f64,
    /// Largest marking probability.
    #[key(num = 0.02, range = within(0.0, true, 1.0, false).hint("the largest marking probability"))]
    pub max_p: f64,
    /// EWMA weight of the newest packet's retries.
    #[key(num = 0.125, range = within(0.0, true, 1.0, false).hint("the weight of the newest packet in the retry average"))]
    pub weight: f64,
    /// mark: CE on ECN-capable packets, drop the others (RFC 3168); mark_ect_only: CE, leave the others; drop.
    #[key(word = "mark")]
    pub action: MarkAction,
}

/// `[mac.adaptive_pacing]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "mac.adaptive_pacing", default)]
#[serde(deny_unknown_fields, default)]
pub struct AdaptivePacingSpec {
    /// Adaptive pacing (Fu et al.): an extra backoff of one exchange after a success.
    #[key(flag = false)]
    pub enabled: bool,
    /// When the extra wait applies: retry average below Link RED's min_th (tech report), at or above it (INFOCOM), always.
    #[key(word = "below_min_th")]
    pub trigger: PacingTrigger,
    /// How the extra wait elapses: added to the backoff counter, or a timer running through busy medium.
    #[key(word = "frozen_backoff")]
    #[serde(skip_serializing_if = "PacingWait::is_default")]
    pub wait: PacingWait,
    /// How long the extra wait is: RTS+CTS+DATA+ACK, or the DATA frame.
    #[key(word = "exchange")]
    #[serde(skip_serializing_if = "PacingExtra::is_default")]
    pub extra: PacingExtra,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "ip", default)]
#[serde(deny_unknown_fields, default)]
pub struct IpSpec {
    /// Initial TTL of every packet.
    #[key(int = 64, ints = (1, 255), unit = "hops")]
    pub ttl: u32,
    /// ns-2's link-layer delay, going down to the queue and going up from the MAC.
    #[key(num = 25.0, range = ge(0.0).hint("microseconds"), unit = "µs")]
    pub ll_delay_us: f64,
    #[key(table)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ldm: Option<LdmSpec>,
}

/// `[ip.ldm]`: Lee et al.'s Low Delay Marking (`net/ldm.rs`). The paper
/// prints k, the 4 hops per packet of window and the floor of 2; the
/// bit-vector size, its clearing period and the TTL conventions are hoptcp's
/// choices where the paper is silent (docs/model.md). Defaults: net::ldm's.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "ip.ldm")]
#[serde(deny_unknown_fields, default)]
pub struct LdmSpec {
    /// Lee et al.'s Low Delay Marking at every forwarding node.
    #[key(flag = false)]
    pub enabled: bool,
    /// Hop and flow counts from TTLs and the bit vector, or the true counts.
    #[key(word = "estimated")]
    pub estimate: LdmEstimate,
    /// p = k/w².
    #[key(def = Derived(|| k::num_text(k::ldm().k)), range = gt(0.0).hint("p = k/w², the paper's 0.76"))]
    pub k: f64,
    /// w_opt = h/(hops_per_window·n).
    #[key(def = Derived(|| k::num_text(k::ldm().hops_per_window)), unit = "hops",
          range = gt(0.0).hint("w_opt = h/(hops_per_window·n), the paper's 4"))]
    pub hops_per_window: f64,
    /// A w_opt at or below this is replaced by floor_window.
    #[key(def = Derived(|| k::num_text(k::ldm().min_window)), range = ge(0.0).hint("packets"), unit = "packets")]
    pub min_window: f64,
    /// The window used instead of a w_opt at or below min_window.
    #[key(def = Derived(|| k::num_text(k::ldm().floor_window)), range = gt(0.0).hint("packets"), unit = "packets")]
    pub floor_window: f64,
    /// A fixed target window instead of w_opt.
    #[key(def = Unset("w_opt"), range = gt(0.0).hint("packets"), unit = "packets")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_window: Option<f64>,
    /// Bits of the flow-count vector.
    #[key(def = Derived(|| k::ldm().flow_bits.to_string()), ints = (1, 65_536), unit = "bits")]
    pub flow_bits: u32,
    /// Every bit, and the hop record under it, is cleared once per period.
    #[key(def = Derived(k::ldm_clear_period), range = POSITIVE_S.text("> 0, and >= flow_bits ns"), unit = "s")]
    pub clear_period_s: f64,
    /// Conventional initial TTLs the hop estimate assumes.
    #[key(def = Derived(|| format!("{:?}", k::ldm().initial_ttls)), ty = "list of integers",
          allowed = Text("non-empty, ascending, each in 1..=255"))]
    pub initial_ttls: Vec<u32>,
    /// What a picked packet gets: CE (or a drop if not ECN-capable), CE on ECN-capable packets only, or a drop.
    #[key(word = "mark")]
    pub action: MarkAction,
}

impl Default for LdmSpec {
    /// The paper's constants, as `net::ldm` defines them.
    fn default() -> Self {
        let p = LdmParams::default();
        LdmSpec {
            enabled: LdmSpec::ENABLED.flag(),
            estimate: LdmSpec::ESTIMATE.word(),
            k: p.k,
            hops_per_window: p.hops_per_window,
            min_window: p.min_window,
            floor_window: p.floor_window,
            target_window: p.target_window,
            flow_bits: p.flow_bits,
            clear_period_s: crate::engine::time::to_secs(p.clear_period),
            initial_ttls: p.initial_ttls.iter().map(|&t| t.into()).collect(),
            action: LdmSpec::ACTION.word(),
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
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

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "routing", default)]
#[serde(deny_unknown_fields, default)]
pub struct RoutingSpec {
    /// static: shortest hop path (or the flow's route), fixed for the run; aodv: AODV as ns-2.35 runs it.
    #[key(word = "static")]
    pub protocol: RoutingProtocol,
    // Filled with ns-2.35's constants when resolved, with protocol = "aodv" only.
    #[key(table)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aodv: Option<AodvSpec>,
}

/// `[routing.aodv]`: ns-2.35's AODV constants (aodv.h, aodv_rqueue.h), as
/// the routing layer defines them (net/routing/aodv/params.rs).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "routing.aodv", default)]
#[serde(deny_unknown_fields, default)]
pub struct AodvSpec {
    /// Expanding ring search: TTL_START.
    #[key(int = aodv::TTL_START, ints = (1, 255), unit = "hops")]
    pub ttl_start: u32,
    /// Expanding ring search: TTL_INCREMENT.
    #[key(int = aodv::TTL_INCREMENT, ints = (1, 255), unit = "hops")]
    pub ttl_increment: u32,
    /// Expanding ring search: TTL_THRESHOLD (>= ttl_start).
    #[key(int = aodv::TTL_THRESHOLD, ints = (1, 255), unit = "hops")]
    pub ttl_threshold: u32,
    /// NETWORK_DIAMETER: TTL of network-wide RREQs, RREPs and data.
    #[key(int = aodv::NETWORK_DIAMETER, ints = (1, 255), unit = "hops")]
    pub network_diameter: u32,
    /// RREQ_RETRIES: network-wide retries before a discovery gives up.
    #[key(int = aodv::RREQ_RETRIES, ints = (0, 254))]
    pub rreq_retries: u32,
    /// MAX_RREQ_TIMEOUT.
    #[key(num = aodv::MAX_RREQ_TIMEOUT_S, range = POSITIVE_S, unit = "s")]
    pub max_rreq_timeout_s: f64,
    /// NODE_TRAVERSAL_TIME.
    #[key(num = aodv::NODE_TRAVERSAL_TIME_S, range = POSITIVE_S, unit = "s")]
    pub node_traversal_time_s: f64,
    /// ACTIVE_ROUTE_TIMEOUT.
    #[key(num = aodv::ACTIVE_ROUTE_TIMEOUT_S, range = POSITIVE_S, unit = "s")]
    pub active_route_timeout_s: f64,
    /// MY_ROUTE_TIMEOUT: lifetime granted by a destination's RREP.
    #[key(num = aodv::MY_ROUTE_TIMEOUT_S, range = POSITIVE_S, unit = "s")]
    pub my_route_timeout_s: f64,
    /// REV_ROUTE_LIFE.
    #[key(num = aodv::REVERSE_ROUTE_LIFE_S, range = POSITIVE_S, unit = "s")]
    pub reverse_route_life_s: f64,
    /// BCAST_ID_SAVE: duplicate-RREQ memory and its purge period.
    #[key(num = aodv::BCAST_ID_SAVE_S, range = POSITIVE_S, unit = "s")]
    pub bcast_id_save_s: f64,
    /// AODV_RTQ_MAX_LEN: packets buffered while awaiting a route.
    #[key(int = aodv::BUFFER_PACKETS, ints = (1, MAX_COUNT), unit = "packets")]
    pub buffer_packets: u32,
    /// AODV_RTQ_TIMEOUT.
    #[key(num = aodv::BUFFER_TIMEOUT_S, range = POSITIVE_S, unit = "s")]
    pub buffer_timeout_s: f64,
    /// Forwarded RREQs and propagated RERRs wait U(0, this).
    #[key(num = aodv::BROADCAST_JITTER_S, range = SECONDS, unit = "s")]
    pub broadcast_jitter_s: f64,
    /// ARP_DELAY: spacing of buffered packets sent once a route is found.
    #[key(num = aodv::ARP_DELAY_S, range = SECONDS, unit = "s")]
    pub arp_delay_s: f64,
    /// Period of the route-table purge that also retries discoveries.
    #[key(num = aodv::PURGE_INTERVAL_S, range = MILLISECOND_AT_LEAST, unit = "s")]
    pub purge_interval_s: f64,
    /// AODV_LOCAL_REPAIR.
    #[key(flag = aodv::LOCAL_REPAIR)]
    pub local_repair: bool,
    /// The first RREQ to a destination is network-wide, as in ns-2.35; false: it starts at ttl_start.
    #[key(flag = aodv::FIRST_RREQ_NETWORK_WIDE)]
    pub first_rreq_network_wide: bool,
    /// How a broken link is noticed: a MAC retry-limit drop (ns-2.35's build) or missed HELLOs (RFC 3561 §6.9).
    // Left out of the canonical form at its default, so existing scenarios keep their identity.
    #[key(word = "mac")]
    #[serde(skip_serializing_if = "is_mac_detection")]
    pub link_detection: LinkDetection,
    /// HELLO_INTERVAL; only with link_detection = "hello".
    #[key(num = aodv::HELLO_INTERVAL_S, range = MILLISECOND_AT_LEAST, unit = "s")]
    #[serde(skip_serializing_if = "is_default_hello_interval")]
    pub hello_interval_s: f64,
    /// ALLOWED_HELLO_LOSS; only with link_detection = "hello".
    #[key(int = aodv::ALLOWED_HELLO_LOSS, ints = (1, 1000))]
    #[serde(skip_serializing_if = "is_default_hello_loss")]
    pub allowed_hello_loss: u32,
}

fn is_mac_detection(d: &LinkDetection) -> bool {
    *d == LinkDetection::Mac
}

fn is_default_hello_interval(v: &f64) -> bool {
    *v == AodvSpec::HELLO_INTERVAL_S.num()
}

fn is_default_hello_loss(v: &u32) -> bool {
    u64::from(*v) == AodvSpec::ALLOWED_HELLO_LOSS.int()
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

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TcpVariantSpec {
    #[default]
    Newreno,
    Reno,
    Vegas,
    /// NewReno with TCP-AP adaptive pacing (settings in `[tcp.ap]`).
    TcpAp,
    /// BBR v1, paced at the sender.
    Bbr,
    /// CUBIC, as `[tcp.cubic]`'s profile says.
    Cubic,
}

/// Which defaults `[tcp.ap]` starts from.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ApProfile {
    /// The paper's formula (Eqs. 1–5).
    #[default]
    Paper,
    /// The authors' public ns-2 code (tcp-ap.cc).
    Ns2,
}

/// TCP-AP settings (`[tcp.ap]`). Every key defaults from `profile`
/// (transport::tcp::tcp_ap); the resolved scenario lists them all.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default, Keys)]
#[keys(table = "tcp.ap")]
#[serde(deny_unknown_fields)]
pub struct TcpApSpec {
    /// Which defaults the other [tcp.ap] keys take: the paper's formula or the authors' ns-2 code.
    #[key(word = "paper")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ApProfile>,
    /// RTT variation: coefficient of variation of RTT samples, or mean absolute deviation of FHD samples.
    #[key(def = Derived(|| k::ap_defaults(|c| k::word_of(&c.variation))))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variation: Option<Variation>,
    /// Smoothing of the four-hop delay estimate.
    #[key(def = Derived(|| k::ap_defaults(|c| k::num_text(c.alpha))), range = within(0.0, false, 1.0, true).hint("the paper's 0.7"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Spatial-reuse hops k.
    #[key(def = Derived(|| k::ap_defaults(|c| c.hop_factor.to_string())), ints = (1, 1000), unit = "hops")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hop_factor: Option<u32>,
    /// Below hop_factor hops: the h-hop delay (paper) or the one-hop delay (code).
    #[key(def = Derived(|| k::ap_defaults(|c| k::word_of(&c.short_path))))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_path: Option<ShortPath>,
    /// Samples kept for the variation.
    #[key(def = Derived(|| k::ap_defaults(|c| c.history.to_string())), ints = (2, 100_000), unit = "samples")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<u32>,
    /// Header bytes per frame in s_data = payload + overhead and s_ACK = overhead.
    #[key(def = Derived(|| k::ap_defaults(|c| c.overhead_bytes.to_string())), ints = (0, 100_000), unit = "bytes")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_bytes: Option<u32>,
    /// FHD samples at or above this are ignored.
    #[key(def = Derived(|| k::ap_defaults(|c| k::secs_or_zero(c.delay_bound))), unit = "s",
          range = ge(0.0).hint("seconds; 0 = no bound").text(">= 0 (0: no bound)"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_bound_s: Option<f64>,
    /// Pacing interval before the first RTT sample.
    #[key(def = Derived(|| k::ap_defaults(|c| k::secs_or_zero(c.initial_interval))), unit = "s",
          range = ge(0.0).hint("seconds; 0 = unpaced").text(">= 0 (0: unpaced)"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_interval_s: Option<f64>,
    /// Pacing timer: started per packet (paper) or free running (code).
    #[key(def = Derived(|| k::ap_defaults(|c| k::word_of(&c.timer))))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer: Option<PaceTimer>,
    /// Exponential RTO backoff.
    #[key(def = Derived(|| k::ap_defaults(|c| c.timeout_backoff.to_string())))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_backoff: Option<bool>,
    /// A fast retransmission empties the pacing queue.
    #[key(def = Derived(|| k::ap_defaults(|c| c.dupack_flush.to_string())))]
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
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "tcp", default, filled = Tcp)]
#[serde(deny_unknown_fields, default)]
pub struct TcpSpec {
    /// Congestion control; tcp_ap is NewReno with TCP-AP pacing ([tcp.ap]); bbr is BBR v1 as ns-3.37's TcpBbr, paced at the sender; cubic is CUBIC ([tcp.cubic]).
    #[key(word = "newreno")]
    pub variant: TcpVariantSpec,
    /// Payload per segment (ns-2 packetSize_); +40 B TCP/IP header.
    #[key(int = tcp_cfg::DEFAULT_PAYLOAD_BYTES, ints = (1, 65_495), unit = "bytes")]
    pub payload_bytes: u32,
    /// Maximum window (ns-2 window_, the papers' MaxWin); "wstar": each flow gets the W* of its path.
    #[key(int = tcp_cfg::DEFAULT_MAX_WINDOW, ints = (1, MAX_COUNT), unit = "packets")]
    pub max_window: MaxWindow,
    /// ECN-capable transport (RFC 3168).
    #[key(flag = tcp_cfg::DEFAULT_ECN)]
    pub ecn: bool,
    /// The receiver delays ACKs (ns-2 TCPSink/DelAck).
    #[key(flag = tcp_cfg::DEFAULT_DELAYED_ACK)]
    pub delayed_ack: bool,
    /// Lower bound of the retransmission timeout.
    #[key(num = tcp_cfg::DEFAULT_MIN_RTO_S, range = POSITIVE_S, unit = "s")]
    pub min_rto_s: f64,
    /// cwnd once the setup segment is acknowledged (ns-2 windowInit_).
    #[key(int = tcp_cfg::DEFAULT_INITIAL_WINDOW, ints = (1, MAX_COUNT), unit = "packets")]
    pub initial_window: u32,
    /// Initial slow-start threshold; ns-2.35 agents on mobile nodes keep the class default window_ (20).
    // ns-2.35 sets ssthresh_ = window_ in `TcpAgent::reset()`, which runs when
    // the agent is created and never again for agents on mobile nodes: a
    // script that sets `$tcp set window_ 32` afterwards starts with 20.
    #[key(int = tcp_cfg::DEFAULT_INITIAL_SSTHRESH, ints = (2, MAX_COUNT), unit = "packets")]
    pub initial_ssthresh: u32,
    /// Vegas α (ns-2 v_alpha_).
    #[key(num = tcp_cfg::DEFAULT_VEGAS_ALPHA, range = ge(0.0).hint("packets"), unit = "packets")]
    pub vegas_alpha: f64,
    /// Vegas β (ns-2 v_beta_).
    #[key(num = tcp_cfg::DEFAULT_VEGAS_BETA, allowed = Text(">= tcp.vegas_alpha"), unit = "packets")]
    pub vegas_beta: f64,
    /// Vegas γ (ns-2 v_gamma_).
    #[key(num = tcp_cfg::DEFAULT_VEGAS_GAMMA, range = ge(0.0).hint("packets"), unit = "packets")]
    pub vegas_gamma: f64,
    /// BBR: the gain-cycle phase each entry into ProbeBW starts in, in turn (0 is the 5/4 phase, 1 the 3/4 one); later entries draw theirs.
    #[key(def = Unset("none: each drawn as ns-3.37 draws it, 0 or 3..=7"), ty = "list of integers", allowed = Text("each 0..=7"))]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bbr_phases: Vec<u8>,
    /// Selective acknowledgments: SACK blocks on the ACKs (RFC 2018) and SACK-based loss recovery (RFC 6675, or ns-2.35's Sack1: tcp.sack_profile); not with bbr.
    // Left out of the canonical form at its default (as sack_profile), so existing scenarios keep their identity.
    #[key(flag = false)]
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sack: bool,
    /// With tcp.sack: RFC 6675's recovery, or ns-2.35's Agent/TCP/Sack1 with TCPSink/Sack1 (the checks against ns-2.35). CUBIC flows with profile ns2_linux have TCP-Linux's own SACK recovery behind TCPSink/Sack1 instead.
    #[key(word = "rfc6675")]
    #[serde(skip_serializing_if = "is_rfc6675")]
    pub sack_profile: SackProfile,
    /// Present when a flow or the gateway paces with TCP-AP.
    #[key(table, given = super::resolved::TcpAp)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ap: Option<TcpApSpec>,
    /// Present when a flow runs CUBIC with a profile other than the default.
    #[key(table, given = TcpCubicSpec)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cubic: Option<TcpCubicSpec>,
}

/// CUBIC's settings (`[tcp.cubic]`), read by flows with variant = "cubic".
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default, Keys)]
#[keys(table = "tcp.cubic")]
#[serde(deny_unknown_fields, default)]
pub struct TcpCubicSpec {
    /// rfc9438: RFC 9438 with HyStart++ (RFC 9406) over NewReno's recovery; ns2_linux: ns-2.35's Agent/TCP/Linux with select_ca cubic (Linux 2.6.22's tcp_cubic.c) behind a plain TCPSink, or with tcp.sack its own SACK recovery behind TCPSink/Sack1, no timestamps, for the check against ns-2.35 (docs/model.md).
    #[key(word = "rfc9438")]
    pub profile: CubicProfile,
}

fn is_rfc6675(p: &SackProfile) -> bool {
    *p == SackProfile::Rfc6675
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum TransportKind {
    Udp,
    Tcp,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
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

/// `[[flows]]`: one flow (or `count` identical ones).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "flows[]")]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Source node.
    #[key(def = Required("always"), allowed = Text("a node id"))]
    pub src: u32,
    /// Destination node.
    #[key(def = Required("always"), allowed = Text("a node id other than src"))]
    pub dst: u32,
    /// Transport protocol.
    #[key(def = Required("always"))]
    pub transport: TransportKind,
    /// Application: constant bit rate, bulk transfer, or HTTP-like pages (ftp and http over tcp only).
    #[key(def = Derived(|| "\"cbr\" over udp, \"ftp\" over tcp".to_string()))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<AppKind>,
    /// CBR offered load (payload).
    #[key(def = Required("app = \"cbr\""), range = gt(0.0).hint("payload bit/s"), unit = "bit/s")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_bps: Option<f64>,
    /// CBR payload per packet (+28 B UDP/IP header).
    #[key(def = Derived(|| format!("udp: {}; tcp: the flow's payload_bytes", k::UDP_PACKET_BYTES)),
          ints = (1, 65_507), unit = "bytes")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_bytes: Option<u32>,
    /// CBR: each gap is the interval × U(1−jitter, 1+jitter); ns-2's random_ 1 is 0.5.
    #[key(num = 0.0, range = within(0.0, false, 1.0, true).hint("0.5 is ns-2's random_ CBR"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<f64>,
    /// When the flow starts.
    #[key(num = 0.0, range = SECONDS.text(">= 0, < duration_s"), unit = "s")]
    #[serde(default)]
    pub start_s: f64,
    /// When the flow stops.
    #[key(def = Unset("runs to duration_s"), allowed = Text("> start_s"), unit = "s")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_s: Option<f64>,
    /// Intervals without new data from the application, resumed on the same connection (ns-2's $ftp stop/start).
    #[key(def = Unset("no pauses"), ty = "list of [from, to]", unit = "s",
          allowed = Text("ascending, non-overlapping, inside the flow's life; FTP over TCP only"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pauses: Option<Vec<[f64; 2]>>,
    /// HTTP: mean page size (Pareto).
    #[key(num = crate::app::http::PAPER_MEAN_PAGE_BYTES, range = gt(0.0).hint("bytes"), unit = "bytes")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_page_bytes: Option<f64>,
    /// HTTP: Pareto shape of the page sizes.
    #[key(num = crate::app::http::PAPER_PAGE_SHAPE,
          range = gt(1.0).says("must be a number above 1 (a Pareto shape with a finite mean; the paper's is 1.5)"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_shape: Option<f64>,
    /// HTTP: mean exponential think time.
    #[key(num = 1.0, range = SECONDS, unit = "s")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_think_s: Option<f64>,
    /// Explicit route.
    #[key(def = Unset("shortest hop path"), ty = "list of integers",
          allowed = Text("node ids from src to dst, each within radio.tx_range_m of the next; static routing only"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub route: Option<Vec<u32>>,
    /// Replicate this flow this many times (same endpoints).
    #[key(int = 1, ints = (1, MAX_COUNT), unit = "flows")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// TCP flows: this flow's tcp.variant.
    #[key(def = Derived(|| "tcp.variant".to_string()))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<TcpVariantSpec>,
    /// TCP flows: this flow's tcp.payload_bytes.
    #[key(def = Derived(|| "tcp.payload_bytes".to_string()), allowed = TcpSpec::PAYLOAD_BYTES.allowed, unit = "bytes")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload_bytes: Option<u32>,
    /// TCP flows: this flow's tcp.max_window.
    #[key(def = Derived(|| "tcp.max_window".to_string()), allowed = TcpSpec::MAX_WINDOW.allowed, unit = "packets")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_window: Option<MaxWindow>,
    /// TCP flows: this flow's tcp.ecn.
    #[key(def = Derived(|| "tcp.ecn".to_string()))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// TCP flows: this flow's tcp.delayed_ack.
    #[key(def = Derived(|| "tcp.delayed_ack".to_string()))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    /// TCP flows: this flow's tcp.min_rto_s.
    #[key(def = Derived(|| "tcp.min_rto_s".to_string()), allowed = TcpSpec::MIN_RTO_S.allowed, unit = "s")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto_s: Option<f64>,
    /// TCP flows: this flow's tcp.sack.
    #[key(def = Derived(|| "tcp.sack".to_string()))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
}

/// `[random_flows]`: its flow keys are `[[flows]]`'s (same default, range,
/// unit and meaning).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "random_flows")]
#[serde(deny_unknown_fields)]
pub struct RandomFlowsSpec {
    /// Flows between random node pairs, drawn from flow_seed.
    #[key(def = Required("with [random_flows]"), ints = (1, MAX_COUNT), unit = "flows")]
    pub count: u32,
    #[key(like = FlowSpec::TRANSPORT)]
    pub transport: TransportKind,
    #[key(like = FlowSpec::APP)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<AppKind>,
    #[key(like = FlowSpec::RATE_BPS)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_bps: Option<f64>,
    #[key(like = FlowSpec::PACKET_BYTES)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_bytes: Option<u32>,
    #[key(like = FlowSpec::JITTER)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<f64>,
    #[key(like = FlowSpec::MEAN_PAGE_BYTES)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_page_bytes: Option<f64>,
    #[key(like = FlowSpec::PAGE_SHAPE)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_shape: Option<f64>,
    #[key(like = FlowSpec::MEAN_THINK_S)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_think_s: Option<f64>,
    #[key(like = FlowSpec::START_S)]
    #[serde(default)]
    pub start_s: f64,
    #[key(like = FlowSpec::STOP_S)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_s: Option<f64>,
    /// Only pairs at least this many hops apart.
    #[key(int = 1, ints = (1, MAX_COUNT), unit = "hops")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_hops: Option<u32>,
    /// Only pairs at most this many hops apart.
    #[key(def = Unset("no limit"), allowed = Text(">= min_hops"), unit = "hops")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_hops: Option<u32>,
    /// Seed of the pair draw.
    #[key(def = Unset("the run seed"), allowed = Text("0..=9223372036854775807"))]
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
            sack: None,
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Default, Keys)]
#[keys(table = "stats")]
#[serde(deny_unknown_fields, default)]
pub struct StatsSpec {
    /// Record per-flow goodput in intervals of this length.
    #[key(def = Unset("no goodput series"), range = POSITIVE_S, unit = "s")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput_interval_s: Option<f64>,
    /// Exclude deliveries before this time from goodput.
    #[key(num = 0.0, range = SECONDS.text(">= 0, < duration_s"), unit = "s")]
    pub warmup_s: f64,
    /// Record each flow's goodput over consecutive batches of this many delivered packets.
    #[key(def = Unset("no batches"), ints = (1, 1_000_000_000), unit = "packets")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_packets: Option<u32>,
    /// Stop rule: run until all flows together delivered batches × batch_packets packets (or duration_s); report means with confidence intervals.
    #[key(def = Unset("no batch-means stop rule"), allowed = Text("batch_discard + 1..=1000000; needs batch_packets"), unit = "batches")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batches: Option<u32>,
    /// Batches discarded as the initial transient (with stats.batches only).
    #[key(int = 1, ints = (0, MAX_COUNT), unit = "batches")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_discard: Option<u32>,
    /// Confidence level of the intervals (with stats.batches only).
    #[key(num = 0.95, range = within(0.0, true, 1.0, true).says("must be in (0, 1), e.g. 0.95"))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_confidence: Option<f64>,
    /// Time series to record, each on every change: TCP-GAP's per-flow estimate at the gateway or at TCP-AP senders; per flow cwnd, ssthresh, RTT samples, RTO events, goodput; per node queue length and MAC state; the air trace (every frame on the air); per BBR flow its state, BtlBw, RTprop, pacing rate and gain.
    #[key(def = Unset("none"), ty = "list of strings", allowed = Words(<SeriesKind as strum::VariantNames>::VARIANTS))]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<SeriesKind>,
    /// Record the air trace (stats.series containing "air") only in this window of simulated time.
    #[key(def = Unset("the whole run"), ty = "[number, number]", allowed = Text("[from, to] with 0 <= from < to"), unit = "s")]
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
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "wired", filled = Wired)]
#[serde(deny_unknown_fields)]
pub struct WiredSpec {
    /// The wireless node with the wired interface.
    #[key(def = Derived(|| "chain: node hops; parallel_chains with topology.gateway = true: the gateway node; required otherwise".to_string()),
          allowed = Text("a wireless node id"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<u32>,
    /// Wired hosts and routers; their ids follow the wireless ones.
    #[key(def = Derived(|| "as many as wired.links name, 1 without links".to_string()), ints = (1, 100_000), unit = "nodes")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u32>,
    /// Default bandwidth of every wired link.
    #[key(num = 10.0, range = gt(0.0).hint("Mb/s"), unit = "Mb/s")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_mbps: Option<f64>,
    /// Default one-way delay of every wired link.
    #[key(num = 40.0, range = ge(0.0).hint("milliseconds"), unit = "ms")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<f64>,
    /// Default drop-tail queue limit of every wired link.
    #[key(int = 50, ints = (2, MAX_COUNT), unit = "packets")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_limit: Option<u32>,
    // Resolved, the list is explicit with every value filled.
    #[key(table, list = WiredLink)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<WiredLinkSpec>>,
    #[key(table, given = TcpGapSpec)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_gap: Option<TcpGapSpec>,
}

/// `[[wired.links]]`: a duplex link between node ids `a` and `b` (the
/// gateway or wired nodes).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "wired.links[]", filled = WiredLink)]
#[serde(deny_unknown_fields)]
pub struct WiredLinkSpec {
    /// One end of a duplex link.
    #[key(def = Required("per link"), allowed = Text("the gateway or a wired node id"))]
    pub a: u32,
    /// The other end.
    #[key(def = Required("per link"), allowed = Text("the gateway or a wired node id, not a"))]
    pub b: u32,
    /// This link's bandwidth.
    #[key(def = Derived(|| "wired.bandwidth_mbps".to_string()), allowed = WiredSpec::BANDWIDTH_MBPS.allowed, unit = "Mb/s")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_mbps: Option<f64>,
    /// This link's one-way delay.
    #[key(def = Derived(|| "wired.delay_ms".to_string()), allowed = WiredSpec::DELAY_MS.allowed, unit = "ms")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<f64>,
    /// This link's queue limit.
    #[key(def = Derived(|| "wired.queue_limit".to_string()), allowed = WiredSpec::QUEUE_LIMIT.allowed, unit = "packets")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_limit: Option<u32>,
}

/// `[wired.tcp_gap]`: Gateway Adaptive Pacing (ElRakabawy et al. §4.3–4.4),
/// defaults from gateway::tcp_gap. Pacing uses the `[tcp.ap]` settings
/// (profile "paper" by default).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Keys)]
#[keys(table = "wired.tcp_gap", default)]
#[serde(deny_unknown_fields, default)]
pub struct TcpGapSpec {
    /// TCP-GAP (ElRakabawy et al.) at the gateway; pacing uses [tcp.ap].
    #[key(flag = true)]
    pub enabled: bool,
    /// Goodput Control (the paper's Fig. 7).
    #[key(flag = gap::DEFAULT_GOODPUT_CONTROL)]
    pub goodput_control: bool,
    /// S: a wired-to-wireless flow above this multiple of the mean goodput is throttled to the mean.
    #[key(num = gap::DEFAULT_THRESHOLD, range = gt(0.0).hint("multiple of the mean goodput, the paper's S = 1.1"), unit = "× mean goodput")]
    pub threshold: f64,
    /// Goodput Control's period.
    #[key(num = gap::DEFAULT_PERIOD_S, range = POSITIVE_S, unit = "s")]
    pub period_s: f64,
    /// The aging's coefficient: a cap grows by aging × G(i)/Gavg packets/s, or by this factor, per period.
    #[key(num = gap::DEFAULT_AGING,
          range = ge(0.0).text(">= 0 additive (0: no aging), >= 1 multiplicative (1: no aging)"))]
    pub aging: f64,
    /// Aging of a throttle cap: Fig. 7 as written (R(i) + 1.1·deviation(i)) or as a growth factor.
    // Left out of the canonical form at its default.
    #[key(word = "additive")]
    #[serde(skip_serializing_if = "is_default_aging_rule")]
    pub aging_rule: AgingRule,
    /// Gateway buffer for the pacing queues.
    #[key(int = gap::DEFAULT_BUFFER_PACKETS, ints = (1, 100_000_000), unit = "packets")]
    pub buffer_packets: u32,
    /// Soft state: a flow is forgotten after this long without a packet.
    #[key(num = gap::DEFAULT_FLOW_TIMEOUT_S, range = POSITIVE_S, unit = "s")]
    pub flow_timeout_s: f64,
}

fn is_default_aging_rule(r: &AgingRule) -> bool {
    *r == TcpGapSpec::AGING_RULE.word::<AgingRule>()
}
