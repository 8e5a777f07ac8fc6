//! From a resolved scenario to a concrete network plan: node positions, the
//! channel, and every flow with its route. Checks that need the topology
//! (node ids in range, connectivity, explicit routes) live here.

use super::error::ScenarioError;
use super::keys as k;
use super::resolved::{BatchStop, Flow, Given, Inherit, Limit, Resolved, Route, Tcp, Topology, Traffic};
use super::schema::{AppKind, TransportKind};
use crate::app::http::HttpParams;
use crate::engine::{time::from_secs, RngStream, StreamPurpose, Time};
use crate::phy::{Channel, Position, TwoRayGround};
use crate::topology;
use crate::wired::WiredNet;

/// One flow, ready to simulate.
#[derive(Clone, Debug)]
pub struct FlowPlan {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub transport: TransportKind,
    pub app: AppKind,
    /// CBR only.
    pub rate_bps: f64,
    pub packet_bytes: u32,
    pub jitter: f64,
    pub start: Time,
    pub stop: Time,
    /// FTP: intervals without new data from the application (`pauses`).
    pub pauses: Vec<(Time, Time)>,
    /// Node ids from src to dst (static route); ACKs use the reverse.
    pub path: Vec<u32>,
    /// TCP only: the [tcp] defaults with this flow's overrides applied.
    pub tcp: Tcp,
    /// app = "http": the page and think-time model.
    pub http: Option<HttpParams>,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub scenario: Resolved,
    pub channel: Channel,
    pub flows: Vec<FlowPlan>,
    /// The wired domain (`[wired]`); its node ids follow the channel's.
    pub wired: Option<WiredNet>,
    /// The resolved radio rates (Mb/s): data frames, control frames.
    pub rates_mbps: (f64, f64),
    /// The resolved contention window bounds (slots): CWmin, CWmax.
    pub cw: (u32, u32),
    /// Batch means as a stop rule (`stats.batches` with `batch_packets`).
    pub batch_means: Option<BatchMeansPlan>,
}

/// `[stats]` batch means with every value resolution filled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchMeansPlan {
    pub batch_packets: u32,
    pub batches: u32,
    pub discard: u32,
    pub confidence: f64,
}

impl Plan {
    /// The concrete network as JSON, for tools that rebuild the same run
    /// elsewhere (the ns-2 exporter): the resolved scenario, node positions,
    /// each node's links, and every flow with its route and TCP settings.
    pub fn to_json(&self) -> serde_json::Value {
        use crate::engine::time::to_secs;
        let n = self.channel.len() as u32;
        let flows: Vec<serde_json::Value> = self
            .flows
            .iter()
            .map(|f| {
                serde_json::json!({
                    "id": f.id,
                    "src": f.src,
                    "dst": f.dst,
                    "transport": f.transport,
                    "app": f.app,
                    "rate_bps": f.rate_bps,
                    "packet_bytes": f.packet_bytes,
                    "jitter": f.jitter,
                    "start_s": to_secs(f.start),
                    "stop_s": to_secs(f.stop),
                    "path": f.path,
                    "tcp": f.tcp,
                })
            })
            .collect();
        serde_json::json!({
            "scenario": self.scenario,
            "positions": self.channel.positions.iter().map(|p| [p.x, p.y]).collect::<Vec<_>>(),
            "links": (0..n).map(|u| self.channel.links_of(u).collect::<Vec<u32>>()).collect::<Vec<_>>(),
            "flows": flows,
        })
    }
}

