//! AODV driven by hand: hand-made messages and data packets, a fake clock,
//! and an environment that records what the state machine asks for.

use super::*;
use crate::engine::{StreamPurpose, NS_PER_MS, NS_PER_S};
use crate::wire::BROADCAST;

#[derive(Debug, Clone, PartialEq)]
struct Sent {
    msg: AodvMsg,
    ip_src: NodeId,
    ip_dst: NodeId,
    next_hop: NodeId,
    ttl: u8,
    delay: Time,
}

#[derive(Default)]
struct Env {
    now: Time,
    sent: Vec<Sent>,
    data: Vec<(DataRef, NodeId, Time)>,
    dropped: Vec<(DataRef, DropCause)>,
    control_drops: Vec<DropCause>,
    flushed: Vec<NodeId>,
    timers: Vec<(Time, NodeId)>,
    flow_events: Vec<(u32, FlowEvent)>,
}

impl AodvEnv for Env {
    fn now(&self) -> Time {
        self.now
    }
    fn send_control(&mut self, msg: AodvMsg, ip_src: NodeId, ip_dst: NodeId, next_hop: NodeId, ttl: u8, delay: Time) {
        self.sent.push(Sent { msg, ip_src, ip_dst, next_hop, ttl, delay });
    }
    fn send_data(&mut self, d: DataRef, next_hop: NodeId, delay: Time) {
        self.data.push((d, next_hop, delay));
    }
    fn drop_data(&mut self, d: DataRef, cause: DropCause) {
        self.dropped.push((d, cause));
    }
    fn drop_control(&mut self, cause: DropCause) {
        self.control_drops.push(cause);
    }
    fn flush_queue(&mut self, next_hop: NodeId) {
        self.flushed.push(next_hop);
    }
    fn set_local_repair_timer(&mut self, at: Time, dst: NodeId) {
        self.timers.push((at, dst));
    }
    fn flow_event(&mut self, flow: u32, ev: FlowEvent) {
        self.flow_events.push((flow, ev));
    }
}

impl Env {
    fn at(&mut self, t: Time) -> &mut Self {
        self.now = t;
        self
    }
    fn take_sent(&mut self) -> Vec<Sent> {
        std::mem::take(&mut self.sent)
    }
    fn rreqs(&self) -> Vec<Rreq> {
        self.sent
            .iter()
            .filter_map(|s| match s.msg {
                AodvMsg::Rreq(r) => Some(r),
                _ => None,
            })
            .collect()
    }
}

fn node(id: NodeId) -> Aodv {
    Aodv::new(id, RngStream::new(1, id as u64, StreamPurpose::RoutingJitter))
}

fn data(pkt: u32, src: NodeId, dst: NodeId, hops: u16) -> DataRef {
    DataRef { pkt, src, dst, hops, flow: 0 }
}

const MS: Time = NS_PER_MS;
const S: Time = NS_PER_S;

/// Node `a` (k) of the chain 0..7 hears 0's RREQ for 7 from k - 1 and the
/// RREP back from k + 1: a reverse route to 0 via k - 1 and a forward route
/// to 7 via k + 1.
fn on_chain_route(a: &mut Aodv, p: &AodvParams, env: &mut Env) {
    let k = a.id;
    a.recv(AodvMsg::Rreq(rreq(0, 7, k as u8, 1, 4, 0)), k - 1, BROADCAST, 30 - k as u8, p, env);
    let rp = rrep(7 - k as u8, 7, 4, k + 1);
    a.recv(AodvMsg::Rrep(rp), 7, 0, 23 + k as u8, p, env);
}

/// A reply from `src` about `dst`, valid for 10 s.
fn rrep(hop_count: u8, dst: NodeId, dst_seqno: u32, src: NodeId) -> Rrep {
    Rrep { hop_count, dst, dst_seqno, src, lifetime: 10 * S, timestamp: 0 }
}

/// Default parameters, node `id` and an empty environment.
fn at_node(id: NodeId) -> (AodvParams, Aodv, Env) {
    (AodvParams::default(), node(id), Env::default())
}

fn rreq(src: NodeId, dst: NodeId, hop_count: u8, bcast_id: u32, src_seqno: u32, dst_seqno: u32) -> Rreq {
    Rreq { hop_count, bcast_id, dst, dst_seqno, src, src_seqno, timestamp: 0 }
}

