/* -*- c++ -*-
 * ldm.cc -- Low Delay Marking (Lee, Li, Agu, Claypool, Kinicki 2003) as ns-2.35's
 * wireless interface queue: Queue/DropTail/PriQueue/LDM.
 * Part of hoptcp's ns-2.35 port "ldm" (ns2/ports/ldm); see its README.md and CHOICES.md.
 *
 * At a node that forwards a packet (num_forwards > 0, not a routing packet):
 *   - set the packet's bit in the flow bit vector v (bits cleared round robin, each once per
 *     clear_period_), n = bits set;
 *   - add its TTL to its connection's record (mean TTL per direction); h = the sum over both
 *     directions of (ttl_init_ - mean TTL);
 *   - if it is ECN-capable: w = h / (hops_per_win_ * n), floored; p_mark = k_ / w^2;
 *     p_node = 1 - (1 - p_mark)^(1/(h-1)); set CE with probability p_node.
 * Then the packet is queued as PriQueue does.
 */

#include <math.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <string>
#include "ldm.h"
#include "ip.h"
#include "flags.h"
#include "random.h"
#include "scheduler.h"

static class LDMQueueClass : public TclClass {
public:
	LDMQueueClass() : TclClass("Queue/DropTail/PriQueue/LDM") {}
	TclObject* create(int, const char*const*) {
		return (new LDMQueue);
	}
} class_ldm_queue;

LDMQueue::LDMQueue() : PriQueue(), nset_(0), cleared_(0)
{
	bind("ldm_", &ldm_);
	bind("oracle_", &oracle_);
	bind("oracle_hops_", &oracle_hops_);
	bind("oracle_flows_", &oracle_flows_);
	bind("ttl_init_", &ttl_init_);
	bind("bits_", &bits_);
	bind("clear_period_", &clear_period_);
	bind("flow_key_", &flow_key_);
	bind("k_", &k_);
	bind("hops_per_win_", &hops_per_win_);
	bind("wmin_rule_", &wmin_rule_);
	bind("eq4_", &eq4_);
	bind("policy_", &policy_);
	bind("min_win_", &min_win_);
	bind("floor_win_", &floor_win_);
	bind("target_win_", &target_win_);
	bind("action_", &action_);

	bind("pkts_", &pkts_);
	bind("ect_pkts_", &ect_pkts_);
	bind("data_pkts_", &data_pkts_);
	bind("drops_", &drops_);
	bind("decisions_", &decisions_);
	bind("marks_", &marks_);
	bind("ce_new_", &ce_new_);
	bind("flows_now_", &flows_now_);
	bind("last_hops_", &last_hops_);
	bind("mean_hops_", &mean_hops_);
	bind("last_flows_", &last_flows_);
	bind("mean_flows_", &mean_flows_);
	bind("last_pnode_", &last_pnode_);
	bind("mean_pnode_", &mean_pnode_);

	memset(v_, 0, sizeof(v_));
	reset_counters();
}

void LDMQueue::reset_counters()
{
	pkts_ = ect_pkts_ = data_pkts_ = drops_ = decisions_ = marks_ = ce_new_ = 0;
	flows_now_ = nset_;
	last_hops_ = mean_hops_ = 0.0;
	last_flows_ = mean_flows_ = 0.0;
	last_pnode_ = mean_pnode_ = 0.0;
}

int LDMQueue::nbits() const
{
	if (bits_ < 1)
		return 1;
	if (bits_ > LDM_MAX_BITS)
		return LDM_MAX_BITS;
	return bits_;
}

