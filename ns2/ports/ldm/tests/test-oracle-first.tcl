# test-oracle.tcl with policy_ 1 (the first forwarder applies p_mark = 0.19, the second 0)
set variant first
source [file join [file dirname [info script]] test-oracle.tcl]
