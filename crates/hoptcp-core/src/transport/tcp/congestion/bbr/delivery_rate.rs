//! Delivery-rate samples (draft-cheng-iccrg-delivery-rate-estimation-00,
//! which BBR v1 builds on), in packets, as ns-3.37's `TcpRateLinux`
//! computes them: every packet remembers, when it is sent, how much had
//! been delivered and when; its ACK turns the difference into a rate over
//! max(send interval, ACK interval).
//!
//! Where ns-3.37 departs from the draft, this follows ns-3 (BBR's check
//! against it needs the same samples), each marked `ns-3:` below:
//! - the sample persists across ACKs: an ACK that yields no valid sample
//!   leaves the last valid rate in place, and BBR feeds it again;
//! - the ACK interval is measured from the previous sample's prior
//!   delivery time, not the newly chosen one;
//! - time 0 means "no timing yet" (a packet sent at exactly t = 0 gives no
//!   sample).

use crate::engine::Time;
use std::collections::VecDeque;

/// What the sender knew when a packet left (draft §3.2 "Per-packet state").
#[derive(Clone, Copy, Debug, PartialEq)]
struct SentState {
    /// Packets delivered when it was sent (`P.delivered`).
    delivered: u64,
    /// When that much had been delivered (`P.delivered_time`); None once
    /// the packet's delivery has been counted.
    delivered_time: Option<Time>,
    /// Send time of the first packet of its flight (`P.first_sent_time`).
    first_sent: Time,
    /// Its latest transmission.
    last_sent: Time,
    app_limited: bool,
}

/// One ACK's rate sample (draft §3.3 "rs").
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Packets per second; ns-3: the last valid one when this ACK gave none
    /// (0 before any).
    pub delivery_rate: f64,
    pub is_app_limited: bool,
    /// Packets delivered before the newest packet this ACK covers was sent.
    pub prior_delivered: u64,
    /// Packets delivered over `interval`; -1 when the sample is invalid.
    pub delivered: i64,
    pub interval: Time,
    /// Packets this ACK newly acknowledged.
    pub acked: u32,
    /// Packets newly marked lost.
    pub lost: u32,
    /// Packets in flight before this ACK.
    pub prior_in_flight: u32,
}

#[derive(Clone, Debug, Default)]
pub struct DeliveryRate {
    /// Packet number of `sent[0]`.
    base: i64,
    sent: VecDeque<Option<SentState>>,
    /// Connection state (draft §3.1 "C.*").
    pub delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    /// Delivered count at which the app-limited bubble is gone (0: none).
    app_limited: u64,
    rate_delivered: u64,
    rate_interval: Time,
    /// ns-3: the sample's fields live on between ACKs.
    rs: RateSample,
    prior_time: Time,
    send_elapsed: Time,
    ack_elapsed: Time,
}

impl DeliveryRate {
    pub fn new() -> Self {
        Self::default()
    }

    fn slot(&mut self, seq: i64) -> &mut Option<SentState> {
        if self.sent.is_empty() {
            self.base = seq;
        }
        while seq < self.base {
            self.sent.push_front(None);
            self.base -= 1;
        }
        let i = (seq - self.base) as usize;
        if i >= self.sent.len() {
            self.sent.resize(i + 1, None);
        }
        &mut self.sent[i]
    }

    /// Packet `seq` leaves at `now`; `nothing_in_flight`: it starts a
    /// flight after an idle period (draft: restart the sampling intervals).
    pub fn on_send(&mut self, now: Time, seq: i64, nothing_in_flight: bool) {
        if nothing_in_flight {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let st = SentState {
            delivered: self.delivered,
            delivered_time: Some(self.delivered_time),
            first_sent: self.first_sent_time,
            last_sent: now,
            app_limited: self.app_limited != 0,
        };
        *self.slot(seq) = Some(st);
    }

    /// The application has nothing more to send with `in_flight` packets
    /// out: samples until they are delivered are app-limited (draft §3.4).
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        self.app_limited = (self.delivered + in_flight as u64).max(1);
    }

    /// Packet `seq` is delivered (cumulatively acknowledged) at `now`.
    pub fn on_delivered(&mut self, now: Time, seq: i64) {
        let Some(p) = (seq >= self.base).then(|| self.sent.get_mut((seq - self.base) as usize)).flatten() else {
            return;
        };
        let Some(mut st) = p.take() else { return };
        let Some(dt) = st.delivered_time.take() else { return };
        self.delivered += 1;
        self.delivered_time = now;
        if self.rs.prior_delivered == 0 || st.delivered > self.rs.prior_delivered {
            // ns-3: the ACK interval from the previous sample's prior time.
            self.ack_elapsed = now.saturating_sub(self.prior_time);
            self.rs.prior_delivered = st.delivered;
            self.prior_time = dt;
            self.rs.is_app_limited = st.app_limited;
            self.send_elapsed = st.last_sent.saturating_sub(st.first_sent);
            self.first_sent_time = st.last_sent;
        }
        // Drop delivered packets from the front.
        while matches!(self.sent.front(), Some(None)) {
            self.sent.pop_front();
            self.base += 1;
        }
    }

