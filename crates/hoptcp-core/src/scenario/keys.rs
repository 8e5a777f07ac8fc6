//! Every scenario key, declared once: its type, default, allowed values,
//! unit and one line of meaning (as ns-3 declares attributes). The schema's
//! `Default` impls, validation's range checks and the planner's fallbacks
//! read these declarations; `hoptcp scenario reference` writes them out as
//! docs/scenario-reference.md. Keys of list entries are written `flows[].src`.
//! Where a lower layer owns a constant (the 802.11 contention window, TCP-AP's
//! profiles, LDM's and AODV's constants) the declaration reads it from there.

use super::error::ScenarioError;
use crate::engine::time::to_secs;
use crate::gateway::tcp_gap as gap;
use crate::net::routing::aodv::params as aodv;
use crate::transport::tcp::config as tcp_cfg;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A key's default.
#[derive(Clone, Copy, Debug)]
pub enum Def {
    Int(u64),
    Num(f64),
    Bool(bool),
    /// A string value (an enum's name).
    Word(&'static str),
    /// No default: the key must be given (where the text says).
    Required(&'static str),
    /// Absent by default; the text says what absence means.
    Unset(&'static str),
    /// Computed from other keys or a lower layer's constants; the function writes it.
    Derived(fn() -> String),
}

/// What a key accepts.
#[derive(Clone, Copy, Debug)]
pub enum Allowed {
    /// An integer in lo..=hi.
    Ints(u64, u64),
    /// One of these strings.
    Words(&'static [&'static str]),
    /// A rule in words.
    Text(&'static str),
}

#[derive(Clone, Copy, Debug)]
pub struct Decl {
    /// Dotted path; `[]` marks the entries of a list (`flows[].src`).
    pub key: &'static str,
    /// "integer", "number", "bool", "string", or a list shape.
    pub ty: &'static str,
    pub default: Def,
    pub allowed: Allowed,
    /// Unit of the value ("" if none).
    pub unit: &'static str,
    pub doc: &'static str,
}

impl Decl {
    /// The integer default (a declaration error, caught by the tests, if it has none).
    pub const fn int(&self) -> u64 {
        match self.default {
            Def::Int(v) => v,
            _ => panic!("declaration has no integer default"),
        }
    }

    pub const fn num(&self) -> f64 {
        match self.default {
            Def::Num(v) => v,
            _ => panic!("declaration has no number default"),
        }
    }

    pub const fn flag(&self) -> bool {
        match self.default {
            Def::Bool(v) => v,
            _ => panic!("declaration has no bool default"),
        }
    }

    /// The default of an enum-valued key, as its Rust value.
    pub fn word<T: DeserializeOwned>(&self) -> T {
        let Def::Word(w) = self.default else { panic!("{}: declaration has no string default", self.key) };
        serde_json::from_value(serde_json::Value::String(w.to_string()))
            .unwrap_or_else(|e| panic!("{}: default {w:?} is not a value of its type: {e}", self.key))
    }

    /// `v` within the declared integer range, as `key` (the concrete path,
    /// e.g. `flows.3.max_window`); the error names key, value and range.
    pub fn check_int(&self, key: &str, v: u64) -> Result<(), ScenarioError> {
        let Allowed::Ints(lo, hi) = self.allowed else { panic!("{}: declaration has no integer range", self.key) };
        if (lo..=hi).contains(&v) {
            Ok(())
        } else {
            Err(ScenarioError::value(key, v, format!("must be an integer in {lo}..={hi}")))
        }
    }

    /// The declared range as the error messages write it ("1..=1000000").
    pub fn range_text(&self) -> String {
        match self.allowed {
            Allowed::Ints(lo, hi) => format!("{lo}..={hi}"),
            Allowed::Words(w) => w.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", "),
            Allowed::Text(t) => t.to_string(),
        }
    }

    pub fn default_text(&self) -> String {
        match self.default {
            Def::Int(v) => v.to_string(),
            Def::Num(v) => num_text(v),
            Def::Bool(v) => v.to_string(),
            Def::Word(w) => format!("\"{w}\""),
            Def::Required(t) => format!("required ({t})"),
            Def::Unset(t) => format!("unset ({t})"),
            Def::Derived(f) => f(),
        }
    }

    /// Everything as text, for the reference document and `--json` readers.
    pub fn text(&self) -> DeclText {
        DeclText {
            key: self.key,
            ty: self.ty,
            default: self.default_text(),
            allowed: self.range_text(),
            unit: self.unit,
            doc: self.doc,
        }
    }
}

/// A declaration written out.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DeclText {
    pub key: &'static str,
    #[serde(rename = "type")]
    pub ty: &'static str,
    pub default: String,
    pub allowed: String,
    pub unit: &'static str,
    pub doc: &'static str,
}

/// A number as TOML writes it (always with a decimal point or exponent).
pub fn num_text(v: f64) -> String {
    let s = format!("{v}");
    if s.contains(['.', 'e', 'E', 'i', 'N']) {
        s
    } else {
        format!("{s}.0")
    }
}

const fn int(key: &'static str, default: u64, lo: u64, hi: u64, unit: &'static str, doc: &'static str) -> Decl {
    Decl { key, ty: "integer", default: Def::Int(default), allowed: Allowed::Ints(lo, hi), unit, doc }
}
const fn num(key: &'static str, default: f64, allowed: &'static str, unit: &'static str, doc: &'static str) -> Decl {
    Decl { key, ty: "number", default: Def::Num(default), allowed: Allowed::Text(allowed), unit, doc }
}
const fn flag(key: &'static str, default: bool, doc: &'static str) -> Decl {
    Decl { key, ty: "bool", default: Def::Bool(default), allowed: Allowed::Words(&["true", "false"]), unit: "", doc }
}
const fn word(key: &'static str, default: &'static str, values: &'static [&'static str], doc: &'static str) -> Decl {
    Decl { key, ty: "string", default: Def::Word(default), allowed: Allowed::Words(values), unit: "", doc }
}
const fn other(
    key: &'static str,
    ty: &'static str,
    default: Def,
    allowed: Allowed,
    unit: &'static str,
    doc: &'static str,
) -> Decl {
    Decl { key, ty, default, allowed, unit, doc }
}

const POSITIVE: &str = "> 0";
const NON_NEGATIVE: &str = ">= 0";
const MAX_COUNT: u64 = 1_000_000;

// --- top level -----------------------------------------------------------------------
pub const NAME: Decl =
    other("name", "string", Def::Unset("no name"), Allowed::Text("any"), "", "A name for the scenario.");
pub const DESCRIPTION: Decl =
    other("description", "string", Def::Unset("none"), Allowed::Text("any"), "", "What the scenario is for.");
pub const DURATION_S: Decl = num("duration_s", 300.0, POSITIVE, "s", "Simulated time.");
pub const SEED: Decl = other(
    "seed",
    "integer",
    Def::Int(1),
    Allowed::Text("0..=9223372036854775807"),
    "",
    "Run seed; every random stream derives from it.",
);

// --- [topology] ----------------------------------------------------------------------
pub const TOPOLOGY_KIND: Decl = other(
    "topology.kind",
    "string",
    Def::Required("always"),
    Allowed::Words(&["chain", "grid", "cross", "parallel_chains", "star", "random", "explicit"]),
    "",
    "Shape of the wireless network; each kind takes only its own keys below.",
);
pub const TOPOLOGY_HOPS: Decl = other(
    "topology.hops",
    "integer",
    Def::Required("chain, cross, parallel_chains"),
    Allowed::Ints(1, MAX_COUNT),
    "hops",
    "chain: hops from node 0 to the last node; cross: hops per arm (even, >= 2); parallel_chains: hops per chain.",
);
pub const TOPOLOGY_SPACING_M: Decl = num(
    "topology.spacing_m",
    crate::topology::DEFAULT_SPACING_M,
    POSITIVE,
    "m",
    "chain, grid, cross, parallel_chains: distance between neighbouring nodes.",
);
pub const TOPOLOGY_ROWS: Decl = other(
    "topology.rows",
    "integer",
    Def::Required("grid"),
    Allowed::Ints(1, MAX_COUNT),
    "nodes",
    "grid: rows (rows × cols in 2..=1000000).",
);
pub const TOPOLOGY_COLS: Decl =
    other("topology.cols", "integer", Def::Required("grid"), Allowed::Ints(1, MAX_COUNT), "nodes", "grid: columns.");
