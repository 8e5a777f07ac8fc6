//! The simulator's network layer, ns-2's node entry and routing agent:
//! packets leaving their source (`originate`), packets arriving from the
//! link layer (`net_receive`: local delivery, routing messages, TTL and
//! loop checks, forwarding) and the interface queue (`enqueue`).
//!
//! The routing seam: `originate` and the forwarding step of `net_receive`
//! ask the run's [`Routing`] for the next hop. Static routes answer at once
//! (an index into the flow's path); AODV answers through its state machine,
//! which may send the packet now, later (after discovery) or drop it, and
//! acts on the world through [`RouteCtx`]. A mechanism acting on forwarded
//! packets (e.g. marking at IP forwarding) belongs at the forwarding step,
//! after the TTL decrement and before the routing decision, where `hop`
//! (hops travelled) and `ttl` are current.

use super::route_ctx::RouteCtx;
use super::{Ev, Simulation};
use crate::engine::Time;
use crate::engine::{RngStream, StreamPurpose};
use crate::mac::Outgoing;
use crate::net::ldm::{Forwarded, LdmConfig, LdmCounters, LdmEstimate, LdmNode, LdmParams, Oracle};
use crate::net::routing::aodv::{Aodv, AodvParams, DataRef};
use crate::net::routing::{AodvRouting, Routing};
use crate::net::DropCause;
use crate::scenario::FlowPlan;
use crate::stats::run_trace::PacketEvent;
use crate::wire::BROADCAST;
use crate::wire::{ecn, Body, Ecn, MarkAction, Packet, PacketKind, SignalOutcome};

/// Low Delay Marking over the run: each node's marker, and for the oracle
/// the true counts (from the static plan: each flow's path length, and the
/// number of flows whose planned path crosses each node).
pub(crate) struct LdmRun {
    params: LdmParams,
    action: MarkAction,
    oracle: bool,
    nodes: Vec<LdmNode>,
    flow_hops: Vec<u32>,
    node_flows: Vec<u32>,
}

impl LdmRun {
    pub fn new(cfg: LdmConfig, flows: &[FlowPlan], n_nodes: usize, seed: u64) -> Self {
        let params = cfg.params;
        let mut node_flows = vec![0u32; n_nodes];
        for f in flows {
            for &v in &f.path {
                node_flows[v as usize] += 1;
            }
        }
        LdmRun {
            nodes: (0..n_nodes as u64)
                .map(|i| LdmNode::new(&params, RngStream::new(seed, i, StreamPurpose::Ldm)))
                .collect(),
            params,
            action: cfg.action,
            oracle: cfg.estimate == LdmEstimate::Oracle,
            flow_hops: flows.iter().map(|f| f.path.len().saturating_sub(1) as u32).collect(),
            node_flows,
        }
    }

    pub fn counters(&self, node: usize) -> LdmCounters {
        self.nodes[node].counters
    }
}

impl Simulation {
    /// Run `f` on `node`'s AODV with a context giving it the rest of the
    /// world (nothing under static routing).
    pub(super) fn with_aodv(&mut self, now: Time, node: u32, f: impl FnOnce(&mut Aodv, &AodvParams, &mut RouteCtx)) {
        let Routing::Aodv(r) = &mut self.w.routing else { return };
        let AodvRouting { params, nodes, flows, next_uid } = r;
        let mut env = RouteCtx {
            now,
            node,
            q: &mut self.w.q,
            ifq: &mut self.nodes.get_mut(node).ifq,
            packets: &mut self.w.packets,
            drops: &mut self.w.drops,
            ll_delay: self.w.ll_delay,
            flows,
            next_uid,
        };
        f(&mut nodes[node as usize], params, &mut env);
        self.observe_node(now, node);
    }

