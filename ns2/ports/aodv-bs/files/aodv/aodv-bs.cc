/*
 * aodv-bs: AODV to a base station in ns-2.35's wired-cum-wireless networks
 * (hoptcp's ns-2 port for the TCP-GAP scenarios; see ns2/ports/aodv-bs/README.md).
 *
 * Members of class AODV declared by the port's insertion into aodv/aodv.h and called from
 * the port's insertions into aodv/aodv.cc:
 *
 *   bs_resolve()    from rt_resolve(): gateway-bound packets of a wireless node go towards its
 *                   base station; at the base station, wired-to-wireless packets without a
 *                   route are buffered and a route request is sent (instead of RERR + drop);
 *   bs_ll_failed()  from rt_ll_failed(): a MAC failure of a gateway-bound packet is handled
 *                   on the route to the base station;
 *   bs_flush()      where a route comes up (RREP, reverse route of a RREQ): the gateway buffer
 *                   is released when that route is the one to the base station;
 *   bs_purge()      from rt_purge() (every 0.5 s): releases, times out, or re-requests;
 *   bs_give_up()    from sendRequest() when route discovery gives up on a destination.
 *
 * A node's gateway is ns-2's per-node base station (MobileNode::base_stn(), set from Tcl with
 * "$node base-station <addr>"); a base station is a node whose base station is itself.
 */

#include "aodv/aodv.h"
#include "aodv/aodv_packet.h"
#include "mobilenode.h"
#include "address.h"
#include "ip.h"

void
AODV::bs_init()
{
	bs_gateway_ = 1;
	bs_match_levels_ = 1;
	bs_up_fwd_ = bs_up_buf_ = bs_up_drop_ = 0;
	bs_down_buf_ = bs_down_fwd_ = 0;
	bs_head_ = bs_tail_ = 0;
	bs_len_ = 0;
	bs_node_ = 0;
	bind("bs_gateway_", &bs_gateway_);
	bind("bs_match_levels_", &bs_match_levels_);
	bind("bs_up_fwd_", &bs_up_fwd_);
	bind("bs_up_buf_", &bs_up_buf_);
	bind("bs_up_drop_", &bs_up_drop_);
	bind("bs_down_buf_", &bs_down_buf_);
	bind("bs_down_fwd_", &bs_down_fwd_);
}

/* This node's base station (an ns address), or -1 when it has none. */
int
AODV::bs_addr()
{
	if (bs_node_ == 0) {
		Node *n = Node::get_node_by_address(index);
		if (n == 0)
			return -1;
		bs_node_ = dynamic_cast<MobileNode *>(n);
		if (bs_node_ == 0)
			return -1;
	}
	return bs_node_->base_stn();
}

/* Is address a outside the domain of address b (the first bs_match_levels_ fields)? */
int
AODV::bs_outside(nsaddr_t a, nsaddr_t b)
{
	Address &ad = Address::instance();
	int levels = ad.levels_;
	if (levels <= 1)
		return 0;		// flat addresses: no domains
	int n = bs_match_levels_;
	if (n < 1)
		n = 1;
	if (n > levels - 1)
		n = levels - 1;
	for (int l = 1; l <= n; l++)
		if (ad.hier_addr(a, l) != ad.hier_addr(b, l))
			return 1;
	return 0;
}

/* A data packet a wireless node must send towards its base station. */
int
AODV::bs_outbound(Packet *p)
{
	struct hdr_ip *ih = HDR_IP(p);
	if (!bs_gateway_ || (u_int32_t) ih->daddr() == IP_BROADCAST)
		return 0;
	if (!bs_outside(ih->daddr(), index))
		return 0;
	int g = bs_addr();
	return g >= 0 && g != (int) index;
}

/* At a base station: a packet from outside the domain for a node inside it. */
int
AODV::bs_inbound(Packet *p)
{
	struct hdr_ip *ih = HDR_IP(p);
	if (!bs_gateway_ || (u_int32_t) ih->daddr() == IP_BROADCAST)
		return 0;
	if (bs_addr() != (int) index)
		return 0;
	return !bs_outside(ih->daddr(), index) && bs_outside(ih->saddr(), index);
}

