# Oracle counts on a 3-hop chain: h = 3, n = 1 -> w_opt = 0.75 <= 1 -> 2 -> p_mark = 0.19,
# p_node = 1 - 0.81^(1/2) = 0.1 at both forwarders (eq4_ 1: 0.9; policy_ 1: node 1
# 0.19, node 2 0). The variants: test-oracle-eq4.tcl, test-oracle-first.tcl.
source [file join [file dirname [info script]] .. scripts ldm-testlib.tcl]
set opt(mode) oracle; set opt(hops) 3; set opt(dur) 30; set opt(warm) 5
if {![info exists variant]} { set variant none }
if {$variant == "eq4"} { set opt(eq4_) 1 }
if {$variant == "first"} { set opt(policy_) 1 }
proc ldm_check {} {
    global res variant
    foreach i {1 2} {
        lassign $res(node,$i) pkts ect dec marks cenew lh mh lf mf mp
        switch $variant {
            none  { set p 0.1 }
            eq4   { set p 0.9 }
            first { set p [expr {$i == 1 ? 0.19 : 0.0}] }
        }
        expect "node $i p_node $p" {[close_to $mp $p 1e-9]}
        expect "node $i h, n given" {$mh == 3.0 && $mf == 1.0}
        expect "node $i every data packet decided" {$dec == $ect && $dec > 0}
        set sd [expr {sqrt($dec * $p * (1 - $p))}]
        expect "node $i marks ~ p_node" {abs($marks - $dec * $p) <= 5 * $sd + 1e-9}
    }
    finish_test "test-oracle $variant"
}
source $ldm_scenario
