//! TCP-GAP at the Internet gateway (ElRakabawy, Klemm, Lindemann 2008,
//! §4.2–4.4 and Fig. 7): transport-layer functions added to the IP layer
//! of the node joining a multihop wireless network to the wired Internet.
//!
//! - **Flow table** keyed by the 5-tuple (TCP implied): a flow is created by
//!   its first data packet; its direction is the side the data came from.
//! - **Wireless-to-wired flows** (wireless TCP sender running TCP-AP): the
//!   gateway notes when each data packet leaves for the wired side (T1);
//!   when the wired receiver's ACK comes back (T2) it writes
//!   RTT_wired = T2 − T1 (ms, 16 bits) into the ACK's TCP option, so the
//!   sender can subtract it from its RTT.
//! - **Wired-to-wireless flows** (unmodified wired sender): data wait in a
//!   per-flow FIFO *pacing queue* and leave for the wireless side at the
//!   TCP-AP rate, computed here from RTT_wireless = ACK arrival − release
//!   time and the hops to the wireless receiver (Eqs. 1–5, shared
//!   [`RateEstimator`]). §4.3's buffer rule: each paced flow reserves its
//!   receiver window awnd_i of the gateway buffer (Σ awnd_i in all); a flow
//!   that finds the buffer full is forwarded unpaced until space frees up.
//! - **Soft state**: a flow is forgotten after a FIN from each end, or when
//!   no packet of it was seen for `flow_timeout` ("a few minutes").
//! - **Goodput Control** (§4.4, Fig. 7): every `period` (5 s) the gateway
//!   computes each flow's goodput G(i) from the ACKs it forwards and their
//!   mean Gavg. A wired-to-wireless flow with G(i)/Gavg > S (1.1) is
//!   throttled: its pacing rate is capped at Gavg. A throttled flow is
//!   released when the flows that were below the mean have not gained since
//!   the throttle began (checked first, so a useless cap is released rather
//!   than lowered again); if they gained and it is still above S × Gavg it
//!   is re-capped at the new mean; otherwise its cap ages: by Fig. 7's line
//!   "R(i) + 1.1 * deviation(i)", read literally (`aging_rule` additive: the
//!   cap in packets per second grows by `aging` × G(i)/Gavg), or as a growth
//!   factor (multiplicative: × `aging`). A flow starting or ending resets all
//!   throttles.
//!
//! Choices where the paper is silent or garbled (docs/model.md lists them):
//! ACKs are paired with the data packet that triggered them by the echoed
//! send time (TCP's timestamp option) rather than by sequence number alone,
//! which is ambiguous for duplicate ACKs and retransmissions; Fig. 7's
//! aging line "R(i) + 1.1·deviation(i)" adds a ratio to a rate without a
//! unit: the default reads it as written, in packets per second (as the
//! independent ns-2.35 port does), and `aging_rule = "multiplicative"` is
//! the other reading the text allows ("with increasing time the degree of
//! throttling decreases", §4.4); Fig. 7's local retransmission on
//! duplicate ACKs (lines 22–24) is not implemented: the text describes
//! TCP-GAP as keeping TCP's end-to-end semantics and never mentions it.
//!
//! # Contract for the simulator
//!
//! The gateway sees packets as `u32` handles plus a [`GapSegment`] view of
//! their headers, and acts through [`GapEnv`]:
//!
//! 1. every TCP packet the gateway node would forward between its wired
//!    and wireless interface goes to [`Gateway::on_packet`] instead, with
//!    the side it came from; the gateway either forwards it at once
//!    ([`GapEnv::forward`] to the other side, after
//!    [`GapEnv::set_rtt_wired`] on ACKs) or queues it for pacing;
//! 2. after every call, [`Gateway::next_deadline`] says when the gateway
//!    needs [`Gateway::on_timer`] next (pacing releases, the goodput
//!    period, soft-state expiry); keep one event with a generation counter
//!    as for the TCP timers. A deadline of 0 means "now".
//! 3. [`GapSegment::wireless_hops`] is the hop count between the gateway
//!    and the flow's wireless end (from routing, or 1 + the TTL decrements
//!    of an ACK from that end); [`GapSegment::awnd`] the receiver window in
//!    packets (hoptcp's `max_window`).

use crate::engine::time::from_secs;
use crate::engine::{Time, NS_PER_S};
use crate::stats::series::{LastValues, PacingMetric, SeriesLog};
use crate::transport::tcp::tcp_ap::{Pacer, RateEstimator, TcpApConfig};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

/// A TCP flow's identity: addresses and ports (protocol TCP implied).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FlowKey {
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
}

impl FlowKey {
    /// The same connection seen from the other end.
    pub fn reversed(self) -> Self {
        FlowKey { src: self.dst, dst: self.src, sport: self.dport, dport: self.sport }
    }
}

/// The gateway's interfaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Wired,
    Wireless,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Wired => Side::Wireless,
            Side::Wireless => Side::Wired,
        }
    }
}

/// Which way a flow's data go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    WiredToWireless,
    WirelessToWired,
}

/// The header fields the gateway reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GapSegment {
    /// This packet's addresses and ports.
    pub key: FlowKey,
    /// A pure ACK (receiver → sender); otherwise a data segment.
    pub is_ack: bool,
    pub seq: u64,
    /// Cumulative ACK (ACKs).
    pub ack: u64,
    pub payload_bytes: u32,
    /// Data: when the sender sent it; ACK: the echoed send time of the data
    /// packet that triggered it (TCP timestamps).
    pub ts: Time,
    pub fin: bool,
    /// Receiver's advertised window (packets).
    pub awnd: u32,
    /// Hops between the gateway and the flow's wireless end.
    pub wireless_hops: u32,
}

/// What the gateway asks of the simulator.
pub trait GapEnv {
    fn now(&self) -> Time;
    /// Send `packet` on through the interface `to`.
    fn forward(&mut self, packet: u32, to: Side);
    /// Write RTT_wired (ms) into the TCP option of the ACK `packet` (before
    /// it is forwarded).
    fn set_rtt_wired(&mut self, packet: u32, ms: u16);
    /// A flow's pacing queue was full: `packet` is dropped.
    fn dropped(&mut self, packet: u32);
}

/// The gateway's defaults (the scenario's `[wired.tcp_gap]` keys read them):
/// Goodput Control every 5 s with S = 1.1 (Fig. 7), caps aged by
/// 1.1 × deviation packets per second a period (Fig. 7 as written), a buffer of 200 flows × 64 packets (§4.3's example, 37 MB of
/// 1460-byte segments), flows forgotten after 120 s.
pub const DEFAULT_GOODPUT_CONTROL: bool = true;
pub const DEFAULT_THRESHOLD: f64 = 1.1;
pub const DEFAULT_PERIOD_S: f64 = 5.0;
pub const DEFAULT_AGING: f64 = 1.1;
pub const DEFAULT_AGING_RULE: AgingRule = AgingRule::Additive;
pub const DEFAULT_BUFFER_PACKETS: u32 = 200 * 64;
pub const DEFAULT_FLOW_TIMEOUT_S: f64 = 120.0;

