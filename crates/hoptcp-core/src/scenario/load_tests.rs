//! `load`'s single build: the plan it returns for `max_window = "wstar"` is
//! the one resolution built, brought up to date, and must equal a fresh
//! build of the resolved scenario.

use super::{build, load, parse};

/// Lee et al.'s 7-hop chain, one FTP flow (as in `tests/ldm.rs`).
const CHAIN7: &str = "duration_s = 60\nseed = 3\n[topology]\nkind = \"chain\"\nhops = 7\nspacing_m = 200\n\
                      [tcp]\nmax_window = 32\n[[flows]]\nsrc = 0\ndst = 7\ntransport = \"tcp\"\napp = \"ftp\"\n";

#[test]
fn wstar_plan_built_once_equals_a_fresh_build() {
    // The plan `load` returns for "wstar" is the one resolution built (with
    // placeholder windows) brought up to date; it must equal a build of the
    // resolved scenario: repeated flows, a UDP flow inheriting [tcp], a
    // flow with its own window.
    let text = CHAIN7.replacen("app = \"ftp\"\n", "app = \"ftp\"\ncount = 2\n", 1)
        + "[[flows]]\nsrc = 1\ndst = 4\ntransport = \"tcp\"\napp = \"ftp\"\nmax_window = 9\n\
           [[flows]]\nsrc = 0\ndst = 3\ntransport = \"udp\"\nrate_bps = 1000\npacket_bytes = 100\n";
    let tcp_wstar = vec![("tcp.max_window".to_string(), "wstar".to_string())];
    let flow_wstar = vec![("flows.0.max_window".to_string(), "\"wstar\"".to_string())];
    for (o, udp_window) in [(tcp_wstar, 2), (flow_wstar, 32)] {
        let plan = load(&text, &o).unwrap();
        let fresh = build(&parse(&text, &o).unwrap()).unwrap();
        assert_eq!(plan.to_json(), fresh.to_json());
        assert_eq!(plan.flows.len(), 4);
        assert_eq!(plan.flows[0].tcp.max_window, 2);
        assert_eq!(plan.flows[1].tcp.max_window, 2);
        assert_eq!(plan.flows[2].tcp.max_window, 9);
        assert_eq!(plan.flows[3].tcp.max_window, udp_window);
    }
}
