// The parts of an ns-3 scenario that stand for ns-2.35's CMU wireless model, shared by
// hoptcp's peer programs (static.cc). Built by `hoptcp bench --peers` against the
// system's ns-3 (pkg-config); see python/hoptcp/peers/ns3/__init__.py for what differs.
#ifndef HOPTCP_NS2_LIKE_H
#define HOPTCP_NS2_LIKE_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace hoptcp_peer
{

using namespace ns3;

// Two-ray ground received power (ns-2's TwoRayGround: Friis below the crossover
// distance, Pt·h²·h²/d⁴ beyond it), watts: ns-2's thresholds are the power at the
// reception and carrier-sense ranges.
inline double
TwoRayW(double ptW, double heightM, double frequencyHz, double d)
{
    const double lambda = 299792458.0 / frequencyHz;
    const double crossover = 4 * M_PI * heightM * heightM / lambda;
    if (d <= crossover)
    {
        const double x = lambda / (4 * M_PI * d);
        return ptW * x * x;
    }
    return ptW * std::pow(heightM, 4) / std::pow(d, 4);
}

inline double
Dbm(double watts)
{
    return 10.0 * std::log10(watts * 1000.0);
}

struct Radio
{
    double txPowerW = 0.28183815;  // ns-2.35's Phy/WirelessPhy defaults
    double antennaHeightM = 1.5;
    double frequencyHz = 914e6;
    double rxRangeM = 250;
    double csRangeM = 550;
    double dataMbps = 2;
    double basicMbps = 1;
    uint32_t queuePackets = 50;
    double durationS = 300;
};

// 802.11b DSSS ad hoc devices on a two-ray-ground channel: frames above ns-2's RXThresh
// are received, those between CSThresh and RXThresh only make the medium busy, RTS/CTS
// before every unicast frame, ns-2's retry limits. ns-3's YansWifiChannel drops a signal
// below RxSensitivity before any PHY sees it (not even its energy counts), so
// RxSensitivity and the energy-detection threshold are both at the carrier-sense range,
// and reception stops at the reception range through preamble detection: a frame weaker
// than its MinimumRssi is never decoded, only sensed.
inline NetDeviceContainer
InstallRadio(const NodeContainer& nodes, const Radio& r)
{
    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize(std::to_string(r.queuePackets) + "p")));
    // ns-2's interface queue has no sojourn limit (ns-3 drops after 500 ms by default)
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(r.durationS + 1)));

    YansWifiChannelHelper channel;
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    channel.AddPropagationLoss("ns3::TwoRayGroundPropagationLossModel",
                               "Frequency", DoubleValue(r.frequencyHz),
                               "SystemLoss", DoubleValue(1.0),
                               "HeightAboveZ", DoubleValue(r.antennaHeightM));
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    phy.Set("TxPowerStart", DoubleValue(Dbm(r.txPowerW)));
    phy.Set("TxPowerEnd", DoubleValue(Dbm(r.txPowerW)));
    phy.Set("TxPowerLevels", UintegerValue(1));
    phy.Set("TxGain", DoubleValue(0));
    phy.Set("RxGain", DoubleValue(0));
    const double rxThreshDbm = Dbm(TwoRayW(r.txPowerW, r.antennaHeightM, r.frequencyHz, r.rxRangeM));
    const double csThreshDbm = Dbm(TwoRayW(r.txPowerW, r.antennaHeightM, r.frequencyHz, r.csRangeM));
    phy.Set("RxSensitivity", DoubleValue(csThreshDbm));
    phy.Set("CcaEdThreshold", DoubleValue(csThreshDbm));
    phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel", "MinimumRssi", DoubleValue(rxThreshDbm));

    auto mode = [](double mbps) {
        return std::string("DsssRate") + (mbps == 5.5 ? "5_5" : std::to_string(static_cast<int>(mbps))) + "Mbps";
    };
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode", StringValue(mode(r.dataMbps)),
                                 "ControlMode", StringValue(mode(r.basicMbps)),
                                 "RtsCtsThreshold", UintegerValue(0),
                                 "MaxSsrc", UintegerValue(7),
                                 "MaxSlrc", UintegerValue(4));
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    return wifi.Install(phy, mac, nodes);
}

// Nodes at fixed positions (z = 0; the antennas' height is in the loss model).
inline void
Place(const NodeContainer& nodes, const std::vector<Vector>& at)
{
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    for (const Vector& v : at)
    {
        pos->Add(v);
    }
    MobilityHelper mobility;
    mobility.SetPositionAllocator(pos);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(nodes);
}

// IPv4 with static routing only, ARP caches filled before the run (ns-2's ARP resolves
// once and never expires), and no queue disc above the device: the MAC's queue is the
// only one, as ns-2's interface queue.
inline Ipv4InterfaceContainer
InstallIp(const NodeContainer& nodes, const NetDeviceContainer& devices)
{
    InternetStackHelper internet;
    Ipv4StaticRoutingHelper staticRouting;
    internet.SetRoutingHelper(staticRouting);
    internet.Install(nodes);
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.0.0.0", "255.255.0.0");
    Ipv4InterfaceContainer ifaces = addresses.Assign(devices);
    TrafficControlHelper().Uninstall(devices);
    NeighborCacheHelper().PopulateNeighborCache();
    return ifaces;
}

// Host route at `node` towards `dst` through the neighbour `next`.
inline void
Route(const NodeContainer& nodes, const Ipv4InterfaceContainer& ifaces, uint32_t node, uint32_t dst, uint32_t next)
{
    Ipv4StaticRoutingHelper helper;
    helper.GetStaticRouting(nodes.Get(node)->GetObject<Ipv4>())->AddHostRouteTo(ifaces.GetAddress(dst),
                                                                                 ifaces.GetAddress(next), 1);
}

// Static routes along a line of node ids (each hop one neighbour), both directions.
inline void
RouteAlong(const NodeContainer& nodes, const Ipv4InterfaceContainer& ifaces, const std::vector<uint32_t>& path)
{
    for (size_t i = 0; i < path.size(); ++i)
    {
        for (size_t j = 0; j < path.size(); ++j)
        {
            if (j > i + 1)
            {
                Route(nodes, ifaces, path[i], path[j], path[i + 1]);
            }
            else if (j + 1 < i)
            {
                Route(nodes, ifaces, path[i], path[j], path[i - 1]);
            }
        }
    }
}

// ns-2's Agent/TCP/Newreno + TCPSink defaults as the scenario sets them: no SACK, no
// timestamps, one ACK per segment, classic fast recovery (ns-3's default is PRR). The
// scenario's maximum window (ns-2's window_) is the sender's buffer: at most that many
// segments are ever unacknowledged. Not the receiver's window: ns-3.37 sends a 0-byte
// segment and crashes (TcpRateLinux::SkbSent on a null item) when the advertised window
// is what limits the sender while a duplicate ACK is being handled.
inline void
TcpLikeNs2(uint32_t segmentBytes, uint32_t maxWindow, uint32_t initialWindow, uint32_t initialSsthresh,
           double minRtoS)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segmentBytes));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialWindow));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold", UintegerValue(initialSsthresh * segmentBytes));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(segmentBytes * maxWindow));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRtoS)));
}

}  // namespace hoptcp_peer

#endif