    /// Originate a packet of `flow` at its source (or its destination when
    /// `reverse`) and route it.
    pub(super) fn originate(&mut self, now: Time, flow: u32, reverse: bool, ip_bytes: u32, ecn: Ecn, body: Body) {
        let f = &self.flows[flow as usize];
        let (src, dst) = if reverse { (f.plan.dst, f.plan.src) } else { (f.plan.src, f.plan.dst) };
        let (ttl, next_hop) = match &self.w.routing {
            Routing::Static(r) => (self.ttl, r.node(flow, reverse, 1)),
            // ns-2's AODV gives every packet it originates TTL = NETWORK_DIAMETER.
            Routing::Aodv(r) => (r.params.network_diameter, BROADCAST),
        };
        let pk = Packet {
            uid: self.next_uid,
            flow,
            src,
            dst,
            ip_bytes,
            ttl,
            ecn,
            reverse,
            hop: 0,
            wired_hops: 0,
            next_hop,
            body,
        };
        self.next_uid += 1;
        if let Some(r) = self.w.rec.as_deref_mut() {
            r.packet_event(now, src, PacketEvent::AgentSend, &pk);
        }
        let pkt = self.w.packets.insert(pk);
        if self.wired.is_some() {
            self.route_hybrid(now, src, pkt);
            return;
        }
        match self.w.routing {
            Routing::Static(_) => self.w.q.schedule_in(self.w.ll_delay, Ev::LlDown { node: src, pkt }),
            Routing::Aodv(_) => {
                let d = DataRef { pkt, src, dst, hops: 0, flow };
                self.with_aodv(now, src, |a, p, env| a.resolve(d, p, env));
            }
        }
    }

    /// Network layer at `node`: a routing message, a packet for this node,
    /// or one to forward; `from_wired`: it came over a wired link.
    pub(super) fn net_receive(&mut self, now: Time, node: u32, pkt: u32, from_wired: bool) {
        let pk = self.w.packets.get_mut(pkt);
        if let Body::Aodv(msg) = pk.body {
            let pk = self.w.packets.remove(pkt);
            let ttl = pk.ttl.saturating_sub(1);
            self.with_aodv(now, node, |a, p, env| a.recv(msg, pk.src, pk.dst, ttl, p, env));
            return;
        }
        // Hops travelled (ns-2's num_forwards, counted at each reception);
        // under static routing also the packet's index on its path.
        pk.hop += 1;
        if node == pk.dst {
            let pk = self.w.packets.remove(pkt);
            if let Some(r) = self.w.rec.as_deref_mut() {
                r.packet_event(now, node, PacketEvent::AgentRecv, &pk);
            }
            self.deliver(now, pk);
            return;
        }
        let cause = if pk.src == node {
            Some(DropCause::RouteLoop)
        } else if pk.ttl <= 1 {
            Some(DropCause::Ttl)
        } else {
            None
        };
        if let Some(cause) = cause {
            let kind = pk.kind();
            let pk = self.w.packets.remove(pkt);
            self.w.drops.record(now, node, cause, kind, Some(&pk));
            return;
        }
        pk.ttl -= 1;
        if let Some(r) = self.w.rec.as_deref_mut() {
            r.packet_event(now, node, PacketEvent::Forward, pk);
        }
        // LDM marks at wireless forwarders only (wired ids come after them).
        if self.ldm.is_some() && node < self.w.domains.first_wired && !self.ldm_forward(now, node, pkt) {
            return;
        }
        if self.wired.is_some() {
            self.forward_hybrid(now, node, pkt, from_wired);
            return;
        }
        let pk = self.w.packets.get_mut(pkt);
        match &self.w.routing {
            Routing::Static(r) => {
                debug_assert_eq!(r.node(pk.flow, pk.reverse, pk.hop as usize), node);
                pk.next_hop = r.node(pk.flow, pk.reverse, pk.hop as usize + 1);
                self.w.q.schedule_in(self.w.ll_delay, Ev::LlDown { node, pkt });
            }
            Routing::Aodv(_) => {
                let d = DataRef { pkt, src: pk.src, dst: pk.dst, hops: pk.hop, flow: pk.flow };
                self.with_aodv(now, node, |a, p, env| a.resolve(d, p, env));
            }
        }
    }

