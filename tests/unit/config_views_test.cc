// Unit tests: the server's and the client's configurations are views of the option table. Their
// option fields hold no defaults of their own, so these pin what a server or client built from
// the table's defaults has: a changed table default fails here, as it changes every server.
#include <gtest/gtest.h>

#include "app/all_tests.h"
#include "options/option_table.h"
#include "report/outputs.h"
#include "session/client.h"
#include "session/server_config.h"

namespace fabperf {
namespace {

TEST(ConfigViews, ADefaultServerHasTheOptionTablesDefaults) {
  ServerOptions options = default_server_options(all_tests());
  EXPECT_EQ(options.tests, &all_tests());
  EXPECT_EQ(options.port, 19765);
  EXPECT_EQ(options.bind_addr, "");
  EXPECT_EQ(options.timeout_s, 5);
  EXPECT_EQ(options.max_clients, 16);
  EXPECT_FALSE(options.concurrent);
  EXPECT_EQ(options.queue_timeout_s, 60);
  EXPECT_FALSE(options.once);
  EXPECT_FALSE(options.trust_fabric_addrs);
  EXPECT_FALSE(options.no_qperf);
  EXPECT_EQ(options.limits.max_msg_size, uint64_t{1} << 30);
  EXPECT_EQ(options.limits.max_time, 3600);
  EXPECT_EQ(options.limits.max_msgs, 1'000'000'000u);
  EXPECT_EQ(options.limits.max_memory, uint64_t{2} << 30);
}

// What the command line sets is what the server gets: the same function reads the defaults.
TEST(ConfigViews, ServerOptionsReadEveryOption) {
  ProgramOptions program = default_program_options();
  program.listen_port = 4000;
  program.bind = "127.0.0.1";
  program.max_clients = 3;
  program.concurrent = true;
  program.queue_timeout = 9;
  program.once = true;
  program.trust_fabric_addrs = true;
  program.no_qperf = true;
  program.max_time = 20;
  ServerOptions options = server_options_of(program, 2.5, all_tests());
  EXPECT_EQ(options.port, 4000);
  EXPECT_EQ(options.bind_addr, "127.0.0.1");
  EXPECT_EQ(options.timeout_s, 2.5);
  EXPECT_EQ(options.max_clients, 3);
  EXPECT_TRUE(options.concurrent);
  EXPECT_EQ(options.queue_timeout_s, 9);
  EXPECT_TRUE(options.once);
  EXPECT_TRUE(options.trust_fabric_addrs);
  EXPECT_TRUE(options.no_qperf);
  EXPECT_EQ(options.limits.max_time, 20);
}

TEST(ConfigViews, ADefaultClientHasTheOptionTablesDefaults) {
  ClientConfig config = client_config_of(default_program_options());
  EXPECT_EQ(config.port, 19765);
  EXPECT_EQ(config.wait_server_s, 5);
  EXPECT_EQ(config.bind_addr, "");
  EXPECT_FALSE(config.qperf_server);
  EXPECT_EQ(config.interval_s, 0);
  // The fab_* tools' own defaults are rows of the same table.
  ClientConfig cxi = client_config_of(default_program_options(Dialect::kCxi));
  EXPECT_EQ(cxi.port, 49194);
  EXPECT_EQ(cxi.wait_server_s, 0);
}

// --interval counts only where given: fab_heatsink_check's rows keep 10 s in the same field.
// The client's periodic lines and the reporters' JSON stream read it alike.
TEST(ConfigViews, ClientIntervalOnlyWhereGiven) {
  ProgramOptions program = default_program_options();
  program.interval = 10;
  EXPECT_EQ(client_config_of(program).interval_s, 0);
  EXPECT_EQ(outputs_of(program).interval_s, 0);
  program.given.set(option_of(&ProgramOptions::interval).index);
  EXPECT_EQ(client_config_of(program).interval_s, 10);
  EXPECT_EQ(outputs_of(program).interval_s, 10);
}

}  // namespace
}  // namespace fabperf
