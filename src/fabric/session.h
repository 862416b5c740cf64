// FabricSession: one side of a fabric test, made of four capabilities a role uses by name:
//   link  the provider chosen, the endpoint and the peer's address (SessionLink, below);
//   mem   the buffer layout, registered memory and patterns (fabric/session_memory.h);
//   cq    the completion engine: contexts, posts and the CQ (fabric/completions.h);
//   sync  the run clock and peer sync over the control connection (fabric/peer_sync.h).
// establish() sets them up in order; the first failure of any is the session's status().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "engine/test_context.h"
#include "fabric/completions.h"
#include "fabric/cxi_controls.h"
#include "fabric/endpoint.h"
#include "fabric/peer_sync.h"
#include "fabric/provider.h"
#include "fabric/session_error.h"
#include "fabric/session_memory.h"
#include "fabric/session_needs.h"
#include "fabric/window_defaults.h"

namespace fabperf {

// What a session process holds beside its buffers over `provider` (the program, libfabric and
// the provider's own pools), the most it was measured to hold (fabric/session.cc); a provider
// not measured, or none named (the client's libfabric chooses), counts as the largest.
uint64_t provider_process_bytes(const std::string& provider);
// What the server's side of a fabric run holds: its buffer, and its session process beside it.
Needs fabric_needs(const SessionNeeds& needs, const RunOptions& opts);

// The cxi switches of a run of `spec` (fabric/cxi_controls.h): what the test does decides
// which IDC variable, HRP and restricted operations apply.
CxiControls cxi_controls_for(const TestSpec& spec, const SessionNeeds& needs,
                             const RunOptions& opts);

// The endpoint capability: the provider both sides chose, the endpoint, the peer's address,
// and how this side's messages go out.
struct SessionLink {
  FabricChoice choice;
  std::unique_ptr<FabricEndpoint> endpoint;
  fi_addr_t peer = FI_ADDR_UNSPEC;
  // A message fits the provider's inject size: fi_inject copies it at once and generates no
  // completion, the fastest small send the provider has (fi_pingpong uses it too; the CXI
  // tools call it IDC). Recorded in the run's info as "send".
  bool inject = false;
  // A windowed bandwidth test's window and inject size (SessionNeeds::windowed), and whether
  // its messages inject: msg_size fits both the choice's inject size and the provider's.
  WindowChoice window;
  bool inject_bw = false;

  fid_ep* ep() const { return endpoint->ep(); }
  std::string provider() const { return choice.provider(); }
  bool has_remote_cq_data() const { return choice.info->domain_attr->cq_data_size >= 4; }
  // The flags of a *msg post: the endpoint's own op_flags (what fi_write & co. use), and
  // FI_COMPLETION and FI_MORE.
  uint64_t more_flags() const {
    const fi_tx_attr* tx = endpoint->info()->tx_attr;
    return (tx != nullptr ? tx->op_flags : 0) | FI_COMPLETION | FI_MORE;
  }
};

class FabricSession {
 private:
  SessionError error_;  // first: the capabilities below keep a reference to it

 public:
  // Chooses the provider (the client's choice is sent to the server), opens the endpoints,
  // connects (FI_EP_MSG) or fills the AV, registers memory and swaps region descriptors.
  static Result<std::unique_ptr<FabricSession>> establish(TestContext& ctx,
                                                          const SessionNeeds& needs);
  ~FabricSession();

  TestContext& ctx;
  SessionLink link;
  SessionMemory mem;
  PeerSync sync;
  Completions cq;

  // Messages are posted through a route (fabric/msg_route.h), RMA operations through the
  // one-sided tests' RmaRoute: each looks up where its operations go once, when a test starts.

  bool fail(Status status) { return error_.fail(std::move(status)); }
  const Status& error() const { return error_.error(); }
  // The first error, or Ok; the Status role functions return.
  Status status() const { return error_.status(); }

 private:
  explicit FabricSession(TestContext& c)
      : ctx(c), mem(c, error_), sync(c, error_), cq(c, error_, sync) {}
  Status setup(const SessionNeeds& needs);
  // The steps of setup(), in its order.
  Status adopt_options();  // the run's options this session keeps, and the stuck-call watch
  // The provider both sides use (the server reads the client's first exchange into
  // `peer_hello`); the cxi switches cleared when it is not cxi.
  Status choose_provider(FabricRequest& request, const Status& cxi_env, nlohmann::json& peer_hello);
  // msg_size within the provider's limit (a default lowered to it, a given size refused).
  Status fit_message_size(const SessionNeeds& needs);
  void describe_choice(const SessionNeeds& needs, const std::string& cxi_note);  // stats info
  void choose_inject(const SessionNeeds& needs);  // inject and inject_bw
  void start_queues(const SessionNeeds& sized);   // cq's windows, and the clocks
  // A windowed test's needs at its chosen window (SessionNeeds::windowed); `needs` otherwise.
  SessionNeeds sized_needs(const SessionNeeds& needs, const nlohmann::json& peer_hello);
  // The client's window choice, for the server, added to its first exchange.
  void add_window(nlohmann::json& hello) const;
  Status open_connectionless(const SessionNeeds& needs, nlohmann::json peer_hello);
  Status open_connected(const FabricRequest& request, const SessionNeeds& needs);

  CxiControls cxi_;  // the cxi switches of this run (cleared of attributes off cxi)
};

}  // namespace fabperf
