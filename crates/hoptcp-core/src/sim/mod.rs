//! The simulator: owns the event queue and every node, flow and packet, and
//! is the only thing that dispatches events. Protocol logic lives in the
//! layers; this module wires them together.
//!
//! Packet path (ns-2's wireless node): source app → transport → routing →
//! link layer (LL delay) → interface queue → MAC → air → MAC → LL (delay) →
//! routing (forward: → LL → queue ...) → transport at the destination.
//! The network layer (IP input and output, routing, the interface queue)
//! is in `ip.rs`; the contexts through which the MAC and AODV act on the
//! world are `node_ctx.rs` and `route_ctx.rs`.

mod air;
mod ip;
mod node_ctx;
mod node_table;
pub mod report;
mod route_ctx;
#[cfg(test)]
mod tcp_fake_network_tests;
mod wired;

use crate::app::cbr::Cbr;
use crate::app::http::Http;
use crate::app::Source;
use crate::engine::Slab;
use crate::engine::{EventQueue, RngStream, StreamPurpose, Time};
use crate::mac::{Dcf, FuLink, FuLinkConfig, LinkPolicy, LinkRed, MacParams, MacTimer, RetryAverage, N_TIMERS};
use crate::net::routing::{AodvRouting, Routing, RoutingConfig, StaticRoutes};
use crate::net::IfQueue;
use crate::phy::Channel;
use crate::scenario::{FlowPlan, Plan};
use crate::stats::batch_means::BatchMeans;
use crate::stats::pcap::FlowInfo;
use crate::stats::run_trace::RunTrace;
use crate::stats::series::{LastValues, PacingMetric, SeriesKind, SeriesLog};
use crate::transport::udp::UDP_IP_HEADER_BYTES;
use crate::transport::{TcpConfig, TcpReceiver, TcpSender};
use crate::wire::{Body, Ecn, Packet};
use air::{PendingEnds, Transmission};
use node_ctx::{Drops, NodeCtx, NodeLoad, Trace};
use node_table::NodeTable;
pub use report::RunReport;

/// Events are small `Copy` records; node and flow ids index Vecs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ev {
    /// The next step of frame `tx` on the air (`air.rs`): its first bit
    /// reaches a group of hearers, or it ends at one.
    /// (`step`: the group reached, or `air::END` | the group it ends at).
    Air {
        tx: u32,
        step: u32,
    },
    Mac {
        node: u32,
        timer: u8,
        gen: u32,
    },
    /// Packet enters `node`'s interface queue after the LL delay.
    LlDown {
        node: u32,
        pkt: u32,
    },
    /// Packet reaches `node`'s network layer after the LL delay.
    LlUp {
        node: u32,
        pkt: u32,
    },
    /// A CBR source is due.
    App {
        flow: u32,
    },
    /// A TCP flow's application starts (FTP: infinite backlog) or stops.
    FlowStart {
        flow: u32,
    },
    /// An FTP application pauses (`pauses`): no new data until the next
    /// FlowStart.
    FlowPause {
        flow: u32,
    },
    FlowStop {
        flow: u32,
    },
    /// An HTTP flow's think time is over: the next page starts.
    HttpPage {
        flow: u32,
    },
    /// A TCP sender (side 0) or receiver (side 1) timer.
    Tcp {
        flow: u32,
        side: u8,
        gen: u32,
    },
    /// The routing protocol's periodic purge, for every node (AODV only).
    RouteTick,
    /// AODV's local-repair timer at `node` for destination `dst`.
    RouteTimer {
        node: u32,
        dst: u32,
    },
    /// AODV's HELLO timer at `node` (HELLO link detection only).
    Hello {
        node: u32,
    },
    /// AODV's neighbour-table purge, for every node (HELLO detection only).
    NeighborTick,
    /// A wired link's direction finished sending its packet.
    WireTxEnd {
        link: u32,
        dir: u8,
    },
    /// A packet reaches `node` over a wired link.
    WireRx {
        node: u32,
        pkt: u32,
    },
    /// TCP-GAP's gateway timer.
    GapTimer {
        gen: u32,
    },
}