pub const TOPOLOGY_CHAINS: Decl = other(
    "topology.chains",
    "integer",
    Def::Required("parallel_chains"),
    Allowed::Ints(1, MAX_COUNT),
    "chains",
    "parallel_chains: number of chains.",
);
pub const TOPOLOGY_CHAIN_GAP_M: Decl = other(
    "topology.chain_gap_m",
    "number",
    Def::Derived(|| "topology.spacing_m".to_string()),
    Allowed::Text(POSITIVE),
    "m",
    "parallel_chains: distance between neighbouring chains.",
);
pub const TOPOLOGY_GATEWAY: Decl = other(
    "topology.gateway",
    "bool",
    Def::Unset("false: no gateway node"),
    Allowed::Words(&["true", "false"]),
    "",
    "parallel_chains: add one node (the last id), an Internet gateway level with the chains' last nodes, midway between the outer chains.",
);
pub const TOPOLOGY_LEAVES: Decl = other(
    "topology.leaves",
    "integer",
    Def::Required("star"),
    Allowed::Ints(1, MAX_COUNT),
    "nodes",
    "star: leaves 1..=leaves on a circle around hub node 0.",
);
pub const TOPOLOGY_RADIUS_M: Decl =
    num("topology.radius_m", crate::topology::DEFAULT_SPACING_M, POSITIVE, "m", "star: radius of the leaves' circle.");
pub const TOPOLOGY_NODES: Decl = other(
    "topology.nodes",
    "integer",
    Def::Required("random"),
    Allowed::Ints(2, MAX_COUNT),
    "nodes",
    "random: node count.",
);
pub const TOPOLOGY_WIDTH_M: Decl = other(
    "topology.width_m",
    "number",
    Def::Required("random"),
    Allowed::Text(POSITIVE),
    "m",
    "random: width of the rectangle the nodes are drawn in.",
);
pub const TOPOLOGY_HEIGHT_M: Decl = other(
    "topology.height_m",
    "number",
    Def::Required("random"),
    Allowed::Text(POSITIVE),
    "m",
    "random: height of the rectangle.",
);
pub const TOPOLOGY_SEED: Decl = other(
    "topology.topology_seed",
    "integer",
    Def::Unset("the run seed"),
    Allowed::Text("0..=9223372036854775807"),
    "",
    "random: seed of the placement.",
);
pub const TOPOLOGY_REQUIRE_CONNECTED: Decl =
    flag("topology.require_connected", true, "random: reject a draw whose link graph is disconnected.");
pub const TOPOLOGY_POSITIONS: Decl = other(
    "topology.positions",
    "list of [x, y]",
    Def::Required("explicit"),
    Allowed::Text("at least 2 pairs of finite numbers"),
    "m",
    "explicit: node i is at the i-th [x, y].",
);

// --- [radio] -------------------------------------------------------------------------
pub const RADIO_TX_RANGE_M: Decl =
    num("radio.tx_range_m", 250.0, POSITIVE, "m", "Range at which frames can still be decoded (sets RXThresh).");
pub const RADIO_CS_RANGE_M: Decl = num(
    "radio.cs_range_m",
    550.0,
    ">= radio.tx_range_m",
    "m",
    "Range at which the carrier is still sensed (sets CSThresh).",
);
pub const RADIO_CAPTURE_DB: Decl = num(
    "radio.capture_db",
    10.0,
    NON_NEGATIVE,
    "dB",
    "Capture threshold: a frame being received survives a later one this much weaker.",
);
pub const RADIO_STANDARD: Decl = word(
    "radio.standard",
    "dsss",
    &["dsss", "ofdm", "erp", "ns2_g"],
    "802.11 PHY/MAC timing: DSSS (802.11b), OFDM (802.11a), ERP (802.11g), or ns-2's 802.11g settings.",
);
pub const RADIO_DATA_RATE_MBPS: Decl = other(
    "radio.data_rate_mbps",
    "number",
    Def::Derived(|| rates_by_standard(|s| s.default_rates_mbps().0)),
    Allowed::Text("a rate of radio.standard: dsss 1, 2, 5.5, 11; ofdm 6..54; erp and ns2_g 1..54"),
    "Mb/s",
    "Rate of DATA frames.",
);
pub const RADIO_BASIC_RATE_MBPS: Decl = other(
    "radio.basic_rate_mbps",
    "number",
    Def::Derived(|| rates_by_standard(|s| s.default_rates_mbps().1)),
    Allowed::Text("a rate of radio.standard (as data_rate_mbps)"),
    "Mb/s",
    "Rate of RTS, CTS and ACK frames.",
);
pub const RADIO_TX_POWER_W: Decl =
    num("radio.tx_power_w", 0.281_838_15, POSITIVE, "W", "Transmit power (two-ray ground; ns-2's default).");
pub const RADIO_FREQUENCY_HZ: Decl =
    num("radio.frequency_hz", 914e6, POSITIVE, "Hz", "Carrier frequency (two-ray ground).");
pub const RADIO_ANTENNA_HEIGHT_M: Decl =
    num("radio.antenna_height_m", 1.5, POSITIVE, "m", "Antenna height of every node (two-ray ground).");
pub const RADIO_SYSTEM_LOSS: Decl = num("radio.system_loss", 1.0, ">= 1", "", "System loss factor L (two-ray ground).");

fn rates_by_standard(f: fn(crate::mac::Standard) -> f64) -> String {
    use crate::mac::Standard::*;
    [Dsss, Ofdm, Erp, Ns2G].iter().map(|&s| format!("{} {}", s.name(), f(s))).collect::<Vec<_>>().join(", ")
}

// --- [mac] ---------------------------------------------------------------------------
pub const MAC_RTS_THRESHOLD_BYTES: Decl = int(
    "mac.rts_threshold_bytes",
    0,
    0,
    u32::MAX as u64,
    "bytes",
    "RTS/CTS precedes unicast DATA frames at least this long (0: always).",
);
pub const MAC_SHORT_RETRY_LIMIT: Decl = int(
    "mac.short_retry_limit",
    7,
    1,
    255,
    "attempts",
    "Transmission attempts of an RTS (or of a DATA frame sent without RTS).",
);
pub const MAC_LONG_RETRY_LIMIT: Decl =
    int("mac.long_retry_limit", 4, 1, 255, "attempts", "Transmission attempts of a DATA frame after its RTS/CTS.");
pub const MAC_QUEUE_LIMIT: Decl = int(
    "mac.queue_limit",
    50,
    2,
    10_000_000,
    "packets",
    "Interface queue limit, ns-2 semantics: queue_limit - 1 wait in the queue and the MAC holds one more.",
);
pub const MAC_CW_MIN: Decl = other(
    "mac.cw_min",
    "integer",
    Def::Derived(|| cw_by_standard(|c| c.0)),
    Allowed::Ints(1, MAX_COUNT),
    "slots",
    "Smallest contention window.",
);
pub const MAC_CW_MAX: Decl = other(
    "mac.cw_max",
    "integer",
    Def::Derived(|| cw_by_standard(|c| c.1)),
    Allowed::Ints(1, MAX_COUNT),
    "slots",
    "Largest contention window (>= mac.cw_min).",
);
pub const MAC_FRAME_FORMAT: Decl =
    word("mac.frame_format", "ns2", &["ns2", "standard"], "Header sizes: ns-2.35's or IEEE 802.11-2016's.");
