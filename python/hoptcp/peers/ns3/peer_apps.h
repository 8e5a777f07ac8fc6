// Pieces the peer programs share (static.cc, wired.cc): splitting list arguments, and a
// constant-bit-rate UDP source.
#ifndef HOPTCP_PEER_APPS_H
#define HOPTCP_PEER_APPS_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

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


}  // namespace hoptcp_peer

#endif
