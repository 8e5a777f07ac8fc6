// static-route.cc -- hoptcp's static-route agent for ns-2.35 mobile nodes
// (see static-route.h). Written for hoptcp (ns2/ports/static-routes).

#include <stdlib.h>
#include <string.h>

#include "static-route.h"
#include "address.h"
#include "cmu-trace.h"
#include "ip.h"

static class StaticRouteClass : public TclClass {
public:
	StaticRouteClass() : TclClass("Agent/StaticRoute") {}
	TclObject* create(int, const char*const*) {
		return (new StaticRouteAgent());
	}
} class_static_route;

StaticRouteAgent::StaticRouteAgent()
	: Agent(PT_MESSAGE), port_dmux_(0), tracetarget_(0), noriginated_(0), nforwarded_(0),
	  ndrop_noroute_(0), ndrop_ttl_(0), ndrop_loop_(0)
{
	bind("noriginated_", &noriginated_);
	bind("nforwarded_", &nforwarded_);
	bind("ndrop_noroute_", &ndrop_noroute_);
	bind("ndrop_ttl_", &ndrop_ttl_);
	bind("ndrop_loop_", &ndrop_loop_);
}

nsaddr_t StaticRouteAgent::myaddr() const
{
	return Address::instance().get_nodeaddr(here_.addr_);
}

nsaddr_t StaticRouteAgent::lookup(int fid, nsaddr_t dst) const
{
	std::map<std::pair<int, nsaddr_t>, nsaddr_t>::const_iterator f =
		flow_routes_.find(std::make_pair(fid, dst));
	if (f != flow_routes_.end())
		return f->second;
	std::map<nsaddr_t, nsaddr_t>::const_iterator r = routes_.find(dst);
	if (r != routes_.end())
		return r->second;
	return -1;
}

// an address argument: a non-negative integer, else -1
static nsaddr_t addr_arg(const char* s)
{
	char* end = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || v < 0)
		return -1;
	return (nsaddr_t)v;
}

int StaticRouteAgent::command(int argc, const char*const* argv)
{
	Tcl& tcl = Tcl::instance();
	if (argc == 2) {
		if (strcmp(argv[1], "clear-routes") == 0) {
			routes_.clear();
			flow_routes_.clear();
			return TCL_OK;
		}
		if (strcmp(argv[1], "nroutes") == 0) {
			tcl.resultf("%d", (int)(routes_.size() + flow_routes_.size()));
			return TCL_OK;
		}
		if (strcmp(argv[1], "routes") == 0) {
			// a flat list: dst nexthop dst nexthop ...
			Tcl_Obj* l = Tcl_NewListObj(0, NULL);
			for (std::map<nsaddr_t, nsaddr_t>::const_iterator r = routes_.begin(); r != routes_.end(); ++r) {
				Tcl_ListObjAppendElement(tcl.interp(), l, Tcl_NewIntObj(r->first));
				Tcl_ListObjAppendElement(tcl.interp(), l, Tcl_NewIntObj(r->second));
			}
			Tcl_SetObjResult(tcl.interp(), l);
			return TCL_OK;
		}
		if (strcmp(argv[1], "flow-routes") == 0) {
			// a flat list: fid dst nexthop fid dst nexthop ...
			Tcl_Obj* l = Tcl_NewListObj(0, NULL);
			for (std::map<std::pair<int, nsaddr_t>, nsaddr_t>::const_iterator f = flow_routes_.begin();
			     f != flow_routes_.end(); ++f) {
				Tcl_ListObjAppendElement(tcl.interp(), l, Tcl_NewIntObj(f->first.first));
				Tcl_ListObjAppendElement(tcl.interp(), l, Tcl_NewIntObj(f->first.second));
				Tcl_ListObjAppendElement(tcl.interp(), l, Tcl_NewIntObj(f->second));
			}
			Tcl_SetObjResult(tcl.interp(), l);
			return TCL_OK;
		}
	}
	if (argc == 3) {
		if (strcmp(argv[1], "port-dmux") == 0) {
			port_dmux_ = (NsObject*)TclObject::lookup(argv[2]);
			if (port_dmux_ == 0) {
				tcl.resultf("Agent/StaticRoute: port-dmux: no object %s", argv[2]);
				return TCL_ERROR;
			}
			return TCL_OK;
		}
		if (strcmp(argv[1], "tracetarget") == 0) {
			tracetarget_ = (Trace*)TclObject::lookup(argv[2]);
			if (tracetarget_ == 0) {
				tcl.resultf("Agent/StaticRoute: tracetarget: no object %s", argv[2]);
				return TCL_ERROR;
			}
			return TCL_OK;
		}
		if (strcmp(argv[1], "delete-route") == 0) {
			nsaddr_t dst = addr_arg(argv[2]);
			if (dst < 0) {
				tcl.resultf("Agent/StaticRoute: delete-route %s: not a node address", argv[2]);
				return TCL_ERROR;
			}
			routes_.erase(dst);
			return TCL_OK;
		}
		if (strcmp(argv[1], "route") == 0) {
			nsaddr_t dst = addr_arg(argv[2]);
			if (dst < 0) {
				tcl.resultf("Agent/StaticRoute: route %s: not a node address", argv[2]);
				return TCL_ERROR;
			}
			tcl.resultf("%d", (int)lookup(-1, dst));
			return TCL_OK;
		}
	}
	if (argc == 4) {
		if (strcmp(argv[1], "add-route") == 0) {
			nsaddr_t dst = addr_arg(argv[2]), hop = addr_arg(argv[3]);
			if (dst < 0 || hop < 0) {
				tcl.resultf("Agent/StaticRoute: add-route %s %s: not node addresses", argv[2], argv[3]);
				return TCL_ERROR;
			}
			routes_[dst] = hop;
			return TCL_OK;
		}
		if (strcmp(argv[1], "route") == 0) {  // route fid dst
			nsaddr_t dst = addr_arg(argv[3]);
			if (dst < 0) {
				tcl.resultf("Agent/StaticRoute: route %s %s: not a node address", argv[2], argv[3]);
				return TCL_ERROR;
			}
			tcl.resultf("%d", (int)lookup(atoi(argv[2]), dst));
			return TCL_OK;
		}
	}
	if (argc == 5 && strcmp(argv[1], "add-flow-route") == 0) {
		nsaddr_t fid = addr_arg(argv[2]), dst = addr_arg(argv[3]), hop = addr_arg(argv[4]);
		if (fid < 0 || dst < 0 || hop < 0) {
			tcl.resultf("Agent/StaticRoute: add-flow-route %s %s %s: not a flow id and node addresses",
				    argv[2], argv[3], argv[4]);
			return TCL_ERROR;
		}
		flow_routes_[std::make_pair((int)fid, dst)] = hop;
		return TCL_OK;
	}
	return Agent::command(argc, argv);
}

