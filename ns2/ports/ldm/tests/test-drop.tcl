# action_ 1 (RFC 3168: CE, or a drop when the packet is not ECN-capable) with TCP without ECN
# on a 3-hop chain, oracle counts: nothing is marked, data packets are dropped at both
# forwarders at p_node = 0.1 (and traced as drops), ACKs are never picked.
source [file join [file dirname [info script]] .. scripts ldm-testlib.tcl]
set opt(mode) oracle; set opt(hops) 3; set opt(dur) 30; set opt(warm) 5; set opt(ecn) 0
set opt(action_) 1
proc ldm_check {} {
    global res
    foreach i {1 2} {
        lassign $res(node,$i) pkts ect dec marks cenew lh mh lf mf mp data drops
        expect "node $i no ECT" {$ect == 0}
        expect "node $i no marks" {$marks == 0}
        expect "node $i data are candidates" {$dec == $data && $data > 0 && $data < $pkts}
        set sd [expr {sqrt($dec * 0.1 * 0.9)}]
        expect "node $i drops ~ 0.1" {abs($drops - 0.1 * $dec) <= 5 * $sd}
    }
    expect "no ECN responses" {[lindex $res(flow,0) 2] == 0}
    finish_test test-drop
}
source $ldm_scenario
