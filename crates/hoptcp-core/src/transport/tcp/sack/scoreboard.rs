//! The SACK sender's scoreboard (RFC 6675 section 4), in packets: which
//! packets above the cumulative ACK the receiver has SACKed, and the
//! queries RFC 6675 builds on them: IsLost, SetPipe's count and NextSeg's
//! candidates. One SMSS is one packet, so "DupThresh discontiguous SACKed
//! segments or more than (DupThresh - 1) SMSS SACKed" is "at least
//! DupThresh packets SACKed above".

use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub(in super::super) struct Scoreboard {
    /// Packet number of `sacked[0]`: the cumulative ACK + 1 (HighACK + 1).
    base: i64,
    /// SACKed flags from `base` up to the highest packet SACKed.
    sacked: VecDeque<bool>,
    /// How many of `sacked` are set.
    count: u32,
}

impl Scoreboard {
    pub fn new(cum_ack: i64) -> Self {
        Scoreboard { base: cum_ack + 1, sacked: VecDeque::new(), count: 0 }
    }

    /// Forget all SACK information (after an RTO: the receiver may renege).
    pub fn clear(&mut self) {
        self.sacked.clear();
        self.count = 0;
    }

    /// RFC 6675 Update(): slide to the cumulative ACK `cum_ack` and mark
    /// the `[left, right)` blocks, clipped to what was sent (`high_data`).
    /// Returns whether a packet not SACKed before is SACKed now.
    pub fn update(&mut self, cum_ack: i64, blocks: impl Iterator<Item = (i64, i64)>, high_data: i64) -> bool {
        while self.base <= cum_ack {
            if self.sacked.pop_front() == Some(true) {
                self.count -= 1;
            }
            self.base += 1;
        }
        let mut new = false;
        for (l, r) in blocks {
            for s in l.max(self.base)..r.min(high_data + 1) {
                let i = (s - self.base) as usize;
                if self.sacked.len() <= i {
                    self.sacked.resize(i + 1, false);
                }
                if !self.sacked[i] {
                    self.sacked[i] = true;
                    self.count += 1;
                    new = true;
                }
            }
        }
        new
    }

    pub fn is_sacked(&self, s: i64) -> bool {
        s >= self.base && self.sacked.get((s - self.base) as usize).copied().unwrap_or(false)
    }

    /// The highest packet SACKed, if any.
    pub fn highest_sacked(&self) -> Option<i64> {
        self.sacked.iter().rposition(|&b| b).map(|i| self.base + i as i64)
    }

    /// Packets SACKed above `s`.
    pub fn sacked_above(&self, s: i64) -> u32 {
        let from = (s + 1 - self.base).max(0) as usize;
        self.sacked.iter().skip(from).filter(|&&b| b).count() as u32
    }

    /// RFC 6675 IsLost(s).
    pub fn is_lost(&self, s: i64, dup_thresh: u32) -> bool {
        self.sacked_above(s) >= dup_thresh
    }

    /// RFC 6675 SetPipe(): for each packet from HighACK + 1 to `high_data`
    /// not SACKed, one if not lost (the original may still be in flight)
    /// and one more if it was retransmitted (at or below `high_rxt`).
    pub fn pipe(&self, high_data: i64, high_rxt: i64, dup_thresh: u32) -> u32 {
        let mut above = 0;
        let mut pipe = 0;
        let mut s = high_data;
        while s >= self.base {
            if self.is_sacked(s) {
                above += 1;
            } else {
                pipe += u32::from(above < dup_thresh) + u32::from(s <= high_rxt);
            }
            s -= 1;
        }
        pipe
    }

    /// The lowest packet above `after` that is not SACKed and lies below
    /// the highest SACKed packet, with (when `lost_only`) IsLost true: the
    /// candidate of NextSeg's rule 1 (`lost_only`) or rule 3.
    pub fn first_hole_above(&self, after: i64, lost_only: bool, dup_thresh: u32) -> Option<i64> {
        let top = self.highest_sacked()?;
        let start = (after + 1).max(self.base);
        let mut above = self.sacked_above(start - 1);
        let mut s = start;
        while s < top {
            if self.is_sacked(s) {
                above -= 1;
            } else if !lost_only || above >= dup_thresh {
                return Some(s);
            }
            s += 1;
        }
        None
    }

