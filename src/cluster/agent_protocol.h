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

// The frame types the agent protocol reuses, with what each carries here.
inline constexpr MsgType kAgentRun = MsgType::kRun;        // {"step","peer","test","name","time_s"}
inline constexpr MsgType kAgentResult = MsgType::kResult;  // {"step","value"} or {"step","error"}
inline constexpr MsgType kAgentPing = MsgType::kSync;      // {"ping": n}, answered {"pong": n}
inline constexpr MsgType kAgentCancel = MsgType::kExchange;  // {"cancel": step}
inline constexpr MsgType kAgentQuit = MsgType::kQuit;        // the job is over; answered BYE
inline constexpr MsgType kAgentBye = MsgType::kBye;

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
