//! Per-node reception under ns-2's threshold model.
//!
//! A node locks onto the first frame it senses while idle. A later frame is
//! ignored ("captured") if the locked frame is at least `cp_thresh` times
//! stronger; otherwise both collide: the node stays busy until the longer of
//! the two ends and then discards it. There is no cumulative interference,
//! only pairwise power ratios, and a later, stronger frame never captures.

use crate::engine::Time;
use crate::wire::frame::Frame;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxState {
    Idle,
    Recv,
    Coll,
}

/// A frame arriving at this node.
#[derive(Clone, Copy, Debug)]
pub struct Arrival {
    pub frame: Frame,
    pub power: f64,
    /// When its last bit arrives here.
    pub end: Time,
    /// Cannot be decoded: below the receive threshold, or ruined by our own
    /// transmission (half duplex).
    pub error: bool,
    /// At or above the receive threshold (traces tell the two errors apart).
    pub decodable: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxStartOutcome {
    /// The node was idle and now receives this frame until its end.
    Locked,
    /// Ignored: the frame being received is at least `cp_thresh` stronger.
    Captured,
    /// Collision; `extended` when the new frame ends later and the node now
    /// stays busy until its end (the reception timer must be moved).
    Collided { extended: bool },
}

#[derive(Clone, Debug)]
pub struct Radio {
    pub state: RxState,
    /// The frame the node is locked on (ns-2's pktRx_).
    pub current: Option<Arrival>,
}

impl Default for Radio {
    fn default() -> Self {
        Radio { state: RxState::Idle, current: None }
    }
}

impl Radio {
    /// First bit of `arrival` reaches the node.
    pub fn start(&mut self, arrival: Arrival, cp_thresh: f64) -> RxStartOutcome {
        match (self.state, self.current.as_mut()) {
            (RxState::Idle, _) | (_, None) => {
                self.state = RxState::Recv;
                self.current = Some(arrival);
                RxStartOutcome::Locked
            }
            (_, Some(cur)) => {
                if cur.power / arrival.power >= cp_thresh {
                    RxStartOutcome::Captured
                } else {
                    self.state = RxState::Coll;
                    if arrival.end > cur.end {
                        *cur = arrival;
                        RxStartOutcome::Collided { extended: true }
                    } else {
                        RxStartOutcome::Collided { extended: false }
                    }
                }
            }
        }
    }

    /// Mark the frame being received as lost (we started transmitting).
    pub fn ruin_current(&mut self) {
        if let Some(cur) = self.current.as_mut() {
            cur.error = true;
        }
    }

    /// The reception timer fired: hand back the frame and its state; the
    /// caller returns the radio to idle with [`Radio::resume`] once it has
    /// processed the frame.
    pub fn finish(&mut self) -> (RxState, Option<Arrival>) {
        (self.state, self.current.take())
    }

    pub fn resume(&mut self) {
        self.state = RxState::Idle;
        self.current = None;
    }

    #[cfg(test)] // only the unit tests read it
    pub fn is_idle(&self) -> bool {
        self.state == RxState::Idle
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::frame::{FrameKind, NO_PACKET};

    fn arr(power: f64, end: Time) -> Arrival {
        Arrival {
            frame: Frame {
                kind: FrameKind::Rts,
                ta: 0,
                ra: 1,
                nav: 0,
                seq: 0,
                retry: false,
                bytes: 20,
                airtime: 352_000,
                packet: NO_PACKET,
            },
            power,
            end,
            error: false,
            decodable: true,
        }
    }

    #[test]
    fn idle_locks_on() {
        let mut r = Radio::default();
        assert_eq!(r.start(arr(1.0, 10), 10.0), RxStartOutcome::Locked);
        assert_eq!(r.state, RxState::Recv);
    }

    #[test]
    fn ten_db_stronger_current_captures() {
        let mut r = Radio::default();
        r.start(arr(10.0, 100), 10.0);
        assert_eq!(r.start(arr(1.0, 500), 10.0), RxStartOutcome::Captured);
        assert_eq!(r.state, RxState::Recv);
        assert_eq!(r.current.unwrap().end, 100);
    }

    #[test]
    fn later_stronger_frame_never_captures_and_longest_survives() {
        let mut r = Radio::default();
        r.start(arr(1.0, 100), 10.0);
        assert_eq!(r.start(arr(100.0, 500), 10.0), RxStartOutcome::Collided { extended: true });
        assert_eq!(r.state, RxState::Coll);
        assert_eq!(r.current.unwrap().end, 500);
        // Compared against the new current frame (power 100): 50 is not 10 dB weaker.
        assert_eq!(r.start(arr(50.0, 200), 10.0), RxStartOutcome::Collided { extended: false });
        assert_eq!(r.start(arr(1.0, 200), 10.0), RxStartOutcome::Captured);
        let (state, cur) = r.finish();
        assert_eq!(state, RxState::Coll);
        assert_eq!(cur.unwrap().end, 500);
        r.resume();
        assert!(r.is_idle());
    }

    #[test]
    fn just_below_capture_ratio_collides() {
        let mut r = Radio::default();
        r.start(arr(9.99, 100), 10.0);
        assert!(matches!(r.start(arr(1.0, 50), 10.0), RxStartOutcome::Collided { .. }));
    }
}
