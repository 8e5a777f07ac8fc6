//! The record of a run for plots, viewers and trace writers: the
//! `stats.series` kinds `cwnd`, `ssthresh`, `rtt`, `rto`, `goodput` (per
//! flow), `queue`, `mac` (per node) as change points, and `air`: every frame
//! put on the air, its fate at each intended receiver, and the packet
//! events a wireless trace needs (sent and received by an agent, forwarded,
//! dropped). The simulator holds one only when such a kind is asked for
//! (`Option<Box<RunTrace>>`), so other runs do no work; nothing here
//! schedules events or draws random numbers, so results stay the same.

use super::series::{SeriesKind, SeriesLog, SeriesTable};
use crate::engine::Time;
use crate::transport::TcpSender;
use crate::wire::{Body, Packet, NO_FLOW};
use crate::wire::{Frame, FrameKind, RxFate, BROADCAST};
use serde::Serialize;
use std::collections::BTreeMap;
use strum::VariantNames;

/// The kinds this module records, in report order.
const KINDS: [SeriesKind; 8] = [
    SeriesKind::Cwnd,
    SeriesKind::Ssthresh,
    SeriesKind::Rtt,
    SeriesKind::Rto,
    SeriesKind::Goodput,
    SeriesKind::Queue,
    SeriesKind::Mac,
    SeriesKind::Bbr,
];

/// A flow's last recorded values (NaN / MAX: nothing yet).
#[derive(Clone, Copy, Debug)]
struct FlowLast {
    cwnd: f64,
    cwnd_traced: f64,
    ssthresh: f64,
    rtt_samples: u64,
    rto: Time,
    timeouts: u64,
    retransmissions: u64,
    bytes: u64,
    bbr: [f64; 5],
}

impl Default for FlowLast {
    fn default() -> Self {
        FlowLast {
            cwnd: f64::NAN,
            cwnd_traced: f64::NAN,
            ssthresh: f64::NAN,
            rtt_samples: 0,
            rto: Time::MAX,
            timeouts: 0,
            retransmissions: 0,
            bytes: 0,
            bbr: [f64::NAN; 5],
        }
    }
}

/// A node's last recorded values.
#[derive(Clone, Copy, Debug)]
struct NodeLast {
    queue: usize,
    state: u8,
    retries: u64,
    drops: u64,
}

impl Default for NodeLast {
    fn default() -> Self {
        NodeLast { queue: usize::MAX, state: u8::MAX, retries: 0, drops: 0 }
    }
}

/// A packet as traces show it (a row of [`PacketTable`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PacketRow {
    pub uid: u64,
    /// Index into `crate::wire::packet_kinds()`.
    pub kind: u8,
    pub flow: u32,
    pub src: u32,
    pub dst: u32,
    pub ip_bytes: u32,
    pub ttl: u8,
    /// Hops travelled so far.
    pub hop: u16,
    /// TCP sequence and acknowledgement numbers (packets), UDP sequence.
    pub seq: u64,
    pub ack: u64,
}

impl PacketRow {
    pub fn of(p: &Packet) -> Self {
        let (seq, ack) = match p.body {
            Body::Udp { seq, .. } => (seq, 0),
            Body::Tcp(s) => (s.seq, s.ack),
            Body::Aodv(_) => (0, 0),
        };
        PacketRow {
            uid: p.uid,
            kind: p.kind() as u8,
            flow: p.flow,
            src: p.src,
            dst: p.dst,
            ip_bytes: p.ip_bytes,
            ttl: p.ttl,
            hop: p.hop,
            seq,
            ack,
        }
    }
}

/// A drop as the simulator logs it: time, node, cause
/// (`crate::net::drop_causes()` index), the packet (None: a routing message
/// its caller no longer had).
pub type DropRecord = (Time, u32, u8, Option<PacketRow>);

/// Packets referred to by frames, events and drops, column by column.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PacketTable {
    pub uid: Vec<u64>,
    pub kind: Vec<u8>,
    /// Flow id, -1 for routing messages.
    pub flow: Vec<i64>,
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub ip_bytes: Vec<u32>,
    pub ttl: Vec<u8>,
    pub hop: Vec<u16>,
    pub seq: Vec<u64>,
    pub ack: Vec<u64>,
}

