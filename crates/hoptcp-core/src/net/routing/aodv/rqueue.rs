//! The request buffer (ns-2.35 aodv_rqueue.cc): data packets waiting for a
//! route, first in first out, at most AODV_RTQ_MAX_LEN (64) of them, each
//! for at most AODV_RTQ_TIMEOUT (30 s). Every insertion and removal first
//! discards the packets that waited too long (ns-2 removes them without a
//! trace entry; hoptcp counts them as `route_buffer_timeout`). A full
//! buffer makes room by dropping its head.

use super::{AodvEnv, DataRef};
use crate::engine::Time;
use crate::net::DropCause;
use crate::wire::NodeId;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub struct RequestBuffer {
    /// (packet, time after which it is discarded).
    q: VecDeque<(DataRef, Time)>,
}

impl RequestBuffer {
    #[cfg(test)] // only the unit tests read it
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// Drop every packet whose time is up (ns-2: `ts_ < now`).
    fn purge(&mut self, env: &mut impl AodvEnv) {
        let now = env.now();
        self.q.retain(|&(d, t)| {
            if t < now {
                env.drop_data(d, DropCause::RouteBufferTimeout);
                false
            } else {
                true
            }
        });
    }

    /// Buffer `d` for at most `timeout`; a full buffer drops its head.
    pub fn enqueue(&mut self, d: DataRef, limit: u32, timeout: Time, env: &mut impl AodvEnv) {
        self.purge(env);
        let now = env.now();
        if self.q.len() as u32 >= limit {
            if let Some((old, t)) = self.q.pop_front() {
                let cause = if t > now { DropCause::RouteBufferOverflow } else { DropCause::RouteBufferTimeout };
                env.drop_data(old, cause);
            }
        }
        if limit > 0 {
            self.q.push_back((d, now + timeout));
        } else {
            env.drop_data(d, DropCause::RouteBufferOverflow);
        }
    }

    /// The oldest packet for `dst`, removed.
    pub fn dequeue(&mut self, dst: NodeId, env: &mut impl AodvEnv) -> Option<DataRef> {
        self.purge(env);
        let i = self.q.iter().position(|(d, _)| d.dst == dst)?;
        self.q.remove(i).map(|(d, _)| d)
    }

    /// The oldest packet for `dst`, left in place (no purge, as ns-2's find).
    pub fn find(&self, dst: NodeId) -> Option<&DataRef> {
        self.q.iter().find(|(d, _)| d.dst == dst).map(|(d, _)| d)
    }
}
