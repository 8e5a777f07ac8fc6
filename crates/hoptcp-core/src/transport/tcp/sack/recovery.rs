//! SACK-based loss recovery, driven by the sender: RFC 6675 (`rfc6675`)
//! or ns-2.35's `Agent/TCP/Sack1` (`ns2_sack1`); `mod.rs` lists how the two
//! differ. The sender hands every ACK to [`SackRecovery::on_ack`] instead
//! of the controller's own duplicate-ACK machinery; the controller still
//! grows the window on new ACKs outside recovery, sets ssthresh and cwnd
//! when recovery begins (`Controller::on_sack_recovery`) and handles the
//! timeout after [`SackRecovery::on_timeout`]. While in recovery the sender
//! asks [`SackRecovery::next_segment`] what to send.

use super::super::congestion::{Ack, Controller};
use super::super::state::{CwndAction, SenderState};
use super::scoreboard::Scoreboard;
use super::{SackProfile, SackStats};
use crate::engine::Time;

#[derive(Clone, Debug)]
pub(in super::super) struct SackRecovery {
    profile: SackProfile,
    board: Scoreboard,
    in_recovery: bool,
    /// RFC 6675 HighRxt: the highest packet retransmitted by rules 1 and 3.
    high_rxt: i64,
    /// RFC 6675 RescueRxt.
    rescue_rxt: Option<i64>,
    /// Packets in flight: SetPipe's count (RFC 6675) or ns-2's counter.
    pipe: i64,
    /// ns-2: the next packet a retransmission may start from (`h_seqno_`).
    next_rxt: i64,
    /// ns-2 `timeout_`: after an RTO, duplicate ACKs are ignored until a
    /// new cumulative ACK.
    after_rto: bool,
    /// ns-2: nothing but the fast retransmission leaves on the ACK that
    /// starts recovery (`send_much` runs only without duplicate ACKs).
    hold: bool,
    stats: SackStats,
}

impl SackRecovery {
    pub fn new(profile: SackProfile, cum_ack: i64) -> Self {
        SackRecovery {
            profile,
            board: Scoreboard::new(cum_ack),
            in_recovery: false,
            high_rxt: cum_ack,
            rescue_rxt: None,
            pipe: 0,
            next_rxt: cum_ack + 1,
            after_rto: false,
            hold: false,
            stats: SackStats::default(),
        }
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }

    pub fn stats(&self) -> SackStats {
        self.stats
    }

    /// The go-back-N loop outside recovery skips packets the receiver has
    /// SACKed since an RTO (RFC 6675 5.1; ns-2 resends them).
    pub fn skips(&self, seq: i64, core: &SenderState) -> bool {
        self.profile == SackProfile::Rfc6675 && !self.in_recovery && seq <= core.maxseq && self.board.is_sacked(seq)
    }

    /// Window sends the last ACK allows outside recovery (in recovery the
    /// pipe decides): none on a duplicate ACK but limited transmit's.
    pub fn send_budget(&self, core: &SenderState) -> Option<u32> {
        (core.dupacks > 0 && !self.in_recovery).then_some(0)
    }

    /// An ACK (`a.ack` <= the highest packet sent) with its SACK blocks.
    pub fn on_ack(&mut self, core: &mut SenderState, cc: &mut dyn Controller, a: &Ack, blocks: &[(i64, i64)]) {
        self.hold = false;
        match self.profile {
            SackProfile::Rfc6675 => self.rfc6675_ack(core, cc, a, blocks),
            SackProfile::Ns2Sack1 => self.sack1_ack(core, cc, a, blocks),
        }
    }

    /// The retransmission timer expired; the controller's timeout follows.
    pub fn on_timeout(&mut self, core: &SenderState) {
        if core.outstanding() {
            self.in_recovery = false;
            self.board.clear();
            self.next_rxt = core.highest_ack + 1;
            // ns-2 ignores duplicate ACKs until the next new ACK; RFC 6675
            // keeps reading SACK information (the RecoveryPoint the
            // controller's timeout sets keeps a new recovery away).
            self.after_rto = self.profile == SackProfile::Ns2Sack1;
        }
    }