    /// LDM at a forwarding node (the paper's "on receiving packet p", after
    /// the TTL decrement): maybe signal congestion. False if it dropped the
    /// packet.
    fn ldm_forward(&mut self, now: Time, node: u32, pkt: u32) -> bool {
        let Some(l) = self.ldm.as_mut() else { return true };
        let pk = self.w.packets.get_mut(pkt);
        let kind = pk.kind();
        let fw = Forwarded {
            src: pk.src,
            dst: pk.dst,
            port: pk.flow,
            ttl: pk.ttl,
            data: matches!(kind, PacketKind::TcpData | PacketKind::Udp),
        };
        let oracle =
            l.oracle.then(|| Oracle { hops: l.flow_hops[pk.flow as usize], flows: l.node_flows[node as usize] });
        let m = &mut l.nodes[node as usize];
        if !m.decide(now, &fw, oracle, &l.params) {
            return true;
        }
        match ecn::signal(l.action, &mut pk.ecn) {
            SignalOutcome::Marked => {
                m.counters.ldm_marks += 1;
                true
            }
            SignalOutcome::Passed => true,
            SignalOutcome::Dropped => {
                m.counters.ldm_drops += 1;
                let pk = self.w.packets.remove(pkt);
                self.w.drops.record(now, node, DropCause::Ldm, kind, Some(&pk));
                false
            }
        }
    }

    /// A packet arrives at `node`'s interface queue (ns-2 PriQueue::recv:
    /// routing messages to the head, then hand the head to the MAC if it is
    /// free).
    pub(super) fn enqueue(&mut self, now: Time, node: u32, pkt: u32) {
        let pk = self.w.packets.get(pkt);
        let out = Outgoing { packet: pkt, ip_bytes: pk.ip_bytes, next_hop: pk.next_hop };
        let priority = !pk.is_data();
        let n = self.nodes.get_mut(node);
        if let Err(o) = n.ifq.enqueue(now, out, priority) {
            let pk = self.w.packets.remove(o.packet);
            self.w.drops.record(now, node, DropCause::QueueOverflow, pk.kind(), Some(&pk));
            if !priority {
                self.observe_node(now, node);
                return;
            }
        }
        let n = self.nodes.get_mut(node);
        if !n.ifq.blocked {
            let head = n.ifq.dequeue(now).expect("just enqueued");
            n.ifq.blocked = true;
            n.load.taken(now);
            self.with_node(now, node, |mac, p, ctx| mac.send(head, p, ctx));
        } else {
            self.observe_node(now, node);
        }
    }

    /// AODV's route-cache timer on every node (ns-2 runs one per node, all
    /// in step from time 0), then the next one.
    pub(super) fn route_tick(&mut self, now: Time) {
        let Routing::Aodv(r) = &self.w.routing else { return };
        let interval = r.params.purge_interval;
        for node in 0..self.nodes.len() as u32 {
            let Routing::Aodv(r) = &self.w.routing else { return };
            if r.nodes[node as usize].has_routes() {
                self.with_aodv(now, node, |a, p, env| a.purge(p, env));
            }
        }
        self.w.q.schedule_at(now + interval, Ev::RouteTick);
    }

    /// `node`'s HELLO timer: send a HELLO, then the next one.
    pub(super) fn hello(&mut self, now: Time, node: u32) {
        let mut next = None;
        self.with_aodv(now, node, |a, p, env| next = Some(a.hello_timer(p, env)));
        if let Some(dt) = next {
            self.w.q.schedule_at(now + dt, Ev::Hello { node });
        }
    }

    /// The neighbour timer on every node (ns-2 runs one per node, all in
    /// step from time 0, every HELLO_INTERVAL), then the next one.
    pub(super) fn neighbor_tick(&mut self, now: Time) {
        let Routing::Aodv(r) = &self.w.routing else { return };
        let interval = r.params.hello_interval;
        for node in 0..self.nodes.len() as u32 {
            self.with_aodv(now, node, |a, p, env| a.neighbor_purge(p, env));
        }
        self.w.q.schedule_at(now + interval, Ev::NeighborTick);
    }
}
