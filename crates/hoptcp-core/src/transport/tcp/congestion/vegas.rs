//! TCP Vegas as ns-2.35's `Agent/TCP/Vegas` implements it (Ted Kuo's port
//! of USC's NetBSD Vegas), which is what Fu et al. compared with NewReno.
//!
//! Once per RTT (when the ACK passes the packet that was next to send at
//! the previous decision) Vegas compares
//!   expected = (packets outstanding) / baseRTT   and
//!   actual   = (packets sent in the last RTT) / (mean RTT in it),
//! with diff = round((expected - actual) * baseRTT) in packets, baseRTT the
//! smallest RTT seen. In slow start it grows only every other RTT (+1 per
//! ACK in the growing RTT) and leaves slow start, cutting cwnd by 1/8, once
//! diff > gamma. In congestion avoidance it adds 1/cwnd per ACK for an RTT
//! if diff < alpha, removes one packet if diff > beta, else holds. Growth
//! pauses while cwnd exceeds what is outstanding by more than two.
//!
//! RTTs come from a fine-grained clock: per-packet send times in a ring of
//! `max_window` slots (packets sent once only). Losses: Vegas's own fast
//! retransmit. On a duplicate ACK, the first unacknowledged packet is
//! retransmitted if it has been out longer than the fine-grained timeout,
//! or on the third duplicate; the window becomes 2 (w <= 3), w/2 (packet
//! already retransmitted) or 3w/4, unless cwnd already changed since that
//! packet left; the next two new ACKs check again for expired packets.
//! The coarse timer backs off on every such retransmission, and a timeout
//! sets cwnd to 2.
//!
//! Kept from ns-2 on purpose, because the papers' numbers came from it:
//! cwnd is set to the initial window on the first *data* ACK (not on the
//! setup segment's), duplicate-ACK inflation beyond the threshold even when
//! no retransmission happened, the deflation to the last reduced window on
//! the next new ACK (0 after a timeout, which stalls the sender until the
//! next timeout), and the ring clean-up that skips slots when a cumulative
//! ACK wraps around the ring. Deliberate differences: data packets carry
//! the TCP/IP header and ECT like the other variants (ns-2's Vegas
//! `output()` sends `packetSize_`-byte packets and never sets ECT), and a
//! "fine-grained expiry" is only considered for a packet already sent.

use super::super::config::TcpConfig;
use super::super::state::{how, CwndAction, SenderState};
use super::{Ack, Controller};
use crate::engine::Time;

#[derive(Clone, Debug)]
pub struct Vegas {
    alpha: f64,
    beta: f64,
    gamma: f64,
    /// Time of the first transmission: fine-grained times count from it.
    firstsent: Option<Time>,
    got_first_ack: bool,
    /// Fine-grained RTT estimator (seconds): last sample, 8 x mean,
    /// deviation, and the retransmission timeout derived from them.
    rtt: f64,
    sa: f64,
    sd: f64,
    timeout: f64,
    base_rtt: f64,
    /// The once-per-RTT decision happens when the ACK reaches `begseq`.
    begseq: i64,
    begtime: f64,
    cnt_rtt: u32,
    sum_rtt: f64,
    /// cwnd increment applied per ACK until the next decision.
    incr: f64,
    /// Slow start grows every other RTT.
    inc_flag: bool,
    /// New ACKs left that check for expired packets.
    worried: i64,
    /// Window set by the last fast retransmit (deflation target).
    newcwnd: f64,
    t_cwnd_changed: f64,
    /// Per-packet send time (-1 = free) and transmission count, by
    /// packet number modulo max_window.
    sendtime: Vec<f64>,
    transmits: Vec<u32>,
}

impl Vegas {
    pub fn new(cfg: &TcpConfig) -> Self {
        let w = cfg.max_window.max(1) as usize;
        Vegas {
            alpha: cfg.vegas_alpha,
            beta: cfg.vegas_beta,
            gamma: cfg.vegas_gamma,
            firstsent: None,
            got_first_ack: false,
            rtt: 0.0,
            sa: 0.0,
            sd: 0.0,
            timeout: 1000.0,
            base_rtt: 1e9,
            begseq: 0,
            begtime: 0.0,
            cnt_rtt: 0,
            sum_rtt: 0.0,
            incr: 0.0,
            inc_flag: true,
            worried: 0,
            newcwnd: 0.0,
            t_cwnd_changed: 0.0,
            sendtime: vec![-1.0; w],
            transmits: vec![0; w],
        }
    }

