// hoptcp's peer scenario in ns-3: nodes at given positions, static routes, bulk TCP and
// CBR UDP flows, on ns2_like.h's radio. Python (hoptcp.peers.ns3) writes the arguments
// from a hoptcp scenario. Prints one JSON line: each flow's goodput (payload bytes its
// sink received, times 8, over the time from the flow's start to the end) and their sum.
#include "ns2_like.h"
#include "peer_apps.h"

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
    Radio radio;
    CommandLine cmd(__FILE__);
    cmd.AddValue("positions", "node positions, x,y in metres, semicolon-separated", positions);
    cmd.AddValue("routes", "static routes node,dst,next, semicolon-separated", routes);
    cmd.AddValue("flows", "tcp,src,dst,start or udp,src,dst,start,rate_bps,bytes,jitter, semicolon-separated", flows);
    cmd.AddValue("payload", "TCP payload per segment (bytes)", payload);
    cmd.AddValue("maxWindow", "maximum window (segments)", maxWindow);
    cmd.AddValue("initialWindow", "initial congestion window (segments)", initialWindow);
    cmd.AddValue("initialSsthresh", "initial slow-start threshold (segments)", initialSsthresh);
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
    TcpLikeNs2(payload, maxWindow, initialWindow, initialSsthresh, minRto);

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

    struct Flow
    {
        Ptr<PacketSink> sink;
        double startS;
    };
    std::vector<Flow> sinks;
    uint16_t port = 9;
    for (const std::string& f : Split(flows, ';'))
    {
        std::vector<std::string> v = Split(f, ',');
        const bool tcp = v.at(0) == "tcp";
        const uint32_t src = id("--flows", v.at(1));
        const uint32_t dst = id("--flows", v.at(2));
        const double start = std::stod(v.at(3));
        const char* factory = tcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
        ++port;
        ApplicationContainer sinkApp =
            PacketSinkHelper(factory, InetSocketAddress(Ipv4Address::GetAny(), port)).Install(nodes.Get(dst));
        sinkApp.Start(Seconds(0));
        Address to = InetSocketAddress(ifaces.GetAddress(dst), port);
        ApplicationContainer sourceApp;
        if (tcp)
        {
            BulkSendHelper source(factory, to);
            source.SetAttribute("MaxBytes", UintegerValue(0));
            source.SetAttribute("SendSize", UintegerValue(payload));
            sourceApp = source.Install(nodes.Get(src));
        }
        else
        {
            Ptr<CbrSource> cbr = CreateObject<CbrSource>();
            cbr->Setup(to, std::stoul(v.at(5)), std::stod(v.at(4)), std::stod(v.at(6)));
            nodes.Get(src)->AddApplication(cbr);
            sourceApp.Add(cbr);
        }
        sourceApp.Start(Seconds(start));
        sinks.push_back({DynamicCast<PacketSink>(sinkApp.Get(0)), start});
    }

    Simulator::Stop(Seconds(radio.durationS));
    Simulator::Run();
    double total = 0;
    std::string each;
    for (const Flow& f : sinks)
    {
        const double bps = f.sink->GetTotalRx() * 8.0 / (radio.durationS - f.startS);
        total += bps;
        each += (each.empty() ? "" : ", ") + std::to_string(bps);
    }
    std::printf("{\"goodput_bps\": %.3f, \"flows_bps\": [%s], \"nodes\": %zu}\n", total, each.c_str(), at.size());
    Simulator::Destroy();
    return 0;
}
