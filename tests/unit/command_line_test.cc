// Unit tests: qperf's grammar, the option table's spellings, loops and parameter resolution.
#include "cli/command_line.h"

#include <gtest/gtest.h>

#include <set>

#include "app/all_tests.h"
#include "app/mode_table.h"
#include "cli/help.h"
#include "cli/run_plan.h"
#include "options/run_options_json.h"

namespace fabperf {
namespace {

Result<CommandLine> parse(std::vector<std::string> args) {
  return parse_command_line(args, all_tests().names());
}

const Assignment* find(const std::vector<Assignment>& list, const std::string& name) {
  for (const Assignment& a : list) {
    if (name == a.spec->name) return &a;
  }
  return nullptr;
}

TEST(CommandLine, HostThenTestsWithPositionalOptions) {
  auto cl = parse({"node1", "-m", "1K", "tcp_lat", "-m", "2k", "tcp_bw"});
  ASSERT_TRUE(cl.ok()) << cl.status().message();
  EXPECT_EQ(cl->host, "node1");
  ASSERT_EQ(cl->tests.size(), 2u);
  EXPECT_EQ(std::get<uint64_t>(cl->tests[0].assignments.back().value), 1024u);
  EXPECT_EQ(cl->tests[0].assignments.size(), 1u);  // options after tcp_lat belong to tcp_bw
  EXPECT_EQ(std::get<uint64_t>(cl->tests[1].assignments.back().value), 2000u);
}

TEST(CommandLine, TrailingOptionsApplyToEveryTest) {
  auto cl = parse({"node1", "tcp_lat", "udp_lat", "-n", "7"});
  ASSERT_TRUE(cl.ok());
  for (const TestRequest& t : cl->tests) {
    const Assignment* n = find(t.assignments, "no_msgs");
    ASSERT_NE(n, nullptr) << t.name;
    EXPECT_EQ(std::get<uint64_t>(n->value), 7u);
  }
}

TEST(CommandLine, QperfMultiLetterSpellings) {
  auto cl = parse({"h",    "-lp",  "4000", "-vvu", "-cp1", "-lcp1", "-rcp",   "0",
                   "-ar1", "-lca", "1",    "-rca", "any",  "-lto",  "3",      "-rto",
                   "4s",   "-uu",  "-un",  "-ub",  "-e",   "5",     "tcp_lat"});
  ASSERT_TRUE(cl.ok()) << cl.status().message();
  const auto& as = cl->tests[0].assignments;
  EXPECT_EQ(std::get<uint64_t>(find(as, "listen_port")->value), 4000u);
  EXPECT_TRUE(cl->program.verbose_more_used);
  EXPECT_TRUE(cl->program.verbose_used);  // implied by -vvu
  EXPECT_FALSE(cl->program.verbose_stat);
  EXPECT_TRUE(cl->program.unify_units);
  EXPECT_EQ(cl->program.precision, 5);
  std::vector<std::string> warnings;
  auto params = resolve_run(*all_tests().find("tcp_lat"), as, {}, Dialect::kQperf, &warnings);
  ASSERT_TRUE(params.ok()) << params.status().message();
  EXPECT_TRUE(params->local.cq_poll);
  EXPECT_FALSE(params->remote.cq_poll);
  EXPECT_TRUE(params->local.access_recv);
  EXPECT_EQ(params->local.cpu_affinity, "1");
  EXPECT_EQ(params->remote.cpu_affinity, "any");
  EXPECT_DOUBLE_EQ(params->local.timeout, 3);
  EXPECT_DOUBLE_EQ(params->remote.timeout, 4);
  EXPECT_TRUE(warnings.empty());
}

TEST(CommandLine, LongFormsWithEqualsAndLocRem) {
  auto cl = parse({"h", "--msg_size=64K", "--loc_sock_buf_size", "1M", "--rem_sock_buf_size=2M",
                   "--time", "1m", "tcp_bw"});
  ASSERT_TRUE(cl.ok()) << cl.status().message();
  auto params = resolve_run(*all_tests().find("tcp_bw"), cl->tests[0].assignments, {},
                            Dialect::kQperf, nullptr);
  ASSERT_TRUE(params.ok());
  EXPECT_EQ(params->local.msg_size, 65536u);
  EXPECT_EQ(params->local.sock_buf_size, 1048576u);
  EXPECT_EQ(params->remote.sock_buf_size, 2097152u);
  EXPECT_DOUBLE_EQ(params->local.time, 60);
  EXPECT_TRUE(given(params->local, &RunOptions::msg_size));
  EXPECT_FALSE(given(params->local, &RunOptions::no_msgs));
}

TEST(CommandLine, TestDefaultsForMessageSize) {
  for (const auto& [test, size] : std::vector<std::pair<std::string, uint64_t>>{
           {"tcp_lat", 1}, {"tcp_bw", 65536}, {"udp_bw", 32768}, {"udp_lat", 1}}) {
    auto params = resolve_run(*all_tests().find(test), {}, {}, Dialect::kQperf, nullptr);
    ASSERT_TRUE(params.ok());
    EXPECT_EQ(params->local.msg_size, size) << test;
    EXPECT_EQ(params->remote.msg_size, size) << test;
  }
}

TEST(CommandLine, SetButNotUsedWarningNamesTheSpelling) {
  auto cl = parse({"h", "--verify", "-sl", "2", "tcp_lat"});
  ASSERT_TRUE(cl.ok());
  std::vector<std::string> warnings;
  ASSERT_TRUE(resolve_run(*all_tests().find("tcp_lat"), cl->tests[0].assignments, {},
                          Dialect::kQperf, &warnings)
                  .ok());
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "warning: --verify set but not used in test tcp_lat");
  EXPECT_EQ(warnings[1], "warning: -sl set but not used in test tcp_lat");
}

// The client (run_plan) and the server (serve_run) pin every test's side to its -lca/-rca
// before the test starts, so no measuring test may call them "set but not used": every fabric
// test did, while its sides ran where they were told.
TEST(CommandLine, EveryMeasuringTestUsesTheCpuAffinity) {
  auto cl = parse({"h", "-lca", "0", "-rca", "1", "tcp_lat"});
  ASSERT_TRUE(cl.ok());
  for (const TestSpec* test : all_tests().all()) {
    // conf and quit measure nothing; uc and xrc rows run nothing (libfabric has neither).
    const std::string transport = test->transport;
    if (test->kind == TestKind::kMisc || transport == "uc" || transport == "xrc") continue;
    std::vector<std::string> warnings;
    ASSERT_TRUE(resolve_run(*test, cl->tests[0].assignments, {}, Dialect::kQperf, &warnings).ok())
        << test->name;
    EXPECT_TRUE(warnings.empty()) << test->name << ": " << (warnings.empty() ? "" : warnings[0]);
  }
}

TEST(CommandLine, Errors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"h", "foo_lat"}, "foo_lat: bad test"},
           {{"h", "-xyz"}, "-xyz: bad option"},
           {{"h", "-m", "12Q", "tcp_lat"}, "-m: bad size: 12Q"},
           {{"h", "tcp_lat", "-m"}, "missing argument to -m"},
           {{"h", "-t", "-1", "tcp_lat"}, "-t:"},
           {{"h", "-lp", "0"}, "-lp:"},
           {{"h", "-e", "99"}, "-e:"},
           {{"h", "--poll=1"}, "takes no argument"},
           {{"h", "-oo", "nope:1:2", "tcp_lat"}, "unknown loop variable"},
           {{"h", "-oo", "msg_size:1", "tcp_lat"}, "Var:Init:Last:Incr"},
           {{"h", "-oo", "msg_size:1:8:*1", "tcp_lat"}, "multiplier"},
           {{"h", "-oo", "msg_size:1:100000000:1", "tcp_lat"}, "more than"},
       }) {
    auto cl = parse(c.args);
    ASSERT_FALSE(cl.ok()) << c.args.back();
    EXPECT_EQ(cl.status().code(), Code::kUsage);
    EXPECT_NE(cl.status().message().find(c.message), std::string::npos)
        << cl.status().message() << " vs " << c.message;
  }
}