pub const MAC_BACKOFF_SLOTS: Decl = word(
    "mac.backoff_slots",
    "exact",
    &["exact", "ns2"],
    "How a frozen backoff counts elapsed slots: exactly, or with ns-2.35's double arithmetic (drops a slot at exact slot boundaries).",
);

fn cw_by_standard(f: fn((u32, u32)) -> u32) -> String {
    use crate::mac::Standard::*;
    [Dsss, Ofdm, Erp, Ns2G].iter().map(|&s| format!("{} {}", s.name(), f(s.cw_bounds()))).collect::<Vec<_>>().join(", ")
}

// --- [mac.link_red] ------------------------------------------------------------------
pub const LINK_RED_ENABLED: Decl =
    flag("mac.link_red.enabled", false, "Link RED (Fu et al.): mark or drop as the average MAC retry count rises.");
pub const LINK_RED_MIN_TH: Decl = num(
    "mac.link_red.min_th",
    1.0,
    NON_NEGATIVE,
    "retries/packet",
    "Average retries at which marking starts (and adaptive pacing's threshold).",
);
pub const LINK_RED_MAX_TH: Decl = num(
    "mac.link_red.max_th",
    1.5,
    "> mac.link_red.min_th",
    "retries/packet",
    "The marking probability would reach 1 here; it is capped at max_p.",
);
pub const LINK_RED_MAX_P: Decl = num("mac.link_red.max_p", 0.02, "(0, 1]", "", "Largest marking probability.");
pub const LINK_RED_WEIGHT: Decl =
    num("mac.link_red.weight", 0.125, "(0, 1]", "", "EWMA weight of the newest packet's retries.");
pub const LINK_RED_ACTION: Decl = word(
    "mac.link_red.action",
    "mark",
    &["mark", "mark_ect_only", "drop"],
    "mark: CE on ECN-capable packets, drop the others (RFC 3168); mark_ect_only: CE, leave the others; drop.",
);

// --- [mac.adaptive_pacing] -----------------------------------------------------------
pub const PACING_ENABLED: Decl = flag(
    "mac.adaptive_pacing.enabled",
    false,
    "Adaptive pacing (Fu et al.): an extra backoff of one exchange after a success.",
);
pub const PACING_TRIGGER: Decl = word(
    "mac.adaptive_pacing.trigger",
    "below_min_th",
    &["below_min_th", "at_or_above_min_th", "always"],
    "When the extra wait applies: retry average below Link RED's min_th (tech report), at or above it (INFOCOM), always.",
);
pub const PACING_WAIT: Decl = word(
    "mac.adaptive_pacing.wait",
    "frozen_backoff",
    &["frozen_backoff", "timer"],
    "How the extra wait elapses: added to the backoff counter, or a timer running through busy medium.",
);
pub const PACING_EXTRA: Decl = word(
    "mac.adaptive_pacing.extra",
    "exchange",
    &["exchange", "data"],
    "How long the extra wait is: RTS+CTS+DATA+ACK, or the DATA frame.",
);

// --- [ip] ----------------------------------------------------------------------------
pub const IP_TTL: Decl = int("ip.ttl", 64, 1, 255, "hops", "Initial TTL of every packet.");
pub const IP_LL_DELAY_US: Decl = num(
    "ip.ll_delay_us",
    25.0,
    NON_NEGATIVE,
    "µs",
    "ns-2's link-layer delay, going down to the queue and going up from the MAC.",
);

// --- [ip.ldm] (defaults: net::ldm's constants) ---------------------------------------
fn ldm() -> crate::net::ldm::LdmParams {
    crate::net::ldm::LdmParams::default()
}
pub const LDM_ENABLED: Decl = flag("ip.ldm.enabled", false, "Lee et al.'s Low Delay Marking at every forwarding node.");
pub const LDM_ESTIMATE: Decl = word(
    "ip.ldm.estimate",
    "estimated",
    &["estimated", "oracle"],
    "Hop and flow counts from TTLs and the bit vector, or the true counts.",
);
pub const LDM_K: Decl =
    other("ip.ldm.k", "number", Def::Derived(|| num_text(ldm().k)), Allowed::Text(POSITIVE), "", "p = k/w².");
pub const LDM_HOPS_PER_WINDOW: Decl = other(
    "ip.ldm.hops_per_window",
    "number",
    Def::Derived(|| num_text(ldm().hops_per_window)),
    Allowed::Text(POSITIVE),
    "hops",
    "w_opt = h/(hops_per_window·n).",
);
pub const LDM_MIN_WINDOW: Decl = other(
    "ip.ldm.min_window",
    "number",
    Def::Derived(|| num_text(ldm().min_window)),
    Allowed::Text(NON_NEGATIVE),
    "packets",
    "A w_opt at or below this is replaced by floor_window.",
);
pub const LDM_FLOOR_WINDOW: Decl = other(
    "ip.ldm.floor_window",
    "number",
    Def::Derived(|| num_text(ldm().floor_window)),
    Allowed::Text(POSITIVE),
    "packets",
    "The window used instead of a w_opt at or below min_window.",
);
pub const LDM_TARGET_WINDOW: Decl = other(
    "ip.ldm.target_window",
    "number",
    Def::Unset("w_opt"),
    Allowed::Text(POSITIVE),
    "packets",
    "A fixed target window instead of w_opt.",
);
pub const LDM_FLOW_BITS: Decl = other(
    "ip.ldm.flow_bits",
    "integer",
    Def::Derived(|| ldm().flow_bits.to_string()),
    Allowed::Ints(1, 65_536),
    "bits",
    "Bits of the flow-count vector.",
);
pub const LDM_CLEAR_PERIOD_S: Decl = other(
    "ip.ldm.clear_period_s",
    "number",
    Def::Derived(|| num_text(to_secs(ldm().clear_period))),
    Allowed::Text("> 0, and >= flow_bits ns"),
    "s",
    "Every bit, and the hop record under it, is cleared once per period.",
);
pub const LDM_INITIAL_TTLS: Decl = other(
    "ip.ldm.initial_ttls",
    "list of integers",
    Def::Derived(|| format!("{:?}", ldm().initial_ttls)),
    Allowed::Text("non-empty, ascending, each in 1..=255"),
    "",
    "Conventional initial TTLs the hop estimate assumes.",
);
pub const LDM_ACTION: Decl = word(
    "ip.ldm.action",
    "mark",
    &["mark", "mark_ect_only", "drop"],
    "What a picked packet gets: CE (or a drop if not ECN-capable), CE on ECN-capable packets only, or a drop.",
);

// --- [routing] -----------------------------------------------------------------------
pub const ROUTING_PROTOCOL: Decl = word(
    "routing.protocol",
    "static",
    &["static", "aodv"],
    "static: shortest hop path (or the flow's route), fixed for the run; aodv: AODV as ns-2.35 runs it.",
);

// --- [routing.aodv] (only with protocol = "aodv"; ns-2.35's aodv.h) ---------------------
pub const AODV_TTL_START: Decl =
    int("routing.aodv.ttl_start", aodv::TTL_START as u64, 1, 255, "hops", "Expanding ring search: TTL_START.");
