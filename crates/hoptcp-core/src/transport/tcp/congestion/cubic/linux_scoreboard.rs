//! TCP-Linux's SACK scoreboard as ns-2.35 keeps it (tcp/scoreboard1.cc,
//! `ScoreBoard1`), for the `ns2_linux` CUBIC profile with `tcp.sack`
//! (`ns2_linux_sack.rs`). It is not RFC 6675's (`sack/scoreboard.rs`): it
//! marks loss the FACK way and remembers retransmissions.
//!
//! The board is a run of blocks from the cumulative ACK + 1 up to `fack`,
//! the highest packet SACKed so far; each block is in flight, SACKed, lost,
//! or a single retransmitted packet that records the next new packet
//! (`snd_nxt`) when it left and a retransmission number. On every ACK with
//! blocks (or while the board is not empty):
//! - the cumulative ACK removes what it covers; a retransmitted packet
//!   acknowledged raises `acked_rtx_id`, and then (or when `fack` grows)
//!   the whole board is walked ("thorough"), else only as far as the ACK's
//!   blocks reach;
//! - blocks at or above the cumulative ACK mark their packets SACKed;
//! - an in-flight packet at least 4 below `fack` is lost (`fack -
//!   (dupack_threshold + 1)`, the threshold fixed at 3); a retransmitted
//!   packet is lost again when `fack` reaches its `snd_nxt` or a packet
//!   retransmitted more than 4 later has been acknowledged;
//! - the next retransmission is the first lost block met on this walk (so
//!   a walk that stops early may find none, and new data goes instead).
//!
//! A timeout marks every packet not SACKed lost (SACK information is kept:
//! Linux does not clear it unless the receiver reneges). In flight is
//! `snd_nxt - snd_una - lost - SACKed`; a retransmission counts again.
//! Blocks are ns-2's linked nodes with stable identities here, so the
//! pointer to the next retransmission survives splits and merges as the
//! node it names does.

use std::collections::VecDeque;

/// What the scoreboard knows of a block of packets (ns-2 `SKB_FLAG_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mark {
    InFlight,
    Sacked,
    Lost,
    /// One packet, retransmitted and not yet known to have arrived.
    Retransmitted,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    id: u32,
    mark: Mark,
    seq: i64,
    /// The last packet of the block; for a retransmitted packet, the next
    /// new packet when it was retransmitted.
    nxt: i64,
    /// The retransmission's number (retransmitted packets only).
    rtx: i64,
}

impl Node {
    fn end(&self) -> i64 {
        if self.mark == Mark::Retransmitted {
            self.seq
        } else {
            self.nxt
        }
    }

    fn len(&self) -> i64 {
        self.end() + 1 - self.seq
    }

    fn set_mark(&mut self, mark: Mark) {
        if self.mark == Mark::Retransmitted {
            self.nxt = self.seq;
        }
        self.mark = mark;
    }
}

/// What an update found (ns-2 `FLAG_DATA_SACKED`, `FLAG_DATA_LOST`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Found {
    pub sacked: bool,
    pub lost: bool,
}

/// ns-2.35's `ScoreBoard1`.
#[derive(Clone, Debug)]
pub(super) struct Scoreboard1 {
    nodes: VecDeque<Node>,
    next_id: u32,
    /// The block the next retransmission is looked for from.
    next_rtx: Option<u32>,
    rtx_id: i64,
    acked_rtx_id: i64,
    /// The highest packet SACKed.
    fack: i64,
    /// Packets marked lost and not retransmitted since.
    lost: i64,
    sacked: i64,
}

/// `dupack_threshold + 1` with the threshold UpdateScoreBoard defaults to.
const FACK_GAP: i64 = 4;

