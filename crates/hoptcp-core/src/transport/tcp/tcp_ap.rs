//! TCP-AP: adaptive pacing of a TCP sender (ElRakabawy, Klemm, Lindemann,
//! MobiHoc 2005; TCP-GAP, Computer Networks 2008, §4.1–4.2).
//!
//! Within the congestion window, packets leave at most at the rate
//!
//! ```text
//! R = 1 / (FHD^ · (1 + 2·cov_RTT))        FHD^ ← α·FHD^ + (1 − α)·FHD
//! t_q = ½·(RTT/h − (s_data + s_ACK)/b)    FHD = k·(t_q + s_data/b)
//! ```
//!
//! with RTT the round trip of the wireless part (the full RTT minus the
//! RTT_wired a TCP-GAP gateway writes into ACKs), h the hops, b the link
//! rate and k = 4 (four-hop delay; the paper's §5.2.1 uses the h-hop delay
//! when h < 4). cov_RTT is the coefficient of variation of the last N RTT
//! samples.
//!
//! The authors' public ns-2 code (`Agent/TCP/Newreno/AP`, tcp-ap.cc) differs
//! in details; each is a switch of [`TcpApConfig`] and [`TcpApConfig::ns2`]
//! sets them all: the mean absolute deviation of the last 50 FHD samples
//! instead of cov_RTT, the one-hop delay when h < 4, 112 B of headers per
//! frame, FHD samples ≥ 0.5 s ignored, a 50 ms interval before the first
//! sample, a free-running pace timer, no RTO backoff, and a fast
//! retransmission that discards the packets waiting to be paced.
//!
//! Two parts: [`RateEstimator`] turns RTT samples into the pacing interval
//! (shared with the TCP-GAP gateway), and [`TcpAp`] holds the packets the
//! window allows until the pacer releases them (the sender's transmit path
//! calls its hooks).

use crate::engine::Time;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How path contention is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Variation {
    /// Paper, Eq. (5): sample standard deviation (N − 1) over mean of the
    /// last N RTT samples.
    Cov,
    /// ns-2 code: mean absolute deviation over mean (population) of the last
    /// N FHD samples.
    Mad,
}

/// The delay used when the path has fewer than `hop_factor` hops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ShortPath {
    /// Paper §5.2.1: the h-hop delay (k = min(h, hop_factor)).
    HHop,
    /// ns-2 code: the one-hop delay (k = 1 when h < hop_factor).
    OneHop,
}

/// How released packets are spaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum PaceTimer {
    /// A packet leaves one interval after the previous one, or at once if
    /// that time has passed.
    OnDemand,
    /// ns-2 code: the pace timer keeps ticking every interval even with
    /// nothing to send; a packet waits for the next tick.
    FreeRunning,
}

/// TCP-AP's parameters. Sizes in bytes, times in ns, rates in bit/s.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TcpApConfig {
    pub variation: Variation,
    /// Smoothing of FHD^ (paper and code: 0.7).
    pub alpha: f64,
    /// Hops of the spatial-reuse constraint (4 for 250 m range, 550 m
    /// interference range).
    pub hop_factor: u32,
    pub short_path: ShortPath,
    /// Samples kept for the variation (N).
    pub history: u32,
    /// s_data = payload + overhead, s_ACK = overhead: 40 (TCP/IP headers:
    /// the IP packet sizes) for the paper, 112 in the ns-2 code.
    pub overhead_bytes: u32,
    /// ns-2 code: FHD samples at or above this are ignored and a queueing
    /// delay above it is replaced by its running average (0.5 s).
    pub delay_bound: Option<Time>,
    /// Interval before the first sample (ns-2 code: 50 ms); None = unpaced.
    pub initial_interval: Option<Time>,
    pub timer: PaceTimer,
    /// Exponential RTO backoff after a timeout (off in the ns-2 code).
    pub timeout_backoff: bool,
    /// ns-2 code: a fast retransmission empties the pacing queue (those
    /// packets are left to loss recovery) and, if it was already empty,
    /// stops the pace timer until the next retransmission timeout.
    pub dupack_flush: bool,
    /// Link rate b of the wireless interface.
    pub link_rate_bps: f64,
}