/// `repr(C)`: the MAC's hot state first (see `Dcf`).
#[repr(C, align(64))]
pub(crate) struct Node {
    pub mac: Dcf,
    pub ifq: IfQueue,
    pub load: NodeLoad,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct FlowStats {
    pub packets_sent: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// Payload bytes delivered after the warm-up.
    pub goodput_bytes: u64,
    /// Payload bytes delivered per series interval.
    pub series: Vec<u64>,
    /// (time, bytes delivered) each time another `batch_packets` packets
    /// have been delivered.
    pub batch_marks: Vec<(Time, u64)>,
}

pub(crate) struct Flow {
    pub plan: FlowPlan,
    pub cbr: Option<Cbr>,
    pub tcp: Option<TcpFlow>,
    pub http: Option<Http>,
    pub stats: FlowStats,
}

/// Both ends of a TCP connection and their timers as scheduled events.
pub(crate) struct TcpFlow {
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    /// Per side: generation of the scheduled timer event and its time.
    pub timer: [(u32, Option<Time>); 2],
    /// The application stopped: nothing more is sent.
    pub stopped: bool,
}

impl FlowStats {
    /// Record a batch mark for every multiple of `k` delivered packets passed.
    fn mark_batches(&mut self, now: Time, k: Option<u32>) {
        if let Some(k) = k {
            while self.packets_delivered >= (self.batch_marks.len() as u64 + 1) * k as u64 {
                self.batch_marks.push((now, self.bytes_delivered));
            }
        }
    }