/// Run the periodic purge at every tick in (from, to].
fn purge_until(a: &mut Aodv, p: &AodvParams, env: &mut Env, from: Time, to: Time) {
    let mut t = (from / p.purge_interval + 1) * p.purge_interval;
    while t <= to {
        env.at(t);
        a.purge(p, env);
        t += p.purge_interval;
    }
}

/// (time, TTL) of every RREQ sent while the purge runs until `to`.
fn rreq_schedule(a: &mut Aodv, p: &AodvParams, env: &mut Env, to: Time) -> Vec<(Time, u8)> {
    let mut out = Vec::new();
    let mut t = 0;
    while t <= to {
        env.at(t);
        a.purge(p, env);
        for s in env.take_sent() {
            if let AodvMsg::Rreq(_) = s.msg {
                out.push((t, s.ttl));
            }
        }
        t += p.purge_interval;
    }
    out
}

#[test]
fn source_buffers_and_broadcasts_a_request() {
    let (p, mut a, mut env) = at_node(0);
    a.resolve(data(1, 0, 7, 0), &p, &mut env);
    assert_eq!(a.buffered(), 1);
    assert!(env.data.is_empty());
    let s = &env.sent[0];
    assert_eq!((s.ip_src, s.ip_dst, s.next_hop, s.delay), (0, BROADCAST, BROADCAST, 0));
    let AodvMsg::Rreq(rq) = s.msg else { panic!("not a RREQ: {s:?}") };
    assert_eq!((rq.src, rq.dst, rq.hop_count, rq.bcast_id, rq.dst_seqno), (0, 7, 1, 1, 0));
    assert_eq!(rq.src_seqno, 4, "seqno starts at 2 and grows by 2 per request");
    assert_eq!(a.counters.rreq_sent, 1);
    assert_eq!(a.counters.route_discoveries, 1);
    assert_eq!(env.flow_events, vec![(0, FlowEvent::Discovery)]);
    // A second packet joins the buffer without a new request (timeout pending).
    a.resolve(data(2, 0, 7, 0), &p, env.at(10 * MS));
    assert_eq!((env.sent.len(), a.buffered()), (1, 2));
}

#[test]
fn ns2_first_request_is_network_wide_with_growing_timeouts_then_gives_up() {
    let (p, mut a, mut env) = at_node(0);
    a.resolve(data(1, 0, 7, 0), &p, &mut env);
    assert_eq!(env.take_sent()[0].ttl, 30);
    // Retries at the purge after each timeout: 2·30·30 ms = 1.8 s times the
    // number of network-wide requests so far.
    let got = rreq_schedule(&mut a, &p, &mut env, 40 * S);
    // Timeouts end at 1.8, 5.6, 11.4 and 18.7 s; the purge runs every 0.5 s.
    let want: Vec<(Time, u8)> = vec![(2 * S, 30), (6 * S, 30), (11_500 * MS, 30)];
    assert_eq!(got, want);
    // A fifth request would exceed RREQ_RETRIES: at 19 s the discovery
    // gives up, drops the packet and pauses for MAX_RREQ_TIMEOUT.
    assert_eq!(env.dropped, vec![(data(1, 0, 7, 0), DropCause::RouteDiscoveryFailed)]);
    assert_eq!(a.counters.discoveries_failed, 1);
    assert_eq!(a.route(7).unwrap().req_timeout, 19 * S + 10 * S);
    assert_eq!(a.buffered(), 0);
}

#[test]
fn expanding_ring_without_the_ns2_quirk() {
    let p = AodvParams { first_rreq_network_wide: false, ..AodvParams::default() };
    let mut a = node(0);
    let mut env = Env::default();
    a.resolve(data(1, 0, 7, 0), &p, &mut env);
    assert_eq!(env.take_sent()[0].ttl, 5, "TTL_START");
    // TTL 5 times out after 2·5·30 = 300 ms, TTL 7 after 420 ms, then
    // network-wide requests every 1.8 s × count.
    let got = rreq_schedule(&mut a, &p, &mut env, 15 * S);
    assert_eq!(got, vec![(500 * MS, 7), (1000 * MS, 30), (3 * S, 30), (7 * S, 30), (12_500 * MS, 30)]);
}

