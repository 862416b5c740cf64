// The floor programs' one shared helper: pin the calling process to one CPU, as taskset would
// (-1 leaves it where it is).
#pragma once

#include <sched.h>

inline void pin(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}
