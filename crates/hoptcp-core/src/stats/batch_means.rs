//! Batch means as a stop rule (TCP-GAP §5.1): "we simulate TCP flows until
//! 55,000 packets are successfully transmitted, and split the simulation
//! output in 11 batches of size 5000 packets. The first batch is discarded
//! as initial transient. The performance measures are derived from the
//! remaining 10 batches with 95% confidence intervals".
//!
//! Batches count packets delivered by all flows together: batch i ends when
//! the i·k-th packet arrives. Over each batch, each flow's goodput is its
//! payload delivered in the batch over the batch's length; the aggregate
//! goodput and Jain's index follow per batch. Means and Student-t
//! confidence half-widths are taken over the batches after the discarded
//! ones.

use crate::engine::time::to_secs;
use crate::engine::Time;
use serde::Serialize;

/// Two-sided Student-t quantile: the t with P(|T| ≤ t) = `confidence` for
/// `dof` degrees of freedom (t_{(1+c)/2, dof}).
pub fn t_quantile(confidence: f64, dof: u32) -> f64 {
    assert!(dof >= 1 && confidence > 0.0 && confidence < 1.0);
    // P(|T| ≤ t) in closed form for integer dof (Abramowitz & Stegun
    // 26.7.3–4), as a function of θ = atan(t/√dof); increasing in θ.
    let central = |theta: f64| -> f64 {
        let (s, c) = theta.sin_cos();
        let c2 = c * c;
        // the same series for odd and even dof, from k = 1 or k = 0
        let odd = dof % 2 == 1;
        let mut sum = 0.0;
        let mut term = 1.0;
        let mut k = u32::from(odd);
        while k + 2 <= dof {
            sum += term;
            term *= c2 * (k + 1) as f64 / (k + 2) as f64;
            k += 2;
        }
        if odd {
            2.0 / std::f64::consts::PI * (theta + s * c * sum)
        } else {
            s * sum
        }
    };
    let (mut lo, mut hi) = (0.0, std::f64::consts::FRAC_PI_2);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if central(mid) < confidence {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (dof as f64).sqrt() * (0.5 * (lo + hi)).tan()
}

/// A batch-means estimate: the value of each batch, and the mean and
/// confidence half-width over the batches kept.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Estimate {
    /// Null when no batch is kept.
    pub mean: Option<f64>,
    /// Half-width of the confidence interval; null with fewer than 2 batches.
    pub ci: Option<f64>,
    /// Every batch's value, the discarded ones first.
    pub batches: Vec<Option<f64>>,
}

impl Estimate {
    fn from(values: Vec<Option<f64>>, discard: usize, confidence: f64) -> Self {
        let kept: Vec<f64> = values.iter().skip(discard).flatten().copied().collect();
        let n = kept.len();
        let mean = (n > 0).then(|| kept.iter().sum::<f64>() / n as f64);
        let ci = mean.filter(|_| n >= 2).map(|m| {
            let var = kept.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64;
            t_quantile(confidence, n as u32 - 1) * (var / n as f64).sqrt()
        });
        Estimate { mean, ci, batches: values }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowBatchMeans {
    pub id: u32,
    pub goodput_bps: Estimate,
}

/// The `batch_means` object of the run report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BatchMeansReport {
    /// Packets per batch (k) and batches asked for (N).
    pub batch_packets: u32,
    pub batches: u32,
    /// Batches completed (N unless the run reached duration_s first).
    pub completed: u32,
    pub discarded: u32,
    pub confidence: f64,
    /// All N batches completed: the run stopped at `end_s`.
    pub complete: bool,
    pub end_s: f64,
    /// When each batch ended (s).
    pub bounds_s: Vec<f64>,
    pub aggregate_goodput_bps: Estimate,
    pub fairness_jain: Estimate,
    pub flows: Vec<FlowBatchMeans>,
}

/// Counts delivered packets into batches and keeps each flow's delivered
/// payload at every batch boundary. Work happens only at boundaries.
#[derive(Clone, Debug)]
pub struct BatchMeans {
    k: u64,
    target: u32,
    discard: u32,
    confidence: f64,
    flows: usize,
    start: Time,
    delivered: u64,
    /// Boundary times, and per boundary the flows' delivered payload bytes.
    bounds: Vec<Time>,
    bytes: Vec<u64>,
}

impl BatchMeans {
    /// N = `batches` batches of `k` packets over `flows` flows; the first
    /// batch starts at `start` (the first flow's start).
    pub fn new(k: u32, batches: u32, discard: u32, confidence: f64, flows: usize, start: Time) -> Self {
        BatchMeans {
            k: k.max(1) as u64,
            target: batches,
            discard,
            confidence,
            flows,
            start,
            delivered: 0,
            bounds: Vec::with_capacity(batches as usize),
            bytes: Vec::with_capacity(batches as usize * flows),
        }
    }

