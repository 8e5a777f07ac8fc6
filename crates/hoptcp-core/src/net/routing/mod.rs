//! Routing: which neighbour a packet goes to next. One protocol per run,
//! dispatched by enum (no boxing):
//!
//! - [`StaticRoutes`]: each flow's planned path (shortest hop path or the
//!   flow's explicit `route`), fixed for the run; ACKs take it backwards.
//!   Costs nothing: the next hop is an index into the path.
//! - [`AodvRouting`]: ns-2.35's AODV on every node ([`aodv::Aodv`], a
//!   sans-IO state machine), with its constants and per-flow statistics.
//!
//! The simulator's network layer (`sim/ip.rs`) is the only caller: it asks
//! for a route when a packet is originated or must be forwarded, hands
//! AODV its control messages, MAC link failures, the periodic purge and
//! its timers, and carries out what AODV asks through `sim/route_ctx.rs`.

pub mod aodv;
pub mod static_routes;

pub use static_routes::StaticRoutes;

use crate::engine::{RngStream, StreamPurpose, Time};
use aodv::{Aodv, AodvParams, FlowEvent};

/// The routing protocol a run is configured with (static routes are the
/// flows' planned paths).
#[derive(Clone, Debug, PartialEq)]
pub enum RoutingConfig {
    Static,
    Aodv(AodvParams),
}

/// The routing protocol of a run.
#[derive(Clone, Debug)]
pub enum Routing {
    Static(StaticRoutes),
    Aodv(AodvRouting),
}

impl Routing {
    pub fn is_aodv(&self) -> bool {
        matches!(self, Routing::Aodv(_))
    }

    /// AODV with HELLO-based link-break detection.
    pub fn aodv_hello(&self) -> bool {
        matches!(self, Routing::Aodv(r) if r.params.link_detection == aodv::LinkDetection::Hello)
    }
}

/// Route events of one flow.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FlowRouteStats {
    /// MAC retry-limit failures of the flow's packets (data and ACKs).
    pub route_breaks: u64,
    /// Route discoveries started for the flow's packets.
    pub route_discoveries: u64,
    /// When each route break happened (for the per-interval series).
    #[serde(skip)]
    pub break_times: Vec<Time>,
}

impl FlowRouteStats {
    pub fn note(&mut self, now: Time, ev: FlowEvent) {
        match ev {
            FlowEvent::RouteBreak => {
                self.route_breaks += 1;
                self.break_times.push(now);
            }
            FlowEvent::Discovery => self.route_discoveries += 1,
        }
    }
}

/// AODV on every node of the run.
#[derive(Clone, Debug)]
pub struct AodvRouting {
    pub params: AodvParams,
    /// One state machine per node, indexed by node id.
    pub nodes: Vec<Aodv>,
    /// Per flow, indexed by flow id.
    pub flows: Vec<FlowRouteStats>,
    /// Packet uids of control messages (a range of their own, so data
    /// packets keep the uids they have under static routing).
    pub next_uid: u64,
}

/// First uid of AODV control packets.
pub const CONTROL_UID_BASE: u64 = 1 << 62;

impl AodvRouting {
    pub fn new(params: AodvParams, nodes: usize, flows: usize, seed: u64) -> Self {
        AodvRouting {
            params,
            nodes: (0..nodes as u32)
                .map(|i| Aodv::new(i, RngStream::new(seed, i as u64, StreamPurpose::RoutingJitter)))
                .collect(),
            flows: vec![FlowRouteStats::default(); flows],
            next_uid: CONTROL_UID_BASE,
        }
    }
}