    /// Form this ACK's sample after its deliveries (draft §3.3;
    /// ns-3 `GenerateSample`). `min_rtt`: the connection's minimum RTT,
    /// None before any; a sample over a shorter interval is invalid.
    pub fn generate(&mut self, acked: u32, lost: u32, prior_in_flight: u32, min_rtt: Option<Time>) -> RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        self.rs.acked = acked;
        self.rs.lost = lost;
        self.rs.prior_in_flight = prior_in_flight;
        if self.prior_time == 0 {
            self.rs.delivered = -1;
            self.rs.interval = 0;
            return self.rs;
        }
        self.rs.interval = self.send_elapsed.max(self.ack_elapsed);
        self.rs.delivered = (self.delivered - self.rs.prior_delivered) as i64;
        if min_rtt.is_none_or(|m| self.rs.interval < m) {
            self.rs.interval = 0;
            self.prior_time = 0;
            return self.rs;
        }
        let d = self.rs.delivered as u64;
        // Keep the last non-app-limited rate, or the highest app-limited one.
        if !self.rs.is_app_limited
            || d as u128 * self.rate_interval as u128 >= self.rate_delivered as u128 * self.rs.interval as u128
        {
            self.rate_delivered = d;
            self.rate_interval = self.rs.interval;
            self.rs.delivery_rate = d as f64 / (self.rs.interval as f64 * 1e-9);
        }
        self.rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{NS_PER_MS, NS_PER_S};

    const MS: Time = NS_PER_MS;

    /// A sender clocked by ACKs over a bottleneck of one packet per `gap`
    /// with base RTT `rtt`: the draft's sample reads one packet per `gap`;
    /// ns-3's ACK interval is one gap longer, so a window of W packets
    /// reads W/(W+1) of it.
    #[test]
    fn steady_ack_clock_gives_the_bottleneck_rate() {
        let mut r = DeliveryRate::new();
        let t0 = NS_PER_S;
        let gap = 2 * MS; // 500 packets/s
        let rtt = 100 * MS;
        // A window of 50 leaves at t0 (nothing in flight before the first).
        for s in 1..=50 {
            r.on_send(t0, s, s == 1);
        }
        // Their ACKs come back one per gap; each releases one more packet.
        let mut last = RateSample::default();
        for k in 1..=200i64 {
            let now = t0 + rtt + k as Time * gap;
            r.on_delivered(now, k);
            last = r.generate(1, 0, 50, Some(rtt));
            r.on_send(now, 50 + k, false);
        }
        let expect = 500.0 * 50.0 / 51.0;
        assert!((last.delivery_rate - expect).abs() < 1e-6, "{}", last.delivery_rate);
        assert!(!last.is_app_limited);
        assert_eq!(last.delivered, 50, "a window's worth per sample");
    }

    #[test]
    fn no_sample_without_timing_or_minimum_rtt() {
        // Sent at t = 0: ns-3 reads time 0 as "no timing", delivered -1.
        let mut r = DeliveryRate::new();
        r.on_send(0, 1, true);
        r.on_delivered(11 * MS, 1);
        let s = r.generate(1, 0, 1, Some(MS));
        assert_eq!((s.delivered, s.interval, s.delivery_rate), (-1, 0, 0.0));
        // No minimum RTT yet: invalid too.
        let mut r = DeliveryRate::new();
        r.on_send(MS, 1, true);
        r.on_delivered(11 * MS, 1);
        let s = r.generate(1, 0, 1, None);
        assert_eq!((s.interval, s.delivery_rate), (0, 0.0));
    }

    #[test]
    fn interval_shorter_than_min_rtt_is_invalid_and_keeps_the_last_rate() {
        let mut r = DeliveryRate::new();
        r.on_send(MS, 1, true);
        r.on_send(MS, 2, false);
        r.on_delivered(11 * MS, 1);
        let a = r.generate(1, 0, 2, Some(10 * MS));
        // The first ACK measures from the zero prior time: 11 ms, 1 packet.
        assert_eq!((a.delivered, a.interval), (1, 11 * MS));
        assert!((a.delivery_rate - 1.0 / 0.011).abs() < 1e-9);
        r.on_send(11 * MS, 3, false);
        r.on_delivered(12 * MS, 2);
        let b = r.generate(1, 0, 2, Some(15 * MS));
        // 11 ms (12 - 1) < 15 ms: invalid, and the rate stays (ns-3).
        assert_eq!(b.interval, 0);
        assert_eq!(b.delivery_rate, a.delivery_rate);
    }

    #[test]
    fn app_limited_marks_packets_until_the_bubble_is_delivered() {
        let mut r = DeliveryRate::new();
        r.on_send(MS, 1, true);
        r.mark_app_limited(1);
        r.on_send(MS, 2, false);
        r.on_delivered(20 * MS, 1);
        r.generate(1, 0, 2, Some(5 * MS));
        r.on_delivered(21 * MS, 2);
        let s = r.generate(1, 0, 1, Some(5 * MS));
        assert!(s.is_app_limited, "packet 2 was sent app-limited");
        // The bubble (1 + 1 in flight = 2) is delivered: later sends are not.
        r.on_send(21 * MS, 3, true);
        r.on_delivered(40 * MS, 3);
        let s = r.generate(1, 0, 1, Some(5 * MS));
        assert!(!s.is_app_limited);
    }

    #[test]
    fn retransmission_restamps_and_double_delivery_counts_once() {
        let mut r = DeliveryRate::new();
        r.on_send(MS, 1, true);
        r.on_send(300 * MS, 1, true);
        r.on_delivered(310 * MS, 1);
        r.on_delivered(311 * MS, 1);
        assert_eq!(r.delivered, 1);
    }
}
