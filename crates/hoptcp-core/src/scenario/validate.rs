//! Value checks that need no topology, and filling of every default, so the
//! resolved scenario states exactly what will run.

use super::error::ScenarioError;
use super::keys as k;
use super::resolved::Resolved;
use super::schema::*;
use crate::gateway::tcp_gap::AgingRule;
use crate::mac::Standard;
use crate::transport::tcp::config::CubicProfile;

type R<T> = Result<T, ScenarioError>;

fn int_range(key: &str, v: u64, lo: u64, hi: u64) -> R<()> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(ScenarioError::value(key, v, format!("must be an integer in {lo}..={hi}")))
    }
}

fn require<T: Copy>(key: &str, v: Option<T>, kind: &str) -> R<T> {
    v.ok_or_else(|| ScenarioError::new(key, format!("`{key}` is required for topology.kind = \"{kind}\"")))
}

/// Check every value that does not depend on the topology and fill
/// defaults: the resolved scenario, with no `Option` left.
pub fn resolve(sc: Scenario) -> R<Resolved> {
    Resolved::from_filled(fill(sc)?)
}

/// The parsed scenario checked, with every default written in.
fn fill(mut sc: Scenario) -> R<Scenario> {
    Scenario::DURATION_S.check(sc.duration_s)?;
    resolve_topology(&mut sc.topology)?;
    resolve_radio(&mut sc.radio)?;
    sc.ignored = super::warnings::set_while_disabled(&sc);
    resolve_mac(&mut sc.mac, sc.radio.standard)?;
    IpSpec::TTL.check_int("ip.ttl", sc.ip.ttl as u64)?;
    IpSpec::LL_DELAY_US.check(sc.ip.ll_delay_us)?;
    resolve_ldm(&mut sc.ip)?;
    resolve_routing(&mut sc.routing)?;
    let gap_on = sc.wired.as_ref().and_then(|w| w.tcp_gap.as_ref()).is_some_and(|g| g.enabled);
    resolve_tcp(&mut sc.tcp, &sc.flows, gap_on)?;
    if let Some(w) = sc.wired.as_mut() {
        let n_wireless = super::build::layout(&super::resolved::topology(&sc.topology)?, sc.seed).node_count() as u32;
        resolve_wired(w, &sc.topology, n_wireless)?;
    }
    for (i, f) in sc.flows.iter_mut().enumerate() {
        resolve_flow(&format!("flows.{i}"), f, sc.duration_s)?;
        if f.route.is_some() && sc.routing.protocol != RoutingProtocol::Static {
            return Err(ScenarioError::new(
                format!("flows.{i}.route"),
                format!(
                    "`flows.{i}.route` fixes a path, which only static routing follows; with routing.protocol = \"{}\" routes are discovered (remove the route or use protocol = \"static\")",
                    sc.routing.protocol.name()
                ),
            ));
        }
    }
    if let Some(rf) = sc.random_flows.as_mut() {
        RandomFlowsSpec::COUNT.check_int("random_flows.count", rf.count as u64)?;
        let mut as_flow = rf.flow(0, 1);
        resolve_flow("random_flows", &mut as_flow, sc.duration_s)?;
        rf.app = as_flow.app;
        rf.packet_bytes = as_flow.packet_bytes;
        rf.jitter = as_flow.jitter;
        rf.mean_page_bytes = as_flow.mean_page_bytes;
        rf.page_shape = as_flow.page_shape;
        rf.mean_think_s = as_flow.mean_think_s;
        let min_hops = *rf.min_hops.get_or_insert(RandomFlowsSpec::MIN_HOPS.int() as u32);
        RandomFlowsSpec::MIN_HOPS.check_int("random_flows.min_hops", min_hops as u64)?;
        if let Some(mx) = rf.max_hops {
            if mx < min_hops {
                return Err(ScenarioError::value(
                    "random_flows.max_hops",
                    mx,
                    format!("must be at least random_flows.min_hops = {min_hops}"),
                ));
            }
        }
    }
    if sc.flows.is_empty() && sc.random_flows.is_none() {
        return Err(ScenarioError::new(
            "flows",
            "the scenario has no traffic: add at least one [[flows]] entry (or [random_flows])",
        ));
    }
    if let Some(i) = sc.stats.throughput_interval_s {
        StatsSpec::THROUGHPUT_INTERVAL_S.check(i)?;
    }
    StatsSpec::WARMUP_S.check(sc.stats.warmup_s)?;
    if let Some(k) = sc.stats.batch_packets {
        StatsSpec::BATCH_PACKETS.check_int("stats.batch_packets", k as u64)?;
    }
    resolve_batches(&mut sc.stats)?;
    // A set of kinds: one canonical order, so equal requests hash alike.
    sc.stats.series.sort();
    sc.stats.series.dedup();
    if let Some([from, to]) = sc.stats.air_window_s {
        k::ge(0.0).hint("seconds").check("stats.air_window_s", from)?;
        if !to.is_finite() || to <= from {
            return Err(ScenarioError::value(
                "stats.air_window_s",
                format!("[{from}, {to}]"),
                "must be [from, to] seconds with to > from",
            ));
        }
    }
    if sc.stats.warmup_s >= sc.duration_s {
        return Err(ScenarioError::value(
            "stats.warmup_s",
            sc.stats.warmup_s,
            format!("must be below duration_s = {}", sc.duration_s),
        ));
    }
    Ok(sc)
}