pub fn build(sc: &Resolved) -> Result<Plan, ScenarioError> {
    let rates_mbps = (sc.radio.data_rate_mbps, sc.radio.basic_rate_mbps);
    let cw = (sc.mac.cw_min, sc.mac.cw_max);
    let batch_means = match (sc.stats.stop, &sc.stats.batch_packets) {
        (BatchStop::RunToEnd, _) => None,
        (BatchStop::Batches { batches, discard, confidence }, Given::Given(batch_packets)) => {
            Some(BatchMeansPlan { batch_packets: *batch_packets, batches, discard, confidence })
        }
        // `resolve` refuses batches without batch_packets.
        (BatchStop::Batches { .. }, Given::Absent) => {
            return Err(ScenarioError::new("stats.batches", "`stats.batches` needs `stats.batch_packets`"))
        }
    };
    let positions = topology::positions(&layout(&sc.topology, sc.seed));
    let model = TwoRayGround {
        pt_w: sc.radio.tx_power_w,
        gt: 1.0,
        gr: 1.0,
        ht_m: sc.radio.antenna_height_m,
        hr_m: sc.radio.antenna_height_m,
        loss: sc.radio.system_loss,
        freq_hz: sc.radio.frequency_hz,
    };
    let channel = Channel::build(positions, model, sc.radio.tx_range_m, sc.radio.cs_range_m);
    let n = channel.len() as u32;
    let comp = channel.components();
    if let Topology::Random { require_connected: true, topology_seed, .. } = &sc.topology {
        let k = comp.iter().copied().max().map_or(0, |m| m + 1);
        if k > 1 {
            return Err(ScenarioError::new(
                "topology.topology_seed",
                format!(
                    "the random topology drawn with seed {} is disconnected ({k} components at radio.tx_range_m = {}): choose another topology.topology_seed, more nodes or a smaller area, or set topology.require_connected = false",
                    topology_seed.or(sc.seed),
                    sc.radio.tx_range_m
                ),
            ));
        }
    }
    let links = |u: u32| channel.links_of(u).collect::<Vec<u32>>();
    let wired = sc.wired.get().map(|w| {
        let links: Vec<_> = w.links.iter().map(|l| (l.a, l.b, l.params())).collect();
        WiredNet::new(n, w.nodes, w.gateway, &links)
    });
    let n_all = n + wired.as_ref().map_or(0, |w| w.count);
    let mut flows = Vec::new();
    let end = from_secs(sc.duration_s);
    for (i, f) in sc.flows.iter().enumerate() {
        let key = format!("flows.{i}");
        for (k, v) in [("src", f.src), ("dst", f.dst)] {
            if v >= n_all {
                let wired_ids = if n_all > n { format!(" and wired {n}..={}", n_all - 1) } else { String::new() };
                return Err(ScenarioError::value(
                    &format!("{key}.{k}"),
                    v,
                    format!("node ids are 0..={} ({n} nodes){wired_ids}", n - 1),
                ));
            }
        }
        let path = match (&f.route, &wired) {
            (Route::Explicit(_), Some(w)) if w.is_wired(f.src) || w.is_wired(f.dst) => {
                return Err(ScenarioError::new(
                    format!("{key}.route"),
                    format!("`{key}.route` cannot name wired nodes: routes through the wired domain follow [wired]'s links (remove the route)"),
                ))
            }
            (Route::Shortest, Some(w)) if w.is_wired(f.src) || w.is_wired(f.dst) => {
                // Wireless part to or from the gateway, wired part over the links.
                let gw = w.gateway;
                let wireless = |a: u32, b: u32| {
                    topology::shortest_path(n as usize, links, a, b).ok_or_else(|| {
                        ScenarioError::new(
                            key.clone(),
                            format!(
                                "`{key}` (node {} → node {}) is unroutable: no chain of links within radio.tx_range_m = {} joins node {a} and the gateway (node {gw})",
                                f.src, f.dst, sc.radio.tx_range_m
                            ),
                        )
                    })
                };
                // Validation checked the wired graph connected; a gap is still an error, not a panic.
                let wired_path = |a: u32, b: u32| {
                    w.path(a, b).ok_or_else(|| {
                        ScenarioError::new(key.clone(), format!("`{key}`: no wired path from node {a} to node {b}"))
                    })
                };
                match (w.is_wired(f.src), w.is_wired(f.dst)) {
                    (true, true) => wired_path(f.src, f.dst)?,
                    (false, _) => {
                        let mut p = wireless(f.src, gw)?;
                        p.extend_from_slice(&wired_path(gw, f.dst)?[1..]);
                        p
                    }
                    (true, false) => {
                        let mut p = wired_path(f.src, gw)?;
                        p.extend_from_slice(&wireless(gw, f.dst)?[1..]);
                        p
                    }
                }
            }
            (Route::Explicit(route), _) => check_route(&key, route, f, &channel)?,
            (Route::Shortest, _) => topology::shortest_path(n as usize, links, f.src, f.dst).ok_or_else(|| {
                ScenarioError::new(
                    key.clone(),
                    format!(
                        "`{key}` (node {} → node {}) is unroutable: no chain of links within radio.tx_range_m = {} connects them",
                        f.src, f.dst, sc.radio.tx_range_m
                    ),
                )
            })?,
        };
        for _ in 0..f.replicas() {
            flows.push(plan_flow(flows.len() as u32, f, path.clone(), &sc.tcp, end));
        }
    }
    if let Given::Given(rf) = &sc.random_flows {
        let mut rng = RngStream::new(rf.flow_seed.or(sc.seed), 0, StreamPurpose::FlowSelection);
        let min_hops = rf.min_hops;
        let max_hops = match rf.max_hops {
            Limit::Unlimited => u32::MAX,
            Limit::AtMost(h) => h,
        };
        for _ in 0..rf.count {
            // Source uniform over nodes; destination uniform over the nodes
            // min_hops..=max_hops away from it (one bounded BFS per draw).
            let mut chosen = None;
            for _ in 0..1000 {
                let src = rng.below(n);
                let (dist, parent) = topology::bfs_within(n as usize, links, src, max_hops);
                let eligible: Vec<u32> =
                    (0..n).filter(|&v| dist[v as usize] != u32::MAX && dist[v as usize] >= min_hops).collect();
                if eligible.is_empty() {
                    continue;
                }
                let dst = eligible[rng.below(eligible.len() as u32) as usize];
                chosen = Some((src, dst, topology::path_from_parents(&parent, src, dst)));
                break;
            }
            let Some((src, dst, path)) = chosen else {
                return Err(ScenarioError::new(
                    "random_flows.min_hops",
                    format!(
                        "no connected node pair found between random_flows.min_hops = {min_hops} and max_hops = {} hops apart in this topology (1000 draws)",
                        match rf.max_hops {
                            Limit::Unlimited => "unlimited".to_string(),
                            Limit::AtMost(m) => m.to_string(),
                        }
                    ),
                ));
            };
            flows.push(plan_flow(flows.len() as u32, &rf.flow(src, dst), path, &sc.tcp, end));
        }
    }
    Ok(Plan { scenario: sc.clone(), channel, flows, wired, rates_mbps, cw, batch_means })
}

