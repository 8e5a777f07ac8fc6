//! Sender and receiver together through a fake network: a FIFO bottleneck
//! with fixed propagation delays, deterministic losses and ECN marking. It
//! lives in `sim/` because it drives TCP with the MAC's Link RED and an app
//! (CBR) source: a test spanning layers sits above them all.

use crate::engine::{RngStream, StreamPurpose, Time, NS_PER_MS, NS_PER_S};
use crate::mac::{LinkRed, LinkRedParams};
use crate::transport::tcp::*;
use crate::wire::{ecn, Ecn, MarkAction, SignalOutcome, TcpSegment};

const MS: Time = NS_PER_MS;

#[derive(Clone, Copy, Debug)]
enum Ev {
    Data(TcpSegment, bool),
    Ack(TcpSegment),
}

type DropFn = Box<dyn FnMut(&TcpSegment, u32) -> bool>;
/// A marker on the path: sees each data packet's ECN field at `now` and
/// returns false if it drops the packet.
type MarkerFn = Box<dyn FnMut(Time, &mut Ecn) -> bool>;

struct Sim {
    now: Time,
    tx: TcpSender,
    rx: TcpReceiver,
    /// Bottleneck service time per data packet; ACKs are not queued.
    service: Time,
    fwd_delay: Time,
    rev_delay: Time,
    busy_until: Time,
    /// Mark CE (on ECT packets) when this many are queued ahead.
    mark_above: Option<u64>,
    marker: Option<MarkerFn>,
    drop: DropFn,
    events: Vec<(Time, u64, Ev)>,
    order: u64,
    /// Transmissions per packet number.
    sends: Vec<u32>,
    dropped: u64,
    acks_seen: Vec<u64>,
    /// (time, ECN-Echo) of every ACK received.
    ece_seen: Vec<(Time, bool)>,
    /// Largest distance from the cumulative ACK to a packet sent.
    max_ahead: i64,
    /// (time, cwnd) after every ACK.
    trace: Vec<(Time, f64)>,
}

impl Sim {
    fn new(cfg: &TcpConfig, service: Time, fwd: Time, rev: Time, drop: DropFn) -> Self {
        Sim {
            now: 0,
            tx: TcpSender::new(cfg),
            rx: TcpReceiver::new(cfg),
            service,
            fwd_delay: fwd,
            rev_delay: rev,
            busy_until: 0,
            mark_above: None,
            marker: None,
            drop,
            events: Vec::new(),
            order: 0,
            sends: Vec::new(),
            dropped: 0,
            acks_seen: Vec::new(),
            ece_seen: Vec::new(),
            max_ahead: 0,
            trace: Vec::new(),
        }
    }

    fn push(&mut self, t: Time, ev: Ev) {
        self.order += 1;
        self.events.push((t, self.order, ev));
    }

    fn flush(&mut self) {
        let base = self.tx.highest_ack().map_or(-1, |a| a as i64);
        while let Some(seg) = self.tx.poll_transmit(self.now) {
            self.max_ahead = self.max_ahead.max(seg.seq as i64 - base);
            let n = seg.seq as usize;
            if self.sends.len() <= n {
                self.sends.resize(n + 1, 0);
            }
            self.sends[n] += 1;
            if (self.drop)(&seg, self.sends[n]) {
                self.dropped += 1;
                continue;
            }
            let mut ecn = if seg.ect { Ecn::Ect } else { Ecn::NotEct };
            if let Some(m) = self.marker.as_mut() {
                if !m(self.now, &mut ecn) {
                    self.dropped += 1;
                    continue;
                }
            }
            let start = self.now.max(self.busy_until);
            let queued = (start - self.now) / self.service.max(1);
            self.busy_until = start + self.service;
            let ce = ecn == Ecn::Ce || (seg.ect && self.mark_above.is_some_and(|k| queued > k));
            self.push(self.busy_until + self.fwd_delay, Ev::Data(seg, ce));
        }
        while let Some(a) = self.rx.poll_transmit(self.now) {
            self.push(self.now + self.rev_delay, Ev::Ack(a));
        }
    }

