//! Unit tests of the DCF through its [`MacEnv`], with a scripted world at exact
//! microsecond times (the way ns-3 tests its channel access manager): the test
//! plays the other stations, the fake environment records what the MAC puts on
//! the air and which timers it sets, and every expected time is derived from the
//! 802.11 DSSS timing (2 Mb/s data, 1 Mb/s control frames) and from what
//! ns-2.35's `Mac802_11` (mac/mac-802_11.cc, mac/mac-timers.cc) does at each step,
//! not from running this code. Backoff slot counts come from an oracle: a clone
//! of the MAC's random stream, drawn `random % cw` in the same order as ns-2's
//! `BackoffTimer::start`, so the tests also check *when* a backoff is drawn and
//! with which contention window.

use std::collections::VecDeque;

use super::dcf::{Dcf, MacDrop, MacEnv, MacParams, MacTimer, Outgoing, TxResult, TxState, N_TIMERS};
use super::timing::{Standard, Timing};
use crate::engine::{RngStream, StreamPurpose, Time, NS_PER_US};
use crate::wire::{Frame, FrameFormat, FrameKind, NodeId, BROADCAST, NO_PACKET};

const US: Time = NS_PER_US;
// DSSS PHY (ns-2.35 defaults): slot 20 µs, SIFS 10 µs, DIFS = SIFS + 2 slots,
// EIFS = SIFS + DIFS + an ACK at 1 Mb/s (192 µs PLCP + 14 B).
const SLOT: Time = 20 * US;
const SIFS: Time = 10 * US;
const DIFS: Time = 50 * US;
const EIFS: Time = (10 + 50 + 304) * US;
// Control frames at 1 Mb/s with the 192 µs long PLCP preamble and header.
const RTS_T: Time = (192 + 20 * 8) * US;
const CTS_T: Time = (192 + 14 * 8) * US;
const ACK_T: Time = CTS_T;
/// Propagation delay between neighbours in these scripts (ns-2's timeouts allow 2 µs).
const PROP: Time = US;
/// The IP packet size used throughout: a 1034-byte MAC frame.
const IP: u32 = 1000;
/// DATA at 2 Mb/s: PLCP + (IP + 34 bytes of ns-2 MAC header and FCS) · 4 µs.
const DATA_T: Time = (192 + 4 * (IP as Time + 34)) * US;
/// Duration fields (ns-2's sendRTS / sendCTS / sendDATA).
const RTS_NAV: Time = 3 * SIFS + CTS_T + DATA_T + ACK_T;
const CTS_NAV: Time = RTS_NAV - SIFS - CTS_T;
const DATA_NAV: Time = SIFS + ACK_T;
/// Timeouts (check_pktRTS / check_pktTx): frame + response, 2 µs propagation each way.
const CTS_TIMEOUT: Time = RTS_T + 2 * US + SIFS + CTS_T + 2 * US;
const ACK_TIMEOUT: Time = DATA_T + 2 * US + SIFS + ACK_T + 2 * US;

const ME: NodeId = 1;
const PEER: NodeId = 2;
const OTHER: NodeId = 3;
const FAR: NodeId = 4;

const RTS_ALWAYS: u32 = 0;
const RTS_NEVER: u32 = 3000;

#[derive(Default)]
struct World {
    now: Time,
    /// (expiry, order set, timer, generation)
    timers: Vec<(Time, u64, MacTimer, u32)>,
    order: u64,
    sent: Vec<(Time, Frame)>,
    queue: VecDeque<Outgoing>,
    up: Vec<(Time, Frame)>,
    done: Vec<(Time, u32, TxResult)>,
}

impl MacEnv for World {
    fn now(&self) -> Time {
        self.now
    }
    fn set_timer(&mut self, timer: MacTimer, at: Time, gen: u32) {
        assert!(at >= self.now, "{timer:?} set in the past");
        self.order += 1;
        self.timers.push((at, self.order, timer, gen));
    }
    fn transmit(&mut self, frame: &Frame) {
        self.sent.push((self.now, *frame));
    }
    fn pull_next(&mut self) -> Option<Outgoing> {
        self.queue.pop_front()
    }
    fn deliver_up(&mut self, frame: &Frame) {
        self.up.push((self.now, *frame));
    }
    fn packet_done(&mut self, out: &Outgoing, result: TxResult) {
        self.done.push((self.now, out.packet, result));
    }
}