    /// Seconds since the first transmission (ns-2 `vegastime()`).
    fn vt(&self, now: Time) -> f64 {
        let t0 = self.firstsent.unwrap_or(0);
        (now as f64 - t0 as f64) / 1e9
    }

    fn slot(&self, seq: i64) -> usize {
        seq.rem_euclid(self.sendtime.len() as i64) as usize
    }

    fn init_on_first_ack(&mut self, now: Time) {
        if !self.got_first_ack {
            self.got_first_ack = true;
            let t = self.vt(now);
            self.base_rtt = t;
            self.rtt = t;
            self.sa = t * 8.0;
            self.sd = t;
            self.timeout = (self.sa / 4.0 + self.sd) / 2.0;
        }
    }

    /// The packet after `ack`, if it was sent and has been out longer than
    /// the fine-grained timeout (ns-2 `vegas_expire()`).
    fn expired(&self, core: &SenderState, now: Time, ack: i64) -> Option<i64> {
        let s = ack + 1;
        if s > core.maxseq {
            return None;
        }
        let elapsed = self.vt(now) - self.sendtime[self.slot(s)];
        (elapsed >= self.timeout).then_some(s)
    }

    fn per_rtt_decision(&mut self, core: &mut SenderState, vt: f64) {
        let rtt = if self.cnt_rtt > 0 { self.sum_rtt / self.cnt_rtt as f64 } else { vt - self.begtime };
        self.sum_rtt = 0.0;
        self.cnt_rtt = 0;
        let sent_in_rtt = core.t_seqno - self.begseq;
        if rtt > 0.0 {
            // With a single packet in flight the RTT has no queueing in it.
            if rtt < self.base_rtt || sent_in_rtt <= 1 {
                self.base_rtt = rtt;
            }
            let actual = sent_in_rtt as f64 / rtt;
            let expected = (core.t_seqno - core.highest_ack) as f64 / self.base_rtt;
            // C int(): rounds half up, truncating toward zero.
            let diff = ((expected - actual) * self.base_rtt + 0.5) as i64 as f64;
            if core.cwnd < core.ssthresh {
                self.inc_flag = !self.inc_flag;
                if !self.inc_flag {
                    self.incr = 0.0;
                } else if diff > self.gamma {
                    // Queue building up: leave slow start.
                    core.ssthresh = 2.0;
                    core.cwnd -= core.cwnd / 8.0;
                    if core.cwnd < 2.0 {
                        core.cwnd = 2.0;
                    }
                    self.incr = 0.0;
                } else {
                    self.incr = 1.0;
                }
            } else if diff > self.beta {
                core.cwnd -= 1.0;
                if core.cwnd < 2.0 {
                    core.cwnd = 2.0;
                }
                self.incr = 0.0;
            } else if diff < self.alpha {
                self.incr = 1.0 / core.cwnd;
            } else {
                self.incr = 0.0;
            }
        }
        self.begseq = core.t_seqno;
        self.begtime = vt;
    }

    /// Free the ring slots of newly acknowledged packets. The loop stops at
    /// the ring's end without wrapping, as ns-2's does.
    fn free_slots(&mut self, oldack: i64, ack: i64) {
        let w = self.sendtime.len();
        let end = self.slot(ack);
        let mut k = self.slot(oldack + 1);
        let mut range = ack - oldack;
        while k <= end && range > 0 {
            self.sendtime[k] = -1.0;
            self.transmits[k] = 0;
            k = (k + 1) % w;
            range -= 1;
        }
    }
}

impl Controller for Vegas {
    fn on_transmit(&mut self, core: &SenderState, now: Time, seq: i64) {
        if (core.syn && seq == 0) || self.firstsent.is_none() {
            // ns-2 restarts its fine-grained clock and ring with the setup
            // segment (also when it is retransmitted).
            self.firstsent = Some(now);
            if seq == 0 {
                self.sendtime.fill(-1.0);
                self.transmits.fill(0);
            }
        }
        let i = self.slot(seq);
        self.sendtime[i] = self.vt(now);
        self.transmits[i] += 1;
    }

