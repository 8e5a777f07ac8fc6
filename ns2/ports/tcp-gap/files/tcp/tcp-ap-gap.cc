/*
 * tcp-ap-gap.cc -- TCP-GAP's wireless sender (hoptcp's ns-2.35 port "tcp-gap").
 *
 * Fig. 6 of ElRakabawy, Klemm, Lindemann (2008): "read RTT_wired from TCP header / set
 * RTT_wireless = RTT - RTT_wired / calculate transmission rate using RTT_wireless".
 * The sender is the authors' TCP-AP (Agent/TCP/Newreno/AP, tcp/tcp-ap.{h,cc}, added by
 * `hoptcp ns2 build --with-tcpap`), used as it is: TCP-AP takes its RTT sample as
 * now - ts_echo, so this subclass moves the echoed timestamp of an ACK the gateway stamped
 * forward by RTT_wired before TCP-AP reads it.  ns-2's NewReno reads ts_echo only with
 * ts_option_ (refused here).  Without tcp-ap.h in the tree this file compiles to nothing.
 */

#if defined(__has_include)
#if __has_include("tcp-ap.h")
#define TCPGAP_HAVE_TCPAP 1
#endif
#endif

#ifdef TCPGAP_HAVE_TCPAP
#include <stdio.h>
#include <string.h>
#include "tcp-gap.h"	/* first: tcp-ap.h defines max and min as macros */
#include "tcp-ap.h"

class TcpGapSender : public APTcpAgent {
public:
	TcpGapSender() : APTcpAgent(), stamped_(0), last_ms_(-1) {}
	virtual void recv(Packet* p, Handler* h) {
		hdr_tcpgap* g = hdr_tcpgap::access(p);
		if (g->stamped_) {
			if (ts_option_) {
				fprintf(stderr, "Agent/TCP/Newreno/AP/Gap: needs ts_option_ false "
					"(RTT_wired is taken off the echoed timestamp)\n");
				exit(1);
			}
			stamped_++;
			last_ms_ = g->rtt_wired_ms_;
			hdr_tcp::access(p)->ts_echo() += g->rtt_wired_ms_ / 1000.0;
		}
		APTcpAgent::recv(p, h);
	}
	int command(int argc, const char*const* argv) {
		if (argc == 2 && strcmp(argv[1], "gap-stamps") == 0) {
			Tcl::instance().resultf("%ld %d", stamped_, last_ms_);
			return TCL_OK;
		}
		return APTcpAgent::command(argc, argv);
	}
protected:
	long stamped_;
	int last_ms_;
};

static class TcpGapSenderClass : public TclClass {
public:
	TcpGapSenderClass() : TclClass("Agent/TCP/Newreno/AP/Gap") {}
	TclObject* create(int, const char*const*) { return (new TcpGapSender()); }
} class_tcpgap_sender;

#endif
