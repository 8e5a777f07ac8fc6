// static-route.h -- hoptcp's static-route agent for ns-2.35 mobile nodes.
//
// A routing agent with routes set from Tcl and no control packets at all: every
// node holds next hops per destination ("add-route dst nexthop") and, where flows
// to one destination must part at a node, per flow ("add-flow-route fid dst nexthop",
// looked up first, keyed by the IP header's flow id). A packet without a route is
// dropped (reason NRTE in the trace). Forwarding is that of DSDV once its table is
// frozen: the IP header is added to packets the node originates, TTL 32 counted
// down at each forwarding node, the packet handed to the link layer (and so to the
// interface queue), and nothing done when the MAC gives a packet up.
//
// Written for hoptcp (ns2/ports/static-routes); not part of ns-2.35.

#ifndef ns_static_route_h
#define ns_static_route_h

#include <map>
#include <utility>

#include "agent.h"
#include "packet.h"
#include "trace.h"

class StaticRouteAgent : public Agent {
public:
	StaticRouteAgent();
	virtual int command(int argc, const char*const* argv);
	virtual void recv(Packet* p, Handler* h);

protected:
	// the next hop for a packet of flow fid to dst; -1 without a route
	nsaddr_t lookup(int fid, nsaddr_t dst) const;
	nsaddr_t myaddr() const;
	void forward(Packet* p, nsaddr_t dst);

	std::map<nsaddr_t, nsaddr_t> routes_;                       // dst -> next hop
	std::map<std::pair<int, nsaddr_t>, nsaddr_t> flow_routes_;  // (fid, dst) -> next hop
	NsObject* port_dmux_;
	Trace* tracetarget_;

	// counters (bound, read-only by convention)
	int noriginated_;     // packets this node originated and sent on (unicast and broadcast)
	int nforwarded_;      // packets forwarded for other nodes
	int ndrop_noroute_;   // dropped: no route (NRTE)
	int ndrop_ttl_;       // dropped: TTL reached 0 (TTL)
	int ndrop_loop_;      // dropped: a packet this node originated came back (LOOP)
};

#endif
