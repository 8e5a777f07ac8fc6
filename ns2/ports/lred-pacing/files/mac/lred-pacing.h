/*
 * lred-pacing: Fu et al.'s Link RED and Adaptive Pacing (tech report 2003 Algorithms 1-2,
 * INFOCOM 2003 Algorithms 1-2) and Lee et al.'s reading of adaptive pacing, for ns-2.35.
 * Part of hoptcp's ns-2 ports (ns2/ports/lred-pacing); see its README.md, INTERFACE.md and
 * CHOICES.md. The state and the Tcl variables of one node live in its Mac/802_11 (member
 * hp_); the interface queue (PriQueue) asks the MAC for LRED's decision on each packet.
 */
#ifndef hoptcp_lred_pacing_h
#define hoptcp_lred_pacing_h

class Mac802_11;
class Packet;
class TclObject;

class HpLredPacing {
public:
	HpLredPacing();
	void bind_vars(Mac802_11 *m);
	/* returns 1 when it handled the command (result code in *rc) */
	int command(Mac802_11 *m, int argc, const char*const* argv, int *rc);

	/* LRED at the queue: 0 pass, 1 marked, 2 drop */
	int lred_decide(Packet *p);
	/* the queue hands a packet to the MAC (Algorithm 1's MacLayerSend(p, pacing)) */
	void handover();
	/* a unicast packet taken from the queue (before LRED's decision): for avg_retry_seen */
	void seen();

	/* MAC events */
	void on_new_frame();                 /* the MAC takes a packet from above */
	void on_fail(int rts);               /* a CTS timeout (rts 1) or an ACK timeout (rts 0) */
	void on_frame_drop();                /* a unicast frame dropped at a retry limit */
	void on_ack(Mac802_11 *m);           /* a unicast frame acknowledged (pktTx_ still set) */
	/* the backoff timer starts: the extra wait pending from on_ack, 0 if none (consumed) */
	double take_extra(double slot, int *mode);

	double mark_prob() const;
	int pace_flag() const;

	/* Tcl variables (see INTERFACE.md) */
	int lred_;
	double min_th_, max_th_, max_p_, weight_;
	int drop_, count_;
	int pace_, trigger_, eval_, len_, bytes_, wait_;

	/* state */
	double avg_;
	int cur_rts_fail_, cur_data_fail_;
	int flag_, flag_set_, cur_flag_;
	double pending_extra_;
	/* real-time hold (pace_wait_ 2), driven by the BackoffTimer hooks */
	int holding_, hold_paused_;
	double hold_rtime_, hold_difs_, hold_resume_t_;

	/* counters */
	long frames_, retries_, checked_, marks_, drops_, paced_, seen_;
	double seen_sum_;
	double pace_time_;
	double tavg_integral_, tavg_last_t_;

private:
	void sample(int retries);
	void advance_tavg();
};

#endif
