# One wired-to-wireless flow over an h-hop chain (DSDV): the gateway learns h from the ACKs,
# takes RTT_wireless samples, paces at R = 1/(FHD (1 + 2 cov)), and Goodput Control, with one
# flow only, never throttles (deviation = 1).
source [file join [file dirname [info script]] lib.tcl]
set h [expr {[llength $argv] > 0 ? [lindex $argv 0] : 4}]
gap_scenario [list [list $h down]] {stop 90 start 40 gc 1}
gap_run
set g $S(gap)
$g stats
check {[llength [$g flows]] == 1} "one flow"
check {[$g flow 0 dir] == "down"} "direction down"
check {[$g flow 0 hops] == $h} "h learned from the ACKs"
check {[$g flow 0 paced] > 100} "packets paced"
check {[$g flow 0 paced] == [$g flow 0 data_in] - [$g flow 0 qlen]} "every arrival is queued then paced"
check {[$g flow 0 rtt_samples] > 50} "RTT_wireless samples"
check {[$g flow 0 rtt_mean] < 0.08} "RTT_wireless excludes the wired 2x40 ms"
set fhd [$g flow 0 fhd]; set cov [$g flow 0 cov]
check {abs([$g flow 0 rate] - 1.0/($fhd*(1+2*$cov))) < 1e-6 * [$g flow 0 rate]} "Eq. (1)"
check {[$g flow 0 throttles] == 0 && [$g flow 0 cap] == 0} "no throttling of a single flow"
puts "goodput [gap_goodput 0]"
puts "ok chain-down h=$h paced=[$g flow 0 paced] rate_avg=[$g flow 0 rate_avg]"