impl TcpApConfig {
    /// The paper's formula (Eqs. 1–5) with α = 0.7, k = 4 (h-hop delay below
    /// 4 hops), N = 50 (the code's history; the paper gives none).
    pub fn paper(link_rate_bps: f64) -> Self {
        TcpApConfig {
            variation: Variation::Cov,
            alpha: 0.7,
            hop_factor: 4,
            short_path: ShortPath::HHop,
            history: 50,
            overhead_bytes: 40,
            delay_bound: None,
            initial_interval: None,
            timer: PaceTimer::OnDemand,
            timeout_backoff: true,
            dupack_flush: false,
            link_rate_bps,
        }
    }

    /// The authors' ns-2 code (tcp-ap.cc).
    pub fn ns2(link_rate_bps: f64) -> Self {
        TcpApConfig {
            variation: Variation::Mad,
            short_path: ShortPath::OneHop,
            overhead_bytes: 112,
            delay_bound: Some(500_000_000),
            initial_interval: Some(50_000_000),
            timer: PaceTimer::FreeRunning,
            timeout_backoff: false,
            dupack_flush: true,
            ..TcpApConfig::paper(link_rate_bps)
        }
    }
}

/// Smoothing of the queueing-delay fallback in the ns-2 code (`gamma_`).
const QDELAY_GAMMA: f64 = 0.5;

/// From RTT samples to the pacing interval FHD^·(1 + 2·variation).
#[derive(Clone, Debug)]
pub struct RateEstimator {
    variation_kind: Variation,
    alpha: f64,
    hop_factor: u32,
    short_path: ShortPath,
    history: usize,
    /// s_data/b and s_ACK/b, seconds.
    data_tx_s: f64,
    ack_tx_s: f64,
    delay_bound_s: Option<f64>,
    /// FHD^ (s); 0 = no sample yet.
    fhd_hat: f64,
    /// Running average of t_q (ns-2 fallback).
    avg_qdelay: f64,
    /// The last `history` RTT (cov) or FHD (mad) samples.
    samples: VecDeque<f64>,
    variation: f64,
    accepted: u64,
    /// The last RTT sample offered (s), for the time series.
    last_rtt_s: f64,
}

impl RateEstimator {
    /// An estimator for data segments of `payload_bytes`.
    pub fn new(cfg: &TcpApConfig, payload_bytes: u32) -> Self {
        let b = cfg.link_rate_bps / 8.0;
        let history = cfg.history.max(2) as usize;
        RateEstimator {
            variation_kind: cfg.variation,
            alpha: cfg.alpha,
            hop_factor: cfg.hop_factor.max(1),
            short_path: cfg.short_path,
            history,
            data_tx_s: (payload_bytes + cfg.overhead_bytes) as f64 / b,
            ack_tx_s: cfg.overhead_bytes as f64 / b,
            delay_bound_s: cfg.delay_bound.map(|t| t as f64 * 1e-9),
            fhd_hat: 0.0,
            avg_qdelay: 0.0,
            samples: VecDeque::with_capacity(history),
            variation: 0.0,
            accepted: 0,
            last_rtt_s: 0.0,
        }
    }

    /// Data segments of `payload_bytes` from now on (s_data of the paper's Table 1), the samples
    /// kept: a flow's first segment may be its 40-byte setup segment.
    pub fn set_payload(&mut self, cfg: &TcpApConfig, payload_bytes: u32) {
        self.data_tx_s = (payload_bytes + cfg.overhead_bytes) as f64 / (cfg.link_rate_bps / 8.0);
    }

    /// The delay factor k for an `hops`-hop path.
    fn factor(&self, hops: u32) -> f64 {
        let h = hops.max(1);
        match self.short_path {
            ShortPath::HHop => h.min(self.hop_factor) as f64,
            ShortPath::OneHop if h >= self.hop_factor => self.hop_factor as f64,
            ShortPath::OneHop => 1.0,
        }
    }

