//! The resolved scenario: what `validate::resolve` returns, every value
//! checked and every default filled, with no `Option` anywhere. Where the
//! file may leave a key out and leaving it out is itself a setting, an enum
//! names what absence means ([`Given`], [`Inherit`], [`Route`], [`Limit`],
//! [`Topology`]'s kinds, [`Routing`], [`LdmTarget`], [`BatchStop`]).
//!
//! Its serialization is the canonical form hashed into every stored run, so
//! it must stay that of the parsed file with defaults filled: keys left out
//! stay left out, keys in the file's order (for `scenario show`'s TOML).

use super::error::ScenarioError;
use super::schema::{
    self, AodvSpec, ApProfile, AppKind, FlowSpec, LinkRedSpec, MaxWindow, RoutingProtocol, Scenario, TcpVariantSpec,
    TopologyKind, TransportKind,
};
use crate::engine::time::from_secs;
use crate::mac::LinkRedParams;
use crate::net::ldm::LdmEstimate;
use crate::net::MarkAction;
use crate::stats::series::SeriesKind;
use crate::transport::tcp::tcp_ap::{PaceTimer, ShortPath, TcpApConfig, Variation};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

// The tables whose resolved form only fills their defaults are written
// once, in `schema.rs`, by `#[keys(filled = ...)]`.
pub use super::schema::{Mac, Radio, Tcp, Wired, WiredLink};

type R<T> = Result<T, ScenarioError>;

/// A key or table the file may leave out where being left out is itself the
/// setting the canonical form keeps: no table, the mechanism is not
/// configured; no `count`, one flow; no `name`, an unnamed scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum Given<T> {
    Absent,
    Given(T),
}

/// A value taken from an enclosing one unless set here: a flow's TCP keys
/// from `[tcp]`, a placement or pair-draw seed from the run seed, a flow's
/// stop from the run's end, a CBR-over-TCP packet from the segment size.
#[derive(Clone, Debug, PartialEq)]
pub enum Inherit<T> {
    Inherited,
    Own(T),
}

/// An upper bound that may be left out (`random_flows.max_hops`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit<T> {
    Unlimited,
    AtMost(T),
}

impl<T> Given<T> {
    pub fn is_absent(&self) -> bool {
        matches!(self, Given::Absent)
    }
    /// The value, if the file gave it.
    pub fn get(&self) -> Option<&T> {
        match self {
            Given::Absent => None,
            Given::Given(v) => Some(v),
        }
    }
    pub(super) fn from_parsed(v: Option<T>) -> Self {
        v.map_or(Given::Absent, Given::Given)
    }
}

impl<T: Copy> Inherit<T> {
    pub fn is_inherited(&self) -> bool {
        matches!(self, Inherit::Inherited)
    }
    /// This value, or the enclosing one.
    pub fn or(&self, enclosing: T) -> T {
        match self {
            Inherit::Inherited => enclosing,
            Inherit::Own(v) => *v,
        }
    }
    fn from_parsed(v: Option<T>) -> Self {
        v.map_or(Inherit::Inherited, Inherit::Own)
    }
}

// The absent variants are never written (`skip_serializing_if`); the
// present ones are their value, as the parsed file's `Some`.
impl<T: Serialize> Serialize for Given<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Given::Absent => s.serialize_none(),
            Given::Given(v) => v.serialize(s),
        }
    }
}

impl<T: Serialize> Serialize for Inherit<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Inherit::Inherited => s.serialize_none(),
            Inherit::Own(v) => v.serialize(s),
        }
    }
}

impl<T: Serialize> Serialize for Limit<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Limit::Unlimited => s.serialize_none(),
            Limit::AtMost(v) => v.serialize(s),
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Resolved {
    #[serde(skip_serializing_if = "Given::is_absent")]
    pub name: Given<String>,
    #[serde(skip_serializing_if = "Given::is_absent")]
    pub description: Given<String>,
    pub duration_s: f64,
    pub seed: u64,
    pub topology: Topology,
    pub radio: Radio,
    pub mac: Mac,
    pub ip: Ip,
    pub routing: Routing,
    pub tcp: Tcp,
    pub flows: Vec<Flow>,
    #[serde(skip_serializing_if = "Given::is_absent")]
    pub random_flows: Given<RandomFlows>,
    pub stats: Stats,
    #[serde(skip_serializing_if = "Given::is_absent")]
    pub wired: Given<Wired>,
    /// Settings resolution dropped because their table is disabled; kept for
    /// the run's warnings, never part of the canonical form.
    #[serde(skip)]
    pub ignored: Vec<String>,
}