/// How a throttle cap ages each period (Fig. 7, line 55: "perform aging by
/// increasing rate of flow i to R(i) + 1.1 * deviation(i)").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum AgingRule {
    /// As written: cap (packets/s) += aging × G(i)/Gavg.
    Additive,
    /// The aging as a growth factor: cap ×= aging.
    Multiplicative,
}

/// Goodput Control's parameters (Fig. 7: 5 s, S = 1.1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct GoodputControl {
    pub period: Time,
    /// S: a flow may get this multiple of the mean goodput.
    pub threshold: f64,
    /// The aging's coefficient (Fig. 7's 1.1).
    pub aging: f64,
    pub aging_rule: AgingRule,
}

impl Default for GoodputControl {
    fn default() -> Self {
        GoodputControl {
            period: from_secs(DEFAULT_PERIOD_S),
            threshold: DEFAULT_THRESHOLD,
            aging: DEFAULT_AGING,
            aging_rule: DEFAULT_AGING_RULE,
        }
    }
}

/// The gateway's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct GapConfig {
    /// Rate estimator and pace timer (link rate = the wireless interface's).
    pub pacing: TcpApConfig,
    /// Gateway buffer for pacing queues (packets), shared by Σ awnd_i.
    pub buffer_packets: u32,
    /// Soft state: forget a flow after this long without a packet.
    pub flow_timeout: Time,
    /// None: TCP-GAP without Goodput Control.
    pub goodput_control: Option<GoodputControl>,
}

impl GapConfig {
    #[cfg(test)] // only the unit tests read it
    /// The paper's gateway: TCP-AP's paper formula and the defaults above.
    pub fn paper(link_rate_bps: f64) -> Self {
        GapConfig {
            pacing: TcpApConfig::paper(link_rate_bps),
            buffer_packets: DEFAULT_BUFFER_PACKETS,
            flow_timeout: from_secs(DEFAULT_FLOW_TIMEOUT_S),
            goodput_control: Some(GoodputControl::default()),
        }
    }
}

/// Per-flow statistics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GapFlowStats {
    pub key: FlowKey,
    pub direction: Direction,
    /// Admitted to pacing (wired-to-wireless flows within the buffer).
    pub paced: bool,
    pub start_s: f64,
    /// When the flow was forgotten (FIN or timeout); null while active.
    pub end_s: Option<f64>,
    pub data_packets: u64,
    pub acks: u64,
    /// RTT_wired written into ACKs, or RTT_wireless samples taken.
    pub rtt_samples: u64,
    pub paced_packets: u64,
    pub mean_pacing_delay_s: f64,
    pub max_pacing_delay_s: f64,
    pub max_queue: u32,
    pub queue_drops: u64,
    pub rate_pps: Option<f64>,
    pub fhd_s: Option<f64>,
    pub variation: f64,
    /// Times Goodput Control throttled the flow, and its current cap (pkt/s).
    pub throttles: u64,
    pub throttle_pps: Option<f64>,
}

/// The gateway's statistics.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GatewayStats {
    /// Every flow seen, in order of creation.
    pub flows: Vec<GapFlowStats>,
    pub flows_expired: u64,
    pub flows_finished: u64,
    /// Goodput-control periods, throttles applied, throttles cancelled for
    /// lack of improvement, and resets by a flow starting or ending.
    pub control_periods: u64,
    pub throttles: u64,
    pub cancels: u64,
    pub resets: u64,
    /// Most buffer reserved (packets) and most packets queued at once.
    pub max_reserved: u32,
    pub max_queued: u32,
}

/// A data packet waiting to be paced.
type Held = (u32, u64, Time);

/// A data packet the gateway sent on, kept until an ACK covers it.
#[derive(Clone, Copy, Debug)]
struct Sent {
    seq: u64,
    /// The sender's send time (TCP timestamp), which its ACK echoes.
    ts: Time,
    /// When the gateway sent it on.
    at: Time,
    /// An ACK was already paired with it.
    paired: bool,
}

#[derive(Clone, Debug)]
struct Flow {
    key: FlowKey,
    dir: Direction,
    last_seen: Time,
    /// Data packets sent on, oldest first.
    sent: VecDeque<Sent>,
    awnd: u32,
    reserved: u32,
    paced: bool,
    payload: u32,
    est: RateEstimator,
    pacer: Pacer<Held>,
    highest_ack: Option<u64>,
    acked_bytes: u64,
    /// Goodput over the last period (bit/s).
    goodput: f64,
    /// A data packet of the flow reached the gateway this period: the flow
    /// competes (an HTTP flow between pages does not).
    sending: bool,
    cap_pps: Option<f64>,
    /// Slots of the flows below the mean when the throttle began, and their
    /// goodput then.
    baseline: Option<(Vec<usize>, f64)>,
    fin: [bool; 2],
    stats: GapFlowStats,
    /// Index of the flow's entry in `GatewayStats::flows` (its label in the
    /// time series) and its last recorded values.
    label: u32,
    last: LastValues,
}

/// The TCP-GAP gateway.
#[derive(Clone, Debug)]
pub struct Gateway {
    cfg: GapConfig,
    table: HashMap<FlowKey, usize>,
    /// Flow slots; never iterated through the HashMap (determinism).
    flows: Vec<Option<Flow>>,
    reserved: u32,
    next_period: Option<Time>,
    /// A flow started or ended since the last goodput period.
    changed: bool,
    stats: GatewayStats,
    /// The per-flow time series, when asked for ([`Gateway::record_series`]).
    series: Option<SeriesLog>,
}

impl Gateway {
    pub fn new(cfg: GapConfig) -> Self {
        Gateway {
            cfg,
            table: HashMap::new(),
            flows: Vec::new(),
            reserved: 0,
            next_period: None,
            changed: false,
            stats: GatewayStats::default(),
            series: None,
        }
    }

    /// Record each flow's estimate, pacing rate, queue and goodput whenever
    /// they change (flows are labelled by their index in
    /// [`GatewayStats::flows`]).
    pub fn record_series(&mut self) {
        self.series.get_or_insert_with(SeriesLog::default);
    }

    /// The recorded series, if asked for.
    pub fn series(&self) -> Option<&SeriesLog> {
        self.series.as_ref()
    }

    /// The pacing rate in force (packets/s; none while unpaced).
    fn record_rate(series: &mut Option<SeriesLog>, cfg: &GapConfig, f: &mut Flow, now: Time) {
        if let Some(log) = series.as_mut() {
            let iv = Self::interval(cfg, f);
            if iv > 0 {
                log.changed(&mut f.last, now, f.label, PacingMetric::RatePps, NS_PER_S as f64 / iv as f64);
            }
        }
    }

    /// The pacing interval of a flow: the TCP-AP estimate (or the initial
    /// interval), no shorter than a throttle cap allows.
    fn interval(cfg: &GapConfig, f: &Flow) -> Time {
        let iv = f.est.interval().or(cfg.pacing.initial_interval).unwrap_or(0);
        match f.cap_pps {
            Some(cap) if cap > 0.0 => iv.max((NS_PER_S as f64 / cap).round() as Time),
            _ => iv,
        }
    }