    /// One RTT sample (seconds) of the wireless part of an `hops`-hop path.
    pub fn on_rtt(&mut self, rtt_s: f64, hops: u32) {
        self.last_rtt_s = rtt_s;
        let h = hops.max(1) as f64;
        let mut qdelay = 0.5 * (rtt_s / h - (self.data_tx_s + self.ack_tx_s));
        if let Some(bound) = self.delay_bound_s {
            if qdelay > bound {
                qdelay = self.avg_qdelay;
            }
            self.avg_qdelay = QDELAY_GAMMA * self.avg_qdelay + (1.0 - QDELAY_GAMMA) * qdelay;
        }
        let fhd = self.factor(hops) * (qdelay + self.data_tx_s);
        if !(fhd > 0.0 && self.delay_bound_s.is_none_or(|b| fhd < b)) {
            return;
        }
        self.accepted += 1;
        self.fhd_hat = if self.fhd_hat == 0.0 { fhd } else { self.alpha * self.fhd_hat + (1.0 - self.alpha) * fhd };
        if self.samples.len() == self.history {
            self.samples.pop_front();
        }
        self.samples.push_back(match self.variation_kind {
            Variation::Cov => rtt_s,
            Variation::Mad => fhd,
        });
        let n = self.samples.len() as f64;
        let mean = self.samples.iter().sum::<f64>() / n;
        match self.variation_kind {
            Variation::Cov => {
                if self.samples.len() >= 2 && mean > 0.0 {
                    let ss: f64 = self.samples.iter().map(|x| (x - mean) * (x - mean)).sum();
                    self.variation = (ss / (n - 1.0)).sqrt() / mean;
                }
            }
            Variation::Mad => {
                // The code keeps the previous value while all samples are equal.
                let dev: f64 = self.samples.iter().map(|x| (x - mean).abs()).sum();
                if dev > 0.0 {
                    self.variation = dev / n / mean;
                }
            }
        }
    }

    /// FHD^ in seconds, once a sample was accepted.
    pub fn fhd_s(&self) -> Option<f64> {
        (self.fhd_hat > 0.0).then_some(self.fhd_hat)
    }

    /// cov_RTT (or the mean absolute deviation ratio).
    pub fn variation(&self) -> f64 {
        self.variation
    }

    /// The last RTT sample offered (s; 0 before any).
    pub fn last_rtt_s(&self) -> f64 {
        self.last_rtt_s
    }

    /// Samples that changed the estimate.
    pub fn samples(&self) -> u64 {
        self.accepted
    }

    /// Time between packets, FHD^·(1 + 2·variation), once known.
    pub fn interval(&self) -> Option<Time> {
        self.fhd_s().map(|f| (f * (1.0 + 2.0 * self.variation) * 1e9).round().max(1.0) as Time)
    }

    /// R in packets per second, once known.
    pub fn rate_pps(&self) -> Option<f64> {
        self.interval().map(|i| 1e9 / i as f64)
    }
}

/// What TCP-AP reports at the end of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TcpApStats {
    /// Current pacing rate R (packets/s) and interval 1/R (s); null before
    /// the first sample.
    pub rate_pps: Option<f64>,
    pub interval_s: Option<f64>,
    /// FHD^ (s) and the variation term.
    pub fhd_s: Option<f64>,
    pub variation: f64,
    /// RTT samples that updated the rate.
    pub rate_samples: u64,
    /// Packets that went through the pacing queue, and their mean and
    /// maximum wait there (s).
    pub paced_packets: u64,
    pub mean_pacing_delay_s: f64,
    pub max_pacing_delay_s: f64,
    /// Most packets waiting at once.
    pub max_queue: u32,
    /// Packets sent past the pacer: fast retransmissions and sends while
    /// pacing was suspended after a timeout.
    pub bypassed_packets: u64,
    /// ns-2 code only: packets discarded from the pacing queue by a fast
    /// retransmission, and pace-timer stalls.
    pub discarded_packets: u64,
    pub stalls: u64,
}

