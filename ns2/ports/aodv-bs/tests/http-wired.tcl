# aodv-bs test: Application/HttpPages over three separate wired links (10 Mb/s, 40 ms), the
# same seed on each, so the three flows draw the same pages and pauses:
#   flow 1: persistent, page end at the receiver;
#   flow 2: persistent, page end at the sender: page 1 ends exactly one ACK trip later,
#           40 ms + 40 B at 10 Mb/s = 0.040032 s;
#   flow 3: a new connection per page: page 1 as flow 1; page 2 starts at the same time with
#           the same size and is not shorter than flow 1's page 2 (a SYN in front of the
#           data; ns-2's slow_start_restart_ gives the idle persistent connection cwnd 1 as
#           well); its sequence numbers start again (highest ACK at the end below flow 1's).
# Every flow: pages end after they start, next page after the previous end, as many lines
# as pages_done_, each page's goodput below 10 Mb/s.
if {[catch {Application/HttpPages info class}]} {puts stderr "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports aodv-bs): no class Application/HttpPages"; exit 1}
set stop 120
set ns [new Simulator]
Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 32
for {set f 1} {$f <= 3} {incr f} {
    set a($f) [$ns node]
    set b($f) [$ns node]
    $ns duplex-link $a($f) $b($f) 10Mb 40ms DropTail
    set tcp($f) [new Agent/TCP/Newreno]
    set sink($f) [new Agent/TCPSink]
    $ns attach-agent $a($f) $tcp($f)
    $ns attach-agent $b($f) $sink($f)
    $ns connect $tcp($f) $sink($f)
    set app($f) [new Application/HttpPages]
    $app($f) attach-agent $tcp($f)
    $app($f) attach-sink $sink($f)
    $app($f) set flow_ $f
    $app($f) set seed_ 99
    $app($f) set pause_mean_ 1.0
    $ns at 1.0 "$app($f) start"
    $ns at $stop "$app($f) stop"
}
$app(2) set end_at_ sender
$app(3) set persistent_ 0
# capture page lines through a channel-like proc: redirect puts to a temporary file
set tmp [file join [pwd] http-wired.out]
set fh [open $tmp w]
for {set f 1} {$f <= 3} {incr f} { $app($f) set chan_ $fh }
proc finish {} {
    global app fh tmp
    close $fh
    set bad 0
    set fd [open $tmp r]; set data [read $fd]; close $fd; file delete $tmp
    foreach l [split [string trim $data] "\n"] {
        lassign $l tag flow start end bytes page
        lappend pages($flow) [list $page $start $end $bytes]
    }
    proc chk {what ok detail} {
        upvar bad bad
        puts [format "%-40s %s %s" $what [expr {$ok ? "pass" : "FAIL"}] $detail]
        if {!$ok} { set bad 1 }
    }
    for {set f 1} {$f <= 3} {incr f} {
        set n [llength $pages($f)]
        chk "flow $f lines == pages_done_" [expr {$n == [$app($f) set pages_done_] && $n >= 10}] "$n lines"
        set prev 0; set ok 1; set gmax 0
        foreach p $pages($f) {
            lassign $p k s e b
            if {$e <= $s || $s < $prev} { set ok 0 }
            set g [expr {$b * 8.0 / ($e - $s)}]
            if {$g > $gmax} { set gmax $g }
            set prev $e
        }
        chk "flow $f order" $ok ""
        chk "flow $f goodput < 10 Mb/s" [expr {$gmax < 10e6}] [format "max %.0f bit/s" $gmax]
    }
    lassign [lindex $pages(1) 0] k s1 e1 b1
    lassign [lindex $pages(2) 0] k s2 e2 b2
    lassign [lindex $pages(3) 0] k s3 e3 b3
    chk "same first page" [expr {$b1 == $b2 && $b2 == $b3 && $s1 == $s2 && $s2 == $s3}] "$b1 $b2 $b3"
    chk "sender end - receiver end = 0.040032" [expr {abs(($e2 - $e1) - 0.040032) < 1e-6}] [format "%.6f" [expr {$e2 - $e1}]]
    chk "per-page page 1 == persistent page 1" [expr {abs($e3 - $e1) < 1e-9}] ""
    lassign [lindex $pages(1) 1] k s1 e1 b1
    lassign [lindex $pages(3) 1] k s3 e3 b3
    chk "page 2: same start and size" [expr {$b1 == $b3 && abs($s1 - $s3) < 1e-9}] "$b1 $b3"
    chk "per-page page 2 >= persistent page 2" [expr {($e3 - $s3) >= ($e1 - $s1) - 1e-9}] [format "%.6f vs %.6f" [expr {$e3 - $s3}] [expr {$e1 - $s1}]]
    global tcp
    chk "per-page sequence restarted" [expr {[$tcp(3) set ack_] < [$tcp(1) set ack_] / 10}] "[$tcp(3) set ack_] vs [$tcp(1) set ack_]"
    if {$bad} { puts "FAIL http-wired"; exit 1 }
    puts "ok http-wired pages [llength $pages(1)] [llength $pages(2)] [llength $pages(3)]"
    exit 0
}
$ns at [expr {$stop + 30}] "finish"
$ns run