    fn rfc6675_ack(&mut self, core: &mut SenderState, cc: &mut dyn Controller, a: &Ack, blocks: &[(i64, i64)]) {
        let new_info = self.board.update(a.ack, blocks.iter().copied(), core.maxseq);
        let thresh = core.numdupacks;
        if a.ack > core.highest_ack {
            if !self.in_recovery {
                cc.on_ack(core, a);
                return;
            }
            if a.ack >= core.recover {
                // (A) The RecoveryPoint is acknowledged: recovery ends.
                self.in_recovery = false;
                self.stats.recoveries_completed += 1;
                core.dupacks = 0;
                core.last_action = CwndAction::Exited;
                cc.on_ack(core, a);
                return;
            }
            // A partial ACK: new data acknowledged, the timer restarts.
            core.newack(a.now, a.ack, a.ece);
            self.pipe = self.board.pipe(core.maxseq, self.high_rxt, thresh) as i64;
            return;
        }
        if a.ack < core.highest_ack {
            return;
        }
        if self.in_recovery {
            // (B) Update () done above; SetPipe ().
            self.pipe = self.board.pipe(core.maxseq, self.high_rxt, thresh) as i64;
            return;
        }
        if !new_info || !core.outstanding() {
            return; // not a duplicate ACK in RFC 6675's sense
        }
        core.dupacks += 1;
        if core.dupacks >= thresh || self.board.is_lost(core.highest_ack + 1, thresh) {
            // (4) Only once HighACK has reached the last RecoveryPoint.
            if core.highest_ack >= core.recover || core.highest_ack == 0 {
                self.enter(core, cc, a.now, true);
            } else if core.ecn && core.last_action == CwndAction::Ecn {
                // ECN already cut this window: recover without a second cut.
                self.enter(core, cc, a.now, false);
            }
        } else if core.limited_transmit {
            core.send_one();
        }
    }

    /// RFC 6675 (4.1)-(4.4).
    fn enter(&mut self, core: &mut SenderState, cc: &mut dyn Controller, now: Time, reduce: bool) {
        let first = core.highest_ack + 1;
        core.recover = core.maxseq;
        core.last_action = CwndAction::Dupack;
        if reduce {
            cc.on_sack_recovery(core);
            core.fast_retransmits += 1;
        }
        core.reset_rtx_timer(now, true, false);
        core.queue_dupack_output(first);
        self.high_rxt = first;
        self.rescue_rxt = Some(first);
        self.in_recovery = true;
        self.stats.recoveries += 1;
        self.pipe = self.board.pipe(core.maxseq, self.high_rxt, core.numdupacks) as i64;
    }

    /// The next packet recovery sends now, if the pipe allows one: NextSeg
    /// (RFC 6675) or ns-2's `send_much` in fast recovery.
    pub fn next_segment(&mut self, core: &mut SenderState) -> Option<i64> {
        if !self.in_recovery || self.hold {
            return None;
        }
        let seq = match self.profile {
            SackProfile::Rfc6675 => {
                if core.cwnd - (self.pipe as f64) < 1.0 {
                    return None;
                }
                self.next_seg(core)?
            }
            SackProfile::Ns2Sack1 => {
                if self.pipe >= core.cwnd as i64 {
                    return None;
                }
                self.sack1_next(core)?
            }
        };
        self.pipe += 1;
        Some(seq)
    }

    /// RFC 6675 NextSeg () rules 1 to 4.
    fn next_seg(&mut self, core: &mut SenderState) -> Option<i64> {
        let thresh = core.numdupacks;
        if let Some(s) = self.board.first_hole_above(self.high_rxt, true, thresh) {
            self.high_rxt = s;
            return Some(s);
        }
        if let Some(s) = new_data(core) {
            return Some(s);
        }
        if let Some(s) = self.board.first_hole_above(self.high_rxt, false, thresh) {
            self.high_rxt = s;
            return Some(s);
        }
        if self.rescue_rxt.is_none_or(|r| core.highest_ack > r) {
            if let Some(s) = self.board.highest_unsacked(core.maxseq) {
                self.rescue_rxt = Some(core.recover);
                self.stats.rescue_retransmissions += 1;
                return Some(s);
            }
        }
        None
    }