pub const AODV_TTL_INCREMENT: Decl = int(
    "routing.aodv.ttl_increment",
    aodv::TTL_INCREMENT as u64,
    1,
    255,
    "hops",
    "Expanding ring search: TTL_INCREMENT.",
);
pub const AODV_TTL_THRESHOLD: Decl = int(
    "routing.aodv.ttl_threshold",
    aodv::TTL_THRESHOLD as u64,
    1,
    255,
    "hops",
    "Expanding ring search: TTL_THRESHOLD (>= ttl_start).",
);
pub const AODV_NETWORK_DIAMETER: Decl = int(
    "routing.aodv.network_diameter",
    aodv::NETWORK_DIAMETER as u64,
    1,
    255,
    "hops",
    "NETWORK_DIAMETER: TTL of network-wide RREQs, RREPs and data.",
);
pub const AODV_RREQ_RETRIES: Decl = int(
    "routing.aodv.rreq_retries",
    aodv::RREQ_RETRIES as u64,
    0,
    254,
    "",
    "RREQ_RETRIES: network-wide retries before a discovery gives up.",
);
pub const AODV_MAX_RREQ_TIMEOUT_S: Decl =
    num("routing.aodv.max_rreq_timeout_s", aodv::MAX_RREQ_TIMEOUT_S, POSITIVE, "s", "MAX_RREQ_TIMEOUT.");
pub const AODV_NODE_TRAVERSAL_TIME_S: Decl =
    num("routing.aodv.node_traversal_time_s", aodv::NODE_TRAVERSAL_TIME_S, POSITIVE, "s", "NODE_TRAVERSAL_TIME.");
pub const AODV_ACTIVE_ROUTE_TIMEOUT_S: Decl =
    num("routing.aodv.active_route_timeout_s", aodv::ACTIVE_ROUTE_TIMEOUT_S, POSITIVE, "s", "ACTIVE_ROUTE_TIMEOUT.");
pub const AODV_MY_ROUTE_TIMEOUT_S: Decl = num(
    "routing.aodv.my_route_timeout_s",
    aodv::MY_ROUTE_TIMEOUT_S,
    POSITIVE,
    "s",
    "MY_ROUTE_TIMEOUT: lifetime granted by a destination's RREP.",
);
pub const AODV_REVERSE_ROUTE_LIFE_S: Decl =
    num("routing.aodv.reverse_route_life_s", aodv::REVERSE_ROUTE_LIFE_S, POSITIVE, "s", "REV_ROUTE_LIFE.");
pub const AODV_BCAST_ID_SAVE_S: Decl = num(
    "routing.aodv.bcast_id_save_s",
    aodv::BCAST_ID_SAVE_S,
    POSITIVE,
    "s",
    "BCAST_ID_SAVE: duplicate-RREQ memory and its purge period.",
);
pub const AODV_BUFFER_PACKETS: Decl = int(
    "routing.aodv.buffer_packets",
    aodv::BUFFER_PACKETS as u64,
    1,
    MAX_COUNT,
    "packets",
    "AODV_RTQ_MAX_LEN: packets buffered while awaiting a route.",
);
pub const AODV_BUFFER_TIMEOUT_S: Decl =
    num("routing.aodv.buffer_timeout_s", aodv::BUFFER_TIMEOUT_S, POSITIVE, "s", "AODV_RTQ_TIMEOUT.");
pub const AODV_BROADCAST_JITTER_S: Decl = num(
    "routing.aodv.broadcast_jitter_s",
    aodv::BROADCAST_JITTER_S,
    NON_NEGATIVE,
    "s",
    "Forwarded RREQs and propagated RERRs wait U(0, this).",
);
pub const AODV_ARP_DELAY_S: Decl = num(
    "routing.aodv.arp_delay_s",
    aodv::ARP_DELAY_S,
    NON_NEGATIVE,
    "s",
    "ARP_DELAY: spacing of buffered packets sent once a route is found.",
);
pub const AODV_PURGE_INTERVAL_S: Decl = num(
    "routing.aodv.purge_interval_s",
    aodv::PURGE_INTERVAL_S,
    ">= 0.001",
    "s",
    "Period of the route-table purge that also retries discoveries.",
);
pub const AODV_LOCAL_REPAIR: Decl = flag("routing.aodv.local_repair", aodv::LOCAL_REPAIR, "AODV_LOCAL_REPAIR.");
pub const AODV_FIRST_RREQ_NETWORK_WIDE: Decl = flag(
    "routing.aodv.first_rreq_network_wide",
    aodv::FIRST_RREQ_NETWORK_WIDE,
    "The first RREQ to a destination is network-wide, as in ns-2.35; false: it starts at ttl_start.",
);
pub const AODV_LINK_DETECTION: Decl = word(
    "routing.aodv.link_detection",
    "mac",
    &["mac", "hello"],
    "How a broken link is noticed: a MAC retry-limit drop (ns-2.35's build) or missed HELLOs (RFC 3561 §6.9).",
);
pub const AODV_HELLO_INTERVAL_S: Decl = num(
    "routing.aodv.hello_interval_s",
    aodv::HELLO_INTERVAL_S,
    ">= 0.001",
    "s",
    "HELLO_INTERVAL; only with link_detection = \"hello\".",
);
pub const AODV_ALLOWED_HELLO_LOSS: Decl = int(
    "routing.aodv.allowed_hello_loss",
    aodv::ALLOWED_HELLO_LOSS as u64,
    1,
    1000,
    "",
    "ALLOWED_HELLO_LOSS; only with link_detection = \"hello\".",
);

// --- [tcp] ---------------------------------------------------------------------------
pub const TCP_VARIANT: Decl = word(
    "tcp.variant",
    "newreno",
    &["newreno", "reno", "vegas", "tcp_ap", "bbr"],
    "Congestion control; tcp_ap is NewReno with TCP-AP pacing ([tcp.ap]); bbr is BBR v1 as ns-3.37's TcpBbr, paced at the sender.",
);
pub const TCP_PAYLOAD_BYTES: Decl = int(
    "tcp.payload_bytes",
    tcp_cfg::DEFAULT_PAYLOAD_BYTES as u64,
    1,
    65_495,
    "bytes",
    "Payload per segment (ns-2 packetSize_); +40 B TCP/IP header.",
);
pub const TCP_MAX_WINDOW: Decl = Decl {
    key: "tcp.max_window",
    ty: "integer or \"wstar\"",
    default: Def::Int(tcp_cfg::DEFAULT_MAX_WINDOW as u64),
    allowed: Allowed::Ints(1, MAX_COUNT),
    unit: "packets",
    doc: "Maximum window (ns-2 window_, the papers' MaxWin); \"wstar\": each flow gets the W* of its path.",
};
pub const TCP_ECN: Decl = flag("tcp.ecn", tcp_cfg::DEFAULT_ECN, "ECN-capable transport (RFC 3168).");
pub const TCP_DELAYED_ACK: Decl =
    flag("tcp.delayed_ack", tcp_cfg::DEFAULT_DELAYED_ACK, "The receiver delays ACKs (ns-2 TCPSink/DelAck).");
pub const TCP_MIN_RTO_S: Decl =
    num("tcp.min_rto_s", tcp_cfg::DEFAULT_MIN_RTO_S, POSITIVE, "s", "Lower bound of the retransmission timeout.");
pub const TCP_INITIAL_WINDOW: Decl = int(
    "tcp.initial_window",
    tcp_cfg::DEFAULT_INITIAL_WINDOW as u64,
    1,
    MAX_COUNT,
    "packets",
    "cwnd once the setup segment is acknowledged (ns-2 windowInit_).",
);
pub const TCP_INITIAL_SSTHRESH: Decl = int(
    "tcp.initial_ssthresh",
    tcp_cfg::DEFAULT_INITIAL_SSTHRESH as u64,
    2,
    MAX_COUNT,
    "packets",
    "Initial slow-start threshold; ns-2.35 agents on mobile nodes keep the class default window_ (20).",
);
pub const TCP_VEGAS_ALPHA: Decl =
    num("tcp.vegas_alpha", tcp_cfg::DEFAULT_VEGAS_ALPHA, NON_NEGATIVE, "packets", "Vegas α (ns-2 v_alpha_).");
