// The terminal progress line: a thread redraws it; every other output pauses it first.
#include "report/progress.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "core/clock.h"
#include "options/option_table.h"

namespace fabperf {

namespace {

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;  // a terminal gone: nothing to show it on
    done += static_cast<size_t>(n);
  }
}

std::string size_text(uint64_t v) {
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  return std::to_string(v) + " " + units[u];
}

}  // namespace

TerminalProgress::TerminalProgress(int fd) : fd_(fd), thread_([this] { loop(); }) {}

TerminalProgress::~TerminalProgress() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    clear_locked();
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

std::string TerminalProgress::line(size_t index, size_t total, const std::string& label,
                                   double elapsed_s) {
  char time[32];
  std::snprintf(time, sizeof time, "%.1f s", elapsed_s);
  return "[" + std::to_string(index + 1) + "/" + std::to_string(total) + "] " + label + "  " + time;
}

void TerminalProgress::begin(size_t index, size_t total, std::string label) {
  std::lock_guard<std::mutex> lock(mu_);
  clear_locked();
  index_ = index;
  total_ = total;
  label_ = std::move(label);
  started_ns_ = now_ns();
  active_ = true;
  paused_ = false;
  if (total_ > 1) draw_locked();
}

void TerminalProgress::pause() {
  std::lock_guard<std::mutex> lock(mu_);
  clear_locked();
  paused_ = true;
}

void TerminalProgress::end() {
  std::lock_guard<std::mutex> lock(mu_);
  clear_locked();
  active_ = false;
}

void TerminalProgress::resume() {
  std::lock_guard<std::mutex> lock(mu_);
  paused_ = false;
}

void TerminalProgress::draw_locked() {
  if (!active_ || paused_) return;
  double elapsed = static_cast<double>(now_ns() - started_ns_) * 1e-9;
  if (total_ <= 1 && elapsed < kLongRunS) return;
  // \r, the line, and "erase to the end of the line" (a shorter line leaves nothing behind).
  write_all(fd_, "\r" + line(index_, total_, label_, elapsed) + "\x1b[K");
  shown_ = true;
}

void TerminalProgress::clear_locked() {
  if (!shown_) return;
  write_all(fd_, "\r\x1b[K");
  shown_ = false;
}

void TerminalProgress::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!quit_) {
    cv_.wait_for(lock, std::chrono::milliseconds(kRedrawMs));
    if (!quit_) draw_locked();
  }
}

std::unique_ptr<TerminalProgress> make_terminal_progress(int fd) {
  if (::isatty(fd) != 1) return nullptr;
  return std::make_unique<TerminalProgress>(fd);
}

std::string progress_label(const TestResult& pending) {
  std::string out = pending.test;
  for (const auto& [spec, value] : pending.loop_values) {
    out += std::string(" ") + spec->name + "=";
    if (spec->type == OptType::kSize && std::holds_alternative<uint64_t>(value)) {
      out += size_text(std::get<uint64_t>(value));
    } else {
      out += option_value_text(value);
    }
  }
  if (pending.repetitions > 1) {
    out += " repetition " + std::to_string(pending.repetition) + "/" +
           std::to_string(pending.repetitions);
  }
  return out;
}

}  // namespace fabperf