    fn run_until(&mut self, until: Time) {
        loop {
            self.flush();
            let t_ev = self.events.iter().map(|e| e.0).min();
            let next = [t_ev, self.tx.next_timer(), self.rx.next_timer()].into_iter().flatten().min();
            let Some(next) = next.filter(|&t| t <= until) else {
                self.now = until;
                return;
            };
            assert!(next >= self.now, "time went backwards");
            self.now = next;
            if self.tx.next_timer() == Some(next) {
                self.tx.on_timer(next);
                continue;
            }
            if self.rx.next_timer() == Some(next) {
                self.rx.on_timer(next);
                continue;
            }
            let i = (0..self.events.len()).min_by_key(|&i| (self.events[i].0, self.events[i].1)).unwrap();
            let (_, _, ev) = self.events.swap_remove(i);
            match ev {
                Ev::Data(seg, ce) => self.rx.on_segment(next, &seg, ce),
                Ev::Ack(a) => {
                    self.acks_seen.push(a.ack);
                    self.ece_seen.push((next, a.ece));
                    self.tx.on_segment(next, &a);
                    self.trace.push((next, self.tx.cwnd()));
                }
            }
        }
    }
}

/// Send `n` packets through losses; check complete in-order delivery.
fn transfer(cfg: &TcpConfig, n: u64, drop: DropFn) -> Sim {
    let mut sim = Sim::new(cfg, 2 * MS, 20 * MS, 20 * MS, drop);
    sim.tx.add_data(0, n);
    sim.run_until(600 * NS_PER_S);
    let st = sim.rx.stats();
    assert_eq!(st.packets_delivered, n, "{:?}: delivered", cfg.variant);
    assert_eq!(st.bytes_delivered, n * cfg.payload_bytes as u64);
    assert_eq!(sim.rx.next_expected(), n + 1);
    assert!(sim.tx.all_acked(), "{:?}: sender not done", cfg.variant);
    assert!(sim.acks_seen.windows(2).all(|w| w[1] >= w[0]), "cumulative ACKs never go back");
    sim
}

/// Losses: the setup segment once, a burst of three, a scattering of
/// single losses, and a retransmission lost too.
fn loss_pattern() -> DropFn {
    Box::new(|seg: &TcpSegment, nth: u32| {
        let s = seg.seq;
        match nth {
            1 => s == 0 || (40..=42).contains(&s) || (s > 60 && s.is_multiple_of(37)) || s == 100,
            2 => s == 100,
            _ => false,
        }
    })
}

#[test]
fn end_to_end_delivers_everything_in_order_through_losses() {
    for variant in [Variant::NewReno, Variant::Reno, Variant::Vegas, Variant::Cubic] {
        for delayed_ack in [false, true] {
            let cfg = TcpConfig { variant, delayed_ack, max_window: 16, ..TcpConfig::default() };
            let sim = transfer(&cfg, 400, loss_pattern());
            let st = sim.tx.stats(sim.now);
            assert!(sim.dropped >= 12, "{variant:?}");
            assert!(st.retransmissions >= sim.dropped, "{variant:?}: {st:?}");
            assert!(st.timeouts >= 1, "the lost setup segment needs a timeout");
            assert_eq!(st.packets_sent, sim.sends.iter().map(|&n| n as u64).sum::<u64>());
            assert!(st.avg_window > 1.0 && st.avg_window <= 16.0, "{st:?}");
            // The histogram covers the time from the first transmission
            // (the setup segment at t=0) to now.
            let hist_total: f64 = st.window_hist.iter().sum();
            assert!((hist_total - sim.now as f64 / 1e9).abs() < 1e-6, "{hist_total}");
            assert!(st.rtt_samples > 10);
            assert!(st.avg_rtt_s >= 0.040, "{}", st.avg_rtt_s);
        }
    }
}

#[test]
fn end_to_end_newreno_recovers_burst_without_timeout() {
    let cfg = TcpConfig { max_window: 16, initial_ssthresh: 16, ..TcpConfig::default() };
    // Only a burst of three losses in one window.
    let sim = transfer(&cfg, 200, Box::new(|s: &TcpSegment, nth| nth == 1 && (50..=52).contains(&s.seq)));
    let st = sim.tx.stats(sim.now);
    assert_eq!(st.timeouts, 0, "{st:?}");
    assert_eq!(st.fast_retransmits, 1);
    assert_eq!(st.retransmissions, 3);
}

