// What every --matrix rank runs: its fabperf server and its agent, both opened only by the
// rank's own per-job key, and the card that tells the job where they listen.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/command_line.h"
#include "cluster/agent.h"
#include "cluster/bootstrap.h"
#include "cluster/matrix_options.h"
#include "session/modes.h"
#include "session/server.h"

namespace fabperf::cluster {

struct RankServices {
  std::unique_ptr<Server> server;
  std::unique_ptr<Agent> agent;
  std::thread server_thread;
  RankCard card;  // its error says why a service could not start

  ~RankServices();
};

// Starts the server (listening, with the app's tests and isolation of fabric runs; serving
// from open_to_peers) and the agent (not yet serving), and fills the card.
void start_services(const CommandLine& cl, const MatrixOptions& o, const SessionEnv& env,
                    Bootstrap& boot, const std::atomic<bool>* stop, RankServices& s);

// Once the job's cards are known (`peers` empty when the start-up exchange failed: then the key
// alone keeps strangers out): the server takes connections only from the peers' addresses and
// starts serving; the agent takes them only from rank 0's.
void open_to_peers(RankServices& s, const std::vector<RankCard>& peers, const RankCard* rank0);

std::string host_name();

}  // namespace fabperf::cluster