pub const TCP_VEGAS_BETA: Decl =
    num("tcp.vegas_beta", tcp_cfg::DEFAULT_VEGAS_BETA, ">= tcp.vegas_alpha", "packets", "Vegas β (ns-2 v_beta_).");
pub const TCP_VEGAS_GAMMA: Decl =
    num("tcp.vegas_gamma", tcp_cfg::DEFAULT_VEGAS_GAMMA, NON_NEGATIVE, "packets", "Vegas γ (ns-2 v_gamma_).");
pub const TCP_BBR_PHASES: Decl = other(
    "tcp.bbr_phases",
    "list of integers",
    Def::Unset("none: each drawn as ns-3.37 draws it, 0 or 3..=7"),
    Allowed::Text("each 0..=7"),
    "",
    "BBR: the gain-cycle phase each entry into ProbeBW starts in, in turn (0 is the 5/4 phase, 1 the 3/4 one); later entries draw theirs.",
);

// --- [tcp.ap] (TCP-AP; each default from `profile`, transport::tcp::tcp_ap) ----------
fn ap_defaults(f: fn(&crate::transport::tcp::tcp_ap::TcpApConfig) -> String) -> String {
    use crate::transport::tcp::tcp_ap::TcpApConfig;
    format!("paper: {}; ns2: {}", f(&TcpApConfig::paper(0.0)), f(&TcpApConfig::ns2(0.0)))
}
fn word_of<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
fn secs_or_zero(t: Option<crate::engine::Time>) -> String {
    num_text(t.map_or(0.0, to_secs))
}
pub const AP_PROFILE: Decl = word(
    "tcp.ap.profile",
    "paper",
    &["paper", "ns2"],
    "Which defaults the other [tcp.ap] keys take: the paper's formula or the authors' ns-2 code.",
);
pub const AP_VARIATION: Decl = other(
    "tcp.ap.variation",
    "string",
    Def::Derived(|| ap_defaults(|c| word_of(&c.variation))),
    Allowed::Words(&["cov", "mad"]),
    "",
    "RTT variation: coefficient of variation of RTT samples, or mean absolute deviation of FHD samples.",
);
pub const AP_ALPHA: Decl = other(
    "tcp.ap.alpha",
    "number",
    Def::Derived(|| ap_defaults(|c| num_text(c.alpha))),
    Allowed::Text("[0, 1)"),
    "",
    "Smoothing of the four-hop delay estimate.",
);
pub const AP_HOP_FACTOR: Decl = other(
    "tcp.ap.hop_factor",
    "integer",
    Def::Derived(|| ap_defaults(|c| c.hop_factor.to_string())),
    Allowed::Ints(1, 1000),
    "hops",
    "Spatial-reuse hops k.",
);
pub const AP_SHORT_PATH: Decl = other(
    "tcp.ap.short_path",
    "string",
    Def::Derived(|| ap_defaults(|c| word_of(&c.short_path))),
    Allowed::Words(&["h_hop", "one_hop"]),
    "",
    "Below hop_factor hops: the h-hop delay (paper) or the one-hop delay (code).",
);
pub const AP_HISTORY: Decl = other(
    "tcp.ap.history",
    "integer",
    Def::Derived(|| ap_defaults(|c| c.history.to_string())),
    Allowed::Ints(2, 100_000),
    "samples",
    "Samples kept for the variation.",
);
pub const AP_OVERHEAD_BYTES: Decl = other(
    "tcp.ap.overhead_bytes",
    "integer",
    Def::Derived(|| ap_defaults(|c| c.overhead_bytes.to_string())),
    Allowed::Ints(0, 100_000),
    "bytes",
    "Header bytes per frame in s_data = payload + overhead and s_ACK = overhead.",
);
pub const AP_DELAY_BOUND_S: Decl = other(
    "tcp.ap.delay_bound_s",
    "number",
    Def::Derived(|| ap_defaults(|c| secs_or_zero(c.delay_bound))),
    Allowed::Text(">= 0 (0: no bound)"),
    "s",
    "FHD samples at or above this are ignored.",
);
pub const AP_INITIAL_INTERVAL_S: Decl = other(
    "tcp.ap.initial_interval_s",
    "number",
    Def::Derived(|| ap_defaults(|c| secs_or_zero(c.initial_interval))),
    Allowed::Text(">= 0 (0: unpaced)"),
    "s",
    "Pacing interval before the first RTT sample.",
);
pub const AP_TIMER: Decl = other(
    "tcp.ap.timer",
    "string",
    Def::Derived(|| ap_defaults(|c| word_of(&c.timer))),
    Allowed::Words(&["on_demand", "free_running"]),
    "",
    "Pacing timer: started per packet (paper) or free running (code).",
);
pub const AP_TIMEOUT_BACKOFF: Decl = other(
    "tcp.ap.timeout_backoff",
    "bool",
    Def::Derived(|| ap_defaults(|c| c.timeout_backoff.to_string())),
    Allowed::Words(&["true", "false"]),
    "",
    "Exponential RTO backoff.",
);
pub const AP_DUPACK_FLUSH: Decl = other(
    "tcp.ap.dupack_flush",
    "bool",
    Def::Derived(|| ap_defaults(|c| c.dupack_flush.to_string())),
    Allowed::Words(&["true", "false"]),
    "",
    "A fast retransmission empties the pacing queue.",
);

// --- [[flows]] -----------------------------------------------------------------------
pub const FLOW_SRC: Decl =
    other("flows[].src", "integer", Def::Required("always"), Allowed::Text("a node id"), "", "Source node.");
pub const FLOW_DST: Decl = other(
    "flows[].dst",
    "integer",
    Def::Required("always"),
    Allowed::Text("a node id other than src"),
    "",
    "Destination node.",
);
pub const FLOW_TRANSPORT: Decl = other(
    "flows[].transport",
    "string",
    Def::Required("always"),
    Allowed::Words(&["udp", "tcp"]),
    "",
    "Transport protocol.",
);
pub const FLOW_APP: Decl = other(
    "flows[].app",
    "string",
    Def::Derived(|| "\"cbr\" over udp, \"ftp\" over tcp".to_string()),
    Allowed::Words(&["cbr", "ftp", "http"]),
    "",
    "Application: constant bit rate, bulk transfer, or HTTP-like pages (ftp and http over tcp only).",
);
pub const FLOW_RATE_BPS: Decl = other(
    "flows[].rate_bps",
    "number",
    Def::Required("app = \"cbr\""),
    Allowed::Text(POSITIVE),
    "bit/s",
    "CBR offered load (payload).",
);
pub const FLOW_PACKET_BYTES: Decl = other(
    "flows[].packet_bytes",
    "integer",
    Def::Derived(|| format!("udp: {}; tcp: the flow's payload_bytes", UDP_PACKET_BYTES)),
    Allowed::Ints(1, 65_507),
    "bytes",
    "CBR payload per packet (+28 B UDP/IP header).",
);
/// CBR packet size over UDP when `packet_bytes` is not given.
pub const UDP_PACKET_BYTES: u32 = 1460;
pub const FLOW_JITTER: Decl = num(
    "flows[].jitter",
    0.0,
    "[0, 1)",
    "",
    "CBR: each gap is the interval × U(1−jitter, 1+jitter); ns-2's random_ 1 is 0.5.",
);
pub const FLOW_START_S: Decl = num("flows[].start_s", 0.0, ">= 0, < duration_s", "s", "When the flow starts.");
pub const FLOW_STOP_S: Decl = other(
    "flows[].stop_s",
    "number",
    Def::Unset("runs to duration_s"),
    Allowed::Text("> start_s"),
    "s",
    "When the flow stops.",
);
pub const FLOW_PAUSES: Decl = other(
    "flows[].pauses",
    "list of [from, to]",
    Def::Unset("no pauses"),
    Allowed::Text("ascending, non-overlapping, inside the flow's life; FTP over TCP only"),
    "s",
    "Intervals without new data from the application, resumed on the same connection (ns-2's $ftp stop/start).",
);
pub const FLOW_MEAN_PAGE_BYTES: Decl = num(
    "flows[].mean_page_bytes",
    crate::app::http::PAPER_MEAN_PAGE_BYTES,
    POSITIVE,
    "bytes",
    "HTTP: mean page size (Pareto).",
);
pub const FLOW_PAGE_SHAPE: Decl =
    num("flows[].page_shape", crate::app::http::PAPER_PAGE_SHAPE, "> 1", "", "HTTP: Pareto shape of the page sizes.");
