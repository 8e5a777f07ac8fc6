//! The result of a run, serialized as the JSON document of `hoptcp run
//! --json`. Everything but `wall_time_s` is a deterministic function of the
//! scenario and the seed.

use super::Simulation;
use crate::app::http::{Http, HttpStats};
use crate::engine::time::to_secs;
use crate::gateway::tcp_gap::GatewayStats;
use crate::mac::{LinkReport, MacCounters};
use crate::net::ldm::LdmCounters;
use crate::net::routing::aodv::AodvCounters;
use crate::net::routing::{FlowRouteStats, Routing};
use crate::net::{drop_causes, N_DROP_CAUSES};
use crate::stats::batch_means::BatchMeansReport;
use crate::stats::series::{SeriesKind, SeriesLog, SeriesTable};
use crate::transport::TcpApStats;
use crate::wire::{packet_kinds, PacketKind};
use crate::wired::LinkStats;
use serde::Serialize;
use std::collections::BTreeMap;

/// The package version plus a digest of the core's source: runs of two cores
/// that differ in any way never share a results-store key.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+core.", env!("HOPTCP_CORE_DIGEST"));

#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    pub hoptcp_version: &'static str,
    pub seed: u64,
    pub duration_s: f64,
    /// Events dispatched: every queued event, and every arrival-group step
    /// of a frame run inline where its own event would have run.
    pub events: u64,
    /// Of `events`, those taken from the event queue (the inline steps
    /// excluded): the queue's own work.
    pub queue_entries: u64,
    pub wall_time_s: f64,
    pub flows: Vec<FlowReport>,
    /// The wireless nodes that took part (sensed or sent a frame), by id.
    /// The others did nothing: every counter of theirs is zero.
    pub nodes: Vec<NodeReport>,
    /// Wireless nodes in the topology, listed in `nodes` or not.
    pub node_count: u32,
    /// Drops by cause, plus `total` and `by_kind` (udp, tcp_data, tcp_ack).
    pub drops: BTreeMap<String, serde_json::Value>,
    /// Jain's index over the flows' goodput (null when every flow got nothing).
    pub fairness_jain: Option<f64>,
    pub aggregate_goodput_bps: f64,
    /// The MAC's retry-limit drops per wireless link (transmitter → next
    /// hop) and packet kind; links with none are left out.
    pub link_drops: Vec<LinkDropReport>,
    /// Packets sent with an RTS, by the number of their RTS left unanswered,
    /// summed over nodes (`nodes[].rts_retry_hist`): Lee et al.'s Fig. 8.
    pub rts_retry_hist: Vec<u64>,
    /// The routing protocol's activity (AODV only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<RoutingReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series: Option<SeriesReport>,
    /// With `stats.series`: each kind's points in long format (time, flow
    /// id, metric, value), recorded whenever a value changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_series: Option<BTreeMap<&'static str, SeriesTable>>,
    /// With `stats.series = ["air"]`: every frame on the air and its fate at
    /// each intended receiver, packet events and drops.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub air: Option<crate::stats::run_trace::AirTrace>,
    /// With `stats.batches`: batch means and confidence intervals of the
    /// aggregate goodput, Jain's index and each flow's goodput.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_means: Option<BatchMeansReport>,
    /// Settings that run but do nothing useful (e.g. ECN with no marker).
    pub warnings: Vec<String>,
    /// The wired domain (`[wired]`): link counters, wired nodes' drops and
    /// TCP-GAP's gateway.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wired: Option<WiredReport>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LinkDropReport {
    /// "from-to", the key of the flattened metrics (`link_drop.3-4.tcp_data`).
    pub id: String,
    pub from: u32,
    pub to: u32,
    pub tcp_data: u64,
    pub tcp_ack: u64,
    pub udp: u64,
    pub aodv: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct WiredReport {
    pub gateway: u32,
    /// Id of the first wired node (the wireless nodes are 0..first_node).
    pub first_node: u32,
    pub links: Vec<WiredLinkReport>,
    /// Drops at wired nodes (queue overflow on their links) by node id.
    pub node_drops: BTreeMap<String, u64>,
    /// Packets refused by full link queues, both directions of every link.
    pub link_drops: u64,
    /// TCP-GAP at the gateway (`[wired.tcp_gap]` enabled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp_gap: Option<GatewayStats>,
}

#[derive(Clone, Debug, Serialize)]
pub struct WiredLinkReport {
    pub a: u32,
    pub b: u32,
    pub bandwidth_bps: f64,
    pub delay_s: f64,
    pub queue_limit: u32,
    pub a_to_b: LinkStats,
    pub b_to_a: LinkStats,
}

