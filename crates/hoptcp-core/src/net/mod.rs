//! Network layer: IP packets and their arena, the interface queue, drop
//! causes, and the TCP-GAP Internet gateway ([`tcp_gap`], not yet wired
//! into `sim/`). Static routes are the flows' planned paths (see
//! `scenario::build`).

pub mod ifq;
pub mod packet;
pub mod tcp_gap;

pub use ifq::IfQueue;
pub use packet::{Body, Ecn, Packet, PacketKind, Slab, PACKET_KINDS};

/// Why a packet was lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum DropCause {
    /// Interface queue full.
    QueueOverflow = 0,
    /// MAC gave up after the short retry limit of RTS attempts.
    MacRtsRetry = 1,
    /// MAC gave up after the DATA retry limit.
    MacDataRetry = 2,
    /// No route to the destination.
    NoRoute = 3,
    /// TTL reached zero.
    Ttl = 4,
}

pub const N_DROP_CAUSES: usize = 5;

pub const DROP_CAUSES: [(DropCause, &str); N_DROP_CAUSES] = [
    (DropCause::QueueOverflow, "queue_overflow"),
    (DropCause::MacRtsRetry, "mac_rts_retry"),
    (DropCause::MacDataRetry, "mac_data_retry"),
    (DropCause::NoRoute, "no_route"),
    (DropCause::Ttl, "ttl"),
];
