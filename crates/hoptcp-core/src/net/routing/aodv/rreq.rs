//! Route discovery: sending route requests with the expanding ring search
//! and its timeouts (ns-2 sendRequest), and handling received requests —
//! reverse route, duplicate suppression, reply or rebroadcast (ns-2
//! recvRequest).

use super::{Aodv, AodvEnv, AodvMsg, AodvParams, FlowEvent, RouteState, Rreq, INFINITY};
use crate::engine::NS_PER_S;
use crate::net::DropCause;
use crate::wire::{NodeId, BROADCAST};

impl Aodv {
    /// Send a RREQ for `dst` unless a route is valid, the previous request
    /// has not timed out yet, or the discovery has used its retries (then
    /// its buffered packets are dropped and requests pause for
    /// MAX_RREQ_TIMEOUT). `flow` is the flow of the packet that needs it.
    pub(super) fn send_request(&mut self, dst: NodeId, flow: u32, p: &AodvParams, env: &mut impl AodvEnv) {
        let now = env.now();
        let i = self.entry(dst, p);
        let rt = &mut self.table[i];
        if rt.state == RouteState::Up || rt.req_timeout > now {
            return;
        }
        if rt.req_cnt > p.rreq_retries {
            rt.req_timeout = now + p.max_rreq_timeout;
            rt.req_cnt = 0;
            if rt.discovery_since.take().is_some() {
                self.counters.discoveries_failed += 1;
            }
            while let Some(d) = self.buffer.dequeue(dst, env) {
                env.drop_data(d, DropCause::RouteDiscoveryFailed);
            }
            return;
        }
        // Expanding ring: TTL_START, then +TTL_INCREMENT from the last TTL
        // (or the hop count the route had) up to TTL_THRESHOLD, then
        // network-wide with growing timeouts.
        rt.req_last_ttl = rt.req_last_ttl.max(rt.last_hop_count);
        let ttl = if rt.req_last_ttl == 0 {
            p.ttl_start as u16
        } else if rt.req_last_ttl < p.ttl_threshold as u16 {
            rt.req_last_ttl + p.ttl_increment as u16
        } else {
            rt.req_cnt += 1;
            p.network_diameter as u16
        };
        rt.req_last_ttl = ttl;
        let mut timeout = 2 * ttl as u64 * rt.per_hop_time(p.node_traversal_time);
        if rt.req_cnt > 0 {
            timeout *= rt.req_cnt as u64;
        }
        rt.req_timeout = now + timeout.min(p.max_rreq_timeout);
        rt.expire = 0;
        if rt.discovery_since.is_none() {
            rt.discovery_since = Some(now);
            self.counters.route_discoveries += 1;
            env.flow_event(flow, FlowEvent::Discovery);
        }
        let dst_seqno = rt.seqno;
        self.seqno += 2;
        let rq = Rreq {
            hop_count: 1,
            bcast_id: self.bid,
            dst,
            dst_seqno,
            src: self.id,
            src_seqno: self.seqno,
            timestamp: now,
        };
        self.bid = self.bid.wrapping_add(1);
        self.counters.rreq_sent += 1;
        env.send_control(AodvMsg::Rreq(rq), self.id, BROADCAST, BROADCAST, ttl.min(255) as u8, 0);
    }

    /// A RREQ copy arrived from neighbour `ip_src`.
    pub(super) fn recv_request(
        &mut self,
        mut rq: Rreq,
        ip_src: NodeId,
        ttl: u8,
        p: &AodvParams,
        env: &mut impl AodvEnv,
    ) {
        let now = env.now();
        self.counters.rreq_received += 1;
        if rq.src == self.id || self.seen.contains(rq.src, rq.bcast_id, now) {
            return;
        }
        self.seen.insert(rq.src, rq.bcast_id, now, p.bcast_id_save);

        // Reverse route to the originator, through the neighbour it came from.
        let i0 = self.entry(rq.src, p);
        let rt0 = &mut self.table[i0];
        rt0.expire = rt0.expire.max(now + p.reverse_route_life);
        if rq.src_seqno > rt0.seqno || (rq.src_seqno == rt0.seqno && (rq.hop_count as u16) < rt0.hops) {
            let expire = rt0.expire.max(now + p.reverse_route_life);
            self.install(i0, rq.src_seqno, rq.hop_count as u16, ip_src, expire);
            let rt0 = &mut self.table[i0];
            if rt0.req_timeout > 0 {
                rt0.req_cnt = 0;
                rt0.req_timeout = 0;
                rt0.req_last_ttl = rq.hop_count as u16;
                rt0.expire = now + p.active_route_timeout;
            }
            while let Some(d) = self.buffer.dequeue(rq.src, env) {
                self.forward_data(i0, d, 0, p, env);
            }
        }

        let rt = self.table.lookup(rq.dst);
        if rq.dst == self.id {
            // The destination answers with a fresh (even) sequence number.
            self.seqno = self.seqno.max(rq.dst_seqno) + 1;
            if self.seqno % 2 == 1 {
                self.seqno += 1;
            }
            let seqno = self.seqno;
            self.send_reply(rq.src, 1, self.id, seqno, p.my_route_timeout, rq.timestamp, p, env);
        } else if let Some(i) = rt.filter(|&i| self.table[i].hops != INFINITY && self.table[i].seqno >= rq.dst_seqno) {
            // An intermediate node with a fresh enough route answers. Its
            // remaining lifetime goes out in whole seconds, cast from a
            // double to u32 as ns-2's C does (truncation, wrapping negatives).
            let rt = &self.table[i];
            let secs = (rt.expire as i128 - now as i128) / NS_PER_S as i128;
            let lifetime = (secs as i64 as u32) as u64 * NS_PER_S;
            let (hops, seqno, next) = (rt.hops, rt.seqno, rt.next_hop);
            self.send_reply(rq.src, (hops + 1) as u8, rq.dst, seqno, lifetime, rq.timestamp, p, env);
            let nh0 = self.table[i0].next_hop;
            self.table[i].add_precursor(nh0);
            self.table[i0].add_precursor(next);
        } else {
            rq.hop_count = rq.hop_count.wrapping_add(1);
            if let Some(i) = rt {
                rq.dst_seqno = rq.dst_seqno.max(self.table[i].seqno);
            }
            if ttl == 0 {
                env.drop_control(DropCause::Ttl);
                return;
            }
            self.counters.rreq_forwarded += 1;
            let delay = self.jitter(p);
            env.send_control(AodvMsg::Rreq(rq), self.id, BROADCAST, BROADCAST, ttl, delay);
        }
    }
}