TEST(CommandLine, LoopExpansion) {
  auto loop = parse_loop("msg_size:1:64K:*2");
  ASSERT_TRUE(loop.ok());
  ASSERT_EQ(loop->values.size(), 17u);
  EXPECT_EQ(std::get<uint64_t>(loop->values.back()), 65536u);
  auto additive = parse_loop("m:1K:4K:1K");
  ASSERT_TRUE(additive.ok());
  ASSERT_EQ(additive->values.size(), 4u);
  EXPECT_EQ(std::get<uint64_t>(additive->values[3]), 4096u);
  auto times = parse_loop("time:1:3:1");
  ASSERT_TRUE(times.ok());
  EXPECT_DOUBLE_EQ(std::get<double>(times->values[2]), 3);
  auto runs = expand_loops({*additive, *times});
  ASSERT_EQ(runs.size(), 12u);
  EXPECT_EQ(std::get<uint64_t>(runs[11][0].value), 4096u);
  EXPECT_DOUBLE_EQ(std::get<double>(runs[11][1].value), 3);
}

TEST(CommandLine, SixtyFourBitSizes) {
  auto cl = parse({"h", "-m", "5G", "tcp_bw"});
  ASSERT_TRUE(cl.ok());
  EXPECT_EQ(std::get<uint64_t>(cl->tests[0].assignments[0].value), 5ull * 1024 * 1024 * 1024);
}

