// Display choices from the program options.
#include "options/display_options.h"

namespace fabperf {

DisplayOptions display_of(const ProgramOptions& p) {
  DisplayOptions d;
  d.precision = static_cast<int>(p.precision);
  d.unify_units = p.unify_units;
  d.unify_nodes = p.unify_nodes;
  d.bits = p.use_bits_per_sec;
  d.conf = p.verbose_conf;
  d.stat = p.verbose_stat;
  d.time = p.verbose_time;
  d.used = p.verbose_used;
  d.more_conf = p.verbose_more_conf;
  d.more_stat = p.verbose_more_stat;
  d.more_time = p.verbose_more_time;
  d.more_used = p.verbose_more_used;
  return d;
}

}  // namespace fabperf
