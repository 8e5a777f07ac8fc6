//! From a resolved scenario to a concrete network plan: node positions, the
//! channel, and every flow with its route. Checks that need the topology
//! (node ids in range, connectivity, explicit routes) live here.

use super::error::ScenarioError;
use super::resolved::{
    BatchStop, Flow, Given, Inherit, Ldm, LdmTarget, Limit, Mac, Resolved, Route, Routing, Stats, Tcp, Topology,
    Traffic,
};
use super::schema::{FlowSpec, LinkRedSpec, TcpVariantSpec, TransportKind};
use super::wstar;
use crate::app::http::HttpParams;
use crate::app::Source;
use crate::engine::{time::from_secs, RngStream, StreamPurpose, Time};
use crate::gateway::tcp_gap::{GapConfig, GoodputControl};
use crate::mac::{AdaptivePacing, FuLinkConfig, MacParams, Timing};
use crate::net::ldm::{LdmConfig, LdmParams};
use crate::net::routing::RoutingConfig;
use crate::phy::{Channel, Position, TwoRayGround};
use crate::stats::series::SeriesKind;
use crate::topology;
use crate::transport::tcp::config::CubicProfile;
use crate::transport::tcp::SackProfile;
use crate::transport::{TcpConfig, Variant};
use crate::wired::WiredNet;

/// One flow, ready to simulate.
#[derive(Clone, Debug)]
pub struct FlowPlan {
    pub id: u32,
    pub src: u32,
    pub dst: u32,
    pub start: Time,
    pub stop: Time,
    /// Node ids from src to dst (static route); ACKs use the reverse.
    pub path: Vec<u32>,
    /// TCP's settings, TCP-AP's pacing included (None: UDP).
    pub tcp: Option<TcpConfig>,
    pub source: Source,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub scenario: Resolved,
    pub channel: Channel,
    pub flows: Vec<FlowPlan>,
    /// The wired domain (`[wired]`); its node ids follow the channel's.
    pub wired: Option<WiredNet>,
    /// The MAC's timing, contention window, retry limits, capture and slot count.
    pub mac: MacParams,
    /// Interface queue limit (packets).
    pub queue_limit: u32,
    /// Fu et al.'s link layer at every node (None: standard 802.11).
    pub link: Option<FuLinkConfig>,
    pub routing: RoutingConfig,
    /// Low Delay Marking at the forwarding nodes (None: off).
    pub ldm: Option<LdmConfig>,
    /// TCP-GAP at the wired gateway (None: off).
    pub gap: Option<GapConfig>,
    /// Link-layer delay each way.
    pub ll_delay: Time,
    /// Initial TTL of the packets sources send.
    pub ttl: u8,
    pub end: Time,
    pub duration_s: f64,
    pub stats: StatsPlan,
    /// What the scenario sets that has no effect in this run.
    pub warnings: Vec<String>,
}

