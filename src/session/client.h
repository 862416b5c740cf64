// The client engine: runs each requested test (and loop value) against a server.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "engine/registry.h"
#include "engine/test_result.h"
#include "report/reporter.h"

namespace fabperf {

struct ClientConfig {
  const TestRegistry* tests = nullptr;  // the tests this program knows
  std::string host;
  uint16_t port = 19765;
  double wait_server_s = 5;
  std::string bind_addr;
  std::string auth_key;  // --auth_key_file's key: prove it to the server, and check the server's
  const std::atomic<bool>* stop = nullptr;
};

// Runs every test of the command line, hands each result to the reporters as it completes,
// and returns the exit status: 0 all ok, 1 any run failed, 130 interrupted.
int run_client(const CommandLine& cl, const ClientConfig& config, RunInfo& info,
               std::vector<std::unique_ptr<Reporter>>& reporters);

}  // namespace fabperf