/// `[topology]`, each kind with its own keys.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Topology {
    Chain {
        hops: u32,
        spacing_m: f64,
    },
    Grid {
        spacing_m: f64,
        rows: u32,
        cols: u32,
    },
    Cross {
        hops: u32,
        spacing_m: f64,
    },
    ParallelChains {
        hops: u32,
        spacing_m: f64,
        chains: u32,
        chain_gap_m: f64,
        /// The joining gateway node; left out, none (and the form of
        /// scenarios written before the key existed).
        #[serde(skip_serializing_if = "Given::is_absent")]
        gateway: Given<bool>,
    },
    Star {
        leaves: u32,
        radius_m: f64,
    },
    Random {
        nodes: u32,
        width_m: f64,
        height_m: f64,
        #[serde(skip_serializing_if = "Inherit::is_inherited")]
        topology_seed: Inherit<u64>,
        require_connected: bool,
    },
    Explicit {
        positions: Vec<[f64; 2]>,
    },
}

impl Topology {
    pub fn kind(&self) -> TopologyKind {
        match self {
            Topology::Chain { .. } => TopologyKind::Chain,
            Topology::Grid { .. } => TopologyKind::Grid,
            Topology::Cross { .. } => TopologyKind::Cross,
            Topology::ParallelChains { .. } => TopologyKind::ParallelChains,
            Topology::Star { .. } => TopologyKind::Star,
            Topology::Random { .. } => TopologyKind::Random,
            Topology::Explicit { .. } => TopologyKind::Explicit,
        }
    }
}

/// `[mac.link_red]`: whether it is on, and Link RED's own constants (the
/// same keys, flattened).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LinkRed {
    pub enabled: bool,
    #[serde(flatten)]
    pub params: LinkRedParams,
}