/// One station's DCF in a scripted world.
struct Station {
    dcf: Dcf,
    p: MacParams,
    w: World,
    /// Clone of the MAC's backoff stream: predicts each draw.
    oracle: RngStream,
    seen: usize,
}

impl Station {
    fn new(rts_threshold: u32, seed: u64) -> Self {
        let timing = Timing::new(Standard::Dsss, 2.0, 1.0);
        let p = MacParams::new(timing, FrameFormat::Ns2, rts_threshold, 7, 4, 10.0);
        let rng = RngStream::new(seed, ME as u64, StreamPurpose::MacBackoff);
        Station { dcf: Dcf::new(ME, timing.cw_min, rng.clone()), p, w: World::default(), oracle: rng, seen: 0 }
    }

    /// The next backoff the MAC draws, `random % cw` slots.
    fn draw(&mut self, cw: u32) -> Time {
        self.oracle.below(cw) as Time * SLOT
    }

    /// Fire every timer due up to `t` in time order (stale generations are
    /// ignored by the MAC, as in the engine), then set the clock to `t`.
    fn run_until(&mut self, t: Time) {
        while let Some(i) = (0..self.w.timers.len())
            .filter(|&i| self.w.timers[i].0 <= t)
            .min_by_key(|&i| (self.w.timers[i].0, self.w.timers[i].1))
        {
            let (at, _, timer, gen) = self.w.timers.remove(i);
            self.w.now = at;
            self.dcf.on_timer(timer, gen, &self.p, &mut self.w);
        }
        self.w.now = t;
    }

    /// Packet 1 handed over at 1 ms: that time and the backoff it draws.
    fn first_packet(&mut self, next_hop: NodeId) -> (Time, Time) {
        let t0 = 1_000 * US;
        self.send(t0, 1, next_hop);
        (t0, self.draw(31))
    }

    fn send(&mut self, at: Time, packet: u32, next_hop: NodeId) {
        self.run_until(at);
        self.dcf.send(Outgoing { packet, ip_bytes: IP, next_hop }, &self.p, &mut self.w);
    }

    /// The first bit of `frame` reaches us at `at`.
    fn hear(&mut self, at: Time, frame: Frame, decodable: bool, power: f64) {
        self.run_until(at);
        self.dcf.on_rx_start(&frame, power, decodable, &self.p, &mut self.w);
    }

    /// The MAC transmits exactly one frame between the last check and `at`, at `at`.
    fn tx(&mut self, at: Time) -> Frame {
        self.run_until(at);
        let new = &self.w.sent[self.seen..];
        assert!(
            new.len() == 1 && new[0].0 == at,
            "expected one frame at {} µs, got {:?}",
            at / US,
            new.iter().map(|(t, f)| (t / US, f.kind)).collect::<Vec<_>>()
        );
        self.seen += 1;
        new[0].1
    }

    /// Nothing is transmitted up to `t`.
    fn quiet_until(&mut self, t: Time) {
        self.run_until(t);
        let new = &self.w.sent[self.seen..];
        assert!(
            new.is_empty(),
            "unexpected frames {:?}",
            new.iter().map(|(t, f)| (t / US, f.kind)).collect::<Vec<_>>()
        );
    }
}

fn frame(kind: FrameKind, ta: NodeId, ra: NodeId, nav: Time, airtime: Time, bytes: u32) -> Frame {
    Frame { kind, ta, ra, nav, seq: 0, retry: false, bytes, airtime, packet: NO_PACKET }
}
fn rts(ta: NodeId, ra: NodeId) -> Frame {
    frame(FrameKind::Rts, ta, ra, RTS_NAV, RTS_T, 20)
}
fn cts(ra: NodeId) -> Frame {
    frame(FrameKind::Cts, PEER, ra, CTS_NAV, CTS_T, 14)
}
fn ack(ra: NodeId) -> Frame {
    frame(FrameKind::Ack, PEER, ra, 0, ACK_T, 14)
}
fn data(ta: NodeId, ra: NodeId, seq: u16) -> Frame {
    let (nav, airtime) = if ra == BROADCAST { (0, (192 + 8 * (IP as Time + 34)) * US) } else { (DATA_NAV, DATA_T) };
    Frame { seq, packet: 77, ..frame(FrameKind::Data, ta, ra, nav, airtime, IP + 34) }
}