    fn on_ack(&mut self, core: &mut SenderState, a: &Ack) {
        let (now, ack, ece) = (a.now, a.ack, a.ece);
        self.init_on_first_ack(now);
        // ns-2 tests last_ack_ == 0 before updating it: this is the first
        // data ACK, not the setup segment's.
        if core.syn && core.highest_ack == 0 {
            core.cwnd = core.wnd_init;
        }
        // Leaving fast recovery: deflate to the window set then.
        if core.dupacks > core.numdupacks && core.cwnd > self.newcwnd {
            core.cwnd = self.newcwnd;
            core.ssthresh = 2.0;
        }
        let oldack = core.highest_ack;
        core.newack(now, ack, ece);
        let vt = self.vt(now);

        if ack >= self.begseq {
            self.per_rtt_decision(core, vt);
        }
        // A slow-start increment stops at ssthresh even mid-RTT.
        if self.incr == 1.0 && core.cwnd >= core.ssthresh {
            self.incr = 0.0;
        }
        // Grow only while the sender keeps up with the window.
        let outstanding = (core.t_seqno - core.highest_ack) as f64;
        if self.incr > 0.0 && core.cwnd - outstanding <= 2.0 {
            core.cwnd += self.incr;
        }

        // Fine-grained RTT of the packet this ACK names, if sent only once.
        let i = self.slot(ack);
        let send_time = self.sendtime[i];
        let transmits = self.transmits[i];
        self.free_slots(oldack, ack);
        if send_time != 0.0 && transmits == 1 {
            let rtt = vt - send_time;
            self.sum_rtt += rtt;
            self.cnt_rtt += 1;
            if rtt > 0.0 {
                self.rtt = rtt;
                if rtt < self.base_rtt {
                    self.base_rtt = rtt;
                }
                let mut n = rtt - self.sa / 8.0;
                self.sa += n;
                n = n.abs() - self.sd / 4.0;
                self.sd += n;
                self.timeout = (self.sa / 4.0 + self.sd) / 2.0;
                self.timeout += self.timeout / 16.0;
            }
        }

        // After a fast retransmit, the next two ACKs look for more expired
        // packets and retransmit them without touching cwnd.
        if self.worried > 0 {
            self.worried -= 1;
            if let Some(s) = self.expired(core, now, ack) {
                core.dupacks = core.numdupacks;
                core.queue_output(s);
            } else {
                self.worried = 0;
            }
        }
    }

    fn on_dupack(&mut self, core: &mut SenderState, a: &Ack) {
        let (now, ack) = (a.now, a.ack);
        self.init_on_first_ack(now);
        core.dupacks += 1;
        let expired = self.expired(core, now, ack);
        if expired.is_some() || core.dupacks == core.numdupacks {
            let i = self.slot(core.highest_ack + 1);
            let send_time = self.sendtime[i];
            let transmits = self.transmits[i];
            // No fast retransmit for losses a timeout already handled.
            if core.highest_ack > core.recover || core.last_action != CwndAction::Timeout {
                let mut win = core.window() as i64;
                core.last_action = CwndAction::Dupack;
                core.recover = core.maxseq;
                self.worried = 2.min(core.t_seqno - core.highest_ack);
                if transmits > 1 {
                    self.timeout *= 2.0;
                } else {
                    self.timeout += self.timeout / 8.0;
                }
                // Reduce only if cwnd has not changed since the packet left.
                if self.t_cwnd_changed < send_time {
                    win = if win <= 3 {
                        2
                    } else if transmits > 1 {
                        win >> 1
                    } else {
                        win - (win >> 2)
                    };
                    self.newcwnd = win as f64;
                    core.cwnd = self.newcwnd + core.dupacks as f64;
                    self.t_cwnd_changed = self.vt(now);
                }
                core.reset_rtx_timer(now, true, true);
                core.queue_output(expired.unwrap_or(core.highest_ack + 1));
                if transmits == 1 {
                    core.dupacks = core.numdupacks;
                }
                core.fast_retransmits += 1;
            }
        } else if core.dupacks > core.numdupacks {
            core.cwnd += 1.0;
        }
    }

    fn on_timeout(&mut self, core: &mut SenderState, now: Time) {
        // ns-2's Vegas cuts and backs off even with nothing outstanding.
        let outstanding = core.outstanding();
        core.dupacks = 0;
        core.recover = core.maxseq;
        core.last_action = CwndAction::Timeout;
        core.reset_rtx_timer(now, false, true);
        core.slowdown(how::CWND_RESTART | how::SSTHRESH_HALF);
        core.cwnd = 2.0;
        self.newcwnd = 0.0;
        self.t_cwnd_changed = self.vt(now);
        if outstanding {
            core.timeouts += 1;
        }
    }

    /// Vegas sends after a new ACK and in recovery, not on the first and
    /// second duplicate ACK.
    fn send_budget(&self, core: &SenderState) -> Option<u32> {
        if core.dupacks == 0 || core.dupacks >= core.numdupacks {
            None
        } else {
            Some(0)
        }
    }
}