impl From<LinkRedSpec> for LinkRed {
    fn from(r: LinkRedSpec) -> Self {
        LinkRed {
            enabled: r.enabled,
            params: LinkRedParams {
                min_th: r.min_th,
                max_th: r.max_th,
                max_p: r.max_p,
                weight: r.weight,
                action: r.action,
            },
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Ip {
    pub ttl: u32,
    pub ll_delay_us: f64,
    /// Absent unless enabled.
    #[serde(skip_serializing_if = "Given::is_absent")]
    pub ldm: Given<Ldm>,
}

/// What window LDM aims at: the paper's w_opt from the hop and flow
/// estimates, or a fixed one (`ip.ldm.target_window`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LdmTarget {
    Optimal,
    Fixed(f64),
}

impl LdmTarget {
    fn is_optimal(&self) -> bool {
        matches!(self, LdmTarget::Optimal)
    }
}

impl Serialize for LdmTarget {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            LdmTarget::Optimal => s.serialize_none(),
            LdmTarget::Fixed(w) => w.serialize(s),
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Ldm {
    pub enabled: bool,
    pub estimate: LdmEstimate,
    pub k: f64,
    pub hops_per_window: f64,
    pub min_window: f64,
    pub floor_window: f64,
    #[serde(skip_serializing_if = "LdmTarget::is_optimal")]
    pub target_window: LdmTarget,
    pub flow_bits: u32,
    pub clear_period_s: f64,
    pub initial_ttls: Vec<u32>,
    pub action: MarkAction,
}

/// `[routing]`: static paths, or AODV with its constants.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "protocol", rename_all = "snake_case")]
pub enum Routing {
    Static,
    Aodv { aodv: AodvSpec },
}

impl Tcp {
    /// TCP-AP's pacing for a link of `link_rate_bps`: `[tcp.ap]`, present
    /// whenever a flow or the gateway paces (else the default profile's).
    pub fn pacing(&self, link_rate_bps: f64) -> TcpApConfig {
        match &self.ap {
            Given::Given(ap) => ap.config(link_rate_bps),
            Given::Absent => TcpAp::of_profile(ApProfile::default()).config(link_rate_bps),
        }
    }
}

/// `[tcp.ap]` with every key filled from its profile.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TcpAp {
    pub profile: ApProfile,
    pub variation: Variation,
    pub alpha: f64,
    pub hop_factor: u32,
    pub short_path: ShortPath,
    pub history: u32,
    pub overhead_bytes: u32,
    pub delay_bound_s: f64,
    pub initial_interval_s: f64,
    pub timer: PaceTimer,
    pub timeout_backoff: bool,
    pub dupack_flush: bool,
}

impl From<schema::TcpApSpec> for TcpAp {
    fn from(s: schema::TcpApSpec) -> Self {
        TcpAp::from_filled(&s)
    }
}

impl TcpAp {
    /// Every key at its profile's default.
    pub fn of_profile(profile: ApProfile) -> Self {
        let spec = schema::TcpApSpec { profile: Some(profile), ..Default::default() };
        TcpAp::from_filled(&spec.resolved())
    }

    fn from_filled(s: &schema::TcpApSpec) -> Self {
        let d = s.config(0.0);
        let secs = |t: Option<crate::engine::Time>| t.map_or(0.0, |t| t as f64 * 1e-9);
        TcpAp {
            profile: s.profile.unwrap_or_default(),
            variation: d.variation,
            alpha: d.alpha,
            hop_factor: d.hop_factor,
            short_path: d.short_path,
            history: d.history,
            overhead_bytes: d.overhead_bytes,
            delay_bound_s: s.delay_bound_s.unwrap_or(secs(d.delay_bound)),
            initial_interval_s: s.initial_interval_s.unwrap_or(secs(d.initial_interval)),
            timer: d.timer,
            timeout_backoff: d.timeout_backoff,
            dupack_flush: d.dupack_flush,
        }
    }

    /// The pacing configuration for a link of `link_rate_bps` (0 s and
    /// below: no bound, unpaced start).
    pub fn config(&self, link_rate_bps: f64) -> TcpApConfig {
        let time = |s: f64| (s > 0.0).then(|| from_secs(s));
        TcpApConfig {
            variation: self.variation,
            alpha: self.alpha,
            hop_factor: self.hop_factor,
            short_path: self.short_path,
            history: self.history,
            overhead_bytes: self.overhead_bytes,
            delay_bound: time(self.delay_bound_s),
            initial_interval: time(self.initial_interval_s),
            timer: self.timer,
            timeout_backoff: self.timeout_backoff,
            dupack_flush: self.dupack_flush,
            link_rate_bps,
        }
    }
}

/// What a flow's application sends, with the keys of its kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Traffic {
    /// Constant bit rate; over TCP the packet may inherit the segment size.
    Cbr { rate_bps: f64, packet_bytes: Inherit<u32>, jitter: f64 },
    /// Bulk transfer, with the intervals it offers nothing.
    Ftp { pauses: Given<Vec<[f64; 2]>> },
    /// Pages with think times.
    Http { mean_page_bytes: f64, page_shape: f64, mean_think_s: f64 },
}

impl Traffic {
    pub fn app(&self) -> AppKind {
        match self {
            Traffic::Cbr { .. } => AppKind::Cbr,
            Traffic::Ftp { .. } => AppKind::Ftp,
            Traffic::Http { .. } => AppKind::Http,
        }
    }
}

/// A flow's path: the shortest (or discovered), or the one it lists.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    Shortest,
    Explicit(Vec<u32>),
}

/// A flow's own TCP keys; the others come from `[tcp]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpOverrides {
    pub variant: Inherit<TcpVariantSpec>,
    pub payload_bytes: Inherit<u32>,
    pub max_window: Inherit<MaxWindow>,
    pub ecn: Inherit<bool>,
    pub delayed_ack: Inherit<bool>,
    pub min_rto_s: Inherit<f64>,
    pub sack: Inherit<bool>,
}

impl TcpOverrides {
    pub const NONE: TcpOverrides = TcpOverrides {
        variant: Inherit::Inherited,
        payload_bytes: Inherit::Inherited,
        max_window: Inherit::Inherited,
        ecn: Inherit::Inherited,
        delayed_ack: Inherit::Inherited,
        min_rto_s: Inherit::Inherited,
        sack: Inherit::Inherited,
    };