    /// Count `bytes` of payload delivered at `now` towards goodput (only
    /// within [warm-up, the flow's stop time], the period goodput is divided
    /// by) and the time series.
    fn count_goodput(&mut self, now: Time, bytes: u64, warmup: Time, stop: Time, interval: Option<Time>) {
        if now >= warmup && now <= stop {
            self.goodput_bytes += bytes;
        }
        if let Some(iv) = interval {
            let b = (now / iv) as usize;
            if self.series.len() <= b {
                self.series.resize(b + 1, 0);
            }
            self.series[b] += bytes;
        }
    }
}

/// A TCP connection of flow `id` set up from its TCP settings.
fn tcp_flow(id: u32, cfg: &TcpConfig, seed: u64) -> TcpFlow {
    let mut sender = TcpSender::new(cfg);
    // ns-2 offsets each agent's 10 ms RTT clock by a random boot time.
    let mut rng = RngStream::new(seed, id as u64, StreamPurpose::Transport);
    sender.set_tick_phase((rng.uniform() * cfg.tick as f64) as Time);
    // Drawn after the tick phase, so other variants' streams are unchanged.
    if cfg.variant == crate::transport::tcp::Variant::Bbr {
        sender.seed_controller((rng.uniform() * (1u64 << 53) as f64) as u64);
    }
    TcpFlow { sender, receiver: TcpReceiver::new(cfg), timer: [(0, None); 2], stopped: false }
}

/// The event queue's timer slot of `node`'s MAC timer `timer`. The flows'
/// TCP timers take the first slots (two per flow) and the nodes' come after
/// them, so the queue's per-slot arrays grow only as far as the highest node
/// that takes part, not to the topology's size.
#[inline]
pub(crate) fn mac_timer_slot(first: u32, node: u32, timer: MacTimer) -> u32 {
    first + node * N_TIMERS as u32 + timer as u32
}

pub struct Simulation {
    /// What a node's MAC acts on, handed to it whole (`NodeCtx`).
    w: World,
    nodes: NodeTable,
    p: MacParams,
    /// Per frame on the air: its pending ends.
    air_ends: PendingEnds,
    flows: Vec<Flow>,
    end: Time,
    ttl: u8,
    warmup: Time,
    series_interval: Option<Time>,
    batch_packets: Option<u32>,
    /// The batch-means stop rule (`stats.batches`).
    batch_means: Option<BatchMeans>,
    /// When the stop rule ended the run.
    stopped_at: Option<Time>,
    next_uid: u64,
    plan_seed: u64,
    duration_s: f64,
    warnings: Vec<String>,
    /// The wired domain (`[wired]`) and TCP-GAP at its gateway.
    wired: Option<crate::wired::WiredNet>,
    gap: Option<Box<wired::GapState>>,
    /// Low Delay Marking at the forwarding nodes (`[ip.ldm]`; None: off).
    ldm: Option<ip::LdmRun>,
    /// `stats.series = ["tcp_ap"]`: TCP-AP senders' estimates (None: off).
    ap_series: Option<Box<ApSeries>>,
    /// `stats.series`: the kinds the report carries.
    series_kinds: Vec<SeriesKind>,
}

/// The part of the simulation every node's MAC acts on: the event queue, the
/// air, packets, drop counters, routing and traces. One struct, so a node's
/// context is a pointer to it plus the node's own parts, not a dozen
/// references rebuilt at every hearer.
pub(crate) struct World {
    pub q: EventQueue<Ev>,
    /// The first MAC timer slot (`mac_timer_slot`): after the TCP ends'.
    pub mac_slot_base: u32,
    pub channel: Channel,
    pub packets: Slab<Packet>,
    pub txs: Slab<Transmission>,
    pub routing: Routing,
    pub drops: Drops,
    pub ll_delay: Time,
    pub trace: Option<Trace>,
    /// Which ids are wired (the gateway stands for them in AODV).
    pub domains: wired::Domains,
    /// `stats.series` kinds of TCP, queue and MAC state and the air trace
    /// (None: none asked for, and no recording work at all).
    pub rec: Option<Box<RunTrace>>,
}

/// The `tcp_ap` time series: points, and per flow its last values and how
/// many RTT samples its estimator had taken.
#[derive(Default)]
pub(crate) struct ApSeries {
    pub log: SeriesLog,
    last: Vec<(LastValues, u64)>,
}

/// Node `node`'s link policy: standard 802.11 (None), or Fu et al.'s Link
/// RED and/or adaptive pacing with the node's own Link RED stream.
pub(crate) fn link_policy(link: Option<&FuLinkConfig>, seed: u64, node: u32) -> LinkPolicy {
    let Some(c) = link else { return LinkPolicy::Standard };
    LinkPolicy::Fu(FuLink {
        retry_avg: RetryAverage::new(c.weight),
        min_th: c.min_th,
        red: c.red.map(|params| LinkRed::new(params, RngStream::new(seed, node as u64, StreamPurpose::LinkRed))),
        pacing: c.pacing.clone(),
        counters: Default::default(),
    })
}

impl Simulation {
    /// Build a simulation of `plan` with run seed `seed`.
    pub fn new(plan: Plan, seed: u64) -> Self {
        let batch_plan = plan.stats.batch_means;
        let n = plan.channel.len();
        let nodes = NodeTable::new(n, seed, plan.mac.timing.cw_min, plan.queue_limit, plan.link.clone());
        let routing = match plan.routing {
            RoutingConfig::Static => {
                Routing::Static(StaticRoutes::new(plan.flows.iter().map(|f| f.path.clone()).collect()))
            }
            RoutingConfig::Aodv(params) => Routing::Aodv(AodvRouting::new(params, n, plan.flows.len(), seed)),
        };
        let flows = plan
            .flows
            .iter()
            .map(|f| Flow {
                plan: f.clone(),
                cbr: match f.source {
                    Source::Cbr { rate_bps, packet_bytes, jitter } => {
                        let rng = RngStream::new(seed, f.id as u64, StreamPurpose::AppTraffic);
                        Some(Cbr::new(rate_bps, packet_bytes, f.start, f.stop, jitter, rng))
                    }
                    _ => None,
                },
                tcp: f.tcp.as_ref().map(|cfg| tcp_flow(f.id, cfg, seed)),
                http: match f.source {
                    Source::Http(p) => Some(Http::new(p, RngStream::new(seed, f.id as u64, StreamPurpose::Http))),
                    _ => None,
                },
                stats: FlowStats::default(),
            })
            .collect();
        let st = plan.stats;
        let mut sim = Simulation {
            w: World {
                q: EventQueue::new(),
                mac_slot_base: 2 * plan.flows.len() as u32,
                channel: plan.channel,
                packets: Slab::default(),
                txs: Slab::default(),
                routing,
                drops: Drops::new(),
                ll_delay: plan.ll_delay,
                trace: None,
                domains: plan
                    .wired
                    .as_ref()
                    .map_or(wired::Domains::WIRELESS, |w| wired::Domains { first_wired: w.first, gateway: w.gateway }),
                rec: RunTrace::new(&st.series, plan.flows.len(), n, st.air_window).map(Box::new),
            },
            nodes,
            p: plan.mac,
            air_ends: PendingEnds::default(),
            flows,
            end: plan.end,
            ttl: plan.ttl,
            warmup: st.warmup,
            series_interval: st.interval,
            batch_packets: st.batch_packets,
            batch_means: None,
            stopped_at: None,
            next_uid: 0,
            plan_seed: seed,
            duration_s: plan.duration_s,
            warnings: plan.warnings,
            gap: plan.gap.map(|cfg| {
                let mut gateway = crate::gateway::tcp_gap::Gateway::new(cfg);
                if st.series.contains(&SeriesKind::Gateway) {
                    gateway.record_series();
                }
                Box::new(wired::GapState { gateway, timer: (0, None), out: Vec::new() })
            }),
            wired: plan.wired,
            ldm: plan.ldm.map(|l| ip::LdmRun::new(l, &plan.flows, n, seed)),
            ap_series: st.series.contains(&SeriesKind::TcpAp).then(|| {
                Box::new(ApSeries { log: SeriesLog::default(), last: vec![Default::default(); plan.flows.len()] })
            }),
            series_kinds: st.series,
        };
        if sim.w.rec.as_ref().is_some_and(|r| r.air_on()) {
            sim.w.drops.log = Some(Vec::new());
        }
        if sim.w.routing.is_aodv() {
            // ns-2 starts each AODV agent's timers at time 0.
            sim.w.q.schedule_at(0, Ev::RouteTick);
            if sim.w.routing.aodv_hello() {
                for node in 0..sim.nodes.len() as u32 {
                    sim.w.q.schedule_at(0, Ev::Hello { node });
                }
                sim.w.q.schedule_at(0, Ev::NeighborTick);
            }
        }
        if let Some(b) = batch_plan {
            let start = sim.flows.iter().map(|f| f.plan.start).min().unwrap_or(0);
            sim.batch_means =
                Some(BatchMeans::new(b.batch_packets, b.batches, b.discard, b.confidence, sim.flows.len(), start));
        }
        for (i, f) in sim.flows.iter().enumerate() {
            if let Some(t) = f.cbr.as_ref().and_then(|c| c.next_time()) {
                sim.w.q.schedule_at(t, Ev::App { flow: i as u32 });
            }
            if f.tcp.is_some() {
                sim.w.q.schedule_at(f.plan.start, Ev::FlowStart { flow: i as u32 });
                if f.plan.stop < sim.end {
                    sim.w.q.schedule_at(f.plan.stop, Ev::FlowStop { flow: i as u32 });
                }
                if let Source::Ftp { pauses } = &f.plan.source {
                    for &(from, to) in pauses {
                        sim.w.q.schedule_at(from, Ev::FlowPause { flow: i as u32 });
                        sim.w.q.schedule_at(to, Ev::FlowStart { flow: i as u32 });
                    }
                }
            }
        }
        sim
    }

