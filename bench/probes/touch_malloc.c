// LD_PRELOAD shim for peers: every malloc()/calloc() block of 64 KiB or more is written once.
//
// qperf sends from a buffer it malloc()s and never writes, so every page of it maps the kernel's
// shared zero page and the kernel's copy into the socket reads one cache-hot 4 KiB page whatever
// the message size. fabperf sends written bytes. Preloading this into qperf's client makes the
// pairing like for like:
//   gcc -O2 -shared -fPIC -o /tmp/touch_malloc.so bench/probes/touch_malloc.c
//   LD_PRELOAD=/tmp/touch_malloc.so qperf 127.0.0.1 -m 1M tcp_bw
// (its resident size grows by the buffer: 2.6 -> 3.7 MB at 1 MiB, which shows it took).
#include <stddef.h>
#include <string.h>

extern void* __libc_malloc(size_t);
extern void* __libc_calloc(size_t, size_t);

enum { kTouchFrom = 64 * 1024 };

void* malloc(size_t n) {
  void* p = __libc_malloc(n);
  if (p && n >= kTouchFrom) memset(p, 'a', n);
  return p;
}

void* calloc(size_t count, size_t size) {
  void* p = __libc_calloc(count, size);
  if (p && count * size >= kTouchFrom) memset(p, 'a', count * size);
  return p;
}
