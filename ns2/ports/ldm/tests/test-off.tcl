# LDM off (ldm_ 0, TCP without ECN): the queue is a plain PriQueue, every counter 0.
source [file join [file dirname [info script]] .. scripts ldm-testlib.tcl]
set opt(mode) off; set opt(hops) 7; set opt(dur) 20; set opt(warm) 5
proc ldm_check {} {
    global res
    foreach k [array names res node,*] {
        foreach v [lrange $res($k) 0 4] { expect "$k counters zero" {$v == 0} }
    }
    expect "flow 0 delivers" {[lindex $res(flow,0) 0] > 20}
    expect "no ECN responses" {[lindex $res(flow,0) 2] == 0}
    finish_test test-off
}
source $ldm_scenario