TEST(CommandLine, HelpTakesATopic) {
  auto cl = parse({"--help", "tests"});
  ASSERT_TRUE(cl.ok());
  EXPECT_TRUE(cl->program.help);
  EXPECT_EQ(cl->help_topic, "tests");
}

// A run option crosses the wire, and the server refuses terminal controls and bytes that are
// not UTF-8 in it: the client refuses them first, by name, rather than send a run the server
// must turn away (the command-line fuzzer found "-sr" with a stray 0xd3 byte).
TEST(CommandLine, RunOptionTextThatIsNotPrintableIsRefused) {
  for (const char* bad : {"mms-p\xd3g", "\x1b[2Jx", "a\nb"}) {
    auto cl = parse({"node1", "-sr", bad, "udp_bw"});
    ASSERT_FALSE(cl.ok()) << bad;
    EXPECT_NE(cl.status().message().find("-sr holds control characters or bytes that are not "
                                         "UTF-8"),
              std::string::npos)
        << cl.status().message();
    EXPECT_EQ(cl.status().message().find('\x1b'), std::string::npos);
  }
  EXPECT_TRUE(parse({"node1", "-sr", "caf\xc3\xa9", "udp_bw"}).ok());  // UTF-8 is text
  // A program option (a local file name) is the user's own and not sent: left as typed.
  EXPECT_TRUE(parse({"node1", "--json", "out\xd3.json", "udp_bw"}).ok());
}

TEST(RunOptionsJson, RoundTripAndRejection) {
  auto params = resolve_run(*all_tests().find("tcp_lat"), {}, {}, Dialect::kQperf, nullptr);
  ASSERT_TRUE(params.ok());
  auto back = run_options_from_json(to_json(params->remote));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->msg_size, 1u);
  EXPECT_DOUBLE_EQ(back->time, 2);
  EXPECT_FALSE(run_options_from_json({{"no_such_option", 1}}).ok());
  EXPECT_FALSE(run_options_from_json({{"msg_size", "12Q"}}).ok());
  EXPECT_FALSE(run_options_from_json({{"msg_size", -5}}).ok());
  EXPECT_FALSE(run_options_from_json({{"msg_size", nlohmann::json::array()}}).ok());
  EXPECT_FALSE(run_options_from_json({{"atomic_op", "NAND"}}).ok());  // not one of the choices
  EXPECT_FALSE(run_options_from_json({{"use_hp", "4M"}}).ok());
  EXPECT_FALSE(run_options_from_json({{"json", "/etc/passwd"}}).ok());  // client-only: never
  EXPECT_FALSE(run_options_from_json(nlohmann::json::array()).ok());
  auto defaults = run_options_from_json(nlohmann::json::object());
  ASSERT_TRUE(defaults.ok());
  EXPECT_DOUBLE_EQ(defaults->timeout, 5);
  auto lower = run_options_from_json({{"atomic_op", "cswap"}});
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(lower->atomic_op, "CSWAP");  // stored as the table lists it
}

