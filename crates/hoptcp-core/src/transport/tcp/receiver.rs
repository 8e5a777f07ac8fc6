//! The TCP receiver (sink), after ns-2.35's `Agent/TCPSink` and
//! `Agent/TCPSink/DelAck`.
//!
//! It acknowledges cumulatively (the highest in-order packet), buffers
//! out-of-order packets, and answers each of them (and duplicates) with an
//! immediate ACK, which the sender sees as a duplicate ACK. With delayed
//! ACKs an in-order packet that leaves no hole above it may wait up to
//! `delayed_ack_timeout` for a second one; a gap-filling packet, the setup
//! segment, or anything arriving while an ACK is held is acknowledged at
//! once (RFC 2581 `RFC2581_immediate_ack_` and `SYN_immediate_ack_`, both
//! on in ns-2.35).
//!
//! ECN (RFC 3168): a CE mark on an ECT packet sets ECN-Echo on every ACK
//! until a packet carrying CWR arrives.

use super::config::TcpConfig;
use super::sack::blocks::{Held, SackSink};
use crate::engine::Time;
use crate::wire::TcpSegment;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TcpReceiverStats {
    /// Data packets delivered in order to the application (the setup
    /// segment and duplicates not counted).
    pub packets_delivered: u64,
    /// Their payload bytes.
    pub bytes_delivered: u64,
    /// Packets received that had been received before.
    pub duplicates: u64,
    pub acks_sent: u64,
}

/// What an ACK needs to know about the data packet it answers.
#[derive(Clone, Copy, Debug)]
struct Arrival {
    /// The packet's number, and whether it had been received before.
    seq: u64,
    dup: bool,
    ts: Time,
    ect: bool,
    ce: bool,
    cwr: bool,
}

#[derive(Clone, Debug)]
pub struct TcpReceiver {
    delayed_ack: bool,
    delack_interval: Time,
    /// Next packet expected in order.
    next: u64,
    /// Highest packet number seen (-1: none).
    maxseen: i64,
    /// Out-of-order buffer: `ooo[i]` holds the payload size of packet
    /// `next + i` once received (`ooo[0]` is always empty). Reused ring.
    ooo: VecDeque<Option<u32>>,
    /// ECN-Echo owed until CWR is seen.
    ecn_unacked: bool,
    /// Delayed-ACK state: the packet whose ACK is held and its deadline.
    held: Option<Arrival>,
    deadline: Option<Time>,
    out: VecDeque<TcpSegment>,
    /// SACK blocks on the ACKs (`tcp.sack`).
    sack: Option<SackSink>,
    stats: TcpReceiverStats,
}

impl TcpReceiver {
    pub fn new(cfg: &TcpConfig) -> Self {
        // Without a setup segment, data starts at 1: packet 0 counts as
        // received.
        let next = if cfg.syn { 0 } else { 1 };
        let mut ooo = VecDeque::with_capacity(cfg.max_window as usize + 2);
        ooo.push_back(None);
        TcpReceiver {
            delayed_ack: cfg.delayed_ack,
            delack_interval: cfg.delayed_ack_timeout,
            next,
            maxseen: next as i64 - 1,
            ooo,
            ecn_unacked: false,
            held: None,
            deadline: None,
            out: VecDeque::with_capacity(4),
            sack: cfg.sack.map(SackSink::new),
            stats: TcpReceiverStats::default(),
        }
    }

    /// A data (or setup) segment arrived; `ce` is the IP CE codepoint.
    /// ACK segments are ignored.
    pub fn on_segment(&mut self, now: Time, seg: &TcpSegment, ce: bool) {
        if seg.is_ack {
            return;
        }
        let seq = seg.seq;
        let dup = self.accept(seq, seg.payload_bytes);
        if dup {
            self.stats.duplicates += 1;
        }
        let arrival = Arrival { seq, dup, ts: seg.ts, ect: seg.ect, ce, cwr: seg.cwr };
        if self.delayed_ack {
            // An in-order packet with nothing buffered above it may wait.
            let in_order = self.next > 0 && seq == self.next - 1;
            if self.deadline.is_none() && in_order {
                let fills_gap = (seq as i64) < self.maxseen;
                if !fills_gap && seq != 0 {
                    self.held = Some(arrival);
                    self.deadline = Some(now + self.delack_interval);
                    return;
                }
            }
            self.deadline = None;
            let held = self.held.take();
            self.ack(arrival, held);
        } else {
            self.ack(arrival, None);
        }
    }