/// The batch-means stop rule: `batches` needs `batch_packets`; the discard
/// count and confidence level default to the paper's 1 and 95 %.
fn resolve_batches(s: &mut StatsSpec) -> R<()> {
    let Some(n) = s.batches else {
        for (k, set) in
            [("batch_discard", s.batch_discard.is_some()), ("batch_confidence", s.batch_confidence.is_some())]
        {
            if set {
                return Err(ScenarioError::new(
                    format!("stats.{k}"),
                    format!("`stats.{k}` applies to the batch-means stop rule: set stats.batches too"),
                ));
            }
        }
        return Ok(());
    };
    if s.batch_packets.is_none() {
        return Err(ScenarioError::new(
            "stats.batches",
            "`stats.batches` needs `stats.batch_packets` (the delivered packets per batch)",
        ));
    }
    let d = *s.batch_discard.get_or_insert(StatsSpec::BATCH_DISCARD.int() as u32);
    StatsSpec::BATCH_DISCARD.check_int("stats.batch_discard", d as u64)?;
    int_range("stats.batches", n as u64, d as u64 + 1, 1_000_000)?;
    let c = *s.batch_confidence.get_or_insert(StatsSpec::BATCH_CONFIDENCE.num());
    StatsSpec::BATCH_CONFIDENCE.check(c)
}