#[test]
fn end_to_end_ecn_marks_instead_of_losses() {
    let cfg = TcpConfig { ecn: true, max_window: 32, initial_ssthresh: 32, ..TcpConfig::default() };
    let mut sim = Sim::new(&cfg, 5 * MS, 10 * MS, 10 * MS, Box::new(|_, _| false));
    sim.mark_above = Some(4);
    sim.tx.add_data(0, 2000);
    sim.run_until(100 * NS_PER_S);
    assert_eq!(sim.rx.stats().packets_delivered, 2000);
    let st = sim.tx.stats(sim.now);
    assert_eq!(st.retransmissions, 0);
    assert!(st.ecn_reductions >= 3, "{st:?}");
    // The window stays near the marking threshold plus the pipe (~6).
    assert!(st.avg_window < 16.0, "{st:?}");
}

/// Link RED as the marker on the path: while the link's retry average is
/// above max_th (2 s to 3 s) it picks every data packet and marks it CE. The
/// receiver echoes the marks until the sender's CWR; the sender halves its
/// window at most once per window of data (once per RTT here) and loses
/// nothing.
#[test]
fn link_red_marks_are_echoed_and_answered_once_per_window() {
    let cfg = TcpConfig { ecn: true, max_window: 32, initial_ssthresh: 32, ..TcpConfig::default() };
    let mut sim = Sim::new(&cfg, 5 * MS, 10 * MS, 10 * MS, Box::new(|_, _| false));
    let params = LinkRedParams { min_th: 0.5, max_th: 1.5, max_p: 1.0, weight: 0.125, action: MarkAction::Mark };
    let mut red = LinkRed::new(params, RngStream::new(1, 0, StreamPurpose::LinkRed));
    let marks = std::rc::Rc::new(std::cell::Cell::new(0u32));
    let m = marks.clone();
    sim.marker = Some(Box::new(move |now, e| {
        let avg = if (2 * NS_PER_S..3 * NS_PER_S).contains(&now) { 3.0 } else { 0.0 };
        match red.decide(avg) {
            None => true,
            Some(action) => {
                let kept = ecn::signal(action, e) == SignalOutcome::Marked;
                m.set(m.get() + kept as u32);
                kept
            }
        }
    }));
    sim.tx.add_data(0, u64::MAX);
    sim.run_until(2 * NS_PER_S);
    let before = sim.tx.stats(sim.now);
    assert_eq!(before.ecn_reductions, 0);
    assert!(sim.ece_seen.iter().all(|&(_, e)| !e));
    sim.run_until(6 * NS_PER_S);
    let st = sim.tx.stats(sim.now);
    assert!(marks.get() > 20, "every data packet sent in [2 s, 3 s) is marked: {}", marks.get());
    assert_eq!(st.retransmissions, 0, "marks, not losses");
    assert_eq!(sim.dropped, 0, "data packets are ECT: nothing dropped");
    // The marks come back as ECN-Echo ...
    let echoed: Vec<Time> = sim.ece_seen.iter().filter(|e| e.1).map(|e| e.0).collect();
    assert!(!echoed.is_empty());
    assert!(echoed[0] > 2 * NS_PER_S && *echoed.last().unwrap() < 3 * NS_PER_S + 200 * MS, "{echoed:?}");
    // ... and each window reduction is at least one RTT (25 ms minimum here)
    // after the previous one, though every ACK in between carries ECN-Echo:
    // 32 -> 16 -> 8 -> 4 -> 2 -> 1 -> 0.5 (ns-2.35 halves below one packet; the
    // sender then waits for its retransmission timer). At cwnd <= 1 further
    // responses back off the retransmission timer (ns-2 ecn_backoff_).
    let cuts: Vec<Time> = sim.trace.windows(2).filter(|w| w[1].1 < w[0].1).map(|w| w[1].0).collect();
    assert_eq!(cuts.len(), 6, "{cuts:?}");
    assert!(cuts.windows(2).all(|w| w[1] - w[0] >= 25 * MS), "{cuts:?}");
    assert!(st.ecn_reductions >= 5 && (st.ecn_reductions as f64) <= 1.0 / 0.025 + 1.0, "{st:?}");
    assert!(st.ecn_reductions < marks.get() as u64 / 2, "far fewer responses than marks: {st:?}");
    assert_eq!(st.timeouts, 0);
    assert!(st.final_cwnd > 8.0, "grows again once the marks stop: {st:?}");
}

