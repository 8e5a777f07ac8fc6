//! NewReno (ns-2 `Agent/TCP/Newreno`, RFC 6582 "careful" variant): like
//! Reno, but an ACK that advances without reaching `recover` (a partial
//! ACK) keeps the sender in fast recovery, retransmits the next missing
//! packet at once, and deflates the window by the amount acknowledged
//! minus one (`partial_window_deflation_ 1`). Only the first partial ACK
//! of an episode restarts the retransmission timer (`newreno_changes1_ 1`,
//! the "impatient" choice, so a long burst of losses falls back on a
//! timeout). The ACK reaching `recover` ends recovery with cwnd = w/2
//! (ns-2 keeps the halved cwnd; that ACK then adds its CA increment).
//! While in recovery each ACK releases at most two new packets.

use super::super::state::{CwndAction, SenderState};
use super::reno::{on_dupack_common, timeout_common};
use super::{Ack, Controller};
use crate::engine::Time;

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    /// A partial ACK was already seen in this recovery episode.
    firstpartial: bool,
}

impl NewReno {
    /// A full ACK (or one outside recovery) ends the episode.
    pub(super) fn end_recovery(&mut self) {
        self.firstpartial = false;
    }

    pub(super) fn partial_ack(&mut self, core: &mut SenderState, now: Time, ack: i64) {
        if !self.firstpartial {
            self.firstpartial = true;
            core.arm_rtx(now);
        }
        // Deflate by the packets acknowledged, then add one back for the
        // retransmission about to leave.
        let deflate = (ack - core.highest_ack) as u32;
        if core.dupwnd > deflate {
            core.dupwnd -= deflate - 1;
        } else {
            core.cwnd -= (deflate - core.dupwnd) as f64;
            // Keep dupwnd > 0: it flags fast recovery.
            core.dupwnd = 1;
        }
        if core.cwnd < 1.0 {
            core.cwnd = 1.0;
        }
        core.highest_ack = ack;
        if core.t_seqno < ack + 1 {
            core.t_seqno = ack + 1;
        }
        // The timed segment is covered: end the backoff but take no sample
        // (ns-2 partialnewack()); dupacks keeps counting.
        if core.rto.take_timed(ack) {
            core.rto.reset_backoff();
        }
        core.queue_output(ack + 1);
    }
}

impl Controller for NewReno {
    fn on_ack(&mut self, core: &mut SenderState, a: &Ack) {
        let (now, ack, ece) = (a.now, a.ack, a.ece);
        if ack >= core.recover || core.last_action != CwndAction::Dupack {
            // Full ACK, or not in fast recovery.
            if core.dupwnd > 0 {
                core.dupwnd = 0;
                if core.last_action == CwndAction::Dupack {
                    core.last_action = CwndAction::Exited;
                }
            }
            self.firstpartial = false;
            core.recv_newack_helper(now, ack, ece);
            core.delay_growth(ack);
        } else {
            self.partial_ack(core, now, ack);
        }
    }

    fn on_dupack(&mut self, core: &mut SenderState, a: &Ack) {
        let now = a.now;
        // NewReno never re-enters fast retransmit below `recover`.
        on_dupack_common(core, now, false);
    }

    fn on_timeout(&mut self, core: &mut SenderState, now: Time) {
        timeout_common(core, now);
    }

    /// ns-2 NewReno: after a new ACK send freely; during fast recovery at
    /// most two packets per ACK (`send_much(0, 0, 2)`); nothing on the first
    /// and second duplicate ACK.
    fn send_budget(&self, core: &SenderState) -> Option<u32> {
        if core.dupacks == 0 {
            None
        } else if core.dupacks >= core.numdupacks {
            Some(2)
        } else {
            Some(0)
        }
    }
}
