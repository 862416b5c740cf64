// Unit tests: a measured loop's own thread (engine/measuring_thread.h). The body runs on
// another thread whose table holds the test's data descriptors, the control channel's and
// the reporters' sink descriptors, and no other; its status and its exceptions come back.
#include "engine/measuring_thread.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

#include "net/control.h"
#include "options/option_table.h"
#include "socket_pair.h"

namespace fabperf {
namespace {

Status no_role(TestContext&) { return Status::success(); }

// A context on one end of a socketpair, standing for the control connection.
struct Context {
  TestSpec spec{"t",    TransportFamily::kSocket, TestKind::kLatency, "tcp", "", {}, 1, no_role,
                no_role};
  RunOptions opts = default_run_options();
  SocketPair control_pair;
  ControlChannel channel;
  TestContext ctx;
  explicit Context(Role role)
      : channel(dup(control_pair.a)), ctx(role, spec, opts, channel, "127.0.0.1") {}
};

TEST(MeasuringThread, TheBodyRunsOnAnotherThreadAndItsStatusComesBack) {
  Context c(Role::kClient);
  std::thread::id body_thread;
  Status s = run_measuring_thread(c.ctx, {}, [&] {
    body_thread = std::this_thread::get_id();
    return Status::failed("the body's failure");
  });
  EXPECT_NE(body_thread, std::this_thread::get_id());
  EXPECT_EQ(s.code(), Code::kFailed);
  EXPECT_EQ(s.message(), "the body's failure");
}

TEST(MeasuringThread, TheTableHoldsTheDataTheControlAndTheSinksAlone) {
  for (Role role : {Role::kClient, Role::kServer}) {
    Context c(role);
    SocketPair data, sink, other_session;
    c.ctx.sink_fds = {sink.a};
    bool data_open = false, control_open = false, sink_open = false, other_open = true;
    Status s = run_measuring_thread(c.ctx, {data.a}, [&] {
      data_open = open_here(data.a);
      control_open = open_here(c.channel.fd());
      sink_open = open_here(sink.a);
      other_open = open_here(other_session.a);
      return Status::success();
    });
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(data_open);
    EXPECT_TRUE(control_open);
    EXPECT_TRUE(sink_open) << "a reporter's file the loop writes was closed in its table";
    EXPECT_FALSE(other_open) << "the loop held another session's socket";
    // The caller's table is untouched.
    EXPECT_TRUE(open_here(other_session.a));
    EXPECT_TRUE(open_here(data.a));
  }
}

TEST(MeasuringThread, AnExceptionInTheBodyIsThrownToTheCaller) {
  Context c(Role::kServer);
  EXPECT_THROW(run_measuring_thread(
                   c.ctx, {},
                   []() -> Status { throw std::runtime_error("thrown on the measuring thread"); }),
               std::runtime_error);
}

}  // namespace
}  // namespace fabperf
