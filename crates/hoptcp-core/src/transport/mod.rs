//! Transport protocols: UDP and TCP (NewReno, Reno, Vegas, ECN) as sans-IO
//! state machines.

pub mod udp;
