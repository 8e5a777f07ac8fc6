# local_retx_ 1 (Fig. 7's duplicate-ACK branch): the gateway answers duplicate ACKs with its
# copy of seq+1 and does not forward them; with local_retx_ 0 (test-chain-down) it never does.
source [file join [file dirname [info script]] lib.tcl]
gap_scenario {{4 down}} {stop 90 start 40 gapvars {local_retx_ 1}}
gap_run
set g $S(gap)
$g stats
check {[$g flow 0 dupacks] > 0} "duplicate ACKs seen"
check {[$g flow 0 local_retx] > 0} "local retransmissions"
check {[$g flow 0 local_retx] <= [$g flow 0 dupacks]} "at most one per duplicate ACK"
check {[$g flow 0 paced] == [$g flow 0 data_in] + [$g flow 0 local_retx] - [$g flow 0 qlen]} "copies go through the pacer"
puts "ok local-retx local_retx=[$g flow 0 local_retx] dupacks=[$g flow 0 dupacks]"
