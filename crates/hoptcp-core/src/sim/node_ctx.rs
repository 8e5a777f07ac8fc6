//! The world as one node's MAC sees it: the `MacEnv` implementation that
//! turns MAC actions into events, channel transmissions, queue pulls and
//! statistics.

use super::air::Transmission;
use super::route_ctx::RouteCtx;
use super::{mac_timer_slot, Ev, World};
use crate::engine::Time;
use crate::mac::{MacDrop, MacEnv, MacTimer, Outgoing, TxResult};
use crate::net::routing::aodv::DataRef;
use crate::net::routing::{AodvRouting, Routing};
use crate::net::{DropCause, IfQueue, N_DROP_CAUSES};
use crate::stats::pcap::PcapTrace;
use crate::stats::run_trace::{DropRecord, PacketRow, RunTrace};
use crate::wire::Frame;
use crate::wire::{Packet, PacketKind, N_PACKET_KINDS};
use std::collections::BTreeMap;

/// How much work a node's MAC did: packets taken from the queue, and the
/// time it held one (its backlog).
#[derive(Clone, Debug, Default)]
pub(crate) struct NodeLoad {
    pub mac_packets: u64,
    pub busy_since: Option<Time>,
    pub busy_total: Time,
}

impl NodeLoad {
    pub fn taken(&mut self, now: Time) {
        self.mac_packets += 1;
        self.busy_since = Some(now);
    }

    pub fn released(&mut self, now: Time) {
        if let Some(s) = self.busy_since.take() {
            self.busy_total += now - s;
        }
    }

    /// Busy time up to `now`, counting a packet still held.
    pub fn busy_until(&self, now: Time) -> Time {
        self.busy_total + self.busy_since.map_or(0, |s| now - s)
    }
}

/// Drop counters by node, cause and packet kind, and the MAC's retry-limit
/// drops per wireless link.
#[derive(Clone, Debug)]
pub(crate) struct Drops {
    /// Nodes with at least one drop (ordered: reports are deterministic).
    pub by_node: BTreeMap<u32, [u64; N_DROP_CAUSES]>,
    pub by_kind: [[u64; N_DROP_CAUSES]; N_PACKET_KINDS],
    /// (transmitter, next hop) → retry-limit drops by packet kind
    /// (ElRakabawy et al.'s Table 2); ordered, so reports are deterministic.
    pub by_link: BTreeMap<(u32, u32), [u64; N_PACKET_KINDS]>,
    /// With the air trace on: every drop (time, node, cause, the packet
    /// unless it was a routing message the caller no longer had).
    pub log: Option<Vec<DropRecord>>,
}

impl Drops {
    pub fn new() -> Self {
        Drops {
            by_node: BTreeMap::new(),
            by_kind: [[0; N_DROP_CAUSES]; N_PACKET_KINDS],
            by_link: BTreeMap::new(),
            log: None,
        }
    }

    /// A drop at `node` at `now`, of `pkt` (for the air trace) or of a
    /// packet of `kind`.
    pub fn record(&mut self, now: Time, node: u32, cause: DropCause, kind: PacketKind, pkt: Option<&Packet>) {
        self.by_node.entry(node).or_insert([0; N_DROP_CAUSES])[cause as usize] += 1;
        self.by_kind[kind as usize][cause as usize] += 1;
        if let Some(log) = self.log.as_mut() {
            log.push((now, node, cause as u8, pkt.map(PacketRow::of)));
        }
    }

    /// A frame the MAC gave up on after its retry limit, toward `next_hop`.
    /// Drops at `node` by cause (all zero if it dropped nothing).
    pub fn of_node(&self, node: u32) -> [u64; N_DROP_CAUSES] {
        self.by_node.get(&node).copied().unwrap_or([0; N_DROP_CAUSES])
    }

    pub fn record_link(&mut self, node: u32, next_hop: u32, kind: PacketKind) {
        self.by_link.entry((node, next_hop)).or_default()[kind as usize] += 1;
    }
}

pub(crate) struct NodeCtx<'a> {
    pub now: Time,
    pub node: u32,
    /// The queue, the air, packets, drops, routing and traces.
    pub w: &'a mut World,
    pub ifq: &'a mut IfQueue,
    pub load: &'a mut NodeLoad,
    /// The node's pending reception timer, mirrored for group RxEnd events.
    pub recv_due: &'a mut (Time, u32),
    /// Inside a group RxStart: reception timers are covered by the group's
    /// RxEnd event; set to true when one is started.
    pub batch_rx: Option<&'a mut bool>,
}

/// An open pcap trace and the first error writing it (reported at the end).
pub(crate) struct Trace {
    pub pcap: PcapTrace,
    pub data_rate_bps: f64,
    pub basic_rate_bps: f64,
    pub standard: crate::mac::Standard,
    pub error: Option<std::io::Error>,
}

/// The air trace, when it is recorded (the MAC sees no other series).
#[inline]
fn air(rec: &mut Option<Box<RunTrace>>) -> Option<&mut RunTrace> {
    rec.as_deref_mut().filter(|r| r.air_on())
}

impl NodeCtx<'_> {
    /// Record a frame this node sends or receives on its trace interface.
    #[inline]
    fn trace_frame(&mut self, frame: &Frame) {
        if let Some(tr) = self.w.trace.as_mut() {
            let data = frame.kind == crate::wire::FrameKind::Data;
            let rate = if data && frame.ra != crate::wire::BROADCAST { tr.data_rate_bps } else { tr.basic_rate_bps };
            let packet = data.then(|| self.w.packets.get(frame.packet));
            if let Err(e) = tr.pcap.record(self.node, self.now, frame, rate, tr.standard, packet) {
                tr.error.get_or_insert(e);
            }
        }
    }
}

