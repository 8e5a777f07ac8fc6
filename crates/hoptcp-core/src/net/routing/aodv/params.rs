//! AODV's constants. Defaults are ns-2.35's (aodv/aodv.h, aodv_rqueue.h and
//! the timers in aodv.cc); the scenario's `[routing.aodv]` table overrides
//! them.

use crate::engine::{time::from_secs, Time};

/// ns-2.35's constants in the units the scenario writes them (hops, packets,
/// seconds); [`AodvParams::default`] and the scenario's `[routing.aodv]`
/// declarations both read these, so each is written once.
pub const TTL_START: u8 = 5;
pub const TTL_INCREMENT: u8 = 2;
pub const TTL_THRESHOLD: u8 = 7;
pub const NETWORK_DIAMETER: u8 = 30;
pub const RREQ_RETRIES: u8 = 3;
pub const MAX_RREQ_TIMEOUT_S: f64 = 10.0;
pub const NODE_TRAVERSAL_TIME_S: f64 = 0.03;
pub const ACTIVE_ROUTE_TIMEOUT_S: f64 = 10.0;
pub const MY_ROUTE_TIMEOUT_S: f64 = 10.0;
pub const REVERSE_ROUTE_LIFE_S: f64 = 6.0;
pub const BCAST_ID_SAVE_S: f64 = 6.0;
pub const BUFFER_PACKETS: u32 = 64;
pub const BUFFER_TIMEOUT_S: f64 = 30.0;
pub const BROADCAST_JITTER_S: f64 = 0.01;
pub const ARP_DELAY_S: f64 = 0.01;
pub const PURGE_INTERVAL_S: f64 = 0.5;
pub const LOCAL_REPAIR: bool = true;
pub const FIRST_RREQ_NETWORK_WIDE: bool = true;
pub const HELLO_INTERVAL_S: f64 = 1.0;
pub const ALLOWED_HELLO_LOSS: u32 = 3;

#[derive(Clone, Debug, PartialEq)]
pub struct AodvParams {
    /// Expanding ring search: first TTL, increment and the TTL from which
    /// the search goes network-wide (TTL_START 5, TTL_INCREMENT 2,
    /// TTL_THRESHOLD 7).
    pub ttl_start: u8,
    pub ttl_increment: u8,
    pub ttl_threshold: u8,
    /// NETWORK_DIAMETER (30 hops): TTL of network-wide RREQs, of RREPs and
    /// of data packets originated under AODV.
    pub network_diameter: u8,
    /// RREQ_RETRIES (3): network-wide requests allowed beyond the first
    /// before the discovery gives up.
    pub rreq_retries: u8,
    /// MAX_RREQ_TIMEOUT (10 s): cap on a request's timeout, and the wait
    /// after a discovery gave up.
    pub max_rreq_timeout: Time,
    /// NODE_TRAVERSAL_TIME (30 ms): per-hop time used for request timeouts
    /// until discovery latencies have been measured.
    pub node_traversal_time: Time,
    /// ACTIVE_ROUTE_TIMEOUT (10 s): lifetime of a route refreshed by use.
    pub active_route_timeout: Time,
    /// MY_ROUTE_TIMEOUT (10 s): lifetime a destination grants in its RREP.
    pub my_route_timeout: Time,
    /// REV_ROUTE_LIFE (6 s): lifetime of a reverse route learnt from a RREQ.
    pub reverse_route_life: Time,
    /// BCAST_ID_SAVE (6 s): how long a (source, broadcast id) pair is
    /// remembered; the cache is purged every BCAST_ID_SAVE.
    pub bcast_id_save: Time,
    /// AODV_RTQ_MAX_LEN (64): packets buffered while awaiting a route.
    pub buffer_packets: u32,
    /// AODV_RTQ_TIMEOUT (30 s): how long a packet may wait for a route.
    pub buffer_timeout: Time,
    /// Broadcast jitter (10 ms): forwarded RREQs and propagated RERRs are
    /// delayed by U(0, jitter).
    pub broadcast_jitter: Time,
    /// ARP_DELAY (10 ms): spacing of buffered packets sent once a route is found.
    pub arp_delay: Time,
    /// Period of the route-table purge (RouteCacheTimer, 0.5 s), which also
    /// retries pending discoveries.
    pub purge_interval: Time,
    /// AODV_LOCAL_REPAIR: a node nearer the destination than the source
    /// repairs a broken route itself.
    pub local_repair: bool,
    /// ns-2.35 starts a route entry's last hop count at "infinity", so the
    /// first RREQ to a destination is network-wide and the expanding ring
    /// only applies to rediscoveries of routes shorter than TTL_THRESHOLD.
    /// false: the first RREQ uses TTL_START (RFC 3561).
    pub first_rreq_network_wide: bool,
    /// How a node learns that a neighbour is gone: ns-2.35's MAC callback
    /// (AODV_LINK_LAYER_DETECTION) or HELLO messages (RFC 3561 §6.9).
    pub link_detection: LinkDetection,
    /// HELLO_INTERVAL (1 s): HELLOs go out every U(0.75, 1.25) of it, and
    /// the neighbour table is purged every interval.
    pub hello_interval: Time,
    /// ALLOWED_HELLO_LOSS (3): a neighbour unheard for 1.5 times this many
    /// intervals is lost (ns-2's NeighborTimer arithmetic).
    pub allowed_hello_loss: u32,
}