/// A seed whose first backoff draw (cw 31) is at least `min` slots, so that a
/// freeze in the middle of the countdown leaves slots to count.
fn seed_with_first_draw(min: u32) -> u64 {
    (1..).find(|&s| RngStream::new(s, ME as u64, StreamPurpose::MacBackoff).below(31) >= min).unwrap()
}

// ----- backoff ----------------------------------------------------------------------

#[test]
fn backoff_counts_down_after_difs_on_an_idle_medium() {
    // send(): medium idle, no backoff running -> BackoffTimer::start(cw_, idle, DIFS):
    // the frame goes DIFS + (random % 31) slots later.
    for (threshold, kind) in [(RTS_NEVER, FrameKind::Data), (RTS_ALWAYS, FrameKind::Rts)] {
        let mut s = Station::new(threshold, 11);
        let (t0, k) = s.first_packet(PEER);
        s.quiet_until(t0 + DIFS + k - US);
        let f = s.tx(t0 + DIFS + k);
        assert_eq!((f.kind, f.ta, f.ra), (kind, ME, PEER));
        let (nav, airtime) = if kind == FrameKind::Rts { (RTS_NAV, RTS_T) } else { (DATA_NAV, DATA_T) };
        assert_eq!((f.nav, f.airtime), (nav, airtime));
    }
}

#[test]
fn backoff_freezes_on_whole_slots_and_waits_difs_again_on_resume() {
    let mut s = Station::new(RTS_NEVER, seed_with_first_draw(5));
    let (t0, k) = s.first_packet(PEER);
    // A broadcast from OTHER starts 2.5 slots into the countdown: the backoff
    // freezes (BackoffTimer::pause) keeping k - 2 slots, the half slot is lost.
    let b = data(OTHER, BROADCAST, 9);
    let t1 = t0 + DIFS + 2 * SLOT + SLOT / 2;
    s.hear(t1, b, true, 1.0);
    assert!(s.dcf.backoff_paused());
    let end1 = t1 + b.airtime;
    // Idle again at its end: resume(DIFS) waits a whole DIFS before counting.
    // A second broadcast starts within that DIFS: no slot is consumed.
    let t2 = end1 + DIFS / 2;
    s.hear(t2, b, true, 1.0);
    let end2 = t2 + b.airtime;
    s.quiet_until(end2 + DIFS + k - 2 * SLOT - US);
    let f = s.tx(end2 + DIFS + k - 2 * SLOT);
    assert_eq!(f.kind, FrameKind::Data);
    // Both broadcasts went up; a broadcast sets no NAV (duration 0).
    assert_eq!(s.w.up.iter().map(|(t, _)| *t).collect::<Vec<_>>(), vec![end1, end2]);
}

#[test]
fn post_backoff_after_success_delays_the_next_packet() {
    // recvACK: rst_cw(); mhBackoff_.start(cw_, is_idle()) while tx_state_ is still
    // SEND (not idle: the backoff starts frozen), then tx_resume() -> setTxState(IDLE)
    // resumes it with DIFS. A packet handed over meanwhile waits for that backoff.
    let mut s = Station::new(RTS_NEVER, 5);
    let (t0, k1) = s.first_packet(PEER);
    let d = s.tx(t0 + DIFS + k1);
    let ack_at = t0 + DIFS + k1 + d.airtime + PROP + SIFS;
    s.hear(ack_at, ack(ME), true, 1.0);
    let ack_end = ack_at + ACK_T;
    s.run_until(ack_end);
    assert_eq!(s.w.done, vec![(ack_end, 1, TxResult::Acked { retries: 0 })]);
    let k2 = s.draw(31);
    assert!(k2 >= SLOT, "the script needs a post-backoff of at least one slot");
    assert!(s.dcf.backoff_busy() && !s.dcf.backoff_paused());
    // The queue was empty; a packet arrives after DIFS, during the countdown.
    s.send(ack_end + DIFS + US, 2, PEER);
    let f = s.tx(ack_end + DIFS + k2);
    assert_eq!((f.kind, f.seq), (FrameKind::Data, 2));
}

