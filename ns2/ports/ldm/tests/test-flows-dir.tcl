# test-flows.tcl with flow_key_ 1 (the literal hash: data and ACKs of one connection are 2 flows)
set directional 1
source [file join [file dirname [info script]] test-flows.tcl]
