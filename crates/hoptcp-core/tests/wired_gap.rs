//! Hybrid wired/wireless networks and TCP-GAP (ElRakabawy et al. 2008):
//! examples/gap-chain.toml (Fig. 3: 7-hop chain – gateway – 3 wired nodes).

mod common;
use common::*;
use hoptcp_core::RunReport;

fn gap_chain(ov: &[(&str, &str)], seed: u64) -> RunReport {
    let mut all: Vec<(&str, String)> = vec![("duration_s", "300".into())];
    all.extend(ov.iter().map(|(k, v)| (*k, v.to_string())));
    run_seed(&example("gap-chain.toml"), &all, seed)
}

#[test]
fn smoke() {
    for dir in [("0", "10"), ("10", "0")] {
        for (name, v, gap) in
            [("newreno", "newreno", "false"), ("tcp_ap", "tcp_ap", "false"), ("gap", "tcp_ap", "true")]
        {
            let v = if dir.0 == "10" && name == "gap" { "newreno" } else { v };
            let mut g = vec![];
            for seed in 1..=3 {
                let r = gap_chain(
                    &[
                        ("flows.0.src", dir.0),
                        ("flows.0.dst", dir.1),
                        ("flows.0.variant", v),
                        ("wired.tcp_gap.enabled", gap),
                    ],
                    seed,
                );
                g.push(format!(
                    "{:.0}k/{}rtx/{}d",
                    r.flows[0].goodput_bps / 1e3,
                    r.flows[0].tcp.as_ref().unwrap().retransmissions,
                    drops(&r, "total")
                ));
            }
            println!("{dir:?} {name}: {g:?}");
        }
    }
}