// ----- virtual carrier sense ---------------------------------------------------------

#[test]
fn nav_from_overheard_rts_and_data_only_extends() {
    // OTHER sends RTS/DATA to FAR, whose CTS and ACK we cannot hear.
    let mut s = Station::new(RTS_ALWAYS, 3);
    let r = rts(OTHER, FAR);
    let t1 = 1_000 * US;
    s.hear(t1, r, true, 1.0);
    let rts_end = t1 + RTS_T;
    s.run_until(rts_end);
    // recv_timer: dst != index_ -> set_nav(duration of the RTS).
    assert_eq!(s.dcf.nav(), rts_end + RTS_NAV);
    // A packet during the NAV: not idle -> the backoff starts frozen, no DIFS.
    s.send(rts_end + 20 * US, 1, PEER);
    let k = s.draw(31);
    assert!(s.dcf.backoff_paused());
    // A frame with a shorter reservation (an ACK elsewhere, duration 0) does not shrink it.
    let b = frame(FrameKind::Ack, 5, 6, 0, ACK_T, 14);
    let tb = rts_end + SIFS;
    s.hear(tb, b, true, 1.0);
    s.run_until(tb + b.airtime);
    assert_eq!(s.dcf.nav(), rts_end + RTS_NAV);
    // OTHER's DATA, SIFS after FAR's CTS (+ propagation): its duration (SIFS + ACK)
    // ends PROP later than the RTS's reservation, so the NAV grows by PROP.
    let td = rts_end + SIFS + CTS_T + SIFS + PROP;
    assert!(td > tb + b.airtime);
    s.hear(td, data(OTHER, FAR, 1), true, 1.0);
    let data_end = td + DATA_T;
    s.run_until(data_end);
    let nav_end = data_end + DATA_NAV;
    assert_eq!(nav_end, rts_end + RTS_NAV + PROP);
    assert_eq!(s.dcf.nav(), nav_end);
    assert!(s.dcf.backoff_paused());
    // navHandler at the NAV's end resumes the backoff with DIFS.
    s.quiet_until(nav_end + DIFS + k - US);
    assert_eq!(s.tx(nav_end + DIFS + k).kind, FrameKind::Rts);
}

#[test]
fn eifs_after_a_frame_that_cannot_be_decoded() {
    let mut s = Station::new(RTS_NEVER, seed_with_first_draw(3));
    let (t0, k) = s.first_packet(PEER);
    // Sensed but not decodable (between the carrier-sense and receive thresholds),
    // exactly one slot into the countdown.
    let t1 = t0 + DIFS + SLOT;
    let f = data(OTHER, FAR, 1);
    s.hear(t1, f, false, 0.01);
    let end = t1 + DATA_T;
    s.run_until(end);
    // recv_timer: ch->error() -> set_nav(EIFS); the backoff resumes at the NAV's end.
    assert_eq!(s.dcf.nav(), end + EIFS);
    s.quiet_until(end + EIFS + DIFS + k - SLOT - US);
    assert_eq!(s.tx(end + EIFS + DIFS + k - SLOT).kind, FrameKind::Data);
    assert!(s.w.up.is_empty());
}

#[test]
fn eifs_after_a_collision_counts_from_the_end_of_the_longer_frame() {
    let mut s = Station::new(RTS_NEVER, seed_with_first_draw(2));
    let (t0, k) = s.first_packet(PEER);
    // Two frames for us overlap with equal power: no capture (ratio < 10 dB).
    let t1 = t0 + DIFS;
    s.hear(t1, rts(OTHER, ME), true, 1.0);
    let t2 = t1 + 100 * US;
    let long = data(FAR, ME, 4);
    s.hear(t2, long, true, 1.0);
    let end = t2 + long.airtime;
    s.run_until(end);
    // MAC_COLL at the end of the longer one: set_nav(EIFS); no CTS, nothing delivered.
    assert_eq!(s.dcf.nav(), end + EIFS);
    assert!(s.w.up.is_empty() && s.dcf.counters.rx_collisions >= 1);
    s.quiet_until(end + EIFS + DIFS + k - US);
    assert_eq!(s.tx(end + EIFS + DIFS + k).kind, FrameKind::Data);
}

