//! IEEE 802.11 DCF as a sans-IO state machine, following ns-2.35's
//! `Mac/802_11` (mac-802_11.cc) step by step so that hoptcp reproduces the
//! papers' simulator: RTS/CTS/DATA/ACK, basic access below the RTS threshold,
//! physical and virtual carrier sense (NAV), EIFS, backoff freeze/resume,
//! contention-window doubling and reset, short/long retry limits, duplicate
//! detection, drops with a reason.
//!
//! The struct never touches the event queue or other nodes. Everything it
//! needs from the outside world goes through [`MacEnv`]: the clock, timers,
//! putting a frame on the air, the interface queue, and the layer above.

use super::adaptive_pacing::PacingWait;
use super::backoff::{Backoff, SlotCount};
use super::policy::LinkPolicy;
use super::timing::Timing;
use crate::engine::time::{ceil_us, round_us};
use crate::engine::{RngStream, Time};
use crate::phy::radio::{Arrival, Radio, RxStartOutcome, RxState};
use crate::wire::MarkAction;
use crate::wire::{Frame, FrameFormat, FrameKind, NodeId, RxFate, BROADCAST, NO_PACKET};

/// Node-independent MAC parameters (one copy per run).
#[derive(Clone, Debug)]
pub struct MacParams {
    pub timing: Timing,
    pub format: FrameFormat,
    /// RTS/CTS precedes unicast DATA frames whose MAC length is >= this.
    pub rts_threshold: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    /// Capture ratio (linear), e.g. 10 for 10 dB.
    pub capture_ratio: f64,
    pub rts_time: Time,
    pub cts_time: Time,
    pub ack_time: Time,
    /// How a backoff pause counts elapsed slots (exact, or as ns-2's doubles).
    pub slot_count: SlotCount,
}

impl MacParams {
    pub fn new(
        timing: Timing,
        format: FrameFormat,
        rts_threshold: u32,
        short_retry_limit: u32,
        long_retry_limit: u32,
        capture_db: f64,
    ) -> Self {
        MacParams {
            rts_time: timing.basic_airtime(format.rts_bytes()),
            cts_time: timing.basic_airtime(format.cts_bytes()),
            ack_time: timing.basic_airtime(format.ack_bytes()),
            slot_count: SlotCount::Exact,
            timing,
            format,
            rts_threshold,
            short_retry_limit,
            long_retry_limit,
            capture_ratio: 10f64.powf(capture_db / 10.0),
        }
    }

    /// MAC frame length of a DATA frame carrying an IP packet of `ip_bytes`.
    pub fn data_bytes(&self, ip_bytes: u32) -> u32 {
        ip_bytes + self.format.data_overhead_bytes()
    }

    /// A Duration field (or NAV) in whole microseconds: ns-2 rounds to the nearest
    /// (`usec()` in mac-802_11.h), IEEE 802.11 rounds up. Only 5.5 and 11 Mb/s DSSS
    /// frames last fractions of a microsecond.
    pub fn duration(&self, t: Time) -> Time {
        match self.format {
            FrameFormat::Ns2 => round_us(t),
            FrameFormat::Standard => ceil_us(t),
        }
    }
}

/// A packet handed to the MAC by the interface queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// Slab index of the packet.
    pub packet: u32,
    /// IP packet size in bytes.
    pub ip_bytes: u32,
    /// MAC receiver: the next hop, or [`BROADCAST`].
    pub next_hop: NodeId,
}

/// Why the MAC gave up on a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacDrop {
    /// No CTS after `short_retry_limit` RTS attempts.
    RtsRetry,
    /// No ACK after the DATA retry limit.
    DataRetry,
}

/// What became of a packet the MAC took from the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxResult {
    /// Unicast DATA acknowledged after `retries` retransmissions (RTS + DATA).
    Acked { retries: u32 },
    /// Broadcast frame sent (never acknowledged).
    Broadcast,
    /// Given up; the routing layer should treat the link as failed.
    Dropped { reason: MacDrop, retries: u32 },
    /// Dropped by Link RED before any transmission (not a link failure).
    EarlyDrop,
}