/// Vegas through a bottleneck of 10 ms per packet and 50 ms of
/// propagation: the pipe holds (50 + 10) / 10 = 6 packets, and Vegas aims
/// at alpha..beta = 1..3 packets queued, a window of about 7..9.
fn vegas_sim(initial_ssthresh: u32) -> Sim {
    let cfg = TcpConfig { variant: Variant::Vegas, max_window: 64, initial_ssthresh, ..TcpConfig::default() };
    let mut sim = Sim::new(&cfg, 10 * MS, 25 * MS, 25 * MS, Box::new(|_, _| false));
    sim.tx.add_data(0, u64::MAX);
    sim
}

fn cwnd_range(trace: &[(Time, f64)], from: Time, to: Time) -> (f64, f64) {
    trace.iter().filter(|e| e.0 > from && e.0 <= to).fold((f64::MAX, 0.0f64), |(l, h), e| (l.min(e.1), h.max(e.1)))
}

#[test]
fn vegas_increases_holds_then_decreases() {
    // Congestion avoidance from the start (ssthresh 2).
    let mut sim = vegas_sim(2);
    sim.run_until(30 * NS_PER_S);
    assert_eq!(sim.tx.stats(sim.now).retransmissions, 0);
    // The first data ACK sets the initial window (1 -> 2) and adds 1/2.
    assert_eq!((sim.trace[0].1, sim.trace[1].1), (1.0, 2.5));
    // Increase: about one packet per RTT (1/cwnd per ACK), never faster.
    assert!(sim.trace[1..].windows(2).all(|w| w[1].1 - w[0].1 <= 0.4 + 1e-9));
    let (_, hi_1s) = cwnd_range(&sim.trace, 0, NS_PER_S);
    assert!(hi_1s >= 7.0, "grew from 2 to {hi_1s} in 1 s");
    // Hold: queue between alpha and beta, window steady.
    let (lo, hi) = cwnd_range(&sim.trace, 5 * NS_PER_S, 30 * NS_PER_S);
    assert!(lo >= 6.5 && hi < 10.0, "holds near 7..9: {lo}..{hi}");
    assert!(hi - lo <= 1.0, "holds: {lo}..{hi}");

    // The bottleneck slows to 20 ms per packet: the pipe shrinks to 3.5
    // packets, the queue grows, diff > beta: one packet less per RTT.
    sim.service = 20 * MS;
    let t_change = sim.now;
    let before = sim.tx.cwnd();
    sim.run_until(60 * NS_PER_S);
    let after = sim.tx.cwnd();
    assert!(after <= before - 2.0, "{before} -> {after}");
    assert!((4.0..7.5).contains(&after), "{after}");
    let phase: Vec<&(Time, f64)> = sim.trace.iter().filter(|e| e.0 > t_change).collect();
    assert!(phase.windows(2).all(|w| w[1].1 >= w[0].1 - 1.0 - 1e-9), "one packet at a time");
    let (lo, hi) = cwnd_range(&sim.trace, 45 * NS_PER_S, 60 * NS_PER_S);
    assert!(hi - lo <= 1.0, "holds again: {lo}..{hi}");
    assert_eq!(sim.tx.stats(sim.now).retransmissions, 0);
}

#[test]
fn vegas_slow_start_grows_every_other_rtt_and_exits_on_gamma() {
    let mut sim = vegas_sim(20);
    sim.run_until(10 * NS_PER_S);
    assert_eq!(sim.tx.stats(sim.now).retransmissions, 0);
    assert_eq!(sim.tx.ssthresh(), 2.0, "left slow start on diff > gamma");
    // Leaving slow start cuts cwnd by an eighth.
    let cut = sim.trace.windows(2).find(|w| w[1].1 < w[0].1).map(|w| (w[0].1, w[1].1)).unwrap();
    assert_eq!(cut.1, cut.0 - cut.0 / 8.0, "{cut:?}");
    // Slow start: the first data ACK sets the initial window and adds 1
    // (1 -> 3); then +1 per ACK in growing RTTs, with flat RTTs between.
    let growth: Vec<f64> = sim.trace.windows(2).map(|w| w[1].1 - w[0].1).take_while(|&d| d >= 0.0).collect();
    assert_eq!(growth[0], 2.0);
    assert!(growth[1..].iter().all(|&d| d == 0.0 || d == 1.0), "{growth:?}");
    let runs = growth[1..].windows(2).filter(|w| w[0] == 0.0 && w[1] == 1.0).count();
    assert!(runs >= 2, "alternating flat and growing RTTs: {growth:?}");
    // Then it settles in the alpha..beta band.
    let (lo, hi) = cwnd_range(&sim.trace, 5 * NS_PER_S, 10 * NS_PER_S);
    assert!(lo >= 6.5 && hi < 10.0, "{lo}..{hi}");
}