    /// Write a pcapng trace: per node, the frames it sent and received;
    /// with `node`, that node's frames alone, in a file with one interface.
    pub fn trace_node_to(&mut self, path: &std::path::Path, node: Option<u32>) -> std::io::Result<()> {
        let flows = self
            .flows
            .iter()
            .map(|f| match &f.plan.tcp {
                Some(cfg) => FlowInfo { mss: cfg.payload_bytes, syn: cfg.syn },
                None => FlowInfo { mss: 1, syn: false },
            })
            .collect();
        self.w.trace = Some(Trace {
            pcap: match node {
                None => crate::stats::pcap::PcapTrace::create(path, self.nodes.len() as u32, flows)?,
                Some(k) => crate::stats::pcap::PcapTrace::create_for_node(path, k, flows)?,
            },
            data_rate_bps: self.p.timing.data_rate_bps,
            basic_rate_bps: self.p.timing.basic_rate_bps,
            standard: self.p.timing.standard,
            error: None,
        });
        Ok(())
    }

    /// Wireless nodes in the topology.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Run to the end and report, calling `observe(fraction of simulated time done)` every
    /// 2^16 events; if it returns false the run stops and `Ok(None)` is
    /// returned (used for progress bars and Ctrl-C).
    pub fn run_observed(mut self, mut observe: impl FnMut(f64) -> bool) -> std::io::Result<Option<RunReport>> {
        let started = std::time::Instant::now();
        // Checks so far (one per 2^16 events; a frame's inline steps count too).
        let mut checks: u64 = 0;
        while let Some(t) = self.w.q.peek_time() {
            if t > self.end {
                break;
            }
            let (now, ev) = self.w.q.pop().unwrap();
            self.dispatch(now, ev);
            if self.w.q.events_processed() >> 16 > checks {
                checks = self.w.q.events_processed() >> 16;
                if !observe(self.w.q.now() as f64 / self.end.max(1) as f64) {
                    return Ok(None);
                }
            }
        }
        let wall = started.elapsed().as_secs_f64();
        if let Some(tr) = self.w.trace.take() {
            if let Some(e) = tr.error {
                return Err(e);
            }
            tr.pcap.finish()?;
        }
        Ok(Some(report::build(&mut self, wall)))
    }

