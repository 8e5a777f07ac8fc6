/*
 * lred-pacing: Link RED and Adaptive Pacing for ns-2.35's 802.11 MAC and its interface queue.
 * hoptcp's ns-2 port ns2/ports/lred-pacing (README.md, INTERFACE.md, CHOICES.md there).
 * Written from Fu et al. 2003 (tech report and INFOCOM), Lee et al. 2003 and ns-2.35's code.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "packet.h"
#include "scheduler.h"
#include "random.h"
#include "flags.h"
#include "ip.h"
#include "delay.h"
#include "connector.h"
#include "arp.h"
#include "ll.h"
#include "mac.h"
#include "mac-timers.h"
#include "mac-802_11.h"
#include "priqueue.h"

HpLredPacing::HpLredPacing()
	: lred_(0), min_th_(0.1), max_th_(0.3), max_p_(0.1), weight_(0.125),
	  drop_(1), count_(0), pace_(0), trigger_(2), eval_(0), len_(1), bytes_(0), wait_(0),
	  avg_(0.0), cur_rts_fail_(0), cur_data_fail_(0), flag_(0), flag_set_(0), cur_flag_(0),
	  pending_extra_(0.0), holding_(0), hold_paused_(0), hold_rtime_(0.0), hold_difs_(0.0),
	  hold_resume_t_(-1.0),
	  frames_(0), retries_(0), checked_(0), marks_(0), drops_(0), paced_(0), seen_(0), seen_sum_(0.0),
	  pace_time_(0.0), tavg_integral_(0.0), tavg_last_t_(0.0)
{
}

void
HpLredPacing::bind_vars(Mac802_11 *m)
{
	m->bind("lred_", &lred_);
	m->bind("lred_min_th_", &min_th_);
	m->bind("lred_max_th_", &max_th_);
	m->bind("lred_max_p_", &max_p_);
	m->bind("lred_weight_", &weight_);
	m->bind("lred_drop_", &drop_);
	m->bind("lred_count_", &count_);
	m->bind("pace_", &pace_);
	m->bind("pace_trigger_", &trigger_);
	m->bind("pace_eval_", &eval_);
	m->bind("pace_len_", &len_);
	m->bind("pace_bytes_", &bytes_);
	m->bind("pace_wait_", &wait_);
}

void
HpLredPacing::advance_tavg()
{
	double now = Scheduler::instance().clock();
	if (now > tavg_last_t_) {
		tavg_integral_ += avg_ * (now - tavg_last_t_);
		tavg_last_t_ = now;
	}
}

void
HpLredPacing::sample(int retries)
{
	advance_tavg();
	frames_++;
	retries_ += retries;
	/* Algorithm 1, line 11: avg_retry = 7/8 avg_retry + 1/8 retry (weight_ = 1/8) */
	avg_ = (1.0 - weight_) * avg_ + weight_ * (double) retries;
	cur_rts_fail_ = cur_data_fail_ = 0;
}

double
HpLredPacing::mark_prob() const
{
	if (avg_ < min_th_)
		return 0.0;
	double ramp = (max_th_ > min_th_) ? (avg_ - min_th_) / (max_th_ - min_th_) : 1.0;
	return ramp < max_p_ ? ramp : max_p_;
}

int
HpLredPacing::pace_flag() const
{
	switch (trigger_) {
	case 0:
		return 1;
	case 1:
		return avg_ < min_th_;
	default:
		return avg_ >= min_th_;
	}
}

int
HpLredPacing::lred_decide(Packet *p)
{
	if (!lred_)
		return 0;
	hdr_cmn *ch = HDR_CMN(p);
	if ((u_int32_t) ch->next_hop() == IP_BROADCAST)
		return 0;
	checked_++;
	double prob = mark_prob();
	if (prob <= 0.0 || Random::uniform() >= prob)
		return 0;
	hdr_flags *hf = hdr_flags::access(p);
	if (hf->ect() && drop_ != 2) {
		hf->ce() = 1;
		marks_++;
		return 1;
	}
	if (drop_) {
		drops_++;
		return 2;
	}
	return 0;
}

void
HpLredPacing::seen()
{
	seen_++;
	seen_sum_ += avg_;
}

void
HpLredPacing::handover()
{
	flag_ = pace_flag();
	flag_set_ = 1;
}

