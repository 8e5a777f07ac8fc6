//! From a resolved scenario to a concrete network plan: node positions, the
//! channel, and every flow with its route. Checks that need the topology
//! (node ids in range, connectivity, explicit routes) live here.

use super::error::ScenarioError;
use super::keys as k;
use super::schema::*;
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
    pub tcp: TcpSpec,
    /// app = "http": the page and think-time model.
    pub http: Option<HttpParams>,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub scenario: Scenario,
    pub channel: Channel,
    pub flows: Vec<FlowPlan>,
    /// The wired domain (`[wired]`); its node ids follow the channel's.
    pub wired: Option<WiredNet>,
    /// The resolved radio rates (Mb/s): data frames, control frames.
    pub rates_mbps: (f64, f64),
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
    pub fn positions(&self) -> &[Position] {
        &self.channel.positions
    }

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

pub fn build(sc: &Scenario) -> Result<Plan, ScenarioError> {
    // `resolve` fills both rates; a scenario that skipped it is refused here.
    let rates_mbps = match (sc.radio.data_rate_mbps, sc.radio.basic_rate_mbps) {
        (Some(d), Some(b)) => (d, b),
        _ => return Err(ScenarioError::new("radio", "radio rates not resolved: build() needs a resolved scenario")),
    };
    let st = &sc.stats;
    let batch_means = match (st.batches, st.batch_packets, st.batch_discard, st.batch_confidence) {
        (Some(batches), Some(batch_packets), Some(discard), Some(confidence)) => {
            Some(BatchMeansPlan { batch_packets, batches, discard, confidence })
        }
        (Some(_), Some(_), _, _) => {
            return Err(ScenarioError::new("stats", "batch means not resolved: build() needs a resolved scenario"))
        }
        _ => None,
    };
    let positions = topology::positions(&layout(&sc.topology, sc.seed)?);
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
    if sc.topology.kind == TopologyKind::Random
        && sc.topology.require_connected.unwrap_or(k::TOPOLOGY_REQUIRE_CONNECTED.flag())
    {
        let k = comp.iter().copied().max().map_or(0, |m| m + 1);
        if k > 1 {
            return Err(ScenarioError::new(
                "topology.topology_seed",
                format!(
                    "the random topology drawn with seed {} is disconnected ({k} components at radio.tx_range_m = {}): choose another topology.topology_seed, more nodes or a smaller area, or set topology.require_connected = false",
                    sc.topology.topology_seed.unwrap_or(sc.seed),
                    sc.radio.tx_range_m
                ),
            ));
        }
    }
    let links = |u: u32| channel.links_of(u).collect::<Vec<u32>>();
    let wired = sc.wired.as_ref().map(|w| {
        let links = super::validate::wired_links(w.links.as_deref().unwrap_or(&[]));
        WiredNet::new(n, w.nodes.unwrap_or(1), w.gateway.unwrap_or(0), &links)
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
            (Some(_), Some(w)) if w.is_wired(f.src) || w.is_wired(f.dst) => {
                return Err(ScenarioError::new(
                    format!("{key}.route"),
                    format!("`{key}.route` cannot name wired nodes: routes through the wired domain follow [wired]'s links (remove the route)"),
                ))
            }
            (None, Some(w)) if w.is_wired(f.src) || w.is_wired(f.dst) => {
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
            (Some(route), _) => check_route(&key, route, f, &channel)?,
            (None, _) => topology::shortest_path(n as usize, links, f.src, f.dst).ok_or_else(|| {
                ScenarioError::new(
                    key.clone(),
                    format!(
                        "`{key}` (node {} → node {}) is unroutable: no chain of links within radio.tx_range_m = {} connects them",
                        f.src, f.dst, sc.radio.tx_range_m
                    ),
                )
            })?,
        };
        for _ in 0..f.count.unwrap_or(k::FLOW_COUNT.int() as u32) {
            flows.push(plan_flow(flows.len() as u32, f, path.clone(), &sc.tcp, end));
        }
    }
    if let Some(rf) = &sc.random_flows {
        let mut rng = RngStream::new(rf.flow_seed.unwrap_or(sc.seed), 0, StreamPurpose::FlowSelection);
        let min_hops = rf.min_hops.unwrap_or(k::RF_MIN_HOPS.int() as u32);
        let max_hops = rf.max_hops.unwrap_or(u32::MAX);
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
                        rf.max_hops.map_or("unlimited".to_string(), |m| m.to_string())
                    ),
                ));
            };
            flows.push(plan_flow(flows.len() as u32, &rf.flow(src, dst), path, &sc.tcp, end));
        }
    }
    Ok(Plan { scenario: sc.clone(), channel, flows, wired, rates_mbps, batch_means })
}

