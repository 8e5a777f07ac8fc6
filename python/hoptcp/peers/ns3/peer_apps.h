// Pieces the peer programs share (static.cc, wired.cc): splitting list arguments, a
// constant-bit-rate UDP source, a bulk TCP source with its own congestion control, and a
// flow of --flows installed with its sink.
#ifndef HOPTCP_PEER_APPS_H
#define HOPTCP_PEER_APPS_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace hoptcp_peer
{
using namespace ns3;


std::vector<std::string>
Split(const std::string& text, char sep)
{
    std::vector<std::string> parts;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, sep))
    {
        if (!part.empty())
        {
            parts.push_back(part);
        }
    }
    return parts;
}

// A constant-bit-rate source: `bytes` every bytes·8/rate seconds, each gap scaled by
// U(1 − jitter, 1 + jitter) (ns-2's CBR with random_ set).
class CbrSource : public Application
{
  public:
    void Setup(Address to, uint32_t bytes, double rateBps, double jitter)
    {
        m_to = to;
        m_bytes = bytes;
        m_interval = bytes * 8.0 / rateBps;
        m_jitter = jitter;
    }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        m_socket->Connect(m_to);
        m_gap = CreateObject<UniformRandomVariable>();
        Send();
    }

    void StopApplication() override
    {
        Simulator::Cancel(m_next);
    }

    void Send()
    {
        m_socket->Send(Create<Packet>(m_bytes));
        double gap = m_interval * (m_jitter > 0 ? m_gap->GetValue(1 - m_jitter, 1 + m_jitter) : 1.0);
        m_next = Simulator::Schedule(Seconds(gap), &CbrSource::Send, this);
    }

    Address m_to;
    uint32_t m_bytes = 0;
    double m_interval = 1;
    double m_jitter = 0;
    Ptr<Socket> m_socket;
    Ptr<UniformRandomVariable> m_gap;
    EventId m_next;
};

// Bulk data: keeps the socket's send buffer full, a segment per write (so no sample is
// application-limited), with the congestion control it is given; `onSocket` sees the
// socket once it exists (at the application's start).
class BulkTcp : public Application
{
  public:
    void Setup(Address to, uint32_t segment, Ptr<TcpCongestionOps> cc,
               std::function<void(Ptr<TcpSocketBase>)> onSocket = nullptr)
    {
        m_to = to;
        m_segment = segment;
        m_cc = cc;
        m_onSocket = onSocket;
    }
    Ptr<TcpSocketBase> Socket() const { return m_socket; }

  private:
    void StartApplication() override
    {
        m_socket = DynamicCast<TcpSocketBase>(ns3::Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId()));
        m_socket->SetCongestionControlAlgorithm(m_cc);
        if (m_onSocket)
        {
            m_onSocket(m_socket);
        }
        m_socket->SetConnectCallback(MakeCallback(&BulkTcp::Connected, this),
                                     MakeNullCallback<void, Ptr<ns3::Socket>>());
        m_socket->SetSendCallback(MakeCallback(&BulkTcp::Fill, this));
        m_socket->Connect(m_to);
    }
    void StopApplication() override {}
    void Connected(Ptr<ns3::Socket> s) { Fill(s, s->GetTxAvailable()); }
    void Fill(Ptr<ns3::Socket> s, uint32_t)
    {
        while (s->GetTxAvailable() >= m_segment)
        {
            s->Send(Create<Packet>(m_segment));
        }
    }

    Address m_to;
    uint32_t m_segment = 1460;
    Ptr<TcpCongestionOps> m_cc;
    std::function<void(Ptr<TcpSocketBase>)> m_onSocket;
    Ptr<TcpSocketBase> m_socket;
};

// One entry of --flows, "tcp,src,dst,start" or "udp,src,dst,start,rate_bps,bytes,jitter"
// (split), installed: a sink at `to` on `dst`, the source on `src` from the flow's start;
// TCP with NewReno or BBR (`variant`) and BulkTcp's `onSocket`.
struct InstalledFlow
{
    Ptr<PacketSink> sink;
    double startS = 0;
    Ptr<TcpCongestionOps> cc;  // TCP flows
    Ptr<BulkTcp> bulk;         // TCP flows
};

InstalledFlow
InstallFlow(const std::vector<std::string>& v, Ptr<Node> src, Ptr<Node> dst, InetSocketAddress to,
            uint32_t payload, const std::string& variant, std::function<void(Ptr<TcpSocketBase>)> onSocket = nullptr)
{
    const bool tcp = v.at(0) == "tcp";
    InstalledFlow f;
    f.startS = std::stod(v.at(3));
    const char* factory = tcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
    ApplicationContainer sinkApp =
        PacketSinkHelper(factory, InetSocketAddress(Ipv4Address::GetAny(), to.GetPort())).Install(dst);
    sinkApp.Start(Seconds(0));
    f.sink = DynamicCast<PacketSink>(sinkApp.Get(0));
    Ptr<Application> app;
    if (tcp)
    {
        f.cc = variant == "bbr" ? Ptr<TcpCongestionOps>(CreateObject<TcpBbr>())
                                : Ptr<TcpCongestionOps>(CreateObject<TcpNewReno>());
        f.bulk = CreateObject<BulkTcp>();
        f.bulk->Setup(to, payload, f.cc, onSocket);
        app = f.bulk;
    }
    else
    {
        Ptr<CbrSource> cbr = CreateObject<CbrSource>();
        cbr->Setup(to, std::stoul(v.at(5)), std::stod(v.at(4)), std::stod(v.at(6)));
        app = cbr;
    }
    src->AddApplication(app);
    app->SetStartTime(Seconds(f.startS));
    return f;
}

}  // namespace hoptcp_peer

#endif
