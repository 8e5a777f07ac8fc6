# helpers for the ldm tests (sourced); each test sets opt(...) and defines ldm_check
set ldm_failures 0
proc expect {what cond} {
    global ldm_failures
    if {![uplevel 1 [list expr $cond]]} {
        puts "FAIL $what ($cond)"
        incr ldm_failures
    }
}
proc close_to {a b tol} { expr {abs($a - $b) <= $tol} }
# the paper's p_node for h, n (Eq. 1-4, consistent form, floor w <= 1 -> 2)
proc pnode_of {h n} {
    set w [expr {$h / (4.0 * $n)}]
    if {$w <= 1.0} { set w 2.0 }
    set pm [expr {0.76 / ($w * $w)}]
    return [expr {1.0 - pow(1.0 - $pm, 1.0 / ($h - 1.0))}]
}
proc finish_test {name} {
    global ldm_failures
    if {$ldm_failures == 0} { puts "ok $name" } else { puts "failed $name: $ldm_failures checks" }
}
set ldm_scenario [file join [file dirname [info script]] ldm-scenario.tcl]