/// The MAC's timers. Each has a generation counter: restarting or stopping a
/// timer makes earlier scheduled expiries stale. The simulator keys events
/// by the timer's number (`as u8`, back with `from_repr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::FromRepr, strum::EnumCount)]
#[repr(u8)]
pub enum MacTimer {
    Backoff = 0,
    /// SIFS (or DIFS) wait before a response frame.
    Defer = 1,
    /// CTS/ACK/DATA timeout, and end-of-exchange for CTS and ACK senders.
    Send = 2,
    Nav = 3,
    /// End of the frame being received.
    Recv = 4,
    /// Adaptive pacing's extra wait as a timer (`wait = "timer"`): the node
    /// does not contend while it is armed.
    Pace = 5,
}
pub const N_TIMERS: usize = <MacTimer as strum::EnumCount>::COUNT;

/// The world as the MAC sees it.
pub trait MacEnv {
    fn now(&self) -> Time;
    /// Arrange for `on_timer(timer, gen)` to be called at `at`.
    fn set_timer(&mut self, timer: MacTimer, at: Time, gen: u32);
    /// The timer was stopped: its pending expiry may be dropped (it would be
    /// ignored as stale anyway).
    fn cancel_timer(&mut self, _timer: MacTimer) {}
    /// Put a frame on the air now.
    fn transmit(&mut self, frame: &Frame);
    /// The MAC is free: take the next packet from the interface queue (or
    /// unblock the queue if it is empty).
    fn pull_next(&mut self) -> Option<Outgoing>;
    /// A frame for us (or broadcast) was received intact (for traces; the
    /// MAC then handles it).
    fn received(&mut self, _frame: &Frame) {}
    /// A DATA frame for us (or broadcast) was received: pass its packet up.
    fn deliver_up(&mut self, frame: &Frame);
    /// The MAC is done with a packet it took from the queue.
    fn packet_done(&mut self, out: &Outgoing, result: TxResult);
    /// Link RED marks a packet: set CE if it is ECN-capable and return true;
    /// return false (packet untouched) if it is not, and the MAC drops it.
    /// Default: no packet is ECN-capable.
    fn mark_ce(&mut self, _out: &Outgoing) -> bool {
        false
    }
    /// Frames' fates are recorded (the air trace is on).
    fn records(&self) -> bool {
        false
    }
    /// What became of `frame` here (called only where `records()` could matter).
    fn rx_fate(&mut self, _frame: &Frame, _fate: RxFate) {}
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxState {
    Idle,
    Rts,
    Cts,
    Send,
    Ack,
}

/// Per-node MAC counters.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct MacCounters {
    pub rts_sent: u64,
    pub cts_sent: u64,
    pub data_sent: u64,
    pub ack_sent: u64,
    pub cts_timeouts: u64,
    pub ack_timeouts: u64,
    /// Retransmission attempts (RTS or DATA) beyond the first.
    pub retries: u64,
    pub packets_acked: u64,
    pub drops_rts_retry: u64,
    pub drops_data_retry: u64,
    /// Frames lost in a collision at this node (any addressee).
    pub rx_collisions: u64,
    /// RTS addressed to us left unanswered because our medium was busy
    /// (NAV or carrier): the exposed-receiver symptom.
    pub cts_withheld: u64,
    /// Duplicate DATA frames (retransmissions after a lost ACK) dropped.
    pub duplicates: u64,
    /// Packets sent with an RTS, by the number of their RTS that went
    /// unanswered (index k: k CTS timeouts, counted when the packet is acked
    /// or dropped). Lee et al.'s Fig. 8 is its CDF.
    pub rts_retry_hist: Vec<u64>,
}

impl MacCounters {
    fn count_rts_retries(&mut self, k: u32) {
        let k = k as usize;
        if self.rts_retry_hist.len() <= k {
            self.rts_retry_hist.resize(k + 1, 0);
        }
        self.rts_retry_hist[k] += 1;
    }
}

#[derive(Clone, Copy, Debug)]
struct TimerSlot {
    gen: u32,
    armed: bool,
}

