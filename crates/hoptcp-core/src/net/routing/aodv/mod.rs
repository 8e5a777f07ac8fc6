//! AODV as ns-2.35 runs it (aodv/aodv.cc), as a sans-IO state machine: one
//! [`Aodv`] per node. It never touches the event queue, the interface queue
//! or other nodes; everything it does to the world goes through
//! [`AodvEnv`] (send a control message or a data packet after a delay, drop
//! a packet, flush the interface queue for a next hop, arm the local-repair
//! timer). The simulator calls it when a data packet needs a route
//! ([`Aodv::resolve`]), a control message arrives ([`Aodv::recv`]), the MAC
//! gives up on a data packet ([`Aodv::link_failed`]), the periodic purge
//! runs ([`Aodv::purge`]) and a local-repair timer expires.
//!
//! ns-2.35's configuration, all reproduced: no HELLO messages (link breaks
//! are learnt from MAC retry-limit failures), local repair on, expanding
//! ring search, a 64-packet request buffer, RREQ/RERR broadcast jitter.
//! Optionally (`link_detection = "hello"`) links break when HELLOs stop,
//! as in ns-2.35 built without AODV_LINK_LAYER_DETECTION (`neighbors.rs`).
//! Files: `rreq.rs` (discovery and requests), `rrep.rs` (replies),
//! `rerr.rs` (errors), `table.rs`, `rqueue.rs` (request buffer), `seen.rs`
//! (duplicate suppression), `params.rs` (constants); the messages and their
//! sizes, and their RFC 3561 encoding for traces, are in `wire/`.
//!
//! ns-2.35 artefacts reproduced on purpose (see docs/aodv.md): the first
//! RREQ to a destination is network-wide (`first_rreq_network_wide`); the
//! local-repair timer is armed with an absolute time as its delay, so it
//! fires at about twice the current time; an intermediate node's reply
//! lifetime is cast from a double to u32 as C does.

mod neighbors;
pub(crate) mod params;
mod rerr;
mod rqueue;
mod rrep;
mod rreq;
mod seen;
mod table;

#[cfg(test)]
mod tests;

#[cfg(test)]
use crate::wire::aodv::RERR_CAPACITY;
pub use crate::wire::aodv::{AodvMsg, Rerr, Rrep, Rreq};
pub use params::{AodvParams, LinkDetection};
#[cfg(test)]
use table::RouteEntry;
pub use table::{RouteState, INFINITY};

use crate::engine::{RngStream, Time};
use crate::net::DropCause;
use crate::wire::NodeId;
use neighbors::NeighborTable;
use rqueue::RequestBuffer;
use seen::BroadcastIdCache;
use table::RouteTable;

/// A data packet as AODV sees it: a handle into the simulator's packet
/// store and the header fields routing needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataRef {
    /// The simulator's handle (slab index); AODV only hands it back.
    pub pkt: u32,
    pub src: NodeId,
    pub dst: NodeId,
    /// Hops travelled so far (ns-2 `num_forwards`): 0 at the source.
    pub hops: u16,
    /// The flow it belongs to (for per-flow statistics).
    pub flow: u32,
}

/// Events counted per flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowEvent {
    /// The MAC gave up on one of the flow's packets: a link break for AODV.
    RouteBreak,
    /// A route discovery started for one of the flow's packets.
    Discovery,
}

/// The world as one node's AODV sees it.
pub trait AodvEnv {
    fn now(&self) -> Time;
    /// Send a new control message down to the link layer after `delay`
    /// (`ip_dst`/`next_hop` = [`crate::wire::BROADCAST`] for broadcasts).
    fn send_control(&mut self, msg: AodvMsg, ip_src: NodeId, ip_dst: NodeId, next_hop: NodeId, ttl: u8, delay: Time);
    /// Send data packet `d` to `next_hop` after `delay`.
    fn send_data(&mut self, d: DataRef, next_hop: NodeId, delay: Time);
    /// `d` is lost.
    fn drop_data(&mut self, d: DataRef, cause: DropCause);
    /// The control message being processed is discarded.
    fn drop_control(&mut self, cause: DropCause);
    /// Drop every packet of this node's interface queue that waits for
    /// `next_hop` (ns-2 PriQueue::filter).
    fn flush_queue(&mut self, next_hop: NodeId);
    /// Call [`Aodv::local_repair_timeout`] with `dst` at `at`.
    fn set_local_repair_timer(&mut self, at: Time, dst: NodeId);
    /// A per-flow event (statistics only).
    fn flow_event(&mut self, flow: u32, ev: FlowEvent);
}

