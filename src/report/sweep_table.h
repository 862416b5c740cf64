// A loop's runs (-oo msg_size:1:64K:*2 without -vu) as one table, as perftest and OSU print a
// sweep: a row per loop value, a column per figure the test's block would show.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "options/option_table.h"
#include "report/qperf_format.h"

namespace fabperf {

class SweepTable {
 public:
  using LoopValues = std::vector<std::pair<const OptionSpec*, OptionValue>>;

  std::string title;                           // the test
  std::vector<std::vector<std::string>> rows;  // loop values' texts, then the cells

  // Whether a run with these loop values belongs here: the same loop variables, and a value
  // the table has not had (a second sweep of the same test starts a table of its own).
  bool fits(const LoopValues& values) const;
  // A row: the run's loop values and the lines its block would have shown.
  void add(const LoopValues& values, const std::vector<Line>& lines);
  // "title:" then a header and the rows, each column right-aligned to its widest cell.
  std::string render() const;

 private:
  std::vector<const OptionSpec*> vars_;
  std::vector<std::string> columns_;  // the figures' names, in the order they first came
  std::vector<std::vector<std::string>> keys_;
};

}  // namespace fabperf