#[test]
fn window_never_exceeds_max_window_end_to_end() {
    for variant in [Variant::NewReno, Variant::Reno, Variant::Vegas, Variant::Cubic] {
        for max_window in [1, 3, 8] {
            let cfg = TcpConfig { variant, max_window, ..TcpConfig::default() };
            let sim = transfer(&cfg, 300, loss_pattern());
            assert!(sim.max_ahead <= max_window as i64, "{variant:?} {max_window}: {}", sim.max_ahead);
            assert_eq!(sim.max_ahead, max_window as i64, "the window is used");
            let st = sim.tx.stats(sim.now);
            assert_eq!(st.window_hist.len(), max_window as usize + 1);
            assert!(st.avg_window <= max_window as f64);
        }
    }
}

/// Bytes delivered in `secs` seconds when a CBR source of `rate_bps`
/// (`packet` bytes per write) feeds the sender, or FTP when `rate_bps` is
/// None; the bottleneck serves one 1460 B segment per 10 ms (1.168 Mb/s).
fn rate_limited_delivery(rate_bps: Option<f64>, packet: u32, secs: u64) -> (u64, Sim) {
    let cfg = TcpConfig { max_window: 32, ..TcpConfig::default() };
    let mut sim = Sim::new(&cfg, 10 * MS, 20 * MS, 20 * MS, Box::new(|_, _| false));
    let end = secs * NS_PER_S;
    match rate_bps {
        None => {
            sim.tx.add_data(0, u64::MAX);
            sim.run_until(end);
        }
        Some(rate) => {
            let rng = RngStream::new(1, 0, StreamPurpose::AppTraffic);
            let mut cbr = crate::app::cbr::Cbr::new(rate, packet, 0, end, 0.0, rng);
            while let Some(t) = cbr.next_time() {
                sim.run_until(t);
                let (_, bytes) = cbr.emit();
                sim.tx.add_data(t, bytes.div_ceil(cfg.payload_bytes) as u64);
            }
            sim.run_until(end);
        }
    }
    (sim.rx.stats().bytes_delivered, sim)
}

#[test]
fn cbr_source_below_capacity_gets_its_rate() {
    // 400 kb/s of 1460 B writes: one segment every 29.2 ms, a third of
    // the bottleneck. Delivery keeps pace with the writes (at most the
    // segments in flight behind), and the window never fills: a 50 ms
    // round trip spans two writes, a delayed ACK one more.
    let (bytes, sim) = rate_limited_delivery(Some(400_000.0), 1460, 60);
    let offered = 400_000.0 / 8.0 * 60.0;
    assert!(bytes as f64 <= offered + 1.0, "delivered {bytes} > offered {offered}");
    assert!(bytes as f64 >= offered - 3.0 * 1460.0, "delivered {bytes} of {offered}");
    assert!(sim.max_ahead <= 4, "only the few written segments are in flight: {}", sim.max_ahead);
    assert_eq!(sim.tx.stats(60 * NS_PER_S).retransmissions, 0);
}

#[test]
fn cbr_write_larger_than_a_segment_is_rounded_up_to_whole_segments() {
    // 2000 B writes at 80 kb/s (one every 200 ms): two 1460 B segments
    // each, as ns-2's TcpAgent::sendmsg; 300 writes in 60 s.
    let (bytes, _) = rate_limited_delivery(Some(80_000.0), 2000, 60);
    let writes = 300u64;
    assert!((writes - 1) * 2 * 1460 <= bytes && bytes <= writes * 2 * 1460, "{bytes}");
}

