//! AODV in whole scenarios: route discovery before the first delivery,
//! link breaks on a loaded chain (counted per flow, per node and by drop
//! cause, consistently), and the cost of routing dynamics against static
//! routes, as ns-2.35 shows it (docs/aodv.md).

mod common;
use common::*;
use serde_json::Value;

fn chain(hops: u32, duration: f64, routing: &str, extra: &str) -> String {
    format!(
        "duration_s = {duration}\nseed = 2\n[topology]\nkind = \"chain\"\nhops = {hops}\nspacing_m = 200\n\
         [routing]\nprotocol = \"{routing}\"\n{extra}"
    )
}

fn tcp_flow(src: u32, dst: u32) -> String {
    format!("[[flows]]\nsrc = {src}\ndst = {dst}\ntransport = \"tcp\"\n")
}

fn json(r: &hoptcp_core::RunReport) -> Value {
    serde_json::to_value(r).unwrap()
}

#[test]
fn light_cbr_is_delivered_after_one_discovery() {
    // 10 packets/s over 7 hops: no losses, one discovery by the source
    // answered by the destination, every packet delivered.
    let r = run(&(chain(7, 20.0, "aodv", "") + &cbr(0, 7, 80_000.0, 1000)), &[]);
    let v = json(&r);
    let f = &r.flows[0];
    assert_eq!(f.packets_delivered, f.packets_sent, "{:?}", v["drops"]);
    assert_eq!(drops(&r, "total"), 0);
    let routing = &v["routing"];
    assert_eq!(routing["protocol"], "aodv");
    assert_eq!(routing["route_breaks"], 0);
    let nodes = v["nodes"].as_array().unwrap();
    assert_eq!(nodes[0]["rreq_sent"], 1, "one request from the source");
    assert_eq!(nodes[0]["route_discoveries"], 1);
    assert_eq!(nodes[7]["rrep_sent"], 1, "the destination answers");
    for n in &nodes[1..7] {
        assert_eq!(n["rreq_forwarded"], 1, "node {} rebroadcasts the request once", n["id"]);
        assert_eq!(n["rrep_forwarded"], 1, "node {} relays the reply", n["id"]);
    }
    assert_eq!(v["flows"][0]["route_discoveries"], 1);
    // The first packet waited for the route: later ones did not.
    assert!(f.goodput_bps > 0.95 * 80_000.0, "goodput {}", f.goodput_bps);
}