impl PacketTable {
    fn push(&mut self, p: &PacketRow) -> i64 {
        self.uid.push(p.uid);
        self.kind.push(p.kind);
        self.flow.push(if p.flow == NO_FLOW { -1 } else { p.flow as i64 });
        self.src.push(p.src);
        self.dst.push(p.dst);
        self.ip_bytes.push(p.ip_bytes);
        self.ttl.push(p.ttl);
        self.hop.push(p.hop);
        self.seq.push(p.seq);
        self.ack.push(p.ack);
        self.uid.len() as i64 - 1
    }
}

/// Frames put on the air, column by column (times in ns).
#[derive(Clone, Debug, Default, Serialize)]
pub struct FrameTable {
    pub start_ns: Vec<u64>,
    pub airtime_ns: Vec<u64>,
    pub tx: Vec<u32>,
    /// Index into `FrameKind::VARIANTS`.
    pub kind: Vec<u8>,
    /// MAC receiver, -1 for broadcast.
    pub ra: Vec<i64>,
    pub retry: Vec<u8>,
    /// MAC frame length.
    pub bytes: Vec<u32>,
    /// Duration field (NAV), ns.
    pub nav_ns: Vec<u64>,
    /// Row of the carried packet in `packets`, -1 for none.
    pub packet: Vec<i64>,
    /// 1: the MAC gave up on the packet after this attempt (retry limit).
    pub retry_drop: Vec<u8>,
}

/// Each frame's fate at each intended receiver (its addressee, or every
/// node that can decode a broadcast).
#[derive(Clone, Debug, Default, Serialize)]
pub struct FateTable {
    /// Row in `frames`.
    pub frame: Vec<u32>,
    pub node: Vec<u32>,
    /// Index into `RxFate::VARIANTS`.
    pub fate: Vec<u8>,
    /// When it was decided (ns).
    pub t_ns: Vec<u64>,
}

/// Packet events above the MAC (ns-2's AGT and RTR trace levels).
#[derive(Clone, Debug, Default, Serialize)]
pub struct EventTable {
    pub t_ns: Vec<u64>,
    pub node: Vec<u32>,
    /// Index into `PacketEvent::VARIANTS`.
    pub event: Vec<u8>,
    pub packet: Vec<i64>,
}

/// Drops with their cause (`crate::net::drop_causes()` index).
#[derive(Clone, Debug, Default, Serialize)]
pub struct DropTable {
    pub t_ns: Vec<u64>,
    pub node: Vec<u32>,
    pub cause: Vec<u8>,
    pub packet: Vec<i64>,
}

/// Agent sent, agent received, routing forwarded (named in snake case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[repr(u8)]
pub enum PacketEvent {
    AgentSend = 0,
    AgentRecv = 1,
    Forward = 2,
}

/// The `air` kind as the report writes it.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AirTrace {
    pub frame_kinds: &'static [&'static str],
    pub fates: &'static [&'static str],
    pub events: &'static [&'static str],
    pub packet_kinds: Vec<&'static str>,
    pub drop_causes: Vec<&'static str>,
    /// Every wireless node's position (m), by id.
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub frames: FrameTable,
    pub rx: FateTable,
    pub packet_events: EventTable,
    pub drops: DropTable,
    pub packets: PacketTable,
}

pub struct RunTrace {
    logs: BTreeMap<SeriesKind, SeriesLog>,
    flows: Vec<FlowLast>,
    nodes: Vec<NodeLast>,
    /// Per node, its latest frame's row in `air.frames`.
    last_frame: Vec<u32>,
    air: Option<AirTrace>,
    /// The air trace's window: events at `from..=to` only.
    window: (Time, Time),
}

