# A wireless-to-wired flow (TCP-AP with RTT_wired taken off, Agent/TCP/Newreno/AP/Gap): the
# gateway stamps RTT_wired (>= the wired 2 x 40 ms) into its ACKs, the sender reads them, the
# flow is never paced nor throttled at the gateway. rtt_wired_ 0: no stamps.
source [file join [file dirname [info script]] lib.tcl]
if {[catch {Agent/TCP/Newreno/AP/Gap info class}]} {
	puts "ok uplink skipped: no Agent/TCP/Newreno/AP/Gap (built without TCP-AP)"
	exit 0
}
set stamp [expr {[llength $argv] > 0 ? [lindex $argv 0] : 1}]
gap_scenario {{2 up}} [list stop 80 start 40 sender AP/Gap gapvars [list rtt_wired_ $stamp]]
gap_run
set g $S(gap)
$g stats
check {[$g flow 0 dir] == "up"} "direction up"
check {[$g flow 0 paced] == 0 && [$g flow 0 qmax] == 0} "uplink data is not queued"
set st [$S(tcp,0) gap-stamps]
if {$stamp} {
	check {[$g flow 0 stamps] > 100} "ACKs stamped"
	check {[lindex $st 0] > 0.9 * [$g flow 0 stamps] && [lindex $st 0] <= [$g flow 0 stamps]} "the sender read the stamps (ACKs lost on the air excepted)"
	check {[lindex $st 1] >= 80 && [lindex $st 1] < 300} "RTT_wired in ms covers the 2 x 40 ms wired path"
	check {[$g flow 0 rtt_mean] >= 0.080} "RTT_wired samples >= 80 ms"
} else {
	check {[$g flow 0 stamps] == 0 && [lindex $st 0] == 0} "rtt_wired_ 0: no stamps"
}
puts "goodput [gap_goodput 0]"
puts "ok uplink stamps=[lindex $st 0] last_ms=[lindex $st 1]"
