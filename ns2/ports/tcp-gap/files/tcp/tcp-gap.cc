/*
 * tcp-gap.cc -- TCP-GAP's Internet-gateway side (hoptcp's ns-2.35 port "tcp-gap").
 *
 * Gateway adaptive pacing of wired-to-wireless TCP flows (Section 4.3, Fig. 7), the RTT_wired
 * stamp for wireless-to-wired flows (Section 4.2) and Goodput Control (Section 4.4) of
 * ElRakabawy, Klemm, Lindemann, Computer Networks 52 (2008).  See the port's CHOICES.md for
 * every reading of the text this file makes.
 */

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <string>
#include "tcp-gap.h"
#include "ip.h"
#include "tcp.h"
#include "address.h"
#include "scheduler.h"

int hdr_tcpgap::offset_;

static class TcpGapHeaderClass : public PacketHeaderClass {
public:
	TcpGapHeaderClass() : PacketHeaderClass("PacketHeader/TcpGap", sizeof(hdr_tcpgap)) {
		bind_offset(&hdr_tcpgap::offset_);
	}
} class_tcpgap_hdr;

static class TcpGapGatewayClass : public TclClass {
public:
	TcpGapGatewayClass() : TclClass("Connector/TcpGap") {}
	TclObject* create(int, const char*const*) { return (new TcpGapGateway()); }
} class_tcpgap_gateway;

void TcpGapPaceTimer::expire(Event*) { gw_->pace_expire(id_); }

void TcpGapRoundTimer::expire(Event*)
{
	if (kind_ == 0)
		gw_->round_expire();
	else
		gw_->trace_expire();
}

static inline double now() { return Scheduler::instance().clock(); }

TcpGapGateway::TcpGapGateway()
	: Connector(), gw_domain_(-1), have_gw_(false), timers_on_(false),
	  membership_changed_(false), slow_base_(0), slow_on_(false), gc_rounds_(0), gc_resets_(0),
	  gavg_last_(0), round_timer_(this, 0), trace_timer_(this, 1)
{
	bind_bool("pacing_", &pacing_);
	bind("alpha_", &alpha_);
	bind("hop_factor_", &hop_factor_);
	bind("short_path_", &short_path_);
	bind("cov_history_", &cov_history_);
	bind("cov_kind_", &cov_kind_);
	bind_bw("bandwidth_", &bandwidth_);
	bind("overhead_bytes_", &overhead_bytes_);
	bind_time("fhd_bound_", &fhd_bound_);
	bind("ack_size_", &ack_size_);
	bind("s_data_", &s_data_);
	bind_bool("karn_", &karn_);
	bind_bool("retime_", &retime_);
	bind("timer_", &timer_);
	bind_time("initial_gap_", &initial_gap_);
	bind("hops_source_", &hops_source_);
	bind("qlimit_", &qlimit_);
	bind_time("flow_timeout_", &flow_timeout_);
	bind_bool("rtt_wired_", &rtt_wired_);
	bind("rtt_opt_bytes_", &rtt_opt_bytes_);
	bind_bool("local_retx_", &local_retx_);
	bind_bool("gc_", &gc_);
	bind_time("gc_interval_", &gc_interval_);
	bind("gc_threshold_", &gc_threshold_);
	bind("gc_aging_", &gc_aging_);
	bind("gc_aging_kind_", &gc_aging_kind_);
	bind("gc_improve_ref_", &gc_improve_ref_);
	bind("gc_order_", &gc_order_);
	bind_time("trace_interval_", &trace_interval_);
}

/* ---------------------------------------------------------------- flows */

bool TcpGapGateway::wireless(int addr) const
{
	return Address::instance().hier_addr(addr, 1) == gw_domain_;
}

TcpGapFlow* TcpGapGateway::find(int src, int sport, int dst, int dport)
{
	std::vector<int> k(4);
	k[0] = src; k[1] = sport; k[2] = dst; k[3] = dport;
	std::map<std::vector<int>, int>::iterator it = index_.find(k);
	return it == index_.end() ? 0 : flows_[it->second];
}