/// One node's 802.11 DCF.
///
/// `repr(C)` with the state every sensed frame reads first (transmitter,
/// NAV, radio, backoff, timers: about three cache lines), so a hearer's
/// reception touches as few lines as possible; what only a sender or a report
/// reads comes after.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Dcf {
    /// Our transmitter is on until this time (ns-2's tx_active_, whose
    /// interface timer only cleared the flag: a time needs no event).
    tx_end: Time,
    nav: Time,
    pub radio: Radio,
    backoff: Backoff,
    timers: [TimerSlot; N_TIMERS],
    tx_state: TxState,
    /// The queue is waiting for us to finish the current packet (callback_).
    callback_pending: bool,
    next_seq: u16,
    pub id: NodeId,
    cw: u32,
    ssrc: u32,
    slrc: u32,
    /// Retransmissions spent on the packet in service.
    cur_retries: u32,
    /// CTS timeouts of the packet in service; None if it goes without RTS.
    cur_rts_retries: Option<u32>,
    /// Pending CTS or ACK (pktCTRL_).
    pkt_ctrl: Option<Frame>,
    /// Pending RTS (pktRTS_).
    pkt_rts: Option<Frame>,
    /// The DATA packet in service and its frame (ns-2's pktTx_).
    pkt_tx: Option<(Outgoing, Frame)>,
    rng: RngStream,
    /// Last sequence number received from each transmitter.
    dup_cache: Vec<(NodeId, u16)>,
    pub policy: LinkPolicy,
    pub counters: MacCounters,
}

impl Dcf {
    pub fn new(id: NodeId, cw_min: u32, rng: RngStream) -> Self {
        Dcf {
            id,
            radio: Radio::default(),
            tx_state: TxState::Idle,
            tx_end: 0,
            nav: 0,
            cw: cw_min,
            ssrc: 0,
            slrc: 0,
            next_seq: 1,
            pkt_tx: None,
            pkt_rts: None,
            pkt_ctrl: None,
            callback_pending: false,
            cur_retries: 0,
            cur_rts_retries: None,
            backoff: Backoff::default(),
            timers: [TimerSlot { gen: 0, armed: false }; N_TIMERS],
            rng,
            dup_cache: Vec::new(),
            policy: LinkPolicy::default(),
            counters: MacCounters::default(),
        }
    }

    // ----- observers -------------------------------------------------------

    #[cfg(test)] // only the unit tests read it
    pub fn tx_state(&self) -> TxState {
        self.tx_state
    }
    #[cfg(test)] // only the unit tests read it
    pub fn nav(&self) -> Time {
        self.nav
    }
    #[cfg(test)] // only the unit tests read it
    pub fn cw(&self) -> u32 {
        self.cw
    }
    #[cfg(test)] // only the unit tests read it
    pub fn has_packet(&self) -> bool {
        self.pkt_tx.is_some()
    }
    #[cfg(test)] // only the unit tests read it
    pub fn backoff_busy(&self) -> bool {
        self.backoff.is_busy()
    }
    #[cfg(test)] // only the unit tests read it
    pub fn backoff_paused(&self) -> bool {
        self.backoff.is_paused()
    }
    #[cfg(test)] // only the unit tests read it
    /// Is timer `t` armed (its latest expiry not yet run or stopped)?
    pub fn timer_is_armed(&self, t: MacTimer) -> bool {
        self.timer_armed(t)
    }
    pub fn is_transmitting(&self, now: Time) -> bool {
        now < self.tx_end
    }

    /// What the MAC is doing, as the `mac` series' state (0 idle, 1 backoff,
    /// 2 defer, 3 tx, 4 rx; Python's `hoptcp.results.MAC_STATES` names
    /// them): in an exchange (tx), receiving (rx),
    /// counting down a backoff, deferring (backoff frozen, a SIFS/DIFS wait
    /// or adaptive pacing's wait), or idle.
    pub fn activity(&self) -> u8 {
        if self.tx_state != TxState::Idle {
            3
        } else if self.radio.state != RxState::Idle {
            4
        } else if self.backoff.is_busy() && !self.backoff.is_paused() {
            1
        } else if self.backoff.is_paused() || self.timer_armed(MacTimer::Defer) || self.pacing_hold() {
            2
        } else {
            0
        }
    }

    /// Carrier sense: not receiving, not in an exchange, NAV expired.
    pub fn is_idle(&self, now: Time) -> bool {
        self.radio.state == RxState::Idle && self.tx_state == TxState::Idle && self.nav <= now
    }

    // ----- timers ----------------------------------------------------------

    fn start_timer(&mut self, t: MacTimer, at: Time, env: &mut impl MacEnv) {
        let slot = &mut self.timers[t as usize];
        slot.gen = slot.gen.wrapping_add(1);
        slot.armed = true;
        env.set_timer(t, at, slot.gen);
    }

    fn stop_timer(&mut self, t: MacTimer, env: &mut impl MacEnv) {
        let slot = &mut self.timers[t as usize];
        slot.gen = slot.gen.wrapping_add(1);
        slot.armed = false;
        env.cancel_timer(t);
    }