    fn dispatch(&mut self, now: Time, ev: Ev) {
        match ev {
            Ev::Air { tx, step } => self.air_step(now, tx, step),
            Ev::Mac { node, timer, gen } => {
                self.with_node(now, node, |mac, p, ctx| {
                    mac.on_timer(MacTimer::from_repr(timer).expect("a MAC timer number"), gen, p, ctx)
                });
            }
            Ev::LlDown { node, pkt } => self.enqueue(now, node, pkt),
            Ev::LlUp { node, pkt } => self.net_receive(now, node, pkt, false),
            Ev::App { flow } => self.cbr_tick(now, flow),
            Ev::FlowStart { flow } | Ev::HttpPage { flow } => {
                let f = &mut self.flows[flow as usize];
                let Some(t) = f.tcp.as_mut() else { return };
                // CBR over TCP: the source's ticks fill the send buffer.
                if t.stopped || f.cbr.is_some() {
                    return;
                }
                // FTP: an infinite backlog; HTTP: the next page.
                let packets = f.http.as_mut().map_or(crate::app::FTP_BACKLOG, |h| h.start_page(now));
                t.sender.add_data(now, packets);
                self.pump_tcp(now, flow);
            }
            Ev::FlowPause { flow } => {
                if let Some(t) = self.flows[flow as usize].tcp.as_mut() {
                    t.sender.withhold_new_data();
                }
            }
            Ev::FlowStop { flow } => {
                if let Some(t) = self.flows[flow as usize].tcp.as_mut() {
                    t.stopped = true;
                }
            }
            Ev::Tcp { flow, side, gen } => {
                let Some(t) = self.flows[flow as usize].tcp.as_mut() else { return };
                let slot = &mut t.timer[side as usize];
                if slot.0 != gen {
                    return;
                }
                slot.1 = None;
                if side == 0 {
                    if t.stopped {
                        return;
                    }
                    t.sender.on_timer(now);
                } else {
                    t.receiver.on_timer(now);
                }
                self.pump_tcp(now, flow);
            }
            Ev::RouteTick => self.route_tick(now),
            Ev::Hello { node } => self.hello(now, node),
            Ev::NeighborTick => self.neighbor_tick(now),
            Ev::RouteTimer { node, dst } => {
                if let Routing::Aodv(r) = &mut self.w.routing {
                    r.nodes[node as usize].local_repair_timeout(dst);
                }
            }
            Ev::WireTxEnd { link, dir } => self.wire_tx_end(now, link, dir),
            Ev::WireRx { node, pkt } => {
                let pk = self.w.packets.get_mut(pkt);
                pk.wired_hops = pk.wired_hops.saturating_add(1);
                self.net_receive(now, node, pkt, true);
            }
            Ev::GapTimer { gen } => self.gap_timer(now, gen),
        }
    }