    fn sack1_ack(&mut self, core: &mut SenderState, cc: &mut dyn Controller, a: &Ack, blocks: &[(i64, i64)]) {
        let ack = a.ack;
        if !self.in_recovery {
            if ack > core.highest_ack {
                cc.on_ack(core, a);
                self.after_rto = false;
                self.clear_board(ack);
            } else if ack == core.highest_ack
                && !self.after_rto
                && self.board.update(ack, blocks.iter().copied(), core.maxseq)
            {
                // A duplicate ACK counts only when it changed the scoreboard.
                core.dupacks += 1;
                if core.dupacks == core.numdupacks {
                    self.sack1_dupack_action(core, cc, a.now);
                } else if core.dupacks < core.numdupacks && core.limited_transmit {
                    core.send_one();
                }
            }
            return;
        }
        self.pipe -= 1;
        if ack >= core.recover {
            // Recovery is over: cwnd stays where the halving left it.
            core.recover = 0;
            self.in_recovery = false;
            self.stats.recoveries_completed += 1;
            core.newack(a.now, ack, a.ece);
            self.clear_board(ack);
        } else if ack > core.highest_ack {
            // A partial ACK (`partial_ack_` false): another packet has left,
            // the timer restarts without backoff, no RTT sample.
            core.highest_ack = ack;
            self.board.update(ack, blocks.iter().copied(), core.maxseq);
            self.pipe -= 1;
            core.arm_rtx(a.now);
            core.rto.reset_backoff();
        } else if ack == core.highest_ack
            && self.board.update(ack, blocks.iter().copied(), core.maxseq)
            && core.dupacks > 0
        {
            core.dupacks += 1;
        }
    }

    fn clear_board(&mut self, ack: i64) {
        self.board = Scoreboard::new(ack);
        self.next_rxt = ack + 1;
    }

    /// ns-2 Sack1 `dupack_action()` on the numdupacks-th duplicate ACK.
    fn sack1_dupack_action(&mut self, core: &mut SenderState, cc: &mut dyn Controller, now: Time) {
        let recovered = core.highest_ack > core.recover;
        let reduce = if recovered || core.highest_ack == 0 {
            true
        } else if core.ecn && core.last_action == CwndAction::Ecn {
            false
        } else {
            return; // a window already reduced (`bug_fix_`)
        };
        if reduce {
            core.recover = core.maxseq;
        }
        core.last_action = CwndAction::Dupack;
        self.pipe = core.maxseq - core.highest_ack - core.numdupacks as i64;
        core.reset_rtx_timer(now, true, false);
        self.in_recovery = true;
        self.hold = true;
        self.next_rxt = core.highest_ack + 2;
        self.stats.recoveries += 1;
        if reduce {
            cc.on_sack_recovery(core);
            core.fast_retransmits += 1;
        }
        core.queue_dupack_output(core.highest_ack + 1);
    }

    /// ns-2 Sack1 `send_much()` in fast recovery: the next hole with a
    /// SACKed packet above it, once each; else new data.
    fn sack1_next(&mut self, core: &mut SenderState) -> Option<i64> {
        let from = self.next_rxt.max(core.highest_ack + 1);
        match self.board.first_hole_above(from - 1, false, 0) {
            Some(s) => {
                self.next_rxt = s;
                if s > core.highest_ack + core.wnd as i64 {
                    return None;
                }
                self.next_rxt = s + 1;
                Some(s)
            }
            None => new_data(core),
        }
    }
}

/// The next packet never sent, if the application has it and the receiver
/// window allows it.
fn new_data(core: &mut SenderState) -> Option<i64> {
    let s = core.t_seqno.max(core.maxseq + 1);
    if core.has_data(s) && s <= core.highest_ack + core.wnd as i64 {
        core.t_seqno = s + 1;
        return Some(s);
    }
    None
}
