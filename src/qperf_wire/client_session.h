// Measuring against a stock qperf server (0.4.9-0.4.11): one fabperf test run through qperf's
// protocol, with the figures a qperf client prints plus fabperf's own latency record.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/status.h"
#include "engine/test_result.h"
#include "report/reporter.h"
#include "session/client.h"
#include "stats/latency.h"

namespace fabperf::qperf_wire {

// Runs result's test (a socket test, conf or quit) against the qperf server of `config`:
// fills result.loc (this side, timed by fabperf's clock), result.rem (the server's results
// block, read as qperf's client reads it), the round trips in `latency`, and conf's answer.
// `server_version` marks the remote side in the results ("qperf 0.4.11"), "" when unknown.
Status run_qperf_test(const ClientConfig& config, TestResult& result, LatencyRecorder& latency,
                      const std::string& server_version);

// Before the first test: learns the server's conf (node, cpu, os, version) for the report's
// "server" (with "tool": "qperf") and `version` ("0.4.11") when still unknown. Fails when the
// server cannot be reached or this client holds a key (a qperf server cannot prove it has it).
Status greet_qperf_server(const ClientConfig& config, RunInfo& info, std::string& version,
                          double timeout_s);

// Recognises a stock qperf server once fabperf's HELLO has drawn an answer that is not a
// frame: qperf reads our frame's magic as a version and says so on its error channel, "upgrade
// qperf on server from 0.4.11 to 16966.18000.256", then closes. Reads what is left of that
// answer (at most 0.2 s) and returns the server's version, or nullopt when it is not qperf's.
std::optional<std::string> qperf_server_version(int fd);

}  // namespace fabperf::qperf_wire