#[test]
fn rediscovery_of_a_short_route_starts_from_its_last_hop_count() {
    let (p, mut a, mut env) = at_node(0);
    a.resolve(data(1, 0, 3, 0), &p, &mut env);
    env.take_sent();
    // Node 1 relays the reply of node 3 (3 hops away).
    let rp = rrep(3, 3, 6, 1);
    a.recv(AodvMsg::Rrep(rp), 3, 0, 27, &p, env.at(30 * MS));
    assert_eq!(a.next_hop(3), Some(1));
    // The link to node 1 breaks (a packet from this node: no local repair).
    a.link_failed(data(2, 0, 3, 0), 1, DropCause::MacRtsRetry, &p, env.at(S));
    assert_eq!(a.route(3).unwrap().state, RouteState::Down);
    env.take_sent();
    a.resolve(data(3, 0, 3, 0), &p, env.at(S + MS));
    // Expanding ring: last hop count 3 + TTL_INCREMENT.
    assert_eq!(env.take_sent()[0].ttl, 5);
}

#[test]
fn destination_replies_through_the_reverse_route() {
    let (p, mut a, mut env) = at_node(7);
    // Node 0's request reaches node 7 from node 6 after 7 hops.
    a.recv(AodvMsg::Rreq(rreq(0, 7, 7, 1, 4, 0)), 6, BROADCAST, 23, &p, env.at(S));
    let back = a.route(0).unwrap();
    assert_eq!((back.state, back.next_hop, back.hops, back.seqno), (RouteState::Up, 6, 7, 4));
    assert_eq!(back.expire, S + p.reverse_route_life);
    assert_eq!(env.sent.len(), 1);
    let s = &env.sent[0];
    assert_eq!((s.ip_src, s.ip_dst, s.next_hop, s.ttl, s.delay), (7, 0, 6, 30, 0));
    let AodvMsg::Rrep(rp) = s.msg else { panic!("not a RREP") };
    assert_eq!((rp.hop_count, rp.dst, rp.src, rp.lifetime), (1, 7, 7, p.my_route_timeout));
    assert_eq!(rp.dst_seqno, 4, "max(own 2, requested 0) + 1, rounded up to even");
    assert_eq!(a.counters.rrep_sent, 1);
}

#[test]
fn intermediate_node_with_a_fresh_route_replies_else_rebroadcasts() {
    let (p, mut a, mut env) = at_node(3);
    // Node 3 knows node 7 (4 hops via 4, seqno 10), valid for 5.7 s more.
    let rp = Rrep { hop_count: 4, dst: 7, dst_seqno: 10, src: 4, lifetime: 5_700 * MS, timestamp: 0 };
    a.recv(AodvMsg::Rrep(rp), 7, 3, 26, &p, &mut env);
    assert_eq!(a.next_hop(7), Some(4));
    // A request for 7 that knows seqno 8: node 3's route is fresh enough.
    a.recv(AodvMsg::Rreq(rreq(0, 7, 3, 1, 4, 8)), 2, BROADCAST, 27, &p, &mut env);
    let s = env.sent.last().unwrap().clone();
    assert_eq!((s.ip_src, s.ip_dst, s.next_hop), (3, 0, 2));
    let AodvMsg::Rrep(r) = s.msg else { panic!("not a RREP") };
    assert_eq!((r.hop_count, r.dst, r.dst_seqno), (5, 7, 10));
    assert_eq!(r.lifetime, 5 * S, "remaining lifetime in whole seconds");
    assert_eq!(a.route(7).unwrap().precursors, vec![2]);
    assert_eq!(a.route(0).unwrap().precursors, vec![4]);
    assert_eq!(a.counters.rreq_forwarded, 0);
    // A request that knows a newer seqno (12) is rebroadcast instead.
    let before = env.sent.len();
    a.recv(AodvMsg::Rreq(rreq(1, 7, 2, 1, 4, 12)), 2, BROADCAST, 27, &p, &mut env);
    assert_eq!(env.sent.len(), before + 1);
    let s = env.sent.last().unwrap();
    assert_eq!((s.ip_src, s.ip_dst, s.ttl), (3, BROADCAST, 27));
    assert!(s.delay < p.broadcast_jitter, "jitter {} within 10 ms", s.delay);
    let AodvMsg::Rreq(fwd) = s.msg else { panic!("not a RREQ") };
    assert_eq!((fwd.hop_count, fwd.dst_seqno, fwd.src), (3, 12, 1));
    assert_eq!(a.counters.rreq_forwarded, 1);
}