/// What the run measures and how (`[stats]`), as plain values.
#[derive(Clone, Debug, PartialEq)]
pub struct StatsPlan {
    /// Goodput counts from here.
    pub warmup: Time,
    /// The throughput series' interval (None: no series).
    pub interval: Option<Time>,
    /// Batch marks every this many delivered packets (None: none).
    pub batch_packets: Option<u32>,
    /// Batch means as a stop rule (`stats.batches` with `batch_packets`).
    pub batch_means: Option<BatchMeansPlan>,
    pub series: Vec<SeriesKind>,
    /// The air trace's window (None: the whole run).
    pub air_window: Option<(Time, Time)>,
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
            .zip(flow_tcp(&self.scenario))
            .map(|(f, tcp)| {
                let (rate_bps, packet_bytes, jitter) = match f.source {
                    Source::Cbr { rate_bps, packet_bytes, jitter } => (rate_bps, packet_bytes, jitter),
                    _ => (0.0, 0, FlowSpec::JITTER.num()),
                };
                serde_json::json!({
                    "id": f.id,
                    "src": f.src,
                    "dst": f.dst,
                    "transport": if f.tcp.is_some() { TransportKind::Tcp } else { TransportKind::Udp },
                    "app": f.source.name(),
                    "rate_bps": rate_bps,
                    "packet_bytes": packet_bytes,
                    "jitter": jitter,
                    "start_s": to_secs(f.start),
                    "stop_s": to_secs(f.stop),
                    "path": f.path,
                    "tcp": tcp,
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

/// Each planned flow's resolved TCP settings, in plan order: the [[flows]]
/// entries (each `count` times), then the random flows (plain [tcp]).
pub(crate) fn flow_tcp(sc: &Resolved) -> impl Iterator<Item = Tcp> + '_ {
    sc.flows
        .iter()
        .flat_map(|f| std::iter::repeat_n(f.tcp.apply(&sc.tcp), f.replicas() as usize))
        .chain(std::iter::repeat_with(|| sc.tcp.clone()))
}

/// The warnings of a scenario and its planned flows.
pub(crate) fn plan_warnings(sc: &Resolved, flows: &[FlowPlan]) -> Vec<String> {
    let specs: Vec<(TransportKind, Tcp)> = flows
        .iter()
        .zip(flow_tcp(sc))
        .map(|(f, t)| (if f.tcp.is_some() { TransportKind::Tcp } else { TransportKind::Udp }, t))
        .collect();
    super::warnings(sc, &specs)
}

/// TCP's settings for a flow with resolved `[tcp]` settings `t`; TCP-AP
/// paces for a wireless link of `link_rate_bps`.
pub(crate) fn tcp_config(t: &Tcp, link_rate_bps: f64) -> TcpConfig {
    let cubic_profile = t.cubic.get().map(|c| c.profile).unwrap_or_default();
    let linux = t.variant == TcpVariantSpec::Cubic && cubic_profile == CubicProfile::Ns2Linux;
    TcpConfig {
        variant: match t.variant {
            TcpVariantSpec::Newreno | TcpVariantSpec::TcpAp => Variant::NewReno,
            TcpVariantSpec::Reno => Variant::Reno,
            TcpVariantSpec::Vegas => Variant::Vegas,
            TcpVariantSpec::Bbr => Variant::Bbr,
            TcpVariantSpec::Cubic => Variant::Cubic,
        },
        cubic_profile,
        pacing: (t.variant == TcpVariantSpec::TcpAp).then(|| t.pacing(link_rate_bps)),
        payload_bytes: t.payload_bytes,
        max_window: t.max_window.packets().expect("the build resolves W* before it plans a TCP flow"),
        initial_window: t.initial_window,
        initial_ssthresh: t.initial_ssthresh,
        ecn: t.ecn,
        delayed_ack: t.delayed_ack,
        min_rto: from_secs(t.min_rto_s),
        vegas_alpha: t.vegas_alpha,
        vegas_beta: t.vegas_beta,
        vegas_gamma: t.vegas_gamma,
        bbr_phases: t.bbr_phases.clone(),
        // TCP-Linux (CUBIC's ns2_linux) keeps its own SACK recovery and runs
        // behind ns-2's TCPSink/Sack1, whatever tcp.sack_profile names.
        sack: t.sack.then_some(if linux { SackProfile::Ns2Sack1 } else { t.sack_profile }),
        ..TcpConfig::default()
    }
}

/// The MAC's parameters from `[radio]` and `[mac]`.
fn mac_params(sc: &Resolved) -> MacParams {
    let mut timing = Timing::new(sc.radio.standard, sc.radio.data_rate_mbps, sc.radio.basic_rate_mbps);
    (timing.cw_min, timing.cw_max) = (sc.mac.cw_min, sc.mac.cw_max);
    let mut p = MacParams::new(
        timing,
        sc.mac.frame_format,
        sc.mac.rts_threshold_bytes,
        sc.mac.short_retry_limit,
        sc.mac.long_retry_limit,
        sc.radio.capture_db,
    );
    p.slot_count = sc.mac.backoff_slots;
    p
}

/// Fu et al.'s link layer (`[mac.link_red]`, `[mac.adaptive_pacing]`); None:
/// neither is on. Pacing alone still keeps Link RED's retry average (its
/// weight and min_th, given or default).
fn fu_link(mac: &Mac) -> Option<FuLinkConfig> {
    let red = mac.link_red.get();
    let pacing = mac.adaptive_pacing.get().filter(|a| a.enabled);
    if !red.is_some_and(|r| r.enabled) && pacing.is_none() {
        return None;
    }
    let red = red.cloned().unwrap_or_else(|| LinkRedSpec::default().into());
    Some(FuLinkConfig {
        weight: red.params.weight,
        min_th: red.params.min_th,
        red: red.enabled.then_some(red.params),
        pacing: pacing.map(|a| AdaptivePacing::new(a.trigger).with_reading(a.wait, a.extra)),
    })
}

/// TCP-GAP at the gateway (`[wired.tcp_gap]`), pacing as `[tcp]`'s TCP-AP.
fn gap_config(sc: &Resolved, link_rate_bps: f64) -> Option<GapConfig> {
    let g = sc.wired.get().and_then(|w| w.tcp_gap.get()).filter(|g| g.enabled)?;
    Some(GapConfig {
        pacing: sc.tcp.pacing(link_rate_bps),
        buffer_packets: g.buffer_packets,
        flow_timeout: from_secs(g.flow_timeout_s),
        goodput_control: g.goodput_control.then(|| GoodputControl {
            period: from_secs(g.period_s),
            threshold: g.threshold,
            aging: g.aging,
            aging_rule: g.aging_rule,
        }),
    })
}

/// LDM's config from `[ip.ldm]` (the period in nanoseconds, TTLs as bytes,
/// the paper's target window as None).
fn ldm_config(l: &Ldm) -> LdmConfig {
    LdmConfig {
        params: LdmParams {
            k: l.k,
            hops_per_window: l.hops_per_window,
            min_window: l.min_window,
            floor_window: l.floor_window,
            target_window: match l.target_window {
                LdmTarget::Optimal => None,
                LdmTarget::Fixed(w) => Some(w),
            },
            flow_bits: l.flow_bits,
            clear_period: from_secs(l.clear_period_s),
            initial_ttls: l.initial_ttls.iter().map(|&t| t as u8).collect(),
        },
        action: l.action,
        estimate: l.estimate,
    }
}

fn stats_plan(st: &Stats) -> Result<StatsPlan, ScenarioError> {
    let batch_means = match (st.stop, &st.batch_packets) {
        (BatchStop::RunToEnd, _) => None,
        (BatchStop::Batches { batches, discard, confidence }, Given::Given(batch_packets)) => {
            Some(BatchMeansPlan { batch_packets: *batch_packets, batches, discard, confidence })
        }
        // `resolve` refuses batches without batch_packets.
        (BatchStop::Batches { .. }, Given::Absent) => {
            return Err(ScenarioError::new("stats.batches", "`stats.batches` needs `stats.batch_packets`"))
        }
    };
    Ok(StatsPlan {
        warmup: from_secs(st.warmup_s),
        interval: st.throughput_interval_s.get().map(|&s| from_secs(s)),
        batch_packets: st.batch_packets.get().copied(),
        batch_means,
        series: st.series.clone(),
        air_window: st.air_window_s.get().map(|&[a, b]| (from_secs(a), from_secs(b))),
    })
}

pub fn build(sc: &Resolved) -> Result<Plan, ScenarioError> {
    wstar::check(sc)?;
    let stats = stats_plan(&sc.stats)?;
    let mac = mac_params(sc);
    let link_rate_bps = mac.timing.data_rate_bps;
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
        // routes towards the gateway and the flows' wired ends only
        let ends: Vec<u32> = sc.flows.iter().flat_map(|f| [f.src, f.dst]).collect();
        WiredNet::new(n, w.nodes, w.gateway, &links, &ends)
    });
    let n_all = n + wired.as_ref().map_or(0, |w| w.count);
    let end = from_secs(sc.duration_s);
    let mut paths = Vec::with_capacity(sc.flows.len());
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
        paths.push(path);
    }
    // The windows named "wstar" become numbers here, once the paths are known.
    let mut resolved = sc.clone();
    wstar::resolve(&mut resolved, &paths);
    let sc = &resolved;
    let mut flows = Vec::new();
    for (f, path) in sc.flows.iter().zip(paths) {
        for _ in 0..f.replicas() {
            flows.push(plan_flow(flows.len() as u32, f, path.clone(), &sc.tcp, end, link_rate_bps));
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
            flows.push(plan_flow(flows.len() as u32, &rf.flow(src, dst), path, &sc.tcp, end, link_rate_bps));
        }
    }
    let routing = match &sc.routing {
        Routing::Static => RoutingConfig::Static,
        Routing::Aodv { aodv } => RoutingConfig::Aodv(aodv.params()),
    };
    let ldm = sc.ip.ldm.get().filter(|l| l.enabled).map(ldm_config);
    Ok(Plan {
        warnings: plan_warnings(sc, &flows),
        channel,
        flows,
        wired,
        queue_limit: sc.mac.queue_limit,
        link: fu_link(&sc.mac),
        routing,
        ldm,
        gap: gap_config(sc, link_rate_bps),
        ll_delay: (sc.ip.ll_delay_us * 1000.0).round() as Time,
        ttl: sc.ip.ttl.min(255) as u8,
        end,
        duration_s: sc.duration_s,
        stats,
        mac,
        scenario: resolved,
    })
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

fn plan_flow(id: u32, f: &Flow, path: Vec<u32>, tcp_defaults: &Tcp, end: Time, link_rate_bps: f64) -> FlowPlan {
    let tcp = f.tcp.apply(tcp_defaults);
    let source = match &f.traffic {
        // Over TCP a CBR packet left unsized is one segment.
        Traffic::Cbr { rate_bps, packet_bytes, jitter } => {
            Source::Cbr { rate_bps: *rate_bps, packet_bytes: packet_bytes.or(tcp.payload_bytes), jitter: *jitter }
        }
        Traffic::Ftp { pauses } => Source::Ftp {
            pauses: pauses.get().map_or(Vec::new(), |p| p.iter().map(|&[a, b]| (from_secs(a), from_secs(b))).collect()),
        },
        Traffic::Http { mean_page_bytes, page_shape, mean_think_s } => Source::Http(HttpParams {
            mean_page_bytes: *mean_page_bytes,
            page_shape: *page_shape,
            mean_think_s: *mean_think_s,
            payload_bytes: tcp.payload_bytes,
        }),
    };
    FlowPlan {
        id,
        src: f.src,
        dst: f.dst,
        start: from_secs(f.start_s),
        stop: match f.stop_s {
            Inherit::Inherited => end,
            Inherit::Own(s) => from_secs(s),
        }
        .min(end),
        path,
        tcp: (f.transport == TransportKind::Tcp).then(|| tcp_config(&tcp, link_rate_bps)),
        source,
    }
}