    /// `[tcp]` with these keys applied.
    pub fn apply(&self, tcp: &Tcp) -> Tcp {
        Tcp {
            variant: self.variant.or(tcp.variant),
            payload_bytes: self.payload_bytes.or(tcp.payload_bytes),
            max_window: self.max_window.or(tcp.max_window),
            ecn: self.ecn.or(tcp.ecn),
            delayed_ack: self.delayed_ack.or(tcp.delayed_ack),
            min_rto_s: self.min_rto_s.or(tcp.min_rto_s),
            sack: self.sack.or(tcp.sack),
            ..tcp.clone()
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Flow {
    pub src: u32,
    pub dst: u32,
    pub transport: TransportKind,
    pub traffic: Traffic,
    pub start_s: f64,
    /// Inherited: the run's end.
    pub stop_s: Inherit<f64>,
    pub route: Route,
    /// Absent: one flow.
    pub count: Given<u32>,
    pub tcp: TcpOverrides,
}

impl Flow {
    /// How many flows this entry plans.
    pub fn replicas(&self) -> u32 {
        *self.count.get().unwrap_or(&(FlowSpec::COUNT.int() as u32))
    }
}

/// Writes the keys a flow's kind has, in the file's order.
fn write_traffic<M: SerializeMap>(m: &mut M, t: &Traffic, before_start: bool) -> Result<(), M::Error> {
    match (t, before_start) {
        (Traffic::Cbr { rate_bps, packet_bytes, jitter }, true) => {
            m.serialize_entry("rate_bps", rate_bps)?;
            if let Inherit::Own(p) = packet_bytes {
                m.serialize_entry("packet_bytes", p)?;
            }
            m.serialize_entry("jitter", jitter)
        }
        (Traffic::Http { mean_page_bytes, page_shape, mean_think_s }, false) => {
            m.serialize_entry("mean_page_bytes", mean_page_bytes)?;
            m.serialize_entry("page_shape", page_shape)?;
            m.serialize_entry("mean_think_s", mean_think_s)
        }
        _ => Ok(()),
    }
}

fn write_inherit<M: SerializeMap, T: Serialize + Copy>(
    m: &mut M,
    key: &'static str,
    v: &Inherit<T>,
) -> Result<(), M::Error> {
    match v {
        Inherit::Inherited => Ok(()),
        Inherit::Own(v) => m.serialize_entry(key, v),
    }
}

impl Serialize for Flow {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("src", &self.src)?;
        m.serialize_entry("dst", &self.dst)?;
        m.serialize_entry("transport", &self.transport)?;
        m.serialize_entry("app", &self.traffic.app())?;
        write_traffic(&mut m, &self.traffic, true)?;
        m.serialize_entry("start_s", &self.start_s)?;
        write_inherit(&mut m, "stop_s", &self.stop_s)?;
        if let Traffic::Ftp { pauses: Given::Given(p) } = &self.traffic {
            m.serialize_entry("pauses", p)?;
        }
        write_traffic(&mut m, &self.traffic, false)?;
        if let Route::Explicit(r) = &self.route {
            m.serialize_entry("route", r)?;
        }
        if let Given::Given(c) = &self.count {
            m.serialize_entry("count", c)?;
        }
        let t = &self.tcp;
        write_inherit(&mut m, "variant", &t.variant)?;
        write_inherit(&mut m, "payload_bytes", &t.payload_bytes)?;
        write_inherit(&mut m, "max_window", &t.max_window)?;
        write_inherit(&mut m, "ecn", &t.ecn)?;
        write_inherit(&mut m, "delayed_ack", &t.delayed_ack)?;
        write_inherit(&mut m, "min_rto_s", &t.min_rto_s)?;
        write_inherit(&mut m, "sack", &t.sack)?;
        m.end()
    }
}

/// `[random_flows]`: a flow template and the pair draw.
#[derive(Clone, Debug, PartialEq)]
pub struct RandomFlows {
    pub count: u32,
    pub transport: TransportKind,
    pub traffic: Traffic,
    pub start_s: f64,
    pub stop_s: Inherit<f64>,
    pub min_hops: u32,
    pub max_hops: Limit<u32>,
    /// Inherited: the run seed.
    pub flow_seed: Inherit<u64>,
}

impl RandomFlows {
    /// The flow this template gives between `src` and `dst`.
    pub fn flow(&self, src: u32, dst: u32) -> Flow {
        Flow {
            src,
            dst,
            transport: self.transport,
            traffic: self.traffic.clone(),
            start_s: self.start_s,
            stop_s: self.stop_s.clone(),
            route: Route::Shortest,
            count: Given::Absent,
            tcp: TcpOverrides::NONE,
        }
    }
}

impl Serialize for RandomFlows {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("count", &self.count)?;
        m.serialize_entry("transport", &self.transport)?;
        m.serialize_entry("app", &self.traffic.app())?;
        write_traffic(&mut m, &self.traffic, true)?;
        write_traffic(&mut m, &self.traffic, false)?;
        m.serialize_entry("start_s", &self.start_s)?;
        write_inherit(&mut m, "stop_s", &self.stop_s)?;
        m.serialize_entry("min_hops", &self.min_hops)?;
        if let Limit::AtMost(h) = self.max_hops {
            m.serialize_entry("max_hops", &h)?;
        }
        write_inherit(&mut m, "flow_seed", &self.flow_seed)?;
        m.end()
    }
}

/// Batch means as a stop rule: run to `duration_s`, or until `batches`
/// batches (with the discard count and confidence level) are in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BatchStop {
    RunToEnd,
    Batches { batches: u32, discard: u32, confidence: f64 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Absent: no goodput series.
    pub throughput_interval_s: Given<f64>,
    pub warmup_s: f64,
    /// Absent: no batch record.
    pub batch_packets: Given<u32>,
    pub stop: BatchStop,
    pub series: Vec<SeriesKind>,
    /// Absent: the whole run.
    pub air_window_s: Given<[f64; 2]>,
}

impl Serialize for Stats {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Given::Given(i) = &self.throughput_interval_s {
            m.serialize_entry("throughput_interval_s", i)?;
        }
        m.serialize_entry("warmup_s", &self.warmup_s)?;
        if let Given::Given(p) = &self.batch_packets {
            m.serialize_entry("batch_packets", p)?;
        }
        if let BatchStop::Batches { batches, discard, confidence } = &self.stop {
            m.serialize_entry("batches", batches)?;
            m.serialize_entry("batch_discard", discard)?;
            m.serialize_entry("batch_confidence", confidence)?;
        }
        if !self.series.is_empty() {
            m.serialize_entry("series", &self.series)?;
        }
        if let Given::Given(w) = &self.air_window_s {
            m.serialize_entry("air_window_s", w)?;
        }
        m.end()
    }
}