#[test]
fn duplicate_requests_are_suppressed_until_the_id_cache_purge() {
    let (p, mut a, mut env) = at_node(3);
    let rq = rreq(0, 7, 3, 9, 4, 0);
    a.recv(AodvMsg::Rreq(rq), 2, BROADCAST, 27, &p, env.at(S));
    assert_eq!(env.rreqs().len(), 1, "first copy rebroadcast");
    a.recv(AodvMsg::Rreq(rq), 4, BROADCAST, 25, &p, env.at(S + 5 * MS));
    a.recv(AodvMsg::Rreq(rq), 2, BROADCAST, 27, &p, env.at(11 * S));
    assert_eq!(env.rreqs().len(), 1, "copies with the same (source, id) are dropped");
    assert_eq!(a.counters.rreq_received, 3);
    // The entry (expiring at 7 s) is purged at 12 s: the same id is new again.
    a.recv(AodvMsg::Rreq(rq), 2, BROADCAST, 27, &p, env.at(12 * S));
    assert_eq!(env.rreqs().len(), 2);
    // A node never processes its own request.
    let mut src = node(0);
    let mut e2 = Env::default();
    src.recv(AodvMsg::Rreq(rq), 1, BROADCAST, 29, &p, &mut e2);
    assert!(e2.sent.is_empty() && src.route(0).is_none());
}

#[test]
fn request_with_expired_ttl_is_not_forwarded() {
    let (p, mut a, mut env) = at_node(5);
    a.recv(AodvMsg::Rreq(rreq(0, 7, 5, 1, 4, 0)), 4, BROADCAST, 0, &p, &mut env);
    assert!(env.sent.is_empty());
    assert_eq!(env.control_drops, vec![DropCause::Ttl]);
    // The reverse route is still learnt.
    assert_eq!(a.next_hop(0), Some(4));
}

#[test]
fn reply_installs_the_route_and_sends_buffered_packets_spaced_by_arp_delay() {
    let (p, mut a, mut env) = at_node(0);
    for k in 0..3 {
        a.resolve(data(k, 0, 7, 0), &p, env.at(k as Time * MS));
    }
    let rp = rrep(7, 7, 4, 1);
    a.recv(AodvMsg::Rrep(rp), 7, 0, 23, &p, env.at(140 * MS));
    let rt = a.route(7).unwrap();
    assert_eq!((rt.state, rt.next_hop, rt.hops, rt.seqno, rt.req_cnt, rt.req_timeout), (RouteState::Up, 1, 7, 4, 0, 0));
    assert_eq!(rt.disc_latency[0], 20 * MS, "140 ms over 7 hops");
    assert_eq!(
        env.data,
        vec![(data(0, 0, 7, 0), 1, 0), (data(1, 0, 7, 0), 1, 10 * MS), (data(2, 0, 7, 0), 1, 20 * MS)]
    );
    assert_eq!(a.buffered(), 0);
    assert!(env.sent.iter().all(|s| matches!(s.msg, AodvMsg::Rreq(_))), "the reply is not passed on");
    // Later packets go straight out and refresh the route.
    a.resolve(data(9, 0, 7, 0), &p, env.at(2 * S));
    assert_eq!(env.data.last(), Some(&(data(9, 0, 7, 0), 1, 0)));
    assert_eq!(a.route(7).unwrap().expire, 2 * S + p.active_route_timeout);
    // A stale reply (same seqno, more hops) changes nothing.
    let stale = rrep(9, 7, 4, 2);
    a.recv(AodvMsg::Rrep(stale), 7, 0, 23, &p, env.at(3 * S));
    assert_eq!(a.next_hop(7), Some(1));
}