/// Per-node AODV counters.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct AodvCounters {
    /// RREQs this node originated (first tries and retries).
    pub rreq_sent: u64,
    /// Of other nodes' RREQs, those rebroadcast.
    pub rreq_forwarded: u64,
    /// RREQ copies heard (duplicates and own ones included).
    pub rreq_received: u64,
    /// RREPs originated (as the destination or from a fresh route).
    pub rrep_sent: u64,
    pub rrep_forwarded: u64,
    /// RREPs received (addressed to this node as next hop).
    pub rrep_received: u64,
    /// RERRs originated after a link break or for a packet without route.
    pub rerr_sent: u64,
    /// RERRs sent on upstream after receiving one.
    pub rerr_forwarded: u64,
    pub rerr_received: u64,
    /// MAC retry-limit failures of data packets (link breaks seen by AODV).
    pub route_breaks: u64,
    /// Of those, handled by local repair (the packet is buffered).
    pub local_repairs: u64,
    /// Route discoveries started (a first RREQ for a destination).
    pub route_discoveries: u64,
    /// Discoveries abandoned after the last retry (buffered packets dropped).
    pub discoveries_failed: u64,
    /// Valid routes invalidated (link break, RERR, local-repair timeout).
    pub routes_invalidated: u64,
    /// Valid routes that expired unused.
    pub routes_expired: u64,
}

impl std::ops::AddAssign<&AodvCounters> for AodvCounters {
    fn add_assign(&mut self, c: &AodvCounters) {
        self.rreq_sent += c.rreq_sent;
        self.rreq_forwarded += c.rreq_forwarded;
        self.rreq_received += c.rreq_received;
        self.rrep_sent += c.rrep_sent;
        self.rrep_forwarded += c.rrep_forwarded;
        self.rrep_received += c.rrep_received;
        self.rerr_sent += c.rerr_sent;
        self.rerr_forwarded += c.rerr_forwarded;
        self.rerr_received += c.rerr_received;
        self.route_breaks += c.route_breaks;
        self.local_repairs += c.local_repairs;
        self.route_discoveries += c.route_discoveries;
        self.discoveries_failed += c.discoveries_failed;
        self.routes_invalidated += c.routes_invalidated;
        self.routes_expired += c.routes_expired;
    }
}

/// One node's AODV.
#[derive(Clone, Debug)]
pub struct Aodv {
    pub id: NodeId,
    /// Own sequence number (ns-2 starts at 2 and keeps it even).
    seqno: u32,
    /// Next broadcast id.
    bid: u32,
    table: RouteTable,
    seen: BroadcastIdCache,
    buffer: RequestBuffer,
    /// Neighbours heard from (HELLO detection only).
    neighbors: NeighborTable,
    /// Broadcast jitter (and HELLO intervals).
    rng: RngStream,
    pub counters: AodvCounters,
}

impl Aodv {
    pub fn new(id: NodeId, rng: RngStream) -> Self {
        Aodv {
            id,
            seqno: 2,
            bid: 1,
            table: RouteTable::default(),
            seen: BroadcastIdCache::default(),
            buffer: RequestBuffer::default(),
            neighbors: NeighborTable::default(),
            rng,
            counters: AodvCounters::default(),
        }
    }

    // ----- observers -------------------------------------------------------

    #[cfg(test)] // only the unit tests read it
    /// The routing-table entry for `dst`, if any.
    pub fn route(&self, dst: NodeId) -> Option<&RouteEntry> {
        self.table.get(dst)
    }

    #[cfg(test)] // only the unit tests read it
    /// The next hop of a valid route to `dst`.
    pub fn next_hop(&self, dst: NodeId) -> Option<NodeId> {
        self.route(dst).filter(|r| r.state == RouteState::Up).map(|r| r.next_hop)
    }

    #[cfg(test)] // only the unit tests read it
    pub fn seqno(&self) -> u32 {
        self.seqno
    }