/// Link-break detection (`routing.aodv.link_detection`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum LinkDetection {
    /// A data packet the MAC gives up on breaks the link (ns-2.35's build:
    /// AODV_LINK_LAYER_DETECTION defined, no HELLOs).
    #[default]
    Mac,
    /// Periodic HELLOs; a neighbour is lost when its HELLOs stop, and a
    /// MAC failure only drops the packet (ns-2.35 with
    /// AODV_LINK_LAYER_DETECTION undefined).
    Hello,
}

impl Default for AodvParams {
    fn default() -> Self {
        AodvParams {
            ttl_start: TTL_START,
            ttl_increment: TTL_INCREMENT,
            ttl_threshold: TTL_THRESHOLD,
            network_diameter: NETWORK_DIAMETER,
            rreq_retries: RREQ_RETRIES,
            max_rreq_timeout: from_secs(MAX_RREQ_TIMEOUT_S),
            node_traversal_time: from_secs(NODE_TRAVERSAL_TIME_S),
            active_route_timeout: from_secs(ACTIVE_ROUTE_TIMEOUT_S),
            my_route_timeout: from_secs(MY_ROUTE_TIMEOUT_S),
            reverse_route_life: from_secs(REVERSE_ROUTE_LIFE_S),
            bcast_id_save: from_secs(BCAST_ID_SAVE_S),
            buffer_packets: BUFFER_PACKETS,
            buffer_timeout: from_secs(BUFFER_TIMEOUT_S),
            broadcast_jitter: from_secs(BROADCAST_JITTER_S),
            arp_delay: from_secs(ARP_DELAY_S),
            purge_interval: from_secs(PURGE_INTERVAL_S),
            local_repair: LOCAL_REPAIR,
            first_rreq_network_wide: FIRST_RREQ_NETWORK_WIDE,
            link_detection: LinkDetection::Mac,
            hello_interval: from_secs(HELLO_INTERVAL_S),
            allowed_hello_loss: ALLOWED_HELLO_LOSS,
        }
    }
}

#[cfg(test)]
mod default_tests {
    use super::*;
    use crate::engine::{NS_PER_MS, NS_PER_S};

    #[test]
    fn defaults_are_ns2s_timers_to_the_nanosecond() {
        let p = AodvParams::default();
        assert_eq!(
            (p.ttl_start, p.ttl_increment, p.ttl_threshold, p.network_diameter, p.rreq_retries),
            (5, 2, 7, 30, 3)
        );
        assert_eq!(p.max_rreq_timeout, 10 * NS_PER_S);
        assert_eq!(p.node_traversal_time, 30 * NS_PER_MS);
        assert_eq!((p.active_route_timeout, p.my_route_timeout), (10 * NS_PER_S, 10 * NS_PER_S));
        assert_eq!((p.reverse_route_life, p.bcast_id_save), (6 * NS_PER_S, 6 * NS_PER_S));
        assert_eq!((p.buffer_packets, p.buffer_timeout), (64, 30 * NS_PER_S));
        assert_eq!((p.broadcast_jitter, p.arp_delay), (10 * NS_PER_MS, 10 * NS_PER_MS));
        assert_eq!(p.purge_interval, 500 * NS_PER_MS);
        assert_eq!((p.hello_interval, p.allowed_hello_loss), (NS_PER_S, 3));
    }
}