#[test]
fn loaded_chain_breaks_routes_and_counts_them_consistently() {
    let extra = "[tcp]\nmax_window = 32\n[stats]\nthroughput_interval_s = 1.0\n";
    let r = run(&(chain(7, 60.0, "aodv", extra) + &tcp_flow(0, 7)), &[]);
    let v = json(&r);
    let routing = &v["routing"];
    let breaks = routing["route_breaks"].as_u64().unwrap();
    assert!(breaks > 0, "a loaded 7-hop chain has MAC retry-limit drops");
    assert!(routing["rerr_sent"].as_u64().unwrap() > 0);
    assert!(routing["route_discoveries"].as_u64().unwrap() > 1, "breaks near the source trigger rediscoveries");
    // Per flow and per node sums agree with the totals.
    assert_eq!(v["flows"][0]["route_breaks"].as_u64().unwrap(), breaks);
    let node_sum = |k: &str| v["nodes"].as_array().unwrap().iter().map(|n| n[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(node_sum("route_breaks"), breaks);
    assert_eq!(node_sum("rreq_sent"), routing["rreq_sent"].as_u64().unwrap());
    // The per-second series places every break in time.
    let series = v["series"]["route_breaks"]["0"].as_array().unwrap();
    assert_eq!(series.len(), 60);
    assert_eq!(series.iter().map(|x| x.as_u64().unwrap()).sum::<u64>(), breaks);
    // Every break is a data packet the MAC gave up on: either dropped under
    // its MAC cause or buffered for local repair.
    let by_kind = &v["drops"]["by_kind"];
    let mac_data_drops: u64 = ["tcp_data", "tcp_ack", "udp"]
        .iter()
        .map(|k| by_kind[k]["mac_rts_retry"].as_u64().unwrap() + by_kind[k]["mac_data_retry"].as_u64().unwrap())
        .sum();
    assert_eq!(mac_data_drops + routing["local_repairs"].as_u64().unwrap(), breaks);
    assert!(drops(&r, "link_failure_flush") > 0, "queued packets to the broken neighbour are dropped");
}

#[test]
fn route_dynamics_cost_a_window_32_flow_much_more_than_a_window_3_flow() {
    // ns-2.35 (docs/aodv.md): with max window 32, AODV halves the goodput
    // of static routes; with max window 3 it costs little.
    let goodput = |routing: &str, w: u32| {
        let r = run(&(chain(7, 100.0, routing, &format!("[tcp]\nmax_window = {w}\n")) + &tcp_flow(0, 7)), &[]);
        r.aggregate_goodput_bps
    };
    let (a32, s32) = (goodput("aodv", 32), goodput("static", 32));
    let (a3, s3) = (goodput("aodv", 3), goodput("static", 3));
    assert!(a32 < 0.7 * s32, "window 32: AODV {a32:.0} vs static {s32:.0} b/s");
    assert!(a3 > 0.8 * s3, "window 3: AODV {a3:.0} vs static {s3:.0} b/s");
    assert!(a3 > a32, "the small window wins under AODV: {a3:.0} vs {a32:.0}");
}

#[test]
fn aodv_runs_are_deterministic() {
    let text = chain(7, 30.0, "aodv", "[tcp]\nmax_window = 32\n") + &tcp_flow(0, 7);
    let strip = |r: hoptcp_core::RunReport| {
        let mut v = json(&r);
        v.as_object_mut().unwrap().remove("wall_time_s");
        v
    };
    assert_eq!(strip(run(&text, &[])), strip(run(&text, &[])));
    assert_ne!(strip(run_seed(&text, &[], 3)), strip(run(&text, &[])));
}

#[test]
fn static_reports_have_no_routing_section() {
    let r = run(&(chain(3, 5.0, "static", "") + &tcp_flow(0, 3)), &[]);
    let v = json(&r);
    assert!(v.get("routing").is_none());
    assert!(v["flows"][0].get("route_breaks").is_none());
    let r2 = run(&(chain(3, 5.0, "static", "[stats]\nthroughput_interval_s = 1.0\n") + &tcp_flow(0, 3)), &[]);
    assert!(json(&r2)["series"].get("route_breaks").is_none());
    assert!(v["nodes"][0].get("rreq_sent").is_none());
    // The routing drop causes exist (zero), so tables keep their columns.
    assert_eq!(drops(&r, "link_failure_flush"), 0);
    assert_eq!(drops(&r, "route_buffer_timeout"), 0);
}

#[test]
fn hello_detection_keeps_routes_through_mac_failures_and_sends_hellos() {
    // With HELLOs, a MAC retry-limit drop only loses the packet: on a
    // static chain whose HELLOs get through, routes break far less often
    // than with ns-2.35's MAC detection, and the window-32 flow keeps most
    // of static routing's goodput.
    let extra = "[tcp]\nmax_window = 32\n";
    let hello = "[routing.aodv]\nlink_detection = \"hello\"\n";
    let mac = run(&(chain(7, 60.0, "aodv", extra) + &tcp_flow(0, 7)), &[]);
    let hel = run(&(chain(7, 60.0, "aodv", &format!("{hello}{extra}")) + &tcp_flow(0, 7)), &[]);
    let stat = run(&(chain(7, 60.0, "static", extra) + &tcp_flow(0, 7)), &[]);
    let (vm, vh) = (json(&mac), json(&hel));
    let mac_drops = |v: &Value| {
        let by_kind = &v["drops"]["by_kind"];
        ["tcp_data", "tcp_ack"]
            .iter()
            .map(|k| by_kind[k]["mac_rts_retry"].as_u64().unwrap() + by_kind[k]["mac_data_retry"].as_u64().unwrap())
            .sum::<u64>()
    };
    assert!(mac_drops(&vh) > 0, "the MAC still gives up on packets");
    let (bm, bh) = (vm["routing"]["route_breaks"].as_u64().unwrap(), vh["routing"]["route_breaks"].as_u64().unwrap());
    assert!(bh * 5 < bm, "route breaks: hello {bh}, mac {bm}");
    assert_eq!(vh["routing"]["local_repairs"], 0);
    assert_eq!(vh["flows"][0]["route_breaks"], 0, "no break is caused by one of the flow's packets");
    assert!(drops(&hel, "link_failure_flush") == 0, "no queue flush on a MAC failure");
    assert!(
        hel.aggregate_goodput_bps > 0.8 * stat.aggregate_goodput_bps,
        "hello {:.0} vs static {:.0} b/s",
        hel.aggregate_goodput_bps,
        stat.aggregate_goodput_bps
    );
    let text = chain(7, 30.0, "aodv", &format!("{hello}{extra}")) + &tcp_flow(0, 7);
    let strip = |r: hoptcp_core::RunReport| {
        let mut v = json(&r);
        v.as_object_mut().unwrap().remove("wall_time_s");
        v
    };
    assert_eq!(strip(run(&text, &[])), strip(run(&text, &[])), "deterministic");
}
