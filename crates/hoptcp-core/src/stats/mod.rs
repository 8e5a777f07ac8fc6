//! Statistics and traces. Counters live with the layers that count (MAC
//! counters in the DCF, queue occupancy in the interface queue, drops in the
//! simulator) and are collected into the run report (`sim::report`); this
//! module holds the output formats and batch means.

pub mod batch_means;
pub mod pcap;
pub mod run_trace;
pub mod series;
