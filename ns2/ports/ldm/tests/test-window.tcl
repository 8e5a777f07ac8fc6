# The window rule's variables on a 3-hop chain with oracle counts (w_opt = 0.75):
# target_win_ 4 -> p_mark = 0.76/16, p_node = 1 - (1 - 0.0475)^(1/2) at both forwarders;
# min_win_ 0.5 (w_opt 0.75 is kept) -> p_mark = 1 (capped), p_node = 1.
source [file join [file dirname [info script]] .. scripts ldm-testlib.tcl]
set opt(mode) oracle; set opt(hops) 3; set opt(dur) 10; set opt(warm) 2
if {![info exists wvariant]} { set wvariant target }
if {$wvariant == "target"} { set opt(target_win_) 4 } else { set opt(min_win_) 0.5 }
proc ldm_check {} {
    global res wvariant
    set p [expr {$wvariant == "target" ? 1.0 - sqrt(1.0 - 0.76 / 16.0) : 1.0}]
    foreach i {1 2} {
        lassign $res(node,$i) pkts ect dec marks cenew lh mh lf mf mp
        expect "node $i p_node $p" {[close_to $mp $p 1e-12] && $dec > 0}
        if {$p == 1.0} { expect "node $i marks all" {$marks == $dec} }
    }
    finish_test "test-window $wvariant"
}
source $ldm_scenario