#[test]
fn a_weaker_frame_is_captured_and_only_sets_an_eifs_nav() {
    let mut s = Station::new(RTS_NEVER, 8);
    let t1 = 1_000 * US;
    let strong = data(PEER, ME, 1);
    s.hear(t1, strong, true, 100.0);
    // 10 dB weaker: capture() -> set_nav(EIFS + txtime of the captured frame).
    let t2 = t1 + 200 * US;
    s.hear(t2, rts(OTHER, FAR), true, 10.0);
    assert_eq!(s.dcf.nav(), t2 + EIFS + RTS_T);
    // The strong frame is received intact and acknowledged SIFS after its end.
    let end = t1 + DATA_T;
    let a = s.tx(end + SIFS);
    assert_eq!((a.kind, a.ra, a.airtime), (FrameKind::Ack, PEER, ACK_T));
    assert_eq!(s.w.up.len(), 1);
}

// ----- responses ---------------------------------------------------------------------

#[test]
fn cts_answers_an_rts_after_sifs_and_the_data_gets_an_ack() {
    let mut s = Station::new(RTS_ALWAYS, 2);
    let t1 = 1_000 * US;
    s.hear(t1, rts(PEER, ME), true, 1.0);
    let c = s.tx(t1 + RTS_T + SIFS);
    // sendCTS: duration = RTS duration - SIFS - CTS.
    assert_eq!((c.kind, c.ra, c.nav, c.airtime), (FrameKind::Cts, PEER, CTS_NAV, CTS_T));
    let td = t1 + RTS_T + SIFS + CTS_T + PROP + SIFS;
    s.hear(td, data(PEER, ME, 1), true, 1.0);
    let a = s.tx(td + DATA_T + SIFS);
    assert_eq!((a.kind, a.ra, a.nav), (FrameKind::Ack, PEER, 0));
    assert_eq!(s.w.up.iter().map(|(t, f)| (*t, f.packet)).collect::<Vec<_>>(), vec![(td + DATA_T, 77)]);
    assert_eq!(s.dcf.counters.cts_sent, 1);
}

#[test]
fn cts_is_withheld_while_the_nav_is_set() {
    let mut s = Station::new(RTS_ALWAYS, 2);
    // OTHER reserves the medium for FAR ...
    let t1 = 1_000 * US;
    s.hear(t1, rts(OTHER, FAR), true, 1.0);
    // ... then PEER, hidden from OTHER, asks us.
    let t2 = t1 + RTS_T + 50 * US;
    s.hear(t2, rts(PEER, ME), true, 1.0);
    // check_pktCTRL, SIFS later: CTS and !is_idle() -> discarded, nothing sent.
    s.quiet_until(t1 + RTS_T + RTS_NAV + 10 * DIFS);
    assert_eq!((s.dcf.counters.cts_withheld, s.dcf.counters.cts_sent), (1, 0));
    assert_eq!(s.dcf.tx_state(), TxState::Idle);
}

#[test]
fn ack_goes_out_sifs_after_data_even_while_the_nav_is_set() {
    let mut s = Station::new(RTS_NEVER, 2);
    let t1 = 1_000 * US;
    s.hear(t1, rts(OTHER, FAR), true, 1.0);
    let t2 = t1 + RTS_T + 30 * US;
    s.hear(t2, data(PEER, ME, 5), true, 1.0);
    assert!(t2 + DATA_T + SIFS < s.dcf.nav());
    assert_eq!(s.tx(t2 + DATA_T + SIFS).kind, FrameKind::Ack);
}

#[test]
fn a_retransmitted_data_frame_is_acknowledged_but_delivered_once() {
    let mut s = Station::new(RTS_NEVER, 2);
    let t1 = 1_000 * US;
    s.hear(t1, data(PEER, ME, 7), true, 1.0);
    s.tx(t1 + DATA_T + SIFS);
    // Our ACK was lost: PEER sends the same sequence number again.
    let t2 = t1 + 10_000 * US;
    s.hear(t2, Frame { retry: true, ..data(PEER, ME, 7) }, true, 1.0);
    assert_eq!(s.tx(t2 + DATA_T + SIFS).kind, FrameKind::Ack);
    assert_eq!((s.w.up.len(), s.dcf.counters.duplicates), (1, 1));
}