int LDMQueue::command(int argc, const char*const* argv)
{
	Tcl& tcl = Tcl::instance();
	if (argc == 2 && strcmp(argv[1], "ldm-reset") == 0) {
		reset_counters();
		return TCL_OK;
	}
	if (argc == 2 && strcmp(argv[1], "ldm-stats") == 0) {
		tcl.resultf("%d %d %d %d %d %d %d %.6f %.6f %.8f", pkts_, data_pkts_, ect_pkts_,
			    decisions_, marks_, ce_new_, drops_, mean_hops_, mean_flows_, mean_pnode_);
		return TCL_OK;
	}
	if (argc >= 2 && strcmp(argv[1], "ldm-initial-ttls") == 0) {
		/* $q ldm-initial-ttls T1 T2 ... (ascending); no argument: back to ttl_init_ */
		ttls_.clear();
		for (int i = 2; i < argc; i++) {
			int t = atoi(argv[i]);
			if (t < 1 || t > 255 || (!ttls_.empty() && t <= ttls_.back())) {
				tcl.resultf("ldm-initial-ttls: %s: want ascending TTLs in 1..255", argv[i]);
				ttls_.clear();
				return TCL_ERROR;
			}
			ttls_.push_back(t);
		}
		return TCL_OK;
	}
	if (argc == 5 && strcmp(argv[1], "ldm-oracle-hops") == 0) {
		/* $q ldm-oracle-hops A B H: the flows between addresses A and B have H hops */
		unsigned int a = (unsigned int) atoi(argv[2]), b = (unsigned int) atoi(argv[3]);
		if (a > b) { unsigned int t = a; a = b; b = t; }
		oracle_pairs_[std::make_pair(a, b)] = atof(argv[4]);
		return TCL_OK;
	}
	if (argc == 2 && strcmp(argv[1], "ldm-flows") == 0) {
		/* the flow records: a1:p1-a2:p2 mean-TTL and count per direction, bits */
		char buf[256];
		std::string out;
		for (std::map<Key, Rec>::iterator it = recs_.begin(); it != recs_.end(); ++it) {
			const Rec &r = it->second;
			snprintf(buf, sizeof(buf), "{%u:%u-%u:%u %.3f %ld %.3f %ld %d %d} ",
				 it->first.a1, it->first.p1, it->first.a2, it->first.p2,
				 r.ttl_n[0] ? r.ttl_sum[0] / r.ttl_n[0] : 0.0, r.ttl_n[0],
				 r.ttl_n[1] ? r.ttl_sum[1] / r.ttl_n[1] : 0.0, r.ttl_n[1],
				 r.bit[0], r.bit[1]);
			out += buf;
		}
		Tcl_SetResult(tcl.interp(), (char *) out.c_str(), TCL_VOLATILE);
		return TCL_OK;
	}
	return PriQueue::command(argc, argv);
}

/* FNV-1a over four 32-bit words, least significant byte first, then MurmurHash3's finaliser */
unsigned int LDMQueue::fnv(unsigned int w0, unsigned int w1, unsigned int w2, unsigned int w3)
{
	unsigned int w[4] = { w0, w1, w2, w3 };
	unsigned int h = 2166136261u;
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 4; b++) {
			h ^= (w[i] >> (8 * b)) & 0xffu;
			h *= 16777619u;
		}
	/* MurmurHash3's 32-bit finaliser: FNV's low bits alone mix poorly, and bits_ takes them */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

void LDMQueue::clear_bit(int b)
{
	if (v_[b]) {
		v_[b] = 0;
		nset_--;
	}
	/* "When a bit is cleared, the corresponding per-flow state information kept ... is
	 * also cleared." */
	std::map<Key, Rec>::iterator it = recs_.begin();
	while (it != recs_.end()) {
		if (it->second.bit[0] == b || it->second.bit[1] == b)
			recs_.erase(it++);
		else
			++it;
	}
}

/* the initial TTL assumed for a packet seen with TTL ttl: the smallest convention at or above
 * it, or ttl_init_ without a list */
double LDMQueue::initial_ttl(int ttl) const
{
	if (ttls_.empty())
		return ttl_init_;
	for (size_t i = 0; i < ttls_.size(); i++)
		if (ttls_[i] >= ttl)
			return (double) ttls_[i];
	return (double) ttl;
}

double LDMQueue::oracle_hops(unsigned int a, unsigned int b) const
{
	if (a > b) { unsigned int t = a; a = b; b = t; }
	std::map<std::pair<unsigned int, unsigned int>, double>::const_iterator it =
		oracle_pairs_.find(std::make_pair(a, b));
	return it != oracle_pairs_.end() ? it->second : oracle_hops_;
}

/* bit j mod bits is cleared at (j+1) * clear_period_ / bits, j = 0, 1, ... */
void LDMQueue::advance_clear(double now)
{
	int nb = nbits();
	if (clear_period_ <= 0.0)
		return;		/* never cleared */
	double step = clear_period_ / nb;
	long due = (long) floor(now / step + 1e-9);
	if (due <= cleared_)
		return;
	if (due - cleared_ >= nb) {
		for (int b = 0; b < nb; b++)
			clear_bit(b);
	} else {
		for (long j = cleared_; j < due; j++)
			clear_bit((int) (j % nb));
	}
	cleared_ = due;
}

