//! Transport protocols: UDP and TCP (NewReno, Reno, Vegas, ECN) as sans-IO
//! state machines.

pub mod tcp;
pub mod udp;
