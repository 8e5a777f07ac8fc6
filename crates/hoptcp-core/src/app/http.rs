//! HTTP-like traffic (TCP-GAP §5.3, after TCP-AP): one persistent TCP
//! connection carries files ("pages") one after another. Page sizes are
//! Pareto with shape β = 1.5 and mean 30 kB (`gsl_ran_pareto(a = 1.5,
//! b = 10 000 B)`); between a page's last acknowledgement and the next
//! page the source pauses for an exponentially distributed think time
//! (`gsl_ran_exponential`, mean varied by the paper: 1 s in §5.3.2).
//!
//! TCP here counts whole packets (as ns-2's `$ftp send bytes`): a page of
//! x bytes is ceil(x / payload) packets. A page is complete when the
//! sender has all of it acknowledged; its transfer time runs from handing
//! it to TCP to that ACK, and its goodput is its payload over that time
//! (the paper's per-file goodput, think times excluded).

use crate::engine::{RngStream, Time};

/// The paper's mean page size (bytes) and Pareto shape; the scenario's
/// declarations of `flows[].mean_page_bytes` and `page_shape` read these.
pub const PAPER_MEAN_PAGE_BYTES: f64 = 30_000.0;
pub const PAPER_PAGE_SHAPE: f64 = 1.5;

/// The traffic model's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HttpParams {
    /// Mean page size (bytes).
    pub mean_page_bytes: f64,
    /// Pareto shape β (> 1 for a finite mean).
    pub page_shape: f64,
    /// Mean think time (s); 0 = pages back to back.
    pub mean_think_s: f64,
    /// TCP payload per packet (bytes).
    pub payload_bytes: u32,
}

impl HttpParams {
    /// The paper's page sizes (Pareto, β = 1.5, mean 30 000 B): the scenario's defaults.
    #[cfg(test)]
    fn paper(mean_think_s: f64, payload_bytes: u32) -> Self {
        HttpParams { mean_page_bytes: PAPER_MEAN_PAGE_BYTES, page_shape: PAPER_PAGE_SHAPE, mean_think_s, payload_bytes }
    }

    /// Pareto scale (minimum page size): mean·(β − 1)/β.
    pub fn page_scale_bytes(&self) -> f64 {
        self.mean_page_bytes * (self.page_shape - 1.0) / self.page_shape
    }
}

/// Per-flow page statistics.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct HttpStats {
    pub pages_started: u64,
    pub pages_completed: u64,
    /// Mean transfer time and mean per-page goodput (bit/s) of the
    /// completed pages; 0 when none completed.
    pub mean_page_time_s: f64,
    pub mean_page_goodput_bps: f64,
    /// Each completed page: payload bytes and transfer time (s).
    pub page_bytes: Vec<u64>,
    pub page_time_s: Vec<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// Not started, or thinking until the next page.
    Idle,
    /// A page of `bytes` handed to TCP at `since`.
    Transfer { since: Time, bytes: u64 },
}

/// The page/think cycle of one flow, as a sans-IO state machine: the
/// simulator asks for a page, reports when TCP has it all acknowledged,
/// and schedules the next page at the time returned.
#[derive(Clone, Debug)]
pub struct Http {
    p: HttpParams,
    rng: RngStream,
    state: State,
    stats: HttpStats,
}

impl Http {
    pub fn new(p: HttpParams, rng: RngStream) -> Self {
        Http { p, rng, state: State::Idle, stats: HttpStats::default() }
    }

    /// One Pareto page size (bytes): scale·U^(−1/β), U uniform in (0, 1].
    pub fn draw_page_bytes(&mut self) -> f64 {
        let u = 1.0 - self.rng.uniform();
        self.p.page_scale_bytes() * u.powf(-1.0 / self.p.page_shape)
    }

    /// One exponential think time (s): −mean·ln U, U uniform in (0, 1].
    pub fn draw_think_s(&mut self) -> f64 {
        let u = 1.0 - self.rng.uniform();
        -self.p.mean_think_s * u.ln()
    }

    /// A new page starts now: the packets to hand to TCP.
    pub fn start_page(&mut self, now: Time) -> u64 {
        let packets = (self.draw_page_bytes() / self.p.payload_bytes as f64).ceil().max(1.0) as u64;
        self.state = State::Transfer { since: now, bytes: packets * self.p.payload_bytes as u64 };
        self.stats.pages_started += 1;
        packets
    }

    #[cfg(test)] // only the unit tests read it
    /// Whether a page is being transferred.
    pub fn transferring(&self) -> bool {
        matches!(self.state, State::Transfer { .. })
    }

    /// TCP has the whole page acknowledged at `now`: record it and return
    /// when the next page starts. None if no page was in transfer.
    pub fn page_done(&mut self, now: Time) -> Option<Time> {
        let State::Transfer { since, bytes } = self.state else { return None };
        self.state = State::Idle;
        let secs = (now - since) as f64 * 1e-9;
        self.stats.pages_completed += 1;
        self.stats.page_bytes.push(bytes);
        self.stats.page_time_s.push(secs);
        let think = self.draw_think_s();
        Some(now + (think * 1e9).round() as Time)
    }