TEST(CommandLine, HostForgottenSaysSo) {
  auto cl = parse({"-lp", "4000", "-t", "1", "tcp_lat"});
  ASSERT_FALSE(cl.ok());
  EXPECT_EQ(cl.status().message(), "must specify host name first; try: fabperf --help");
}

TEST(CommandLine, ZeroMessageSizeIsRefusedByName) {
  auto cl = parse({"h", "-m", "0", "tcp_lat"});
  ASSERT_TRUE(cl.ok());
  auto plan = plan_runs(*cl, all_tests());
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("-m 0"), std::string::npos) << plan.status().message();
}

TEST(CommandLine, LongOptionsTakeHyphensToo) {
  auto cl = parse({"h", "--msg-size", "8", "--cq-poll", "1", "tcp_lat"});
  ASSERT_TRUE(cl.ok()) << cl.status().message();
  auto plan = plan_runs(*cl, all_tests());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->at(0).params.local.msg_size, 8u);
  EXPECT_TRUE(plan->at(0).params.local.cq_poll);
}

// --repeat: the plan round after round, each measuring run numbered; conf and quit once, at
// the end, so quit still ends the session; the cap on runs counts the repetitions.
TEST(CommandLine, RepeatRunsThePlanInRounds) {
  auto cl = parse({"h", "--repeat", "3", "tcp_lat", "udp_lat", "conf", "quit"});
  ASSERT_TRUE(cl.ok()) << cl.status().message();
  EXPECT_EQ(cl->program.repeat, 3u);
  auto plan = plan_runs(*cl, all_tests());
  ASSERT_TRUE(plan.ok());
  auto rounds = repeat_plan(*plan, cl->program.repeat);
  ASSERT_TRUE(rounds.ok()) << rounds.status().message();
  std::vector<std::string> order;
  for (const PlannedRun& r : *rounds) {
    order.push_back(std::string(r.spec->name) + " " + std::to_string(r.repetition) + "/" +
                    std::to_string(r.repetitions));
  }
  EXPECT_EQ(order,
            (std::vector<std::string>{"tcp_lat 1/3", "udp_lat 1/3", "tcp_lat 2/3", "udp_lat 2/3",
                                      "tcp_lat 3/3", "udp_lat 3/3", "conf 1/1", "quit 1/1"}));
  auto once = repeat_plan(*plan, 1);
  ASSERT_TRUE(once.ok());
  EXPECT_EQ(once->size(), plan->size());
  EXPECT_EQ(once->at(0).repetitions, 1u);
  auto many = repeat_plan(std::vector<PlannedRun>(20, plan->at(0)), 1000);
  ASSERT_FALSE(many.ok());
  EXPECT_NE(many.status().message().find("--repeat 1000"), std::string::npos);
  EXPECT_FALSE(parse({"h", "--repeat", "0", "tcp_lat"}).ok());
}