    fn timer_armed(&self, t: MacTimer) -> bool {
        self.timers[t as usize].armed
    }

    /// A timer fired. Stale expiries (restarted or stopped timers) are ignored.
    pub fn on_timer(&mut self, t: MacTimer, gen: u32, p: &MacParams, env: &mut impl MacEnv) {
        let slot = &mut self.timers[t as usize];
        if !slot.armed || slot.gen != gen {
            return;
        }
        slot.armed = false;
        match t {
            MacTimer::Backoff => self.backoff_handler(p, env),
            MacTimer::Defer => self.defer_handler(p, env),
            MacTimer::Send => self.send_timer(p, env),
            MacTimer::Nav => self.nav_handler(p, env),
            MacTimer::Recv => self.recv_timer(p, env),
            MacTimer::Pace => self.pace_handler(p, env),
        }
    }

    // ----- contention window and backoff -----------------------------------

    fn inc_cw(&mut self, p: &MacParams) {
        self.cw = ((self.cw << 1) + 1).min(p.timing.cw_max);
    }

    fn rst_cw(&mut self, p: &MacParams) {
        self.cw = p.timing.cw_min;
    }

    /// Start the backoff timer with a fresh draw in 0..cw-1 slots (ns-2 draws
    /// `random % cw`), plus `extra` (adaptive pacing). `difs` is the wait
    /// before counting when the medium is idle now (ns-2 passes 0 except
    /// from `send` and `tx_resume`).
    fn backoff_start(&mut self, difs: Time, extra: Time, p: &MacParams, env: &mut impl MacEnv) {
        let now = env.now();
        let rtime = self.rng.below(self.cw) as Time * p.timing.slot + extra;
        let idle = self.is_idle(now);
        match self.backoff.start(now, rtime, idle, difs) {
            Some(at) => self.start_timer(MacTimer::Backoff, at, env),
            None => self.arm_nav_if_waiting(env),
        }
    }

    /// Adaptive pacing's timer wait is running: no contention until it ends.
    #[inline]
    fn pacing_hold(&self) -> bool {
        self.timer_armed(MacTimer::Pace)
    }

    /// The pacing wait is over: the ordinary post-transmission backoff
    /// starts now, and its expiry sends whatever is pending. (Not
    /// `tx_resume`: the wait may end in the middle of an exchange this node
    /// answers, whose state must not be reset.)
    fn pace_handler(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        self.backoff_start(0, 0, p, env);
    }

    /// Freeze or resume the backoff after a change of carrier state.
    fn check_backoff_timer(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        // No backoff: nothing to freeze, resume or wait for (a paused
        // backoff is a busy one). The common case on every carrier change.
        if !self.backoff.is_busy() {
            return;
        }
        let now = env.now();
        let idle = self.is_idle(now);
        if idle && self.backoff.is_paused() {
            let at = self.backoff.resume(now, p.timing.difs);
            self.start_timer(MacTimer::Backoff, at, env);
        }
        if !idle && self.backoff.is_busy() && !self.backoff.is_paused() {
            self.backoff.pause(now, p.timing.slot, p.slot_count);
            self.stop_timer(MacTimer::Backoff, env);
        }
        self.arm_nav_if_waiting(env);
    }

    fn set_tx_state(&mut self, s: TxState, p: &MacParams, env: &mut impl MacEnv) {
        self.tx_state = s;
        self.check_backoff_timer(p, env);
    }

    /// Extend the NAV to `until` (it never shrinks).
    fn set_nav(&mut self, until: Time, env: &mut impl MacEnv) {
        if until > self.nav {
            self.nav = until;
            self.arm_nav_if_waiting(env);
        }
    }

    /// ns-2 runs a NAV timer whose expiry resumes a frozen backoff. It can
    /// only matter while a backoff is frozen with nothing but the NAV keeping
    /// the medium busy, so the timer is armed only then (and at most once:
    /// an early expiry re-arms itself for the extended NAV). Every other NAV
    /// expiry in ns-2 is a no-op, so behaviour is unchanged while idle
    /// nodes schedule no events.
    fn arm_nav_if_waiting(&mut self, env: &mut impl MacEnv) {
        if self.backoff.is_paused()
            && self.nav > env.now()
            && self.radio.state == RxState::Idle
            && self.tx_state == TxState::Idle
            && !self.timer_armed(MacTimer::Nav)
        {
            self.start_timer(MacTimer::Nav, self.nav, env);
        }
    }