impl WiredLink {
    pub fn params(&self) -> crate::wired::LinkParams {
        link_params(self.bandwidth_mbps, self.delay_ms, self.queue_limit)
    }
}

/// A wired link's parameters from the file's units (Mb/s, ms).
pub(super) fn link_params(bandwidth_mbps: f64, delay_ms: f64, queue_limit: u32) -> crate::wired::LinkParams {
    crate::wired::LinkParams {
        bandwidth_bps: bandwidth_mbps * 1e6,
        delay: (delay_ms * 1e6).round() as crate::engine::Time,
        queue_limit,
    }
}

// --- From the parsed scenario once `validate` filled it ------------------------------

use super::keys::filled;

impl Resolved {
    /// The Option-free form of a scenario whose defaults `validate` filled.
    pub(super) fn from_filled(sc: Scenario) -> R<Resolved> {
        let radio = sc.radio.fill()?;
        let mac = sc.mac.fill()?;
        let ip = Ip {
            ttl: sc.ip.ttl,
            ll_delay_us: sc.ip.ll_delay_us,
            ldm: Given::from_parsed(sc.ip.ldm.map(|l| Ldm {
                enabled: l.enabled,
                estimate: l.estimate,
                k: l.k,
                hops_per_window: l.hops_per_window,
                min_window: l.min_window,
                floor_window: l.floor_window,
                target_window: l.target_window.map_or(LdmTarget::Optimal, LdmTarget::Fixed),
                flow_bits: l.flow_bits,
                clear_period_s: l.clear_period_s,
                initial_ttls: l.initial_ttls,
                action: l.action,
            })),
        };
        let routing = match sc.routing.protocol {
            RoutingProtocol::Static => Routing::Static,
            RoutingProtocol::Aodv => Routing::Aodv { aodv: filled("routing.aodv", sc.routing.aodv)? },
        };
        let tcp = sc.tcp.fill()?;
        let flows = sc.flows.into_iter().enumerate().map(|(i, f)| flow(&format!("flows.{i}"), f)).collect::<R<_>>()?;
        let random_flows = match sc.random_flows {
            None => Given::Absent,
            Some(rf) => Given::Given(RandomFlows {
                count: rf.count,
                transport: rf.transport,
                traffic: traffic("random_flows", &rf.flow(0, 1))?,
                start_s: rf.start_s,
                stop_s: Inherit::from_parsed(rf.stop_s),
                min_hops: filled("random_flows.min_hops", rf.min_hops)?,
                max_hops: rf.max_hops.map_or(Limit::Unlimited, Limit::AtMost),
                flow_seed: Inherit::from_parsed(rf.flow_seed),
            }),
        };
        let st = sc.stats;
        let stop = match st.batches {
            None => BatchStop::RunToEnd,
            Some(batches) => BatchStop::Batches {
                batches,
                discard: filled("stats.batch_discard", st.batch_discard)?,
                confidence: filled("stats.batch_confidence", st.batch_confidence)?,
            },
        };
        let stats = Stats {
            throughput_interval_s: Given::from_parsed(st.throughput_interval_s),
            warmup_s: st.warmup_s,
            batch_packets: Given::from_parsed(st.batch_packets),
            stop,
            series: st.series,
            air_window_s: Given::from_parsed(st.air_window_s),
        };
        let wired = match sc.wired {
            None => Given::Absent,
            Some(w) => Given::Given(w.fill()?),
        };
        Ok(Resolved {
            name: Given::from_parsed(sc.name),
            description: Given::from_parsed(sc.description),
            duration_s: sc.duration_s,
            seed: sc.seed,
            topology: topology(&sc.topology)?,
            radio,
            mac,
            ip,
            routing,
            tcp,
            flows,
            random_flows,
            stats,
            wired,
            ignored: sc.ignored,
        })
    }
}

