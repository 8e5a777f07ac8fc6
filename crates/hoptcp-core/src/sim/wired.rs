//! The simulator's wired side (`[wired]`): packets on ns-2 duplex links
//! between the gateway and wired hosts and routers, the gateway's choice of
//! interface, and TCP-GAP (`[wired.tcp_gap]`) on the TCP packets crossing
//! the gateway between its interfaces.
//!
//! Routing between the domains, as ns-2's base-station setups: wired nodes
//! route statically over the links (shortest hop, `wired::WiredNet`), and
//! reach every wireless node through the gateway; a wireless node reaches
//! every wired node through the gateway. Under static routing the flow's
//! path already runs through the gateway. Under AODV a wireless node looks
//! up (and discovers) a route to the gateway for wired destinations, and
//! the gateway acts as the source of packets from the wired side (it
//! buffers them and sends the RREQ): AODV only ever sees wireless ids.
//! None of this runs without `[wired]` (`Simulation::wired` is `None`).

use super::node_ctx::Drops;
use super::{Ev, Simulation, World};
use crate::engine::Slab;
use crate::engine::{EventQueue, Time};
use crate::gateway::tcp_gap::{FlowKey, GapEnv, GapSegment, Gateway, Side};
use crate::net::routing::aodv::DataRef;
use crate::net::routing::Routing;
use crate::net::DropCause;
use crate::wire::TcpSegment;
use crate::wire::{Body, Packet};
use crate::wired::LinkEnv;

/// Which ids are wired, and the gateway that stands for them in AODV.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Domains {
    pub first_wired: u32,
    pub gateway: u32,
}

impl Domains {
    /// No wired domain: every id is wireless.
    pub const WIRELESS: Domains = Domains { first_wired: u32::MAX, gateway: u32::MAX };

    /// The wireless node AODV routes `id` to or from: the gateway for wired ids.
    #[inline]
    pub fn aodv(self, id: u32) -> u32 {
        if id >= self.first_wired {
            self.gateway
        } else {
            id
        }
    }
}

/// TCP-GAP at the gateway: the sans-IO gateway, its timer event (generation,
/// due time) and a reusable list of the packets it forwards.
pub(crate) struct GapState {
    pub gateway: Gateway,
    pub timer: (u32, Option<Time>),
    pub out: Vec<(u32, Side)>,
}

/// A link's view of the simulator: events for the line and the far end.
struct WireCtx<'a> {
    now: Time,
    q: &'a mut EventQueue<Ev>,
    link: u32,
    dir: u8,
    peer: u32,
    refused: bool,
}

impl LinkEnv for WireCtx<'_> {
    fn now(&self) -> Time {
        self.now
    }
    fn on_line(&mut self, packet: u32, tx_end: Time, arrival: Time) {
        self.q.schedule_at(tx_end, Ev::WireTxEnd { link: self.link, dir: self.dir });
        self.q.schedule_at(arrival, Ev::WireRx { node: self.peer, pkt: packet });
    }
    fn dropped(&mut self, _packet: u32) {
        self.refused = true;
    }
}

/// The gateway's view of the simulator.
struct GapCtx<'a> {
    now: Time,
    node: u32,
    packets: &'a mut Slab<Packet>,
    drops: &'a mut Drops,
    out: &'a mut Vec<(u32, Side)>,
}

impl<'a> GapCtx<'a> {
    /// The gateway's view of the world at `now`.
    fn new(now: Time, w: &'a mut World, out: &'a mut Vec<(u32, Side)>) -> Self {
        Self { now, node: w.domains.gateway, packets: &mut w.packets, drops: &mut w.drops, out }
    }
}

impl GapEnv for GapCtx<'_> {
    fn now(&self) -> Time {
        self.now
    }
    fn forward(&mut self, packet: u32, to: Side) {
        self.out.push((packet, to));
    }
    fn set_rtt_wired(&mut self, packet: u32, ms: u16) {
        if let Body::Tcp(seg) = &mut self.packets.get_mut(packet).body {
            seg.rtt_wired_ms = Some(ms);
        }
    }
    fn dropped(&mut self, packet: u32) {
        let pk = self.packets.remove(packet);
        self.drops.record(self.now, self.node, DropCause::QueueOverflow, pk.kind(), Some(&pk));
    }
}

impl Simulation {
    /// Route a packet on from `node` (its source, or a node that received
    /// it; TTL handled) in a hybrid network.
    pub(super) fn route_hybrid(&mut self, now: Time, node: u32, pkt: u32) {
        let w = self.wired.as_ref().expect("wired domain");
        if w.is_wired(node) || (node == w.gateway && w.is_wired(self.w.packets.get(pkt).dst)) {
            self.wire_send(now, node, pkt);
        } else {
            self.route_wireless(now, node, pkt);
        }
    }

    /// As `route_hybrid` for a received packet: a TCP packet crossing the
    /// gateway between its interfaces goes through TCP-GAP when it is on.
    pub(super) fn forward_hybrid(&mut self, now: Time, node: u32, pkt: u32, from_wired: bool) {
        let w = self.wired.as_ref().expect("wired domain");
        let pk = self.w.packets.get(pkt);
        if node == w.gateway && from_wired != w.is_wired(pk.dst) && self.gap.is_some() {
            if let Body::Tcp(seg) = pk.body {
                let from = if from_wired { Side::Wired } else { Side::Wireless };
                self.gap_packet(now, pkt, from, seg);
                return;
            }
        }
        self.route_hybrid(now, node, pkt);
    }