TcpGapFlow* TcpGapGateway::create(int src, int sport, int dst, int dport, bool down)
{
	TcpGapFlow* f = new TcpGapFlow;
	f->id = (int) flows_.size();
	f->src = src; f->sport = sport; f->dst = dst; f->dport = dport;
	f->down = down;
	f->ended = false;
	f->first_seen = f->last_seen = now();
	f->timer = new TcpGapPaceTimer(this, f->id);
	f->released_once = false;
	f->last_release = 0;
	f->next_tick = 0;
	f->max_sent = -1;
	f->last_retx = -1;
	f->last_ack = -1;
	f->hops = 1;
	f->hops_fixed = false;
	int wnode = down ? dst : src;
	std::map<int, int>::iterator h = fixed_hops_.find(wnode);
	if (h != fixed_hops_.end()) { f->hops = h->second; f->hops_fixed = true; }
	f->s_data = 0;
	f->s_ack = ack_size_;
	f->have_fhd = false;
	f->fhd = f->cov = f->rate = 0;
	f->rtt_last = f->rtt_sum = 0;
	f->rtt_wired_last = -1;
	f->cap = 0;
	f->throttled = f->throttled_now = false;
	f->bytes_interval = 0;
	f->active_interval = true;
	f->g_last = f->g_prev = f->dev_last = 0;
	f->data_in = f->paced = f->qdrops = f->qmax = f->acks = f->dupacks = 0;
	f->rtt_samples = f->throttles = f->cancels = f->stamps = f->local_retx = 0;
	f->acked_bytes = 0;
	f->acc_t = now();
	f->rate_area = f->rate_time = f->cap_area = f->cap_time = 0;
	flows_.push_back(f);
	std::vector<int> k(4);
	k[0] = src; k[1] = sport; k[2] = dst; k[3] = dport;
	index_[k] = f->id;
	membership_changed_ = true;
	start_timers();
	return f;
}

void TcpGapGateway::end_flow(TcpGapFlow* f)
{
	accumulate(f);
	f->ended = true;
	f->timer->force_cancel();
	f->t1.clear();
	for (std::map<int, Packet*>::iterator c = f->copies.begin(); c != f->copies.end(); ++c)
		Packet::free(c->second);
	f->copies.clear();
	std::vector<int> k(4);
	k[0] = f->src; k[1] = f->sport; k[2] = f->dst; k[3] = f->dport;
	index_.erase(k);
	membership_changed_ = true;
}

void TcpGapGateway::start_timers()
{
	if (timers_on_)
		return;
	timers_on_ = true;
	if (gc_interval_ > 0)
		round_timer_.resched(gc_interval_);
	if (trace_interval_ > 0)
		trace_timer_.resched(trace_interval_);
}

/* time averages of the effective rate and of the cap */
void TcpGapGateway::accumulate(TcpGapFlow* f)
{
	double t = now(), dt = t - f->acc_t;
	if (dt > 0 && !f->ended) {
		double r = f->rate;
		if (f->cap > 0 && (r <= 0 || f->cap < r))
			r = f->cap;
		if (r > 0 && f->down && pacing_) {
			f->rate_area += r * dt;
			f->rate_time += dt;
		}
		if (f->cap > 0) {
			f->cap_area += f->cap * dt;
			f->cap_time += dt;
		}
	}
	f->acc_t = t;
}

void TcpGapGateway::set_cap(TcpGapFlow* f, double cap)
{
	accumulate(f);
	f->cap = cap;
	if (f->timer->status() == TIMER_PENDING) {
		f->timer->force_cancel();
		try_release(f);
	}
}

/* ---------------------------------------------------------------- packets */

