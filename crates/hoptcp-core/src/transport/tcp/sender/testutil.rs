//! Helpers for the sender's tests: hand-made ACKs and a drained send loop.

use super::super::config::Variant;
use super::*;
use crate::engine::NS_PER_MS;

pub const MS: Time = NS_PER_MS;

pub fn ack(n: u64) -> TcpSegment {
    TcpSegment::new_ack(n, 0)
}

pub fn ack_ece(n: u64) -> TcpSegment {
    TcpSegment { ece: true, ..TcpSegment::new_ack(n, 0) }
}

/// Drain everything the sender may send now.
pub fn drain(s: &mut TcpSender, now: Time) -> Vec<TcpSegment> {
    let mut v = Vec::new();
    while let Some(seg) = s.poll_transmit(now) {
        v.push(seg);
        assert!(v.len() < 10_000, "runaway sender");
    }
    v
}

pub fn seqs(v: &[TcpSegment]) -> Vec<u64> {
    v.iter().map(|s| s.seq).collect()
}

/// cwnd 8 in congestion-free slow start, with 1..=6 acked and 7..=14 in
/// flight (initial ssthresh high enough not to interfere).
pub fn at_window_8(c: &TcpConfig) -> TcpSender {
    let c = TcpConfig { initial_ssthresh: 1000, ..c.clone() };
    let mut s = established(&c, 100 * MS);
    for p in 1..=6 {
        ack_and_send(&mut s, 100 * MS + p * MS, ack(p));
    }
    assert_eq!(s.cwnd(), 8.0);
    assert_eq!(s.max_sent(), Some(14));
    s
}

/// Deliver an ACK and drain, returning the numbers sent.
pub fn ack_and_send(s: &mut TcpSender, now: Time, seg: TcpSegment) -> Vec<u64> {
    s.on_segment(now, &seg);
    seqs(&drain(s, now))
}

pub fn cfg(variant: Variant) -> TcpConfig {
    TcpConfig { variant, ..TcpConfig::default() }
}

/// A sender with an infinite backlog whose setup segment has been sent
/// at t=0 and acknowledged at `rtt`; returns it with data 1, 2 sent.
pub fn established(cfg: &TcpConfig, rtt: Time) -> TcpSender {
    let mut s = TcpSender::new(cfg);
    s.add_data(0, u64::MAX);
    assert_eq!(seqs(&drain(&mut s, 0)), vec![0]);
    let sent = ack_and_send(&mut s, rtt, ack(0));
    assert_eq!(sent, vec![1, 2]);
    s
}