#[test]
fn intermediate_node_passes_the_reply_on_and_records_precursors() {
    let (p, mut a, mut env) = at_node(3);
    a.recv(AodvMsg::Rreq(rreq(0, 7, 3, 1, 4, 0)), 2, BROADCAST, 27, &p, &mut env);
    env.take_sent();
    let rp = rrep(4, 7, 4, 4);
    a.recv(AodvMsg::Rrep(rp), 7, 0, 26, &p, env.at(50 * MS));
    let s = env.take_sent().pop().unwrap();
    assert_eq!((s.ip_src, s.ip_dst, s.next_hop, s.ttl), (7, 0, 2, 26));
    let AodvMsg::Rrep(fwd) = s.msg else { panic!("not a RREP") };
    assert_eq!((fwd.hop_count, fwd.src), (5, 3));
    assert_eq!(a.route(7).unwrap().precursors, vec![2]);
    assert_eq!(a.route(0).unwrap().expire, 50 * MS + p.active_route_timeout, "forwarding refreshes the reverse route");
    // Without a way back the reply is dropped.
    let mut b = node(5);
    let mut e2 = Env::default();
    b.recv(AodvMsg::Rrep(rp), 7, 0, 26, &p, &mut e2);
    assert_eq!(e2.control_drops, vec![DropCause::NoRoute]);
}

#[test]
fn routes_expire_at_the_purge_after_their_lifetime() {
    let (p, mut a, mut env) = at_node(0);
    let rp = rrep(2, 2, 6, 1);
    a.recv(AodvMsg::Rrep(rp), 2, 0, 28, &p, env.at(S));
    purge_until(&mut a, &p, &mut env, S, 11 * S);
    assert_eq!(a.route(2).unwrap().state, RouteState::Up, "expires at 11 s, still valid at 11 s");
    env.at(11_500 * MS);
    a.purge(&p, &mut env);
    let rt = a.route(2).unwrap();
    assert_eq!((rt.state, rt.seqno, rt.last_hop_count), (RouteState::Down, 7, 2));
    assert_eq!(a.counters.routes_expired, 1);
    assert!(env.sent.is_empty(), "expiry sends no RERR");
}

#[test]
fn link_break_near_the_source_drops_flushes_and_sends_rerr() {
    let (p, mut a, mut env) = at_node(2);
    // Node 2 on the chain 0..7: reverse route to 0 (via 1) and forward route to 7 (via 3).
    on_chain_route(&mut a, &p, &mut env);
    env.take_sent();
    let seq_before = a.seqno();
    // A data packet 2 hops from its source fails towards node 3, 5 hops
    // from the destination: nearer the source, so no local repair.
    let d = data(5, 0, 7, 2);
    a.link_failed(d, 3, DropCause::MacDataRetry, &p, env.at(S));
    assert_eq!(env.dropped, vec![(d, DropCause::MacDataRetry)]);
    assert_eq!(env.flushed, vec![3]);
    let rt = a.route(7).unwrap();
    assert_eq!((rt.state, rt.seqno, rt.hops, rt.last_hop_count), (RouteState::Down, 5, INFINITY, 5));
    assert_eq!(a.next_hop(0), Some(1), "routes through other neighbours stay");
    assert_eq!(a.seqno(), seq_before + 2);
    let s = env.take_sent();
    assert_eq!(s.len(), 1);
    assert_eq!((s[0].ip_dst, s[0].next_hop, s[0].ttl, s[0].delay), (BROADCAST, BROADCAST, 1, 0));
    let AodvMsg::Rerr(e) = s[0].msg else { panic!("not a RERR") };
    assert_eq!(e.entries(), &[(7, 5)]);
    assert_eq!((a.counters.route_breaks, a.counters.rerr_sent, a.counters.local_repairs), (1, 1, 0));
    assert_eq!(env.flow_events, vec![(0, FlowEvent::RouteBreak)]);
    // A packet from upstream for 7 now finds the route down: RERR and drop.
    let d2 = data(6, 0, 7, 2);
    a.resolve(d2, &p, env.at(S + MS));
    assert_eq!(env.dropped.last(), Some(&(d2, DropCause::NoRoute)));
    assert!(matches!(env.take_sent()[0].msg, AodvMsg::Rerr(_)));
}

