# test-ttls.tcl with hoptcp's conventions {30 64 128 255}: h = 7
set ttls {30 64 128 255}
source [file join [file dirname [info script]] test-ttls.tcl]