    fn flow_slot(&mut self, key: FlowKey, dir: Direction, seg: &GapSegment, now: Time) -> usize {
        if let Some(&i) = self.table.get(&key) {
            return i;
        }
        let i = self.flows.iter().position(Option::is_none).unwrap_or_else(|| {
            self.flows.push(None);
            self.flows.len() - 1
        });
        let stats = GapFlowStats {
            key,
            direction: dir,
            paced: false,
            start_s: now as f64 / NS_PER_S as f64,
            end_s: None,
            data_packets: 0,
            acks: 0,
            rtt_samples: 0,
            paced_packets: 0,
            mean_pacing_delay_s: 0.0,
            max_pacing_delay_s: 0.0,
            max_queue: 0,
            queue_drops: 0,
            rate_pps: None,
            fhd_s: None,
            variation: 0.0,
            throttles: 0,
            throttle_pps: None,
        };
        self.flows[i] = Some(Flow {
            key,
            dir,
            last_seen: now,
            sent: VecDeque::with_capacity(64),
            awnd: seg.awnd.max(1),
            reserved: 0,
            paced: false,
            payload: seg.payload_bytes,
            est: RateEstimator::new(&self.cfg.pacing, seg.payload_bytes),
            pacer: Pacer::new(self.cfg.pacing.timer),
            highest_ack: None,
            acked_bytes: 0,
            sending: true,
            goodput: 0.0,
            cap_pps: None,
            baseline: None,
            fin: [false; 2],
            stats,
            label: self.stats.flows.len() as u32,
            last: LastValues::default(),
        });
        self.table.insert(key, i);
        self.stats.flows.push(self.flows[i].as_ref().unwrap().stats.clone());
        self.changed = true;
        if self.next_period.is_none() {
            self.next_period = self.cfg.goodput_control.map(|g| now + g.period);
        }
        i
    }

    /// §4.3: a wired-to-wireless flow is paced if its window fits in the buffer.
    fn admit(&mut self, i: usize) {
        let f = self.flows[i].as_mut().unwrap();
        if f.paced || f.dir != Direction::WiredToWireless {
            return;
        }
        if self.reserved as u64 + f.awnd as u64 <= self.cfg.buffer_packets as u64 {
            f.paced = true;
            f.reserved = f.awnd;
            self.reserved += f.awnd;
            self.stats.max_reserved = self.stats.max_reserved.max(self.reserved);
        }
    }

    /// A TCP packet arrived from the `from` interface.
    pub fn on_packet(&mut self, from: Side, packet: u32, seg: &GapSegment, env: &mut impl GapEnv) {
        let now = env.now();
        let key = if seg.is_ack { seg.key.reversed() } else { seg.key };
        let i = match self.table.get(&key) {
            Some(&i) => i,
            None if seg.is_ack => {
                // An ACK of a flow we never saw data of: pass it on.
                env.forward(packet, from.other());
                return;
            }
            None => {
                let dir = if from == Side::Wired { Direction::WiredToWireless } else { Direction::WirelessToWired };
                self.flow_slot(key, dir, seg, now)
            }
        };
        if !seg.is_ack {
            self.admit(i);
        }
        let cfg = &self.cfg;
        let f = self.flows[i].as_mut().unwrap();
        f.last_seen = now;
        if seg.fin {
            f.fin[seg.is_ack as usize] = true;
        }
        if seg.is_ack {
            f.stats.acks += 1;
            match f.highest_ack {
                Some(h) if seg.ack > h => {
                    f.acked_bytes += (seg.ack - h) * f.payload as u64;
                    f.highest_ack = Some(seg.ack);
                }
                None => f.highest_ack = Some(seg.ack),
                _ => {}
            }
            // The data packet that triggered this ACK, by its echoed send
            // time. A sender sends a burst in one instant (a window opening),
            // so several packets can carry the same timestamp: the one the
            // ACK names (in-order arrival), else the oldest not yet paired
            // (ACKs come back in the order the packets left).
            let pick = f
                .sent
                .iter()
                .position(|s| s.ts == seg.ts && s.seq == seg.ack)
                .or_else(|| f.sent.iter().position(|s| s.ts == seg.ts && !s.paired));
            let t1 = pick.map(|k| {
                f.sent[k].paired = true;
                f.sent[k].at
            });
            while f.sent.front().is_some_and(|s| s.seq <= seg.ack) {
                f.sent.pop_front();
            }
            match (from, f.dir, t1) {
                (Side::Wired, Direction::WirelessToWired, Some(t1)) => {
                    let ms = ((now - t1) as f64 / 1e6).round().min(u16::MAX as f64) as u16;
                    env.set_rtt_wired(packet, ms);
                    f.stats.rtt_samples += 1;
                    if let Some(log) = self.series.as_mut() {
                        log.push(now, f.label, PacingMetric::RttWiredS, ms as f64 * 1e-3);
                    }
                }
                (Side::Wireless, Direction::WiredToWireless, Some(t1)) => {
                    // Ticks before now ran at the old interval.
                    f.pacer.advance(now, Self::interval(cfg, f));
                    f.est.on_rtt((now - t1) as f64 * 1e-9, seg.wireless_hops);
                    f.stats.rtt_samples += 1;
                    if let Some(log) = self.series.as_mut() {
                        log.push(now, f.label, PacingMetric::RttWirelessS, (now - t1) as f64 * 1e-9);
                        if let Some(fhd) = f.est.fhd_s() {
                            log.changed(&mut f.last, now, f.label, PacingMetric::FhdS, fhd);
                            log.changed(&mut f.last, now, f.label, PacingMetric::Variation, f.est.variation());
                        }
                        Self::record_rate(&mut self.series, cfg, f, now);
                    }
                }
                _ => {}
            }
            env.forward(packet, from.other());
        } else {
            f.stats.data_packets += 1;
            f.sending = true;
            // s_data is the data segment's size (Table 1, Eq. (4)): a flow first seen with its
            // setup segment learns it from the first data segment, even when the setup
            // segment's ACK already gave an RTT sample (found by the ns-2.35 port of TCP-GAP).
            if seg.payload_bytes > f.payload {
                f.payload = seg.payload_bytes;
                f.est.set_payload(&cfg.pacing, f.payload);
            }
            if f.paced && from == Side::Wired {
                if f.pacer.queued() as u32 >= f.reserved {
                    f.stats.queue_drops += 1;
                    env.dropped(packet);
                } else {
                    f.pacer.hold((packet, seg.seq, seg.ts), now, Self::interval(cfg, f));
                }
            } else {
                Self::remember_sent(f, seg.seq, seg.ts, now);
                env.forward(packet, from.other());
            }
        }
        self.release_due(i, env);
        let queued: usize = self.flows.iter().flatten().map(|f| f.pacer.queued()).sum();
        self.stats.max_queued = self.stats.max_queued.max(queued as u32);
        let f = self.flows[i].as_ref().unwrap();
        if f.fin == [true, true] {
            self.remove(i, now, false);
        }
    }

    fn remember_sent(f: &mut Flow, seq: u64, ts: Time, now: Time) {
        if f.sent.len() >= 4 * f.awnd.max(16) as usize {
            f.sent.pop_front();
        }
        f.sent.push_back(Sent { seq, ts, at: now, paired: false });
    }