void TcpGapGateway::recv(Packet* p, Handler* h)
{
	hdr_cmn* ch = hdr_cmn::access(p);
	packet_t t = ch->ptype();
	if (!have_gw_ || (t != PT_TCP && t != PT_ACK)) {
		send(p, h);
		return;
	}
	hdr_ip* iph = hdr_ip::access(p);
	int src = iph->saddr(), dst = iph->daddr();
	bool sw = wireless(src), dw = wireless(dst);
	if (sw == dw) {
		send(p, h);
		return;
	}
	if (t == PT_TCP) {
		TcpGapFlow* f = find(src, iph->sport(), dst, iph->dport());
		if (f == 0)
			f = create(src, iph->sport(), dst, iph->dport(), dw);
		f->last_seen = now();
		f->active_interval = true;
		f->data_in++;
		f->s_data = ch->size();
		if (f->down)
			data_down(f, p);
		else
			data_up(f, p);
		return;
	}
	/* an ACK: its flow is the reverse 4-tuple */
	TcpGapFlow* f = find(dst, iph->dport(), src, iph->sport());
	if (f == 0) {
		send(p, h);
		return;
	}
	f->last_seen = now();
	f->active_interval = true;
	f->acks++;
	f->s_ack = ch->size();
	bool fresh;
	double sample;
	bool has_sample = ack_common(f, p, &fresh, &sample);
	if (f->down) {
		if (!f->hops_fixed && hops_source_ == 0)
			f->hops = ch->num_forwards() > 0 ? ch->num_forwards() : 1;
		if (!fresh && local_retx_) {
			int want = hdr_tcp::access(p)->seqno() + 1;
			std::map<int, Packet*>::iterator c = f->copies.find(want);
			if (c != f->copies.end()) {
				f->q.push_front(c->second->copy());
				f->local_retx++;
				if ((long) f->q.size() > f->qmax)
					f->qmax = f->q.size();
				Packet::free(p);
				try_release(f);
				return;
			}
		}
		if (has_sample)
			new_sample(f, sample);
		send(p, h);
		return;
	}
	/* wireless-to-wired flow: its ACK goes to the wireless sender with RTT_wired */
	if (has_sample) {
		f->rtt_wired_last = sample;
		f->rtt_samples++;
		f->rtt_last = sample;
		f->rtt_sum += sample;
	}
	if (rtt_wired_ && f->rtt_wired_last >= 0) {
		hdr_tcpgap* g = hdr_tcpgap::access(p);
		int ms = (int) floor(f->rtt_wired_last * 1000.0 + 0.5);
		if (ms > 65535)
			ms = 65535;
		if (!g->stamped_)
			ch->size() += rtt_opt_bytes_;
		g->stamped_ = 1;
		g->rtt_wired_ms_ = ms;
		f->stamps++;
	}
	send(p, h);
}

/* new/duplicate ACK bookkeeping, goodput, and the RTT sample T2 - T1 (Karn's rule) */
bool TcpGapGateway::ack_common(TcpGapFlow* f, Packet* p, bool* fresh, double* sample)
{
	int ackno = hdr_tcp::access(p)->seqno();
	if (ackno <= f->last_ack) {
		f->dupacks++;
		*fresh = false;
		return false;
	}
	*fresh = true;
	double sd = f->s_data > 0 ? f->s_data : 0;
	double bytes = (double) (ackno - f->last_ack) * sd;
	f->acked_bytes += bytes;
	f->bytes_interval += bytes;
	f->last_ack = ackno;
	bool ok = false;
	std::map<int, double>::iterator it = f->t1.find(ackno);
	if (it != f->t1.end() && (!karn_ || it->second >= f->last_retx)) {
		*sample = now() - it->second;
		ok = true;
	}
	f->t1.erase(f->t1.begin(), f->t1.upper_bound(ackno));
	if (!f->copies.empty()) {
		std::map<int, Packet*>::iterator end = f->copies.upper_bound(ackno);
		for (std::map<int, Packet*>::iterator c = f->copies.begin(); c != end; ++c)
			Packet::free(c->second);
		f->copies.erase(f->copies.begin(), end);
	}
	return ok;
}

void TcpGapGateway::data_up(TcpGapFlow* f, Packet* p)
{
	int seq = hdr_tcp::access(p)->seqno();
	if (seq <= f->max_sent)
		f->last_retx = now();
	else
		f->max_sent = seq;
	f->t1[seq] = now();
	send(p, 0);
}

