// The display choices of qperf's grammar (-v family, -e, -un, -uu, -ub), as the text reporter
// reads them. Positional as in qperf: each test run carries the choices seen before it.
#pragma once

#include "options/run_options.h"

namespace fabperf {

struct DisplayOptions {
  int precision = 3;
  bool unify_units = false, unify_nodes = false, bits = false;
  bool conf = false, stat = false, time = false, used = false;
  bool more_conf = false, more_stat = false, more_time = false, more_used = false;
};

// The display choices among `program`'s options.
DisplayOptions display_of(const ProgramOptions& program);

}  // namespace fabperf