/// The topology layer's plain description of a resolved `[topology]` table
/// (`resolve` required or filled every value the kind uses).
pub(crate) fn layout(t: &TopologySpec, run_seed: u64) -> Result<topology::Layout, ScenarioError> {
    use topology::Layout;
    fn given<T: Copy>(key: &str, v: Option<T>) -> Result<T, ScenarioError> {
        v.ok_or_else(|| {
            ScenarioError::new(key, format!("`{key}` not resolved: the topology needs a resolved scenario"))
        })
    }
    let spacing_m = || given("topology.spacing_m", t.spacing_m);
    Ok(match t.kind {
        TopologyKind::Chain => Layout::Chain { hops: given("topology.hops", t.hops)?, spacing_m: spacing_m()? },
        TopologyKind::Grid => Layout::Grid {
            rows: given("topology.rows", t.rows)?,
            cols: given("topology.cols", t.cols)?,
            spacing_m: spacing_m()?,
        },
        TopologyKind::Cross => Layout::Cross { hops: given("topology.hops", t.hops)?, spacing_m: spacing_m()? },
        TopologyKind::ParallelChains => Layout::ParallelChains {
            chains: given("topology.chains", t.chains)?,
            hops: given("topology.hops", t.hops)?,
            spacing_m: spacing_m()?,
            gap_m: given("topology.chain_gap_m", t.chain_gap_m)?,
            gateway: t.gateway == Some(true),
        },
        TopologyKind::Star => Layout::Star {
            leaves: given("topology.leaves", t.leaves)?,
            radius_m: given("topology.radius_m", t.radius_m)?,
        },
        TopologyKind::Random => Layout::Random {
            nodes: given("topology.nodes", t.nodes)?,
            width_m: given("topology.width_m", t.width_m)?,
            height_m: given("topology.height_m", t.height_m)?,
            seed: t.topology_seed.unwrap_or(run_seed),
        },
        TopologyKind::Explicit => Layout::Explicit(
            t.positions.as_deref().unwrap_or(&[]).iter().map(|p| Position { x: p[0], y: p[1] }).collect(),
        ),
    })
}

fn check_route(key: &str, route: &[u32], f: &FlowSpec, ch: &Channel) -> Result<Vec<u32>, ScenarioError> {
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

/// The `[tcp]` defaults with flow `f`'s own TCP keys applied.
pub(crate) fn flow_tcp(tcp_defaults: &TcpSpec, f: &FlowSpec) -> TcpSpec {
    let mut tcp = tcp_defaults.clone();
    if let Some(v) = f.variant {
        tcp.variant = v;
    }
    if let Some(v) = f.payload_bytes {
        tcp.payload_bytes = v;
    }
    if let Some(v) = f.max_window {
        tcp.max_window = v;
    }
    if let Some(v) = f.ecn {
        tcp.ecn = v;
    }
    if let Some(v) = f.delayed_ack {
        tcp.delayed_ack = v;
    }
    if let Some(v) = f.min_rto_s {
        tcp.min_rto_s = v;
    }
    tcp
}

fn plan_flow(id: u32, f: &FlowSpec, path: Vec<u32>, tcp_defaults: &TcpSpec, end: Time) -> FlowPlan {
    let tcp = flow_tcp(tcp_defaults, f);
    FlowPlan {
        id,
        src: f.src,
        dst: f.dst,
        transport: f.transport,
        app: f.app.unwrap_or(AppKind::Cbr),
        rate_bps: f.rate_bps.unwrap_or(0.0),
        packet_bytes: f.packet_bytes.unwrap_or(if f.transport == TransportKind::Tcp && f.app == Some(AppKind::Cbr) {
            tcp.payload_bytes
        } else {
            0
        }),
        jitter: f.jitter.unwrap_or(k::FLOW_JITTER.num()),
        start: from_secs(f.start_s),
        stop: f.stop_s.map(from_secs).unwrap_or(end).min(end),
        pauses: f.pauses.iter().flatten().map(|&[a, b]| (from_secs(a), from_secs(b))).collect(),
        path,
        http: (f.app == Some(AppKind::Http)).then(|| HttpParams {
            mean_page_bytes: f.mean_page_bytes.unwrap_or(k::FLOW_MEAN_PAGE_BYTES.num()),
            page_shape: f.page_shape.unwrap_or(k::FLOW_PAGE_SHAPE.num()),
            mean_think_s: f.mean_think_s.unwrap_or(k::FLOW_MEAN_THINK_S.num()),
            payload_bytes: tcp.payload_bytes,
        }),
        tcp,
    }
}
