// The --matrix control protocol between rank 0 (the coordinator) and every rank's agent:
// fabperf's frames (net/control.h) on the agent's own port, which only a holder of the rank's
// per-job key may use. docs/cluster.md describes the exchange.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cluster/bootstrap.h"
#include "core/status.h"
#include "net/control.h"

namespace fabperf::cluster {

// The agent protocol's frames (net/control.h's own types for it), with what each carries.
inline constexpr MsgType kAgentRun = MsgType::kAgentRun;  // {"step","peer","test","name","time_s"}
inline constexpr MsgType kAgentResult =
    MsgType::kAgentResult;                                  // {"step","value"} or {"step","error"}
inline constexpr MsgType kAgentPing = MsgType::kAgentPing;  // {"ping": n}
inline constexpr MsgType kAgentPong = MsgType::kAgentPong;  // {"pong": n, "busy": bool}
inline constexpr MsgType kAgentCancel = MsgType::kAgentCancel;  // {"cancel": step}
inline constexpr MsgType kAgentQuit = MsgType::kAgentQuit;      // the job is over; answered BYE
inline constexpr MsgType kAgentBye = MsgType::kAgentBye;

// The agent protocol's version, in the coordinator's HELLO ("matrix": {"protocol"}) and the
// agent's AUTH ("agent_protocol"). 1 (no such field) reused the session's RUN, SYNC, EXCHANGE;
// 2 has its own frame types. Every rank of a job runs the same fabperf, and a mismatch is
// refused in the handshake rather than met as unknown frames later.
inline constexpr int kAgentProtocolVersion = 2;

// What the coordinator tells an agent when it connects.
struct CoordinatorHello {
  std::string job;
  double deadline_s = 0;  // the job ends within this many seconds from now, whatever happens
};

// Coordinator side: connects to a rank's agent and proves the rank's key (and checks the
// agent's proof in return). Every step has `timeout_s`.
Result<std::unique_ptr<ControlChannel>> connect_agent(const RankCard& card,
                                                      const CoordinatorHello& hello,
                                                      const std::string& bind, double timeout_s);

// Agent side: the handshake on an accepted connection; fills `hello` from a coordinator that
// proved `key`. Anyone else is refused with the reason.
Status accept_coordinator(ControlChannel& ch, const std::string& key, double timeout_s,
                          CoordinatorHello* hello);

}  // namespace fabperf::cluster