#[test]
fn frames_arriving_while_we_transmit_are_missed_without_a_nav() {
    let mut s = Station::new(RTS_NEVER, 4);
    let (t0, k) = s.first_packet(PEER);
    let t_tx = t0 + DIFS + k;
    s.tx(t_tx);
    // recv(): tx_active_ -> error; recv_timer(): tx_active_ -> silent discard.
    let r = rts(OTHER, FAR);
    s.hear(t_tx + 100 * US, r, true, 1.0);
    s.run_until(t_tx + 100 * US + RTS_T);
    assert_eq!(s.dcf.nav(), 0);
}

// ----- retries -----------------------------------------------------------------------

#[test]
fn rts_retried_with_doubling_cw_and_dropped_after_the_short_retry_limit() {
    // RetransmitRTS: ssrc_++, inc_cw(), backoff started frozen (tx_state_ RTS),
    // resumed with DIFS by tx_resume(); at ssrc_ >= 7 the packet is dropped,
    // ssrc_ = 0 and rst_cw(). The next packet starts from cw 31.
    let mut s = Station::new(RTS_ALWAYS, 21);
    s.w.queue.push_back(Outgoing { packet: 2, ip_bytes: IP, next_hop: PEER });
    let (t0, k) = s.first_packet(PEER);
    let mut at = t0 + DIFS + k;
    let mut cw = 31;
    for attempt in 1..=7 {
        let f = s.tx(at);
        assert_eq!((f.kind, f.retry), (FrameKind::Rts, attempt > 1), "attempt {attempt}");
        assert_eq!(s.dcf.cw(), cw);
        let timeout = at + CTS_TIMEOUT;
        if attempt < 7 {
            cw = (2 * cw + 1).min(1023);
            at = timeout + DIFS + s.draw(cw);
        } else {
            // Dropped at the 7th timeout; packet 2 is pulled and backs off with cw 31.
            s.run_until(timeout);
            assert_eq!(s.w.done, vec![(timeout, 1, TxResult::Dropped { reason: MacDrop::RtsRetry, retries: 6 })]);
            assert_eq!(s.dcf.cw(), 31);
            at = timeout + DIFS + s.draw(31);
        }
    }
    let f = s.tx(at);
    assert_eq!((f.kind, f.retry), (FrameKind::Rts, false));
    // The short retry count restarted: one more timeout is a retry, not a drop.
    s.run_until(at + CTS_TIMEOUT);
    assert_eq!(s.w.done.len(), 1);
    assert_eq!(s.dcf.cw(), 63);
    assert_eq!((s.dcf.counters.rts_sent, s.dcf.counters.cts_timeouts, s.dcf.counters.drops_rts_retry), (8, 8, 1));
}

#[test]
fn unacknowledged_data_after_cts_retried_with_a_new_rts_until_the_long_retry_limit() {
    // CTS: ssrc_ = 0 but cw unchanged (recvCTS). DATA timeout (RetransmitDATA):
    // size > RTSThreshold -> slrc_++; below the long limit a fresh RTS is built
    // (sendRTS, retry bit clear), inc_cw(), backoff; at slrc_ >= 4 the packet is dropped.
    let mut s = Station::new(RTS_ALWAYS, 31);
    let (t0, k) = s.first_packet(PEER);
    let mut at = t0 + DIFS + k;
    let mut cw = 31;
    for attempt in 1..=4 {
        let r = s.tx(at);
        assert_eq!((r.kind, r.retry), (FrameKind::Rts, false), "attempt {attempt}");
        let tc = at + RTS_T + PROP + SIFS;
        s.hear(tc, cts(ME), true, 1.0);
        let td = tc + CTS_T + SIFS;
        let d = s.tx(td);
        assert_eq!((d.kind, d.retry, d.seq), (FrameKind::Data, attempt > 1, 1), "attempt {attempt}");
        assert_eq!(s.dcf.cw(), cw);
        if attempt < 4 {
            cw = 2 * cw + 1;
            at = td + ACK_TIMEOUT + DIFS + s.draw(cw);
        } else {
            s.run_until(td + ACK_TIMEOUT);
            assert_eq!(
                s.w.done,
                vec![(td + ACK_TIMEOUT, 1, TxResult::Dropped { reason: MacDrop::DataRetry, retries: 3 })]
            );
        }
    }
    assert_eq!(s.dcf.cw(), 31);
    assert_eq!((s.dcf.counters.ack_timeouts, s.dcf.counters.drops_data_retry), (4, 1));
    // After a drop ns-2 starts no backoff (only a success does): the next packet
    // goes DIFS + a fresh draw after it is handed over.
    assert!(!s.dcf.backoff_busy());
}

