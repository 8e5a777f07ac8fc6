# test-window.tcl with min_win_ 0.5: w_opt 0.75 stays, p_mark capped at 1
set wvariant min
source [file join [file dirname [info script]] test-window.tcl]