#[test]
fn cbr_source_above_capacity_is_ftp() {
    // 5 Mb/s offered to a 1.168 Mb/s bottleneck: the send buffer never
    // empties, so the sender behaves as with an infinite backlog.
    let (cbr, _) = rate_limited_delivery(Some(5_000_000.0), 1460, 60);
    let (ftp, _) = rate_limited_delivery(None, 1460, 60);
    let capacity = 1460.0 * 100.0 * 60.0;
    assert!(ftp as f64 > 0.9 * capacity, "FTP fills the bottleneck: {ftp}");
    assert!((cbr as f64 - ftp as f64).abs() <= 2.0 * 1460.0, "CBR {cbr} vs FTP {ftp}");
}

#[test]
fn end_to_end_cubic_cuts_by_beta_and_regrows_to_w_max_in_about_k() {
    // A 5000 packet/s bottleneck with a 100 ms base RTT (BDP 500 packets), no
    // window limit, slow start to 400; one loss, of packet 3000, in congestion
    // avoidance at w ~ 400: there K = cbrt(0.75 w) ~ 7 s is well below NewReno's
    // w/2 RTTs ~ 20 s (at small windows CUBIC's Reno-friendly region rules).
    let mut regrow = Vec::new();
    for variant in [Variant::NewReno, Variant::Cubic] {
        let cfg = TcpConfig { variant, max_window: 100_000, initial_ssthresh: 400, ..TcpConfig::default() };
        let drop = Box::new(|s: &TcpSegment, nth: u32| nth == 1 && s.seq == 3000);
        let mut sim = Sim::new(&cfg, MS / 5, 50 * MS, 50 * MS, drop);
        sim.tx.add_data(0, u64::MAX);
        sim.run_until(15 * NS_PER_S);
        let st = sim.tx.stats(sim.now);
        assert_eq!((st.fast_retransmits, st.timeouts), (1, 0), "{variant:?}: {st:?}");
        // The window just before the cut, the deflation that ends recovery
        // (a single loss: no partial ACK), and the first time it is back at w.
        let drops: Vec<usize> =
            sim.trace.windows(2).enumerate().filter(|(_, p)| p[1].1 < p[0].1).map(|(i, _)| i).collect();
        assert_eq!(drops.len(), 2, "{variant:?}: the cut and the deflation");
        let (t_cut, w) = sim.trace[drops[0]];
        let back = sim.trace[drops[1] + 1..].iter().find(|e| e.1 >= w).map(|e| e.0 - t_cut);
        match variant {
            Variant::NewReno => assert_eq!(sim.tx.ssthresh(), (w / 2.0).floor(), "w {w}"),
            _ => {
                assert!((sim.tx.ssthresh() - 0.7 * w).abs() < 1e-9, "beta 0.7 of {w}: {}", sim.tx.ssthresh());
                // K = cbrt(W_max (1 - beta) / C) after the cut (RFC 9438 eq. 2).
                let k = (w * 0.3 / 0.4).cbrt();
                let t = back.expect("CUBIC regains W_max") as f64 / 1e9;
                assert!((t - k).abs() < 1.0, "back at W_max {w} after {t} s, K = {k} s");
            }
        }
        regrow.push(back.map_or(f64::INFINITY, |t| t as f64 / 1e9));
    }
    assert!(regrow[0] > 15.0 - 2.0, "NewReno needs about w/2 RTTs: {regrow:?}");
}

/// ns-2.35's TCP-Linux CUBIC (with `sack`) over 15 s of a 0.2 ms-per-packet
/// path with 100 ms RTT, packet 3000 lost once, at w ~ 400.
fn ns2_linux_one_loss(sack: Option<SackProfile>) -> Sim {
    let cfg = TcpConfig {
        variant: Variant::Cubic,
        cubic_profile: crate::transport::tcp::config::CubicProfile::Ns2Linux,
        max_window: 100_000,
        initial_ssthresh: 400,
        sack,
        ..TcpConfig::default()
    };
    let drop = Box::new(|s: &TcpSegment, nth: u32| nth == 1 && s.seq == 3000);
    let mut sim = Sim::new(&cfg, MS / 5, 50 * MS, 50 * MS, drop);
    sim.tx.add_data(0, u64::MAX);
    sim.run_until(15 * NS_PER_S);
    sim
}

