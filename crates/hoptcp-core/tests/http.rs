//! HTTP-like traffic over TCP (TCP-GAP §5.3): pages of Pareto-distributed
//! size with exponential think times between them, on a 3-hop chain.

mod common;
use common::*;

fn scenario(think_s: f64, duration_s: f64) -> String {
    format!(
        "duration_s = {duration_s}\nseed = 3\n[topology]\nkind = \"chain\"\nhops = 3\nspacing_m = 200\n\
         [radio]\ndata_rate_mbps = 11\n[tcp]\nmax_window = 32\n\
         [[flows]]\nsrc = 0\ndst = 3\ntransport = \"tcp\"\napp = \"http\"\nmean_think_s = {think_s}\n"
    )
}

#[test]
fn pages_alternate_with_think_times() {
    let think = 1.0;
    let r = run(&scenario(think, 300.0), &[]);
    let f = &r.flows[0];
    assert_eq!(f.app, "http");
    let h = f.http.as_ref().expect("http statistics");
    let n = h.pages_completed as f64;
    println!(
        "HTTP, 3 hops at 11 Mb/s, think 1 s: {} pages, mean {:.0} B, mean transfer {:.3} s, mean page goodput {:.0} b/s, flow goodput {:.0} b/s",
        h.pages_completed,
        h.page_bytes.iter().sum::<u64>() as f64 / n,
        h.mean_page_time_s,
        h.mean_page_goodput_bps,
        f.goodput_bps
    );
    assert!(h.pages_completed > 100, "{h:?}");
    assert!(h.pages_started == h.pages_completed || h.pages_started == h.pages_completed + 1);
    assert_eq!(h.page_bytes.len() as u64, h.pages_completed);
    // Every byte delivered belongs to a page: the completed ones, plus the
    // one in transfer at the end.
    let done: u64 = h.page_bytes.iter().sum();
    assert!(f.bytes_delivered >= done, "{} < {done}", f.bytes_delivered);
    if h.pages_started == h.pages_completed {
        assert_eq!(f.bytes_delivered, done);
    }
    // Pages are whole packets.
    assert!(h.page_bytes.iter().all(|b| b % 1460 == 0 && *b >= 10_000));
    // The run is pages and think times: 300 s ≈ Σ transfer times + n think
    // times (mean 1 s, σ = 1 s each), within 5σ = 5√n s.
    let busy: f64 = h.page_time_s.iter().sum();
    let think_total = 300.0 - busy;
    assert!((think_total - n * think).abs() < 5.0 * n.sqrt() * think, "think {think_total} s for {n} pages");
    // A page needs at least a round trip over 3 hops; per-page goodput is
    // below the single-hop saturation goodput at 11 Mb/s.
    assert!(h.page_time_s.iter().all(|&t| t > 0.005), "{:?}", h.page_time_s);
    let hop = model("single_hop", serde_json::json!({"data_rate_mbps": 11.0, "transport": "tcp"}), "goodput_bps");
    assert!(h.mean_page_goodput_bps > 0.0 && h.mean_page_goodput_bps < hop);

    // No think time: pages back to back, more of them.
    let r0 = run(&scenario(0.0, 300.0), &[]);
    let h0 = r0.flows[0].http.as_ref().unwrap();
    assert!(h0.pages_completed > 2 * h.pages_completed, "{} vs {}", h0.pages_completed, h.pages_completed);
    // Same seed, same pages.
    let again = run(&scenario(think, 300.0), &[]);
    assert_eq!(again.flows[0].http, f.http);
}

#[test]
fn http_keys_are_validated() {
    let base = scenario(1.0, 10.0);
    let reject = |ov: &[(&str, &str)]| {
        let ov: Vec<(String, String)> = ov.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        hoptcp_core::load_scenario(&base, &ov).unwrap_err()
    };
    let e = reject(&[("flows.0.page_shape", "1.0")]);
    assert_eq!(e.key, "flows.0.page_shape");
    assert!(e.message.contains("above 1"), "{e}");
    let e = reject(&[("flows.0.mean_think_s", "-1")]);
    assert_eq!(e.key, "flows.0.mean_think_s");
    let e = reject(&[("flows.0.mean_page_bytes", "0")]);
    assert_eq!(e.key, "flows.0.mean_page_bytes");
    let e = reject(&[("flows.0.app", "\"ftp\"")]);
    assert_eq!(e.key, "flows.0.mean_think_s");
    assert!(e.message.contains("HTTP flows only"), "{e}");
    let e = reject(&[("flows.0.transport", "\"udp\""), ("flows.0.rate_bps", "1000")]);
    assert_eq!(e.key, "flows.0.app");
    assert!(e.message.contains("\"cbr\""), "{e}");
    // Defaults are filled: the paper's page sizes.
    let sc = hoptcp_core::load_scenario(&base, &[]).unwrap();
    let sc: serde_json::Value = serde_json::from_str(&sc.canonical_json()).unwrap();
    let flow = &sc["flows"][0];
    assert_eq!(flow["app"], "http", "an HTTP flow: {flow}");
    assert_eq!(
        (&flow["mean_page_bytes"], &flow["page_shape"]),
        (&serde_json::json!(30_000.0), &serde_json::json!(1.5))
    );
}