    fn nav_handler(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        let now = env.now();
        if self.nav > now {
            self.start_timer(MacTimer::Nav, self.nav, env);
            return;
        }
        if self.is_idle(now) && self.backoff.is_paused() {
            let at = self.backoff.resume(now, p.timing.difs);
            self.start_timer(MacTimer::Backoff, at, env);
        }
    }

    // ----- sending ---------------------------------------------------------

    /// The interface queue hands us a packet (ns-2 `Mac802_11::send`).
    pub fn send(&mut self, out: Outgoing, p: &MacParams, env: &mut impl MacEnv) {
        debug_assert!(self.pkt_tx.is_none());
        let Some(out) = self.link_layer_send(out, env) else {
            return;
        };
        self.callback_pending = true;
        self.cur_retries = 0;
        self.build_data(out, p);
        self.build_rts(p);
        self.cur_rts_retries = self.pkt_rts.is_some().then_some(0);
        let now = env.now();
        if !self.backoff.is_busy() && !self.pacing_hold() {
            if self.is_idle(now) {
                if !self.timer_armed(MacTimer::Defer) {
                    self.backoff_start(p.timing.difs, 0, p, env);
                }
            } else {
                self.backoff_start(0, 0, p, env);
            }
        }
    }

    /// The link policy's look at the head-of-line packet (Link RED's
    /// `LinkLayerSend`): a packet it drops is done with at once and the next
    /// one is taken from the queue. Returns the packet to send, if any.
    fn link_layer_send(&mut self, mut out: Outgoing, env: &mut impl MacEnv) -> Option<Outgoing> {
        loop {
            if out.next_hop == BROADCAST {
                return Some(out);
            }
            let marked = match self.policy.on_link_send(env.now()) {
                None => return Some(out),
                Some(MarkAction::Drop) => false,
                Some(action) => {
                    let marked = env.mark_ce(&out);
                    if !marked && action == MarkAction::MarkEctOnly {
                        return Some(out);
                    }
                    marked
                }
            };
            self.policy.count_signal(marked);
            if marked {
                return Some(out);
            }
            env.packet_done(&out, TxResult::EarlyDrop);
            out = env.pull_next()?;
        }
    }

    fn build_data(&mut self, out: Outgoing, p: &MacParams) {
        let bytes = p.data_bytes(out.ip_bytes);
        let broadcast = out.next_hop == BROADCAST;
        let airtime = if broadcast { p.timing.basic_airtime(bytes) } else { p.timing.data_airtime(bytes) };
        let seq = self.next_seq;
        self.next_seq = (self.next_seq + 1) & 0x0fff;
        let frame = Frame {
            kind: FrameKind::Data,
            ta: self.id,
            ra: out.next_hop,
            nav: if broadcast { 0 } else { p.duration(p.timing.sifs + p.ack_time) },
            seq,
            retry: false,
            bytes,
            airtime,
            packet: out.packet,
        };
        self.pkt_tx = Some((out, frame));
    }

    /// Prepare an RTS for the packet in service, if it needs one.
    fn build_rts(&mut self, p: &MacParams) {
        let Some((out, data)) = self.pkt_tx else {
            return;
        };
        if data.bytes < p.rts_threshold || out.next_hop == BROADCAST {
            return;
        }
        self.pkt_rts = Some(Frame {
            kind: FrameKind::Rts,
            ta: self.id,
            ra: out.next_hop,
            nav: p.duration(3 * p.timing.sifs + p.cts_time + data.airtime + p.ack_time),
            seq: 0,
            retry: false,
            bytes: p.format.rts_bytes(),
            airtime: p.rts_time,
            packet: NO_PACKET,
        });
    }

    fn transmit(&mut self, frame: Frame, timeout: Time, env: &mut impl MacEnv) {
        let now = env.now();
        self.tx_end = now + frame.airtime;
        // Half duplex: whatever we were receiving is lost.
        if self.radio.state != RxState::Idle {
            self.radio.ruin_current();
        }
        env.transmit(&frame);
        self.start_timer(MacTimer::Send, now + timeout, env);
    }

    fn defer_handler(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        if self.check_pkt_ctrl(p, env) {
            return;
        }
        if self.backoff.is_busy() || self.pacing_hold() {
            return;
        }
        if self.check_pkt_rts(p, env) {
            return;
        }
        self.check_pkt_tx(p, env);
    }