    /// Run `f` on `node`'s MAC with a context giving it the rest of the world.
    #[inline]
    fn with_node(&mut self, now: Time, node: u32, f: impl FnOnce(&mut Dcf, &MacParams, &mut NodeCtx)) {
        self.with_node_ctx(now, node, None, f)
    }

    /// As `with_node`; with `batch_rx`, reception timers are left to the
    /// caller's group RxEnd event (set to true if any was started).
    #[inline]
    fn with_node_ctx(
        &mut self,
        now: Time,
        node: u32,
        batch_rx: Option<&mut bool>,
        f: impl FnOnce(&mut Dcf, &MacParams, &mut NodeCtx),
    ) {
        let (n, recv_due) = self.nodes.get_mut_with_recv_due(node);
        let mut ctx = NodeCtx { now, node, w: &mut self.w, ifq: &mut n.ifq, load: &mut n.load, recv_due, batch_rx };
        f(&mut n.mac, &self.p, &mut ctx);
        if self.w.rec.is_some() {
            self.observe_node(now, node);
        }
    }

    /// The `queue` and `mac` series: `node` after something acted on it.
    #[inline]
    pub(super) fn observe_node(&mut self, now: Time, node: u32) {
        let Some(r) = self.w.rec.as_deref_mut() else { return };
        if !(r.wants(SeriesKind::Queue) || r.wants(SeriesKind::Mac)) {
            return;
        }
        let n = self.nodes.get_mut(node);
        let drops = self.w.drops.of_node(node).iter().sum();
        r.node(now, node, n.ifq.len(), n.mac.activity(), n.mac.counters.retries, drops);
    }

    fn cbr_tick(&mut self, now: Time, flow: u32) {
        let f = &mut self.flows[flow as usize];
        let Some(cbr) = f.cbr.as_mut() else { return };
        let (seq, payload) = cbr.emit();
        let next = cbr.next_time();
        if let Some(t) = next {
            self.w.q.schedule_at(t, Ev::App { flow });
        }
        if let Some(t) = f.tcp.as_mut() {
            // Over TCP the packet's bytes go into the send buffer, whole
            // segments (ns-2 TcpAgent::sendmsg rounds up); TCP sends what
            // its window allows.
            if !t.stopped {
                let mss = f.plan.tcp.as_ref().map_or(1, |c| c.payload_bytes).max(1);
                t.sender.add_data(now, payload.div_ceil(mss) as u64);
                self.pump_tcp(now, flow);
            }
            return;
        }
        f.stats.packets_sent += 1;
        self.originate(now, flow, false, payload + UDP_IP_HEADER_BYTES, Ecn::NotEct, Body::Udp { seq, payload });
    }

    /// A packet reached its destination node.
    fn deliver(&mut self, now: Time, pk: Packet) {
        let flow = pk.flow as usize;
        let delivered_before = self.flows[flow].stats.packets_delivered;
        self.deliver_to_flow(now, pk);
        let delivered = self.flows[flow].stats.packets_delivered - delivered_before;
        if let Some(bm) = self.batch_means.as_mut().filter(|_| delivered > 0) {
            let flows = &self.flows;
            if bm.on_delivered(now, delivered, |i| flows[i].stats.bytes_delivered) && self.stopped_at.is_none() {
                // All batches done: the run ends once the events of this
                // instant have run.
                self.stopped_at = Some(now);
                self.end = now;
            }
        }
    }

    fn deliver_to_flow(&mut self, now: Time, pk: Packet) {
        self.deliver_to_agent(now, pk);
        if let Some(r) = self.w.rec.as_deref_mut() {
            r.goodput(now, pk.flow, self.flows[pk.flow as usize].stats.bytes_delivered);
        }
    }