    /// Record packet `seq`; returns true if it was a duplicate.
    fn accept(&mut self, seq: u64, payload: u32) -> bool {
        if seq < self.next {
            return true;
        }
        let i = (seq - self.next) as usize;
        while self.ooo.len() <= i {
            self.ooo.push_back(None);
        }
        if self.ooo[i].is_some() {
            return true;
        }
        self.ooo[i] = Some(payload);
        self.maxseen = self.maxseen.max(seq as i64);
        while let Some(Some(bytes)) = self.ooo.front().copied() {
            self.ooo.pop_front();
            if self.next > 0 {
                // Packet 0 is the setup segment, not data.
                self.stats.packets_delivered += 1;
                self.stats.bytes_delivered += bytes as u64;
            }
            self.next += 1;
        }
        if self.ooo.is_empty() {
            self.ooo.push_back(None);
        }
        false
    }

    /// Queue a cumulative ACK answering `cur` (and the held packet, if an
    /// ACK for it was being delayed).
    fn ack(&mut self, cur: Arrival, held: Option<Arrival>) {
        let both = |f: fn(&Arrival) -> bool| f(&cur) || held.as_ref().is_some_and(f);
        if both(|a| a.cwr) {
            self.ecn_unacked = false;
        }
        if both(|a| a.ect && a.ce) {
            self.ecn_unacked = true;
        }
        let ece = both(|a| a.ect) && self.ecn_unacked;
        if self.next == 0 {
            // Nothing in order yet (the setup segment is missing): there is
            // no cumulative ACK to give.
            return;
        }
        let mut ack = TcpSegment { ece, ..TcpSegment::new_ack(self.next - 1, cur.ts) };
        if let Some(sink) = self.sack.as_mut() {
            let (ooo, next) = (&self.ooo, self.next);
            let above = |s: u64| s >= next && matches!(ooo.get((s - next) as usize), Some(Some(_)));
            let held = Held { cum: next as i64 - 1, maxseen: self.maxseen, above: &above };
            sink.fill(&mut ack, cur.seq, cur.dup, &held);
        }
        self.out.push_back(ack);
        self.stats.acks_sent += 1;
    }

    /// The next ACK to send now, if any; call until None.
    pub fn poll_transmit(&mut self, _now: Time) -> Option<TcpSegment> {
        self.out.pop_front()
    }

    /// Send a held ACK when its delay expires. Harmless when nothing is due.
    pub fn on_timer(&mut self, now: Time) {
        match self.deadline {
            Some(d) if now >= d => {
                self.deadline = None;
                if let Some(a) = self.held.take() {
                    self.ack(a, None);
                }
            }
            _ => {}
        }
    }

    /// Deadline of the delayed-ACK timer.
    pub fn next_timer(&self) -> Option<Time> {
        self.deadline
    }

    #[cfg(test)] // only the unit tests read it
    /// Next packet number expected in order.
    pub fn next_expected(&self) -> u64 {
        self.next
    }

    pub fn stats(&self) -> TcpReceiverStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;

    const MS: Time = NS_PER_MS;

    fn data(seq: u64) -> TcpSegment {
        TcpSegment {
            seq,
            syn: seq == 0,
            payload_bytes: if seq == 0 { 0 } else { 1000 },
            ts: seq * 7,
            ..Default::default()
        }
    }

    fn acks(r: &mut TcpReceiver, now: Time) -> Vec<u64> {
        let mut v = Vec::new();
        while let Some(a) = r.poll_transmit(now) {
            assert!(a.is_ack);
            assert_eq!(a.ip_bytes(), 40);
            v.push(a.ack);
        }
        v
    }

    #[test]
    fn in_order_out_of_order_and_duplicates() {
        let mut r = TcpReceiver::new(&TcpConfig::default());
        for s in [0, 1, 2] {
            r.on_segment(0, &data(s), false);
        }
        assert_eq!(acks(&mut r, 0), vec![0, 1, 2]);
        // 3 lost: 4 and 5 buffered, each answered by a duplicate ACK.
        r.on_segment(0, &data(4), false);
        r.on_segment(0, &data(5), false);
        assert_eq!(acks(&mut r, 0), vec![2, 2]);
        assert_eq!(r.stats().packets_delivered, 2);
        // A duplicate of a buffered packet and of a delivered one.
        r.on_segment(0, &data(5), false);
        r.on_segment(0, &data(1), false);
        assert_eq!(acks(&mut r, 0), vec![2, 2]);
        assert_eq!(r.stats().duplicates, 2);
        // 3 fills the hole: cumulative ACK jumps to 5.
        r.on_segment(0, &data(3), false);
        assert_eq!(acks(&mut r, 0), vec![5]);
        let st = r.stats();
        assert_eq!(st.packets_delivered, 5);
        assert_eq!(st.bytes_delivered, 5000);
        assert_eq!(st.acks_sent, 8);
        assert_eq!(r.next_expected(), 6);
    }

    #[test]
    fn ack_echoes_data_timestamp() {
        let mut r = TcpReceiver::new(&TcpConfig::default());
        r.on_segment(0, &data(0), false);
        r.on_segment(0, &data(1), false);
        let _ = r.poll_transmit(0);
        assert_eq!(r.poll_transmit(0).unwrap().ts, 7);
    }