TEST(Options, EverySpellingIsUniqueAndResolvable) {
  std::set<std::string> seen;
  for (const Spelling& s : qperf_spellings()) {
    EXPECT_TRUE(seen.insert(s.text).second) << "duplicate spelling " << s.text;
    EXPECT_EQ(find_qperf_spelling(s.text), &s);
  }
  for (const OptionSpec& spec : option_table()) {
    if (spec.type == OptType::kLoop) continue;
    for (Dialect d : {Dialect::kQperf, Dialect::kCxi}) {
      // A positive option's default 0 means "off": a user may not type it, the table may.
      if (spec.positive && std::string_view(spec.default_for(d)) == "0") continue;
      EXPECT_TRUE(parse_option_value(spec, spec.default_for(d), spec.name).ok()) << spec.name;
    }
  }
}

// The typed structs and the table agree: every field has exactly one row, which names it.
TEST(Options, EveryFieldHasOneRow) {
  size_t fields = 0;
#define FABPERF_CHECK(type, name)                            \
  {                                                          \
    ++fields;                                                \
    const OptionSpec* spec = find_option(#name);             \
    ASSERT_NE(spec, nullptr) << #name;                       \
    EXPECT_EQ(&option_of(&RunOptions::name), spec) << #name; \
    EXPECT_TRUE(spec->is_run_option()) << #name;             \
  }
  FABPERF_RUN_OPTION_FIELDS(FABPERF_CHECK)
#undef FABPERF_CHECK
#define FABPERF_CHECK(type, name)                                \
  {                                                              \
    ++fields;                                                    \
    const OptionSpec* spec = find_option(#name);                 \
    ASSERT_NE(spec, nullptr) << #name;                           \
    EXPECT_EQ(&option_of(&ProgramOptions::name), spec) << #name; \
    EXPECT_FALSE(spec->is_run_option()) << #name;                \
  }
  FABPERF_PROGRAM_OPTION_FIELDS(FABPERF_CHECK)
#undef FABPERF_CHECK
  size_t rows_with_fields = 0;
  for (const OptionSpec& spec : option_table()) {
    if (!std::holds_alternative<std::monostate>(spec.field)) ++rows_with_fields;
  }
  EXPECT_EQ(rows_with_fields, fields);
  EXPECT_LE(option_table().size(), kMaxOptions);
}

// Typed values land in their fields and come back out, with the dialect's defaults.
TEST(Options, StoreLoadAndDialectDefaults) {
  RunOptions q = default_run_options(Dialect::kQperf);
  RunOptions c = default_run_options(Dialect::kCxi);
  EXPECT_FALSE(q.cq_poll);
  EXPECT_TRUE(c.cq_poll);  // the fab_* tools busy-poll, as the originals
  EXPECT_EQ(q.latency_gap, 0u);
  EXPECT_EQ(c.latency_gap, 1000u);
  EXPECT_EQ(default_program_options(Dialect::kCxi).listen_port, 49194u);
  const OptionSpec& size = option_of(&RunOptions::msg_size);
  store(q, size, uint64_t{4096}, true);
  EXPECT_EQ(q.msg_size, 4096u);
  EXPECT_TRUE(given(q, &RunOptions::msg_size));
  EXPECT_EQ(std::get<uint64_t>(load(q, size)), 4096u);
}

TEST(Options, Nearest) {
  EXPECT_EQ(nearest("tcp_lta", {"tcp_lat", "udp_lat"}), "tcp_lat");
  EXPECT_EQ(nearest("zzzzzzzz", {"tcp_lat", "udp_lat"}), "");
}

// -R is fabperf's --reverse (iperf3's spelling); the fab_* tools' -R stays --rdzv
// (tool_grammar_test.cc): the spellings live in different dialects of the one row table.
TEST(CommandLine, ReverseSpellingsAndTheTestsThatTakeIt) {
  for (const char* spelling : {"-R", "--reverse"}) {
    auto cl = parse({"node1", spelling, "tcp_bw"});
    ASSERT_TRUE(cl.ok()) << spelling << ": " << cl.status().message();
    std::vector<std::string> warnings;
    auto params = resolve_run(*all_tests().find("tcp_bw"), cl->tests[0].assignments, {},
                              Dialect::kQperf, &warnings);
    ASSERT_TRUE(params.ok()) << params.status().message();
    EXPECT_TRUE(params->local.reverse) << spelling;
    EXPECT_TRUE(params->remote.reverse) << spelling;  // shared: the server must turn too
    EXPECT_TRUE(warnings.empty());
    EXPECT_FALSE(params->local.rdzv);
  }
  // A test whose data has one fixed way (or both) says so rather than run silently.
  for (const char* test : {"tcp_lat", "tcp_bi_bw", "rdm_write_bw"}) {
    auto cl = parse({"node1", "-R", test});
    ASSERT_TRUE(cl.ok());
    std::vector<std::string> warnings;
    auto params = resolve_run(*all_tests().find(test), cl->tests[0].assignments, {},
                              Dialect::kQperf, &warnings);
    ASSERT_TRUE(params.ok());
    ASSERT_EQ(warnings.size(), 1u) << test;
    EXPECT_NE(warnings[0].find("-R set but not used"), std::string::npos) << warnings[0];
  }
}

TEST(CommandLine, TwoWaySocketTestsAreRegistered) {
  for (const char* name : {"tcp_bi_bw", "udp_bi_bw"}) {
    const TestSpec* spec = all_tests().find(name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_EQ(spec->kind, TestKind::kBiBandwidth);
    EXPECT_EQ(spec->family, TransportFamily::kSocket);
    RunOptions opts = default_run_options();
    opts.msg_size = 1000;
    Needs needs = needs_of(*spec, opts);
    EXPECT_EQ(needs.threads, 2u);  // one sends, one receives
    EXPECT_EQ(needs.buffer_bytes, 2000u);
  }
}

TEST(CommandLine, AnOutputFileNamedTwiceIsRefused) {
  for (const char* option : {"--json", "--csv", "--html"}) {
    auto cl = parse({"node1", option, "a.out", option, "b.out", "tcp_lat"});
    ASSERT_FALSE(cl.ok()) << option;
    EXPECT_EQ(cl.status().code(), Code::kUsage);
    EXPECT_NE(cl.status().message().find(std::string(option) + " given twice (a.out and b.out)"),
              std::string::npos)
        << cl.status().message();
  }
  EXPECT_TRUE(parse({"node1", "--json", "a.json", "--csv", "a.csv", "tcp_lat"}).ok());
}

// Every help topic fits an 80-column terminal (descriptions wrap), qperf's stayed within 74.
TEST(Help, EveryTopicFitsEightyColumns) {
  std::vector<std::string> topics = {"", "categories", "examples", "opts", "options", "tests"};
  for (const std::string& name : all_tests().names()) topics.push_back(name);
  for (const std::string& topic : topics) {
    auto text = help_text(topic, all_tests(), mode_synopsis());
    ASSERT_TRUE(text.ok()) << topic;
    size_t start = 0, line = 1;
    while (start < text->size()) {
      size_t end = text->find('\n', start);
      if (end == std::string::npos) end = text->size();
      EXPECT_LE(end - start, 80u) << "--help " << topic << " line " << line << ": "
                                  << text->substr(start, end - start);
      start = end + 1;
      ++line;
    }
  }
  // Wrapping keeps every word: the longest option description is still all there.
  auto options = help_text("options", all_tests(), mode_synopsis());
  ASSERT_TRUE(options.ok());
  EXPECT_NE(options->find("iperf3 -R (the fab_* tools' -R is"), std::string::npos) << *options;
}

TEST(Help, ExamplesShowFabricTestsAndTheCxiTools) {
  auto text = help_text("examples", all_tests(), mode_synopsis());
  ASSERT_TRUE(text.ok());
  for (const char* example : {"-P 'tcp;ofi_rxm' rdm_write_lat", "--list-fabrics", "fab_write_lat",
                              "-R tcp_bw", "tcp_bi_bw"}) {
    EXPECT_NE(text->find(example), std::string::npos) << example;
  }
}

}  // namespace
}  // namespace fabperf
