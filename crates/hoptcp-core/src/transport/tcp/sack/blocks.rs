//! The receiver's choice of SACK blocks (RFC 2018 section 4), and ns-2.35
//! `Agent/TCPSink/Sack1`'s (tcp-sink.cc `Sacker::append_ack`) for the
//! `ns2_sack1` profile. Blocks are `[left, right)` in packet numbers.

use super::SackProfile;
use crate::wire::{TcpSegment, MAX_SACK_BLOCKS};
use std::collections::VecDeque;

/// What the receiver holds, as the block builder needs it.
pub(in super::super) struct Held<'a> {
    /// The highest packet received in order (the cumulative ACK).
    pub cum: i64,
    /// The highest packet received.
    pub maxseen: i64,
    /// Whether a packet above `cum` is held.
    pub above: &'a dyn Fn(u64) -> bool,
}

impl Held<'_> {
    fn received(&self, s: i64) -> bool {
        s <= self.cum || (self.above)(s as u64)
    }

    /// The contiguous run of received packets holding `s` (> cum).
    fn run(&self, s: i64) -> (i64, i64) {
        let (mut l, mut r) = (s, s + 1);
        while l - 1 > self.cum && self.received(l - 1) {
            l -= 1;
        }
        while r <= self.maxseen && self.received(r) {
            r += 1;
        }
        (l, r)
    }
}

/// The blocks a SACK receiver reports, with the history they need.
#[derive(Clone, Debug)]
pub(in super::super) struct SackSink {
    profile: SackProfile,
    /// RFC 2018: one packet of each block reported first, most recent
    /// first (a block is reported again with its extent at that time).
    /// ns-2: the stack of first blocks as they were when reported.
    history: VecDeque<(i64, i64)>,
}

impl SackSink {
    pub fn new(profile: SackProfile) -> Self {
        SackSink { profile, history: VecDeque::with_capacity(MAX_SACK_BLOCKS + 1) }
    }

    /// Write the blocks for an ACK answering packet `seq` (`dup`: received
    /// before) into `ack`, and the option bytes they take.
    pub fn fill(&mut self, ack: &mut TcpSegment, seq: u64, dup: bool, held: &Held) {
        let mut out = [(0i64, 0i64); MAX_SACK_BLOCKS];
        let n = match self.profile {
            SackProfile::Rfc6675 => self.rfc2018(seq as i64, held, &mut out),
            SackProfile::Ns2Sack1 => self.ns2(seq as i64, dup, held, &mut out),
        };
        for &(l, r) in &out[..n] {
            ack.sack.push(ack.ack, l.max(0) as u64, r.max(0) as u64);
        }
        ack.option_bytes = match (self.profile, n) {
            (_, 0) => 0,
            // Kind, length and two NOPs, then 8 bytes a block.
            (SackProfile::Rfc6675, n) => 4 + 8 * n as u8,
            // ns-2 adds 8 bytes a block and nothing for the option header.
            (SackProfile::Ns2Sack1, n) => 8 * n as u8,
        };
    }

    /// RFC 2018: the first block holds the packet that triggered the ACK;
    /// then the most recently reported blocks not already included.
    fn rfc2018(&mut self, seq: i64, held: &Held, out: &mut [(i64, i64); MAX_SACK_BLOCKS]) -> usize {
        if held.cum >= held.maxseen {
            // Nothing held above the cumulative ACK: no blocks.
            self.history.clear();
            return 0;
        }
        if seq > held.cum {
            let first = held.run(seq);
            self.history.retain(|&(a, _)| a < first.0 || a >= first.1);
            self.history.push_front(first);
        }
        let mut n = 0;
        let mut kept = VecDeque::with_capacity(MAX_SACK_BLOCKS);
        for &(anchor, _) in self.history.iter() {
            if n == MAX_SACK_BLOCKS {
                break;
            }
            if anchor <= held.cum {
                continue; // now below the cumulative ACK
            }
            let b = held.run(anchor);
            if out[..n].iter().any(|&(l, r)| l <= b.0 && b.1 <= r) {
                continue;
            }
            out[n] = b;
            n += 1;
            kept.push_back((b.0, b.1));
        }
        self.history = kept;
        n
    }

