//! The Internet gateway: TCP-GAP ([`tcp_gap`]), transport functions the
//! gateway node adds to its IP layer. It sits above `transport` because it
//! shares TCP-AP's rate estimator and pacer.

pub mod tcp_gap;
