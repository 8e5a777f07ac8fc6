//! 7-hop chain (8 nodes 200 m apart), one CBR flow end to end with ns-2's
//! `random_` jitter (0.5), at rising offered rates. Fu et al.: goodput rises
//! with the load, peaks, then falls to a plateau; link-layer contention drops
//! (MAC retry limit) appear at a lower load than buffer overflow.

mod common;
use common::*;

const DURATION_S: f64 = 100.0;
const RATES: [f64; 12] = [100e3, 200e3, 250e3, 280e3, 300e3, 320e3, 340e3, 360e3, 400e3, 500e3, 700e3, 1e6];
const SEEDS: [u64; 2] = [1, 2];

struct Point {
    rate: f64,
    goodput: f64,
    mac_drops: u64,
    overflow: u64,
}

fn sweep(seed: u64) -> Vec<Point> {
    let base = example("chain7-udp.toml");
    RATES
        .iter()
        .map(|&rate| {
            let r = run_seed(
                &base,
                &[
                    ("duration_s", DURATION_S.to_string()),
                    ("stats.warmup_s", "2".into()),
                    ("flows.0.rate_bps", rate.to_string()),
                    ("flows.0.jitter", "0.5".into()),
                ],
                seed,
            );
            assert_eq!(r.flows[0].hops, 7);
            let p = Point {
                rate,
                goodput: r.flows[0].goodput_bps,
                mac_drops: drops(&r, "mac_rts_retry") + drops(&r, "mac_data_retry"),
                overflow: drops(&r, "queue_overflow"),
            };
            assert_eq!(drops(&r, "total"), p.mac_drops + p.overflow, "unexpected drop cause: {:?}", r.drops);
            p
        })
        .collect()
}

#[test]
fn goodput_rises_peaks_and_falls_to_a_plateau_and_contention_drops_come_first() {
    for seed in SEEDS {
        let pts = sweep(seed);
        for p in &pts {
            println!(
                "seed {seed}: offered {:>7.0} goodput {:>7.0} MAC drops {:>4} overflow {:>5}",
                p.rate, p.goodput, p.mac_drops, p.overflow
            );
        }
        let at = |rate: f64| pts.iter().find(|p| p.rate == rate).unwrap();

        // Light load: everything offered arrives, nothing is dropped.
        for p in pts.iter().filter(|p| p.rate <= 250e3) {
            assert!(rel(p.goodput, p.rate).abs() < 0.03, "seed {seed}: {} delivered of {}", p.goodput, p.rate);
            assert_eq!(p.mac_drops + p.overflow, 0, "seed {seed}: drops at {}", p.rate);
        }
        // Rises: strictly increasing up to 250 kb/s.
        assert!(pts.windows(2).take_while(|w| w[1].rate <= 250e3).all(|w| w[1].goodput > w[0].goodput));

        // Peaks inside the sweep (not at either end), near the chain's
        // capacity of roughly 1/4–1/5 of the single-hop goodput.
        let peak = pts.iter().max_by(|a, b| a.goodput.total_cmp(&b.goodput)).unwrap();
        assert!(peak.rate > 250e3 && peak.rate <= 400e3, "seed {seed}: peak at {}", peak.rate);
        assert!(peak.goodput > 270e3 && peak.goodput < 400e3, "seed {seed}: peak {}", peak.goodput);

        // Falls: overload costs well over 10 % of the peak.
        let heavy = [500e3, 700e3, 1e6].map(|r| at(r).goodput);
        for g in heavy {
            assert!(g < 0.88 * peak.goodput, "seed {seed}: {g} under overload vs peak {}", peak.goodput);
        }
        // ... to a plateau: the three overloaded points agree within 8 %.
        let mean = heavy.iter().sum::<f64>() / 3.0;
        for g in heavy {
            assert!(rel(g, mean).abs() < 0.08, "seed {seed}: no plateau: {heavy:?}");
        }

        // Contention before overflow.
        let first = |f: &dyn Fn(&Point) -> bool| pts.iter().find(|p| f(p)).map(|p| p.rate);
        let mac_onset = first(&|p| p.mac_drops > 0).expect("no MAC drop at any load");
        let overflow_onset = first(&|p| p.overflow > 0).expect("no overflow at any load");
        println!("seed {seed}: MAC drops from {mac_onset:.0} b/s, queue overflow from {overflow_onset:.0} b/s");
        assert!(mac_onset < overflow_onset, "seed {seed}: MAC drops at {mac_onset}, overflow at {overflow_onset}");
        // Once the chain is overloaded, the queues overflow far more often
        // than the MAC gives up.
        assert!(at(1e6).overflow > 5 * at(1e6).mac_drops);
    }
}

#[test]
fn periodic_cbr_pipelines_further_than_jittered_cbr() {
    // Strictly periodic packets settle into a collision-free pipeline along
    // the chain: 360 kb/s goes through without a single loss, then the chain
    // collapses to the same plateau. ns-2's random CBR gaps break the
    // pipeline: at 360 kb/s packets are lost and goodput is lower.
    let base = example("chain7-udp.toml");
    let go = |rate: f64, jitter: f64| {
        run_seed(
            &base,
            &[
                ("duration_s", DURATION_S.to_string()),
                ("stats.warmup_s", "2".into()),
                ("flows.0.rate_bps", rate.to_string()),
                ("flows.0.jitter", jitter.to_string()),
            ],
            1,
        )
    };
    let periodic = go(360e3, 0.0);
    let jittered = go(360e3, 0.5);
    let overloaded = go(1e6, 0.0);
    let g = |r: &hoptcp_core::RunReport| r.flows[0].goodput_bps;
    println!(
        "360 kb/s: periodic {:.0} (drops {}), jittered {:.0} (drops {}); 1 Mb/s periodic {:.0}",
        g(&periodic),
        drops(&periodic, "total"),
        g(&jittered),
        drops(&jittered, "total"),
        g(&overloaded)
    );
    assert_eq!(drops(&periodic, "total"), 0);
    assert!(rel(g(&periodic), 360e3).abs() < 0.01);
    assert!(drops(&jittered, "total") > 0);
    assert!(g(&jittered) < 0.95 * g(&periodic));
    assert!(g(&overloaded) < 0.75 * g(&periodic), "no collapse under overload: {}", g(&overloaded));
}
