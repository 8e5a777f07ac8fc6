# aodv-bs test: Application/HttpPages draws with a fixed seed.
# Page sizes: Pareto, mean page_mean_ = 30000 B, shape 1.5, so scale xm = 30000*0.5/1.5 = 10000 B.
#   - every size >= xm;
#   - P(X > 30000) = (1/3)^1.5 = 0.19245 and P(X > 100000) = 0.1^1.5 = 0.031623 (binomial, 4 SE);
#   - the infinite-variance mean is checked through min(X, c), c = 1e6 B, whose mean and
#     variance are finite: E = 30000 - 2*xm^1.5*c^-0.5 = 28000, E[min^2] = 3.7e9 (4 SE);
#     the plain sample mean only within 15 % (for information: its error falls as n^-1/3);
# Pauses: exponential, mean pause_mean_ = 2.5 s: sample mean (4 SE, SE = mean/sqrt(n)),
#   P(X > mean) = exp(-1) (4 SE), coefficient of variation 1 (within 3 %).
if {[catch {Application/HttpPages info class}]} {puts stderr "needs ns-2.35 built with hoptcp's ports (hoptcp ns2 build --with-ports aodv-bs): no class Application/HttpPages"; exit 1}
set n 200000
if {[llength $argv] > 0} { set n [lindex $argv 0] }
set ns [new Simulator]
set app [new Application/HttpPages]
$app set seed_ 4711
$app set pause_mean_ 2.5
set bad 0
proc check {what ok detail} {
    global bad
    puts [format "%-28s %s %s" $what [expr {$ok ? "pass" : "FAIL"}] $detail]
    if {!$ok} { set bad 1 }
}
set sum 0.0; set sumc 0.0; set minx 1e300; set n30 0; set n100 0; set c 1e6
for {set i 0} {$i < $n} {incr i} {
    set x [$app next-size]
    set sum [expr {$sum + $x}]
    set xc [expr {$x < $c ? $x : $c}]
    set sumc [expr {$sumc + $xc}]
    if {$x < $minx} { set minx $x }
    if {$x > 30000} { incr n30 }
    if {$x > 100000} { incr n100 }
}
set mean [expr {$sum / $n}]
set meanc [expr {$sumc / $n}]
set sec [expr {sqrt(3.7e9 - 28000.0 * 28000.0) / sqrt($n)}]
check "size min >= 10000" [expr {$minx >= 10000}] "min=$minx"
foreach {cnt p lab} [list $n30 [expr {pow(1/3.0, 1.5)}] "P(size>30000)" $n100 [expr {pow(0.1, 1.5)}] "P(size>100000)"] {
    set ph [expr {double($cnt) / $n}]
    set se [expr {sqrt($p * (1 - $p) / $n)}]
    check $lab [expr {abs($ph - $p) <= 4 * $se}] [format "%.5f expected %.5f (4 SE %.5f)" $ph $p [expr {4 * $se}]]
}
check "mean min(size,1e6)" [expr {abs($meanc - 28000.5) <= 4 * $sec}] [format "%.1f expected 28000.5 (4 SE %.1f)" $meanc [expr {4 * $sec}]]
check "mean size (15 %)" [expr {abs($mean - 30000) <= 0.15 * 30000}] [format "%.1f expected 30000" $mean]

set m 2.5; set s 0.0; set s2 0.0; set above 0
for {set i 0} {$i < $n} {incr i} {
    set x [$app next-pause]
    set s [expr {$s + $x}]
    set s2 [expr {$s2 + $x * $x}]
    if {$x > $m} { incr above }
}
set pm [expr {$s / $n}]
set sd [expr {sqrt($s2 / $n - $pm * $pm)}]
check "mean pause" [expr {abs($pm - $m) <= 4 * $m / sqrt($n)}] [format "%.4f expected %.4f (4 SE %.4f)" $pm $m [expr {4 * $m / sqrt($n)}]]
set p [expr {exp(-1)}]
set ph [expr {double($above) / $n}]
set se [expr {sqrt($p * (1 - $p) / $n)}]
check "P(pause>mean)" [expr {abs($ph - $p) <= 4 * $se}] [format "%.5f expected %.5f (4 SE %.5f)" $ph $p [expr {4 * $se}]]
check "pause CV" [expr {abs($sd / $pm - 1) <= 0.03}] [format "%.4f expected 1" [expr {$sd / $pm}]]
if {$bad} { puts "FAIL http-draws n=$n"; exit 1 }
puts "ok http-draws n=$n seed=4711"
exit 0
