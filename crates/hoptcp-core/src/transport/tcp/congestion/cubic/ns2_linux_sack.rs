//! TCP-Linux's loss recovery with SACK: the `ns2_linux` CUBIC profile with
//! `tcp.sack`, ns-2.35's `Agent/TCP/Linux` + `select_ca cubic` behind
//! `Agent/TCPSink/Sack1` without timestamps (tcp/tcp-linux.cc `recv`,
//! `tcp_fastretrans_alert`, `enter_loss`, `timeout`, `send_much`; the
//! scoreboard in `linux_scoreboard.rs`). CUBIC's arithmetic and slow start
//! are `ns2_linux.rs`'s; what SACK adds:
//! - Three states: Open, Recovery and Loss (TCP-Linux has no Disorder and
//!   no CWR state, and no undo). Every ACK with SACK blocks, or while the
//!   scoreboard holds anything, updates the scoreboard; an ACK in Open or
//!   Loss on which it marks a packet lost starts Recovery: recover =
//!   highest sent, ssthresh from the module (beta 819/1024, W_max, fast
//!   convergence; the epoch ends), cwnd = ssthresh at once. The scoreboard
//!   marks loss the FACK way: a packet 4 or more below the highest SACKed
//!   one, so a single loss is found on the fourth duplicate ACK.
//! - What leaves: while in flight (`snd_nxt - snd_una - lost - SACKed`) is
//!   below max(cwnd, `next_pkts_in_flight_`), the scoreboard's next lost
//!   packet, else new data (no receiver-window test: cwnd is clamped to it
//!   instead). Entering Recovery sets `next_pkts_in_flight_` to the old
//!   cwnd; every send lowers it to in flight - 1 and each call starts by
//!   lowering it to in flight + 1: TCP-Linux's rate halving, one packet per
//!   two ACKs until in flight is below the cut cwnd.
//! - No growth in Recovery; in Open (also on ACKs that SACK) and in Loss
//!   the module grows cwnd on every ACK of new data, from the in flight
//!   before the ACK.
//! - The ACK reaching `recover` ends Recovery or Loss: the scoreboard is
//!   cleared, cwnd is raised to ssthresh if below it and then moderated to
//!   at most in flight + 3; rate halving stops.
//! - A timeout (in any state): the module's ssthresh, cwnd 1, CUBIC reset
//!   (Loss), recover = highest sent, the timer backed off, and the
//!   scoreboard marks everything not SACKed lost, which is sent again in
//!   order, SACKed packets skipped (no go-back-N: the next new packet stays
//!   where it was). A lost packet found during Loss starts Recovery, with
//!   another cut.
//! - Every ACK re-arms the retransmission timer (duplicates too); RTT
//!   timing is one segment at a time, cancelled only by a timeout.
//!
//! ns-2's traced `cwnd_` during rate halving is `next_pkts_in_flight_`
//! when that is the larger; hoptcp's cwnd reports the same.

use super::super::super::sack::SackStats;
use super::super::super::state::{CwndAction, SenderState};
use super::super::{Ack, Controller};
use super::linux_scoreboard::Scoreboard1;
use super::ns2_linux::Ns2LinuxCubic;
use crate::engine::Time;

/// `tcp_max_burst`: leaving recovery, cwnd <= in flight + 3.
const MAX_BURST: i64 = 3;

/// TCP-Linux's congestion states (`icsk_ca_state`) that ns-2.35 uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CaState {
    Open,
    Recovery,
    Loss,
}

/// ns-2.35's TCP-Linux with tcp_cubic.c behind a SACK sink.
#[derive(Clone, Debug)]
pub struct Ns2LinuxSackCubic {
    linux: Ns2LinuxCubic,
    board: Scoreboard1,
    state: CaState,
    /// `next_pkts_in_flight_`: what rate halving still allows (0: off).
    next_pkts: i64,
    stats: SackStats,
}

impl Ns2LinuxSackCubic {
    pub fn new(state: &SenderState) -> Self {
        Ns2LinuxSackCubic {
            linux: Ns2LinuxCubic::new(state),
            board: Scoreboard1::new(),
            state: CaState::Open,
            next_pkts: 0,
            stats: SackStats::default(),
        }
    }

    /// `packets_in_flight()`.
    fn in_flight(&self, core: &SenderState) -> i64 {
        self.board.in_flight(core.highest_ack + 1, core.t_seqno)
    }

    /// `save_from_linux`: ns-2's cwnd_ is the rate-halving allowance while
    /// that is above cwnd.
    fn store(&self, core: &mut SenderState) {
        self.linux.store(core);
        if self.next_pkts > self.linux.snd_cwnd as i64 {
            core.cwnd = self.next_pkts as f64;
        }
    }

