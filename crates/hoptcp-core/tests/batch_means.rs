//! Batch means as a stop rule (TCP-GAP §5.1): run until the flows together
//! have delivered N·k packets, discard the first batch, report means with
//! Student-t confidence intervals; duration_s caps the run.

mod common;
use common::*;

fn two_flows(extra: &str) -> String {
    format!(
        "duration_s = 500\nseed = 2\n[topology]\nkind = \"chain\"\nhops = 4\nspacing_m = 200\n\
         [radio]\ndata_rate_mbps = 11\n[tcp]\nmax_window = 32\n[stats]\nbatch_packets = 1000\n{extra}\n\
         [[flows]]\nsrc = 0\ndst = 4\ntransport = \"tcp\"\n[[flows]]\nsrc = 4\ndst = 1\ntransport = \"tcp\"\n"
    )
}

#[test]
fn the_run_stops_after_n_batches_of_k_packets() {
    let r = run(&two_flows("batches = 11"), &[]);
    let bm = r.batch_means.as_ref().expect("batch_means");
    let total: u64 = r.flows.iter().map(|f| f.packets_delivered).sum();
    println!(
        "2 flows, 11 batches of 1000: stopped at {:.2} s after {total} packets; aggregate {:.0} ± {:.0} b/s, Jain {:.3} ± {:.3}",
        bm.end_s,
        bm.aggregate_goodput_bps.mean.unwrap(),
        bm.aggregate_goodput_bps.ci.unwrap(),
        bm.fairness_jain.mean.unwrap(),
        bm.fairness_jain.ci.unwrap()
    );
    assert!(bm.complete);
    assert_eq!((bm.batch_packets, bm.batches, bm.completed, bm.discarded), (1000, 11, 11, 1));
    assert_eq!(bm.confidence, 0.95);
    // It stopped at the 11 000th packet (one TCP arrival can deliver a few
    // buffered packets at once), long before the 500 s cap.
    assert!((11_000..11_000 + 32).contains(&total), "{total}");
    assert!(bm.end_s < 400.0 && r.duration_s == bm.end_s, "{} {}", bm.end_s, r.duration_s);
    assert_eq!(*bm.bounds_s.last().unwrap(), bm.end_s);
    assert!(bm.bounds_s.windows(2).all(|w| w[0] < w[1]));
    // The per-batch goodputs account for every byte delivered.
    let mut start = 0.0;
    let mut bytes = 0.0;
    for (b, &end) in bm.bounds_s.iter().enumerate() {
        bytes += bm.aggregate_goodput_bps.batches[b].unwrap() * (end - start) / 8.0;
        start = end;
    }
    let delivered: u64 = r.flows.iter().map(|f| f.bytes_delivered).sum();
    assert!((bytes - delivered as f64).abs() < 1e-6 * delivered as f64, "{bytes} vs {delivered}");
    // Flow batches add up to the aggregate, batch by batch.
    for b in 0..11 {
        let s: f64 = bm.flows.iter().map(|f| f.goodput_bps.batches[b].unwrap()).sum();
        assert!((s - bm.aggregate_goodput_bps.batches[b].unwrap()).abs() < 1e-6 * s);
    }
    // Means over batches 2..11 and their 95 % half-width t(0.95, 9)·s/√10.
    let kept: Vec<f64> = bm.aggregate_goodput_bps.batches[1..].iter().map(|x| x.unwrap()).collect();
    let m = kept.iter().sum::<f64>() / 10.0;
    let s = (kept.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / 9.0).sqrt();
    assert!((bm.aggregate_goodput_bps.mean.unwrap() - m).abs() < 1e-9 * m);
    assert!((bm.aggregate_goodput_bps.ci.unwrap() - 2.262157 * s / 10f64.sqrt()).abs() < 1e-5 * s);
    let j = bm.fairness_jain.mean.unwrap();
    assert!((0.5..=1.0).contains(&j));
    // Per-flow goodput over the run is measured to the stop time too.
    let run_total: f64 = r.flows.iter().map(|f| f.goodput_bps).sum();
    assert!((run_total - delivered as f64 * 8.0 / bm.end_s).abs() < 1e-6 * run_total);
}

#[test]
fn duration_caps_the_run() {
    let r = run(&two_flows("batches = 11"), &[("duration_s", "40".into())]);
    let bm = r.batch_means.as_ref().unwrap();
    assert!(!bm.complete);
    assert!(bm.completed < 11 && bm.completed >= 2, "{bm:?}");
    assert_eq!(r.duration_s, 40.0);
    assert_eq!(bm.end_s, 40.0);
    assert_eq!(bm.aggregate_goodput_bps.batches.len(), bm.completed as usize);
    // Without the stop rule nothing changes: same run, no batch_means.
    let plain = run(&two_flows(""), &[("duration_s", "40".into())]);
    assert!(plain.batch_means.is_none());
    assert_eq!(plain.flows[0].goodput_bps, r.flows[0].goodput_bps);
    assert_eq!(plain.events, r.events);
}

#[test]
fn batch_keys_are_validated() {
    let base = two_flows("");
    let reject = |ov: &[(&str, &str)]| {
        let ov: Vec<(String, String)> = ov.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        hoptcp_core::load_scenario(&base, &ov).unwrap_err()
    };
    let no_k = base.replace("batch_packets = 1000", "");
    let e = hoptcp_core::load_scenario(&no_k, &[("stats.batches".into(), "11".into())]).unwrap_err();
    assert_eq!(e.key, "stats.batches");
    assert!(e.message.contains("stats.batch_packets"), "{e}");
    let e = reject(&[("stats.batches", "1")]);
    assert_eq!(e.key, "stats.batches");
    assert!(e.message.contains("2..="), "{e}");
    let e = reject(&[("stats.batches", "5"), ("stats.batch_confidence", "1.0")]);
    assert_eq!(e.key, "stats.batch_confidence");
    let e = reject(&[("stats.batch_discard", "2")]);
    assert_eq!(e.key, "stats.batch_discard");
    assert!(e.message.contains("set stats.batches"), "{e}");
    // Set batches, the stop rule resolves with its defaults: discard 1, 95 %.
    let sc = hoptcp_core::load_scenario(&base, &[("stats.batches".into(), "11".into())]).unwrap();
    let sc: serde_json::Value = serde_json::from_str(&sc.canonical_json()).unwrap();
    let stop = ["batches", "batch_discard", "batch_confidence"].map(|k| sc["stats"][k].clone());
    assert_eq!(stop, [serde_json::json!(11), serde_json::json!(1), serde_json::json!(0.95)]);
    // Without batches, the run goes to its end: no stop rule is written.
    let sc = hoptcp_core::load_scenario(&base, &[]).unwrap();
    let sc: serde_json::Value = serde_json::from_str(&sc.canonical_json()).unwrap();
    assert!(sc["stats"].get("batches").is_none() && sc["stats"].get("batch_discard").is_none(), "{sc}");
}
