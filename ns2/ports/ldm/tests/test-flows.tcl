# The flow bit vector on a 4-hop chain, bits never cleared (clear_period_ 0): three
# connections from node 0 to node 4 give n = 3 once all have sent (bits_ 4096 so that a
# collision is unlikely; a collision would show as 2); test-flows-dir.tcl:
# flow_key_ 1 with one flow: data and ACKs hash separately, n = 2 (the literal reading).
source [file join [file dirname [info script]] .. scripts ldm-testlib.tcl]
set opt(mode) est; set opt(hops) 4; set opt(dur) 20; set opt(warm) 5; set opt(bits_) 4096
set opt(clear_period_) 0
set want 3; set opt(flows) 3
if {[info exists directional]} { set want 2; set opt(flows) 1; set opt(flow_key_) 1 }
proc ldm_check {} {
    global res want
    foreach i {1 2 3} {
        lassign $res(node,$i) pkts ect dec marks cenew lh mh lf mf mp
        expect "node $i n last = $want" {$lf == $want}
        expect "node $i n mean <= $want" {$mf <= $want + 1e-9 && $mf > $want - 0.1}
        expect "node $i h = 4" {$lh == 4.0}
        expect "node $i p_node" {abs($mp - [pnode_of 4.0 $want]) < 0.2}
    }
    finish_test "test-flows n=$want"
}
source $ldm_scenario
