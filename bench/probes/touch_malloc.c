// LD_PRELOAD shim for peers: every malloc()/calloc() block of 64 KiB or more is written once
// (TOUCH_MALLOC_FROM=N in the environment: of N bytes or more).
//
// qperf sends from a buffer it malloc()s and never writes, so every page of it maps the kernel's
// shared zero page and the kernel's copy into the socket reads one cache-hot 4 KiB page whatever
// the message size. fabperf sends written bytes. Preloading this into qperf's client makes the
// pairing like for like:
//   gcc -O2 -shared -fPIC -o /tmp/touch_malloc.so bench/probes/touch_malloc.c
//   LD_PRELOAD=/tmp/touch_malloc.so qperf 127.0.0.1 -m 1M tcp_bw
// (its resident size grows by the buffer: 2.6 -> 3.7 MB at 1 MiB, which shows it took).
// A message smaller than 64 KiB needs the lower threshold (TOUCH_MALLOC_FROM=200 for 256 B).
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);

// getenv allocates nothing, so it is safe here; read once.
static size_t touch_from(void) {
  static size_t from = 0;
  if (from == 0) {
    const char* s = getenv("TOUCH_MALLOC_FROM");
    unsigned long v = s != NULL ? strtoul(s, NULL, 10) : 0;
    from = v > 0 ? v : 64 * 1024;
  }
  return from;
}

void* malloc(size_t n) {
  void* p = __libc_malloc(n);
  if (p && n >= touch_from()) memset(p, 'a', n);
  return p;
}

void* calloc(size_t count, size_t size) {
  void* p = __libc_calloc(count, size);
  if (p && count * size >= touch_from()) memset(p, 'a', count * size);
  return p;
}