#[test]
fn link_break_near_the_destination_is_repaired_locally() {
    let (p, mut a, mut env) = at_node(5);
    on_chain_route(&mut a, &p, &mut env);
    env.take_sent();
    // 5 hops travelled > 2 hops to go: repair.
    let d = data(5, 0, 7, 5);
    a.link_failed(d, 6, DropCause::MacRtsRetry, &p, env.at(20 * S));
    assert!(env.dropped.is_empty() && env.flushed.is_empty());
    assert_eq!(a.buffered(), 1);
    assert_eq!(a.route(7).unwrap().state, RouteState::InRepair);
    let rq = env.rreqs();
    assert_eq!(rq.len(), 1);
    assert_eq!((rq[0].src, rq[0].dst, rq[0].dst_seqno), (5, 7, 4));
    // The route never went down, so its last hop count is still ns-2's
    // "infinity": the repair request is network-wide.
    assert_eq!(env.sent[0].ttl, 30);
    // ns-2 arms the timer with rt_req_timeout (absolute) as a delay.
    let req_timeout = a.route(7).unwrap().req_timeout;
    assert_eq!(req_timeout, 20 * S + 2 * 30 * p.node_traversal_time);
    assert_eq!(env.timers, vec![(20 * S + req_timeout, 7)]);
    assert_eq!(a.counters.local_repairs, 1);
    // Packets arriving meanwhile wait too.
    a.resolve(data(6, 0, 7, 5), &p, env.at(20 * S + MS));
    assert_eq!(a.buffered(), 2);
    // The destination answers: the route is up again and the packets go.
    let rp = rrep(2, 7, 6, 8);
    a.recv(AodvMsg::Rrep(rp), 7, 5, 28, &p, env.at(20 * S + 40 * MS));
    assert_eq!(a.next_hop(7), Some(8));
    assert_eq!(env.data.iter().map(|x| (x.0.pkt, x.1, x.2)).collect::<Vec<_>>(), vec![(5, 8, 0), (6, 8, 10 * MS)]);
    // The timer then finds the route up and does nothing.
    a.local_repair_timeout(7);
    assert_eq!(a.route(7).unwrap().state, RouteState::Up);
}

#[test]
fn failed_local_repair_brings_the_route_down_at_the_timer() {
    let (p, mut a, mut env) = at_node(5);
    on_chain_route(&mut a, &p, &mut env);
    a.link_failed(data(5, 0, 7, 5), 6, DropCause::MacRtsRetry, &p, env.at(S));
    a.local_repair_timeout(7);
    assert_eq!(a.route(7).unwrap().state, RouteState::Down);
    assert_eq!(a.counters.routes_invalidated, 1);
    // Forwarded packets now get a RERR and are dropped.
    a.resolve(data(7, 0, 7, 5), &p, env.at(3 * S));
    assert_eq!(env.dropped.last().map(|x| x.1), Some(DropCause::NoRoute));
}

#[test]
fn local_repair_can_be_switched_off() {
    let p = AodvParams { local_repair: false, ..AodvParams::default() };
    let mut a = node(5);
    let mut env = Env::default();
    let rp = rrep(2, 7, 4, 6);
    a.recv(AodvMsg::Rrep(rp), 7, 0, 28, &p, &mut env);
    a.link_failed(data(5, 0, 7, 5), 6, DropCause::MacRtsRetry, &p, env.at(S));
    assert_eq!(env.dropped.len(), 1);
    assert_eq!(env.flushed, vec![6]);
}

#[test]
fn rerr_invalidates_routes_through_its_sender_and_propagates_to_precursors() {
    let p = AodvParams::default();
    // Node 1 relayed the route 0 -> 7: its route to 7 (via 2) has precursor 0.
    let mut a = node(1);
    let mut env = Env::default();
    on_chain_route(&mut a, &p, &mut env);
    env.take_sent();
    let mut e = Rerr::default();
    e.push(7, 5);
    // From a node that is not our next hop: ignored.
    a.recv(AodvMsg::Rerr(e), 3, BROADCAST, 0, &p, env.at(S));
    assert_eq!(a.next_hop(7), Some(2));
    // From the next hop, with a newer seqno: invalidate, flush, propagate.
    a.recv(AodvMsg::Rerr(e), 2, BROADCAST, 0, &p, env.at(S));
    let rt = a.route(7).unwrap();
    assert_eq!((rt.state, rt.seqno), (RouteState::Down, 5));
    assert!(rt.precursors.is_empty());
    assert_eq!(env.flushed, vec![2]);
    let s = env.take_sent();
    assert_eq!(s.len(), 1);
    assert!(s[0].delay < p.broadcast_jitter);
    let AodvMsg::Rerr(out) = s[0].msg else { panic!("not a RERR") };
    assert_eq!(out.entries(), &[(7, 5)]);
    assert_eq!(a.counters.rerr_forwarded, 1);
    // The source has no precursors for 7: it invalidates and stays silent.
    let mut src = node(0);
    let mut e0 = Env::default();
    let rp0 = rrep(7, 7, 4, 1);
    src.recv(AodvMsg::Rrep(rp0), 7, 0, 23, &p, &mut e0);
    src.recv(AodvMsg::Rerr(out), 1, BROADCAST, 0, &p, e0.at(S));
    assert_eq!(src.route(7).unwrap().state, RouteState::Down);
    assert!(e0.sent.is_empty());
    // Its next packet starts a rediscovery that asks for seqno 5 or newer.
    src.resolve(data(1, 0, 7, 0), &p, e0.at(S + MS));
    assert_eq!(e0.rreqs()[0].dst_seqno, 5);
}

