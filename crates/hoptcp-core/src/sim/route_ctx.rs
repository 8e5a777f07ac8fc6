//! The world as one node's AODV sees it: the `AodvEnv` implementation that
//! turns AODV's requests into packets, link-layer events, drops, interface
//! queue flushes and timers. Built from the simulator's parts either by the
//! network layer (`ip.rs`) or, for MAC link failures, by the MAC's context
//! (`node_ctx.rs`).

use super::node_ctx::Drops;
use super::Ev;
use crate::engine::Slab;
use crate::engine::{EventQueue, Time};
use crate::net::routing::aodv::{AodvEnv, AodvMsg, DataRef, FlowEvent};
use crate::net::routing::FlowRouteStats;
use crate::net::{DropCause, IfQueue};
use crate::wire::{Body, Ecn, Packet, PacketKind, NO_FLOW};
use crate::wire::{NodeId, BROADCAST};

pub(crate) struct RouteCtx<'a> {
    pub now: Time,
    pub node: u32,
    pub q: &'a mut EventQueue<Ev>,
    /// This node's interface queue.
    pub ifq: &'a mut IfQueue,
    pub packets: &'a mut Slab<Packet>,
    pub drops: &'a mut Drops,
    pub ll_delay: Time,
    pub flows: &'a mut [FlowRouteStats],
    pub next_uid: &'a mut u64,
}

impl RouteCtx<'_> {
    /// Down to the link layer: the packet reaches the interface queue after
    /// `delay` plus the LL delay (ns-2 schedules the LL after `delay`).
    fn link_down(&mut self, pkt: u32, delay: Time) {
        self.q.schedule_at(self.now + delay + self.ll_delay, Ev::LlDown { node: self.node, pkt });
    }
}

impl AodvEnv for RouteCtx<'_> {
    #[inline]
    fn now(&self) -> Time {
        self.now
    }

    fn send_control(&mut self, msg: AodvMsg, ip_src: NodeId, ip_dst: NodeId, next_hop: NodeId, ttl: u8, delay: Time) {
        let pk = Packet {
            uid: *self.next_uid,
            flow: NO_FLOW,
            src: ip_src,
            dst: ip_dst,
            ip_bytes: msg.ip_bytes(),
            ttl,
            ecn: Ecn::NotEct,
            reverse: false,
            hop: 0,
            wired_hops: 0,
            next_hop,
            body: Body::Aodv(msg),
        };
        *self.next_uid += 1;
        let pkt = self.packets.insert(pk);
        self.link_down(pkt, delay);
    }

    fn send_data(&mut self, d: DataRef, next_hop: NodeId, delay: Time) {
        self.packets.get_mut(d.pkt).next_hop = next_hop;
        self.link_down(d.pkt, delay);
    }

    fn drop_data(&mut self, d: DataRef, cause: DropCause) {
        let pk = self.packets.remove(d.pkt);
        self.drops.record(self.now, self.node, cause, pk.kind(), Some(&pk));
    }

    fn drop_control(&mut self, cause: DropCause) {
        self.drops.record(self.now, self.node, cause, PacketKind::Aodv, None);
    }

    fn flush_queue(&mut self, next_hop: NodeId) {
        // ns-2 matches the packets' next-hop field, which is 0 on AODV's
        // broadcasts: a flush for node 0 takes queued broadcasts too.
        let removed =
            self.ifq.remove_where(self.now, |o| o.next_hop == next_hop || (next_hop == 0 && o.next_hop == BROADCAST));
        for o in removed {
            let pk = self.packets.remove(o.packet);
            self.drops.record(self.now, self.node, DropCause::LinkFailureFlush, pk.kind(), Some(&pk));
        }
    }

    fn set_local_repair_timer(&mut self, at: Time, dst: NodeId) {
        self.q.schedule_at(at, Ev::RouteTimer { node: self.node, dst });
    }

    fn flow_event(&mut self, flow: u32, ev: FlowEvent) {
        if let Some(f) = self.flows.get_mut(flow as usize) {
            f.note(self.now, ev);
        }
    }
}