    #[cfg(test)] // only the unit tests read it
    /// Whether `id` is a known neighbour (HELLO detection).
    pub fn is_neighbor(&self, id: NodeId) -> bool {
        self.neighbors.contains(id)
    }

    #[cfg(test)] // only the unit tests read it
    /// Packets waiting for a route.
    pub fn buffered(&self) -> usize {
        self.buffer.len()
    }

    pub fn has_routes(&self) -> bool {
        !self.table.is_empty()
    }

    fn initial_last_hop_count(p: &AodvParams) -> u16 {
        if p.first_rreq_network_wide {
            INFINITY
        } else {
            0
        }
    }

    fn entry(&mut self, dst: NodeId, p: &AodvParams) -> usize {
        self.table.lookup_or_add(dst, Self::initial_last_hop_count(p))
    }

    fn jitter(&mut self, p: &AodvParams) -> Time {
        (self.rng.uniform() * p.broadcast_jitter as f64) as Time
    }

    /// Install a valid route and close a pending discovery (ns-2 rt_update).
    fn install(&mut self, i: usize, seqno: u32, hops: u16, next_hop: NodeId, expire: Time) {
        let rt = &mut self.table[i];
        rt.update(seqno, hops, next_hop, expire);
        rt.discovery_since = None;
    }

    fn invalidate(&mut self, i: usize) {
        if self.table[i].down() {
            self.counters.routes_invalidated += 1;
        }
    }

    // ----- data packets ----------------------------------------------------

    /// Route data packet `d` at this node, originated here or to forward
    /// (ns-2 rt_resolve; the caller has done the TTL and loop checks): send
    /// it on a valid route, buffer it while a route is sought or repaired,
    /// or drop it and tell upstream neighbours with a RERR.
    pub fn resolve(&mut self, d: DataRef, p: &AodvParams, env: &mut impl AodvEnv) {
        let i = self.entry(d.dst, p);
        match self.table[i].state {
            RouteState::Up => self.forward_data(i, d, 0, p, env),
            _ if d.src == self.id => {
                self.buffer.enqueue(d, p.buffer_packets, p.buffer_timeout, env);
                self.send_request(d.dst, d.flow, p, env);
            }
            RouteState::InRepair => self.buffer.enqueue(d, p.buffer_packets, p.buffer_timeout, env),
            RouteState::Down => {
                let mut e = Rerr::default();
                e.push(d.dst, self.table[i].seqno);
                self.counters.rerr_sent += 1;
                env.send_control(AodvMsg::Rerr(e), self.id, crate::wire::BROADCAST, crate::wire::BROADCAST, 1, 0);
                env.drop_data(d, DropCause::NoRoute);
            }
        }
    }

    /// Send `d` on the valid route `i`, refreshing its lifetime (ns-2
    /// forward with a route).
    fn forward_data(&mut self, i: usize, d: DataRef, delay: Time, p: &AodvParams, env: &mut impl AodvEnv) {
        let rt = &mut self.table[i];
        rt.expire = env.now() + p.active_route_timeout;
        env.send_data(d, rt.next_hop, delay);
    }

    /// Send every buffered packet for route `i` (valid), spaced by ARP_DELAY
    /// starting at `*delay`.
    fn flush_buffer(&mut self, i: usize, delay: &mut Time, p: &AodvParams, env: &mut impl AodvEnv) {
        let dst = self.table[i].dst;
        while let Some(d) = self.buffer.dequeue(dst, env) {
            self.forward_data(i, d, *delay, p, env);
            *delay += p.arp_delay;
        }
    }

    // ----- control messages ------------------------------------------------

    /// A control message arrived (`ttl` already decremented by this hop).
    pub fn recv(
        &mut self,
        msg: AodvMsg,
        ip_src: NodeId,
        ip_dst: NodeId,
        ttl: u8,
        p: &AodvParams,
        env: &mut impl AodvEnv,
    ) {
        match msg {
            AodvMsg::Rreq(rq) => self.recv_request(rq, ip_src, ttl, p, env),
            AodvMsg::Rrep(rp) => self.recv_reply(rp, ip_src, ip_dst, ttl, p, env),
            AodvMsg::Rerr(re) => self.recv_error(&re, ip_src, p, env),
            AodvMsg::Hello(rp) => self.recv_hello(&rp, p, env),
        }
    }

