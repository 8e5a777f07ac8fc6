# ldm-initial-ttls: with conventions {64 128} (not AODV's 30) every direction is taken to
# have started at 64, so the 7-hop chain's forwarders estimate h = 7 + 2 * (64 - 30) = 75;
# with {30 64 128 255} (hoptcp's default) h = 7.
source [file join [file dirname [info script]] .. scripts ldm-testlib.tcl]
set opt(mode) est; set opt(hops) 7; set opt(dur) 15; set opt(warm) 5
if {![info exists ttls]} { set ttls {64 128} }
set opt(initial_ttls) $ttls
proc ldm_check {} {
    global res ttls
    set want [expr {[lindex $ttls 0] == 30 ? 7.0 : 75.0}]
    foreach k [array names res node,*] {
        lassign $res($k) pkts ect dec marks cenew lh mh lf mf mp
        expect "$k h = $want" {[close_to $mh $want 1e-9] && $dec > 0}
    }
    finish_test "test-ttls {$ttls}"
}
source $ldm_scenario