    pub fn stats(&self) -> HttpStats {
        let mut s = self.stats.clone();
        let n = s.page_time_s.len();
        if n > 0 {
            s.mean_page_time_s = s.page_time_s.iter().sum::<f64>() / n as f64;
            s.mean_page_goodput_bps = s
                .page_bytes
                .iter()
                .zip(&s.page_time_s)
                .map(|(&b, &t)| if t > 0.0 { b as f64 * 8.0 / t } else { 0.0 })
                .sum::<f64>()
                / n as f64;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{StreamPurpose, NS_PER_S};

    fn http(think: f64) -> Http {
        Http::new(HttpParams::paper(think, 1460), RngStream::new(7, 0, StreamPurpose::Http))
    }

    #[test]
    fn pareto_page_sizes_follow_the_distribution() {
        let mut h = http(1.0);
        assert_eq!(h.p.page_scale_bytes(), 10_000.0);
        let n = 200_000;
        let mut xs: Vec<f64> = (0..n).map(|_| h.draw_page_bytes()).collect();
        assert!(xs.iter().all(|&x| x >= 10_000.0));
        // The CDF 1 − (b/x)^β within the Dvoretzky–Kiefer–Wolfowitz bound:
        // P(sup |F_n − F| > ε) ≤ 2 exp(−2nε²) = 1e-6 for ε = 0.0060.
        xs.sort_by(f64::total_cmp);
        let eps = ((2.0f64 / 1e-6).ln() / (2.0 * n as f64)).sqrt();
        for (i, &x) in xs.iter().enumerate().step_by(97) {
            let f = 1.0 - (10_000.0 / x).powf(1.5);
            let lo = i as f64 / n as f64;
            let hi = (i + 1) as f64 / n as f64;
            assert!(f > lo - eps && f < hi + eps, "F({x}) = {f}, empirical {lo}..{hi}");
        }
        // β = 1.5 has no finite variance, so test the mean of min(X, c),
        // which has one: E = b + b/(β−1)·(1 − (b/c)^(β−1)) = 28 000 B for
        // c = 1 MB; σ = 54 000 B, so 5σ/√n = 604 B.
        let c = 1e6;
        let m = xs.iter().map(|&x| x.min(c)).sum::<f64>() / n as f64;
        assert!((m - 28_000.0).abs() < 604.0, "truncated mean {m}");
        // The plain mean converges too (the fluctuation of a β = 1.5 sum is
        // of order b·n^(2/3), 0.6 % of n·30 kB here): within 5 %.
        let mean = xs.iter().sum::<f64>() / n as f64;
        assert!((mean / 30_000.0 - 1.0).abs() < 0.05, "mean {mean}");
    }

    #[test]
    fn exponential_think_times_have_the_mean() {
        let mut h = http(0.5);
        let n = 100_000;
        let xs: Vec<f64> = (0..n).map(|_| h.draw_think_s()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        // σ = mean: 5σ/√n = 0.79 % of the mean.
        assert!((mean - 0.5).abs() < 5.0 * 0.5 / (n as f64).sqrt(), "mean {mean}");
        // P(X > mean) = e^-1.
        let above = xs.iter().filter(|&&x| x > 0.5).count() as f64 / n as f64;
        assert!((above - (-1.0f64).exp()).abs() < 0.01, "{above}");
        assert_eq!(http(0.0).draw_think_s(), 0.0);
    }

    #[test]
    fn pages_and_think_times_with_a_fake_clock() {
        let mut h = http(1.0);
        assert!(!h.transferring());
        assert_eq!(h.page_done(5), None, "no page yet");
        let mut expect = http(1.0);
        let bytes = expect.draw_page_bytes();
        let packets = h.start_page(2 * NS_PER_S);
        assert_eq!(packets, (bytes / 1460.0).ceil() as u64);
        assert!(h.transferring());
        let think = expect.draw_think_s();
        let next = h.page_done(3 * NS_PER_S).unwrap();
        assert_eq!(next, 3 * NS_PER_S + (think * 1e9).round() as Time);
        assert!(!h.transferring());
        assert_eq!(h.page_done(4 * NS_PER_S), None, "a later ACK does not end a page twice");
        let s = h.stats();
        assert_eq!((s.pages_started, s.pages_completed), (1, 1));
        assert_eq!(s.page_bytes, vec![packets * 1460]);
        assert_eq!(s.page_time_s, vec![1.0]);
        assert_eq!(s.mean_page_goodput_bps, (packets * 1460 * 8) as f64);
        h.start_page(next);
        assert_eq!(h.stats().pages_started, 2);
        assert_eq!(h.stats().pages_completed, 1);
    }
}