/// The kind's own keys of a checked `[topology]` table.
pub(super) fn topology(t: &schema::TopologySpec) -> R<Topology> {
    let spacing_m = || filled("topology.spacing_m", t.spacing_m);
    let hops = || filled("topology.hops", t.hops);
    Ok(match t.kind {
        TopologyKind::Chain => Topology::Chain { hops: hops()?, spacing_m: spacing_m()? },
        TopologyKind::Grid => Topology::Grid {
            spacing_m: spacing_m()?,
            rows: filled("topology.rows", t.rows)?,
            cols: filled("topology.cols", t.cols)?,
        },
        TopologyKind::Cross => Topology::Cross { hops: hops()?, spacing_m: spacing_m()? },
        TopologyKind::ParallelChains => Topology::ParallelChains {
            hops: hops()?,
            spacing_m: spacing_m()?,
            chains: filled("topology.chains", t.chains)?,
            chain_gap_m: filled("topology.chain_gap_m", t.chain_gap_m)?,
            gateway: Given::from_parsed(t.gateway),
        },
        TopologyKind::Star => Topology::Star {
            leaves: filled("topology.leaves", t.leaves)?,
            radius_m: filled("topology.radius_m", t.radius_m)?,
        },
        TopologyKind::Random => Topology::Random {
            nodes: filled("topology.nodes", t.nodes)?,
            width_m: filled("topology.width_m", t.width_m)?,
            height_m: filled("topology.height_m", t.height_m)?,
            topology_seed: Inherit::from_parsed(t.topology_seed),
            require_connected: filled("topology.require_connected", t.require_connected)?,
        },
        TopologyKind::Explicit => Topology::Explicit { positions: filled("topology.positions", t.positions.clone())? },
    })
}

