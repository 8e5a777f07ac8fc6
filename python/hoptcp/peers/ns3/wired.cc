// hoptcp's wired peer scenario in ns-3: hosts and routers joined by point-to-point links
// (hoptcp's [wired] domain without the wireless part), shortest-path routes, bulk TCP and
// CBR UDP flows. TCP is NewReno or BBR (ns-3.37's TcpBbr). Python (hoptcp.peers.ns3) writes
// the arguments from a hoptcp scenario.
//
// What is set to match hoptcp (each a default of ns-3 that would otherwise move the result):
// no traffic-control queue disc in front of the device (a drop-tail device queue of the
// link's limit instead), the 2-byte PPP header folded into the link rate (a 1500-byte IP
// packet takes as long as hoptcp's), one ACK per segment, no SACK, no timestamps, window
// scaling and buffers of the maximum window (ns-3's 128 KiB buffers would cap BBR), the
// segment size and initial window of the scenario, data written a segment at a time so no
// sample is application-limited.
//
// Prints one JSON line: each flow's goodput and their sum; with --bbrTrace, the first TCP
// flow's BBR state after every ACK goes to that file (CSV: time_s, state, btl_bw_pps,
// rt_prop_s, pacing_rate_pps, pacing_gain, cwnd_pkts, cycle_index).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "peer_apps.h"
#include "tcp_probe.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

using namespace ns3;
using namespace hoptcp_peer;

namespace
{

// The BBR trace: one row after each ACK the sender processes.
struct BbrTrace
{
    std::ofstream out;
    Ptr<TcpBbr> bbr;
    uint32_t segment = 1460;
    double pacingBps = 0;
    uint32_t cwndBytes = 0;
    BbrStateClock states;

    void Row()
    {
        using B = ns3::TcpBbrCheckGainValuesTest;
        const double now = Simulator::Now().GetSeconds();
        const uint32_t st = B::State(*bbr);
        states.Read(now, st);
        const Time rt = B::RtProp(*bbr);
        char line[256];
        std::snprintf(line, sizeof line, "%.9f,%u,%.6f,%.9f,%.6f,%.6f,%.6f,%u\n", now, st,
                      B::BtlBwBps(*bbr) / (8.0 * segment), rt == Time::Max() ? -1.0 : rt.GetSeconds(),
                      pacingBps / (8.0 * segment), B::PacingGain(*bbr), cwndBytes / double(segment),
                      B::CycleIndex(*bbr));
        out << line;
    }
    void OnRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (h.GetFlags() & TcpHeader::ACK)
        {
            // After the ACK is processed (this trace fires before).
            Simulator::ScheduleNow(&BbrTrace::Row, this);
        }
    }
    void OnPacing(DataRate, DataRate now) { pacingBps = now.GetBitRate(); }
    void OnCwnd(uint32_t, uint32_t now) { cwndBytes = now; }
};

}  // namespace

