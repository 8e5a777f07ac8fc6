/*
 * tcp-gap.h -- TCP-GAP's Internet-gateway side (hoptcp's ns-2.35 port "tcp-gap").
 *
 * ElRakabawy, Klemm, Lindemann, "TCP with gateway adaptive pacing for multihop wireless
 * networks with Internet connectivity", Computer Networks 52 (2008), Sections 4.3, 4.4, 4.6.
 * Written from the paper's text; the choices it leaves open are listed in the port's
 * CHOICES.md.  Not derived from any other implementation.
 */
#ifndef ns_tcp_gap_h
#define ns_tcp_gap_h

#include <map>
#include <deque>
#include <vector>
#include <set>
#include "connector.h"
#include "packet.h"
#include "timer-handler.h"

/* RTT_wired, written by the gateway into ACKs of wireless-to-wired flows (the paper's
 * "options field"; ns-2's TCP header has none, so it is a header of its own). */
struct hdr_tcpgap {
	int stamped_;		/* 1 when the gateway wrote rtt_wired_ms_ */
	int rtt_wired_ms_;	/* RTT_wired in ms, 0..65535 */

	static int offset_;
	inline static int& offset() { return offset_; }
	inline static hdr_tcpgap* access(const Packet* p) {
		return (hdr_tcpgap*) p->access(offset_);
	}
};

class TcpGapGateway;

class TcpGapPaceTimer : public TimerHandler {
public:
	TcpGapPaceTimer(TcpGapGateway* g, int id) : TimerHandler(), gw_(g), id_(id) {}
protected:
	virtual void expire(Event*);
	TcpGapGateway* gw_;
	int id_;
};

class TcpGapRoundTimer : public TimerHandler {
public:
	TcpGapRoundTimer(TcpGapGateway* g, int kind) : TimerHandler(), gw_(g), kind_(kind) {}
protected:
	virtual void expire(Event*);
	TcpGapGateway* gw_;
	int kind_;		/* 0: Goodput Control / housekeeping round, 1: trace */
};

struct TcpGapFlow {
	int id;
	int src, sport, dst, dport;	/* the data direction */
	bool down;			/* wired-to-wireless */
	bool ended;
	double first_seen, last_seen;

	/* pacing queue (down) */
	std::deque<Packet*> q;
	TcpGapPaceTimer* timer;
	bool released_once;
	double last_release;
	double next_tick;

	/* sequence bookkeeping */
	std::map<int, double> t1;	/* seq -> T1 */
	int max_sent;			/* highest seq sent on (down) / passed (up) */
	double last_retx;		/* time the last retransmitted data left / passed */
	int last_ack;
	std::map<int, Packet*> copies;	/* local_retx_ */

	/* estimator */
	int hops;
	bool hops_fixed;
	double s_data, s_ack;
	std::deque<double> samples;
	bool have_fhd;
	double fhd, cov, rate;
	double rtt_last, rtt_sum;
	double rtt_wired_last;		/* up: last RTT_wired sample (s), <0 none */

	/* Goodput Control */
	double cap;
	bool throttled, throttled_now;
	double bytes_interval;
	bool active_interval;
	double g_last, g_prev, dev_last;

	/* counters */
	long data_in, paced, qdrops, qmax, acks, dupacks, rtt_samples, throttles, cancels,
	     stamps, local_retx;
	double acked_bytes;
	double acc_t, rate_area, rate_time, cap_area, cap_time;
};

class TcpGapGateway : public Connector {
public:
	TcpGapGateway();
	virtual void recv(Packet*, Handler* h = 0);
	int command(int argc, const char*const* argv);
	void pace_expire(int id);
	void round_expire();
	void trace_expire();

protected:
	bool wireless(int addr) const;
	TcpGapFlow* find(int src, int sport, int dst, int dport);
	TcpGapFlow* create(int src, int sport, int dst, int dport, bool down);
	void end_flow(TcpGapFlow* f);
	void data_down(TcpGapFlow* f, Packet* p);
	void data_up(TcpGapFlow* f, Packet* p);
	bool ack_common(TcpGapFlow* f, Packet* p, bool* fresh, double* sample);
	void try_release(TcpGapFlow* f);
	void release(TcpGapFlow* f);
	double gap(const TcpGapFlow* f) const;
	void new_sample(TcpGapFlow* f, double rtt);
	void accumulate(TcpGapFlow* f);
	void set_cap(TcpGapFlow* f, double cap);
	void start_timers();
	void print_flow(TcpGapFlow* f);
	int flow_counter(TcpGapFlow* f, const char* name, double* v);
	char* addr_str(int a);

	/* bound variables (see INTERFACE.md) */
	int pacing_;
	double alpha_;
	int hop_factor_;
	int short_path_;
	int cov_history_;
	int cov_kind_;
	double bandwidth_;
	double overhead_bytes_;
	double fhd_bound_;
	double ack_size_;
	double s_data_;
	int karn_;
	int retime_;
	int timer_;
	double initial_gap_;
	int hops_source_;
	int qlimit_;
	double flow_timeout_;
	int rtt_wired_;
	int rtt_opt_bytes_;
	int local_retx_;
	int gc_;
	double gc_interval_;
	double gc_threshold_;
	double gc_aging_;
	int gc_aging_kind_;
	int gc_improve_ref_;
	int gc_order_;
	double trace_interval_;

	int gw_domain_;
	bool have_gw_;
	bool timers_on_;
	std::vector<TcpGapFlow*> flows_;
	std::map<std::vector<int>, int> index_;	/* 4-tuple -> id of the live flow */
	std::map<int, int> fixed_hops_;		/* wireless node addr -> h */
	bool membership_changed_;
	std::set<int> slow_ids_;
	double slow_base_;
	bool slow_on_;
	long gc_rounds_, gc_resets_;
	double gavg_last_;
	TcpGapRoundTimer round_timer_;
	TcpGapRoundTimer trace_timer_;
};

#endif