    #[test]
    fn delayed_ack_every_second_packet_or_timeout() {
        let c = TcpConfig { delayed_ack: true, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(&c);
        // The setup segment is acknowledged at once.
        r.on_segment(0, &data(0), false);
        assert_eq!(acks(&mut r, 0), vec![0]);
        assert_eq!(r.next_timer(), None);
        // 1 is held, 2 releases a single ACK for both.
        r.on_segment(10 * MS, &data(1), false);
        assert!(acks(&mut r, 10 * MS).is_empty());
        assert_eq!(r.next_timer(), Some(110 * MS));
        r.on_segment(20 * MS, &data(2), false);
        assert_eq!(acks(&mut r, 20 * MS), vec![2]);
        assert_eq!(r.next_timer(), None);
        // 3 alone: ACKed when the 100 ms timer fires, not before.
        r.on_segment(30 * MS, &data(3), false);
        r.on_timer(129 * MS);
        assert!(acks(&mut r, 129 * MS).is_empty());
        r.on_timer(130 * MS);
        assert_eq!(acks(&mut r, 130 * MS), vec![3]);
        assert_eq!(r.next_timer(), None);
        r.on_timer(500 * MS); // stale: nothing
        assert!(acks(&mut r, 500 * MS).is_empty());
    }

    #[test]
    fn delayed_ack_immediate_on_out_of_order_and_gap_fill() {
        let c = TcpConfig { delayed_ack: true, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(&c);
        r.on_segment(0, &data(0), false);
        r.on_segment(0, &data(1), false); // held
        acks(&mut r, 0);
        // Out of order: immediate ACK (covering the held 1), timer off.
        r.on_segment(MS, &data(3), false);
        assert_eq!(acks(&mut r, MS), vec![1]);
        assert_eq!(r.next_timer(), None);
        r.on_segment(2 * MS, &data(4), false);
        assert_eq!(acks(&mut r, 2 * MS), vec![1]);
        // 2 fills the gap: immediate.
        r.on_segment(3 * MS, &data(2), false);
        assert_eq!(acks(&mut r, 3 * MS), vec![4]);
        // 6 arrives, then 5 fills the gap and releases 6: immediate.
        r.on_segment(4 * MS, &data(6), false);
        r.on_segment(5 * MS, &data(5), false);
        assert_eq!(acks(&mut r, 5 * MS), vec![4, 6]);
        // 7 is in order but 9 is buffered above a hole: immediate.
        r.on_segment(6 * MS, &data(9), false);
        r.on_segment(7 * MS, &data(7), false);
        assert_eq!(acks(&mut r, 7 * MS), vec![6, 7]);
        r.on_segment(8 * MS, &data(8), false);
        assert_eq!(acks(&mut r, 8 * MS), vec![9]);
        // 10 is in order with nothing above: held.
        r.on_segment(9 * MS, &data(10), false);
        assert!(acks(&mut r, 9 * MS).is_empty());
        assert_eq!(r.next_timer(), Some(109 * MS));
    }

    #[test]
    fn ecn_echo_until_cwr() {
        let c = TcpConfig { ecn: true, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(&c);
        let ect = |seq: u64| TcpSegment { ect: true, ..data(seq) };
        r.on_segment(0, &data(0), false);
        r.on_segment(0, &ect(1), false);
        r.on_segment(0, &ect(2), true); // CE
        r.on_segment(0, &ect(3), false);
        r.on_segment(0, &ect(4), false);
        let cwr5 = TcpSegment { cwr: true, ..ect(5) };
        r.on_segment(0, &cwr5, false);
        r.on_segment(0, &ect(6), false);
        let mut eces = Vec::new();
        while let Some(a) = r.poll_transmit(0) {
            eces.push(a.ece);
        }
        assert_eq!(eces, vec![false, false, true, true, true, false, false]);
        // CE on a non-ECT packet is not echoed (cannot happen on a real
        // network, but the echo follows ECT).
        r.on_segment(0, &data(7), true);
        assert!(!r.poll_transmit(0).unwrap().ece);
    }

    #[test]
    fn without_setup_segment_data_starts_at_one() {
        let c = TcpConfig { syn: false, ..TcpConfig::default() };
        let mut r = TcpReceiver::new(&c);
        r.on_segment(0, &data(1), false);
        r.on_segment(0, &data(2), false);
        assert_eq!(acks(&mut r, 0), vec![1, 2]);
        assert_eq!(r.stats().packets_delivered, 2);
    }

    #[test]
    fn no_ack_possible_before_setup_segment() {
        let mut r = TcpReceiver::new(&TcpConfig::default());
        r.on_segment(0, &data(2), false);
        assert!(r.poll_transmit(0).is_none());
        r.on_segment(0, &data(0), false);
        r.on_segment(0, &data(1), false);
        assert_eq!(acks(&mut r, 0), vec![0, 2]);
    }
}