/// Totals over all nodes of the routing protocol's counters.
#[derive(Clone, Debug, Serialize)]
pub struct RoutingReport {
    pub protocol: &'static str,
    #[serde(flatten)]
    pub totals: AodvCounters,
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowReport {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub transport: &'static str,
    pub app: &'static str,
    pub hops: u32,
    pub packets_sent: u64,
    pub packets_delivered: u64,
    pub bytes_delivered: u64,
    /// Payload bits delivered per second over the flow's active period
    /// (from max(start, warm-up) to its stop time).
    pub goodput_bps: f64,
    /// With `stats.batch_packets` = k: goodput (bit/s) over each batch of k
    /// delivered packets, the first measured from the flow's start (batch
    /// means: discard it as warm-up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_goodput_bps: Option<Vec<f64>>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpFlowReport>,
    /// Route breaks and discoveries of the flow's packets (AODV only).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub routing: Option<FlowRouteStats>,
    /// app = "http": pages started and completed, their sizes, transfer
    /// times and per-page goodput.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpStats>,
}

/// TCP sender statistics of a flow.
#[derive(Clone, Debug, Serialize)]
pub struct TcpFlowReport {
    /// Time-weighted average of min(cwnd, max_window), packets, with
    /// NewReno's fast-recovery inflation: the window the sender can use.
    pub avg_cwnd: f64,
    /// The same without the inflation: the average of ns-2's traced `cwnd_`,
    /// which is what the papers computed from their traces.
    pub avg_cwnd_traced: f64,
    /// Seconds spent at each window size (index = packets).
    pub cwnd_hist: Vec<f64>,
    pub final_cwnd: f64,
    pub avg_rtt_s: f64,
    pub rtt_samples: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    /// ACKs sent by the receiver.
    pub acks_sent: u64,
    /// TCP-AP (variant "tcp_ap"): the pacing rate, FHD^, the variation
    /// term and the pacing queue's delays.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pacing: Option<TcpApStats>,
    /// BBR (variant "bbr"): seconds in each state, the final estimates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bbr: Option<crate::transport::tcp::BbrStats>,
    /// SACK (`tcp.sack`): recoveries begun, completed without a timeout,
    /// rescue retransmissions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sack: Option<crate::transport::tcp::SackStats>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeReport {
    pub id: u32,
    pub x: f64,
    pub y: f64,
    #[serde(flatten)]
    pub mac: MacCounters,
    /// Packets the MAC took from the interface queue.
    pub mac_packets: u64,
    /// Of those, dropped after the retry limits.
    pub mac_drops: u64,
    /// Fraction of the run the MAC held a packet (the node was backlogged).
    pub backlog_frac: f64,
    pub queue_max: u32,
    /// Time-averaged queue length (packets waiting, excluding the MAC's).
    pub queue_avg: f64,
    pub drops: BTreeMap<&'static str, u64>,
    /// The node's AODV counters (AODV only).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub routing: Option<AodvCounters>,
    /// Link RED and adaptive pacing counters (only when one is on).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkReport>,
    /// Low Delay Marking's counters (only with `[ip.ldm]` on).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub ldm: Option<LdmCounters>,
}

#[derive(Clone, Debug, Serialize)]
pub struct SeriesReport {
    pub interval_s: f64,
    /// Goodput (bit/s) per interval, per flow id.
    pub flows: BTreeMap<String, Vec<f64>>,
    /// Route breaks per interval, per flow id (AODV only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_breaks: Option<BTreeMap<String, Vec<u64>>>,
}

pub(crate) fn build(sim: &mut Simulation, wall_time_s: f64) -> RunReport {
    let end = sim.end;
    let positions = &sim.w.channel.positions;
    let aodv = match &sim.w.routing {
        Routing::Aodv(r) => Some(r),
        Routing::Static(_) => None,
    };
    let node_count = sim.nodes.len() as u32;
    let nodes: Vec<NodeReport> = sim
        .nodes
        .created_mut()
        .into_iter()
        .map(|(id, n)| {
            let i = id as usize;
            let d = sim.w.drops.of_node(id);
            NodeReport {
                id: i as u32,
                x: positions[i].x,
                y: positions[i].y,
                mac: n.mac.counters.clone(),
                mac_packets: n.load.mac_packets,
                mac_drops: n.mac.counters.drops_rts_retry + n.mac.counters.drops_data_retry,
                backlog_frac: n.load.busy_until(end) as f64 / end.max(1) as f64,
                queue_max: n.ifq.max_len(),
                queue_avg: n.ifq.avg_len(end),
                drops: drop_causes().map(|(c, name)| (name, d[c as usize])).collect(),
                routing: aodv.map(|r| r.nodes[i].counters.clone()),
                link: n.mac.policy.report(end),
                ldm: sim.ldm.as_ref().map(|l| l.counters(i)),
            }
        })
        .collect();

    let mut drops = BTreeMap::new();
    let mut totals = [0u64; N_DROP_CAUSES];
    for d in sim.w.drops.by_node.values() {
        for c in 0..N_DROP_CAUSES {
            totals[c] += d[c];
        }
    }
    for (c, name) in drop_causes() {
        drops.insert(name.to_string(), serde_json::json!(totals[c as usize]));
    }
    drops.insert("total".into(), serde_json::json!(totals.iter().sum::<u64>()));
    let by_kind: BTreeMap<&str, BTreeMap<&str, u64>> = packet_kinds()
        .map(|(k, kname)| {
            (kname, drop_causes().map(|(c, cname)| (cname, sim.w.drops.by_kind[k as usize][c as usize])).collect())
        })
        .collect();
    drops.insert("by_kind".into(), serde_json::to_value(by_kind).unwrap());

    let warmup = sim.warmup;
    let flows: Vec<FlowReport> = sim
        .flows
        .iter()
        .map(|f| {
            let from = f.plan.start.max(warmup);
            let to = f.plan.stop.min(end).max(from);
            let secs = to_secs(to - from);
            FlowReport {
                id: f.plan.id,
                src: f.plan.src,
                dst: f.plan.dst,
                transport: if f.plan.tcp.is_some() { "tcp" } else { "udp" },
                app: f.plan.source.name(),
                hops: (f.plan.path.len() - 1) as u32,
                packets_sent: f.stats.packets_sent,
                packets_delivered: f.stats.packets_delivered,
                bytes_delivered: f.stats.bytes_delivered,
                goodput_bps: if secs > 0.0 { f.stats.goodput_bytes as f64 * 8.0 / secs } else { 0.0 },
                batch_goodput_bps: sim.batch_packets.map(|_| {
                    let mut prev = (f.plan.start, 0u64);
                    f.stats
                        .batch_marks
                        .iter()
                        .map(|&(t, b)| {
                            let g = (b - prev.1) as f64 * 8.0 / to_secs((t - prev.0).max(1));
                            prev = (t, b);
                            g
                        })
                        .collect()
                }),
                tcp: f.tcp.as_ref().map(|t| {
                    let s = t.sender.stats(end);
                    TcpFlowReport {
                        avg_cwnd: s.avg_window,
                        avg_cwnd_traced: s.avg_window_traced,
                        cwnd_hist: s.window_hist,
                        final_cwnd: s.final_cwnd,
                        avg_rtt_s: s.avg_rtt_s,
                        rtt_samples: s.rtt_samples,
                        retransmissions: s.retransmissions,
                        timeouts: s.timeouts,
                        fast_retransmits: s.fast_retransmits,
                        ecn_reductions: s.ecn_reductions,
                        acks_sent: t.receiver.stats().acks_sent,
                        pacing: s.pacing,
                        bbr: s.bbr,
                        sack: s.sack,
                    }
                }),
                routing: aodv.map(|r| r.flows[f.plan.id as usize].clone()),
                http: f.http.as_ref().map(Http::stats),
            }
        })
        .collect();

    let xs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    let fairness_jain = (sq > 0.0).then(|| sum * sum / (xs.len() as f64 * sq));

    let series = sim.series_interval.map(|iv| {
        let buckets = end.div_ceil(iv) as usize;
        let secs = to_secs(iv);
        SeriesReport {
            interval_s: secs,
            flows: sim
                .flows
                .iter()
                .map(|f| {
                    let mut v: Vec<f64> = f.stats.series.iter().map(|b| *b as f64 * 8.0 / secs).collect();
                    v.resize(buckets, 0.0);
                    (f.plan.id.to_string(), v)
                })
                .collect(),
            route_breaks: aodv.map(|r| {
                sim.flows
                    .iter()
                    .map(|f| {
                        let mut v = vec![0u64; buckets];
                        for &t in &r.flows[f.plan.id as usize].break_times {
                            if let Some(b) = v.get_mut((t / iv) as usize) {
                                *b += 1;
                            }
                        }
                        (f.plan.id.to_string(), v)
                    })
                    .collect()
            }),
        }
    });

    let mut rts_retry_hist: Vec<u64> = Vec::new();
    for n in &nodes {
        let h = &n.mac.rts_retry_hist;
        if rts_retry_hist.len() < h.len() {
            rts_retry_hist.resize(h.len(), 0);
        }
        rts_retry_hist.iter_mut().zip(h).for_each(|(a, b)| *a += b);
    }
    RunReport {
        hoptcp_version: VERSION,
        seed: sim.plan_seed,
        // The simulated time: shorter when the batch-means rule stopped the run.
        duration_s: if sim.stopped_at.is_some() { to_secs(end) } else { sim.duration_s },
        events: sim.w.q.events_processed(),
        queue_entries: sim.w.q.queue_entries(),
        wall_time_s,
        flows,
        nodes,
        node_count,
        drops,
        fairness_jain,
        aggregate_goodput_bps: sum,
        link_drops: sim
            .w
            .drops
            .by_link
            .iter()
            .map(|(&(from, to), d)| LinkDropReport {
                id: format!("{from}-{to}"),
                from,
                to,
                tcp_data: d[PacketKind::TcpData as usize],
                tcp_ack: d[PacketKind::TcpAck as usize],
                udp: d[PacketKind::Udp as usize],
                aodv: d[PacketKind::Aodv as usize],
            })
            .collect(),
        rts_retry_hist,
        routing: aodv.map(|r| RoutingReport {
            protocol: "aodv",
            totals: r.nodes.iter().fold(AodvCounters::default(), |mut t, n| {
                t += &n.counters;
                t
            }),
        }),
        series,
        time_series: time_series(sim),
        air: match sim.w.rec.as_deref_mut() {
            Some(r) => r.take_air(sim.w.drops.log.take(), &sim.w.channel.positions),
            None => None,
        },
        batch_means: sim.batch_means.as_ref().map(|bm| {
            let ids: Vec<u32> = sim.flows.iter().map(|f| f.plan.id).collect();
            bm.report(&ids, end)
        }),
        warnings: sim.warnings.clone(),
        wired: wired_report(sim),
    }
}

fn time_series(sim: &Simulation) -> Option<BTreeMap<&'static str, SeriesTable>> {
    let mut out = BTreeMap::new();
    for &kind in &sim.series_kinds {
        let table = match kind {
            SeriesKind::Gateway => match sim.gap.as_ref() {
                Some(g) => {
                    let stats = g.gateway.stats();
                    // Label: the flow's entry in the gateway's statistics;
                    // its port is the simulator's flow id.
                    let empty = SeriesLog::default();
                    let log = g.gateway.series().unwrap_or(&empty);
                    SeriesTable::from_log(kind, log, |k| stats.flows[k as usize].key.sport as u32)
                }
                None => SeriesTable::from_log(kind, &SeriesLog::default(), |k| k),
            },
            SeriesKind::TcpAp => match sim.ap_series.as_ref() {
                Some(a) => SeriesTable::from_log(kind, &a.log, |k| k),
                None => SeriesTable::from_log(kind, &SeriesLog::default(), |k| k),
            },
            // Recorded by the run trace (below), or not a table (air).
            _ => continue,
        };
        out.insert(kind.name(), table);
    }
    if let Some(r) = sim.w.rec.as_deref() {
        out.extend(r.tables().map(|(k, t)| (k.name(), t)));
    }
    (!out.is_empty()).then_some(out)
}

fn wired_report(sim: &mut Simulation) -> Option<WiredReport> {
    let w = sim.wired.as_mut()?;
    let links: Vec<WiredLinkReport> = w
        .links
        .iter_mut()
        .map(|l| {
            let [a, b] = l.ends();
            let p = *l.dir(0).params();
            WiredLinkReport {
                a,
                b,
                bandwidth_bps: p.bandwidth_bps,
                delay_s: to_secs(p.delay),
                queue_limit: p.queue_limit,
                a_to_b: l.dir(0).stats(),
                b_to_a: l.dir(1).stats(),
            }
        })
        .collect();
    let link_drops = links.iter().map(|l| l.a_to_b.drops + l.b_to_a.drops).sum();
    let node_drops =
        (w.first..w.first + w.count).map(|v| (v.to_string(), sim.w.drops.of_node(v).iter().sum())).collect();
    Some(WiredReport {
        gateway: w.gateway,
        first_node: w.first,
        links,
        node_drops,
        link_drops,
        tcp_gap: sim.gap.as_ref().map(|g| g.gateway.stats()),
    })
}