int LDMQueue::process(Packet *p)
{
	hdr_cmn *ch = HDR_CMN(p);
	hdr_ip *ih = HDR_IP(p);
	hdr_flags *hf = hdr_flags::access(p);
	double now = Scheduler::instance().clock();

	pkts_++;
	advance_clear(now);

	unsigned int sa = (unsigned int) ih->saddr(), sp = (unsigned int) ih->sport();
	unsigned int da = (unsigned int) ih->daddr(), dp = (unsigned int) ih->dport();
	Key key;
	int dir;
	if (sa < da || (sa == da && sp <= dp)) {
		key.a1 = sa; key.p1 = sp; key.a2 = da; key.p2 = dp; dir = 0;
	} else {
		key.a1 = da; key.p1 = dp; key.a2 = sa; key.p2 = sp; dir = 1;
	}
	int ect = hf->ect() ? 1 : 0;
	/* a data packet: not a TCP ACK, and not a TCP segment without payload (ns-2's 40-byte
	 * connection-setup segment) */
	int data = ch->ptype() != PT_ACK &&
		   !(ch->ptype() == PT_TCP && ch->size() <= 40);

	/* the flow bit vector */
	int nb = nbits();
	int bit = -1;
	if (flow_key_ == 1)
		bit = (int) (fnv(sa, sp, da, dp) % (unsigned int) nb);
	else if (flow_key_ == 2) {
		if (ect)
			bit = (int) (fnv(sa, sp, da, dp) % (unsigned int) nb);
	} else
		bit = (int) (fnv(key.a1, key.p1, key.a2, key.p2) % (unsigned int) nb);
	if (bit >= 0 && !v_[bit]) {
		v_[bit] = 1;
		nset_++;
	}
	flows_now_ = nset_;

	/* the connection's record: hops travelled per direction */
	std::map<Key, Rec>::iterator it = recs_.find(key);
	if (it == recs_.end()) {
		Rec r;
		r.ttl_sum[0] = r.ttl_sum[1] = 0.0;
		r.ttl_n[0] = r.ttl_n[1] = 0;
		r.bit[0] = r.bit[1] = -1;
		it = recs_.insert(std::make_pair(key, r)).first;
	}
	Rec &rec = it->second;
	rec.ttl_sum[dir] += initial_ttl(ih->ttl()) - (double) ih->ttl();
	rec.ttl_n[dir]++;
	if (bit >= 0)
		rec.bit[dir] = bit;

	if (ect)
		ect_pkts_++;
	if (!data)
		return 0;
	data_pkts_++;
	if (action_ == 0 && !ect)
		return 0;	/* only ECN-capable packets can be marked */

	double h, n;
	if (oracle_) {
		h = oracle_hops(sa, da);
		n = oracle_flows_;
	} else {
		if (rec.ttl_n[0] == 0 || rec.ttl_n[1] == 0)
			return 0;	/* one direction not seen yet: no estimate */
		h = rec.ttl_sum[0] / rec.ttl_n[0] + rec.ttl_sum[1] / rec.ttl_n[1];
		n = (double) nset_;
	}
	if (h <= 0.0 || n <= 0.0)
		return 0;

	/* Eq. (1), or a fixed target window, and the floor */
	double w = target_win_ > 0.0 ? target_win_ : h / (hops_per_win_ * n);
	if (wmin_rule_ == 0) {
		if (w <= min_win_)
			w = floor_win_;
	} else if (wmin_rule_ == 1) {
		if (w < floor_win_)
			w = floor_win_;
	}
	/* Eq. (2)/(3) */
	double pmark = w > 0.0 ? k_ / (w * w) : 1.0;
	if (pmark > 1.0)
		pmark = 1.0;
	if (pmark < 0.0)
		pmark = 0.0;
	/* Eq. (4) or the first-node policy */
	double pnode;
	if (policy_ == 1) {
		double dsrc = initial_ttl(ih->ttl()) - (double) ih->ttl();
		pnode = (fabs(dsrc - 1.0) < 0.5) ? pmark : 0.0;
	} else {
		double e = h - 1.0;
		if (e < 1.0)
			e = 1.0;
		if (eq4_ == 1)
			pnode = pow(1.0 - pmark, 1.0 / e);
		else
			pnode = 1.0 - pow(1.0 - pmark, 1.0 / e);
	}

	decisions_++;
	last_hops_ = h;
	last_flows_ = n;
	last_pnode_ = pnode;
	mean_hops_ += (h - mean_hops_) / decisions_;
	mean_flows_ += (n - mean_flows_) / decisions_;
	mean_pnode_ += (pnode - mean_pnode_) / decisions_;

	if (pnode > 0.0 && Random::uniform() < pnode) {
		/* action_ 0: CE (ECN-capable packets only get here); 1: CE, or a drop if not
		 * ECN-capable (RFC 3168); 2: a drop */
		if (action_ == 2 || (action_ == 1 && !ect)) {
			drops_++;
			drop(p, "LDM");
			return 1;
		}
		marks_++;
		if (!hf->ce())
			ce_new_++;
		hf->ce() = 1;
	}
	return 0;
}

void LDMQueue::recv(Packet *p, Handler *h)
{
	if (ldm_) {
		hdr_cmn *ch = HDR_CMN(p);
		switch (ch->ptype()) {
		case PT_DSR:
		case PT_MESSAGE:
		case PT_TORA:
		case PT_AODV:
		case PT_AOMDV:
		case PT_MDART:
		case PT_IMEP:
		case PT_ARP:
		case PT_MAC:
			break;		/* routing, ARP and MAC packets: not LDM's */
		default:
			if (ch->num_forwards() > 0 && process(p))
				return;	/* dropped by LDM */
		}
	}
	PriQueue::recv(p, h);
}