pub const FLOW_MEAN_THINK_S: Decl =
    num("flows[].mean_think_s", 1.0, NON_NEGATIVE, "s", "HTTP: mean exponential think time.");
pub const FLOW_ROUTE: Decl = other(
    "flows[].route",
    "list of integers",
    Def::Unset("shortest hop path"),
    Allowed::Text("node ids from src to dst, each within radio.tx_range_m of the next; static routing only"),
    "",
    "Explicit route.",
);
pub const FLOW_COUNT: Decl =
    int("flows[].count", 1, 1, MAX_COUNT, "flows", "Replicate this flow this many times (same endpoints).");
pub const FLOW_VARIANT: Decl = other(
    "flows[].variant",
    "string",
    Def::Derived(|| "tcp.variant".to_string()),
    Allowed::Words(&["newreno", "reno", "vegas", "tcp_ap", "bbr"]),
    "",
    "TCP flows: this flow's tcp.variant.",
);
pub const FLOW_PAYLOAD_BYTES: Decl = other(
    "flows[].payload_bytes",
    "integer",
    Def::Derived(|| "tcp.payload_bytes".to_string()),
    TCP_PAYLOAD_BYTES.allowed,
    "bytes",
    "TCP flows: this flow's tcp.payload_bytes.",
);
pub const FLOW_MAX_WINDOW: Decl = other(
    "flows[].max_window",
    "integer or \"wstar\"",
    Def::Derived(|| "tcp.max_window".to_string()),
    TCP_MAX_WINDOW.allowed,
    "packets",
    "TCP flows: this flow's tcp.max_window.",
);
pub const FLOW_ECN: Decl = other(
    "flows[].ecn",
    "bool",
    Def::Derived(|| "tcp.ecn".to_string()),
    Allowed::Words(&["true", "false"]),
    "",
    "TCP flows: this flow's tcp.ecn.",
);
pub const FLOW_DELAYED_ACK: Decl = other(
    "flows[].delayed_ack",
    "bool",
    Def::Derived(|| "tcp.delayed_ack".to_string()),
    Allowed::Words(&["true", "false"]),
    "",
    "TCP flows: this flow's tcp.delayed_ack.",
);
pub const FLOW_MIN_RTO_S: Decl = other(
    "flows[].min_rto_s",
    "number",
    Def::Derived(|| "tcp.min_rto_s".to_string()),
    Allowed::Text(POSITIVE),
    "s",
    "TCP flows: this flow's tcp.min_rto_s.",
);

// --- [random_flows] ------------------------------------------------------------------
pub const RF_COUNT: Decl = other(
    "random_flows.count",
    "integer",
    Def::Required("with [random_flows]"),
    Allowed::Ints(1, MAX_COUNT),
    "flows",
    "Flows between random node pairs, drawn from flow_seed.",
);
pub const RF_MIN_HOPS: Decl =
    int("random_flows.min_hops", 1, 1, MAX_COUNT, "hops", "Only pairs at least this many hops apart.");
pub const RF_MAX_HOPS: Decl = other(
    "random_flows.max_hops",
    "integer",
    Def::Unset("no limit"),
    Allowed::Text(">= min_hops"),
    "hops",
    "Only pairs at most this many hops apart.",
);
pub const RF_FLOW_SEED: Decl = other(
    "random_flows.flow_seed",
    "integer",
    Def::Unset("the run seed"),
    Allowed::Text("0..=9223372036854775807"),
    "",
    "Seed of the pair draw.",
);

// `[random_flows]` keys shared with `[[flows]]`: same default, range, unit and meaning.
pub const RF_TRANSPORT: Decl = Decl { key: "random_flows.transport", ..FLOW_TRANSPORT };
pub const RF_APP: Decl = Decl { key: "random_flows.app", ..FLOW_APP };
pub const RF_RATE_BPS: Decl = Decl { key: "random_flows.rate_bps", ..FLOW_RATE_BPS };
pub const RF_PACKET_BYTES: Decl = Decl { key: "random_flows.packet_bytes", ..FLOW_PACKET_BYTES };
pub const RF_JITTER: Decl = Decl { key: "random_flows.jitter", ..FLOW_JITTER };
pub const RF_MEAN_PAGE_BYTES: Decl = Decl { key: "random_flows.mean_page_bytes", ..FLOW_MEAN_PAGE_BYTES };
pub const RF_PAGE_SHAPE: Decl = Decl { key: "random_flows.page_shape", ..FLOW_PAGE_SHAPE };
pub const RF_MEAN_THINK_S: Decl = Decl { key: "random_flows.mean_think_s", ..FLOW_MEAN_THINK_S };
pub const RF_START_S: Decl = Decl { key: "random_flows.start_s", ..FLOW_START_S };
pub const RF_STOP_S: Decl = Decl { key: "random_flows.stop_s", ..FLOW_STOP_S };

// --- [stats] -------------------------------------------------------------------------
pub const STATS_THROUGHPUT_INTERVAL_S: Decl = other(
    "stats.throughput_interval_s",
    "number",
    Def::Unset("no goodput series"),
    Allowed::Text(POSITIVE),
    "s",
    "Record per-flow goodput in intervals of this length.",
);
pub const STATS_WARMUP_S: Decl =
    num("stats.warmup_s", 0.0, ">= 0, < duration_s", "s", "Exclude deliveries before this time from goodput.");
pub const STATS_BATCH_PACKETS: Decl = other(
    "stats.batch_packets",
    "integer",
    Def::Unset("no batches"),
    Allowed::Ints(1, 1_000_000_000),
    "packets",
    "Record each flow's goodput over consecutive batches of this many delivered packets.",
);
pub const STATS_BATCHES: Decl = other(
    "stats.batches",
    "integer",
    Def::Unset("no batch-means stop rule"),
    Allowed::Text("batch_discard + 1..=1000000; needs batch_packets"),
    "batches",
    "Stop rule: run until all flows together delivered batches × batch_packets packets (or duration_s); report means with confidence intervals.",
);
pub const STATS_BATCH_DISCARD: Decl = int(
    "stats.batch_discard",
    1,
    0,
    MAX_COUNT,
    "batches",
    "Batches discarded as the initial transient (with stats.batches only).",
);
pub const STATS_BATCH_CONFIDENCE: Decl =
    num("stats.batch_confidence", 0.95, "(0, 1)", "", "Confidence level of the intervals (with stats.batches only).");
pub const STATS_SERIES: Decl = other(
    "stats.series",
    "list of strings",
    Def::Unset("none"),
    Allowed::Words(&["gateway", "tcp_ap", "cwnd", "ssthresh", "rtt", "rto", "goodput", "queue", "mac", "air", "bbr"]),
    "",
    "Time series to record, each on every change: TCP-GAP's per-flow estimate at the gateway or at TCP-AP senders; per flow cwnd, ssthresh, RTT samples, RTO events, goodput; per node queue length and MAC state; the air trace (every frame on the air); per BBR flow its state, BtlBw, RTprop, pacing rate and gain.",
);
pub const STATS_AIR_WINDOW_S: Decl = other(
    "stats.air_window_s",
    "[number, number]",
    Def::Unset("the whole run"),
    Allowed::Text("[from, to] with 0 <= from < to"),
    "s",
    "Record the air trace (stats.series containing \"air\") only in this window of simulated time.",
);