void TcpGapGateway::data_down(TcpGapFlow* f, Packet* p)
{
	if (qlimit_ > 0 && (int) f->q.size() >= qlimit_) {
		f->qdrops++;
		drop(p);
		return;
	}
	f->q.push_back(p);
	if ((long) f->q.size() > f->qmax)
		f->qmax = f->q.size();
	if (f->timer->status() != TIMER_PENDING)
		try_release(f);
}

/* seconds between two releases of flow f; 0 = no pacing (yet) */
double TcpGapGateway::gap(const TcpGapFlow* f) const
{
	if (!pacing_)
		return 0;
	if (f->rate <= 0)
		return initial_gap_ > 0 ? initial_gap_ : 0;	/* before the first sample */
	double r = f->rate;
	if (f->cap > 0 && f->cap < r)
		r = f->cap;
	return 1.0 / r;
}

void TcpGapGateway::try_release(TcpGapFlow* f)
{
	while (!f->q.empty()) {
		double g = gap(f);
		if (g <= 0 || !f->released_once) {
			f->next_tick = now() + g;
			release(f);
			continue;
		}
		double t = f->last_release + g;
		if (timer_ == 1) {
			/* free-running: ticks every gap, a packet waits for the next one */
			if (f->next_tick < now() - 1e-12)
				f->next_tick += ceil((now() - f->next_tick) / g - 1e-9) * g;
			t = f->next_tick;
		}
		if (now() >= t - 1e-12) {
			if (timer_ == 1)
				f->next_tick = t + g;
			release(f);
			continue;
		}
		if (f->timer->status() != TIMER_PENDING)
			f->timer->resched(t - now());
		return;
	}
}

void TcpGapGateway::release(TcpGapFlow* f)
{
	Packet* p = f->q.front();
	f->q.pop_front();
	int seq = hdr_tcp::access(p)->seqno();
	if (seq <= f->max_sent)
		f->last_retx = now();
	else
		f->max_sent = seq;
	f->t1[seq] = now();
	f->paced++;
	f->released_once = true;
	f->last_release = now();
	if (local_retx_) {
		std::map<int, Packet*>::iterator c = f->copies.find(seq);
		if (c != f->copies.end())
			Packet::free(c->second);
		f->copies[seq] = p->copy();
	}
	send(p, 0);
}

void TcpGapGateway::pace_expire(int id)
{
	TcpGapFlow* f = flows_[id];
	if (!f->ended)
		try_release(f);
}

/* Eqs. (1)-(5) on a new RTT_wireless sample */
void TcpGapGateway::new_sample(TcpGapFlow* f, double rtt)
{
	accumulate(f);
	f->rtt_samples++;
	f->rtt_last = rtt;
	f->rtt_sum += rtt;
	double h = f->hops > 0 ? f->hops : 1;
	double sd = (s_data_ > 0 ? s_data_ : (f->s_data > 0 ? f->s_data : 0)) + overhead_bytes_;
	double sa = f->s_ack + overhead_bytes_;
	double b = bandwidth_ / 8.0;		/* bytes/s */
	if (b <= 0)
		return;
	double tq = 0.5 * (rtt / h - (sd + sa) / b);			/* Eq. (3) */
	double n = h >= hop_factor_ ? hop_factor_ : (short_path_ ? 1 : h);
	double fhd = n * (tq + sd / b);					/* Eq. (4) */
	if (fhd_bound_ > 0 && fhd >= fhd_bound_)
		return;		/* fhd_bound_: such a sample is ignored (not in the paper) */
	/* Eq. (5) takes the RTT samples; the mean-absolute-deviation variant (cov_kind_ 1) the
	 * FHD samples, as the TCP-AP sender's code does */
	f->samples.push_back(cov_kind_ == 1 ? fhd : rtt);
	int N = cov_history_ > 1 ? cov_history_ : 2;
	while ((int) f->samples.size() > N)
		f->samples.pop_front();
	if (!f->have_fhd) {
		f->fhd = fhd;
		f->have_fhd = true;
	} else
		f->fhd = alpha_ * f->fhd + (1 - alpha_) * fhd;		/* Eq. (2) */

	int k = f->samples.size();					/* Eq. (5) */
	double cov = 0;
	if (k >= 2) {
		double mean = 0;
		for (int i = 0; i < k; i++)
			mean += f->samples[i];
		mean /= k;
		if (mean > 0) {
			double s = 0;
			if (cov_kind_ == 1) {
				for (int i = 0; i < k; i++)
					s += fabs(f->samples[i] - mean);
				cov = (s / k) / mean;
			} else {
				for (int i = 0; i < k; i++)
					s += (f->samples[i] - mean) * (f->samples[i] - mean);
				cov = sqrt(s / (k - 1)) / mean;
			}
		}
	}
	f->cov = cov;
	if (f->fhd > 0)
		f->rate = 1.0 / (f->fhd * (1 + 2 * cov));			/* Eq. (1) */
	if (retime_ && f->timer->status() == TIMER_PENDING) {
		f->timer->force_cancel();
		try_release(f);
	}
}