    /// ns-2.35's Sacker: a stack of blocks as first reported.
    fn ns2(&mut self, seq: i64, dup: bool, held: &Held, out: &mut [(i64, i64); MAX_SACK_BLOCKS]) -> usize {
        let cum = held.cum;
        if cum >= held.maxseen {
            self.history.clear();
            return 0;
        }
        let _ = dup; // a duplicate above a hole is answered like any packet there
                     // The first hole at or above the packet, and the run below it.
        let mut right = seq.max(0);
        while right <= held.maxseen && held.received(right) {
            right += 1;
        }
        let mut n = 0;
        let recent = if seq <= cum {
            (0, right) // not reported; it only covers older blocks
        } else {
            let mut left = right - 1;
            while left > cum && held.received(left) {
                left -= 1;
            }
            out[0] = (left + 1, right);
            n = 1;
            (left + 1, right)
        };
        let mut k = 0;
        while n < MAX_SACK_BLOCKS && k < self.history.len() {
            let (l, r) = self.history[k];
            if r > held.maxseen + 1 {
                break;
            }
            if recent.0 <= l && recent.1 >= r {
                self.history.remove(k);
                continue;
            }
            out[n] = (l, r);
            n += 1;
            k += 1;
        }
        if seq > cum {
            self.history.truncate(MAX_SACK_BLOCKS - 1);
            self.history.push_front(recent);
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A receiver's holdings driven by hand: returns the blocks of the ACK
    /// each arrival triggers.
    struct Rx {
        sink: SackSink,
        got: BTreeSet<i64>,
        cum: i64,
    }

    impl Rx {
        fn new(p: SackProfile) -> Self {
            Rx { sink: SackSink::new(p), got: BTreeSet::new(), cum: 0 }
        }

        fn arrive(&mut self, s: i64) -> (Vec<(u64, u64)>, u8) {
            let dup = s <= self.cum || !self.got.insert(s);
            while self.got.remove(&(self.cum + 1)) {
                self.cum += 1;
            }
            let maxseen = self.got.iter().next_back().copied().unwrap_or(self.cum).max(self.cum);
            let got = self.got.clone();
            let above = move |x: u64| got.contains(&(x as i64));
            let held = Held { cum: self.cum, maxseen, above: &above };
            let mut ack = TcpSegment::new_ack(self.cum as u64, 0);
            self.sink.fill(&mut ack, s as u64, dup, &held);
            (ack.sack_blocks().collect(), ack.option_bytes)
        }
    }

    #[test]
    fn rfc2018_first_block_holds_the_new_packet_then_recent_ones() {
        // RFC 2018 section 5's second example, in packets: 1 received, 2, 4,
        // 6 and 8 lost; 3, 5, 7, 9 arrive.
        let mut rx = Rx::new(SackProfile::Rfc6675);
        assert_eq!(rx.arrive(1), (vec![], 0));
        assert_eq!(rx.arrive(3), (vec![(3, 4)], 12));
        assert_eq!(rx.arrive(5), (vec![(5, 6), (3, 4)], 20));
        assert_eq!(rx.arrive(7), (vec![(7, 8), (5, 6), (3, 4)], 28));
        // Three blocks at most: the oldest drops out.
        assert_eq!(rx.arrive(9).0, vec![(9, 10), (7, 8), (5, 6)]);
        // 4 joins 3 and 5: the first block is [3, 6), the others follow.
        assert_eq!(rx.arrive(4).0, vec![(3, 6), (9, 10), (7, 8)]);
        // 2 fills the first hole: cumulative ACK 5, no first block, the
        // recent blocks above it are repeated.
        assert_eq!(rx.arrive(2).0, vec![(9, 10), (7, 8)]);
        // A duplicate above the ACK is reported with its block.
        assert_eq!(rx.arrive(7).0, vec![(7, 8), (9, 10)]);
        // Everything in: no blocks.
        rx.arrive(6);
        assert_eq!(rx.arrive(8), (vec![], 0));
    }

    #[test]
    fn rfc2018_blocks_grow_as_packets_arrive() {
        let mut rx = Rx::new(SackProfile::Rfc6675);
        rx.arrive(1);
        assert_eq!(rx.arrive(3).0, vec![(3, 4)]);
        assert_eq!(rx.arrive(4).0, vec![(3, 5)]);
        assert_eq!(rx.arrive(5).0, vec![(3, 6)]);
        assert_eq!(rx.arrive(8).0, vec![(8, 9), (3, 6)]);
        // A packet arriving out of order within a hole joins two blocks.
        assert_eq!(rx.arrive(7).0, vec![(7, 9), (3, 6)]);
        assert_eq!(rx.arrive(6).0, vec![(3, 9)]);
    }

    #[test]
    fn ns2_sink_keeps_blocks_as_first_reported() {
        let mut rx = Rx::new(SackProfile::Ns2Sack1);
        rx.arrive(1);
        assert_eq!(rx.arrive(3), (vec![(3, 4)], 8));
        assert_eq!(rx.arrive(5), (vec![(5, 6), (3, 4)], 16));
        assert_eq!(rx.arrive(7), (vec![(7, 8), (5, 6), (3, 4)], 24));
        // The stack holds three: [9,10), [7,8), [5,6); [3,4) is gone.
        assert_eq!(rx.arrive(9).0, vec![(9, 10), (7, 8), (5, 6)]);
        // 4 joins 3 and 5 into [3, 6), which covers the stale [5, 6).
        assert_eq!(rx.arrive(4).0, vec![(3, 6), (9, 10), (7, 8)]);
        // 2 fills the first hole (ACK 5): the stale [3, 6), wholly below the
        // ACK now, is covered by the in-order run and dropped; the others
        // are repeated as first reported.
        assert_eq!(rx.arrive(2), (vec![(9, 10), (7, 8)], 16));
        // 8 arrives: [7, 10) covers both older blocks.
        assert_eq!(rx.arrive(8).0, vec![(7, 10)]);
    }
}