// --- [wired] -------------------------------------------------------------------------
pub const WIRED_GATEWAY: Decl = other(
    "wired.gateway",
    "integer",
    Def::Derived(|| {
        "chain: node hops; parallel_chains with topology.gateway = true: the gateway node; required otherwise"
            .to_string()
    }),
    Allowed::Text("a wireless node id"),
    "",
    "The wireless node with the wired interface.",
);
pub const WIRED_NODES: Decl = other(
    "wired.nodes",
    "integer",
    Def::Derived(|| "as many as wired.links name, 1 without links".to_string()),
    Allowed::Ints(1, 100_000),
    "nodes",
    "Wired hosts and routers; their ids follow the wireless ones.",
);
pub const WIRED_BANDWIDTH_MBPS: Decl =
    num("wired.bandwidth_mbps", 10.0, POSITIVE, "Mb/s", "Default bandwidth of every wired link.");
pub const WIRED_DELAY_MS: Decl =
    num("wired.delay_ms", 40.0, NON_NEGATIVE, "ms", "Default one-way delay of every wired link.");
pub const WIRED_QUEUE_LIMIT: Decl =
    int("wired.queue_limit", 50, 2, MAX_COUNT, "packets", "Default drop-tail queue limit of every wired link.");
pub const WIRED_LINK_A: Decl = other(
    "wired.links[].a",
    "integer",
    Def::Required("per link"),
    Allowed::Text("the gateway or a wired node id"),
    "",
    "One end of a duplex link.",
);
pub const WIRED_LINK_B: Decl = other(
    "wired.links[].b",
    "integer",
    Def::Required("per link"),
    Allowed::Text("the gateway or a wired node id, not a"),
    "",
    "The other end.",
);
pub const WIRED_LINK_BANDWIDTH_MBPS: Decl = other(
    "wired.links[].bandwidth_mbps",
    "number",
    Def::Derived(|| "wired.bandwidth_mbps".to_string()),
    Allowed::Text(POSITIVE),
    "Mb/s",
    "This link's bandwidth.",
);
pub const WIRED_LINK_DELAY_MS: Decl = other(
    "wired.links[].delay_ms",
    "number",
    Def::Derived(|| "wired.delay_ms".to_string()),
    Allowed::Text(NON_NEGATIVE),
    "ms",
    "This link's one-way delay.",
);
pub const WIRED_LINK_QUEUE_LIMIT: Decl = other(
    "wired.links[].queue_limit",
    "integer",
    Def::Derived(|| "wired.queue_limit".to_string()),
    Allowed::Ints(2, MAX_COUNT),
    "packets",
    "This link's queue limit.",
);

// --- [wired.tcp_gap] -----------------------------------------------------------------
pub const GAP_ENABLED: Decl =
    flag("wired.tcp_gap.enabled", true, "TCP-GAP (ElRakabawy et al.) at the gateway; pacing uses [tcp.ap].");
pub const GAP_GOODPUT_CONTROL: Decl =
    flag("wired.tcp_gap.goodput_control", gap::DEFAULT_GOODPUT_CONTROL, "Goodput Control (the paper's Fig. 7).");
pub const GAP_THRESHOLD: Decl = num(
    "wired.tcp_gap.threshold",
    gap::DEFAULT_THRESHOLD,
    POSITIVE,
    "× mean goodput",
    "S: a wired-to-wireless flow above this multiple of the mean goodput is throttled to the mean.",
);
pub const GAP_PERIOD_S: Decl =
    num("wired.tcp_gap.period_s", gap::DEFAULT_PERIOD_S, POSITIVE, "s", "Goodput Control's period.");
pub const GAP_AGING: Decl = num(
    "wired.tcp_gap.aging",
    gap::DEFAULT_AGING,
    ">= 0 additive (0: no aging), >= 1 multiplicative (1: no aging)",
    "",
    "The aging's coefficient: a cap grows by aging × G(i)/Gavg packets/s, or by this factor, per period.",
);
pub const GAP_AGING_RULE: Decl = word(
    "wired.tcp_gap.aging_rule",
    "additive",
    &["additive", "multiplicative"],
    "Aging of a throttle cap: Fig. 7 as written (R(i) + 1.1·deviation(i)) or as a growth factor.",
);
pub const GAP_BUFFER_PACKETS: Decl = int(
    "wired.tcp_gap.buffer_packets",
    gap::DEFAULT_BUFFER_PACKETS as u64,
    1,
    100_000_000,
    "packets",
    "Gateway buffer for the pacing queues.",
);
pub const GAP_FLOW_TIMEOUT_S: Decl = num(
    "wired.tcp_gap.flow_timeout_s",
    gap::DEFAULT_FLOW_TIMEOUT_S,
    POSITIVE,
    "s",
    "Soft state: a flow is forgotten after this long without a packet.",
);

/// Tables (and lists of tables) and what they are for, in document order.
pub const TABLES: &[(&str, &str)] = &[
    ("", "Top-level keys."),
    ("topology", "The wireless nodes' positions. Each kind accepts only its own keys."),
    ("radio", "Two-ray ground propagation and the 802.11 PHY."),
    ("mac", "IEEE 802.11 DCF."),
    (
        "mac.link_red",
        "Link RED (Fu et al.); kept in the resolved scenario only while enabled or read by adaptive pacing.",
    ),
    ("mac.adaptive_pacing", "Adaptive pacing (Fu et al.); kept in the resolved scenario only while enabled."),
    ("ip", "The IP layer."),
    ("ip.ldm", "Low Delay Marking (Lee et al.); kept in the resolved scenario only while enabled."),
    ("routing", "Routing."),
    ("routing.aodv", "AODV's constants (ns-2.35); only with routing.protocol = \"aodv\"."),
    ("tcp", "Defaults of every TCP flow; [[flows]] may override some per flow."),
    ("tcp.ap", "TCP-AP (ElRakabawy et al.); kept when a flow or the gateway uses it."),
    ("flows[]", "`[[flows]]`: one entry per flow (or `count` identical ones)."),
    ("random_flows", "Flows between random node pairs drawn from the seed."),
    ("stats", "What is measured and the batch-means stop rule."),
    ("wired", "A wired domain behind one Internet gateway; absent: all wireless."),
    ("wired.links[]", "`[[wired.links]]`: duplex links; absent: a chain from the gateway through the wired nodes."),
    ("wired.tcp_gap", "Gateway Adaptive Pacing at the gateway."),
];