/* ---------------------------------------------------------------- Goodput Control */

void TcpGapGateway::round_expire()
{
	double t = now();
	/* flow deletion after flow_timeout_ without packets */
	for (size_t i = 0; i < flows_.size(); i++) {
		TcpGapFlow* f = flows_[i];
		if (!f->ended && f->q.empty() && t - f->last_seen >= flow_timeout_)
			end_flow(f);
	}
	if (gc_) {
		gc_rounds_++;
		std::vector<TcpGapFlow*> act;
		double sum = 0;
		for (size_t i = 0; i < flows_.size(); i++) {
			TcpGapFlow* f = flows_[i];
			if (f->ended || !f->active_interval)
				continue;
			f->g_prev = f->g_last;
			f->g_last = f->bytes_interval * 8.0 / gc_interval_;
			sum += f->g_last;
			act.push_back(f);
		}
		double gavg = act.empty() ? 0 : sum / act.size();
		gavg_last_ = gavg;
		/* "no improvement for slow flows": their goodput in this period against the previous
		 * period (gc_improve_ref_ 0) or the period the throttling began (1) */
		double slow_now = 0, slow_prev = 0;
		for (std::set<int>::iterator s = slow_ids_.begin(); s != slow_ids_.end(); ++s)
			if (!flows_[*s]->ended) {
				slow_now += flows_[*s]->g_last;
				slow_prev += flows_[*s]->g_prev;
			}
		bool improved = slow_now > (gc_improve_ref_ == 1 ? slow_base_ : slow_prev);
		for (size_t i = 0; i < act.size(); i++) {
			TcpGapFlow* f = act[i];
			f->throttled_now = false;
			double dev = gavg > 0 ? f->g_last / gavg : 0;
			f->dev_last = dev;
			if (gc_order_ == 0 && f->throttled && !improved) {
				/* §4.4: "in case (2), the throttling is disabled" (before any re-throttle) */
				f->throttled = false;
				f->cancels++;
				set_cap(f, 0);
				continue;
			}
			if (dev > gc_threshold_ && f->down && gavg > 0 && f->s_data > 0) {
				if (!slow_on_) {
					slow_on_ = true;
					slow_ids_.clear();
					slow_base_ = 0;
					for (size_t j = 0; j < act.size(); j++)
						if (act[j]->g_last < gavg && !act[j]->throttled && act[j] != f) {
							slow_ids_.insert(act[j]->id);
							slow_base_ += act[j]->g_last;
						}
					improved = false;
				}
				if (!f->throttled) {
					f->throttled = true;
					f->throttles++;
				}
				f->throttled_now = true;
				set_cap(f, gavg / (8.0 * f->s_data));
			} else if (f->throttled && !improved) {
				f->throttled = false;
				f->cancels++;
				set_cap(f, 0);
			}
		}
		if (membership_changed_) {
			for (size_t i = 0; i < flows_.size(); i++) {
				TcpGapFlow* f = flows_[i];
				if (f->throttled) {
					f->throttled = false;
					f->cancels++;
				}
				f->throttled_now = false;
				if (f->cap > 0)
					set_cap(f, 0);
			}
			slow_on_ = false;
			slow_ids_.clear();
			slow_base_ = 0;
			gc_resets_++;
		}
		bool any = false;
		for (size_t i = 0; i < flows_.size(); i++) {
			TcpGapFlow* f = flows_[i];
			if (f->throttled && !f->throttled_now && !f->ended)
				set_cap(f, gc_aging_kind_ == 1 ? f->cap * gc_aging_
					   : f->cap + gc_aging_ * f->dev_last);	/* aging */
			if (f->throttled && !f->ended)
				any = true;
		}
		if (!any) {
			slow_on_ = false;
			slow_ids_.clear();
			slow_base_ = 0;
		}
	}
	membership_changed_ = false;
	for (size_t i = 0; i < flows_.size(); i++) {
		flows_[i]->bytes_interval = 0;
		flows_[i]->active_interval = false;
	}
	if (gc_interval_ > 0)
		round_timer_.resched(gc_interval_);
}

