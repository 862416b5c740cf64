// Unit tests: the habits users bring (iperf3's spellings get a hint, -t beside -n, qperf's
// "set but not used" on conf, display options positional), and the sweep table.
#include <gtest/gtest.h>

#include "app/all_tests.h"
#include "cli/command_line.h"
#include "cli/run_plan.h"
#include "options/spellings.h"
#include "report/sweep_table.h"

namespace fabperf {
namespace {

Result<CommandLine> parse(std::vector<std::string> args) {
  return parse_command_line(args, all_tests().names());
}

std::string usage_error(std::vector<std::string> args) {
  auto cl = parse(args);
  if (cl.ok()) return "(accepted)";
  EXPECT_EQ(cl.status().code(), Code::kUsage);
  return cl.status().message();
}

TEST(Habits, Iperf3SpellingsGetAHint) {
  EXPECT_EQ(usage_error({"h", "-P", "4", "-t", "0.3", "tcp_bw"}),
            "-P 4: did you mean --streams 4? (-P is the libfabric provider); try: fabperf "
            "--help options");
  EXPECT_EQ(usage_error({"h", "-i", "1", "tcp_bw"}),
            "-i 1: did you mean --interval 1? (-i is the RDMA device); try: fabperf --help "
            "options");
  EXPECT_NE(usage_error({"h", "-J", "tcp_bw"}).find("-J: bad option (did you mean --json -?"),
            std::string::npos);
  EXPECT_NE(usage_error({"h", "-b", "1G", "udp_bw"}).find("did you mean --udp_rate 1G?"),
            std::string::npos);
  EXPECT_NE(usage_error({"-c", "node2", "tcp_bw"}).find("did you mean fabperf HOST TESTS?"),
            std::string::npos);
  EXPECT_NE(usage_error({"-s"}).find("did you mean fabperf with no host?"), std::string::npos);
  EXPECT_NE(usage_error({"h", "-O", "2", "tcp_bw"}).find("did you mean --omit 2?"),
            std::string::npos);
  // A provider or a device by name stays what it is.
  EXPECT_TRUE(parse({"h", "-P", "tcp", "rdm_send_lat"}).ok());
  EXPECT_TRUE(parse({"h", "-i", "mlx5_0:1", "rc_lat"}).ok());
}

// No hint may hide an option of ours: every hinted token is no spelling, or (the numeric
// ones) a spelling whose value is never a bare number.
TEST(Habits, HintsNeverShadowASpelling) {
  for (const char* token : {"-J", "-b", "-O", "-c", "-s", "-p", "-l", "-w", "-N", "-u"}) {
    EXPECT_EQ(find_qperf_spelling(token), nullptr) << token;
  }
  ASSERT_NE(find_qperf_spelling("-P"), nullptr);
  EXPECT_EQ(std::string(find_qperf_spelling("-P")->spec->name), "provider");
  EXPECT_EQ(std::string(find_qperf_spelling("-i")->spec->name), "id");
}

std::vector<std::string> warnings_of(std::vector<std::string> args, size_t test = 0) {
  auto cl = parse(args);
  EXPECT_TRUE(cl.ok()) << cl.status().message();
  std::vector<std::string> warnings;
  const TestRequest& req = cl->tests.at(test);
  auto params =
      resolve_run(*all_tests().find(req.name), req.assignments, {}, Dialect::kQperf, &warnings);
  EXPECT_TRUE(params.ok()) << params.status().message();
  return warnings;
}

// -t and -n together: -n governs, and the run says so rather than showing -t as its time.
TEST(Habits, TimeBesideCountSaysWhichGoverns) {
  auto w = warnings_of({"h", "-t", "0.1", "-n", "50000", "tcp_lat"});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "warning: -t set but not used in test tcp_lat: -n 50000 governs (a run is "
            "limited by a count or a time, not both)");
  EXPECT_TRUE(warnings_of({"h", "-n", "500", "tcp_lat"}).empty());
  EXPECT_TRUE(warnings_of({"h", "-t", "1", "tcp_lat"}).empty());
}

// README: "Options a test does not use draw `warning: -n set but not used in test conf`".
TEST(Habits, ConfWarnsOfOptionsItDoesNotUse) {
  auto w = warnings_of({"h", "-n", "5", "conf"});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "warning: -n set but not used in test conf");
  EXPECT_EQ(warnings_of({"h", "-m", "5", "quit"}).size(), 1u);
}

TEST(Habits, OmitNeedsATimedRun) {
  auto cl = parse({"h", "--omit", "1", "-n", "100", "tcp_bw"});
  ASSERT_TRUE(cl.ok());
  auto plan = plan_runs(*cl, all_tests());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), Code::kUsage);
  EXPECT_NE(plan.status().message().find("--omit"), std::string::npos);
  std::vector<std::string> warnings;
  EXPECT_FALSE(warnings_of({"h", "--omit", "1", "tcp_lat"}).empty());  // not a latency option
}

// qperf's display options are positional: a -v between two tests changes the second only.
TEST(Habits, DisplayOptionsArePositional) {
  auto cl = parse({"h", "-t", "0.2", "tcp_lat", "-vs", "tcp_bw", "-vu", "udp_bw", "-e", "5"});
  ASSERT_TRUE(cl.ok());
  auto plan = plan_runs(*cl, all_tests());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->size(), 3u);
  ASSERT_TRUE((*plan)[0].display.has_value());
  EXPECT_FALSE((*plan)[0].display->stat);
  EXPECT_TRUE((*plan)[1].display->stat);  // -vs before tcp_bw
  EXPECT_FALSE((*plan)[1].display->used);
  EXPECT_TRUE((*plan)[2].display->stat);  // still in force
  EXPECT_TRUE((*plan)[2].display->used);
  // Options after the last test apply to every test (fabperf keeps them; qperf drops them).
  for (const PlannedRun& run : *plan) EXPECT_EQ(run.display->precision, 5);
}

TEST(SweepTable, OneRowPerValueAndAColumnPerFigure) {
  const OptionSpec& size = option_of(&RunOptions::msg_size);
  SweepTable table;
  table.title = "tcp_lat";
  FormatOptions format;
  auto line = [&](const char* name, double v, Unit unit) {
    return Line{name, format_figure(v, unit, format)};
  };
  EXPECT_TRUE(table.fits({{&size, uint64_t{1}}}));
  table.add({{&size, uint64_t{1}}}, {line("latency", 5.14e-6, Unit::kTime)});
  table.add({{&size, uint64_t{65536}}},
            {line("latency", 1.2e-3, Unit::kTime), line("msg_rate", 833, Unit::kRate)});
  EXPECT_FALSE(table.fits({{&size, uint64_t{1}}}));  // a second sweep: a table of its own
  EXPECT_TRUE(table.fits({{&size, uint64_t{4}}}));
  EXPECT_EQ(table.render(),
            "tcp_lat:\n"
            "    msg_size   latency   msg_rate\n"
            "           1   5.14 us\n"
            "       65536    1.2 ms   833 /sec\n");
}

}  // namespace
}  // namespace fabperf