    /// The highest packet below `high_data` + 1 not SACKed (the rescue
    /// retransmission's candidate), if any above the cumulative ACK.
    pub fn highest_unsacked(&self, high_data: i64) -> Option<i64> {
        (self.base..=high_data).rev().find(|&s| !self.is_sacked(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(cum: i64, blocks: &[(i64, i64)], high: i64) -> Scoreboard {
        let mut b = Scoreboard::new(cum);
        b.update(cum, blocks.iter().copied(), high);
        b
    }

    #[test]
    fn update_marks_blocks_slides_and_reports_new_information() {
        let mut b = Scoreboard::new(0);
        assert!(b.update(0, [(3, 5)].into_iter(), 10));
        assert!(!b.update(0, [(3, 5)].into_iter(), 10), "nothing new");
        assert!(b.update(0, [(4, 6)].into_iter(), 10), "5 is new");
        assert!(!b.update(0, [(20, 30)].into_iter(), 10), "never sent: ignored");
        assert_eq!((b.is_sacked(2), b.is_sacked(3), b.is_sacked(5), b.is_sacked(6)), (false, true, true, false));
        // The cumulative ACK passes 3: 4 and 5 stay SACKed.
        assert!(!b.update(3, std::iter::empty(), 10));
        assert_eq!((b.sacked_above(3), b.highest_sacked()), (2, Some(5)));
        b.clear();
        assert_eq!(b.highest_sacked(), None);
    }

    /// RFC 6675 section 3's example, in packets: packets 1 to 10 sent, 1
    /// lost, 2 to 10 SACKed one by one; with DupThresh 3, packet 1 is lost
    /// once three packets above it are SACKed, and the pipe falls by one per
    /// SACKed packet.
    #[test]
    fn is_lost_needs_dupthresh_sacked_above() {
        let mut b = Scoreboard::new(0);
        for (n, s) in (2..=10).enumerate() {
            b.update(0, [(s, s + 1)].into_iter(), 10);
            assert_eq!(b.is_lost(1, 3), n + 1 >= 3, "after {} SACKed", n + 1);
        }
        // 1 lost and not retransmitted: nothing in flight.
        assert_eq!(b.pipe(10, 0, 3), 0);
        // Retransmitted (HighRxt = 1): one in flight.
        assert_eq!(b.pipe(10, 1, 3), 1);
    }

    /// A window of 12 with three holes (2, 5, 9): SetPipe counts the
    /// unSACKed packets that are not lost, plus the retransmissions.
    #[test]
    fn pipe_and_next_seg_candidates_with_three_holes() {
        // SACKed: 3 4 | 6 7 8 | 10 11 12; holes 2, 5, 9; cumulative ACK 1.
        let b = board(1, &[(3, 5), (6, 9), (10, 13)], 12);
        // Above 2: 8 SACKed; above 5: 6; above 9: 3 -> all three lost.
        assert!(b.is_lost(2, 3) && b.is_lost(5, 3) && b.is_lost(9, 3));
        assert_eq!(b.pipe(12, 1, 3), 0);
        // Two more packets sent after the holes were seen (13, 14): not lost.
        assert_eq!(b.pipe(14, 1, 3), 2);
        // Holes 2 and 5 retransmitted (HighRxt = 5): they count once each.
        assert_eq!(b.pipe(14, 5, 3), 4);
        // Rule 1: the first lost hole above HighRxt.
        assert_eq!(b.first_hole_above(1, true, 3), Some(2));
        assert_eq!(b.first_hole_above(2, true, 3), Some(5));
        assert_eq!(b.first_hole_above(5, true, 3), Some(9));
        assert_eq!(b.first_hole_above(9, true, 3), None);
        assert_eq!(b.highest_unsacked(14), Some(14));
        assert_eq!(b.highest_unsacked(12), Some(9));
    }

    #[test]
    fn a_hole_with_fewer_than_dupthresh_sacked_above_is_not_lost() {
        // SACKed 3..=6 and 8: hole 7 has one SACKed above it.
        let b = board(1, &[(3, 7), (8, 9)], 8);
        assert!(b.is_lost(2, 3));
        assert!(!b.is_lost(7, 3));
        // Rule 1 skips 7; rule 3 (not lost, below the highest SACKed) takes it.
        assert_eq!(b.first_hole_above(2, true, 3), None);
        assert_eq!(b.first_hole_above(2, false, 3), Some(7));
        // Pipe: 2 lost (0), 7 not lost (1).
        assert_eq!(b.pipe(8, 1, 3), 1);
    }
}