int
main(int argc, char* argv[])
{
    uint32_t nodeCount = 0;
    std::string links;  // "a,b,bps,delay_s,queue;..." (hoptcp node ids)
    std::string flows;  // "tcp,src,dst,start;..." or "udp,src,dst,start,rate_bps,bytes,jitter;..."
    std::string variant = "bbr";
    std::string bbrTrace;
    uint32_t payload = 1460;
    uint32_t maxWindow = 10000;
    uint32_t initialWindow = 10;
    double minRto = 0.2;
    double duration = 20;
    uint32_t seed = 1;
    CommandLine cmd(__FILE__);
    cmd.AddValue("nodes", "node ids 0..nodes-1 (only those on links are used)", nodeCount);
    cmd.AddValue("links", "a,b,bps,delay_s,queue_packets, semicolon-separated", links);
    cmd.AddValue("flows", "tcp,src,dst,start or udp,src,dst,start,rate_bps,bytes,jitter", flows);
    cmd.AddValue("variant", "bbr or newreno", variant);
    cmd.AddValue("bbrTrace", "file for the first TCP flow's BBR trace (CSV)", bbrTrace);
    cmd.AddValue("payload", "TCP payload per segment (bytes)", payload);
    cmd.AddValue("maxWindow", "maximum window (segments): send and receive buffers", maxWindow);
    cmd.AddValue("initialWindow", "initial congestion window (segments)", initialWindow);
    cmd.AddValue("minRto", "lower bound of the retransmission timeout (s)", minRto);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("seed", "run number of ns-3's random streams", seed);
    cmd.Parse(argc, argv);
    RngSeedManager::SetRun(seed);
    if (variant != "bbr" && variant != "newreno")
    {
        std::fprintf(stderr, "--variant: %s: bbr or newreno\n", variant.c_str());
        return 2;
    }

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(payload));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialWindow));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(payload * maxWindow));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(payload * maxWindow));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(variant == "bbr"));

    NodeContainer nodes;
    nodes.Create(nodeCount);
    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper addresses;
    std::map<uint32_t, Ipv4Address> addressOf;
    uint32_t subnet = 0;
    auto id = [nodeCount](const std::string& text) {
        const unsigned long n = std::stoul(text);
        if (n >= nodeCount)
        {
            std::fprintf(stderr, "node %lu: there are %u nodes (--nodes)\n", n, nodeCount);
            std::exit(2);
        }
        return static_cast<uint32_t>(n);
    };
    for (const std::string& l : Split(links, ';'))
    {
        std::vector<std::string> v = Split(l, ',');
        const uint32_t a = id(v.at(0)), b = id(v.at(1));
        const double bps = std::stod(v.at(2));
        PointToPointHelper p2p;
        // The PPP header's 2 bytes ride on a rate raised by 1502/1500: a 1500-byte IP
        // packet then takes 8·1500/bps on the line, as in hoptcp.
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(bps * (1500.0 + 2) / 1500.0 + 0.5))));
        p2p.SetChannelAttribute("Delay", TimeValue(Seconds(std::stod(v.at(3)))));
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize(v.at(4) + "p")));
        NetDeviceContainer d = p2p.Install(nodes.Get(a), nodes.Get(b));
        std::ostringstream base;
        base << "10." << (subnet / 256) << "." << (subnet % 256) << ".0";
        ++subnet;
        addresses.SetBase(base.str().c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ifc = addresses.Assign(d);
        TrafficControlHelper().Uninstall(d);
        addressOf.emplace(a, ifc.GetAddress(0));
        addressOf.emplace(b, ifc.GetAddress(1));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    struct Flow
    {
        Ptr<PacketSink> sink;
        double startS;
    };
    std::vector<Flow> sinks;
    BbrTrace trace;
    Ptr<BulkTcp> traced;
    double tracedStart = 0;
    uint16_t port = 9;
    for (const std::string& entry : Split(flows, ';'))
    {
        std::vector<std::string> v = Split(entry, ',');
        const uint32_t src = id(v.at(1)), dst = id(v.at(2));
        if (!addressOf.count(dst))
        {
            std::fprintf(stderr, "--flows: node %u is on no link\n", dst);
            return 2;
        }
        InstalledFlow f = InstallFlow(v, nodes.Get(src), nodes.Get(dst), InetSocketAddress(addressOf.at(dst), ++port),
                                      payload, variant);
        if (!traced && f.bulk && variant == "bbr" && !bbrTrace.empty())
        {
            traced = f.bulk;
            tracedStart = f.startS;
            trace.bbr = DynamicCast<TcpBbr>(f.cc);
            trace.segment = payload;
        }
        sinks.push_back({f.sink, f.startS});
    }
    if (traced)
    {
        trace.out.open(bbrTrace);
        trace.out << "time_s,state,btl_bw_pps,rt_prop_s,pacing_rate_pps,pacing_gain,cwnd_pkts,cycle_index\n";
        // The socket exists once the application has started.
        Simulator::Schedule(Seconds(tracedStart) + NanoSeconds(1), [&trace, traced]() {
            Ptr<TcpSocketBase> s = traced->Socket();
            s->TraceConnectWithoutContext("Rx", MakeCallback(&BbrTrace::OnRx, &trace));
            s->TraceConnectWithoutContext("PacingRate", MakeCallback(&BbrTrace::OnPacing, &trace));
            s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&BbrTrace::OnCwnd, &trace));
        });
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    double total = 0;
    std::string each;
    for (const Flow& f : sinks)
    {
        const double bps = f.sink->GetTotalRx() * 8.0 / (duration - f.startS);
        total += bps;
        each += (each.empty() ? "" : ", ") + std::to_string(bps);
    }
    const std::string states = traced && trace.states.Started() ? trace.states.Json(duration) : "[]";
    std::printf("{\"goodput_bps\": %.3f, \"flows_bps\": [%s], \"bbr_state_s\": %s}\n", total, each.c_str(),
                states.c_str());
    Simulator::Destroy();
    return 0;
}
