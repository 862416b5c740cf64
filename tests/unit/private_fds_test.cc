// Unit tests: a measuring thread's private descriptor table (core/private_fds.h). The thread
// keeps what it was told to and nothing else, the rest of the process is untouched, and a
// descriptor another thread closes is really closed (its peer sees EOF) while the thread runs.
#include "core/private_fds.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <future>
#include <memory>
#include <thread>

#include "socket_pair.h"

namespace fabperf {
namespace {

// Whether `fd` reads EOF within a few seconds (its peer's socket closed everywhere).
bool sees_eof(int fd) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, 5000) != 1) return false;
  char c;
  return read(fd, &c, 1) == 0;
}

TEST(PrivateFds, TheThreadKeepsWhatItNamesAndTheProcessKeepsEverything) {
  SocketPair kept, other;
  bool took = false, kept_open = false, other_open = true, stderr_open = false;
  std::thread([&] {
    took = take_private_fds({kept.a, kept.b});
    kept_open = open_here(kept.a) && open_here(kept.b);
    other_open = open_here(other.a);
    stderr_open = open_here(STDERR_FILENO);
    // The kept socket still works from this thread.
    EXPECT_EQ(write(kept.a, "x", 1), 1);
    char c = 0;
    EXPECT_EQ(read(kept.b, &c, 1), 1);
    drop_private_fds();
  }).join();
  ASSERT_TRUE(took);
  EXPECT_TRUE(kept_open);
  EXPECT_FALSE(other_open) << "a descriptor not named stayed open in the thread's table";
  EXPECT_TRUE(stderr_open);
  // The process's own table is untouched, including what the thread dropped.
  EXPECT_TRUE(open_here(other.a));
  EXPECT_TRUE(open_here(kept.a));
  EXPECT_EQ(write(other.a, "y", 1), 1);
}

TEST(PrivateFds, ASocketAnotherThreadClosesIsClosedWhileTheThreadRuns) {
  // A server runs sessions as threads: one session's close must not wait for another
  // session's measuring thread to end.
  SocketPair mine, theirs;
  std::promise<void> ready, done;
  std::thread t([&] {
    EXPECT_TRUE(take_private_fds({mine.a}));
    ready.set_value();
    done.get_future().wait();
    drop_private_fds();
  });
  ready.get_future().wait();
  close(theirs.a);
  theirs.a = -1;
  EXPECT_TRUE(sees_eof(theirs.b)) << "the thread's copy held the closed socket open";
  done.set_value();
  t.join();
}

TEST(PrivateFds, DroppingClosesTheThreadsCopiesBeforeItEnds) {
  SocketPair mine;
  std::promise<void> dropped, done;
  std::thread t([&] {
    EXPECT_TRUE(take_private_fds({mine.a}));
    drop_private_fds();
    EXPECT_FALSE(open_here(mine.a));
    dropped.set_value();
    done.get_future().wait();
  });
  dropped.get_future().wait();
  close(mine.a);
  mine.a = -1;
  EXPECT_TRUE(sees_eof(mine.b)) << "the thread's copy outlived drop_private_fds";
  done.set_value();
  t.join();
}

TEST(PrivateFds, DescriptorsBelowStderrAndDuplicatesInKeepAreHarmless) {
  SocketPair kept;
  bool took = false, open_after = false;
  std::thread([&] {
    took = take_private_fds({-1, 0, kept.a, kept.a, 2});
    open_after = open_here(kept.a);
    drop_private_fds();
  }).join();
  EXPECT_TRUE(took);
  EXPECT_TRUE(open_after);
}

// The signal thread and the stuck-call watch step off a loop's table this way: they keep
// what was open (a callback may need it), miss what opens later, and hold a socket the process
// closes open until they drop the copy.
TEST(PrivateFds, ATableCopyKeepsWhatWasOpenMissesWhatOpensLaterAndDropsAtTheEnd) {
  auto before = std::make_unique<SocketPair>();
  int later_fd = -1;
  bool took = false, before_open = false, later_open = true;
  std::promise<void> copied, opened, closed, dropped;
  std::thread t([&] {
    took = take_fd_table_copy();
    before_open = open_here(before->a);
    copied.set_value();
    opened.get_future().wait();
    later_open = open_here(later_fd);
    closed.get_future().wait();
    drop_private_fds();
    dropped.set_value();
  });
  copied.get_future().wait();
  SocketPair later;
  later_fd = later.a;
  opened.set_value();
  // The process closes its end; the copy holds it open until dropped.
  close(before->a);
  before->a = -1;
  pollfd p{before->b, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 100), 0) << "the copy did not hold the socket open";
  closed.set_value();
  dropped.get_future().wait();
  EXPECT_TRUE(sees_eof(before->b)) << "drop_private_fds left the copy's socket open";
  t.join();
  ASSERT_TRUE(took);
  EXPECT_TRUE(before_open);
  EXPECT_FALSE(later_open) << "a descriptor opened after the copy showed in it";
  EXPECT_TRUE(open_here(later.a));
}

}  // namespace
}  // namespace fabperf
