//! Huge topologies: a node exists in memory and in the report only once it
//! takes part (senses or sends a frame). A million-node chain with one
//! short flow reports the same flow and the same nodes as a chain just long
//! enough to hold everything that flow's frames reach.

mod common;
use common::*;
use serde_json::Value;

fn chain(hops: u32) -> String {
    format!(
        "duration_s = 2\nseed = 7\n[topology]\nkind = \"chain\"\nhops = {hops}\nspacing_m = 200\n\
         [[flows]]\nsrc = 0\ndst = 7\ntransport = \"tcp\"\napp = \"ftp\"\n"
    )
}

fn without_wall_time(r: &hoptcp_core::RunReport) -> Value {
    let mut v = serde_json::to_value(r).unwrap();
    v.as_object_mut().unwrap().remove("wall_time_s");
    v.as_object_mut().unwrap().remove("node_count");
    v
}

#[test]
fn idle_nodes_are_neither_simulated_nor_reported() {
    // Carrier sense reaches 550 m (two nodes at 200 m spacing): a flow over
    // nodes 0..=7 is sensed by nodes 0..=9 only.
    let big = run(&chain(1_000_000), &[]);
    let small = run(&chain(12), &[]);
    assert_eq!(big.node_count, 1_000_001);
    assert_eq!(small.node_count, 13);
    let ids: Vec<u32> = big.nodes.iter().map(|n| n.id).collect();
    assert_eq!(ids, (0..=9).collect::<Vec<u32>>(), "the nodes that took part, by id");
    assert!(big.flows[0].packets_delivered > 10, "the flow ran");
    assert_eq!(without_wall_time(&big), without_wall_time(&small), "same flows, nodes, drops and counters");
}

#[test]
fn every_node_of_a_busy_chain_is_reported() {
    let r = run(&chain(7), &[]);
    assert_eq!(r.node_count, 8);
    assert_eq!(r.nodes.iter().map(|n| n.id).collect::<Vec<u32>>(), (0..8).collect::<Vec<u32>>());
}
