//! TCP fed by a rate-limited (CBR) application, as Jiang et al.'s Fig. 7
//! sources: below the path's capacity the flow gets the offered rate;
//! above it, it behaves as FTP.

mod common;
use common::*;

fn scenario(app: &str) -> String {
    format!(
        "duration_s = 60\nseed = 2\n[topology]\nkind = \"chain\"\nhops = 3\nspacing_m = 200\n\
         [radio]\ndata_rate_mbps = 1\nbasic_rate_mbps = 1\n[tcp]\nmax_window = 32\n\
         [[flows]]\nsrc = 0\ndst = 3\ntransport = \"tcp\"\n{app}\n"
    )
}

#[test]
fn rate_below_capacity_is_delivered_and_above_it_is_ftp() {
    let ftp = run(&scenario("app = \"ftp\""), &[]).flows[0].goodput_bps;
    // 3 hops at 1 Mb/s carry a few hundred kb/s.
    assert!(ftp > 150_000.0 && ftp < 600_000.0, "FTP {ftp}");

    let slow = run(&scenario("app = \"cbr\"\nrate_bps = 50000"), &[]);
    let f = &slow.flows[0];
    assert_eq!((f.transport, f.app), ("tcp", "cbr"));
    // 50 kb/s offered (a write at t = 0 and every 233.6 ms: one write more
    // than the rate's share of 60 s): delivered within the few segments
    // still in flight.
    let seg = 1460.0 * 8.0 / 60.0;
    assert!(f.goodput_bps <= 50_000.0 + seg && f.goodput_bps > 50_000.0 - 3.0 * seg, "{}", f.goodput_bps);
    assert_eq!(f.tcp.as_ref().unwrap().timeouts, 0);

    // 5 Mb/s offered: the send buffer never empties.
    let fast = run(&scenario("app = \"cbr\"\nrate_bps = 5000000"), &[]).flows[0].goodput_bps;
    assert!((fast / ftp - 1.0).abs() < 0.1, "CBR 5 Mb/s {fast} vs FTP {ftp}");
}

fn run_err(toml: &str) -> String {
    match hoptcp_core::run_scenario(toml, &[], &hoptcp_core::RunOptions::default()) {
        Ok(_) => panic!("accepted:\n{toml}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn tcp_cbr_keys_are_checked() {
    let e = run_err(&scenario("app = \"cbr\""));
    assert!(e.contains("flows.0.rate_bps") && e.contains("required"), "{e}");
    let e = run_err(&scenario("app = \"cbr\"\nrate_bps = -1"));
    assert!(e.contains("flows.0.rate_bps"), "{e}");
    let e = run_err(&scenario("rate_bps = 1000"));
    assert!(e.contains("flows.0.rate_bps") && e.contains("app = \"cbr\""), "{e}");
}