#[test]
fn end_to_end_ns2_linux_cubic_recovers_only_by_timeout_and_forgets_w_max() {
    // The same path with one loss, of packet 3000, at w ~ 400. ns-2.35's
    // TCP-Linux behind a plain sink has no fast retransmit: the duplicate ACKs
    // only re-arm the timer, so it times out an RTO after the last of them,
    // sends everything again from 3000 (go back N) and, W_max reset, leaves
    // slow start at ssthresh = 0.8 w into the 50-ACK mode.
    let sim = ns2_linux_one_loss(None);
    let st = sim.tx.stats(sim.now);
    assert_eq!((st.fast_retransmits, st.timeouts), (0, 1), "{st:?}");
    // (time, cwnd) after every ACK, duplicates included.
    let cut = sim.trace.windows(2).position(|p| p[1].1 < p[0].1).expect("one cut");
    let (t_last, w) = sim.trace[cut];
    let t_w = sim.trace.iter().find(|e| e.1 >= w).unwrap().0;
    let (t_after, after) = sim.trace[cut + 1];
    // cwnd 1 at the timeout; the retransmission's ACK covers all the receiver
    // holds, ending Loss: cwnd = ssthresh moderated to in flight (0) + 3.
    assert_eq!(after, 3.0);
    assert_eq!(st.retransmissions, 1, "the hole only");
    assert_eq!(sim.tx.ssthresh(), (w as u32 * 819 / 1024) as f64, "beta 819/1024 of {w}");
    // The duplicate ACKs (100 ms of them, one window) re-armed the timer: it
    // fired the minimum RTO after the last one, and the ACK came an RTT later.
    assert!(t_last - t_w >= 95 * MS, "dupacks from {t_w} to {t_last}");
    assert!(t_after >= t_last + 300 * MS, "the last dupack at {t_last}, the next ACK at {t_after}");
    let t_cut = t_last;
    // Above ssthresh it grows one packet per cnt = 50 * 16 / ratio ACKs, about
    // 25 ACKs while the ACK ratio stays near 2: far below one per RTT at w ~ 300.
    let ss = sim.tx.ssthresh();
    let t_ss = sim.trace.iter().find(|e| e.0 > t_cut && e.1 > ss).expect("past ssthresh").0;
    let later = sim.trace.iter().filter(|e| e.0 > t_ss && e.0 <= t_ss + NS_PER_S).map(|e| e.1).fold(0.0, f64::max);
    let acks_per_s = 5000.0;
    assert!(later - ss <= acks_per_s / 20.0 + 2.0, "grew {} in 1 s above ssthresh {ss}", later - ss);
    assert!(later - ss >= acks_per_s / 60.0, "grew {} in 1 s above ssthresh {ss}", later - ss);
}

#[test]
fn end_to_end_ns2_linux_cubic_with_sack_recovers_one_loss_without_a_timeout() {
    // The same path and loss, behind TCPSink/Sack1: TCP-Linux's scoreboard
    // marks 3000 lost on the fourth SACK above it and Recovery retransmits it
    // once; cwnd = ssthresh = 819/1024 of w at once (ns-2's traced cwnd_ is
    // the rate-halving allowance, from w down to it), no timeout, and CUBIC
    // keeps W_max (no Loss state).
    let sim = ns2_linux_one_loss(Some(SackProfile::Ns2Sack1));
    let st = sim.tx.stats(sim.now);
    assert_eq!((st.fast_retransmits, st.timeouts, st.retransmissions), (1, 0, 1), "{st:?}");
    let sack = st.sack.expect("TCP-Linux's recovery counters");
    assert_eq!((sack.recoveries, sack.recoveries_completed), (1, 1));
    let cut = sim.trace.windows(2).position(|p| p[1].1 < p[0].1).expect("a cut");
    let (t_cut, w) = sim.trace[cut];
    let ss = (w as u32 * 819 / 1024) as f64;
    let after: Vec<f64> = sim.trace.iter().filter(|e| e.0 > t_cut).map(|e| e.1).collect();
    assert!(after.iter().all(|&c| c >= ss), "never below ssthresh {ss}");
    assert_eq!(after.iter().copied().fold(f64::INFINITY, f64::min), ss, "down to ssthresh {ss} of {w}");
    assert!(sim.tx.ssthresh() >= ss, "no second cut");
}