/// The topology layer's plain description of a resolved `[topology]` table.
pub(crate) fn layout(t: &Topology, run_seed: u64) -> topology::Layout {
    use topology::Layout;
    match *t {
        Topology::Chain { hops, spacing_m } => Layout::Chain { hops, spacing_m },
        Topology::Grid { spacing_m, rows, cols } => Layout::Grid { rows, cols, spacing_m },
        Topology::Cross { hops, spacing_m } => Layout::Cross { hops, spacing_m },
        Topology::ParallelChains { hops, spacing_m, chains, chain_gap_m, ref gateway } => Layout::ParallelChains {
            chains,
            hops,
            spacing_m,
            gap_m: chain_gap_m,
            gateway: *gateway == Given::Given(true),
        },
        Topology::Star { leaves, radius_m } => Layout::Star { leaves, radius_m },
        Topology::Random { nodes, width_m, height_m, ref topology_seed, .. } => {
            Layout::Random { nodes, width_m, height_m, seed: topology_seed.or(run_seed) }
        }
        Topology::Explicit { ref positions } => {
            Layout::Explicit(positions.iter().map(|p| Position { x: p[0], y: p[1] }).collect())
        }
    }
}

fn check_route(key: &str, route: &[u32], f: &Flow, ch: &Channel) -> Result<Vec<u32>, ScenarioError> {
    let n = ch.len() as u32;
    let shown = format!("{route:?}");
    if route.len() < 2 || route[0] != f.src || route.last() != Some(&f.dst) {
        return Err(ScenarioError::value(
            &format!("{key}.route"),
            &shown,
            format!("must list node ids from src = {} to dst = {}", f.src, f.dst),
        ));
    }
    for (j, &v) in route.iter().enumerate() {
        if v >= n {
            return Err(ScenarioError::value(&format!("{key}.route.{j}"), v, format!("node ids are 0..={}", n - 1)));
        }
        if route[..j].contains(&v) {
            return Err(ScenarioError::value(&format!("{key}.route"), &shown, format!("visits node {v} twice")));
        }
    }
    for w in route.windows(2) {
        if !ch.is_link(w[0], w[1]) || !ch.is_link(w[1], w[0]) {
            return Err(ScenarioError::value(
                &format!("{key}.route"),
                &shown,
                format!("nodes {} and {} are not within radio.tx_range_m of each other", w[0], w[1]),
            ));
        }
    }
    Ok(route.to_vec())
}

fn plan_flow(id: u32, f: &Flow, path: Vec<u32>, tcp_defaults: &Tcp, end: Time) -> FlowPlan {
    let tcp = f.tcp.apply(tcp_defaults);
    let (rate_bps, packet_bytes, jitter) = match &f.traffic {
        // Over TCP a CBR packet left unsized is one segment.
        Traffic::Cbr { rate_bps, packet_bytes, jitter } => (*rate_bps, packet_bytes.or(tcp.payload_bytes), *jitter),
        _ => (0.0, 0, k::FLOW_JITTER.num()),
    };
    FlowPlan {
        id,
        src: f.src,
        dst: f.dst,
        transport: f.transport,
        app: f.traffic.app(),
        rate_bps,
        packet_bytes,
        jitter,
        start: from_secs(f.start_s),
        stop: match f.stop_s {
            Inherit::Inherited => end,
            Inherit::Own(s) => from_secs(s),
        }
        .min(end),
        pauses: match &f.traffic {
            Traffic::Ftp { pauses: Given::Given(p) } => p.iter().map(|&[a, b]| (from_secs(a), from_secs(b))).collect(),
            _ => Vec::new(),
        },
        path,
        http: match f.traffic {
            Traffic::Http { mean_page_bytes, page_shape, mean_think_s } => {
                Some(HttpParams { mean_page_bytes, page_shape, mean_think_s, payload_bytes: tcp.payload_bytes })
            }
            _ => None,
        },
        tcp,
    }
}