fn resolve_topology(t: &mut TopologySpec) -> R<()> {
    let kind_name = serde_json::to_value(t.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let allowed: &[&str] = match t.kind {
        TopologyKind::Chain => &["hops", "spacing_m"],
        TopologyKind::Grid => &["rows", "cols", "spacing_m"],
        TopologyKind::Cross => &["hops", "spacing_m"],
        TopologyKind::ParallelChains => &["chains", "hops", "spacing_m", "chain_gap_m", "gateway"],
        TopologyKind::Star => &["leaves", "radius_m"],
        TopologyKind::Random => &["nodes", "width_m", "height_m", "topology_seed", "require_connected"],
        TopologyKind::Explicit => &["positions"],
    };
    let present: [(&str, bool); 15] = [
        ("hops", t.hops.is_some()),
        ("spacing_m", t.spacing_m.is_some()),
        ("rows", t.rows.is_some()),
        ("cols", t.cols.is_some()),
        ("chains", t.chains.is_some()),
        ("chain_gap_m", t.chain_gap_m.is_some()),
        ("leaves", t.leaves.is_some()),
        ("radius_m", t.radius_m.is_some()),
        ("nodes", t.nodes.is_some()),
        ("width_m", t.width_m.is_some()),
        ("height_m", t.height_m.is_some()),
        ("topology_seed", t.topology_seed.is_some()),
        ("require_connected", t.require_connected.is_some()),
        ("positions", t.positions.is_some()),
        ("gateway", t.gateway.is_some()),
    ];
    for (k, is_set) in present {
        if is_set && !allowed.contains(&k) {
            return Err(ScenarioError::new(
                format!("topology.{k}"),
                format!(
                    "`topology.{k}` is not used by topology.kind = \"{kind_name}\"; its keys are: kind, {}",
                    allowed.join(", ")
                ),
            ));
        }
    }
    // Fills the default spacing and returns it.
    let spacing = |t: &mut TopologySpec| -> R<f64> {
        let s = *t.spacing_m.get_or_insert(TopologySpec::SPACING_M.num());
        TopologySpec::SPACING_M.check(s)?;
        Ok(s)
    };
    const MAX_NODES: u64 = 1_000_000;
    match t.kind {
        TopologyKind::Chain => {
            TopologySpec::HOPS.check_int("topology.hops", require("topology.hops", t.hops, &kind_name)? as u64)?;
            spacing(t)?;
        }
        TopologyKind::Grid => {
            let r = require("topology.rows", t.rows, &kind_name)? as u64;
            let c = require("topology.cols", t.cols, &kind_name)? as u64;
            TopologySpec::ROWS.check_int("topology.rows", r)?;
            TopologySpec::COLS.check_int("topology.cols", c)?;
            if r * c < 2 || r * c > MAX_NODES {
                return Err(ScenarioError::value(
                    "topology.rows",
                    r,
                    format!("rows × cols = {} must be in 2..={MAX_NODES}", r * c),
                ));
            }
            spacing(t)?;
        }
        TopologyKind::Cross => {
            let h = require("topology.hops", t.hops, &kind_name)? as u64;
            int_range("topology.hops", h, 2, MAX_NODES)?;
            if !h.is_multiple_of(2) {
                return Err(ScenarioError::value(
                    "topology.hops",
                    h,
                    "must be even for a cross (the chains cross at their middle node)",
                ));
            }
            spacing(t)?;
        }
        TopologyKind::ParallelChains => {
            TopologySpec::CHAINS
                .check_int("topology.chains", require("topology.chains", t.chains, &kind_name)? as u64)?;
            TopologySpec::HOPS.check_int("topology.hops", require("topology.hops", t.hops, &kind_name)? as u64)?;
            let s = spacing(t)?;
            let gap = *t.chain_gap_m.get_or_insert(s);
            TopologySpec::CHAIN_GAP_M.check(gap)?;
            // topology.gateway stays unset unless given: scenarios without it keep their hash.
        }
        TopologyKind::Star => {
            TopologySpec::LEAVES
                .check_int("topology.leaves", require("topology.leaves", t.leaves, &kind_name)? as u64)?;
            let r = *t.radius_m.get_or_insert(TopologySpec::RADIUS_M.num());
            TopologySpec::RADIUS_M.check(r)?;
        }
        TopologyKind::Random => {
            TopologySpec::NODES.check_int("topology.nodes", require("topology.nodes", t.nodes, &kind_name)? as u64)?;
            TopologySpec::WIDTH_M.check(require("topology.width_m", t.width_m, &kind_name)?)?;
            TopologySpec::HEIGHT_M.check(require("topology.height_m", t.height_m, &kind_name)?)?;
            t.require_connected.get_or_insert(TopologySpec::REQUIRE_CONNECTED.flag());
        }
        TopologyKind::Explicit => {
            let pos = t.positions.as_ref().ok_or_else(|| {
                ScenarioError::new("topology.positions", "`topology.positions` is required for topology.kind = \"explicit\": a list of [x, y] pairs in metres")
            })?;
            if pos.len() < 2 {
                return Err(ScenarioError::value(
                    "topology.positions",
                    format!("a list of {} position(s)", pos.len()),
                    "needs at least 2 nodes",
                ));
            }
            if let Some(i) = pos.iter().position(|p| !p[0].is_finite() || !p[1].is_finite()) {
                return Err(ScenarioError::value(
                    &format!("topology.positions.{i}"),
                    format!("{:?}", pos[i]),
                    "coordinates must be finite numbers",
                ));
            }
        }
    }
    Ok(())
}

fn resolve_radio(r: &mut RadioSpec) -> R<()> {
    RadioSpec::TX_RANGE_M.check(r.tx_range_m)?;
    RadioSpec::CS_RANGE_M.check(r.cs_range_m)?;
    if r.cs_range_m < r.tx_range_m {
        return Err(ScenarioError::value(
            "radio.cs_range_m",
            r.cs_range_m,
            format!("must be at least radio.tx_range_m = {} (a node senses every frame it can decode)", r.tx_range_m),
        ));
    }
    RadioSpec::CAPTURE_DB.check(r.capture_db)?;
    let (d, b) = r.standard.default_rates_mbps();
    let data = *r.data_rate_mbps.get_or_insert(d);
    let basic = *r.basic_rate_mbps.get_or_insert(b);
    let rates = r.standard.rates_mbps();
    let list = rates.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
    for (key, v) in [("radio.data_rate_mbps", data), ("radio.basic_rate_mbps", basic)] {
        if !rates.contains(&v) {
            return Err(ScenarioError::value(
                key,
                v,
                format!("allowed for radio.standard = \"{}\": {list} (Mb/s)", r.standard.name()),
            ));
        }
    }
    RadioSpec::TX_POWER_W.check(r.tx_power_w)?;
    RadioSpec::FREQUENCY_HZ.check(r.frequency_hz)?;
    RadioSpec::ANTENNA_HEIGHT_M.check(r.antenna_height_m)?;
    RadioSpec::SYSTEM_LOSS.check(r.system_loss)
}

fn resolve_mac(m: &mut MacSpec, std: Standard) -> R<()> {
    MacSpec::SHORT_RETRY_LIMIT.check_int("mac.short_retry_limit", m.short_retry_limit as u64)?;
    MacSpec::LONG_RETRY_LIMIT.check_int("mac.long_retry_limit", m.long_retry_limit as u64)?;
    if m.queue_limit < 2 {
        return Err(ScenarioError::value(
            "mac.queue_limit",
            m.queue_limit,
            "must be at least 2 (ns-2 semantics: queue_limit - 1 packets wait and the MAC holds one more; 1 would refuse every packet)",
        ));
    }
    MacSpec::QUEUE_LIMIT.check_int("mac.queue_limit", m.queue_limit as u64)?;
    let (lo, hi) = std.cw_bounds();
    let cw_min = *m.cw_min.get_or_insert(lo);
    let cw_max = *m.cw_max.get_or_insert(hi);
    MacSpec::CW_MIN.check_int("mac.cw_min", cw_min as u64)?;
    if cw_max < cw_min {
        return Err(ScenarioError::value("mac.cw_max", cw_max, format!("must be at least mac.cw_min = {cw_min}")));
    }
    MacSpec::CW_MAX.check_int("mac.cw_max", cw_max as u64)?;
    resolve_link_layer(m)
}

/// `[mac.link_red]` and `[mac.adaptive_pacing]`. A table that changes nothing
/// (disabled, and its thresholds unused) is removed, so that such a scenario
/// keeps the canonical form (and results-store key) of one without it.
fn resolve_link_layer(m: &mut MacSpec) -> R<()> {
    if let Some(r) = &m.link_red {
        LinkRedSpec::MIN_TH.check(r.min_th)?;
        if !(r.max_th.is_finite() && r.max_th > r.min_th) {
            return Err(ScenarioError::value(
                "mac.link_red.max_th",
                r.max_th,
                format!("must be a number above mac.link_red.min_th = {}", r.min_th),
            ));
        }
        LinkRedSpec::MAX_P.check(r.max_p)?;
        LinkRedSpec::WEIGHT.check(r.weight)?;
    }
    let pacing_on = m.adaptive_pacing.as_ref().is_some_and(|a| a.enabled);
    if !pacing_on {
        m.adaptive_pacing = None;
    }
    let pacing_reads_average = m.adaptive_pacing.as_ref().is_some_and(|a| a.trigger.uses_retry_average());
    if pacing_reads_average {
        // The trigger compares the retry average with Link RED's min_th.
        m.link_red.get_or_insert_with(LinkRedSpec::default);
    } else if m.link_red.as_ref().is_some_and(|r| !r.enabled) {
        m.link_red = None;
    }
    Ok(())
}

/// `[wired]`: fill the gateway, the link list and every link's values, and
/// check node ids and the link graph (ids `n_wireless..` are wired).
fn resolve_wired(w: &mut WiredSpec, topo: &TopologySpec, n_wireless: u32) -> R<()> {
    // Default: as many wired nodes as the links name (1 without links).
    let named = w.links.iter().flatten().flat_map(|l| [l.a, l.b]).filter(|&v| v >= n_wireless).max();
    let nodes = *w.nodes.get_or_insert(named.map_or(1, |m| m - n_wireless + 1));
    WiredSpec::NODES.check_int("wired.nodes", nodes as u64)?;
    let gateway = match (w.gateway, topo.kind) {
        (Some(g), _) => g,
        (None, TopologyKind::Chain) => require("topology.hops", topo.hops, "chain")?,
        (None, TopologyKind::ParallelChains) if topo.gateway == Some(true) => n_wireless - 1,
        (None, _) => {
            return Err(ScenarioError::new(
                "wired.gateway",
                "`wired.gateway` (the wireless node joined to the wired domain) is required for this topology.kind; it defaults only for \"chain\" (the last node) and \"parallel_chains\" with topology.gateway = true",
            ))
        }
    };
    if gateway >= n_wireless {
        return Err(ScenarioError::value(
            "wired.gateway",
            gateway,
            format!("must be a wireless node id, 0..={} ({n_wireless} wireless nodes)", n_wireless - 1),
        ));
    }
    w.gateway = Some(gateway);
    let bw = *w.bandwidth_mbps.get_or_insert(WiredSpec::BANDWIDTH_MBPS.num());
    WiredSpec::BANDWIDTH_MBPS.check(bw)?;
    let delay = *w.delay_ms.get_or_insert(WiredSpec::DELAY_MS.num());
    WiredSpec::DELAY_MS.check(delay)?;
    let limit = *w.queue_limit.get_or_insert(WiredSpec::QUEUE_LIMIT.int() as u32);
    WiredSpec::QUEUE_LIMIT.check_int("wired.queue_limit", limit as u64)?;
    let first = n_wireless;
    let links = w.links.get_or_insert_with(|| {
        (0..nodes)
            .map(|k| WiredLinkSpec {
                a: if k == 0 { gateway } else { first + k - 1 },
                b: first + k,
                bandwidth_mbps: None,
                delay_ms: None,
                queue_limit: None,
            })
            .collect()
    });
    if links.is_empty() {
        return Err(ScenarioError::new(
            "wired.links",
            "`wired.links` is empty: at least one link must join the gateway to the wired nodes",
        ));
    }
    let last = first + nodes - 1;
    let mut seen = std::collections::BTreeSet::new();
    for (i, l) in links.iter_mut().enumerate() {
        let key = format!("wired.links.{i}");
        for (k, v) in [("a", l.a), ("b", l.b)] {
            if v != gateway && !(first..=last).contains(&v) {
                return Err(ScenarioError::value(
                    &format!("{key}.{k}"),
                    v,
                    format!("a wired link joins the gateway (node {gateway}) or wired nodes {first}..={last}"),
                ));
            }
        }
        if l.a == l.b || !seen.insert((l.a.min(l.b), l.a.max(l.b))) {
            return Err(ScenarioError::value(
                &format!("{key}.b"),
                l.b,
                format!("link {} – {} joins a node to itself or repeats an earlier link", l.a, l.b),
            ));
        }
        let b = *l.bandwidth_mbps.get_or_insert(bw);
        WiredLinkSpec::BANDWIDTH_MBPS.check_num(&format!("{key}.bandwidth_mbps"), b)?;
        let d = *l.delay_ms.get_or_insert(delay);
        WiredLinkSpec::DELAY_MS.check_num(&format!("{key}.delay_ms"), d)?;
        let q = *l.queue_limit.get_or_insert(limit);
        WiredLinkSpec::QUEUE_LIMIT.check_int(&format!("{key}.queue_limit"), q as u64)?;
    }
    let params: Vec<_> = links
        .iter()
        .map(|l| {
            let p = super::resolved::link_params(
                l.bandwidth_mbps.unwrap_or(bw),
                l.delay_ms.unwrap_or(delay),
                l.queue_limit.unwrap_or(limit),
            );
            (l.a, l.b, p)
        })
        .collect();
    let net = crate::wired::WiredNet::new(first, nodes, gateway, &params, &[]);
    if let Some(&v) = net.unreachable().first() {
        return Err(ScenarioError::value(
            "wired.links",
            format!("{} link(s)", links.len()),
            format!("wired node {v} is not connected to the gateway (node {gateway})"),
        ));
    }
    if let Some(g) = w.tcp_gap.as_ref() {
        TcpGapSpec::THRESHOLD.check(g.threshold)?;
        TcpGapSpec::PERIOD_S.check(g.period_s)?;
        // The declared range is the additive rule's; a factor must be at least 1.
        let (least, rule) = match g.aging_rule {
            AgingRule::Additive => (0.0, "additive"),
            AgingRule::Multiplicative => (1.0, "multiplicative"),
        };
        if !(g.aging.is_finite() && g.aging >= least) {
            return Err(ScenarioError::value(
                "wired.tcp_gap.aging",
                g.aging,
                format!("must be a number >= {least} with aging_rule = \"{rule}\" ({least} = no aging)"),
            ));
        }
        TcpGapSpec::BUFFER_PACKETS.check_int("wired.tcp_gap.buffer_packets", g.buffer_packets as u64)?;
        TcpGapSpec::FLOW_TIMEOUT_S.check(g.flow_timeout_s)?;
    }
    Ok(())
}

/// `[ip.ldm]`: checked even when disabled (so it can be swept), then
/// dropped when off so the canonical form is that of a scenario without it.
fn resolve_ldm(ip: &mut IpSpec) -> R<()> {
    let Some(l) = &ip.ldm else { return Ok(()) };
    LdmSpec::K.check(l.k)?;
    LdmSpec::HOPS_PER_WINDOW.check(l.hops_per_window)?;
    LdmSpec::MIN_WINDOW.check(l.min_window)?;
    LdmSpec::FLOOR_WINDOW.check(l.floor_window)?;
    if let Some(w) = l.target_window {
        LdmSpec::TARGET_WINDOW.check(w)?;
    }
    LdmSpec::FLOW_BITS.check_int("ip.ldm.flow_bits", l.flow_bits as u64)?;
    LdmSpec::CLEAR_PERIOD_S.check(l.clear_period_s)?;
    if l.clear_period_s * 1e9 < l.flow_bits as f64 {
        return Err(ScenarioError::value(
            "ip.ldm.clear_period_s",
            l.clear_period_s,
            format!("must be at least ip.ldm.flow_bits = {} ns (one bit cleared per nanosecond at most)", l.flow_bits),
        ));
    }
    let ttls = &l.initial_ttls;
    let ascending = ttls.windows(2).all(|w| w[0] < w[1]);
    if ttls.is_empty() || !ascending || ttls.iter().any(|&t| !(1..=255).contains(&t)) {
        return Err(ScenarioError::value(
            "ip.ldm.initial_ttls",
            format!("{ttls:?}"),
            "must be a non-empty ascending list of TTLs in 1..=255 (e.g. [30, 64, 128, 255])",
        ));
    }
    if !l.enabled {
        ip.ldm = None;
    }
    Ok(())
}

fn resolve_routing(r: &mut RoutingSpec) -> R<()> {
    match r.protocol {
        RoutingProtocol::Static => {
            if r.aodv.is_some() {
                return Err(ScenarioError::new(
                    "routing.aodv",
                    "`[routing.aodv]` sets AODV's constants and needs routing.protocol = \"aodv\" (the protocol is \"static\")",
                ));
            }
        }
        RoutingProtocol::Aodv => {
            let a = r.aodv.get_or_insert_with(AodvSpec::default);
            AodvSpec::TTL_START.check_int("routing.aodv.ttl_start", a.ttl_start as u64)?;
            AodvSpec::TTL_INCREMENT.check_int("routing.aodv.ttl_increment", a.ttl_increment as u64)?;
            AodvSpec::TTL_THRESHOLD.check_int("routing.aodv.ttl_threshold", a.ttl_threshold as u64)?;
            if a.ttl_threshold < a.ttl_start {
                return Err(ScenarioError::value(
                    "routing.aodv.ttl_threshold",
                    a.ttl_threshold,
                    format!("must be at least routing.aodv.ttl_start = {}", a.ttl_start),
                ));
            }
            AodvSpec::NETWORK_DIAMETER.check_int("routing.aodv.network_diameter", a.network_diameter as u64)?;
            AodvSpec::RREQ_RETRIES.check_int("routing.aodv.rreq_retries", a.rreq_retries as u64)?;
            AodvSpec::BUFFER_PACKETS.check_int("routing.aodv.buffer_packets", a.buffer_packets as u64)?;
            for (decl, v) in [
                (AodvSpec::MAX_RREQ_TIMEOUT_S, a.max_rreq_timeout_s),
                (AodvSpec::NODE_TRAVERSAL_TIME_S, a.node_traversal_time_s),
                (AodvSpec::ACTIVE_ROUTE_TIMEOUT_S, a.active_route_timeout_s),
                (AodvSpec::MY_ROUTE_TIMEOUT_S, a.my_route_timeout_s),
                (AodvSpec::REVERSE_ROUTE_LIFE_S, a.reverse_route_life_s),
                (AodvSpec::BCAST_ID_SAVE_S, a.bcast_id_save_s),
                (AodvSpec::BUFFER_TIMEOUT_S, a.buffer_timeout_s),
                (AodvSpec::PURGE_INTERVAL_S, a.purge_interval_s),
            ] {
                decl.check(v)?;
            }
            AodvSpec::BROADCAST_JITTER_S.check(a.broadcast_jitter_s)?;
            AodvSpec::ARP_DELAY_S.check(a.arp_delay_s)?;
            let hello = a.hello_interval_s;
            AodvSpec::HELLO_INTERVAL_S.check(hello)?;
            AodvSpec::ALLOWED_HELLO_LOSS.check_int("routing.aodv.allowed_hello_loss", a.allowed_hello_loss as u64)?;
            if a.link_detection == crate::net::routing::aodv::LinkDetection::Mac {
                for (key, set) in [
                    ("routing.aodv.hello_interval_s", hello != AodvSpec::HELLO_INTERVAL_S.num()),
                    (
                        "routing.aodv.allowed_hello_loss",
                        u64::from(a.allowed_hello_loss) != AodvSpec::ALLOWED_HELLO_LOSS.int(),
                    ),
                ] {
                    if set {
                        return Err(ScenarioError::new(
                            key,
                            format!("`{key}` needs routing.aodv.link_detection = \"hello\" (it is \"mac\")"),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

fn resolve_tcp(t: &mut TcpSpec, flows: &[FlowSpec], gap_on: bool) -> R<()> {
    TcpSpec::PAYLOAD_BYTES.check_int("tcp.payload_bytes", t.payload_bytes as u64)?;
    if let MaxWindow::Packets(w) = t.max_window {
        TcpSpec::MAX_WINDOW.check_int("tcp.max_window", w as u64)?;
    }
    TcpSpec::MIN_RTO_S.check(t.min_rto_s)?;
    TcpSpec::INITIAL_WINDOW.check_int("tcp.initial_window", t.initial_window as u64)?;
    TcpSpec::INITIAL_SSTHRESH.check_int("tcp.initial_ssthresh", t.initial_ssthresh as u64)?;
    TcpSpec::VEGAS_ALPHA.check(t.vegas_alpha)?;
    TcpSpec::VEGAS_GAMMA.check(t.vegas_gamma)?;
    for (i, &p) in t.bbr_phases.iter().enumerate() {
        int_range(&format!("tcp.bbr_phases[{i}]"), p as u64, 0, 7)?;
    }
    if !(t.vegas_beta.is_finite() && t.vegas_beta >= t.vegas_alpha) {
        return Err(ScenarioError::value(
            "tcp.vegas_beta",
            t.vegas_beta,
            format!("must be a number at least tcp.vegas_alpha = {}", t.vegas_alpha),
        ));
    }
    // BBR recovers from losses its own way (ns-3's TcpBbr has no SACK here).
    let bbr_sack = |key: &str| {
        ScenarioError::value(
            key,
            true,
            "not available with variant = \"bbr\", which has its own loss recovery (allowed: false)",
        )
    };
    if t.sack && t.variant == TcpVariantSpec::Bbr {
        return Err(bbr_sack("tcp.sack"));
    }
    for (i, f) in flows.iter().enumerate() {
        let bbr = f.variant.unwrap_or(t.variant) == TcpVariantSpec::Bbr;
        if f.transport == TransportKind::Tcp && bbr && f.sack.unwrap_or(t.sack) {
            return Err(bbr_sack(&if f.sack.is_some() { format!("flows.{i}.sack") } else { "tcp.sack".into() }));
        }
    }
    // TCP-GAP's gateway paces with the [tcp.ap] settings too.
    let uses_ap =
        gap_on || t.variant == TcpVariantSpec::TcpAp || flows.iter().any(|f| f.variant == Some(TcpVariantSpec::TcpAp));
    // [tcp.ap] is checked even when no flow uses TCP-AP, then dropped, so
    // that tcp.variant can be swept over a scenario that configures it.
    if uses_ap || t.ap.is_some() {
        let spec = t.ap.clone().unwrap_or_default();
        let c = spec.config(0.0);
        TcpApSpec::ALPHA.check(c.alpha)?;
        TcpApSpec::HOP_FACTOR.check_int("tcp.ap.hop_factor", c.hop_factor as u64)?;
        TcpApSpec::HISTORY.check_int("tcp.ap.history", c.history as u64)?;
        TcpApSpec::OVERHEAD_BYTES.check_int("tcp.ap.overhead_bytes", c.overhead_bytes as u64)?;
        // The seconds as given (config() maps 0 and below to "none").
        for (decl, v) in
            [(TcpApSpec::DELAY_BOUND_S, spec.delay_bound_s), (TcpApSpec::INITIAL_INTERVAL_S, spec.initial_interval_s)]
        {
            if let Some(v) = v {
                decl.check(v)?;
            }
        }
        t.ap = uses_ap.then(|| spec.resolved());
    }
    // [tcp.cubic] is kept only where it changes a run: a CUBIC flow and a
    // profile other than the default (so a scenario that states the default
    // keeps its canonical form).
    let uses_cubic =
        t.variant == TcpVariantSpec::Cubic || flows.iter().any(|f| f.variant == Some(TcpVariantSpec::Cubic));
    let profile = t.cubic.as_ref().map(|c| c.profile).unwrap_or_default();
    if uses_cubic && profile == CubicProfile::Ns2Linux && t.ecn {
        return Err(ScenarioError::value(
            "tcp.ecn",
            t.ecn,
            "false with tcp.cubic.profile = \"ns2_linux\" (TCP-Linux answers ECN-Echo through its SACK recovery, \
             which that profile does not model); use profile \"rfc9438\" for CUBIC with ECN",
        ));
    }
    t.cubic = (uses_cubic && !profile.is_default()).then_some(TcpCubicSpec { profile });
    Ok(())
}

fn resolve_flow(key: &str, f: &mut FlowSpec, duration: f64) -> R<()> {
    let app = match (f.transport, f.app) {
        (TransportKind::Udp, None) => AppKind::Cbr,
        (TransportKind::Tcp, None) => AppKind::Ftp,
        (TransportKind::Udp, Some(AppKind::Cbr)) => AppKind::Cbr,
        (TransportKind::Tcp, Some(a @ (AppKind::Ftp | AppKind::Http | AppKind::Cbr))) => a,
        (TransportKind::Udp, Some(a)) => {
            let (t, ok) = ("udp", "\"cbr\"");
            return Err(ScenarioError::value(
                &format!("{key}.app"),
                format!("\"{}\"", app_name(a)),
                format!("transport = \"{t}\" supports app = {ok}"),
            ));
        }
    };
    f.app = Some(app);
    if f.src == f.dst {
        return Err(ScenarioError::value(&format!("{key}.dst"), f.dst, "must differ from the flow's src"));
    }
    FlowSpec::START_S.check_num(&format!("{key}.start_s"), f.start_s)?;
    if f.start_s >= duration {
        return Err(ScenarioError::value(
            &format!("{key}.start_s"),
            f.start_s,
            format!("must be below duration_s = {duration}"),
        ));
    }
    if let Some(stop) = f.stop_s {
        if !(stop.is_finite() && stop > f.start_s) {
            return Err(ScenarioError::value(
                &format!("{key}.stop_s"),
                stop,
                format!("must be after start_s = {}", f.start_s),
            ));
        }
    }
    if let Some(c) = f.count {
        FlowSpec::COUNT.check_int(&format!("{key}.count"), c as u64)?;
    }
    if let Some(pauses) = &f.pauses {
        check_pauses(key, f, app, pauses, duration)?;
    }
    resolve_http(key, f, app)?;
    if app == AppKind::Cbr {
        resolve_cbr(key, f)?;
    }
    match f.transport {
        TransportKind::Udp => {
            let tcp_only = [
                ("variant", f.variant.is_some()),
                ("payload_bytes", f.payload_bytes.is_some()),
                ("max_window", f.max_window.is_some()),
                ("ecn", f.ecn.is_some()),
                ("delayed_ack", f.delayed_ack.is_some()),
                ("min_rto_s", f.min_rto_s.is_some()),
                ("sack", f.sack.is_some()),
            ];
            if let Some((k, _)) = tcp_only.iter().find(|(_, set)| *set) {
                return Err(ScenarioError::new(
                    format!("{key}.{k}"),
                    format!("`{key}.{k}` applies to TCP flows only; this flow has transport = \"udp\""),
                ));
            }
        }
        TransportKind::Tcp => {
            for (k, set) in [
                ("rate_bps", f.rate_bps.is_some()),
                ("packet_bytes", f.packet_bytes.is_some()),
                ("jitter", f.jitter.is_some()),
            ] {
                if set && app != AppKind::Cbr {
                    let hint = if k == "packet_bytes" {
                        " (use payload_bytes for TCP segment size)"
                    } else {
                        " (set app = \"cbr\" for a rate-limited TCP source)"
                    };
                    return Err(ScenarioError::new(
                        format!("{key}.{k}"),
                        format!("`{key}.{k}` applies to CBR flows only{hint}"),
                    ));
                }
            }
            if let Some(p) = f.payload_bytes {
                FlowSpec::PAYLOAD_BYTES.check_int(&format!("{key}.payload_bytes"), p as u64)?;
            }
            if let Some(MaxWindow::Packets(w)) = f.max_window {
                FlowSpec::MAX_WINDOW.check_int(&format!("{key}.max_window"), w as u64)?;
            }
            if let Some(r) = f.min_rto_s {
                FlowSpec::MIN_RTO_S.check_num(&format!("{key}.min_rto_s"), r)?;
            }
        }
    }
    Ok(())
}

/// CBR keys: the rate is required; over UDP the packet size defaults to
/// 1460 B, over TCP to the flow's segment size (filled when planning: each
/// CBR packet writes ceil(packet_bytes / payload_bytes) segments into the
/// send buffer, as ns-2's `TcpAgent::sendmsg`).
fn resolve_cbr(key: &str, f: &mut FlowSpec) -> R<()> {
    let rate = f.rate_bps.ok_or_else(|| {
        ScenarioError::new(
            format!("{key}.rate_bps"),
            format!("`{key}.rate_bps` is required for a CBR flow (payload bit/s, > 0)"),
        )
    })?;
    FlowSpec::RATE_BPS.check_num(&format!("{key}.rate_bps"), rate)?;
    let pb = if f.transport == TransportKind::Udp {
        Some(*f.packet_bytes.get_or_insert(k::UDP_PACKET_BYTES))
    } else {
        f.packet_bytes
    };
    if let Some(pb) = pb {
        FlowSpec::PACKET_BYTES.check_int(&format!("{key}.packet_bytes"), pb as u64)?;
    }
    let j = *f.jitter.get_or_insert(FlowSpec::JITTER.num());
    FlowSpec::JITTER.check_num(&format!("{key}.jitter"), j)
}

/// HTTP keys: allowed only with app = "http", defaults filled there.
fn resolve_http(key: &str, f: &mut FlowSpec, app: AppKind) -> R<()> {
    if app != AppKind::Http {
        for (k, set) in [
            ("mean_page_bytes", f.mean_page_bytes.is_some()),
            ("page_shape", f.page_shape.is_some()),
            ("mean_think_s", f.mean_think_s.is_some()),
        ] {
            if set {
                return Err(ScenarioError::new(
                    format!("{key}.{k}"),
                    format!("`{key}.{k}` applies to HTTP flows only; this flow has app = \"{}\"", app_name(app)),
                ));
            }
        }
        return Ok(());
    }
    // Each filled with its default where not given, then checked.
    for (decl, v) in [
        (FlowSpec::MEAN_PAGE_BYTES, &mut f.mean_page_bytes),
        (FlowSpec::PAGE_SHAPE, &mut f.page_shape),
        (FlowSpec::MEAN_THINK_S, &mut f.mean_think_s),
    ] {
        let name = decl.key.trim_start_matches("flows[].");
        decl.check_num(&format!("{key}.{name}"), *v.get_or_insert(decl.num()))?;
    }
    Ok(())
}

pub fn app_name(a: AppKind) -> &'static str {
    match a {
        AppKind::Cbr => "cbr",
        AppKind::Ftp => "ftp",
        AppKind::Http => "http",
    }
}

/// `pauses`: FTP over TCP only; each [from, to] inside the flow's life,
/// in order and not overlapping.
fn check_pauses(
    key: &str,
    f: &FlowSpec,
    app: AppKind,
    pauses: &[[f64; 2]],
    duration: f64,
) -> Result<(), ScenarioError> {
    let k = format!("{key}.pauses");
    if f.transport != TransportKind::Tcp || app != AppKind::Ftp {
        return Err(ScenarioError::value(
            &k,
            format!("{pauses:?}"),
            "applies to FTP over TCP only (transport = \"tcp\", app = \"ftp\")",
        ));
    }
    let end = f.stop_s.unwrap_or(duration).min(duration);
    let mut after = f.start_s;
    for (i, &[from, to]) in pauses.iter().enumerate() {
        if !(from.is_finite() && to.is_finite() && from > after && to > from && to < end) {
            return Err(ScenarioError::value(
                &format!("{k}[{i}]"),
                format!("[{from}, {to}]"),
                format!("must be [from, to] with {after} < from < to < {end} (after start_s or the previous pause, before the flow ends)"),
            ));
        }
        after = to;
    }
    Ok(())
}