/// A pacing queue: items wait in FIFO order and leave one per interval.
/// The owner computes the interval (TCP-AP's estimate, or a gateway's
/// throttled one) and passes it in; `T` is what waits (packet numbers at a
/// TCP sender, packet handles at a gateway).
#[derive(Clone, Debug)]
pub struct Pacer<T> {
    timer: PaceTimer,
    /// Waiting items and when each entered.
    fifo: VecDeque<(T, Time)>,
    /// On demand: the earliest next release; free running: the next tick.
    /// None: the next item leaves at once (and starts the ticks).
    next: Option<Time>,
    released: u64,
    delay_sum: Time,
    max_delay: Time,
    max_queue: u32,
}

impl<T: Copy> Pacer<T> {
    pub fn new(timer: PaceTimer) -> Self {
        Pacer {
            timer,
            fifo: VecDeque::with_capacity(64),
            next: None,
            released: 0,
            delay_sum: 0,
            max_delay: 0,
            max_queue: 0,
        }
    }

    /// Free running: the ticks before `now` (spaced `interval`) found the
    /// queue empty. Call before the interval changes.
    pub fn advance(&mut self, now: Time, interval: Time) {
        if self.timer == PaceTimer::FreeRunning {
            if let Some(t) = self.next {
                if interval == 0 {
                    self.next = None;
                } else if t < now {
                    self.next = Some(t + (now - t).div_ceil(interval) * interval);
                }
            }
        }
    }

    /// Queue `item` at `now`.
    pub fn hold(&mut self, item: T, now: Time, interval: Time) {
        self.advance(now, interval);
        self.fifo.push_back((item, now));
        self.max_queue = self.max_queue.max(self.fifo.len() as u32);
    }

    /// The item that may leave now, if any; the next one may leave
    /// `interval` later (0: at once).
    pub fn release(&mut self, now: Time, interval: Time) -> Option<T> {
        if self.fifo.is_empty() {
            return None;
        }
        self.advance(now, interval);
        if self.next.is_some_and(|t| t > now) {
            return None;
        }
        let (item, since) = self.fifo.pop_front().unwrap();
        self.next = match (self.timer, interval) {
            (_, 0) => None,
            (PaceTimer::OnDemand, _) => Some(now + interval),
            (PaceTimer::FreeRunning, _) => Some(self.next.unwrap_or(now) + interval),
        };
        let wait = now - since;
        self.released += 1;
        self.delay_sum += wait;
        self.max_delay = self.max_delay.max(wait);
        Some(item)
    }

    /// When the first waiting item may leave (0: now).
    pub fn next_release(&self) -> Option<Time> {
        (!self.fifo.is_empty()).then(|| self.next.unwrap_or(0))
    }

    /// Forget the waiting items and the release schedule; returns how many
    /// were waiting.
    pub fn reset(&mut self) -> usize {
        let n = self.fifo.len();
        self.fifo.clear();
        self.next = None;
        n
    }

    pub fn queued(&self) -> usize {
        self.fifo.len()
    }

    /// Items released, their mean and maximum wait (s), the longest queue.
    pub fn delays(&self) -> (u64, f64, f64, u32) {
        let mean = if self.released > 0 { self.delay_sum as f64 * 1e-9 / self.released as f64 } else { 0.0 };
        (self.released, mean, self.max_delay as f64 * 1e-9, self.max_queue)
    }
}

/// The pacing stage of a TCP sender: the packet numbers the window
/// released wait in a [`Pacer`] and leave one per interval.
#[derive(Clone, Debug)]
pub struct TcpAp {
    est: RateEstimator,
    pacer: Pacer<i64>,
    initial_interval: Option<Time>,
    dupack_flush: bool,
    /// After a timeout (or a flush) everything bypasses the pacer until the
    /// next ACK (ns-2 `ispaced_ = 0`).
    suspended: bool,
    /// ns-2 code: the pace timer was cancelled with nothing waiting.
    stalled: bool,
    stats: TcpApStats,
}