    // ----- link failures ---------------------------------------------------

    /// The MAC gave up on data packet `d` sent to `broken` (ns-2
    /// rt_ll_failed). If the break is nearer the destination than the
    /// source, repair locally: buffer the packet and look for a new route.
    /// Otherwise drop it (with the MAC's `cause`), drop every queued packet
    /// for that neighbour, invalidate the routes through it and send a RERR.
    /// With HELLO detection the packet is only dropped: links break when
    /// HELLOs stop (`neighbors.rs`).
    pub fn link_failed(
        &mut self,
        d: DataRef,
        broken: NodeId,
        cause: DropCause,
        p: &AodvParams,
        env: &mut impl AodvEnv,
    ) {
        if p.link_detection == LinkDetection::Hello {
            env.drop_data(d, cause);
            return;
        }
        self.counters.route_breaks += 1;
        env.flow_event(d.flow, FlowEvent::RouteBreak);
        let Some(i) = self.table.lookup(d.dst) else {
            env.drop_data(d, cause);
            return;
        };
        if p.local_repair && d.hops > self.table[i].hops {
            self.local_repair(i, d, p, env);
            return;
        }
        env.drop_data(d, cause);
        env.flush_queue(broken);
        // ns-2 nb_delete: the neighbour set changed.
        self.seqno += 2;
        self.handle_link_failure(broken, p, env);
    }

    /// Buffer `d`, mark route `i` under repair and send a RREQ for its
    /// destination (ns-2 local_rt_repair).
    fn local_repair(&mut self, i: usize, d: DataRef, p: &AodvParams, env: &mut impl AodvEnv) {
        self.counters.local_repairs += 1;
        self.buffer.enqueue(d, p.buffer_packets, p.buffer_timeout, env);
        self.table[i].state = RouteState::InRepair;
        let dst = self.table[i].dst;
        self.send_request(dst, d.flow, p, env);
        // ns-2 passes rt_req_timeout, an absolute time, as the timer's delay.
        let at = env.now() + self.table[i].req_timeout;
        env.set_local_repair_timer(at, dst);
    }

    /// The local-repair timer for `dst` expired: a route still not repaired
    /// is brought down.
    pub fn local_repair_timeout(&mut self, dst: NodeId) {
        if let Some(i) = self.table.lookup(dst) {
            if self.table[i].state != RouteState::Up {
                self.invalidate(i);
            }
        }
    }

    /// Invalidate every route through `id` and report them in a RERR (ns-2
    /// handle_link_failure); `id` leaves every precursor list.
    fn handle_link_failure(&mut self, id: NodeId, p: &AodvParams, env: &mut impl AodvEnv) {
        let mut e = Rerr::default();
        for i in self.table.newest_first() {
            let rt = &mut self.table[i];
            if rt.hops != INFINITY && rt.next_hop == id {
                rt.seqno += 1;
                let (dst, seqno) = (rt.dst, rt.seqno);
                self.invalidate(i);
                self.push_rerr(&mut e, dst, seqno, false, p, env);
            }
            self.table[i].remove_precursor(id);
        }
        if !e.is_empty() {
            self.send_error(e, false, p, env);
        }
    }

    // ----- periodic purge --------------------------------------------------

    /// The route-cache timer (every `purge_interval` from time 0): expire
    /// unused routes (dropping what waits for them), send what waits for
    /// valid routes, and retry discoveries that have packets waiting.
    pub fn purge(&mut self, p: &AodvParams, env: &mut impl AodvEnv) {
        let now = env.now();
        let mut delay = 0;
        for i in self.table.newest_first() {
            let (state, expire, dst) = (self.table[i].state, self.table[i].expire, self.table[i].dst);
            if state == RouteState::Up && expire < now {
                while let Some(d) = self.buffer.dequeue(dst, env) {
                    env.drop_data(d, DropCause::NoRoute);
                }
                self.table[i].seqno += 1;
                self.table[i].down();
                self.counters.routes_expired += 1;
            } else if state == RouteState::Up {
                self.flush_buffer(i, &mut delay, p, env);
            } else if let Some(d) = self.buffer.find(dst) {
                let flow = d.flow;
                self.send_request(dst, flow, p, env);
            }
        }
    }
}
