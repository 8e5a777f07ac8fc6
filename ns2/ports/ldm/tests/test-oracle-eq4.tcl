# test-oracle.tcl with eq4_ 1 (Eq. (4) as printed): p_node = 0.9
set variant eq4
source [file join [file dirname [info script]] test-oracle.tcl]