void TcpGapGateway::trace_expire()
{
	for (size_t i = 0; i < flows_.size(); i++) {
		TcpGapFlow* f = flows_[i];
		if (f->ended)
			continue;
		printf("tcp-gap trace t=%.6f id=%d rate=%.6g cap=%.6g qlen=%d fhd=%.6g cov=%.6g\n",
		       now(), f->id, f->rate, f->cap, (int) f->q.size(), f->fhd, f->cov);
	}
	if (trace_interval_ > 0)
		trace_timer_.resched(trace_interval_);
}

/* ---------------------------------------------------------------- Tcl */

char* TcpGapGateway::addr_str(int a)
{
	return Address::instance().print_nodeaddr(a);
}

/* one counter by name; returns 0 when the name is not a number counter */
int TcpGapGateway::flow_counter(TcpGapFlow* f, const char* n, double* v)
{
	accumulate(f);
#define C(name, val) if (strcmp(n, name) == 0) { *v = (double) (val); return 1; }
	C("sport", f->sport) C("dport", f->dport)
	C("data_in", f->data_in) C("paced", f->paced) C("qdrops", f->qdrops)
	C("qlen", f->q.size()) C("qmax", f->qmax) C("acks", f->acks) C("dupacks", f->dupacks)
	C("acked_bytes", f->acked_bytes) C("rtt_samples", f->rtt_samples)
	C("rtt_last", f->rtt_last) C("rtt_mean", f->rtt_samples ? f->rtt_sum / f->rtt_samples : 0)
	C("hops", f->hops) C("fhd", f->fhd) C("cov", f->cov) C("rate", f->rate)
	C("rate_avg", f->rate_time > 0 ? f->rate_area / f->rate_time : 0)
	C("cap", f->cap) C("cap_avg", f->cap_time > 0 ? f->cap_area / f->cap_time : 0)
	C("throttled_time", f->cap_time) C("throttles", f->throttles) C("cancels", f->cancels)
	C("goodput_last", f->g_last) C("stamps", f->stamps) C("local_retx", f->local_retx)
	C("ended", f->ended ? 1 : 0)
#undef C
	return 0;
}

static const char* const kCounters[] = {
	"data_in", "paced", "qdrops", "qlen", "qmax", "acks", "dupacks", "acked_bytes",
	"rtt_samples", "rtt_last", "rtt_mean", "hops", "fhd", "cov", "rate", "rate_avg", "cap",
	"cap_avg", "throttled_time", "throttles", "cancels", "goodput_last", "stamps",
	"local_retx", "ended", 0
};

void TcpGapGateway::print_flow(TcpGapFlow* f)
{
	char* s = addr_str(f->src);
	char* d = addr_str(f->dst);
	printf("tcp-gap flow id=%d dir=%s src=%s sport=%d dst=%s dport=%d", f->id,
	       f->down ? "down" : "up", s, f->sport, d, f->dport);
	delete[] s;
	delete[] d;
	for (int i = 0; kCounters[i]; i++) {
		double v = 0;
		flow_counter(f, kCounters[i], &v);
		printf(" %s=%.6g", kCounters[i], v);
	}
	printf("\n");
}

