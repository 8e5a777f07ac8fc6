//! `load`'s single build: the plan it returns for `max_window = "wstar"` is
//! the one resolution built, and must equal a fresh build of the resolved
//! scenario.

use super::{build, load, parse};

/// Lee et al.'s 7-hop chain, one FTP flow (as in `tests/ldm.rs`).
const CHAIN7: &str = "duration_s = 60\nseed = 3\n[topology]\nkind = \"chain\"\nhops = 7\nspacing_m = 200\n\
                      [tcp]\nmax_window = 32\n[[flows]]\nsrc = 0\ndst = 7\ntransport = \"tcp\"\napp = \"ftp\"\n";

#[test]
fn wstar_plan_built_once_equals_a_fresh_build() {
    // The plan `load` returns for "wstar" is the one resolution built (W*
    // resolved from the paths); it must equal a build of the resolved
    // scenario: repeated flows, a UDP flow inheriting [tcp], a flow with its
    // own window.
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
        let window = |i: usize| plan.to_json()["flows"][i]["tcp"]["max_window"].as_u64();
        assert_eq!(plan.flows[0].tcp.as_ref().map(|c| c.max_window), Some(2));
        assert_eq!(plan.flows[1].tcp.as_ref().map(|c| c.max_window), Some(2));
        assert_eq!(plan.flows[2].tcp.as_ref().map(|c| c.max_window), Some(9));
        assert!(plan.flows[3].tcp.is_none(), "UDP");
        assert_eq!((window(0), window(2), window(3)), (Some(2), Some(9), Some(udp_window)));
    }
}