    /// `tcp_fastretrans_alert`, `lost`: the scoreboard marked a packet lost.
    fn alert(&mut self, core: &mut SenderState, lost: bool) {
        if self.state != CaState::Open && core.highest_ack >= core.recover {
            self.board.clear();
            let l = &mut self.linux;
            if l.snd_cwnd < l.ssthresh {
                let in_flight = core.t_seqno - core.highest_ack - 1;
                l.snd_cwnd = (l.ssthresh as i64).min(in_flight + MAX_BURST) as u32;
            }
            if self.state == CaState::Recovery {
                self.stats.recoveries_completed += 1;
            }
            self.state = CaState::Open;
            self.next_pkts = 0;
            return;
        }
        if self.state == CaState::Recovery || !lost {
            return;
        }
        core.recover = core.maxseq;
        core.last_action = CwndAction::Dupack;
        let l = &mut self.linux;
        self.next_pkts = l.snd_cwnd as i64;
        l.ssthresh = l.ca.recalc_ssthresh(l.snd_cwnd);
        l.snd_cwnd_cnt = 0;
        l.acked_since = 0;
        l.snd_cwnd = l.ssthresh;
        core.fast_retransmits += 1;
        self.stats.recoveries += 1;
        self.state = CaState::Recovery;
    }
}

impl Controller for Ns2LinuxSackCubic {
    fn on_ack(&mut self, core: &mut SenderState, a: &Ack) {
        self.on_sack_ack(core, a, &[]);
    }

    fn on_dupack(&mut self, core: &mut SenderState, a: &Ack) {
        self.on_sack_ack(core, a, &[]);
    }

    fn own_sack(&self) -> bool {
        true
    }

    /// TCP-Linux's `recv` for an ACK at or above the highest so far.
    fn on_sack_ack(&mut self, core: &mut SenderState, a: &Ack, blocks: &[(i64, i64)]) {
        let prior_in_flight = self.in_flight(core);
        let acked = (a.ack - core.highest_ack).max(0) as u32;
        if acked > 0 {
            self.linux.acked_since = self.linux.acked_since.saturating_add(acked);
            core.newack(a.now, a.ack, a.ece);
        } else {
            core.arm_rtx(a.now);
        }
        let mut found = Default::default();
        if !blocks.is_empty() || !self.board.is_empty() {
            found = self.board.update(core.highest_ack, blocks);
        }
        if acked > 0 {
            self.linux.ca.acked(acked, self.state == CaState::Open);
        }
        let dubious = acked == 0 || found.sacked || self.state != CaState::Open;
        if acked > 0 && self.state != CaState::Recovery {
            self.linux.cong_avoid(prior_in_flight, a.now);
        }
        if dubious {
            self.alert(core, found.lost);
        }
        self.store(core);
    }

    fn on_timeout(&mut self, core: &mut SenderState, now: Time) {
        self.next_pkts = 0;
        if !core.outstanding() {
            self.linux.idle_restart(core);
            return;
        }
        self.linux.enter_loss(core);
        self.state = CaState::Loss;
        self.board.mark_loss(core.highest_ack + 1, core.t_seqno);
        // Mild: the next new packet stays; the scoreboard says what to resend.
        core.reset_rtx_timer(now, true, core.timeout_backoff);
        self.store(core);
    }

    /// One step of TCP-Linux's `send_much`.
    fn next_segment(&mut self, core: &mut SenderState) -> Option<i64> {
        let in_flight = self.in_flight(core);
        self.next_pkts = self.next_pkts.min(in_flight + 1);
        if in_flight >= (self.linux.snd_cwnd as i64).max(self.next_pkts) {
            return None;
        }
        let seq = match self.board.next_retransmission() {
            Some(s) => {
                self.board.mark_retransmitted(s, core.t_seqno);
                s
            }
            None if core.has_data(core.t_seqno) => {
                core.t_seqno += 1;
                core.t_seqno - 1
            }
            None => return None,
        };
        self.next_pkts = self.next_pkts.min((self.in_flight(core) - 1).max(1));
        Some(seq)
    }

    fn on_ecn(&mut self, _core: &mut SenderState, _ack: i64) {
        // The scenario refuses tcp.ecn with this profile.
    }

    fn send_budget(&self, _core: &SenderState) -> Option<u32> {
        None
    }