#[test]
fn basic_access_retries_data_on_the_short_count_which_each_ack_resets() {
    // size <= RTSThreshold: DATA retries use ssrc_ and the short limit 7. Two
    // packets each need 7 attempts; if the ACK did not reset ssrc_ (recvACK), the
    // second would be dropped at its first timeout.
    let mut s = Station::new(RTS_NEVER, 41);
    s.w.queue.push_back(Outgoing { packet: 2, ip_bytes: IP, next_hop: PEER });
    let (t0, k) = s.first_packet(PEER);
    let mut at = t0 + DIFS + k;
    for packet in 1..=2u32 {
        let mut cw = 31;
        for attempt in 1..=7 {
            let d = s.tx(at);
            assert_eq!((d.kind, d.retry, d.seq), (FrameKind::Data, attempt > 1, packet as u16), "{packet}/{attempt}");
            assert_eq!(s.dcf.cw(), cw);
            if attempt < 7 {
                cw = (2 * cw + 1).min(1023);
                at += ACK_TIMEOUT + DIFS + s.draw(cw);
            } else {
                let ta = at + DATA_T + PROP + SIFS;
                s.hear(ta, ack(ME), true, 1.0);
                s.run_until(ta + ACK_T);
                assert_eq!(s.w.done.last(), Some(&(ta + ACK_T, packet, TxResult::Acked { retries: 6 })));
                // Post-backoff with cw 31; packet 2 (pulled now) waits for it.
                at = ta + ACK_T + DIFS + s.draw(31);
            }
        }
    }
    assert_eq!(s.dcf.counters.packets_acked, 2);
    assert_eq!(s.dcf.counters.drops_data_retry, 0);
}

// ----- broadcast ---------------------------------------------------------------------

#[test]
fn broadcast_goes_without_rts_or_ack_at_the_basic_rate() {
    let mut s = Station::new(RTS_ALWAYS, 6);
    s.w.queue.push_back(Outgoing { packet: 2, ip_bytes: IP, next_hop: PEER });
    let (t0, k) = s.first_packet(BROADCAST);
    let t1 = t0 + DIFS + k;
    let b = s.tx(t1);
    // sendDATA: broadcast at basicRate_, duration 0; no RTS whatever the threshold.
    assert_eq!((b.kind, b.ra, b.nav, b.airtime), (FrameKind::Data, BROADCAST, 0, (192 + 8 * 1034) * US));
    // check_pktTx: timeout = txtime; RetransmitDATA frees it, rst_cw(), backoff.
    let end = t1 + b.airtime;
    s.run_until(end);
    assert_eq!(s.w.done, vec![(end, 1, TxResult::Broadcast)]);
    // The next (unicast) packet waits for that backoff, resumed with DIFS.
    let k = s.draw(31);
    let r = s.tx(end + DIFS + k);
    assert_eq!((r.kind, r.ra), (FrameKind::Rts, PEER));
}

#[test]
fn a_received_broadcast_is_delivered_and_not_acknowledged() {
    let mut s = Station::new(RTS_ALWAYS, 6);
    let b = data(OTHER, BROADCAST, 1);
    let t1 = 1_000 * US;
    s.hear(t1, b, true, 1.0);
    s.quiet_until(t1 + b.airtime + 10 * DIFS);
    assert_eq!(s.w.up.len(), 1);
    // Its duration field is 0: set_nav(0) reserves nothing beyond its end.
    assert_eq!(s.dcf.nav(), t1 + b.airtime);
}