    /// The wireless routing step at `node` (static path or AODV).
    pub(super) fn route_wireless(&mut self, now: Time, node: u32, pkt: u32) {
        let dom = self.w.domains;
        let pk = self.w.packets.get_mut(pkt);
        match &self.w.routing {
            Routing::Static(r) => {
                pk.next_hop = r.node(pk.flow, pk.reverse, pk.hop as usize + 1);
                self.w.q.schedule_in(self.w.ll_delay, Ev::LlDown { node, pkt });
            }
            Routing::Aodv(_) => {
                let d = DataRef {
                    pkt,
                    src: dom.aodv(pk.src),
                    dst: dom.aodv(pk.dst),
                    hops: pk.wireless_hops() as u16,
                    flow: pk.flow,
                };
                self.with_aodv(now, node, |a, p, env| a.resolve(d, p, env));
            }
        }
    }

    /// Put a packet on the wired link from `node` towards its destination
    /// (or towards the gateway for a wireless destination).
    pub(super) fn wire_send(&mut self, now: Time, node: u32, pkt: u32) {
        let w = self.wired.as_mut().expect("wired domain");
        let pk = self.w.packets.get(pkt);
        let to = if w.is_wired(pk.dst) { pk.dst } else { w.gateway };
        let (bytes, kind) = (pk.ip_bytes, pk.kind());
        let Some(l) = w.next_link(node, to) else {
            let pk = self.w.packets.remove(pkt);
            self.w.drops.record(now, node, DropCause::NoRoute, kind, Some(&pk));
            return;
        };
        let link = &mut w.links[l as usize];
        let dir = link.direction(node).expect("link leaves the node");
        let peer = link.ends()[1 - dir];
        let mut env = WireCtx { now, q: &mut self.w.q, link: l, dir: dir as u8, peer, refused: false };
        link.dir(dir).send(pkt, bytes, &mut env);
        if env.refused {
            let pk = self.w.packets.remove(pkt);
            self.w.drops.record(now, node, DropCause::QueueOverflow, kind, Some(&pk));
        }
    }

    /// The packet on link `link`'s direction `dir` has left the line.
    pub(super) fn wire_tx_end(&mut self, now: Time, link: u32, dir: u8) {
        let w = self.wired.as_mut().expect("wired domain");
        let l = &mut w.links[link as usize];
        let peer = l.ends()[1 - dir as usize];
        let mut env = WireCtx { now, q: &mut self.w.q, link, dir, peer, refused: false };
        l.dir(dir as usize).on_tx_end(&mut env);
    }

    fn gap_packet(&mut self, now: Time, pkt: u32, from: Side, seg: TcpSegment) {
        let pk = self.w.packets.get(pkt);
        // Ports: the flow id (one connection per flow).
        let port = pk.flow as u16;
        let gs = GapSegment {
            key: FlowKey { src: pk.src, dst: pk.dst, sport: port, dport: port },
            is_ack: seg.is_ack,
            seq: seg.seq,
            ack: seg.ack,
            payload_bytes: seg.payload_bytes,
            ts: seg.ts,
            fin: false,
            // A TCP segment's flow runs TCP.
            awnd: self.flows[pk.flow as usize].plan.tcp.as_ref().map_or(0, |c| c.max_window),
            wireless_hops: pk.wireless_hops(),
        };
        let mut g = self.gap.take().expect("TCP-GAP on");
        let mut env = GapCtx::new(now, &mut self.w, &mut g.out);
        g.gateway.on_packet(from, pkt, &gs, &mut env);
        self.gap_done(now, g);
    }

    /// TCP-GAP's timer event.
    pub(super) fn gap_timer(&mut self, now: Time, gen: u32) {
        let Some(mut g) = self.gap.take() else { return };
        if g.timer.0 != gen {
            self.gap = Some(g);
            return;
        }
        g.timer.1 = None;
        let mut env = GapCtx::new(now, &mut self.w, &mut g.out);
        g.gateway.on_timer(&mut env);
        self.gap_done(now, g);
    }

    /// After the gateway acted: keep its timer event in step with its
    /// deadline and send on what it forwarded.
    fn gap_done(&mut self, now: Time, mut g: Box<GapState>) {
        let due = g.gateway.next_deadline();
        if due != g.timer.1 {
            g.timer.0 = g.timer.0.wrapping_add(1);
            g.timer.1 = due;
            if let Some(at) = due {
                self.w.q.schedule_at(at.max(now), Ev::GapTimer { gen: g.timer.0 });
            }
        }
        let mut out = std::mem::take(&mut g.out);
        self.gap = Some(g);
        let gw = self.w.domains.gateway;
        for (pkt, side) in out.drain(..) {
            match side {
                Side::Wired => self.wire_send(now, gw, pkt),
                Side::Wireless => self.route_wireless(now, gw, pkt),
            }
        }
        self.gap.as_mut().expect("put back").out = out;
    }
}