impl TcpAp {
    pub fn new(cfg: &TcpApConfig, payload_bytes: u32) -> Self {
        TcpAp {
            est: RateEstimator::new(cfg, payload_bytes),
            pacer: Pacer::new(cfg.timer),
            initial_interval: cfg.initial_interval,
            dupack_flush: cfg.dupack_flush,
            suspended: false,
            stalled: false,
            stats: TcpApStats::default(),
        }
    }

    /// The interval now: the estimate, else the initial one (0 = unpaced).
    fn interval(&self) -> Time {
        self.est.interval().or(self.initial_interval).unwrap_or(0)
    }

    /// An ACK arrived: `rtt_s` is its RTT sample of the wireless part over
    /// `hops` hops (None when the ACK carries no usable timestamp).
    pub fn on_ack(&mut self, now: Time, rtt_s: Option<f64>, hops: u32) {
        // Ticks before now were scheduled with the old interval.
        self.pacer.advance(now, self.interval());
        if self.suspended {
            self.suspended = false;
            self.stalled = false;
            self.pacer.reset();
        }
        if let Some(r) = rtt_s {
            self.est.on_rtt(r, hops);
        }
    }

    /// Whether packets currently bypass the pacer.
    pub fn suspended(&self) -> bool {
        self.suspended
    }

    /// The window allows packet `seq`: queue it for pacing.
    pub fn hold(&mut self, seq: i64, now: Time) {
        self.pacer.hold(seq, now, self.interval());
    }

    /// A packet sent past the pacer (fast retransmission, or suspended).
    pub fn bypass(&mut self) {
        self.stats.bypassed_packets += 1;
    }

    /// The next packet the pacer lets out now, if any.
    pub fn release(&mut self, now: Time) -> Option<i64> {
        if self.stalled {
            return None;
        }
        self.pacer.release(now, self.interval())
    }

    /// When a waiting packet will be let out.
    pub fn next_release(&self) -> Option<Time> {
        if self.stalled || self.suspended {
            return None;
        }
        self.pacer.next_release()
    }

    /// A fast retransmission leaves now, past the pacer. The ns-2 code then
    /// discards the waiting packets (the window counts them as sent: loss
    /// recovery resends them) and returns how many; otherwise 0.
    pub fn on_fast_retransmit(&mut self) -> usize {
        self.bypass();
        if !self.dupack_flush {
            return 0;
        }
        if self.pacer.queued() == 0 {
            self.stalled = true;
            self.stats.stalls += 1;
            return 0;
        }
        let n = self.pacer.reset();
        self.suspended = true;
        self.stats.discarded_packets += n as u64;
        n
    }

    /// A retransmission timeout: the queue is forgotten (go-back-N resends
    /// it) and pacing pauses until the next ACK.
    pub fn on_timeout(&mut self) {
        self.pacer.reset();
        self.suspended = true;
        self.stalled = false;
    }

    /// Packets waiting to be paced.
    pub fn queued(&self) -> usize {
        self.pacer.queued()
    }

    pub fn estimator(&self) -> &RateEstimator {
        &self.est
    }