/* --- the gateway buffer: FIFO, AODV's own limits (AODV_RTQ_MAX_LEN packets, AODV_RTQ_TIMEOUT s) */

void
AODV::bs_enque(Packet *p)
{
	bs_drop_aged();
	p->next_ = 0;
	HDR_CMN(p)->ts_ = CURRENT_TIME + AODV_RTQ_TIMEOUT;
	if (bs_len_ >= AODV_RTQ_MAX_LEN) {
		Packet *old = bs_deque();
		bs_up_drop_++;
		drop(old, DROP_RTR_QFULL);
	}
	if (bs_tail_)
		bs_tail_->next_ = p;
	else
		bs_head_ = p;
	bs_tail_ = p;
	bs_len_++;
	bs_up_buf_++;
}

Packet *
AODV::bs_deque()
{
	Packet *p = bs_head_;
	if (p == 0)
		return 0;
	bs_head_ = p->next_;
	if (bs_head_ == 0)
		bs_tail_ = 0;
	p->next_ = 0;
	bs_len_--;
	return p;
}

void
AODV::bs_drop_aged()
{
	while (bs_head_ && HDR_CMN(bs_head_)->ts_ < CURRENT_TIME) {
		Packet *p = bs_deque();
		bs_up_drop_++;
		drop(p, DROP_RTR_QTIMEOUT);
	}
}

/* --- hooks --------------------------------------------------------------------------------- */

/* Called by rt_resolve() once the failure callback is set; 1 when the packet was taken. */
int
AODV::bs_resolve(Packet *p)
{
	struct hdr_ip *ih = HDR_IP(p);

	if (bs_outbound(p)) {
		nsaddr_t g = (nsaddr_t) bs_addr();
		aodv_rt_entry *rt = rtable.rt_lookup(g);
		if (rt == 0)
			rt = rtable.rt_add(g);
		if (rt->rt_flags == RTF_UP) {
			bs_up_fwd_++;
			forward(rt, p, NO_DELAY);
		} else if (ih->saddr() == index) {
			// our own packet: wait for the route to the base station
			bs_enque(p);
			sendRequest(g);
		} else if (rt->rt_flags == RTF_IN_REPAIR) {
			bs_enque(p);
		} else {
			// a relay without a route to the base station: as AODV does for any
			// destination, tell the upstream nodes and drop
			Packet *rerr = Packet::alloc();
			struct hdr_aodv_error *re = HDR_AODV_ERROR(rerr);
			re->DestCount = 1;
			re->unreachable_dst[0] = rt->rt_dst;
			re->unreachable_dst_seqno[0] = rt->rt_seqno;
			sendError(rerr, false);
			bs_up_drop_++;
			drop(p, DROP_RTR_NO_ROUTE);
		}
		return 1;
	}

	if (bs_inbound(p)) {
		aodv_rt_entry *rt = rtable.rt_lookup(ih->daddr());
		if (rt == 0)
			rt = rtable.rt_add(ih->daddr());
		if (rt->rt_flags == RTF_DOWN) {
			// the base station finds the route as the packet's source would
			bs_down_buf_++;
			rqueue.enque(p);
			sendRequest(rt->rt_dst);
			return 1;
		}
		bs_down_fwd_++;		// up or in repair: AODV's own path
	}
	return 0;
}