impl RunTrace {
    /// A recorder for the kinds of `kinds` it handles; None if there are none.
    /// `window`: the air trace's (from, to), None for the whole run.
    pub fn new(kinds: &[SeriesKind], flows: usize, nodes: usize, window: Option<(Time, Time)>) -> Option<Self> {
        let logs: BTreeMap<_, _> =
            KINDS.iter().filter(|k| kinds.contains(k)).map(|&k| (k, SeriesLog::default())).collect();
        let air = kinds.contains(&SeriesKind::Air);
        if logs.is_empty() && !air {
            return None;
        }
        Some(RunTrace {
            logs,
            flows: vec![FlowLast::default(); flows],
            nodes: vec![NodeLast::default(); nodes],
            last_frame: vec![u32::MAX; nodes],
            air: air.then(|| AirTrace {
                frame_kinds: FrameKind::VARIANTS,
                fates: RxFate::VARIANTS,
                events: PacketEvent::VARIANTS,
                packet_kinds: crate::wire::packet_kinds().map(|k| k.1).collect(),
                drop_causes: crate::net::drop_causes().map(|k| k.1).collect(),
                ..Default::default()
            }),
            window: window.unwrap_or((0, Time::MAX)),
        })
    }

    pub fn wants(&self, kind: SeriesKind) -> bool {
        self.logs.contains_key(&kind)
    }

    /// Records the air trace (frames, fates, packet events, drops).
    #[inline]
    pub fn air_on(&self) -> bool {
        self.air.is_some()
    }

    #[inline]
    fn in_window(&self, now: Time) -> bool {
        now >= self.window.0 && now <= self.window.1
    }

    fn push(&mut self, kind: SeriesKind, t: Time, id: u32, metric: u8, value: f64) {
        if let Some(log) = self.logs.get_mut(&kind) {
            log.push_index(t, id, metric, value);
        }
    }

    /// Flow `flow`'s TCP sender after it acted at `now`.
    pub fn flow(&mut self, now: Time, flow: u32, s: &TcpSender) {
        let last = self.flows[flow as usize];
        let mut next = last;
        let cwnd = s.cwnd();
        if cwnd != last.cwnd {
            next.cwnd = cwnd;
            self.push(SeriesKind::Cwnd, now, flow, 0, cwnd);
        }
        let traced = s.cwnd_traced();
        if traced != last.cwnd_traced {
            next.cwnd_traced = traced;
            self.push(SeriesKind::Cwnd, now, flow, 1, traced);
        }
        let ss = s.ssthresh();
        if ss != last.ssthresh {
            next.ssthresh = ss;
            self.push(SeriesKind::Ssthresh, now, flow, 0, ss);
        }
        let (samples, last_rtt) = s.rtt_samples();
        if samples != last.rtt_samples {
            next.rtt_samples = samples;
            self.push(SeriesKind::Rtt, now, flow, 0, last_rtt);
        }
        let rto = s.rto();
        if rto != last.rto {
            next.rto = rto;
            self.push(SeriesKind::Rto, now, flow, 0, crate::engine::time::to_secs(rto));
        }
        let (timeouts, retx) = s.loss_counts();
        if timeouts != last.timeouts {
            next.timeouts = timeouts;
            self.push(SeriesKind::Rto, now, flow, 1, timeouts as f64);
        }
        if retx != last.retransmissions {
            next.retransmissions = retx;
            self.push(SeriesKind::Rto, now, flow, 2, retx as f64);
        }
        if let Some(now_values) = s.bbr_point() {
            for (m, (&v, last)) in now_values.iter().zip(next.bbr.iter_mut()).enumerate() {
                if v != *last {
                    *last = v;
                    self.push(SeriesKind::Bbr, now, flow, m as u8, v);
                }
            }
        }
        self.flows[flow as usize] = next;
    }

    /// Flow `flow` has delivered `bytes` of payload in all by `now`.
    pub fn goodput(&mut self, now: Time, flow: u32, bytes: u64) {
        let last = &mut self.flows[flow as usize].bytes;
        if bytes != *last {
            *last = bytes;
            self.push(SeriesKind::Goodput, now, flow, 0, bytes as f64);
        }
    }

    /// Node `node`'s interface queue, MAC activity (`Dcf::activity`'s
    /// number), retransmissions and drops so far.
    pub fn node(&mut self, now: Time, node: u32, queue: usize, state: u8, retries: u64, drops: u64) {
        let last = self.nodes[node as usize];
        if queue != last.queue {
            self.push(SeriesKind::Queue, now, node, 0, queue as f64);
        }
        if state != last.state {
            self.push(SeriesKind::Mac, now, node, 0, state as f64);
        }
        if retries != last.retries {
            self.push(SeriesKind::Mac, now, node, 1, retries as f64);
        }
        if drops != last.drops {
            self.push(SeriesKind::Mac, now, node, 2, drops as f64);
        }
        self.nodes[node as usize] = NodeLast { queue, state, retries, drops };
    }