#[test]
fn request_buffer_drops_after_its_timeout_and_on_overflow() {
    let p = AodvParams { buffer_packets: 2, ..AodvParams::default() };
    let mut a = node(0);
    let mut env = Env::default();
    a.resolve(data(1, 0, 7, 0), &p, &mut env);
    a.resolve(data(2, 0, 7, 0), &p, env.at(MS));
    a.resolve(data(3, 0, 7, 0), &p, env.at(2 * MS));
    assert_eq!(env.dropped, vec![(data(1, 0, 7, 0), DropCause::RouteBufferOverflow)]);
    assert_eq!(a.buffered(), 2);
    // 30 s later, buffering a packet for another destination discards the
    // two that waited too long.
    a.resolve(data(4, 0, 9, 0), &p, env.at(30 * S + 2 * MS + 1));
    assert_eq!(
        env.dropped[1..],
        [(data(2, 0, 7, 0), DropCause::RouteBufferTimeout), (data(3, 0, 7, 0), DropCause::RouteBufferTimeout)]
    );
    assert_eq!(a.buffered(), 1);
}

#[test]
fn rerr_lists_longer_than_one_message_are_split() {
    let (p, mut a, mut env) = at_node(0);
    // Seven destinations, all through neighbour 1.
    for dst in 2..9 {
        let rp = rrep(2, dst, 4, 1);
        a.recv(AodvMsg::Rrep(rp), dst, 0, 28, &p, &mut env);
    }
    a.link_failed(data(1, 0, 5, 0), 1, DropCause::MacRtsRetry, &p, env.at(S));
    let errs: Vec<Rerr> = env
        .take_sent()
        .into_iter()
        .filter_map(|s| match s.msg {
            AodvMsg::Rerr(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(errs.iter().map(Rerr::len).collect::<Vec<_>>(), vec![RERR_CAPACITY, 7 - RERR_CAPACITY]);
    // Newest route first, as ns-2 walks its table.
    assert_eq!(errs[0].entries()[0].0, 8);
    assert_eq!(a.counters.routes_invalidated, 7);
}

fn hello_params() -> AodvParams {
    AodvParams { link_detection: LinkDetection::Hello, ..AodvParams::default() }
}

fn hello_from(id: NodeId, seqno: u32) -> AodvMsg {
    AodvMsg::Hello(Rrep { hop_count: 1, dst: id, dst_seqno: seqno, src: id, lifetime: 4 * S, timestamp: 0 })
}

#[test]
fn hello_timer_broadcasts_a_hello_and_draws_the_next_in_three_quarters_to_five_quarters() {
    let p = hello_params();
    let mut a = node(3);
    let mut env = Env::default();
    let mut gaps = Vec::new();
    for k in 0..200 {
        gaps.push(a.hello_timer(&p, env.at(k * S)));
    }
    assert!(gaps.iter().all(|&g| (750 * MS..=1250 * MS).contains(&g)), "{gaps:?}");
    let mean = gaps.iter().sum::<Time>() as f64 / gaps.len() as f64;
    assert!((mean - 1e9).abs() < 0.05e9, "mean interval {mean} ns");
    let s = &env.sent[0];
    assert_eq!((s.ip_src, s.ip_dst, s.next_hop, s.ttl, s.delay), (3, BROADCAST, BROADCAST, 1, 0));
    let AodvMsg::Hello(h) = s.msg else { panic!("not a HELLO: {s:?}") };
    assert_eq!((h.dst, h.dst_seqno, h.hop_count, h.lifetime), (3, 2, 1, 4 * S));
    assert_eq!(s.msg.ip_bytes(), 44, "a reply-sized message, as in ns-2");
}

#[test]
fn with_hello_detection_a_mac_failure_only_drops_the_packet() {
    let p = hello_params();
    let mut a = node(2);
    let mut env = Env::default();
    on_chain_route(&mut a, &p, &mut env);
    env.take_sent();
    let seq_before = a.seqno();
    // Far from the source (local repair would apply) or near it: no route action.
    for d in [data(5, 0, 7, 2), data(6, 0, 7, 6)] {
        a.link_failed(d, 3, DropCause::MacDataRetry, &p, env.at(S));
    }
    assert_eq!(env.dropped.len(), 2);
    assert!(env.flushed.is_empty() && env.sent.is_empty() && env.timers.is_empty());
    assert_eq!(a.next_hop(7), Some(3));
    assert_eq!(a.seqno(), seq_before);
    assert_eq!((a.counters.route_breaks, a.counters.local_repairs), (0, 0));
    assert!(env.flow_events.is_empty());
}

#[test]
fn neighbour_unheard_for_four_and_a_half_intervals_breaks_its_routes() {
    let p = hello_params();
    let mut a = node(2);
    let mut env = Env::default();
    a.recv(hello_from(3, 2), 3, BROADCAST, 0, &p, env.at(0));
    a.recv(hello_from(1, 2), 1, BROADCAST, 0, &p, env.at(0));
    assert!(a.is_neighbor(3) && a.is_neighbor(1));
    assert_eq!(a.seqno(), 6, "each new neighbour changes the neighbour set: + 2");
    a.recv(AodvMsg::Rreq(rreq(0, 7, 2, 1, 4, 0)), 1, BROADCAST, 28, &p, env.at(10 * MS));
    let rp = rrep(5, 7, 4, 3);
    a.recv(AodvMsg::Rrep(rp), 7, 0, 25, &p, env.at(20 * MS));
    env.take_sent();
    // Node 1 keeps sending HELLOs; node 3 falls silent after its one at 0.
    // A known neighbour's HELLO refreshes it without changing the seqno.
    let seq = a.seqno();
    for k in 1..=4 {
        a.recv(hello_from(1, 2), 1, BROADCAST, 0, &p, env.at(k * S));
        a.neighbor_purge(&p, env.at(k * S));
    }
    assert_eq!(a.seqno(), seq);
    assert!(a.is_neighbor(3), "3 was heard at 0: known until 4.5 s");
    assert!(env.sent.is_empty());
    // The purge at 5 s finds it gone (ns-2 checks expire <= now every interval).
    a.neighbor_purge(&p, env.at(5 * S));
    assert!(!a.is_neighbor(3) && a.is_neighbor(1));
    assert_eq!(a.seqno(), seq + 2);
    let rt = a.route(7).unwrap();
    assert_eq!((rt.state, rt.seqno), (RouteState::Down, 5));
    assert_eq!(a.next_hop(0), Some(1));
    let s = env.take_sent();
    let AodvMsg::Rerr(e) = s[0].msg else { panic!("not a RERR") };
    assert_eq!((e.entries(), s[0].delay, s[0].ttl), (&[(7, 5)][..], 0, 1));
    assert_eq!((a.counters.route_breaks, a.counters.rerr_sent), (1, 1));
    assert!(env.flushed.is_empty(), "ns-2's neighbour loss flushes no queue");
}

#[test]
fn neighbour_lifetime_follows_the_interval_and_allowed_loss() {
    let p = AodvParams { hello_interval: 2 * S, allowed_hello_loss: 2, ..hello_params() };
    let mut a = node(2);
    let mut env = Env::default();
    a.recv(hello_from(3, 2), 3, BROADCAST, 0, &p, env.at(S));
    a.neighbor_purge(&p, env.at(6 * S - 1));
    assert!(a.is_neighbor(3), "1.5 · 2 · 2 s = 6 s after the HELLO at 1 s");
    a.neighbor_purge(&p, env.at(7 * S));
    assert!(!a.is_neighbor(3));
}