impl MacEnv for NodeCtx<'_> {
    #[inline]
    fn now(&self) -> Time {
        self.now
    }

    #[inline]
    fn set_timer(&mut self, timer: MacTimer, at: Time, gen: u32) {
        if timer == MacTimer::Recv {
            *self.recv_due = (at, gen);
            if let Some(locked) = self.batch_rx.as_deref_mut() {
                *locked = true;
                // The group's RxEnd event delivers it; an earlier expiry is stale.
                self.w.q.cancel(mac_timer_slot(self.w.mac_slot_base, self.node, timer));
                return;
            }
        }
        self.w.q.arm(
            mac_timer_slot(self.w.mac_slot_base, self.node, timer),
            at,
            Ev::Mac { node: self.node, timer: timer as u8, gen },
        );
    }

    fn cancel_timer(&mut self, timer: MacTimer) {
        self.w.q.cancel(mac_timer_slot(self.w.mac_slot_base, self.node, timer));
    }

    fn transmit(&mut self, frame: &Frame) {
        self.trace_frame(frame);
        if let Some(r) = air(&mut self.w.rec) {
            let packet = (frame.kind == crate::wire::FrameKind::Data).then(|| self.w.packets.get(frame.packet));
            r.frame(self.now, self.node, frame, packet);
        }
        let groups = self.w.channel.groups(self.node);
        if groups.is_empty() {
            return;
        }
        // One queue entry for the frame; each arrival group is ordered as if
        // its own event had been scheduled now (`air.rs`).
        let first_seq = self.w.q.reserve(groups.len() as u32);
        let tx = self.w.txs.insert(Transmission {
            frame: *frame,
            tx_node: self.node,
            sent: self.now,
            first_seq,
            next_group: 0,
            ends_done: 0,
        });
        self.w.q.schedule_seq(self.now + groups[0].delay, first_seq, Ev::Air { tx, step: 0 });
    }

    fn pull_next(&mut self) -> Option<Outgoing> {
        match self.ifq.dequeue(self.now) {
            Some(o) => {
                self.load.taken(self.now);
                Some(o)
            }
            None => {
                self.ifq.blocked = false;
                None
            }
        }
    }

    #[inline]
    fn received(&mut self, frame: &Frame) {
        self.trace_frame(frame);
    }

    fn deliver_up(&mut self, frame: &Frame) {
        let copy = *self.w.packets.get(frame.packet);
        let pkt = self.w.packets.insert(copy);
        self.w.q.schedule_at(self.now + self.w.ll_delay, Ev::LlUp { node: self.node, pkt });
    }

    fn packet_done(&mut self, out: &Outgoing, result: TxResult) {
        self.load.released(self.now);
        if let (Some(r), TxResult::Dropped { .. }) = (air(&mut self.w.rec), result) {
            r.retry_drop(self.node);
        }
        let cause = match result {
            TxResult::Acked { .. } | TxResult::Broadcast => {
                self.w.packets.remove(out.packet);
                return;
            }
            TxResult::Dropped { reason: MacDrop::RtsRetry, .. } => DropCause::MacRtsRetry,
            TxResult::Dropped { reason: MacDrop::DataRetry, .. } => DropCause::MacDataRetry,
            TxResult::EarlyDrop => DropCause::LinkRed,
        };
        if cause != DropCause::LinkRed {
            let kind = self.w.packets.get(out.packet).kind();
            self.w.drops.record_link(self.node, out.next_hop, kind);
        }
        // AODV is told of every data packet the MAC gave up on (ns-2's
        // xmit-failure callback; not Link RED's early drops, which are no
        // link failure); it decides the packet's fate before the MAC takes
        // the next packet from the queue.
        if let (Routing::Aodv(r), false) = (&mut self.w.routing, cause == DropCause::LinkRed) {
            let pk = self.w.packets.get(out.packet);
            if pk.is_data() {
                let dom = self.w.domains;
                let d = DataRef {
                    pkt: out.packet,
                    src: dom.aodv(pk.src),
                    dst: dom.aodv(pk.dst),
                    hops: pk.wireless_hops() as u16,
                    flow: pk.flow,
                };
                let AodvRouting { params, nodes, flows, next_uid } = r;
                let mut env = RouteCtx {
                    now: self.now,
                    node: self.node,
                    q: &mut self.w.q,
                    ifq: &mut *self.ifq,
                    packets: &mut self.w.packets,
                    drops: &mut self.w.drops,
                    ll_delay: self.w.ll_delay,
                    flows,
                    next_uid,
                };
                nodes[self.node as usize].link_failed(d, out.next_hop, cause, params, &mut env);
                return;
            }
        }
        let pk = self.w.packets.remove(out.packet);
        self.w.drops.record(self.now, self.node, cause, pk.kind(), Some(&pk));
    }

    fn mark_ce(&mut self, out: &Outgoing) -> bool {
        crate::wire::ecn::mark_ce(&mut self.w.packets.get_mut(out.packet).ecn)
    }

    #[inline]
    fn records(&self) -> bool {
        self.w.rec.as_ref().is_some_and(|r| r.air_on())
    }

    #[inline]
    fn rx_fate(&mut self, frame: &Frame, fate: crate::wire::RxFate) {
        if let Some(r) = air(&mut self.w.rec) {
            r.fate(self.now, self.node, frame, fate);
        }
    }
}