    fn backoff_handler(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        self.backoff.expire();
        if self.pkt_ctrl.is_some() {
            return;
        }
        if self.check_pkt_rts(p, env) {
            return;
        }
        self.check_pkt_tx(p, env);
    }

    /// Send a pending CTS or ACK. Returns true if it acted.
    fn check_pkt_ctrl(&mut self, p: &MacParams, env: &mut impl MacEnv) -> bool {
        let Some(ctrl) = self.pkt_ctrl else {
            return false;
        };
        if matches!(self.tx_state, TxState::Cts | TxState::Ack) {
            return false;
        }
        let timeout = match ctrl.kind {
            FrameKind::Cts => {
                // Answer an RTS only if our own medium (NAV included) is idle.
                if !self.is_idle(env.now()) {
                    self.pkt_ctrl = None;
                    self.counters.cts_withheld += 1;
                    return true;
                }
                self.set_tx_state(TxState::Cts, p, env);
                self.counters.cts_sent += 1;
                (p.cts_time + p.timing.max_prop + ctrl.nav + p.timing.max_prop)
                    .saturating_sub(p.timing.sifs + p.ack_time)
            }
            _ => {
                // ACKs go out SIFS after the DATA regardless of the medium.
                self.set_tx_state(TxState::Ack, p, env);
                self.counters.ack_sent += 1;
                p.ack_time
            }
        };
        self.transmit(ctrl, timeout, env);
        true
    }

    fn check_pkt_rts(&mut self, p: &MacParams, env: &mut impl MacEnv) -> bool {
        let Some(rts) = self.pkt_rts else {
            return false;
        };
        if !self.is_idle(env.now()) {
            self.inc_cw(p);
            self.backoff_start(0, 0, p, env);
            return true;
        }
        self.set_tx_state(TxState::Rts, p, env);
        self.counters.rts_sent += 1;
        let timeout = p.rts_time + p.timing.max_prop + p.timing.sifs + p.cts_time + p.timing.max_prop;
        self.transmit(rts, timeout, env);
        true
    }

    fn check_pkt_tx(&mut self, p: &MacParams, env: &mut impl MacEnv) -> bool {
        let Some((out, data)) = self.pkt_tx else {
            return false;
        };
        if !self.is_idle(env.now()) {
            self.build_rts(p);
            self.inc_cw(p);
            self.backoff_start(0, 0, p, env);
            return true;
        }
        self.set_tx_state(TxState::Send, p, env);
        self.counters.data_sent += 1;
        let timeout = if out.next_hop == BROADCAST {
            data.airtime
        } else {
            data.airtime + p.timing.max_prop + p.timing.sifs + p.ack_time + p.timing.max_prop
        };
        self.transmit(data, timeout, env);
        true
    }

    /// Decide what to do next once an exchange step is over (ns-2 tx_resume).
    fn tx_resume(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        let now = env.now();
        if self.pkt_ctrl.is_some() {
            self.start_timer(MacTimer::Defer, now + p.timing.sifs, env);
        } else if self.pkt_rts.is_some() {
            if !self.backoff.is_busy() && !self.pacing_hold() {
                self.backoff_start(p.timing.difs, 0, p, env);
            }
        } else if let Some((out, data)) = self.pkt_tx {
            if !self.backoff.is_busy() && !self.pacing_hold() {
                if data.bytes < p.rts_threshold || out.next_hop == BROADCAST {
                    self.backoff_start(p.timing.difs, 0, p, env);
                } else {
                    // CTS received: DATA follows after SIFS.
                    self.start_timer(MacTimer::Defer, now + p.timing.sifs, env);
                }
            }
        } else if self.callback_pending {
            self.callback_pending = false;
            if let Some(next) = env.pull_next() {
                self.send(next, p, env);
            }
        }
        self.set_tx_state(TxState::Idle, p, env);
    }

    /// The response we waited for did not come, or our CTS/ACK is done.
    fn send_timer(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        match self.tx_state {
            TxState::Rts => self.retransmit_rts(p, env),
            TxState::Cts | TxState::Ack => self.pkt_ctrl = None,
            TxState::Send => self.retransmit_data(p, env),
            TxState::Idle => {}
        }
        self.tx_resume(p, env);
    }