void StaticRouteAgent::recv(Packet* p, Handler*)
{
	hdr_ip* iph = HDR_IP(p);
	hdr_cmn* ch = HDR_CMN(p);
	nsaddr_t me = myaddr();
	nsaddr_t src = Address::instance().get_nodeaddr(iph->saddr());

	if (src == me && ch->num_forwards() == 0) {
		// a packet this node originates: the IP header, and the initial TTL (as DSDV does)
		ch->size() += IP_HDR_LEN;
		iph->ttl_ = IP_DEF_TTL;
	} else if (src == me) {
		// a packet this node sent came back: a routing loop
		ndrop_loop_++;
		drop(p, DROP_RTR_ROUTE_LOOP);
		return;
	} else if (--iph->ttl_ == 0) {
		ndrop_ttl_++;
		drop(p, DROP_RTR_TTL);
		return;
	}

	if ((u_int32_t)iph->daddr() == IP_BROADCAST) {
		if (src == me) {
			// one broadcast on the air (no jitter, no relaying)
			ch->direction() = hdr_cmn::DOWN;
			ch->addr_type_ = NS_AF_NONE;
			ch->next_hop_ = IP_BROADCAST;
			ch->xmit_failure_ = 0;
			ch->xmit_failure_data_ = 0;
			noriginated_++;
			target_->recv(p, (Handler*)0);
		} else if (port_dmux_ != 0) {
			port_dmux_->recv(p, (Handler*)0);
		} else {
			Packet::free(p);
		}
		return;
	}

	nsaddr_t dst = Address::instance().get_nodeaddr(iph->daddr());
	if (dst == me) {
		// (the node's address classifier delivers these before the routing agent)
		if (port_dmux_ != 0)
			port_dmux_->recv(p, (Handler*)0);
		else
			Packet::free(p);
		return;
	}
	nsaddr_t hop = lookup(iph->flowid(), dst);
	if (hop < 0) {
		ndrop_noroute_++;
		drop(p, DROP_RTR_NO_ROUTE);
		return;
	}
	ch->direction() = hdr_cmn::DOWN;
	ch->addr_type_ = NS_AF_INET;
	ch->next_hop_ = hop;
	// No reaction to a packet the MAC gives up (the retry limits) or ARP drops: the
	// MAC's own drop is the only trace of it (a callback left from the previous hop
	// is cleared: it would call that node's agent).
	ch->xmit_failure_ = 0;
	ch->xmit_failure_data_ = 0;
	if (src == me)
		noriginated_++;
	else
		nforwarded_++;
	target_->recv(p, (Handler*)0);
}