// ----- duration fields at 11 Mb/s ------------------------------------------------------

/// At 11 Mb/s frame times are not whole microseconds. ns-2 writes every Duration
/// field with `usec()` (mac-802_11.h: `floor(t * 1e6 + 0.5)`, the nearest µs), in
/// sendRTS, sendCTS (from the RTS's rounded duration) and sendDATA, and capture()
/// sets the NAV to `usec(EIFS + txtime)`. IEEE 802.11 rounds Duration up instead:
/// that is the `standard` frame format's convention.
#[test]
fn duration_fields_at_11_mbps_round_like_ns2_or_up_like_the_standard() {
    // 1002-byte IP packet: 1036-byte frame, 8288 bits at 11 Mb/s = 753.45 µs.
    let data_ns: Time = 192 * US + 753_455;
    let exact_rts = 3 * SIFS + CTS_T + data_ns + ACK_T; // 1583.455 µs
    for (format, rts_nav) in [(FrameFormat::Ns2, 1583 * US), (FrameFormat::Standard, 1584 * US)] {
        let timing = Timing::new(Standard::Dsss, 11.0, 1.0);
        let p = MacParams::new(timing, format, RTS_ALWAYS, 7, 4, 10.0);
        let mut w = World::default();
        let mut dcf = Dcf::new(ME, timing.cw_min, RngStream::new(1, 1, StreamPurpose::MacBackoff));
        let ip_bytes = 1002 + 34 - p.format.data_overhead_bytes(); // the same 1036-byte frame
        dcf.send(Outgoing { packet: 1, ip_bytes, next_hop: PEER }, &p, &mut w);
        let (at, _, timer, gen) = w.timers.pop().unwrap();
        w.now = at;
        dcf.on_timer(timer, gen, &p, &mut w);
        let r = w.sent[0].1;
        assert_eq!((r.kind, r.nav), (FrameKind::Rts, rts_nav), "{format:?}, exact {exact_rts} ns");

        // Our CTS answers with the RTS's duration minus SIFS and CTS.
        let mut w = World::default();
        let mut dcf = Dcf::new(ME, timing.cw_min, RngStream::new(1, 1, StreamPurpose::MacBackoff));
        let asked = Frame { nav: rts_nav, ..rts(PEER, ME) };
        dcf.on_rx_start(&asked, 1.0, true, &p, &mut w);
        for _ in 0..2 {
            let i = (0..w.timers.len()).min_by_key(|&i| w.timers[i].0).unwrap();
            let (at, _, timer, gen) = w.timers.remove(i);
            w.now = at;
            dcf.on_timer(timer, gen, &p, &mut w);
        }
        let c = w.sent[0].1;
        assert_eq!((c.kind, c.nav), (FrameKind::Cts, rts_nav - SIFS - CTS_T), "{format:?}");

        // A captured 11 Mb/s DATA frame: NAV = EIFS + its duration, rounded.
        let mut w = World::default();
        let mut dcf = Dcf::new(ME, timing.cw_min, RngStream::new(1, 1, StreamPurpose::MacBackoff));
        dcf.on_rx_start(&data(PEER, ME, 1), 100.0, true, &p, &mut w);
        w.now = 50 * US;
        let weak = Frame { airtime: data_ns, ..data(OTHER, FAR, 1) };
        dcf.on_rx_start(&weak, 1.0, true, &p, &mut w);
        let nav = if format == FrameFormat::Ns2 { 945 * US } else { 946 * US } + EIFS;
        assert_eq!(dcf.nav(), w.now + nav, "{format:?}");
    }
}

#[test]
fn timer_numbers_map_back_to_their_timers() {
    // The simulator stores a timer as its number in events.
    for n in 0..N_TIMERS as u8 {
        assert_eq!(MacTimer::from_repr(n).map(|t| t as u8), Some(n));
    }
    assert_eq!(MacTimer::from_repr(N_TIMERS as u8), None);
    assert_eq!(MacTimer::from_repr(5), Some(MacTimer::Pace));
}