#[test]
fn end_to_end_sack_delivers_everything_through_losses() {
    for sack in [SackProfile::Rfc6675, SackProfile::Ns2Sack1] {
        for variant in [Variant::NewReno, Variant::Reno, Variant::Vegas, Variant::Cubic] {
            for delayed_ack in [false, true] {
                let cfg = TcpConfig { variant, delayed_ack, max_window: 16, sack: Some(sack), ..TcpConfig::default() };
                let sim = transfer(&cfg, 400, loss_pattern());
                let st = sim.tx.stats(sim.now);
                assert!(st.retransmissions >= sim.dropped, "{sack:?} {variant:?}: {st:?}");
                assert!(st.sack.is_some_and(|s| s.recoveries_completed >= 1), "{sack:?} {variant:?}: {st:?}");
            }
        }
    }
    // TCP-Linux's own recovery (the ns2_linux profile) behind the Sack1 sink.
    for delayed_ack in [false, true] {
        let cfg = TcpConfig {
            variant: Variant::Cubic,
            cubic_profile: crate::transport::tcp::config::CubicProfile::Ns2Linux,
            delayed_ack,
            max_window: 16,
            sack: Some(SackProfile::Ns2Sack1),
            ..TcpConfig::default()
        };
        let sim = transfer(&cfg, 400, loss_pattern());
        let st = sim.tx.stats(sim.now);
        assert!(st.retransmissions >= sim.dropped, "ns2_linux: {st:?}");
        assert!(st.sack.is_some_and(|s| s.recoveries_completed >= 1), "ns2_linux: {st:?}");
    }
}

/// The time from the first duplicate ACK of `hole - 1` to the first ACK at
/// or beyond `done`.
fn recovery_time(sim: &Sim, hole: u64, done: u64) -> f64 {
    let times: Vec<(Time, u64)> = sim.ece_seen.iter().map(|e| e.0).zip(sim.acks_seen.iter().copied()).collect();
    let first_dup = times.windows(2).find(|w| w[0].1 == hole - 1 && w[1].1 == hole - 1).expect("a duplicate ACK")[1].0;
    let end = times.iter().find(|e| e.1 >= done).expect("recovered").0;
    (end - first_dup) as f64 / 1e9
}

#[test]
fn end_to_end_sack_recovers_six_holes_in_one_window_in_one_rtt() {
    // A 1 ms/packet bottleneck with 40 ms of propagation (BDP ~ 40 packets),
    // window 64, and six packets of one window lost (100, 104, ..., 120).
    // SACK retransmits all six in the first RTT of recovery; NewReno finds
    // one hole per RTT (or waits for its timer).
    let holes = [100u64, 104, 108, 112, 116, 120];
    let mut rtts = Vec::new();
    for sack in [None, Some(SackProfile::Rfc6675), Some(SackProfile::Ns2Sack1)] {
        let cfg = TcpConfig { max_window: 64, initial_ssthresh: 64, sack, ..TcpConfig::default() };
        let drop = Box::new(move |s: &TcpSegment, nth: u32| nth == 1 && holes.contains(&s.seq));
        let mut sim = Sim::new(&cfg, MS, 20 * MS, 20 * MS, drop);
        sim.tx.add_data(0, 400);
        sim.run_until(60 * NS_PER_S);
        assert!(sim.tx.all_acked());
        let st = sim.tx.stats(sim.now);
        let rtt = st.avg_rtt_s;
        let t = recovery_time(&sim, 100, 125);
        match sack {
            None => assert!(t > 4.0 * rtt || st.timeouts > 0, "NewReno: {t} s, RTT {rtt} s, {st:?}"),
            Some(p) => {
                // Each hole once; RFC 6675 may add its one rescue
                // retransmission (the receiver window stops new data).
                let rescue = st.sack.unwrap().rescue_retransmissions;
                assert!(rescue <= 1);
                assert_eq!((st.timeouts, st.fast_retransmits, st.retransmissions), (0, 1, 6 + rescue), "{p:?}: {st:?}");
                assert!(t < 2.5 * rtt, "{p:?}: recovery took {t} s, RTT {rtt} s");
            }
        }
        rtts.push(t / rtt);
    }
    assert!(rtts[0] > 2.0 * rtts[1], "{rtts:?}");
}