fn traffic(key: &str, f: &schema::FlowSpec) -> R<Traffic> {
    Ok(match filled(&format!("{key}.app"), f.app)? {
        AppKind::Cbr => Traffic::Cbr {
            rate_bps: filled(&format!("{key}.rate_bps"), f.rate_bps)?,
            packet_bytes: Inherit::from_parsed(f.packet_bytes),
            jitter: filled(&format!("{key}.jitter"), f.jitter)?,
        },
        AppKind::Ftp => Traffic::Ftp { pauses: Given::from_parsed(f.pauses.clone()) },
        AppKind::Http => Traffic::Http {
            mean_page_bytes: filled(&format!("{key}.mean_page_bytes"), f.mean_page_bytes)?,
            page_shape: filled(&format!("{key}.page_shape"), f.page_shape)?,
            mean_think_s: filled(&format!("{key}.mean_think_s"), f.mean_think_s)?,
        },
    })
}

fn flow(key: &str, f: schema::FlowSpec) -> R<Flow> {
    Ok(Flow {
        src: f.src,
        dst: f.dst,
        transport: f.transport,
        traffic: traffic(key, &f)?,
        start_s: f.start_s,
        stop_s: Inherit::from_parsed(f.stop_s),
        route: f.route.map_or(Route::Shortest, Route::Explicit),
        count: Given::from_parsed(f.count),
        tcp: TcpOverrides {
            variant: Inherit::from_parsed(f.variant),
            payload_bytes: Inherit::from_parsed(f.payload_bytes),
            max_window: Inherit::from_parsed(f.max_window),
            ecn: Inherit::from_parsed(f.ecn),
            delayed_ack: Inherit::from_parsed(f.delayed_ack),
            min_rto_s: Inherit::from_parsed(f.min_rto_s),
            sack: Inherit::from_parsed(f.sack),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #19: the resolved scenario holds no `Option`; absence is named.
    #[test]
    fn the_resolved_type_has_no_option() {
        let src = include_str!("resolved.rs");
        let types = &src[..src.find("// --- From the parsed scenario").expect("section marker")];
        let fields: Vec<&str> = types
            .lines()
            .filter(|l| !l.trim_start().starts_with("//") && l.contains("Option<"))
            .filter(|l| !l.contains("fn ") && !l.contains("let ") && !l.contains("|t: Option"))
            .collect();
        assert!(fields.is_empty(), "Option in the resolved type: {fields:?}");
    }

    const CHAIN: &str = "[topology]\nkind = \"chain\"\nhops = 3\n[[flows]]\nsrc = 0\ndst = 3\ntransport = \"tcp\"\n";

    #[test]
    fn absent_keys_stay_absent_and_given_ones_stay_given() {
        let json = |o: &[(&str, &str)]| {
            let o: Vec<(String, String)> = o.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            let sc = super::super::parse(CHAIN, &o).unwrap();
            serde_json::to_value(&sc).unwrap()
        };
        let plain = json(&[]);
        let f = &plain["flows"][0];
        for k in ["count", "route", "stop_s", "max_window", "pauses", "rate_bps"] {
            assert!(f.get(k).is_none(), "flows.0.{k} appears unset: {f}");
        }
        assert_eq!(f["app"], "ftp");
        assert_eq!(plain["routing"], serde_json::json!({"protocol": "static"}));
        assert!(plain["topology"].get("topology_seed").is_none());
        // Given at its default, a key stays in the canonical form.
        let given = json(&[("flows.0.count", "1"), ("flows.0.stop_s", "5"), ("flows.0.route", "[0, 1, 2, 3]")]);
        let f = &given["flows"][0];
        assert_eq!((f["count"].as_u64(), f["stop_s"].as_f64()), (Some(1), Some(5.0)));
        assert_eq!(f["route"], serde_json::json!([0, 1, 2, 3]));
        let sc = super::super::parse(CHAIN, &[("flows.0.route".into(), "[0, 1, 2, 3]".into())]).unwrap();
        assert_eq!(sc.flows[0].route, Route::Explicit(vec![0, 1, 2, 3]));
        assert_eq!(sc.flows[0].replicas(), 1);
        let aodv = json(&[("routing.protocol", "\"aodv\"")]);
        assert_eq!(aodv["routing"]["aodv"]["ttl_start"], u64::from(crate::net::routing::aodv::params::TTL_START));
    }
}
