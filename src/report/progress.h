// Progress on a terminal: "[3/17] tcp_lat msg_size=4096  12.0 s" on standard error, redrawn
// in place (\r) while a sweep or a long run goes on, and cleared before anything else is
// printed. Made only when standard error is a terminal: pipes and files never see it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "engine/test_result.h"

namespace fabperf {

class TerminalProgress {
 public:
  // Draws to `fd` (standard error). A lone run is shown once it has lasted kLongRunS.
  explicit TerminalProgress(int fd);
  ~TerminalProgress();

  // Run `index` (0-based) of `total` begins; shown as "[index+1/total] label".
  void begin(size_t index, size_t total, std::string label);
  // Clears the line and stops drawing until resume() or the next begin().
  void pause();
  void resume();
  // The run is over: clears the line; nothing is drawn until the next begin().
  void end();

  static constexpr double kLongRunS = 1.0;
  static constexpr int kRedrawMs = 250;

  // The line's text (no \r): for the tests.
  static std::string line(size_t index, size_t total, const std::string& label, double elapsed_s);

 private:
  void loop();
  void draw_locked();
  void clear_locked();

  int fd_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool quit_ = false, active_ = false, paused_ = false, shown_ = false;
  size_t index_ = 0, total_ = 0;
  std::string label_;
  int64_t started_ns_ = 0;
  std::thread thread_;
};

// A progress display when `fd` is a terminal, else nullptr.
std::unique_ptr<TerminalProgress> make_terminal_progress(int fd);

// The label of a run: its test and its loop values ("tcp_lat msg_size=4 KiB").
std::string progress_label(const TestResult& pending);

}  // namespace fabperf
