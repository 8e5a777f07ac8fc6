//! hoptcp-core: a fast, deterministic packet-level simulator of TCP over
//! multihop IEEE 802.11 networks, faithful by default to ns-2.35's wireless
//! model (the simulator the reproduced papers used).
//!
//! Layers, one folder each: [`engine`] (time, events, random streams),
//! [`phy`] (propagation, channel, reception), [`mac`] (802.11 DCF),
//! [`net`] (IP, queues, routing), [`transport`] (UDP, TCP), [`app`]
//! (traffic sources), [`topology`], [`scenario`] (the scenario file),
//! [`stats`] (counters, results, pcap), [`models`] (analytic models), and
//! [`sim`], which wires them together and owns the event loop.

pub mod engine;
pub mod mac;
pub mod phy;
pub mod transport;
