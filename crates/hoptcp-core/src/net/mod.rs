//! Network layer: the interface queue, drop causes, Low Delay Marking, and
//! routing (static routes and AODV, in `routing/`). The packets themselves
//! are in `wire/`; the TCP-GAP gateway in `gateway/`.

pub mod ifq;
pub mod ldm;
pub mod routing;

/// The scenario names the ECN marking rule of the network's markers.
pub use crate::wire::MarkAction;
pub use ifq::IfQueue;

/// Why a packet was lost. Reports name causes in this order, by the
/// variant's name in snake case (`queue_overflow`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumIter, strum::EnumCount, strum::VariantNames)]
#[strum(serialize_all = "snake_case")]
#[repr(usize)]
pub enum DropCause {
    /// Interface queue full (or, for a routing packet put at the head of a
    /// full queue, the packet at its tail).
    QueueOverflow = 0,
    /// MAC gave up after the short retry limit of RTS attempts.
    MacRtsRetry = 1,
    /// MAC gave up after the DATA retry limit.
    MacDataRetry = 2,
    /// No valid route at a forwarding node, a route reply with no way back,
    /// or a route that expired while packets waited for it.
    NoRoute = 3,
    /// TTL reached zero.
    Ttl = 4,
    /// Link RED's early drop (a non-ECT packet it picked, or `action = "drop"`).
    LinkRed = 5,
    /// Waiting in the interface queue for a neighbour whose link just broke
    /// (AODV flushes them with the packet the MAC gave up on).
    LinkFailureFlush = 6,
    /// The route-request buffer was full.
    RouteBufferOverflow = 7,
    /// Waited in the route-request buffer longer than its timeout.
    RouteBufferTimeout = 8,
    /// The route discovery gave up after its last retry.
    RouteDiscoveryFailed = 9,
    /// A node received a packet it originated (a routing loop).
    RouteLoop = 10,
    /// Low Delay Marking picked a packet that is not ECN-capable.
    Ldm = 11,
}

pub const N_DROP_CAUSES: usize = <DropCause as strum::EnumCount>::COUNT;

/// Every drop cause with its name, in report order.
pub fn drop_causes() -> impl Iterator<Item = (DropCause, &'static str)> {
    <DropCause as strum::IntoEnumIterator>::iter().zip(<DropCause as strum::VariantNames>::VARIANTS.iter().copied())
}