int TcpGapGateway::command(int argc, const char*const* argv)
{
	Tcl& tcl = Tcl::instance();
	if (argc == 2) {
		if (strcmp(argv[1], "stats") == 0) {
			for (size_t i = 0; i < flows_.size(); i++)
				print_flow(flows_[i]);
			printf("tcp-gap gateway flows=%d gc_rounds=%ld gc_resets=%ld gavg_last=%.6g\n",
			       (int) flows_.size(), gc_rounds_, gc_resets_, gavg_last_);
			fflush(stdout);
			return TCL_OK;
		}
		if (strcmp(argv[1], "flows") == 0) {
			std::string r;
			char b[32];
			for (size_t i = 0; i < flows_.size(); i++) {
				snprintf(b, sizeof(b), i ? " %d" : "%d", (int) i);
				r += b;
			}
			tcl.resultf("%s", r.c_str());
			return TCL_OK;
		}
		if (strcmp(argv[1], "reset-stats") == 0) {
			for (size_t i = 0; i < flows_.size(); i++) {
				TcpGapFlow* f = flows_[i];
				accumulate(f);
				f->data_in = f->paced = f->qdrops = f->acks = f->dupacks = 0;
				f->rtt_samples = f->throttles = f->cancels = f->stamps = f->local_retx = 0;
				f->qmax = f->q.size();
				f->acked_bytes = 0;
				f->rtt_sum = 0;
				f->rate_area = f->rate_time = f->cap_area = f->cap_time = 0;
			}
			gc_rounds_ = gc_resets_ = 0;
			return TCL_OK;
		}
	}
	if (argc == 3 && strcmp(argv[1], "gw") == 0) {
		if (strcmp(argv[2], "flows") == 0) { tcl.resultf("%d", (int) flows_.size()); return TCL_OK; }
		if (strcmp(argv[2], "gc_rounds") == 0) { tcl.resultf("%ld", gc_rounds_); return TCL_OK; }
		if (strcmp(argv[2], "gc_resets") == 0) { tcl.resultf("%ld", gc_resets_); return TCL_OK; }
		if (strcmp(argv[2], "gavg_last") == 0) { tcl.resultf("%.10g", gavg_last_); return TCL_OK; }
		tcl.resultf("Connector/TcpGap: no gateway counter %s", argv[2]);
		return TCL_ERROR;
	}
	if (argc == 3 && strcmp(argv[1], "gateway") == 0) {
		if (Address::instance().levels_ < 2) {
			tcl.resultf("Connector/TcpGap: needs hierarchical addressing "
				    "(node-config -addressType hierarchical)");
			return TCL_ERROR;
		}
		int a = Address::instance().str2addr(argv[2]);
		gw_domain_ = Address::instance().hier_addr(a, 1);
		have_gw_ = true;
		return TCL_OK;
	}
	if (argc == 4 && strcmp(argv[1], "set-hops") == 0) {
		int a = Address::instance().str2addr(argv[2]);
		int h = atoi(argv[3]);
		fixed_hops_[a] = h;
		for (size_t i = 0; i < flows_.size(); i++) {
			TcpGapFlow* f = flows_[i];
			if ((f->down ? f->dst : f->src) == a) {
				f->hops = h;
				f->hops_fixed = true;
			}
		}
		return TCL_OK;
	}
	if (argc == 4 && strcmp(argv[1], "flow") == 0) {
		int id = atoi(argv[2]);
		if (id < 0 || id >= (int) flows_.size()) {
			tcl.resultf("Connector/TcpGap: no flow %s", argv[2]);
			return TCL_ERROR;
		}
		TcpGapFlow* f = flows_[id];
		if (strcmp(argv[3], "dir") == 0) {
			tcl.result(f->down ? "down" : "up");
			return TCL_OK;
		}
		if (strcmp(argv[3], "src") == 0 || strcmp(argv[3], "dst") == 0) {
			char* s = addr_str(argv[3][0] == 's' ? f->src : f->dst);
			tcl.resultf("%s", s);
			delete[] s;
			return TCL_OK;
		}
		double v;
		if (flow_counter(f, argv[3], &v)) {
			tcl.resultf("%.10g", v);
			return TCL_OK;
		}
		tcl.resultf("Connector/TcpGap: no counter %s", argv[3]);
		return TCL_ERROR;
	}
	return Connector::command(argc, argv);
}
