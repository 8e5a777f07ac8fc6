// hoptcp's peer scenario in ns-3: nodes at given positions, static routes, bulk TCP and
// CBR UDP flows, on ns2_like.h's radio. TCP is NewReno or BBR (ns-3.37's TcpBbr, paced),
// the same for every flow. Python (hoptcp.peers.ns3) writes the arguments from a hoptcp
// scenario. Prints one JSON line: each flow's goodput (payload bytes its sink received,
// times 8, over the time from the flow's start to the end) and their sum; per TCP flow
// its retransmissions, RTT and (BBR) estimates (tcp_probe.h); the MAC's drops, by reason.
#include "ns2_like.h"
#include "peer_apps.h"
#include "tcp_probe.h"

#include <memory>
#include <sstream>

using namespace ns3;
using namespace hoptcp_peer;


int
main(int argc, char* argv[])
{
    std::string positions;  // "x,y;x,y;..." in node-id order
    std::string routes;     // "node,dst,next;..."
    std::string flows;      // "tcp,src,dst,start;..." or "udp,src,dst,start,rate_bps,bytes,jitter;..."
    uint32_t payload = 1460;
    uint32_t maxWindow = 32;
    uint32_t initialWindow = 2;
    uint32_t initialSsthresh = 20;
    double minRto = 0.2;
    uint32_t seed = 1;
    std::string variant = "newreno";
    Radio radio;
    CommandLine cmd(__FILE__);
    cmd.AddValue("positions", "node positions, x,y in metres, semicolon-separated", positions);
    cmd.AddValue("routes", "static routes node,dst,next, semicolon-separated", routes);
    cmd.AddValue("flows", "tcp,src,dst,start or udp,src,dst,start,rate_bps,bytes,jitter, semicolon-separated", flows);
    cmd.AddValue("payload", "TCP payload per segment (bytes)", payload);
    cmd.AddValue("maxWindow", "maximum window (segments)", maxWindow);
    cmd.AddValue("initialWindow", "initial congestion window (segments)", initialWindow);
    cmd.AddValue("initialSsthresh", "initial slow-start threshold (segments)", initialSsthresh);
    cmd.AddValue("variant", "TCP congestion control: newreno or bbr", variant);
    cmd.AddValue("minRto", "lower bound of the retransmission timeout (s)", minRto);
    cmd.AddValue("txPowerW", "transmit power (W)", radio.txPowerW);
    cmd.AddValue("antennaHeight", "antenna height (m)", radio.antennaHeightM);
    cmd.AddValue("frequency", "carrier frequency (Hz)", radio.frequencyHz);
    cmd.AddValue("rxRange", "reception range (m): the receive threshold is the power there", radio.rxRangeM);
    cmd.AddValue("csRange", "carrier-sense range (m): the energy-detection threshold", radio.csRangeM);
    cmd.AddValue("dataMbps", "802.11b data rate (Mb/s)", radio.dataMbps);
    cmd.AddValue("basicMbps", "802.11b basic rate (Mb/s)", radio.basicMbps);
    cmd.AddValue("queue", "interface queue (packets)", radio.queuePackets);
    cmd.AddValue("duration", "simulated seconds", radio.durationS);
    cmd.AddValue("seed", "run number of ns-3's random streams", seed);
    cmd.Parse(argc, argv);
    RngSeedManager::SetRun(seed);
    if (variant != "bbr" && variant != "newreno")
    {
        std::fprintf(stderr, "--variant: %s: newreno or bbr\n", variant.c_str());
        return 2;
    }
    TcpLikeNs2(payload, maxWindow, initialWindow, initialSsthresh, minRto);
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(variant == "bbr"));

    std::vector<Vector> at;
    for (const std::string& p : Split(positions, ';'))
    {
        std::vector<std::string> xy = Split(p, ',');
        at.emplace_back(std::stod(xy.at(0)), std::stod(xy.at(1)), 0);
    }
    auto id = [&at](const std::string& key, const std::string& text) {
        const unsigned long n = std::stoul(text);
        if (n >= at.size())
        {
            std::fprintf(stderr, "%s: node %lu: there are %zu nodes (--positions)\n", key.c_str(), n, at.size());
            std::exit(2);
        }
        return static_cast<uint32_t>(n);
    };
    NodeContainer nodes;
    nodes.Create(at.size());
    Place(nodes, at);
    NetDeviceContainer devices = InstallRadio(nodes, radio);
    Ipv4InterfaceContainer ifaces = InstallIp(nodes, devices);
    for (const std::string& r : Split(routes, ';'))
    {
        std::vector<std::string> v = Split(r, ',');
        Route(nodes, ifaces, id("--routes", v.at(0)), id("--routes", v.at(1)), id("--routes", v.at(2)));
    }

    // Drops over every node: frames the MAC gave up after its retry limits (RTS or data,
    // ns-2's "RET" drops), and packets its full queue refused (ns-2's "IFQ"; ns-3.37 fires
    // none of its drop traces for those here, so they are the packets IP sent that never
    // entered a MAC queue). Failed RTSs are counted too: ns-3.37 checks an RTS/CTS-protected
    // frame against the long retry limit, which only unacknowledged data frames raise, so
    // unanswered RTSs alone never make it give a frame up.
    static uint64_t rtsDrops = 0, dataDrops = 0, fromIp = 0, queued = 0, rtsFailed = 0;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(devices.Get(i));
        Ptr<WifiRemoteStationManager> rsm = dev->GetRemoteStationManager();
        const bool ok =
            rsm->TraceConnectWithoutContext("MacTxFinalRtsFailed", MakeCallback(+[](Mac48Address) { ++rtsDrops; })) &&
            rsm->TraceConnectWithoutContext("MacTxFinalDataFailed", MakeCallback(+[](Mac48Address) { ++dataDrops; })) &&
            rsm->TraceConnectWithoutContext("MacTxRtsFailed", MakeCallback(+[](Mac48Address) { ++rtsFailed; })) &&
            nodes.Get(i)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
                "Tx", MakeCallback(+[](Ptr<const Packet>, Ptr<Ipv4>, uint32_t) { ++fromIp; })) &&
            dev->GetMac()->GetTxop()->GetWifiMacQueue()->TraceConnectWithoutContext(
                "Enqueue", MakeCallback(+[](Ptr<const WifiMpdu>) { ++queued; }));
        if (!ok)
        {
            std::fprintf(stderr, "the wifi device lacks a trace source the drop counts need\n");
            return 2;
        }
    }

    struct Flow
    {
        Ptr<PacketSink> sink;
        double startS;
        std::unique_ptr<FlowProbe> probe;  // TCP flows
    };
    std::vector<Flow> sinks;
    uint16_t port = 9;
    for (const std::string& entry : Split(flows, ';'))
    {
        std::vector<std::string> v = Split(entry, ',');
        const uint32_t src = id("--flows", v.at(1));
        const uint32_t dst = id("--flows", v.at(2));
        std::unique_ptr<FlowProbe> probe;
        std::function<void(Ptr<TcpSocketBase>)> attach;
        if (v.at(0) == "tcp")
        {
            probe = std::make_unique<FlowProbe>();
            probe->segment = payload;
            FlowProbe* p = probe.get();
            attach = [p](Ptr<TcpSocketBase> s) { p->Attach(s); };
        }
        InstalledFlow f = InstallFlow(v, nodes.Get(src), nodes.Get(dst),
                                      InetSocketAddress(ifaces.GetAddress(dst), ++port), payload, variant, attach);
        if (probe)
        {
            probe->bbr = DynamicCast<TcpBbr>(f.cc);  // null for NewReno
        }
        sinks.push_back({f.sink, f.startS, std::move(probe)});
    }

    Simulator::Stop(Seconds(radio.durationS));
    Simulator::Run();
    double total = 0;
    std::string each;
    std::string tcpFlows;
    for (const Flow& f : sinks)
    {
        const double bps = f.sink->GetTotalRx() * 8.0 / (radio.durationS - f.startS);
        total += bps;
        each += (each.empty() ? "" : ", ") + std::to_string(bps);
        if (f.probe)
        {
            tcpFlows += std::string(tcpFlows.empty() ? "" : ", ") + "{\"goodput_bps\": " + Json(bps) + ", " +
                        f.probe->Report(radio.durationS) + "}";
        }
    }
    std::printf("{\"goodput_bps\": %.3f, \"flows_bps\": [%s], \"nodes\": %zu, \"variant\": \"%s\", \"tcp\": [%s], "
                "\"drops\": {\"mac_rts_retry\": %llu, \"mac_data_retry\": %llu, \"queue_overflow\": %llu}, "
                "\"rts_failures\": %llu}\n",
                total, each.c_str(), at.size(), variant.c_str(), tcpFlows.c_str(),
                (unsigned long long)rtsDrops, (unsigned long long)dataDrops, (unsigned long long)(fromIp - queued),
                (unsigned long long)rtsFailed);
    Simulator::Destroy();
    return 0;
}
