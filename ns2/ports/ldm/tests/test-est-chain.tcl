# Estimated counts on a static 7-hop AODV chain, one flow: every forwarder (nodes 1..6)
# estimates h = 7 exactly from TTLs (AODV stamps 30, each forwarder decrements) and n = 1;
# p_node = 1-(1-0.76/(7/4)^2)^(1/6); marks/decisions agree with p_node within 5 sigma; the
# sender responds to the marks.
source [file join [file dirname [info script]] .. scripts ldm-testlib.tcl]
set opt(mode) est; set opt(hops) 7; set opt(dur) 40; set opt(warm) 5
proc ldm_check {} {
    global res
    set p [pnode_of 7.0 1.0]
    set nodes 0
    set totm 0; set totd 0
    foreach k [array names res node,*] {
        incr nodes
        lassign $res($k) pkts ect dec marks cenew lh mh lf mf mp
        expect "$k h last" {$lh == 7.0}
        expect "$k h mean" {[close_to $mh 7.0 1e-9]}
        expect "$k n mean" {[close_to $mf 1.0 1e-9]}
        expect "$k p_node" {[close_to $mp $p 1e-9]}
        expect "$k order" {$dec <= $ect && $ect <= $pkts && $cenew <= $marks && $marks <= $dec}
        expect "$k half are data" {$ect > 0.4 * $pkts && $ect < 0.6 * $pkts}
        expect "$k marks" {$marks > 0}
        set sd [expr {sqrt($dec * $p * (1 - $p))}]
        expect "$k marks ~ p_node" {abs($marks - $dec * $p) <= 5 * $sd}
    }
    expect "six forwarders" {$nodes == 6}
    expect "ECN responses" {[lindex $res(flow,0) 2] > 0}
    finish_test test-est-chain
}
source $ldm_scenario