impl Scoreboard1 {
    pub fn new() -> Self {
        Scoreboard1 {
            nodes: VecDeque::new(),
            next_id: 0,
            next_rtx: None,
            rtx_id: 0,
            acked_rtx_id: -1,
            fack: 0,
            lost: 0,
            sacked: 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// `ClearScoreBoard`.
    pub fn clear(&mut self) {
        let next_id = self.next_id;
        *self = Scoreboard1 { next_id, ..Scoreboard1::new() };
    }

    /// Packets in flight between `snd_una` and `snd_nxt` (exclusive).
    pub fn in_flight(&self, snd_una: i64, snd_nxt: i64) -> i64 {
        snd_nxt - snd_una - self.lost - self.sacked
    }

    fn node(&mut self, seq: i64, nxt: i64, mark: Mark) -> Node {
        self.next_id = self.next_id.wrapping_add(1);
        Node { id: self.next_id, mark, seq, nxt, rtx: 0 }
    }

    fn index(&self, id: u32) -> Option<usize> {
        self.nodes.iter().position(|n| n.id == id)
    }

    /// Split block `i` before `at`: it keeps `[seq, at - 1]`, a new block
    /// with its mark takes `[at, end]`.
    fn split(&mut self, i: usize, at: i64) {
        let (nxt, mark) = (self.nodes[i].nxt, self.nodes[i].mark);
        let tail = self.node(at, nxt, mark);
        self.nodes[i].nxt = at - 1;
        self.nodes.insert(i + 1, tail);
    }

    /// Block `i` takes in block `i + 1`.
    fn merge(&mut self, i: usize) {
        let next = self.nodes.remove(i + 1).expect("a block to merge");
        self.nodes[i].nxt = next.nxt;
        if self.next_rtx == Some(next.id) {
            self.next_rtx = Some(self.nodes[i].id);
        }
    }

    fn mergeable(&self, i: usize) -> bool {
        self.nodes.get(i + 1).is_some_and(|n| n.mark != Mark::Retransmitted && n.mark == self.nodes[i].mark)
    }

    /// `CleanRtxQueue`: drop what the cumulative ACK `last_ack` covers;
    /// true if a later retransmission than any before was acknowledged.
    fn clean(&mut self, last_ack: i64) -> bool {
        let mut changed = false;
        while let Some(h) = self.nodes.front_mut() {
            if last_ack < h.seq {
                break;
            }
            let whole = h.mark == Mark::Retransmitted || last_ack >= h.nxt;
            let n = if whole { h.len() } else { last_ack + 1 - h.seq };
            match h.mark {
                Mark::Sacked => self.sacked -= n,
                Mark::Lost => self.lost -= n,
                _ => {}
            }
            if !whole {
                h.seq = last_ack + 1;
                break;
            }
            let gone = self.nodes.pop_front().expect("the head");
            if gone.mark == Mark::Retransmitted && gone.rtx > self.acked_rtx_id {
                changed = true;
                self.acked_rtx_id = gone.rtx;
            }
            if self.next_rtx == Some(gone.id) {
                self.next_rtx = self.nodes.front().map(|n| n.id);
            }
        }
        changed
    }

    /// `UpdateScoreBoard` for an ACK of `last_ack` (the highest packet
    /// received in order) carrying `blocks` (`[left, right)`).
    pub fn update(&mut self, last_ack: i64, blocks: &[(i64, i64)]) -> Found {
        let mut found = Found::default();
        let mut thorough = self.clean(last_ack);
        if self.nodes.is_empty() {
            self.clear();
            thorough = false;
        }
        // D-SACK blocks (below the ACK) out, the rest by left edge.
        let mut sacks: Vec<(i64, i64)> = Vec::with_capacity(blocks.len());
        for &(l, r) in blocks {
            if l >= last_ack {
                let at = sacks.iter().position(|s| s.0 > l).unwrap_or(sacks.len());
                sacks.insert(at, (l, r));
            }
        }
        if !thorough && sacks.is_empty() {
            return found;
        }
        if let Some(&(_, r)) = sacks.last() {
            if self.fack < r - 1 {
                self.fack = r - 1;
                thorough = true;
            }
        }
        if self.nodes.is_empty() {
            let n = self.node(last_ack + 1, self.fack, Mark::InFlight);
            self.nodes.push_back(n);
        }
        self.next_rtx = None;
        let lost_below = self.fack - FACK_GAP;
        let (mut i, mut prev, mut k) = (0usize, None::<usize>, 0usize);
        while i < self.nodes.len() && (k < sacks.len() || thorough) {
            if self.nodes[i].mark != Mark::Sacked {
                while k < sacks.len() && sacks[k].1 <= self.nodes[i].seq {
                    k += 1;
                }
                if let Some(&(l, r)) = sacks.get(k) {
                    if l <= self.nodes[i].end() {
                        if l > self.nodes[i].seq {
                            self.split(i, l);
                        } else {
                            if r <= self.nodes[i].end() {
                                self.split(i, r);
                            }
                            let n = self.nodes[i].len();
                            match self.nodes[i].mark {
                                Mark::Lost => self.lost -= n,
                                Mark::Retransmitted => {
                                    self.acked_rtx_id = self.nodes[i].rtx;
                                    thorough = true;
                                }
                                _ => {}
                            }
                            self.sacked += n;
                            found.sacked = true;
                            self.nodes[i].set_mark(Mark::Sacked);
                        }
                    }
                }
                if sacks.get(k).is_none_or(|s| s.0 > self.nodes[i].end()) {
                    self.mark_if_lost(i, lost_below, &mut found);
                }
            }
            let p = match prev {
                Some(p) if self.mergeable(p) => {
                    self.merge(p);
                    p
                }
                _ => i,
            };
            prev = Some(p);
            if p + 1 == self.nodes.len() && self.nodes[p].end() < self.fack {
                let tail = self.node(self.nodes[p].end() + 1, self.fack, Mark::InFlight);
                self.nodes.push_back(tail);
            }
            i = p + 1;
        }
        found
    }

    /// The loss tests of the walk for block `i`, past the ACK's blocks.
    fn mark_if_lost(&mut self, i: usize, lost_below: i64, found: &mut Found) {
        let n = self.nodes[i];
        match n.mark {
            Mark::Retransmitted if n.nxt <= self.fack || n.rtx + FACK_GAP < self.acked_rtx_id => {
                self.nodes[i].set_mark(Mark::Lost);
                self.lost += 1;
                found.lost = true;
            }
            Mark::InFlight if n.seq <= lost_below => {
                if lost_below < n.end() {
                    self.split(i, lost_below + 1);
                }
                self.nodes[i].set_mark(Mark::Lost);
                self.lost += self.nodes[i].len();
                found.lost = true;
            }
            Mark::Lost => {}
            _ => return,
        }
        if self.nodes[i].mark == Mark::Lost {
            self.next_rtx.get_or_insert(self.nodes[i].id);
        }
    }

    /// `MarkLoss` at a timeout: every packet from `snd_una` to `snd_nxt -
    /// 1` not SACKed is lost; retransmission numbers start again.
    pub fn mark_loss(&mut self, snd_una: i64, snd_nxt: i64) {
        self.next_rtx = None;
        let (mut i, mut prev, mut last_lost) = (0usize, None::<usize>, false);
        while i < self.nodes.len() {
            if self.nodes[i].mark != Mark::Sacked {
                if self.nodes[i].mark != Mark::Lost {
                    self.lost += self.nodes[i].len();
                }
                self.nodes[i].set_mark(Mark::Lost);
                match prev {
                    Some(p) if last_lost => {
                        self.merge(p);
                        i = p;
                    }
                    _ => {
                        self.next_rtx.get_or_insert(self.nodes[i].id);
                    }
                }
                last_lost = true;
            } else {
                last_lost = false;
            }
            prev = Some(i);
            i += 1;
            let end = self.nodes[i - 1].end();
            if i == self.nodes.len() && end + 1 < snd_nxt {
                let tail = self.node(end + 1, snd_nxt - 1, Mark::InFlight);
                self.nodes.push_back(tail);
            }
        }
        if prev.is_none() && snd_una < snd_nxt {
            let all = self.node(snd_una, snd_nxt - 1, Mark::Lost);
            self.next_rtx = Some(all.id);
            self.nodes.push_back(all);
            self.lost += snd_nxt - snd_una;
        }
        self.rtx_id = 0;
        self.acked_rtx_id = -1;
    }

    /// `GetNextRetran`: the first lost packet from the pointer on.
    pub fn next_retransmission(&mut self) -> Option<i64> {
        let mut i = self.next_rtx.and_then(|id| self.index(id))?;
        while self.nodes[i].mark != Mark::Lost {
            i += 1;
            let Some(n) = self.nodes.get(i) else {
                self.next_rtx = None;
                return None;
            };
            self.next_rtx = Some(n.id);
        }
        Some(self.nodes[i].seq)
    }

    /// `MarkRetran`: packet `seq` (the one [`Self::next_retransmission`]
    /// returned) leaves again while `snd_nxt` is the next new packet.
    pub fn mark_retransmitted(&mut self, seq: i64, snd_nxt: i64) {
        let i = self.next_rtx.and_then(|id| self.index(id)).expect("a retransmission the board chose");
        debug_assert_eq!(self.nodes[i].seq, seq);
        self.lost -= 1;
        if self.nodes[i].nxt > self.nodes[i].seq {
            self.split(i, self.nodes[i].seq + 1);
        }
        let n = &mut self.nodes[i];
        n.mark = Mark::Retransmitted;
        n.nxt = snd_nxt;
        n.rtx = self.rtx_id;
        self.rtx_id += 1;
    }

    #[cfg(test)]
    /// The blocks as (mark, first, last).
    pub fn blocks(&self) -> Vec<(Mark, i64, i64)> {
        self.nodes.iter().map(|n| (n.mark, n.seq, n.end())).collect()
    }

    #[cfg(test)]
    pub fn counts(&self) -> (i64, i64, i64) {
        (self.fack, self.lost, self.sacked)
    }
}

#[cfg(test)]
mod tests {
    use super::Mark::*;
    use super::*;

    #[test]
    fn a_packet_is_lost_once_fack_is_four_above_it() {
        let mut b = Scoreboard1::new();
        // Cumulative ACK 100; 101 missing, 102..=104 SACKed: fack 104, not yet.
        for r in 103..=105 {
            let f = b.update(100, &[(102, r)]);
            assert_eq!(f, Found { sacked: true, lost: false }, "SACK up to {}", r - 1);
        }
        assert_eq!(b.blocks(), vec![(InFlight, 101, 101), (Sacked, 102, 104)]);
        assert_eq!(b.next_retransmission(), None);
        // The fourth: fack 105, 101 <= 105 - 4.
        assert_eq!(b.update(100, &[(102, 106)]), Found { sacked: true, lost: true });
        assert_eq!(b.blocks(), vec![(Lost, 101, 101), (Sacked, 102, 105)]);
        assert_eq!(b.counts(), (105, 1, 4));
        assert_eq!(b.in_flight(101, 110), 9 - 1 - 4, "106..=109 and nothing of 101");
        assert_eq!(b.next_retransmission(), Some(101));
    }

    #[test]
    fn ns2s_own_walkthrough_holes_retransmissions_and_fack() {
        // The first steps of scoreboard1.cc's test(), expectations by hand.
        let mut b = Scoreboard1::new();
        b.update(1, &[(4, 5)]);
        assert_eq!(b.blocks(), vec![(InFlight, 2, 3), (Sacked, 4, 4)]);
        // fack 7: everything at or below 3 is lost; 5 and 6 are not.
        let f = b.update(1, &[(7, 8)]);
        assert!(f.lost && f.sacked);
        assert_eq!(b.blocks(), vec![(Lost, 2, 3), (Sacked, 4, 4), (InFlight, 5, 6), (Sacked, 7, 7)]);
        assert_eq!(b.next_retransmission(), Some(2));
        b.mark_retransmitted(2, 8);
        assert_eq!(b.blocks()[..2], [(Retransmitted, 2, 2), (Lost, 3, 3)]);
        assert_eq!(b.in_flight(2, 8), 6 - 1 - 2, "2 (again), 5, 6");
        assert_eq!(b.next_retransmission(), Some(3));
        // fack 9 >= the snd_nxt (8) of 2's retransmission: lost again, and
        // 5 (<= 9 - 4) too; 8 stays in flight.
        let f = b.update(1, &[(9, 10)]);
        assert!(f.lost);
        assert_eq!(
            b.blocks(),
            vec![
                (Lost, 2, 3),
                (Sacked, 4, 4),
                (Lost, 5, 5),
                (InFlight, 6, 6),
                (Sacked, 7, 7),
                (InFlight, 8, 8),
                (Sacked, 9, 9)
            ]
        );
        assert_eq!(b.counts(), (9, 3, 3));
        assert_eq!(b.next_retransmission(), Some(2));
        // In order: 2, 3, then 5.
        b.mark_retransmitted(2, 10);
        assert_eq!(b.next_retransmission(), Some(3));
        b.mark_retransmitted(3, 10);
        assert_eq!(b.next_retransmission(), Some(5));
        b.mark_retransmitted(5, 10);
        assert_eq!(b.next_retransmission(), None);
        assert_eq!(b.in_flight(2, 10), 8 - 3, "none lost, 3 SACKed");
    }

    #[test]
    fn an_acknowledged_later_retransmission_marks_an_earlier_one_lost() {
        let mut b = Scoreboard1::new();
        // 1..=10 missing under a SACK of 11..=20: all ten lost (<= 20 - 4).
        b.update(0, &[(11, 21)]);
        assert_eq!(b.blocks()[0], (Lost, 1, 10));
        for s in 1..=10 {
            assert_eq!(b.next_retransmission(), Some(s));
            b.mark_retransmitted(s, 21);
        }
        // The retransmissions of 2..=10 (numbers 1..=9) arrive, that of 1
        // does not. One pass walks 1 before it sees them: not yet lost.
        let f = b.update(0, &[(2, 11), (11, 21)]);
        assert!(f.sacked && !f.lost);
        assert_eq!(b.blocks(), vec![(Retransmitted, 1, 1), (Sacked, 2, 20)]);
        // The next ACK: number 9 acknowledged > 0 + 4, so 1 is lost again.
        let f = b.update(0, &[(2, 21)]);
        assert!(f.lost);
        assert_eq!(b.blocks()[0], (Lost, 1, 1));
        assert_eq!(b.next_retransmission(), Some(1));
    }

    #[test]
    fn the_cumulative_ack_cleans_and_an_empty_board_is_cleared() {
        let mut b = Scoreboard1::new();
        b.update(10, &[(15, 20)]);
        assert_eq!(b.counts(), (19, 4, 5));
        // ACK 16: 11..=14 (lost) and 15, 16 (SACKed) leave the board.
        b.update(16, &[(17, 20)]);
        assert_eq!(b.blocks(), vec![(Sacked, 17, 19)]);
        assert_eq!(b.counts(), (19, 0, 3));
        b.update(19, &[]);
        assert!(b.is_empty());
        assert_eq!(b.counts(), (0, 0, 0), "fack too");
    }

    #[test]
    fn a_timeout_marks_everything_not_sacked_lost_in_one_run_each() {
        let mut b = Scoreboard1::new();
        b.update(100, &[(104, 106)]);
        assert_eq!(
            b.blocks(),
            vec![(Lost, 101, 101), (InFlight, 102, 103), (Sacked, 104, 105)],
            "FACK: 101 <= 105 - 4"
        );
        b.mark_loss(101, 110);
        assert_eq!(b.blocks(), vec![(Lost, 101, 103), (Sacked, 104, 105), (Lost, 106, 109)]);
        assert_eq!(b.counts().1, 7);
        assert_eq!(b.in_flight(101, 110), 0);
        let order: Vec<i64> = std::iter::from_fn(|| {
            let s = b.next_retransmission()?;
            b.mark_retransmitted(s, 110);
            Some(s)
        })
        .collect();
        assert_eq!(order, vec![101, 102, 103, 106, 107, 108, 109], "the SACKed ones skipped");
        // An empty board: one lost run.
        let mut e = Scoreboard1::new();
        e.mark_loss(5, 9);
        assert_eq!(e.blocks(), vec![(Lost, 5, 8)]);
        assert_eq!(e.next_retransmission(), Some(5));
    }
}