    fn retransmit_rts(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        self.counters.cts_timeouts += 1;
        if let Some(k) = self.cur_rts_retries.as_mut() {
            *k += 1;
        }
        self.ssrc += 1;
        if self.ssrc >= p.short_retry_limit {
            self.finish_rts_count();
            self.pkt_rts = None;
            if let Some((out, _)) = self.pkt_tx.take() {
                self.counters.drops_rts_retry += 1;
                self.policy.on_tx_done(self.cur_retries + 1);
                env.packet_done(&out, TxResult::Dropped { reason: MacDrop::RtsRetry, retries: self.cur_retries });
            }
            self.ssrc = 0;
            self.rst_cw(p);
        } else {
            if let Some(rts) = self.pkt_rts.as_mut() {
                rts.retry = true;
            }
            self.counters.retries += 1;
            self.cur_retries += 1;
            self.inc_cw(p);
            self.backoff_start(0, 0, p, env);
        }
    }

    fn retransmit_data(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        let Some((out, data)) = self.pkt_tx else {
            return;
        };
        if out.next_hop == BROADCAST {
            self.pkt_tx = None;
            env.packet_done(&out, TxResult::Broadcast);
            self.rst_cw(p);
            self.backoff_start(0, 0, p, env);
            return;
        }
        self.counters.ack_timeouts += 1;
        let short = data.bytes <= p.rts_threshold;
        let (count, limit) = if short {
            self.ssrc += 1;
            (self.ssrc, p.short_retry_limit)
        } else {
            self.slrc += 1;
            (self.slrc, p.long_retry_limit)
        };
        if count >= limit {
            self.pkt_tx = None;
            self.finish_rts_count();
            self.counters.drops_data_retry += 1;
            self.policy.on_tx_done(self.cur_retries + 1);
            env.packet_done(&out, TxResult::Dropped { reason: MacDrop::DataRetry, retries: self.cur_retries });
            if short {
                self.ssrc = 0;
            } else {
                self.slrc = 0;
            }
            self.rst_cw(p);
        } else {
            if let Some((_, f)) = self.pkt_tx.as_mut() {
                f.retry = true;
            }
            self.counters.retries += 1;
            self.cur_retries += 1;
            self.build_rts(p);
            self.inc_cw(p);
            self.backoff_start(0, 0, p, env);
        }
    }

    // ----- receiving -------------------------------------------------------

    /// The first bit of a frame sensed by this node arrives.
    pub fn on_rx_start(&mut self, frame: &Frame, power: f64, decodable: bool, p: &MacParams, env: &mut impl MacEnv) {
        let now = env.now();
        let arrival = Arrival {
            frame: *frame,
            power,
            end: now + frame.airtime,
            error: !decodable || self.is_transmitting(now),
            decodable,
        };
        // The frame a collision may displace, for traces only.
        let displaced = if env.records() { self.radio.current.map(|a| a.frame) } else { None };
        match self.radio.start(arrival, p.capture_ratio) {
            RxStartOutcome::Locked => {
                self.start_timer(MacTimer::Recv, arrival.end, env);
                self.check_backoff_timer(p, env);
            }
            RxStartOutcome::Captured => {
                env.rx_fate(frame, RxFate::Captured);
                // ns-2 keeps carrier sense honest with an EIFS-long NAV.
                self.set_nav(now + p.duration(p.timing.eifs + frame.airtime), env);
            }
            RxStartOutcome::Collided { extended } => {
                self.counters.rx_collisions += 1;
                if extended {
                    if let Some(f) = displaced {
                        env.rx_fate(&f, RxFate::Collided);
                    }
                    self.start_timer(MacTimer::Recv, arrival.end, env);
                } else {
                    env.rx_fate(frame, RxFate::Collided);
                }
            }
        }
    }

    /// The last bit of the frame we are locked on has arrived.
    fn recv_timer(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        let now = env.now();
        let (state, cur) = self.radio.finish();
        if let Some(a) = cur {
            if self.is_transmitting(now) {
                // We were transmitting: never saw it, no NAV update.
                env.rx_fate(&a.frame, RxFate::HalfDuplex);
            } else if state == RxState::Coll {
                env.rx_fate(&a.frame, RxFate::Collided);
                self.counters.rx_collisions += 1;
                self.set_nav(now + p.timing.eifs, env);
            } else if a.error {
                env.rx_fate(&a.frame, if a.decodable { RxFate::HalfDuplex } else { RxFate::BelowThreshold });
                self.set_nav(now + p.timing.eifs, env);
            } else {
                let f = a.frame;
                if f.ra != self.id {
                    self.set_nav(now + f.nav, env);
                }
                if f.ra == self.id || f.ra == BROADCAST {
                    env.rx_fate(&f, RxFate::Received);
                    env.received(&f);
                    match f.kind {
                        FrameKind::Rts => self.recv_rts(&f, p, env),
                        FrameKind::Cts => self.recv_cts(p, env),
                        FrameKind::Data => self.recv_data(&f, p, env),
                        FrameKind::Ack => self.recv_ack(p, env),
                    }
                }
            }
        }
        self.radio.resume();
        self.check_backoff_timer(p, env);
    }