/// Every key the scenario file accepts, in document order.
pub fn declarations() -> Vec<Decl> {
    let mut v = vec![
        NAME,
        DESCRIPTION,
        DURATION_S,
        SEED,
        TOPOLOGY_KIND,
        TOPOLOGY_HOPS,
        TOPOLOGY_SPACING_M,
        TOPOLOGY_ROWS,
        TOPOLOGY_COLS,
        TOPOLOGY_CHAINS,
        TOPOLOGY_CHAIN_GAP_M,
        TOPOLOGY_GATEWAY,
        TOPOLOGY_LEAVES,
        TOPOLOGY_RADIUS_M,
        TOPOLOGY_NODES,
        TOPOLOGY_WIDTH_M,
        TOPOLOGY_HEIGHT_M,
        TOPOLOGY_SEED,
        TOPOLOGY_REQUIRE_CONNECTED,
        TOPOLOGY_POSITIONS,
        RADIO_TX_RANGE_M,
        RADIO_CS_RANGE_M,
        RADIO_CAPTURE_DB,
        RADIO_STANDARD,
        RADIO_DATA_RATE_MBPS,
        RADIO_BASIC_RATE_MBPS,
        RADIO_TX_POWER_W,
        RADIO_FREQUENCY_HZ,
        RADIO_ANTENNA_HEIGHT_M,
        RADIO_SYSTEM_LOSS,
        MAC_RTS_THRESHOLD_BYTES,
        MAC_SHORT_RETRY_LIMIT,
        MAC_LONG_RETRY_LIMIT,
        MAC_QUEUE_LIMIT,
        MAC_CW_MIN,
        MAC_CW_MAX,
        MAC_FRAME_FORMAT,
        MAC_BACKOFF_SLOTS,
        LINK_RED_ENABLED,
        LINK_RED_MIN_TH,
        LINK_RED_MAX_TH,
        LINK_RED_MAX_P,
        LINK_RED_WEIGHT,
        LINK_RED_ACTION,
        PACING_ENABLED,
        PACING_TRIGGER,
        PACING_WAIT,
        PACING_EXTRA,
        IP_TTL,
        IP_LL_DELAY_US,
        LDM_ENABLED,
        LDM_ESTIMATE,
        LDM_K,
        LDM_HOPS_PER_WINDOW,
        LDM_MIN_WINDOW,
        LDM_FLOOR_WINDOW,
        LDM_TARGET_WINDOW,
        LDM_FLOW_BITS,
        LDM_CLEAR_PERIOD_S,
        LDM_INITIAL_TTLS,
        LDM_ACTION,
        ROUTING_PROTOCOL,
        AODV_TTL_START,
        AODV_TTL_INCREMENT,
        AODV_TTL_THRESHOLD,
        AODV_NETWORK_DIAMETER,
        AODV_RREQ_RETRIES,
        AODV_MAX_RREQ_TIMEOUT_S,
        AODV_NODE_TRAVERSAL_TIME_S,
        AODV_ACTIVE_ROUTE_TIMEOUT_S,
        AODV_MY_ROUTE_TIMEOUT_S,
        AODV_REVERSE_ROUTE_LIFE_S,
        AODV_BCAST_ID_SAVE_S,
        AODV_BUFFER_PACKETS,
        AODV_BUFFER_TIMEOUT_S,
        AODV_BROADCAST_JITTER_S,
        AODV_ARP_DELAY_S,
        AODV_PURGE_INTERVAL_S,
        AODV_LOCAL_REPAIR,
        AODV_FIRST_RREQ_NETWORK_WIDE,
        AODV_LINK_DETECTION,
        AODV_HELLO_INTERVAL_S,
        AODV_ALLOWED_HELLO_LOSS,
        TCP_VARIANT,
        TCP_PAYLOAD_BYTES,
        TCP_MAX_WINDOW,
        TCP_ECN,
        TCP_DELAYED_ACK,
        TCP_MIN_RTO_S,
        TCP_INITIAL_WINDOW,
        TCP_INITIAL_SSTHRESH,
        TCP_VEGAS_ALPHA,
        TCP_VEGAS_BETA,
        TCP_VEGAS_GAMMA,
        TCP_BBR_PHASES,
        AP_PROFILE,
        AP_VARIATION,
        AP_ALPHA,
        AP_HOP_FACTOR,
        AP_SHORT_PATH,
        AP_HISTORY,
        AP_OVERHEAD_BYTES,
        AP_DELAY_BOUND_S,
        AP_INITIAL_INTERVAL_S,
        AP_TIMER,
        AP_TIMEOUT_BACKOFF,
        AP_DUPACK_FLUSH,
        FLOW_SRC,
        FLOW_DST,
        FLOW_TRANSPORT,
        FLOW_APP,
        FLOW_RATE_BPS,
        FLOW_PACKET_BYTES,
        FLOW_JITTER,
        FLOW_START_S,
        FLOW_STOP_S,
        FLOW_PAUSES,
        FLOW_MEAN_PAGE_BYTES,
        FLOW_PAGE_SHAPE,
        FLOW_MEAN_THINK_S,
        FLOW_ROUTE,
        FLOW_COUNT,
        FLOW_VARIANT,
        FLOW_PAYLOAD_BYTES,
        FLOW_MAX_WINDOW,
        FLOW_ECN,
        FLOW_DELAYED_ACK,
        FLOW_MIN_RTO_S,
        RF_COUNT,
    ];
    v.extend([
        RF_TRANSPORT,
        RF_APP,
        RF_RATE_BPS,
        RF_PACKET_BYTES,
        RF_JITTER,
        RF_MEAN_PAGE_BYTES,
        RF_PAGE_SHAPE,
        RF_MEAN_THINK_S,
        RF_START_S,
        RF_STOP_S,
        RF_MIN_HOPS,
        RF_MAX_HOPS,
        RF_FLOW_SEED,
        STATS_THROUGHPUT_INTERVAL_S,
        STATS_WARMUP_S,
        STATS_BATCH_PACKETS,
        STATS_BATCHES,
        STATS_BATCH_DISCARD,
        STATS_BATCH_CONFIDENCE,
        STATS_SERIES,
        STATS_AIR_WINDOW_S,
        WIRED_GATEWAY,
        WIRED_NODES,
        WIRED_BANDWIDTH_MBPS,
        WIRED_DELAY_MS,
        WIRED_QUEUE_LIMIT,
        WIRED_LINK_A,
        WIRED_LINK_B,
        WIRED_LINK_BANDWIDTH_MBPS,
        WIRED_LINK_DELAY_MS,
        WIRED_LINK_QUEUE_LIMIT,
        GAP_ENABLED,
        GAP_GOODPUT_CONTROL,
        GAP_THRESHOLD,
        GAP_PERIOD_S,
        GAP_AGING,
        GAP_AGING_RULE,
        GAP_BUFFER_PACKETS,
        GAP_FLOW_TIMEOUT_S,
    ]);
    v
}

/// The declaration of `key` (list entries as `flows[]`; `flows.3.rate_bps` is found too).
#[cfg(test)]
fn find(key: &str) -> Option<Decl> {
    let norm: String =
        key.split('.').map(|p| if p.parse::<usize>().is_ok() { "[]" } else { p }).collect::<Vec<_>>().join(".");
    let norm = norm.replace(".[]", "[]");
    declarations().into_iter().find(|d| d.key == norm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_every_default_writes_out() {
        let all = declarations();
        let mut seen = std::collections::BTreeSet::new();
        for d in &all {
            assert!(seen.insert(d.key), "{} declared twice", d.key);
            assert!(!d.text().default.is_empty() && !d.doc.is_empty(), "{}", d.key);
        }
        assert_eq!(find("flows.3.max_window").map(|d| d.key), Some("flows[].max_window"));
        assert_eq!(find("wired.links.0.a").map(|d| d.key), Some("wired.links[].a"));
    }

    #[test]
    fn word_defaults_are_values_of_their_allowed_list() {
        for d in declarations() {
            if let (Def::Word(w), Allowed::Words(list)) = (d.default, d.allowed) {
                assert!(list.contains(&w), "{}: default {w} not in {list:?}", d.key);
            }
        }
    }

    #[test]
    fn range_errors_name_key_value_and_range() {
        let e = TCP_MAX_WINDOW.check_int("flows.2.max_window", 0).unwrap_err();
        assert_eq!(e.key, "flows.2.max_window");
        assert_eq!(e.message, "`flows.2.max_window` = 0: must be an integer in 1..=1000000");
        assert!(TCP_MAX_WINDOW.check_int("tcp.max_window", 1_000_000).is_ok());
    }
}