    pub fn stats(&self) -> TcpApStats {
        let mut s = self.stats.clone();
        s.rate_pps = self.est.rate_pps();
        s.interval_s = self.est.interval().map(|i| i as f64 * 1e-9);
        s.fhd_s = self.est.fhd_s();
        s.variation = self.est.variation();
        s.rate_samples = self.est.samples();
        (s.paced_packets, s.mean_pacing_delay_s, s.max_pacing_delay_s, s.max_queue) = self.pacer.delays();
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;

    const MS: Time = NS_PER_MS;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-9)
    }

    /// 11 Mb/s, 1460 B payloads: s_data/b = 1500·8/11e6, s_ACK/b = 40·8/11e6.
    fn paper() -> TcpApConfig {
        TcpApConfig::paper(11e6)
    }

    #[test]
    fn paper_rate_from_hand_fed_samples() {
        let mut e = RateEstimator::new(&paper(), 1460);
        let (sd, sa) = (1500.0 * 8.0 / 11e6, 40.0 * 8.0 / 11e6);
        // 7 hops, RTT 70 ms: t_q = ½(10 ms − (sd + sa)), FHD = 4(t_q + sd)
        // = 2(RTT/h + sd − sa) (Eq. 4).
        e.on_rtt(0.070, 7);
        let fhd1 = 2.0 * (0.010 + sd - sa);
        assert!(close(e.fhd_s().unwrap(), fhd1));
        assert_eq!(e.variation(), 0.0, "one sample: no variation yet");
        assert_eq!(e.interval(), Some((fhd1 * 1e9).round() as Time));
        // Second sample, 90 ms: FHD^ = 0.7 FHD^ + 0.3 FHD; cov of {70, 90} ms
        // with N − 1: std = 14.142 ms, mean 80 ms.
        e.on_rtt(0.090, 7);
        let fhd2 = 2.0 * (0.090 / 7.0 + sd - sa);
        let fhd_hat = 0.7 * fhd1 + 0.3 * fhd2;
        assert!(close(e.fhd_s().unwrap(), fhd_hat));
        let cov = (200.0f64).sqrt() * 1e-3 / 0.080;
        assert!(close(e.variation(), cov), "{} vs {cov}", e.variation());
        let r = 1.0 / (fhd_hat * (1.0 + 2.0 * cov));
        assert!((e.rate_pps().unwrap() - r).abs() < 1e-6 * r, "{:?} vs {r}", e.rate_pps());
        // Third sample: cov over all three.
        e.on_rtt(0.050, 7);
        let xs = [0.070, 0.090, 0.050];
        let m = xs.iter().sum::<f64>() / 3.0;
        let sd3 = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / 2.0).sqrt();
        assert!(close(e.variation(), sd3 / m));
        assert_eq!(e.samples(), 3);
    }

    #[test]
    fn short_paths_use_the_h_hop_or_the_one_hop_delay() {
        let sd = 1500.0 * 8.0 / 11e6;
        let sa = 40.0 * 8.0 / 11e6;
        let one_hop = |rtt: f64, h: f64| 0.5 * (rtt / h - sd - sa) + sd;
        // Paper: k = min(h, 4).
        for (h, k) in [(1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0), (9, 4.0)] {
            let mut e = RateEstimator::new(&paper(), 1460);
            e.on_rtt(0.030, h);
            assert!(close(e.fhd_s().unwrap(), k * one_hop(0.030, h as f64)), "h = {h}");
        }
        // Code: one hop below 4 hops, then 4.
        let code = TcpApConfig { short_path: ShortPath::OneHop, ..paper() };
        for (h, k) in [(1, 1.0), (3, 1.0), (4, 4.0), (9, 4.0)] {
            let mut e = RateEstimator::new(&code, 1460);
            e.on_rtt(0.030, h);
            assert!(close(e.fhd_s().unwrap(), k * one_hop(0.030, h as f64)), "h = {h}");
        }
    }

    #[test]
    fn ns2_code_variant_from_hand_fed_samples() {
        let cfg = TcpApConfig::ns2(11e6);
        let mut e = RateEstimator::new(&cfg, 1460);
        // 112 B of headers per frame: s_data = 1572 B, s_ACK = 112 B.
        let (sd, sa) = (1572.0 * 8.0 / 11e6, 112.0 * 8.0 / 11e6);
        let fhd = |rtt: f64| 4.0 * (0.5 * (rtt / 5.0 - sd - sa) + sd);
        let rtts = [0.040, 0.060, 0.045, 0.055];
        let mut hat = 0.0;
        for (i, &r) in rtts.iter().enumerate() {
            e.on_rtt(r, 5);
            hat = if i == 0 { fhd(r) } else { 0.7 * hat + 0.3 * fhd(r) };
            assert!(close(e.fhd_s().unwrap(), hat));
        }
        // Mean absolute deviation / mean over the FHD samples (population).
        let f: Vec<f64> = rtts.iter().map(|&r| fhd(r)).collect();
        let m = f.iter().sum::<f64>() / 4.0;
        let mad = f.iter().map(|x| (x - m).abs()).sum::<f64>() / 4.0 / m;
        assert!(close(e.variation(), mad), "{} vs {mad}", e.variation());
        assert!((e.interval().unwrap() as f64 - hat * (1.0 + 2.0 * mad) * 1e9).abs() <= 0.5);
        // An FHD sample of 0.5 s or more is ignored; a huge RTT's queueing
        // delay is replaced by the running average, so the sample stays.
        let before = (e.fhd_s(), e.samples());
        e.on_rtt(10.0, 5);
        assert_eq!(e.samples(), before.1 + 1, "replaced queueing delay gives a normal sample");
        let mut e2 = RateEstimator::new(&TcpApConfig { delay_bound: Some(20 * MS), ..cfg.clone() }, 1460);
        e2.on_rtt(0.040, 5); // FHD ≈ 18.5 ms < 20 ms: accepted
        e2.on_rtt(0.045, 5); // FHD ≈ 20.5 ms ≥ 20 ms: ignored
        assert_eq!(e2.samples(), 1);
    }

    #[test]
    fn history_keeps_the_last_n_samples() {
        let cfg = TcpApConfig { history: 3, ..paper() };
        let mut e = RateEstimator::new(&cfg, 1460);
        for r in [0.5, 0.010, 0.020, 0.030] {
            e.on_rtt(r, 4);
        }
        // The 0.5 s outlier has left the window: cov of {10, 20, 30} ms.
        assert!(close(e.variation(), 0.010 / 0.020));
    }

    fn pacer(cfg: &TcpApConfig) -> TcpAp {
        TcpAp::new(cfg, 1460)
    }

    #[test]
    fn on_demand_release_times_with_a_fake_clock() {
        let mut p = pacer(&paper());
        // Before any sample the paper profile does not pace.
        p.hold(1, 0);
        p.hold(2, 0);
        assert_eq!(p.release(0), Some(1));
        assert_eq!(p.release(0), Some(2));
        assert_eq!(p.release(0), None);
        // A sample sets the interval: FHD^ for RTT 40 ms over 4 hops.
        p.on_ack(10 * MS, Some(0.040), 4);
        let iv = p.estimator().interval().unwrap();
        for s in 3..=6 {
            p.hold(s, 10 * MS);
        }
        let mut times = vec![];
        while let Some(t) = p.next_release() {
            if t > 10 * MS {
                assert_eq!(p.release(t - 1), None, "nothing before the release time");
            }
            let now = t.max(10 * MS);
            times.push((p.release(now).unwrap(), now));
        }
        let now = times.last().unwrap().1;
        assert_eq!(times.iter().map(|x| x.0).collect::<Vec<_>>(), vec![3, 4, 5, 6]);
        assert_eq!(times[0].1, 10 * MS, "the first one leaves at once");
        for w in times.windows(2) {
            assert_eq!(w[1].1 - w[0].1, iv);
        }
        // After a pause longer than the interval, the next leaves at once.
        let later = now + 10 * iv;
        p.hold(7, later);
        assert_eq!(p.next_release(), Some(now + iv));
        assert_eq!(p.release(later), Some(7));
        let st = p.stats();
        assert_eq!(st.paced_packets, 7);
        assert!((st.max_pacing_delay_s - 3.0 * iv as f64 * 1e-9).abs() < 1e-12);
        assert!(st.rate_pps.unwrap() > 0.0);
    }

    #[test]
    fn free_running_timer_waits_for_the_next_tick() {
        let cfg = TcpApConfig { timer: PaceTimer::FreeRunning, initial_interval: Some(50 * MS), ..paper() };
        let mut p = pacer(&cfg);
        // The first packet leaves at once and starts the ticks (50 ms).
        p.hold(1, 0);
        assert_eq!(p.release(0), Some(1));
        // One queued at 120 ms waits for the tick at 150 ms (ticks at 50,
        // 100 went by with nothing to send).
        p.hold(2, 120 * MS);
        assert_eq!(p.next_release(), Some(150 * MS));
        assert_eq!(p.release(149 * MS), None);
        assert_eq!(p.release(150 * MS), Some(2));
        assert_eq!(p.next_release(), None);
        // An ACK at 160 ms changes the interval; the tick at 200 ms stays,
        // the following ones use the new interval.
        p.on_ack(160 * MS, Some(0.040), 4);
        let iv = p.estimator().interval().unwrap();
        p.hold(3, 170 * MS);
        p.hold(4, 170 * MS);
        assert_eq!(p.next_release(), Some(200 * MS));
        assert_eq!(p.release(200 * MS), Some(3));
        assert_eq!(p.next_release(), Some(200 * MS + iv));
        // On demand, the same packet would have left at 170 ms.
        let mut od = pacer(&TcpApConfig { initial_interval: Some(50 * MS), ..paper() });
        od.hold(1, 0);
        od.release(0);
        od.hold(2, 120 * MS);
        assert_eq!(od.release(120 * MS), Some(2));
    }

    #[test]
    fn timeout_suspends_pacing_until_the_next_ack() {
        let mut p = pacer(&paper());
        p.on_ack(0, Some(0.040), 4);
        p.hold(1, 0);
        p.hold(2, 0);
        assert_eq!(p.release(0), Some(1));
        p.on_timeout();
        assert_eq!(p.queued(), 0, "go-back-N resends the queue");
        assert!(p.suspended());
        assert_eq!(p.next_release(), None);
        p.on_ack(MS, Some(0.040), 4);
        assert!(!p.suspended());
        p.hold(3, MS);
        assert_eq!(p.release(MS), Some(3), "after the ACK the first packet leaves at once");
    }

    #[test]
    fn fast_retransmit_flush_only_in_the_ns2_code() {
        let mut p = pacer(&paper());
        p.on_ack(0, Some(0.040), 4);
        p.hold(5, 0);
        p.hold(6, 0);
        assert_eq!(p.release(0), Some(5));
        assert_eq!(p.on_fast_retransmit(), 0, "the paper profile keeps the queue");
        assert_eq!(p.queued(), 1);
        assert!(!p.suspended());
        assert_eq!(p.stats().bypassed_packets, 1);
        let mut c = pacer(&TcpApConfig::ns2(11e6));
        c.on_ack(0, Some(0.040), 4);
        c.hold(5, 0);
        c.hold(6, 0);
        c.hold(7, 0);
        assert_eq!(c.release(0), Some(5));
        assert_eq!(c.on_fast_retransmit(), 2, "6 and 7 are discarded");
        assert_eq!(c.queued(), 0);
        assert!(c.suspended());
        c.on_ack(MS, Some(0.040), 4);
        c.hold(8, MS);
        assert_eq!(c.release(MS), Some(8));
        // With nothing queued the pace timer stops until the next timeout.
        assert_eq!(c.release(MS), None);
        assert_eq!(c.on_fast_retransmit(), 0);
        c.on_ack(2 * MS, Some(0.040), 4);
        c.hold(9, 2 * MS);
        assert_eq!(c.next_release(), None);
        assert_eq!(c.release(10 * MS), None);
        c.on_timeout();
        c.on_ack(3 * MS, Some(0.040), 4);
        c.hold(10, 3 * MS);
        assert_eq!(c.release(3 * MS), Some(10));
        let st = c.stats();
        assert_eq!((st.discarded_packets, st.stalls), (2, 1));
    }
}