    /// Let out whatever flow `i`'s pacer allows now.
    fn release_due(&mut self, i: usize, env: &mut impl GapEnv) {
        let now = env.now();
        let cfg = &self.cfg;
        let Some(f) = self.flows[i].as_mut() else { return };
        while let Some((packet, seq, ts)) = f.pacer.release(now, Self::interval(cfg, f)) {
            Self::remember_sent(f, seq, ts, now);
            env.forward(packet, Side::Wireless);
        }
        if let Some(log) = self.series.as_mut().filter(|_| f.paced) {
            log.changed(&mut f.last, now, f.label, PacingMetric::Queue, f.pacer.queued() as f64);
        }
    }

    fn remove(&mut self, i: usize, now: Time, expired: bool) {
        let f = self.flows[i].take().unwrap();
        self.table.remove(&f.key);
        self.reserved -= f.reserved;
        let k = self.stats.flows.iter().rposition(|s| s.key == f.key && s.end_s.is_none()).unwrap();
        self.stats.flows[k] = Self::flow_stats(&f);
        self.stats.flows[k].end_s = Some(now as f64 / NS_PER_S as f64);
        if expired {
            self.stats.flows_expired += 1;
        } else {
            self.stats.flows_finished += 1;
        }
        self.changed = true;
        if self.flows.iter().all(Option::is_none) {
            self.next_period = None;
        }
    }

    fn flow_stats(f: &Flow) -> GapFlowStats {
        let mut s = f.stats.clone();
        s.paced = f.paced;
        (s.paced_packets, s.mean_pacing_delay_s, s.max_pacing_delay_s, s.max_queue) = f.pacer.delays();
        s.rate_pps = f.est.rate_pps();
        s.fhd_s = f.est.fhd_s();
        s.variation = f.est.variation();
        s.throttle_pps = f.cap_pps;
        s
    }

    /// When [`Gateway::on_timer`] has work next (0: now).
    pub fn next_deadline(&self) -> Option<Time> {
        let mut due = self.next_period;
        for f in self.flows.iter().flatten() {
            let candidates = [f.pacer.next_release(), Some(f.last_seen + self.cfg.flow_timeout)];
            for t in candidates.into_iter().flatten() {
                due = Some(due.map_or(t, |d: Time| d.min(t)));
            }
        }
        due
    }

    /// Pacing releases, the goodput period and soft-state expiry due now.
    pub fn on_timer(&mut self, env: &mut impl GapEnv) {
        let now = env.now();
        for i in 0..self.flows.len() {
            self.release_due(i, env);
        }
        while let (Some(t), Some(g)) = (self.next_period, self.cfg.goodput_control) {
            if t > now {
                break;
            }
            self.goodput_control(g);
            self.record_period(t);
            self.next_period = Some(t + g.period);
        }
        for i in 0..self.flows.len() {
            let expired = self.flows[i].as_ref().is_some_and(|f| f.last_seen + self.cfg.flow_timeout <= now);
            if expired {
                // Anything still waiting goes now: the flow keeps no state.
                let f = self.flows[i].as_mut().unwrap();
                while let Some((packet, _, _)) = f.pacer.release(now, 0) {
                    env.forward(packet, Side::Wireless);
                }
                if let Some(log) = self.series.as_mut().filter(|_| f.paced) {
                    log.changed(&mut f.last, now, f.label, PacingMetric::Queue, 0.0);
                }
                self.remove(i, now, true);
            }
        }
    }

    /// The series after a goodput period: each flow's goodput, cap and rate.
    fn record_period(&mut self, now: Time) {
        let Some(log) = self.series.as_mut() else { return };
        for f in self.flows.iter_mut().flatten() {
            log.push(now, f.label, PacingMetric::GoodputBps, f.goodput);
            if f.dir == Direction::WiredToWireless {
                log.changed(&mut f.last, now, f.label, PacingMetric::CapPps, f.cap_pps.unwrap_or(0.0));
            }
        }
        for f in self.flows.iter_mut().flatten().filter(|f| f.dir == Direction::WiredToWireless) {
            Self::record_rate(&mut self.series, &self.cfg, f, now);
        }
    }

    /// One period of Fig. 7's `goodput_control()`.
    fn goodput_control(&mut self, g: GoodputControl) {
        self.stats.control_periods += 1;
        let secs = g.period as f64 / NS_PER_S as f64;
        let slots: Vec<usize> = (0..self.flows.len()).filter(|&i| self.flows[i].is_some()).collect();
        // Flows that sent no data this period (idle between HTTP pages) do
        // not compete: they are left out of the mean and cannot be throttled
        // (their zero goodput would otherwise halve the mean a lone active
        // flow is held to). A flow that is throttled stays in the checks below.
        let mut active = Vec::with_capacity(slots.len());
        for &i in &slots {
            let f = self.flows[i].as_mut().unwrap();
            f.goodput = f.acked_bytes as f64 * 8.0 / secs;
            f.acked_bytes = 0;
            if std::mem::replace(&mut f.sending, false) {
                active.push(i);
            }
        }
        if self.changed {
            // A connection started or ended: start afresh.
            self.changed = false;
            self.stats.resets += 1;
            for &i in &slots {
                let f = self.flows[i].as_mut().unwrap();
                f.cap_pps = None;
                f.baseline = None;
            }
            return;
        }
        let goodput = |i: usize| self.flows[i].as_ref().unwrap().goodput;
        let gavg = active.iter().map(|&i| goodput(i)).sum::<f64>() / active.len().max(1) as f64;
        if gavg <= 0.0 {
            return;
        }
        let slow: Vec<usize> = active.iter().copied().filter(|&i| goodput(i) < gavg).collect();
        let slow_sum: f64 = slow.iter().map(|&i| goodput(i)).sum();
        for &i in &slots {
            let now_sum =
                |b: &[usize]| b.iter().filter_map(|&j| self.flows[j].as_ref()).map(|f| f.goodput).sum::<f64>();
            let f = self.flows[i].as_ref().unwrap();
            let fast = f.goodput / gavg > g.threshold
                && f.dir == Direction::WiredToWireless
                && f.payload > 0
                && active.contains(&i);
            let improved = f.baseline.as_ref().map(|(b, before)| now_sum(b) > *before);
            let f = self.flows[i].as_mut().unwrap();
            // Throttle to the mean goodput, in packets per second.
            let mean_cap = gavg / (8.0 * f.payload.max(1) as f64);
            match (f.cap_pps, improved) {
                (Some(_), Some(false)) => {
                    // The slow flows have not gained since the throttle began:
                    // it does not help, release it. Checked first, so a cap
                    // that does not help is released instead of being lowered
                    // again each period (with two throttled flows the caps
                    // would otherwise ratchet each other down).
                    f.cap_pps = None;
                    f.baseline = None;
                    self.stats.cancels += 1;
                }
                (Some(_), Some(true)) if fast => {
                    // Still ahead while the slow flows gain: cap at the new
                    // mean, keeping the original baseline.
                    f.cap_pps = Some(mean_cap);
                }
                (Some(cap), Some(true)) => {
                    // Aging: the throttle loosens while it still helps.
                    f.cap_pps = Some(match g.aging_rule {
                        AgingRule::Additive => cap + g.aging * f.goodput / gavg,
                        AgingRule::Multiplicative => cap * g.aging,
                    });
                }
                _ if fast => {
                    f.cap_pps = Some(mean_cap);
                    f.baseline = Some((slow.clone(), slow_sum));
                    f.stats.throttles += 1;
                    self.stats.throttles += 1;
                }
                _ => {}
            }
        }
    }