void
HpLredPacing::on_new_frame()
{
	cur_rts_fail_ = cur_data_fail_ = 0;
	cur_flag_ = flag_set_ ? flag_ : pace_flag();
	flag_set_ = 0;
}

void
HpLredPacing::on_fail(int rts)
{
	if (rts)
		cur_rts_fail_++;
	else
		cur_data_fail_++;
}

void
HpLredPacing::on_frame_drop()
{
	sample(count_ ? cur_rts_fail_ : cur_rts_fail_ + cur_data_fail_);
}

void
HpLredPacing::on_ack(Mac802_11 *m)
{
	sample(count_ ? cur_rts_fail_ : cur_rts_fail_ + cur_data_fail_);
	pending_extra_ = 0.0;
	if (!pace_)
		return;
	if (!(eval_ ? pace_flag() : cur_flag_))
		return;
	/* Algorithm 2, line 4: extra_Backoff = TX_Time(DATA) + overhead */
	double d;
	if (bytes_ > 0)
		d = m->txtime((double) (bytes_ + m->phymib_.getHdrLen11()), m->dataRate_);
	else
		d = m->txtime(m->pktTx_);
	if (len_) {
		/* overhead: the rest of the frame's exchange; ns-2 sends an RTS first when the
		   frame (MAC header included) is at least RTSThreshold_ bytes (sendRTS) */
		double ack = m->txtime((double) m->phymib_.getACKlen(), m->basicRate_);
		if ((u_int32_t) HDR_CMN(m->pktTx_)->size() >= m->macmib_.getRTSThreshold())
			d += m->txtime((double) m->phymib_.getRTSlen(), m->basicRate_)
				+ m->txtime((double) m->phymib_.getCTSlen(), m->basicRate_)
				+ ack + 3 * m->phymib_.getSIFS();
		else
			d += ack + m->phymib_.getSIFS();
	}
	pending_extra_ = d;
}

double
HpLredPacing::take_extra(double slot, int *mode)
{
	double e = pending_extra_;
	pending_extra_ = 0.0;
	*mode = wait_;
	if (e <= 0.0)
		return 0.0;
	if (wait_ == 1 && slot > 0.0)
		e = ceil(e / slot - 1e-9) * slot;
	paced_++;
	pace_time_ += e;
	return e;
}

int
HpLredPacing::command(Mac802_11 *, int argc, const char*const* argv, int *rc)
{
	if (argc == 2 && strcmp(argv[1], "lred-pacing-stats") == 0) {
		advance_tavg();
		double now = Scheduler::instance().clock();
		double tavg = now > 0.0 ? tavg_integral_ / now : avg_;
		char buf[800];
		snprintf(buf, sizeof(buf),
			 "frames %ld retries %ld avg_retry %.9g avg_retry_tavg %.9g "
			 "checked %ld marks %ld drops %ld paced %ld pace_time %.9g pace_mean %.9g "
			 "seen %ld avg_retry_seen %.9g",
			 frames_, retries_, avg_, tavg, checked_, marks_, drops_, paced_,
			 pace_time_, paced_ > 0 ? pace_time_ / paced_ : 0.0,
			 seen_, seen_ > 0 ? seen_sum_ / seen_ : 0.0);
		Tcl::instance().result(buf);
		*rc = TCL_OK;
		return 1;
	}
	return 0;
}

/*
 * The interface queue: Algorithm 1 acts on the head-of-line packet when it leaves for the MAC.
 * (Declared in priqueue.h by this port.) Dropped packets are replaced by the next one.
 */
Packet *
PriQueue::deque()
{
	Packet *p = DropTail::deque();
	if (p == 0) {
		hp_terminating_ = 0;	/* Terminate()'s loop ends here */
		return 0;
	}
	if (hp_terminating_)
		return p;
	Mac802_11 *mac = dynamic_cast<Mac802_11 *>(target_);
	if (mac == 0)
		return p;
	for (;;) {
		if ((u_int32_t) HDR_CMN(p)->next_hop() != IP_BROADCAST)
			mac->hp_.seen();
		if (mac->hp_.lred_decide(p) != 2)
			break;
		drop(p, "LRD");
		p = DropTail::deque();
		if (p == 0)
			break;
	}
	if (p != 0)
		mac->hp_.handover();
	return p;
}
