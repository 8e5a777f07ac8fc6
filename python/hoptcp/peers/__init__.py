"""Other simulators run on the same work as hoptcp, for ``hoptcp bench --peers``.

ns-2.35 runs the exporter's scripts (:mod:`hoptcp.ns2`); ns-3 runs the programs
shipped in :mod:`hoptcp.peers.ns3`, built on demand against the system's ns-3.
"""
