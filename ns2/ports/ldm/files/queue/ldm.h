/* -*- c++ -*-
 * ldm.h -- Low Delay Marking (Lee, Li, Agu, Claypool, Kinicki 2003) as ns-2.35's
 * wireless interface queue: Queue/DropTail/PriQueue/LDM.
 * Part of hoptcp's ns-2.35 port "ldm" (ns2/ports/ldm); see its README.md and CHOICES.md.
 */
#ifndef ns_ldm_h
#define ns_ldm_h

#include <map>
#include <vector>
#include <utility>
#include "priqueue.h"

#define LDM_MAX_BITS 65536

class LDMQueue : public PriQueue {
public:
	LDMQueue();
	void recv(Packet *p, Handler *h);
	int command(int argc, const char*const* argv);

protected:
	struct Key {
		unsigned int a1, p1, a2, p2;	/* endpoints, (a1,p1) <= (a2,p2) */
		bool operator<(const Key &o) const {
			if (a1 != o.a1) return a1 < o.a1;
			if (p1 != o.p1) return p1 < o.p1;
			if (a2 != o.a2) return a2 < o.a2;
			return p2 < o.p2;
		}
	};
	struct Rec {
		double ttl_sum[2];	/* per direction (0 = from (a1,p1), 1 = from (a2,p2)): the sum of
					 * the hops travelled, initial TTL - TTL */
		long ttl_n[2];
		int bit[2];		/* bit of v last set by that direction's packets, -1 none */
	};

	int process(Packet *p);		/* 1: the packet was dropped */
	double initial_ttl(int ttl) const;
	double oracle_hops(unsigned int a, unsigned int b) const;
	void advance_clear(double now);
	void clear_bit(int b);
	static unsigned int fnv(unsigned int w0, unsigned int w1, unsigned int w2, unsigned int w3);
	int nbits() const;
	void reset_counters();

	/* parameters */
	int ldm_;
	int oracle_;
	double oracle_hops_;
	double oracle_flows_;
	double ttl_init_;
	int bits_;
	double clear_period_;
	int flow_key_;
	double k_;
	double hops_per_win_;
	int wmin_rule_;
	int eq4_;
	int policy_;
	double min_win_;
	double floor_win_;
	double target_win_;
	int action_;

	/* counters */
	int pkts_;
	int ect_pkts_;
	int data_pkts_;
	int drops_;
	int decisions_;
	int marks_;
	int ce_new_;
	int flows_now_;
	double last_hops_, mean_hops_;
	double last_flows_, mean_flows_;
	double last_pnode_, mean_pnode_;

	/* estimator state */
	unsigned char v_[LDM_MAX_BITS];
	int nset_;
	long cleared_;		/* clearing steps applied so far */
	std::map<Key, Rec> recs_;
	std::vector<int> ttls_;		/* conventional initial TTLs, ascending (empty: ttl_init_) */
	std::map<std::pair<unsigned int, unsigned int>, double> oracle_pairs_;
};

#endif