    /// `packets` more packets were delivered at `now`; `bytes_of(i)` is flow
    /// i's payload delivered so far. Returns true once all N batches are
    /// complete (the run should stop).
    pub fn on_delivered(&mut self, now: Time, packets: u64, bytes_of: impl Fn(usize) -> u64) -> bool {
        self.delivered += packets;
        while self.bounds.len() < self.target as usize && self.delivered >= (self.bounds.len() as u64 + 1) * self.k {
            self.bounds.push(now);
            self.bytes.extend((0..self.flows).map(&bytes_of));
        }
        self.complete()
    }

    pub fn complete(&self) -> bool {
        self.bounds.len() >= self.target as usize
    }

    /// The report; `ids` are the flows' ids, `end` when the run stopped.
    pub fn report(&self, ids: &[u32], end: Time) -> BatchMeansReport {
        let n = self.bounds.len();
        let d = self.discard as usize;
        let mut flow_values = vec![Vec::with_capacity(n); self.flows];
        let mut aggregate = Vec::with_capacity(n);
        let mut jain = Vec::with_capacity(n);
        for b in 0..n {
            let t0 = if b == 0 { self.start } else { self.bounds[b - 1] };
            let secs = to_secs((self.bounds[b].saturating_sub(t0)).max(1));
            let g: Vec<f64> = (0..self.flows)
                .map(|i| {
                    let before = if b == 0 { 0 } else { self.bytes[(b - 1) * self.flows + i] };
                    (self.bytes[b * self.flows + i] - before) as f64 * 8.0 / secs
                })
                .collect();
            let sum: f64 = g.iter().sum();
            let sq: f64 = g.iter().map(|x| x * x).sum();
            aggregate.push(Some(sum));
            jain.push((sq > 0.0).then(|| sum * sum / (g.len() as f64 * sq)));
            for (i, x) in g.into_iter().enumerate() {
                flow_values[i].push(Some(x));
            }
        }
        BatchMeansReport {
            batch_packets: self.k as u32,
            batches: self.target,
            completed: n as u32,
            discarded: self.discard,
            confidence: self.confidence,
            complete: self.complete(),
            end_s: to_secs(end),
            bounds_s: self.bounds.iter().map(|&t| to_secs(t)).collect(),
            aggregate_goodput_bps: Estimate::from(aggregate, d, self.confidence),
            fairness_jain: Estimate::from(jain, d, self.confidence),
            flows: ids
                .iter()
                .zip(flow_values)
                .map(|(&id, v)| FlowBatchMeans { id, goodput_bps: Estimate::from(v, d, self.confidence) })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_S;

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95 %, 99 % and 90 % quantiles (t tables, 6 digits).
        for (c, dof, t) in [
            (0.95, 1, 12.706205),
            (0.95, 2, 4.302653),
            (0.95, 3, 3.182446),
            (0.95, 9, 2.262157),
            (0.95, 30, 2.042272),
            (0.99, 5, 4.032143),
            (0.90, 10, 1.812461),
            (0.95, 1000, 1.962339),
        ] {
            let got = t_quantile(c, dof);
            assert!((got - t).abs() < 2e-6 * t, "t({c}, {dof}) = {got}, table {t}");
        }
    }

    #[test]
    fn estimate_discards_and_takes_the_t_interval() {
        let e = Estimate::from(vec![Some(100.0), Some(1.0), Some(2.0), Some(3.0), Some(4.0)], 1, 0.95);
        assert_eq!(e.mean, Some(2.5));
        // s = 1.29099, n = 4, t(0.95, 3) = 3.182446.
        let ci = 3.182446 * (5.0f64 / 3.0).sqrt() / 2.0;
        assert!((e.ci.unwrap() - ci).abs() < 1e-5, "{:?} vs {ci}", e.ci);
        assert_eq!(e.batches.len(), 5);
        let one = Estimate::from(vec![Some(9.0), Some(1.0)], 1, 0.95);
        assert_eq!((one.mean, one.ci), (Some(1.0), None));
        let none = Estimate::from(vec![Some(9.0)], 1, 0.95);
        assert_eq!((none.mean, none.ci), (None, None));
    }

    #[test]
    fn batches_cut_at_every_k_th_packet_of_all_flows() {
        // Two flows of 1000 B packets; k = 4, N = 3, the first discarded.
        let mut bm = BatchMeans::new(4, 3, 1, 0.95, 2, 0);
        let mut bytes = [0u64; 2];
        let mut deliver = |bm: &mut BatchMeans, t: f64, flow: usize| {
            bytes[flow] += 1000;
            let b = bytes;
            bm.on_delivered((t * NS_PER_S as f64) as Time, 1, |i| b[i])
        };
        // Batch 1 (0–2 s): 4 packets of flow 0.
        for t in [0.5, 1.0, 1.5, 2.0] {
            assert!(!deliver(&mut bm, t, 0));
        }
        // Batch 2 (2–4 s): 2 + 2.
        for (t, f) in [(2.5, 0), (3.0, 1), (3.5, 1), (4.0, 0)] {
            assert!(!deliver(&mut bm, t, f));
        }
        // Batch 3 (4–5 s): 1 of flow 0, 3 of flow 1; complete at the 12th.
        for (t, f) in [(4.2, 1), (4.4, 0), (4.6, 1)] {
            assert!(!deliver(&mut bm, t, f));
        }
        assert!(deliver(&mut bm, 5.0, 1));
        let r = bm.report(&[10, 11], 5 * NS_PER_S);
        assert!(r.complete);
        assert_eq!((r.completed, r.batches, r.discarded), (3, 3, 1));
        assert_eq!(r.bounds_s, vec![2.0, 4.0, 5.0]);
        let f0 = &r.flows[0].goodput_bps;
        assert_eq!(f0.batches, vec![Some(16_000.0), Some(8_000.0), Some(8_000.0)]);
        assert_eq!(r.flows[1].goodput_bps.batches, vec![Some(0.0), Some(8_000.0), Some(24_000.0)]);
        assert_eq!(r.flows[1].id, 11);
        assert_eq!(f0.mean, Some(8_000.0));
        assert_eq!(f0.ci, Some(0.0));
        assert_eq!(r.aggregate_goodput_bps.batches, vec![Some(16_000.0), Some(16_000.0), Some(32_000.0)]);
        assert_eq!(r.aggregate_goodput_bps.mean, Some(24_000.0));
        // Jain: batch 1 one flow only (0.5), batch 2 equal (1), batch 3 8k vs 24k.
        let j3 = 32_000.0f64.powi(2) / (2.0 * (8_000.0f64.powi(2) + 24_000.0f64.powi(2)));
        assert_eq!(r.fairness_jain.batches, vec![Some(0.5), Some(1.0), Some(j3)]);
        // Nothing counts past N batches.
        assert!(deliver(&mut bm, 6.0, 0));
        assert_eq!(bm.report(&[10, 11], 6 * NS_PER_S).completed, 3);
    }
}