    #[cfg(test)] // only the unit tests read it
    /// The flow table's size.
    pub fn active_flows(&self) -> usize {
        self.table.len()
    }

    #[cfg(test)] // only the unit tests read it
    /// Buffer reserved by paced flows (packets).
    pub fn reserved(&self) -> u32 {
        self.reserved
    }

    #[cfg(test)] // only the unit tests read it
    /// A flow's current pacing interval, if it is in the table.
    pub fn flow_interval(&self, key: FlowKey) -> Option<Time> {
        self.table.get(&key).map(|&i| Self::interval(&self.cfg, self.flows[i].as_ref().unwrap()))
    }

    /// Statistics of every flow seen (active ones as of now).
    pub fn stats(&self) -> GatewayStats {
        let mut s = self.stats.clone();
        for f in self.flows.iter().flatten() {
            if let Some(k) = s.flows.iter().rposition(|x| x.key == f.key && x.end_s.is_none()) {
                s.flows[k] = Self::flow_stats(f);
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;
    use crate::transport::{TcpConfig, TcpSender};
    use crate::wire::TcpSegment;

    const MS: Time = NS_PER_MS;

    /// A fake simulator: records the gateway's actions.
    #[derive(Default)]
    struct Env {
        now: Time,
        forwarded: Vec<(u32, Side, Time)>,
        rtt_wired: Vec<(u32, u16)>,
        dropped: Vec<u32>,
    }

    impl GapEnv for Env {
        fn now(&self) -> Time {
            self.now
        }
        fn forward(&mut self, packet: u32, to: Side) {
            self.forwarded.push((packet, to, self.now));
        }
        fn set_rtt_wired(&mut self, packet: u32, ms: u16) {
            self.rtt_wired.push((packet, ms));
        }
        fn dropped(&mut self, packet: u32) {
            self.dropped.push(packet);
        }
    }

    /// Wired host 10, wireless node 3; ports 5000 → 80.
    const DOWN: FlowKey = FlowKey { src: 10, dst: 3, sport: 5000, dport: 80 };
    /// Wireless node 4 to wired host 10.
    const UP: FlowKey = FlowKey { src: 4, dst: 10, sport: 6000, dport: 80 };

    fn data(key: FlowKey, seq: u64, ts: Time) -> GapSegment {
        GapSegment { key, is_ack: false, seq, ack: 0, payload_bytes: 1460, ts, fin: false, awnd: 32, wireless_hops: 4 }
    }

    fn ack_of(key: FlowKey, ack: u64, ts: Time) -> GapSegment {
        GapSegment { key: key.reversed(), is_ack: true, ack, payload_bytes: 0, ..data(key, 0, ts) }
    }

    fn no_control(rate: f64) -> GapConfig {
        GapConfig { goodput_control: None, ..GapConfig::paper(rate) }
    }

    /// Run the gateway's timer at every deadline up to `until`.
    fn run_until(gw: &mut Gateway, env: &mut Env, until: Time) {
        while let Some(t) = gw.next_deadline().map(|t| t.max(env.now)) {
            if t > until {
                break;
            }
            env.now = t;
            gw.on_timer(env);
        }
        env.now = until;
    }

    #[test]
    fn flow_table_keyed_by_the_five_tuple() {
        let mut gw = Gateway::new(no_control(11e6));
        let mut env = Env::default();
        gw.on_packet(Side::Wired, 1, &data(DOWN, 0, 0), &mut env);
        let other_port = FlowKey { sport: 5001, ..DOWN };
        gw.on_packet(Side::Wired, 2, &data(other_port, 0, 0), &mut env);
        gw.on_packet(Side::Wired, 3, &data(DOWN, 1, 0), &mut env);
        assert_eq!(gw.active_flows(), 2);
        // The ACK travels with the addresses reversed and finds the same flow.
        gw.on_packet(Side::Wireless, 4, &ack_of(DOWN, 1, 0), &mut env);
        // An ACK of an unknown flow is forwarded and creates nothing.
        gw.on_packet(Side::Wired, 5, &ack_of(UP, 1, 0), &mut env);
        assert_eq!(gw.active_flows(), 2);
        let st = gw.stats();
        assert_eq!(st.flows.len(), 2);
        assert_eq!((st.flows[0].key, st.flows[0].direction), (DOWN, Direction::WiredToWireless));
        assert_eq!((st.flows[0].data_packets, st.flows[0].acks), (2, 1));
        assert_eq!(st.flows[1].key, other_port);
        // Data to the wireless side, ACKs to the wired side.
        let to: Vec<(u32, Side)> = env.forwarded.iter().map(|&(p, s, _)| (p, s)).collect();
        assert_eq!(
            to,
            vec![(1, Side::Wireless), (2, Side::Wireless), (3, Side::Wireless), (4, Side::Wired), (5, Side::Wireless)]
        );
        assert!(FlowKey::reversed(DOWN).reversed() == DOWN);
    }

    #[test]
    fn rtt_wired_round_trip_into_the_senders_rate() {
        let mut gw = Gateway::new(no_control(11e6));
        let mut env = Env { now: MS, ..Env::default() };
        // The wireless sender's setup segment (sent at 0) leaves for the
        // wired side at 1 ms; the wired receiver's ACK is back at 81 ms.
        gw.on_packet(Side::Wireless, 1, &data(UP, 0, 0), &mut env);
        env.now = 81 * MS;
        gw.on_packet(Side::Wired, 2, &ack_of(UP, 0, 0), &mut env);
        assert_eq!(env.rtt_wired, vec![(2, 80)]);
        assert_eq!(env.forwarded.last(), Some(&(2, Side::Wireless, 81 * MS)));
        // The sender gets it at 100 ms: RTT 100 ms, of which 80 wired.
        let ap = TcpApConfig::paper(11e6);
        let mut s = TcpSender::new(&TcpConfig { pacing: Some(ap.clone()), ..TcpConfig::default() });
        s.add_data(0, 10);
        assert_eq!(s.poll_transmit(0).map(|x| x.seq), Some(0));
        let seg = TcpSegment { rtt_wired_ms: Some(env.rtt_wired[0].1), ..TcpSegment::new_ack(0, 0) };
        s.on_segment_via(100 * MS, &seg, 4);
        let mut e = RateEstimator::new(&ap, 1460);
        e.on_rtt(0.020, 4);
        let got = s.pacing().unwrap().estimator().fhd_s().unwrap();
        assert!((got - e.fhd_s().unwrap()).abs() < 1e-12, "{got}");
        // Duplicate ACKs pair with the data packet they echo, not with the
        // (older) packet their number names.
        env.now = 90 * MS;
        gw.on_packet(Side::Wireless, 3, &data(UP, 1, 85 * MS), &mut env);
        gw.on_packet(Side::Wireless, 4, &data(UP, 2, 86 * MS), &mut env);
        env.now = 150 * MS;
        gw.on_packet(Side::Wired, 5, &ack_of(UP, 0, 86 * MS), &mut env); // 1 lost: dupack of 0 for 2
        assert_eq!(env.rtt_wired.last(), Some(&(5, 60)));
        // An ACK echoing nothing the gateway sent gets no option.
        gw.on_packet(Side::Wired, 6, &ack_of(UP, 2, 7 * MS), &mut env);
        assert_eq!(env.rtt_wired.len(), 2);
        // RTT_wired saturates at 65 535 ms.
        env.now = 70_000 * MS;
        gw.on_packet(Side::Wireless, 7, &data(UP, 3, 69_000 * MS), &mut env);
        env.now = 200_000 * MS;
        gw.on_packet(Side::Wired, 8, &ack_of(UP, 3, 69_000 * MS), &mut env);
        assert_eq!(env.rtt_wired.last(), Some(&(8, u16::MAX)));
    }

    #[test]
    fn pacing_queue_release_times() {
        let mut gw = Gateway::new(no_control(11e6));
        let mut env = Env::default();
        // No RTT sample yet: the paper's profile forwards at once.
        for seq in 0..=1 {
            gw.on_packet(Side::Wired, seq as u32, &data(DOWN, seq, seq * MS), &mut env);
        }
        assert_eq!(env.forwarded.len(), 2);
        // The ACK of 1 comes back from the wireless side at 51 ms: one
        // RTT_wireless sample of 51 ms (1 left at 0) over 4 hops.
        env.now = 51 * MS;
        gw.on_packet(Side::Wireless, 10, &ack_of(DOWN, 1, MS), &mut env);
        let mut e = RateEstimator::new(&TcpApConfig::paper(11e6), 1460);
        e.on_rtt(0.051, 4);
        let iv = e.interval().unwrap();
        assert_eq!(gw.flow_interval(DOWN), Some(iv));
        // Four data packets arrive back to back at 60 ms: one now, then one
        // per interval.
        env.now = 60 * MS;
        for seq in 2..=5 {
            gw.on_packet(Side::Wired, 100 + seq as u32, &data(DOWN, seq, 59 * MS), &mut env);
        }
        assert_eq!(env.forwarded.last(), Some(&(102, Side::Wireless, 60 * MS)));
        assert_eq!(gw.next_deadline(), Some(60 * MS + iv));
        run_until(&mut gw, &mut env, 60 * MS + 10 * iv);
        let out: Vec<(u32, Time)> = env.forwarded.iter().filter(|f| f.0 >= 100).map(|&(p, _, t)| (p, t)).collect();
        assert_eq!(out, vec![(102, 60 * MS), (103, 60 * MS + iv), (104, 60 * MS + 2 * iv), (105, 60 * MS + 3 * iv)]);
        let st = &gw.stats().flows[0];
        assert!(st.paced);
        assert_eq!((st.paced_packets, st.max_queue, st.rtt_samples), (6, 3, 1));
        assert!((st.max_pacing_delay_s - 3.0 * iv as f64 * 1e-9).abs() < 1e-12);
    }

    #[test]
    fn s_data_is_the_data_segments_after_a_setup_segment_with_an_rtt_sample() {
        let mut gw = Gateway::new(no_control(11e6));
        let mut env = Env::default();
        // The setup segment (no payload) and its ACK: one RTT sample taken with s_data = 0.
        let syn = GapSegment { payload_bytes: 0, ..data(DOWN, 0, 0) };
        gw.on_packet(Side::Wired, 1, &syn, &mut env);
        env.now = 40 * MS;
        gw.on_packet(Side::Wireless, 2, &ack_of(DOWN, 0, 0), &mut env);
        // Data of 1460 bytes, then its ACK: the interval is that of 1460-byte segments.
        env.now = 41 * MS;
        gw.on_packet(Side::Wired, 3, &data(DOWN, 1, 41 * MS), &mut env);
        env.now = 92 * MS;
        gw.on_packet(Side::Wireless, 4, &ack_of(DOWN, 1, 41 * MS), &mut env);
        let mut want = RateEstimator::new(&TcpApConfig::paper(11e6), 0);
        want.on_rtt(0.040, 4);
        want.set_payload(&TcpApConfig::paper(11e6), 1460);
        want.on_rtt(0.051, 4);
        let mut stale = RateEstimator::new(&TcpApConfig::paper(11e6), 0);
        stale.on_rtt(0.040, 4);
        stale.on_rtt(0.051, 4);
        assert_eq!(gw.flow_interval(DOWN), want.interval());
        assert_ne!(want.interval(), stale.interval(), "s_data moves the interval");
    }

    /// The RTT_wireless samples of the gateway's series, in ms.
    fn rtt_samples_ms(gw: &Gateway) -> Vec<f64> {
        let log = gw.series().expect("series on");
        (0..log.len())
            .filter(|&k| log.metric[k] == PacingMetric::RttWirelessS as u8)
            .map(|k| (log.value[k] * 1e3 * 1e6).round() / 1e6)
            .collect()
    }

    #[test]
    fn a_burst_with_one_timestamp_pairs_each_ack_with_its_own_packet() {
        let mut gw = Gateway::new(no_control(11e6));
        gw.record_series();
        let mut env = Env::default();
        // One sample (20 ms) sets a pacing interval of about 12 ms.
        gw.on_packet(Side::Wired, 1, &data(DOWN, 1, 0), &mut env);
        env.now = 20 * MS;
        gw.on_packet(Side::Wireless, 2, &ack_of(DOWN, 1, 0), &mut env);
        let iv = gw.flow_interval(DOWN).unwrap();
        assert!(iv > 10 * MS && iv < 14 * MS, "{iv}");
        // The wired sender opens its window: packets 2, 3, 4 sent in the
        // same instant (one timestamp); the gateway spaces them by iv.
        env.now = 60 * MS;
        for seq in 2..=4 {
            gw.on_packet(Side::Wired, 10 + seq as u32, &data(DOWN, seq, 59 * MS), &mut env);
        }
        run_until(&mut gw, &mut env, 60 * MS + 2 * iv);
        assert_eq!(env.forwarded.iter().filter(|f| f.0 >= 10).count(), 3);
        // Each ACK comes back 40 ms after its packet left, echoing 59 ms.
        for (k, seq) in (2..=4).enumerate() {
            env.now = 100 * MS + k as Time * iv;
            gw.on_packet(Side::Wireless, 20 + seq as u32, &ack_of(DOWN, seq, 59 * MS), &mut env);
        }
        // (Pairing with the newest packet of that timestamp made the first
        // two 40 − 2·iv and 40 − iv ms.)
        assert_eq!(rtt_samples_ms(&gw), vec![20.0, 40.0, 40.0, 40.0]);
        // Packets 5–7, one timestamp; the ACK of 5 is lost: the ACK of 6
        // pairs with 6, and a duplicate ACK (6 again, for 7 arriving after a
        // loss) with the oldest packet of that timestamp not yet paired.
        env.now = 200 * MS;
        for seq in 5..=7 {
            gw.on_packet(Side::Wired, 30 + seq as u32, &data(DOWN, seq, 199 * MS), &mut env);
        }
        run_until(&mut gw, &mut env, 300 * MS);
        let left: Vec<Time> = env.forwarded.iter().filter(|f| (35..=37).contains(&f.0)).map(|f| f.2).collect();
        assert_eq!(left.len(), 3);
        env.now = left[1] + 40 * MS;
        gw.on_packet(Side::Wireless, 46, &ack_of(DOWN, 6, 199 * MS), &mut env);
        env.now = left[2] + 40 * MS;
        gw.on_packet(Side::Wireless, 47, &ack_of(DOWN, 6, 199 * MS), &mut env);
        assert_eq!(rtt_samples_ms(&gw)[4..], [40.0, 40.0]);
    }

    #[test]
    fn series_records_the_estimate_queue_and_goodput_on_change() {
        let mut gw = Gateway::new(GapConfig::paper(11e6));
        let mut env = Env::default();
        gw.on_packet(Side::Wired, 1, &data(DOWN, 1, 0), &mut env);
        assert!(gw.series().is_none(), "off unless asked for");
        gw.record_series();
        env.now = 20 * MS;
        gw.on_packet(Side::Wireless, 2, &ack_of(DOWN, 1, 0), &mut env);
        env.now = 21 * MS;
        for seq in 2..=4 {
            gw.on_packet(Side::Wired, 10 + seq as u32, &data(DOWN, seq, 21 * MS), &mut env);
        }
        run_until(&mut gw, &mut env, 100 * MS);
        // A cumulative ACK of the burst: 3 packets acknowledged this period.
        gw.on_packet(Side::Wireless, 3, &ack_of(DOWN, 4, 21 * MS), &mut env);
        run_until(&mut gw, &mut env, 5 * NS_PER_S);
        let log = gw.series().unwrap();
        let pts: Vec<(Time, u8, f64)> = (0..log.len()).map(|k| (log.time[k], log.metric[k], log.value[k])).collect();
        let e = {
            let mut e = RateEstimator::new(&TcpApConfig::paper(11e6), 1460);
            e.on_rtt(0.020, 4);
            e
        };
        let iv = e.interval().unwrap();
        let m = |x: PacingMetric| x as u8;
        assert_eq!(
            pts[..4],
            [
                (20 * MS, m(PacingMetric::RttWirelessS), 0.020),
                (20 * MS, m(PacingMetric::FhdS), e.fhd_s().unwrap()),
                (20 * MS, m(PacingMetric::Variation), 0.0),
                (20 * MS, m(PacingMetric::RatePps), 1e9 / iv as f64),
            ]
        );
        // Queue: 0 after the first packet, 1 and 2 as the burst waits, then
        // down one per interval (unchanged values are not repeated).
        let queue: Vec<(Time, f64)> =
            pts.iter().filter(|p| p.1 == m(PacingMetric::Queue)).map(|p| (p.0, p.2)).collect();
        assert_eq!(
            queue,
            vec![(20 * MS, 0.0), (21 * MS, 1.0), (21 * MS, 2.0), (21 * MS + iv, 1.0), (21 * MS + 2 * iv, 0.0)]
        );
        // The first Goodput Control period (a reset): the goodput (3 packets
        // acknowledged in 5 s) and no cap.
        let period: Vec<(Time, u8, f64)> = pts.iter().filter(|p| p.0 == 5 * NS_PER_S).copied().collect();
        assert_eq!(
            period,
            vec![
                (5 * NS_PER_S, m(PacingMetric::GoodputBps), 3.0 * 1460.0 * 8.0 / 5.0),
                (5 * NS_PER_S, m(PacingMetric::CapPps), 0.0)
            ]
        );
        assert!(log.flow.iter().all(|&f| f == 0), "labelled by the flow's statistics entry");
    }

    #[test]
    fn buffer_rule_admits_flows_while_their_windows_fit() {
        let cfg = GapConfig { buffer_packets: 100, ..no_control(11e6) };
        let mut gw = Gateway::new(cfg);
        let mut env = Env::default();
        let b = FlowKey { sport: 5001, ..DOWN };
        gw.on_packet(Side::Wired, 1, &data(DOWN, 0, 0), &mut env);
        gw.on_packet(Side::Wired, 2, &GapSegment { awnd: 64, ..data(b, 0, 0) }, &mut env);
        // 32 + 64 > 100? No: 96 fits. A third flow of 32 does not.
        let c = FlowKey { sport: 5002, ..DOWN };
        gw.on_packet(Side::Wired, 3, &data(c, 0, 0), &mut env);
        assert_eq!(gw.reserved(), 96);
        let paced: Vec<bool> = gw.stats().flows.iter().map(|f| f.paced).collect();
        assert_eq!(paced, vec![true, true, false]);
        // Wireless-to-wired flows never reserve anything.
        gw.on_packet(Side::Wireless, 4, &data(UP, 0, 0), &mut env);
        assert_eq!(gw.reserved(), 96);
        // The 64-packet flow's state expires; the third flow is admitted at
        // its next packet.
        env.now = 100 * MS;
        for k in [DOWN, c, UP] {
            gw.on_packet(Side::Wired, 5, &data(k, 1, 0), &mut env);
        }
        run_until(&mut gw, &mut env, 120 * NS_PER_S + 50 * MS);
        assert_eq!(gw.active_flows(), 3);
        assert_eq!(gw.reserved(), 32);
        env.now = 121 * NS_PER_S;
        gw.on_packet(Side::Wired, 6, &data(c, 2, 0), &mut env);
        assert_eq!(gw.reserved(), 64);
        assert_eq!(gw.stats().max_reserved, 96);
    }

    #[test]
    fn soft_state_timeout_and_fin() {
        let mut gw = Gateway::new(no_control(11e6));
        let mut env = Env::default();
        gw.on_packet(Side::Wired, 1, &data(DOWN, 0, 0), &mut env);
        assert_eq!(gw.next_deadline(), Some(120 * NS_PER_S));
        run_until(&mut gw, &mut env, 120 * NS_PER_S - 1);
        assert_eq!(gw.active_flows(), 1);
        run_until(&mut gw, &mut env, 120 * NS_PER_S);
        assert_eq!(gw.active_flows(), 0);
        assert_eq!(gw.next_deadline(), None);
        let st = gw.stats();
        assert_eq!((st.flows_expired, st.flows[0].end_s), (1, Some(120.0)));
        // FIN from the sender, then from the receiver: forgotten at once.
        gw.on_packet(Side::Wired, 2, &GapSegment { fin: true, ..data(DOWN, 9, 0) }, &mut env);
        assert_eq!(gw.active_flows(), 1);
        gw.on_packet(Side::Wireless, 3, &GapSegment { fin: true, ..ack_of(DOWN, 9, 0) }, &mut env);
        assert_eq!(gw.active_flows(), 0);
        let st = gw.stats();
        assert_eq!((st.flows.len(), st.flows_finished), (2, 1));
        assert_eq!(env.forwarded.len(), 3, "the FIN segments are forwarded");
    }

    #[test]
    fn goodput_control_throttles_ages_and_releases() {
        for rule in [AgingRule::Additive, AgingRule::Multiplicative] {
            throttle_age_release(rule);
        }
    }

    fn throttle_age_release(rule: AgingRule) {
        let mut cfg = GapConfig::paper(11e6);
        assert_eq!(cfg.goodput_control.unwrap().aging_rule, AgingRule::Additive, "Fig. 7 as written by default");
        cfg.goodput_control.as_mut().unwrap().aging_rule = rule;
        let mut gw = Gateway::new(cfg);
        let mut env = Env::default();
        // A fast wired-to-wireless flow and a slow wireless-to-wired one.
        gw.on_packet(Side::Wired, 1, &data(DOWN, 0, 0), &mut env);
        gw.on_packet(Side::Wireless, 2, &data(UP, 0, 0), &mut env);
        gw.on_packet(Side::Wireless, 3, &ack_of(DOWN, 0, 0), &mut env);
        gw.on_packet(Side::Wired, 4, &ack_of(UP, 0, 0), &mut env);
        let mut acked = [0u64; 2];
        // One period in which each flow gets `n` more packets acknowledged.
        let mut period = |gw: &mut Gateway, env: &mut Env, end_s: u64, n: [u64; 2]| {
            env.now = end_s * NS_PER_S - MS;
            acked[0] += n[0];
            acked[1] += n[1];
            // Both flows send data this period (echoing a send time no ACK
            // pairs with, so the pacing rate is left alone).
            gw.on_packet(Side::Wired, 8, &data(DOWN, acked[0] + 1, 7), env);
            gw.on_packet(Side::Wireless, 9, &data(UP, acked[1] + 1, 7), env);
            gw.on_packet(Side::Wireless, 5, &ack_of(DOWN, acked[0], 0), env);
            gw.on_packet(Side::Wired, 6, &ack_of(UP, acked[1], 0), env);
            env.now = end_s * NS_PER_S;
            gw.on_timer(env);
        };
        // 0–5 s: both flows just started: the first period only resets.
        period(&mut gw, &mut env, 5, [100, 10]);
        assert_eq!((gw.stats().control_periods, gw.stats().resets, gw.stats().throttles), (1, 1, 0));
        // 5–10 s: G = 233.6 and 23.4 kb/s, mean 128.5 kb/s; 1.82 > 1.1:
        // the fast flow is capped at the mean, 11 packets/s.
        period(&mut gw, &mut env, 10, [100, 10]);
        let cap = 128_480.0 / (8.0 * 1460.0);
        assert_eq!(gw.stats().flows[0].throttle_pps, Some(cap));
        assert_eq!(gw.flow_interval(DOWN), Some((1e9 / cap).round() as Time));
        assert_eq!(gw.stats().flows[1].throttle_pps, None, "wireless-to-wired flows are never throttled");
        // 10–15 s: the slow flow gains (35 vs 10 packets) and the fast one
        // is within S of the mean (40 / 37.5 packets): the cap ages, by
        // 1.1 × 40/37.5 packets/s (Fig. 7 as written) or by a factor 1.1.
        period(&mut gw, &mut env, 15, [40, 35]);
        let aged = match rule {
            AgingRule::Additive => cap + 1.1 * 40.0 / 37.5,
            AgingRule::Multiplicative => 1.1 * cap,
        };
        assert!((gw.stats().flows[0].throttle_pps.unwrap() - aged).abs() < 1e-9);
        // 15–20 s: both at the mean, but the slow flow has fallen below its
        // goodput when the throttle began: the throttle does not help, it is
        // cancelled.
        period(&mut gw, &mut env, 20, [5, 5]);
        assert_eq!(gw.stats().flows[0].throttle_pps, None);
        assert_eq!(gw.stats().cancels, 1);
        // 20–25 s: throttled again; then a third flow starts: all reset.
        period(&mut gw, &mut env, 25, [100, 10]);
        assert!(gw.stats().flows[0].throttle_pps.is_some());
        gw.on_packet(Side::Wired, 7, &data(FlowKey { sport: 7000, ..DOWN }, 0, 0), &mut env);
        period(&mut gw, &mut env, 30, [100, 10]);
        let st = gw.stats();
        assert_eq!(st.flows[0].throttle_pps, None);
        assert_eq!((st.resets, st.throttles, st.control_periods), (2, 2, 6));
        assert_eq!(st.flows[0].throttles, 2);
    }

    #[test]
    fn goodput_control_releases_a_useless_cap_instead_of_ratcheting_it() {
        // Two wired-to-wireless flows (Fig. 11): only one can be ahead.
        let mut gw = Gateway::new(GapConfig::paper(11e6));
        let mut env = Env::default();
        let other = FlowKey { sport: 7000, ..DOWN };
        gw.on_packet(Side::Wired, 1, &data(DOWN, 0, 0), &mut env);
        gw.on_packet(Side::Wired, 2, &data(other, 0, 0), &mut env);
        let mut acked = [0u64; 2];
        let mut period = |gw: &mut Gateway, env: &mut Env, end_s: u64, n: [u64; 2]| {
            env.now = end_s * NS_PER_S - MS;
            acked[0] += n[0];
            acked[1] += n[1];
            for (k, key) in [DOWN, other].into_iter().enumerate() {
                if n[k] > 0 {
                    gw.on_packet(Side::Wired, 8, &data(key, acked[k] + 1, 7), env);
                }
            }
            gw.on_packet(Side::Wireless, 3, &ack_of(DOWN, acked[0], 0), env);
            gw.on_packet(Side::Wireless, 4, &ack_of(other, acked[1], 0), env);
            env.now = end_s * NS_PER_S;
            gw.on_timer(env);
        };
        let pps = |kbps: f64| kbps * 1e3 / (8.0 * 1460.0);
        period(&mut gw, &mut env, 5, [100, 10]); // reset: both flows new
                                                 // 5–10 s: 100 vs 10 packets: the first flow is capped at the mean.
        period(&mut gw, &mut env, 10, [100, 10]);
        let mean = 55.0 * 1460.0 * 8.0 / 5.0 / 1e3;
        assert!((gw.stats().flows[0].throttle_pps.unwrap() - pps(mean)).abs() < 1e-9);
        // 10–15 s: the slow flow gains (30 > 10) but the first is still
        // ahead: re-capped at the new mean, not counted as a new throttle.
        period(&mut gw, &mut env, 15, [90, 30]);
        let mean = 60.0 * 1460.0 * 8.0 / 5.0 / 1e3;
        assert!((gw.stats().flows[0].throttle_pps.unwrap() - pps(mean)).abs() < 1e-9);
        assert_eq!(gw.stats().throttles, 1);
        // 15–20 s: the first flow is still ahead but the slow one fell back
        // to its goodput when the throttle began: the cap is released, not
        // lowered to the (smaller) mean again.
        period(&mut gw, &mut env, 20, [50, 8]);
        let st = gw.stats();
        assert_eq!(st.flows[0].throttle_pps, None);
        assert_eq!((st.cancels, st.throttles), (1, 1));
        // 20–25 s: still ahead, no throttle in force: throttled afresh.
        period(&mut gw, &mut env, 25, [50, 8]);
        assert!(gw.stats().flows[0].throttle_pps.is_some());
        assert_eq!(gw.stats().throttles, 2);
        assert_eq!(gw.stats().flows[1].throttle_pps, None, "the slow flow is never capped");
        // 25–30 s: the slow flow is idle (no data: between pages); the throttle
        // does not help it and is released; 30–35 s: a lone active flow is
        // not held to a mean that counts the idle one.
        period(&mut gw, &mut env, 30, [50, 0]);
        assert_eq!(gw.stats().flows[0].throttle_pps, None);
        period(&mut gw, &mut env, 35, [50, 0]);
        assert_eq!(gw.stats().flows[0].throttle_pps, None);
        assert_eq!((gw.stats().throttles, gw.stats().cancels), (2, 2));
    }
}
