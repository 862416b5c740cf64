// Top level of the qperf dialect: parse, then be a server, a client, or both (--loopback).
#include "app/fabperf_app.h"

#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <cstdio>
#include <ctime>
#include <thread>

#include "cli/command_line.h"
#include "cli/help.h"
#include "session/client.h"
#include "cxi/cxi_main.h"
#include "app/all_tests.h"
#include "session/server.h"
#include "app/server_config.h"
#include "engine/misc_tests.h"

namespace fabperf {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<Server*> g_server{nullptr};

void on_signal(int) {
  g_stop.store(true);
  if (Server* s = g_server.load()) s->Stop();
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second ^C kills at once
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

std::string iso8601_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  return 2;
}

double time_of(const ParamValue& v) {
  if (auto* d = std::get_if<double>(&v)) return *d;
  return 5;
}

int run_server(const CommandLine& cl) {
  for (const Assignment& a : cl.assignments) {
    if (a.spec->scope == OptScope::kClient && std::string(a.spec->name) != "version") {
      return usage_error("you used a client-only option (" + a.spelling +
                         ") but did not specify the server name; try: fabperf --help");
    }
  }
  auto options = server_options_from(cl);
  if (!options.ok()) return usage_error(options.status().message());
  auto server = Server::Listen(*options);
  if (!server.ok()) {
    std::fprintf(stderr, "fabperf server: %s\n", server.status().message().c_str());
    return 1;
  }
  g_server.store(server->get());
  Status s = (*server)->Serve();
  g_server.store(nullptr);
  if (!s.ok()) {
    // A client that ignores "server shutting down" must not keep the process alive.
    std::fprintf(stderr, "fabperf server: %s; exiting anyway\n", s.message().c_str());
    std::fflush(stderr);
    std::_Exit(0);
  }
  return 0;
}

}  // namespace

int fabperf_main(const std::string& program, const std::vector<std::string>& args) {
  // fab_write_lat and its siblings are this program under other names: their own dialect.
  if (cxi::is_cxi_program(program)) return cxi::cxi_main(program, args, all_tests());
  auto parsed = parse_command_line(args, all_tests().names());
  if (!parsed.ok()) return usage_error(parsed.status().message());
  const CommandLine& cl = *parsed;
  if (cl.help) {
    auto text = help_text(cl.help_topic, all_tests());
    if (!text.ok()) return usage_error(text.status().message());
    std::fputs(text->c_str(), stdout);
    return 0;
  }
  if (cl.version) {
    std::printf("fabperf %s\n", FABPERF_VERSION);
    return 0;
  }
  if (cl.flag("list_fabrics")) return cxi::list_fabrics(stdout);
  install_signal_handlers();
  bool loopback = cl.flag("loopback");
  if (cl.host.empty() && !loopback) {
    if (!cl.tests.empty()) return usage_error("must specify host name first; try: fabperf --help");
    return run_server(cl);
  }
  if (cl.tests.empty()) return usage_error("must specify a test type; try: fabperf --help");
  if (!loopback) {
    Status s = check_no_server_options(cl);
    if (!s.ok()) return usage_error(s.message());
  }
  auto auth_key = auth_key_from(cl);
  if (!auth_key.ok()) return usage_error(auth_key.status().message());

  RunInfo info;
  info.started = iso8601_now();
  info.argv.push_back(program);
  info.argv.insert(info.argv.end(), args.begin(), args.end());
  info.client = node_info();
  auto percentiles = parse_percentiles(std::get<std::string>(cl.global("percentiles")));
  if (!percentiles.ok()) return usage_error(percentiles.status().message());
  info.percentiles = *percentiles;

  DisplayOptions display;
  display.precision = static_cast<int>(std::get<int64_t>(cl.global("precision")));
  display.unify_units = cl.flag("unify_units");
  display.unify_nodes = cl.flag("unify_nodes");
  display.bits = cl.flag("use_bits_per_sec");
  display.conf = cl.flag("verbose_conf");
  display.stat = cl.flag("verbose_stat");
  display.time = cl.flag("verbose_time");
  display.used = cl.flag("verbose_used");
  display.more_conf = cl.flag("verbose_more_conf");
  display.more_stat = cl.flag("verbose_more_stat");
  display.more_time = cl.flag("verbose_more_time");
  display.more_used = cl.flag("verbose_more_used");

  std::vector<std::unique_ptr<Reporter>> reporters;
  std::string json_path = std::get<std::string>(cl.global("json"));
  std::string csv_path = std::get<std::string>(cl.global("csv"));
  if (json_path == "-" && csv_path == "-") return usage_error("--json - and --csv - cannot share standard output");
  // Text goes to standard output unless a machine format has taken it.
  if (json_path != "-" && csv_path != "-") reporters.push_back(make_qperf_text_reporter(display));
  if (!json_path.empty()) {
    auto r = make_json_reporter(json_path);
    if (!r.ok()) return usage_error(r.status().message());
    reporters.push_back(std::move(*r));
  }
  if (!csv_path.empty()) {
    auto r = make_csv_reporter(csv_path);
    if (!r.ok()) return usage_error(r.status().message());
    reporters.push_back(std::move(*r));
  }

  ClientConfig config;
  config.host = cl.host;
  config.tests = &all_tests();
  config.auth_key = *auth_key;
  config.port = static_cast<uint16_t>(std::get<uint64_t>(cl.global("listen_port")));
  config.wait_server_s = time_of(cl.global("wait_server"));
  config.bind_addr = std::get<std::string>(cl.global("bind"));
  config.stop = &g_stop;

  std::unique_ptr<Server> local_server;
  std::thread server_thread;
  if (loopback) {
    auto options = server_options_from(cl);
    if (!options.ok()) return usage_error(options.status().message());
    options->bind_addr = "127.0.0.1";
    options->port = 0;
    auto server = Server::Listen(*options);
    if (!server.ok()) {
      std::fprintf(stderr, "loopback server: %s\n", server.status().message().c_str());
      return 1;
    }
    local_server = std::move(*server);
    config.host = "127.0.0.1";
    config.port = local_server->port();
    server_thread = std::thread([&] { local_server->Serve(); });
  }
  int code = run_client(cl, config, info, reporters);
  for (auto& reporter : reporters) {
    Status s = reporter->Finish(info);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      if (code == 0) code = 1;
    }
  }
  if (local_server) {
    local_server->Stop();
    server_thread.join();
  }
  return code;
}

}  // namespace fabperf