    fn recv_rts(&mut self, f: &Frame, p: &MacParams, env: &mut impl MacEnv) {
        if self.tx_state != TxState::Idle || self.pkt_ctrl.is_some() {
            return;
        }
        self.pkt_ctrl = Some(Frame {
            kind: FrameKind::Cts,
            ta: self.id,
            ra: f.ta,
            nav: p.duration(f.nav.saturating_sub(p.timing.sifs + p.cts_time)),
            seq: 0,
            retry: false,
            bytes: p.format.cts_bytes(),
            airtime: p.cts_time,
            packet: NO_PACKET,
        });
        self.stop_timer(MacTimer::Defer, env);
        self.tx_resume(p, env);
    }

    fn recv_cts(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        if self.tx_state != TxState::Rts {
            return;
        }
        self.pkt_rts = None;
        self.stop_timer(MacTimer::Send, env);
        self.ssrc = 0;
        self.tx_resume(p, env);
    }

    fn recv_data(&mut self, f: &Frame, p: &MacParams, env: &mut impl MacEnv) {
        if f.ra != BROADCAST {
            if f.bytes >= p.rts_threshold {
                // The DATA must follow our CTS.
                if self.tx_state != TxState::Cts {
                    return;
                }
                self.pkt_ctrl = None;
                self.stop_timer(MacTimer::Send, env);
                self.pkt_ctrl = Some(self.ack_for(f.ta, p));
                self.tx_resume(p, env);
            } else {
                if self.pkt_ctrl.is_some() {
                    return;
                }
                self.pkt_ctrl = Some(self.ack_for(f.ta, p));
                if !self.timer_armed(MacTimer::Send) {
                    self.tx_resume(p, env);
                }
            }
            // Duplicate detection (the ACK above still goes out).
            match self.dup_cache.iter_mut().find(|(src, _)| *src == f.ta) {
                Some((_, last)) if *last == f.seq => {
                    self.counters.duplicates += 1;
                    return;
                }
                Some((_, last)) => *last = f.seq,
                None => self.dup_cache.push((f.ta, f.seq)),
            }
        }
        env.deliver_up(f);
    }

    /// The packet in service is done: count its CTS timeouts.
    fn finish_rts_count(&mut self) {
        if let Some(k) = self.cur_rts_retries.take() {
            self.counters.count_rts_retries(k);
        }
    }

    fn ack_for(&self, dst: NodeId, p: &MacParams) -> Frame {
        Frame {
            kind: FrameKind::Ack,
            ta: self.id,
            ra: dst,
            nav: 0,
            seq: 0,
            retry: false,
            bytes: p.format.ack_bytes(),
            airtime: p.ack_time,
            packet: NO_PACKET,
        }
    }

    fn recv_ack(&mut self, p: &MacParams, env: &mut impl MacEnv) {
        if self.tx_state != TxState::Send {
            return;
        }
        let Some((out, data)) = self.pkt_tx.take() else {
            return;
        };
        self.stop_timer(MacTimer::Send, env);
        if data.bytes <= p.rts_threshold {
            self.ssrc = 0;
        } else {
            self.slrc = 0;
        }
        self.rst_cw(p);
        self.finish_rts_count();
        self.counters.packets_acked += 1;
        let retries = self.cur_retries;
        self.policy.on_tx_done(retries);
        env.packet_done(&out, TxResult::Acked { retries });
        // Post-transmission backoff, plus adaptive pacing's extra wait: added
        // to the backoff counter (frozen while the medium is busy), or as a
        // timer that elapses while the next hop forwards the packet.
        let extra = self.policy.extra_backoff_after_success(&data, p);
        if extra > 0 && self.policy.pacing_wait() == PacingWait::Timer {
            self.start_timer(MacTimer::Pace, env.now() + extra, env);
        } else {
            self.backoff_start(0, extra, p, env);
        }
        self.tx_resume(p, env);
    }
}