/* Called by rt_ll_failed() (MAC-layer link-break detection); 1 when the packet was taken. */
int
AODV::bs_ll_failed(Packet *p)
{
	struct hdr_cmn *ch = HDR_CMN(p);
	if (!DATA_PACKET(ch->ptype()) || !bs_outbound(p))
		return 0;
	nsaddr_t g = (nsaddr_t) bs_addr();
	nsaddr_t broken_nbr = ch->next_hop_;
	aodv_rt_entry *rt = rtable.rt_lookup(g);
	if (rt == 0) {
		bs_up_drop_++;
		drop(p, DROP_RTR_MAC_CALLBACK);
		return 1;
	}
	log_link_del(broken_nbr);
#ifdef AODV_LOCAL_REPAIR
	if (ch->num_forwards() > rt->rt_hops) {
		// the break is nearer the base station than the source: repair the route to it
		bs_enque(p);
		rt->rt_flags = RTF_IN_REPAIR;
		sendRequest(g);
		// the repair timer looks the route up by the packet's destination
		Packet *c = p->copy();
		HDR_IP(c)->daddr() = g;
		Scheduler::instance().schedule(&lrtimer, c, rt->rt_req_timeout);
		return 1;
	}
#endif
	bs_up_drop_++;
	drop(p, DROP_RTR_MAC_CALLBACK);
	Packet *q;
	while ((q = ifqueue->filter(broken_nbr)))
		drop(q, DROP_RTR_MAC_CALLBACK);
	nb_delete(broken_nbr);
	return 1;
}

/* A route came up: if it is the one to the base station, release the gateway buffer. */
void
AODV::bs_flush(aodv_rt_entry *rt)
{
	if (bs_len_ == 0 || rt == 0 || rt->rt_flags != RTF_UP)
		return;
	if ((int) rt->rt_dst != bs_addr())
		return;
	bs_drop_aged();
	double delay = 0.0;
	Packet *p;
	while ((p = bs_deque())) {
		bs_up_fwd_++;
		forward(rt, p, delay);
		delay += ARP_DELAY;
	}
}

/* Every route-cache tick: release, time out, or ask again for the base station. */
void
AODV::bs_purge()
{
	if (bs_len_ == 0)
		return;
	bs_drop_aged();
	if (bs_len_ == 0)
		return;
	int g = bs_addr();
	if (g < 0)
		return;
	aodv_rt_entry *rt = rtable.rt_lookup((nsaddr_t) g);
	if (rt == 0)
		rt = rtable.rt_add((nsaddr_t) g);
	if (rt->rt_flags == RTF_UP)
		bs_flush(rt);
	else if (rt->rt_flags == RTF_DOWN)
		sendRequest(rt->rt_dst);
}

/* Route discovery gave up on dst: drop the gateway buffer if dst is the base station. */
void
AODV::bs_give_up(nsaddr_t dst)
{
	if (bs_len_ == 0 || (int) dst != bs_addr())
		return;
	Packet *p;
	while ((p = bs_deque())) {
		bs_up_drop_++;
		drop(p, DROP_RTR_NO_ROUTE);
	}
}

/*
 * With hierarchical addresses ns-2's LL does not recognise AODV's broadcasts: they leave
 * with addr_type NS_AF_NONE, the LL takes the MAC destination from
 * Address::get_nodeaddr(daddr), which masks IP_BROADCAST into an ordinary address, and
 * sends an ARP request for it instead of a MAC broadcast. A broadcast given as the next hop
 * (NS_AF_INET, next_hop_ IP_BROADCAST) is sent to the MAC broadcast address (as ns-2's
 * DSDV does). Flat addresses: nothing changes.
 */
void
AODV::bs_bcast(Packet *p)
{
	if (Address::instance().levels_ <= 1)
		return;
	if ((u_int32_t) HDR_IP(p)->daddr() != IP_BROADCAST)
		return;
	HDR_CMN(p)->next_hop_ = IP_BROADCAST;
	HDR_CMN(p)->addr_type() = NS_AF_INET;
}

/*
 * Hops of this node's up route to dst, or -1 (TCP-GAP's h: "the number of hops between A and
 * IG, which can be acquired from the routing protocol at IG"). Tcl: $ragent bs-hops <addr>.
 */
int
AODV::bs_route_hops(nsaddr_t dst)
{
	aodv_rt_entry *rt = rtable.rt_lookup(dst);
	if (rt == 0 || rt->rt_flags != RTF_UP || rt->rt_hops == INFINITY2)
		return -1;
	return rt->rt_hops;
}