    /// `node` put `frame` on the air at `now`; `packet` is a DATA frame's.
    pub fn frame(&mut self, now: Time, node: u32, frame: &Frame, packet: Option<&Packet>) {
        if !self.in_window(now) {
            // Its fates are outside the trace too.
            self.last_frame[node as usize] = u32::MAX;
            return;
        }
        let Some(air) = self.air.as_mut() else { return };
        let row = packet.map_or(-1, |p| air.packets.push(&PacketRow::of(p)));
        let f = &mut air.frames;
        self.last_frame[node as usize] = f.start_ns.len() as u32;
        f.start_ns.push(now);
        f.airtime_ns.push(frame.airtime);
        f.tx.push(node);
        f.kind.push(match frame.kind {
            FrameKind::Rts => 0,
            FrameKind::Cts => 1,
            FrameKind::Data => 2,
            FrameKind::Ack => 3,
        });
        f.ra.push(if frame.ra == BROADCAST { -1 } else { frame.ra as i64 });
        f.retry.push(frame.retry as u8);
        f.bytes.push(frame.bytes);
        f.nav_ns.push(frame.nav);
        f.packet.push(row);
        f.retry_drop.push(0);
    }

    /// `frame`'s fate at `node`, if `node` is one of its intended receivers
    /// (a transmitter has one frame on the air at a time: its latest).
    pub fn fate(&mut self, now: Time, node: u32, frame: &Frame, fate: RxFate) {
        let Some(air) = self.air.as_mut() else { return };
        let intended = frame.ra == node || (frame.ra == BROADCAST && fate != RxFate::BelowThreshold);
        let row = self.last_frame.get(frame.ta as usize).copied().unwrap_or(u32::MAX);
        if !intended || row == u32::MAX {
            return;
        }
        air.rx.frame.push(row);
        air.rx.node.push(node);
        air.rx.fate.push(fate as u8);
        air.rx.t_ns.push(now);
    }

    /// `node`'s MAC gave up on its packet after its latest frame.
    pub fn retry_drop(&mut self, node: u32) {
        let Some(air) = self.air.as_mut() else { return };
        if let Some(&row) = self.last_frame.get(node as usize).filter(|&&r| r != u32::MAX) {
            air.frames.retry_drop[row as usize] = 1;
        }
    }

    pub fn packet_event(&mut self, now: Time, node: u32, ev: PacketEvent, p: &Packet) {
        if !self.in_window(now) {
            return;
        }
        let Some(air) = self.air.as_mut() else { return };
        let row = air.packets.push(&PacketRow::of(p));
        let e = &mut air.packet_events;
        e.t_ns.push(now);
        e.node.push(node);
        e.event.push(ev as u8);
        e.packet.push(row);
    }

    /// A drop of `p` (None: a routing message not kept) at `node`.
    pub fn drop(&mut self, now: Time, node: u32, cause: u8, p: Option<&PacketRow>) {
        if !self.in_window(now) {
            return;
        }
        let Some(air) = self.air.as_mut() else { return };
        let row = p.map_or(-1, |p| air.packets.push(p));
        let d = &mut air.drops;
        d.t_ns.push(now);
        d.node.push(node);
        d.cause.push(cause);
        d.packet.push(row);
    }

    /// The series tables of the recorded kinds.
    pub fn tables(&self) -> impl Iterator<Item = (SeriesKind, SeriesTable)> + '_ {
        self.logs.iter().map(|(&k, log)| (k, SeriesTable::from_log(k, log, |i| i)))
    }

    /// The air trace, with `drops` (the run's drop log) and every node's
    /// position (m) added.
    pub fn take_air(
        &mut self,
        drops: Option<Vec<DropRecord>>,
        positions: &[crate::phy::channel::Position],
    ) -> Option<AirTrace> {
        for (t, node, cause, p) in drops.into_iter().flatten() {
            self.drop(t, node, cause, p.as_ref());
        }
        let mut air = self.air.take()?;
        air.x = positions.iter().map(|p| p.x).collect();
        air.y = positions.iter().map(|p| p.y).collect();
        Some(air)
    }
}
