# Clearing: with every bit of v cleared every 2 ms (clear_period_ 0.002), a bit rarely
# survives to the next packet of another connection and a flow record rarely holds both
# directions: n stays near 1 and most data packets find no complete estimate.
source [file join [file dirname [info script]] .. scripts ldm-testlib.tcl]
set opt(mode) est; set opt(hops) 4; set opt(flows) 3; set opt(dur) 20; set opt(warm) 5
set opt(clear_period_) 0.002
proc ldm_check {} {
    global res
    foreach i {1 2 3} {
        lassign $res(node,$i) pkts ect dec marks cenew lh mh lf mf mp
        expect "node $i n near 1" {$mf < 1.3}
        expect "node $i few decisions" {$dec < 0.5 * $ect}
    }
    finish_test test-clear
}
source $ldm_scenario
