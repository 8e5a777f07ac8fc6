// What the peer programs read from a TCP sender without changing it (static.cc, wired.cc):
// TcpBbr's private model, and per-flow counts and time means of the RTT and BBR's
// estimates.
#ifndef HOPTCP_TCP_PROBE_H
#define HOPTCP_TCP_PROBE_H

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/tcp-bbr.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ns3
{
// TcpBbr keeps its model private and names this class its friend (for ns-3's own tests);
// the probes read BtlBw, RTprop and the state through it, and change nothing.
class TcpBbrCheckGainValuesTest
{
  public:
    static uint32_t State(const TcpBbr& b) { return b.m_state; }
    static double BtlBwBps(const TcpBbr& b) { return b.m_maxBwFilter.GetBest().GetBitRate(); }
    static Time RtProp(const TcpBbr& b) { return b.m_rtProp; }
    static double PacingGain(const TcpBbr& b) { return b.m_pacingGain; }
    static uint32_t CycleIndex(const TcpBbr& b) { return b.m_cycleIndex; }
};
}  // namespace ns3

namespace hoptcp_peer
{
using namespace ns3;

// The time mean of a step function, from its first value to `end`.
struct TimeMean
{
    double first = -1;
    double since = -1;
    double value = 0;
    double area = 0;

    void Set(double now, double v)
    {
        if (since < 0)
        {
            first = now;
        }
        else
        {
            area += value * (now - since);
        }
        since = now;
        value = v;
    }
    double Mean(double end) const
    {
        if (since < 0 || end <= first)
        {
            return NAN;
        }
        return (area + value * (end - since)) / (end - first);
    }
};

// Seconds in each of BBR's states (Startup, Drain, ProbeBW, ProbeRTT), from the first
// reading to the end.
struct BbrStateClock
{
    double inState[4] = {0, 0, 0, 0};
    uint32_t state = 0;
    double since = -1;

    bool Started() const { return since >= 0; }
    void Read(double now, uint32_t st)
    {
        if (since < 0 || st != state)
        {
            if (since >= 0)
            {
                inState[state] += now - since;  // once per stay, as the totals were always summed
            }
            since = now;
            state = st;
        }
    }
    // The four totals as a JSON list, the last state counted to `end`.
    std::string Json(double end)
    {
        inState[state] += end - since;
        since = end;
        std::string out = "[";
        for (int i = 0; i < 4; ++i)
        {
            out += (i ? ", " : "") + std::to_string(inState[i]);
        }
        return out + "]";
    }
};

inline std::string
Json(double x)
{
    if (std::isnan(x))
    {
        return "null";
    }
    char s[64];
    std::snprintf(s, sizeof s, "%.9g", x);
    return s;
}

// One TCP sender's counts: data segments sent again (a sequence number below the highest
// sent), the time mean of its smoothed RTT from its first RTT sample, and with BBR the
// time means of RTprop and BtlBw and the seconds in each state, read after every ACK it
// processes. ns-3.37's "RTT" trace is the smoothed estimate (gain 1/8, RFC 6298) after
// each sample, not the sample: TcpSocketBase stores GetEstimate() as the last RTT (and
// that is also what TcpBbr takes for RTprop).
struct FlowProbe
{
    Ptr<TcpBbr> bbr;
    uint32_t segment = 1460;
    uint64_t retransmissions = 0;
    uint64_t rttSamples = 0;
    TimeMean srttMean;
    TimeMean rtPropMean;
    TimeMean btlBwMean;
    BbrStateClock states;
    bool sentData = false;
    SequenceNumber32 highestSent{0};

    void Attach(Ptr<TcpSocketBase> s)
    {
        Connect(s, "Tx", MakeCallback(&FlowProbe::OnTx, this));
        Connect(s, "RTT", MakeCallback(&FlowProbe::OnRtt, this));
        if (bbr)
        {
            Connect(s, "Rx", MakeCallback(&FlowProbe::OnRx, this));
        }
    }

    void OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (p->GetSize() == 0)
        {
            return;
        }
        const SequenceNumber32 end = h.GetSequenceNumber() + p->GetSize();
        if (sentData && h.GetSequenceNumber() < highestSent)
        {
            ++retransmissions;
        }
        if (!sentData || end > highestSent)
        {
            highestSent = end;
        }
        sentData = true;
    }

    void OnRtt(Time, Time smoothed)
    {
        ++rttSamples;
        srttMean.Set(Simulator::Now().GetSeconds(), smoothed.GetSeconds());
    }

    void OnRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (h.GetFlags() & TcpHeader::ACK)
        {
            // after the ACK is processed (this trace fires before)
            Simulator::ScheduleNow(&FlowProbe::ReadBbr, this);
        }
    }

    void ReadBbr()
    {
        using B = ns3::TcpBbrCheckGainValuesTest;
        const double now = Simulator::Now().GetSeconds();
        states.Read(now, B::State(*bbr));
        const Time rt = B::RtProp(*bbr);
        if (rt != Time::Max())
        {
            rtPropMean.Set(now, rt.GetSeconds());
        }
        btlBwMean.Set(now, B::BtlBwBps(*bbr) / (8.0 * segment));
    }

    // The flow's JSON object (goodput added by the caller), the run ending at `end`.
    std::string Report(double end)
    {
        std::string out = "\"retransmissions\": " + std::to_string(retransmissions) +
                          ", \"rtt_samples\": " + std::to_string(rttSamples) + ", \"srtt_mean_s\": " + Json(srttMean.Mean(end));
        if (bbr)
        {
            out += ", \"rt_prop_mean_s\": " + Json(rtPropMean.Mean(end)) +
                   ", \"btl_bw_mean_pps\": " + Json(btlBwMean.Mean(end)) +
                   ", \"bbr_state_s\": " + (states.Started() ? states.Json(end) : "[]");
        }
        return out;
    }

  private:
    template <typename C>
    static void Connect(Ptr<TcpSocketBase> s, const std::string& name, C cb)
    {
        if (!s->TraceConnectWithoutContext(name, cb))
        {
            std::fprintf(stderr, "the TCP socket has no trace source %s\n", name.c_str());
            std::exit(2);
        }
    }
};

}  // namespace hoptcp_peer

#endif
