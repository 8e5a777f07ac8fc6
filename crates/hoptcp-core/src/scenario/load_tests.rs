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

#[test]
fn cubic_profile_key_and_the_canonical_form() {
    use super::canonical_json;
    use crate::transport::tcp::config::CubicProfile;
    let canon = |text: &str| canonical_json(&parse(text, &[]).unwrap());
    let with_cubic = |table: &str| CHAIN7.replacen("[tcp]\n", "[tcp]\nvariant = \"cubic\"\n", 1) + table;
    let cubic = with_cubic("");
    let stated_default = with_cubic("[tcp.cubic]\nprofile = \"rfc9438\"\n");
    let linux = with_cubic("[tcp.cubic]\nprofile = \"ns2_linux\"\n");
    // The default profile, stated or not, leaves [tcp.cubic] out of the canonical form.
    assert_eq!(canon(&cubic), canon(&stated_default));
    assert!(!canon(&cubic).contains("profile"));
    assert!(canon(&linux).contains("\"cubic\":{\"profile\":\"ns2_linux\"}"), "{}", canon(&linux));
    // Without a CUBIC flow [tcp.cubic] changes nothing, so it is dropped.
    assert_eq!(canon(&(CHAIN7.to_string() + "[tcp.cubic]\nprofile = \"ns2_linux\"\n")), canon(CHAIN7));
    // The flow runs the profile, with TCP-Linux's 1 ms RTT clock.
    let plan = load(&linux, &[]).unwrap();
    let cfg = plan.flows[0].tcp.as_ref().unwrap();
    assert_eq!(cfg.cubic_profile, CubicProfile::Ns2Linux);
    assert_eq!(cfg.rtt_tick(), crate::engine::NS_PER_MS);
    assert_eq!(load(&cubic, &[]).unwrap().flows[0].tcp.as_ref().unwrap().cubic_profile, CubicProfile::Rfc9438);
    // Bad input: one line naming the key, the value and what is allowed.
    let bad = parse(&with_cubic("[tcp.cubic]\nprofile = \"linux\"\n"), &[]).unwrap_err().to_string();
    assert!(bad.contains("tcp.cubic.profile") && bad.contains("linux") && bad.contains("ns2_linux"), "{bad}");
    let ecn = parse(&linux.replacen("[tcp]\n", "[tcp]\necn = true\n", 1), &[]).unwrap_err().to_string();
    assert!(ecn.contains("`tcp.ecn` = true") && ecn.contains("ns2_linux") && !ecn.contains('\n'), "{ecn}");
}