    fn sack_stats(&self) -> Option<SackStats> {
        Some(self.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_MS;

    const MS: Time = NS_PER_MS;

    /// Congestion avoidance at cwnd 20 after an earlier loss at W_max 20:
    /// 101..=120 in flight, everything to 100 acknowledged.
    fn sender() -> (SenderState, Ns2LinuxSackCubic) {
        let (s, linux) = super::super::ns2_linux::tests::sender(20, 10);
        let mut c = Ns2LinuxSackCubic::new(&s);
        c.linux = linux;
        c.linux.ca.last_max_cwnd = 20;
        c.linux.ca.loss_cwnd = 20;
        (s, c)
    }

    /// An ACK of `ack` with `blocks` at `now`, then everything it lets out.
    fn ack(c: &mut Ns2LinuxSackCubic, s: &mut SenderState, now: Time, ack: i64, blocks: &[(i64, i64)]) -> Vec<i64> {
        c.on_sack_ack(s, &Ack { now, ack, ece: false, rtt: None }, blocks);
        std::iter::from_fn(|| {
            let seq = c.next_segment(s)?;
            s.maxseq = s.maxseq.max(seq);
            Some(seq)
        })
        .collect()
    }

    #[test]
    fn recovery_starts_when_the_scoreboard_marks_a_loss_on_the_fourth_sack() {
        let (mut s, mut c) = sender();
        // 101 is lost: 102, 103, 104 arrive; each SACK lets one new packet out.
        assert_eq!(ack(&mut c, &mut s, 1000 * MS, 100, &[(102, 103)]), vec![121]);
        assert_eq!(ack(&mut c, &mut s, 1001 * MS, 100, &[(102, 104)]), vec![122]);
        assert_eq!(ack(&mut c, &mut s, 1002 * MS, 100, &[(102, 105)]), vec![123]);
        assert_eq!((c.state, s.fast_retransmits, c.linux.snd_cwnd), (CaState::Open, 0, 20), "no loss yet");
        // 105: the highest SACKed is 4 above 101. Recovery: ssthresh = cwnd = 20 * 819 / 1024.
        let sent = ack(&mut c, &mut s, 1003 * MS, 100, &[(102, 106)]);
        assert_eq!(c.state, CaState::Recovery);
        assert_eq!((c.linux.ssthresh, c.linux.snd_cwnd), (15, 15));
        assert_eq!((s.recover, s.fast_retransmits, c.stats.recoveries), (123, 1, 1));
        assert_eq!((c.linux.ca.last_max_cwnd, c.linux.ca.loss_cwnd, c.linux.ca.epoch_start), (20, 20, 0));
        // In flight: 124 - 101 - 1 lost - 4 SACKed = 18. Rate halving allows
        // 19 (in flight + 1, below the old cwnd 20): the hole alone leaves.
        assert_eq!(sent, vec![101]);
        assert_eq!(c.next_pkts, 18);
        assert_eq!(s.cwnd, 20.0, "ns-2's cwnd_ is the allowance (the old cwnd) while above cwnd");
    }

    #[test]
    fn rate_halving_one_packet_per_two_acks_down_to_the_cut_window_then_exit() {
        let (mut s, mut c) = sender();
        for (i, r) in (103..=106).enumerate() {
            ack(&mut c, &mut s, (1000 + i as Time) * MS, 100, &[(102, r)]);
        }
        // 106..=123 arrive one by one (101's retransmission later):
        // (SACK right edge, packets sent, traced cwnd).
        let mut trail = Vec::new();
        for (i, r) in (107..=124).enumerate() {
            let sent = ack(&mut c, &mut s, (1010 + i as Time) * MS, 100, &[(102, r)]);
            trail.push((r, sent, s.cwnd as i64));
        }
        let sends: Vec<usize> = trail.iter().map(|t| t.1.len()).collect();
        // In flight falls by one per ACK from 18: a send every other ACK
        // (18 -> 17 -> 16 ... allowance 18, 17, ...) until in flight < 15,
        // then one per ACK holds it at cwnd 15.
        assert_eq!(sends[..6], [0, 1, 0, 1, 0, 1]);
        assert!(sends[8..].iter().all(|&n| n == 1), "{trail:?}");
        assert_eq!(trail.iter().flat_map(|t| t.1.clone()).next(), Some(124), "new data: 101 went already");
        assert_eq!(trail.last().unwrap().2, 15);
        let in_flight = c.in_flight(&s);
        assert_eq!(in_flight, 15);
        assert_eq!((c.linux.snd_cwnd, c.state), (15, CaState::Recovery), "no growth in recovery");
        // 101 arrives: the ACK covers 123 = recover. Recovery ends with cwnd
        // at ssthresh; the scoreboard is empty; growth resumes on the curve.
        let top = s.t_seqno - 1;
        ack(&mut c, &mut s, 1100 * MS, top, &[]);
        assert_eq!((c.state, c.linux.snd_cwnd, c.next_pkts), (CaState::Open, 15, 0));
        assert!(c.board.is_empty());
        assert_eq!(c.stats.recoveries_completed, 1);
        assert_eq!(s.timeouts, 0);
        // 15 new packets left; at cwnd == ssthresh one slow-start step, then
        // the epoch starts below W_max 20 (loss_cwnd set: not the 50-ACK mode).
        ack(&mut c, &mut s, 1101 * MS, top + 1, &[]);
        assert_eq!(c.linux.snd_cwnd, 16);
        ack(&mut c, &mut s, 1102 * MS, top + 2, &[]);
        assert_eq!((c.linux.ca.origin_point, c.linux.ca.loss_cwnd), (20, 20));
        assert!(c.linux.ca.k > 0);
        assert_ne!(c.linux.ca.cnt, 50 * 16 / 31);
    }

    #[test]
    fn a_partial_ack_keeps_recovery_and_the_next_hole_is_retransmitted() {
        let (mut s, mut c) = sender();
        // 101 and 106 lost; 102..=105 and 107..=110 SACKed.
        for (i, r) in (103..=106).enumerate() {
            ack(&mut c, &mut s, (1000 + i as Time) * MS, 100, &[(102, r)]);
        }
        assert_eq!(c.state, CaState::Recovery);
        let mut sent = Vec::new();
        for (i, r) in (108..=111).enumerate() {
            sent.extend(ack(&mut c, &mut s, (1010 + i as Time) * MS, 100, &[(107, r), (102, 106)]));
        }
        // Rate halving lets one new packet out; once 110 is SACKed, 106 (<=
        // 110 - 4) is lost and goes next.
        assert_eq!(sent, vec![124, 106]);
        // 101 arrives: ACK 105, a partial ACK, then 106's: the rest.
        ack(&mut c, &mut s, 1050 * MS, 105, &[(107, 111)]);
        assert_eq!((c.state, c.linux.snd_cwnd), (CaState::Recovery, 15));
        assert_eq!(c.stats.recoveries, 1, "one cut for both holes");
        let recover = s.recover;
        ack(&mut c, &mut s, 1060 * MS, recover, &[]);
        assert_eq!(c.state, CaState::Open);
        assert_eq!((s.fast_retransmits, s.timeouts), (1, 0));
    }

    #[test]
    fn a_timeout_resends_what_is_not_sacked_in_order_and_leaving_loss_moderates() {
        let (mut s, mut c) = sender();
        // 104 SACKed (fack 104: nothing lost yet), one new packet out.
        assert_eq!(ack(&mut c, &mut s, 1000 * MS, 100, &[(104, 105)]), vec![121]);
        assert_eq!(c.state, CaState::Open);
        let t_seqno = s.t_seqno;
        c.on_timeout(&mut s, 2000 * MS);
        assert_eq!((c.state, c.linux.snd_cwnd, c.linux.ssthresh), (CaState::Loss, 1, 20 * 819 / 1024));
        assert_eq!(c.linux.ca.last_max_cwnd, 0, "Loss resets CUBIC");
        assert_eq!((s.t_seqno, s.recover, s.timeouts), (t_seqno, 121, 1), "no go-back-N");
        // cwnd 1, nothing in flight (all 20 not SACKed are lost): the first hole.
        let out = std::iter::from_fn(|| c.next_segment(&mut s)).collect::<Vec<_>>();
        assert_eq!(out, vec![101]);
        // Its ACK: slow start to 2, the next holes below the SACKed 104.
        let out = ack(&mut c, &mut s, 2100 * MS, 101, &[(104, 105)]);
        assert_eq!((c.linux.snd_cwnd, out), (2, vec![102, 103]));
        // Theirs: ACK 104 (104 was SACKed), cwnd 3; 105.. are next, in order.
        let out = ack(&mut c, &mut s, 2200 * MS, 104, &[]);
        assert_eq!((c.linux.snd_cwnd, out), (3, vec![105, 106, 107]));
        assert_eq!(c.state, CaState::Loss);
        // The originals of 105..=121 arrive after all: the ACK reaching recover
        // ends Loss, slow start took cwnd to 4, raised to ssthresh 15 and
        // moderated to in flight (0) + 3.
        ack(&mut c, &mut s, 2300 * MS, 121, &[]);
        assert_eq!((c.state, c.linux.snd_cwnd), (CaState::Open, 3));
        assert_eq!((c.stats.recoveries, s.fast_retransmits), (0, 0));
    }
}