    fn deliver_to_agent(&mut self, now: Time, pk: Packet) {
        let (warmup, interval, batch) = (self.warmup, self.series_interval, self.batch_packets);
        let f = &mut self.flows[pk.flow as usize];
        match pk.body {
            Body::Udp { payload, .. } => {
                f.stats.packets_delivered += 1;
                f.stats.bytes_delivered += payload as u64;
                f.stats.count_goodput(now, payload as u64, warmup, f.plan.stop, interval);
                f.stats.mark_batches(now, batch);
            }
            Body::Tcp(seg) => {
                let Some(t) = f.tcp.as_mut() else { return };
                if pk.reverse {
                    if !t.stopped {
                        // Hops travelled (counted at each reception; equal to
                        // the TTL's decrease + 1, whatever the initial TTL,
                        // which AODV sets to its network diameter).
                        let hops = pk.wireless_hops();
                        t.sender.on_segment_via(now, &seg, hops);
                        if let Some(h) = f.http.as_mut().filter(|_| t.sender.all_acked()) {
                            if let Some(next) = h.page_done(now) {
                                self.w.q.schedule_at(next, Ev::HttpPage { flow: pk.flow });
                            }
                        }
                    }
                } else {
                    let before = t.receiver.stats();
                    t.receiver.on_segment(now, &seg, pk.ecn == Ecn::Ce);
                    let after = t.receiver.stats();
                    f.stats.packets_delivered = after.packets_delivered;
                    f.stats.bytes_delivered = after.bytes_delivered;
                    let bytes = after.bytes_delivered - before.bytes_delivered;
                    f.stats.count_goodput(now, bytes, warmup, f.plan.stop, interval);
                    f.stats.mark_batches(now, batch);
                }
                self.pump_tcp(now, pk.flow);
            }
            // Routing messages never reach the transport layer.
            Body::Aodv(_) => {}
        }
    }

    /// The `tcp_ap` series: flow `flow`'s sender after it acted.
    fn record_ap(&mut self, now: Time, flow: u32) {
        let Some(ap) = self.flows[flow as usize].tcp.as_ref().and_then(|t| t.sender.pacing()) else { return };
        let Some(series) = self.ap_series.as_mut() else { return };
        let (last, seen) = &mut series.last[flow as usize];
        let est = ap.estimator();
        let log = &mut series.log;
        if est.samples() != *seen {
            *seen = est.samples();
            log.push(now, flow, PacingMetric::RttWirelessS, est.last_rtt_s());
            if let Some(fhd) = est.fhd_s() {
                log.changed(last, now, flow, PacingMetric::FhdS, fhd);
                log.changed(last, now, flow, PacingMetric::Variation, est.variation());
            }
            if let Some(r) = est.rate_pps() {
                log.changed(last, now, flow, PacingMetric::RatePps, r);
            }
        }
        log.changed(last, now, flow, PacingMetric::Queue, ap.queued() as f64);
    }

    /// Send whatever both TCP ends want to send now and keep their timer
    /// events in step with their deadlines.
    fn pump_tcp(&mut self, now: Time, flow: u32) {
        loop {
            let t = self.flows[flow as usize].tcp.as_mut().expect("TCP flow");
            let seg = if t.stopped { None } else { t.sender.poll_transmit(now) };
            let Some(seg) = seg else { break };
            self.flows[flow as usize].stats.packets_sent += 1;
            let ecn = if seg.ect { Ecn::Ect } else { Ecn::NotEct };
            self.originate(now, flow, false, seg.ip_bytes(), ecn, Body::Tcp(seg));
        }
        while let Some(ack) = self.flows[flow as usize].tcp.as_mut().and_then(|t| t.receiver.poll_transmit(now)) {
            self.originate(now, flow, true, ack.ip_bytes(), Ecn::NotEct, Body::Tcp(ack));
        }
        if self.ap_series.is_some() {
            self.record_ap(now, flow);
        }
        if let Some(r) = self.w.rec.as_deref_mut() {
            if let Some(t) = self.flows[flow as usize].tcp.as_ref() {
                r.flow(now, flow, &t.sender);
            }
        }
        let t = self.flows[flow as usize].tcp.as_mut().expect("TCP flow");
        let due = [if t.stopped { None } else { t.sender.next_timer() }, t.receiver.next_timer()];
        for (side, (slot, due)) in t.timer.iter_mut().zip(due).enumerate() {
            if slot.1 != due {
                slot.0 = slot.0.wrapping_add(1);
                slot.1 = due;
                let id = 2 * flow + side as u32;
                match due {
                    Some(at) => self.w.q.arm(id, at.max(now), Ev::Tcp { flow, side: side as u8, gen: slot.0 }),
                    None => self.w.q.cancel(id),
                }
            }
        }
    }
}
