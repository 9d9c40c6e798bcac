/* The shared layout between `locksim live` and liblocksim_preload.so (the
 * library redis-server processes load with LD_PRELOAD, redis_preload.c).
 *
 * Why a file and not a socket or signals: the library must not allocate,
 * lock or call dlsym (Debian's redis-server links jemalloc, which calls the
 * clocks during its own init), so live mode writes a small control block
 * that every redis-server thread reads with plain loads, under a seqlock:
 * `seq` is odd while live mode writes, and a reader retries until it read
 * the same even value before and after.
 *
 * The wall clock a preloaded process sees (CLOCK_REALTIME*, gettimeofday,
 * time) is
 *   real_realtime + step_ns + drifted_ns + drift_ppm * (monotonic - drift_base_mono_ns) / 10^6
 * (drifted_ns: the drift before the last drift change). In a redis-server
 * (liblocksim_preload.so) the monotonic clocks are untouched, as after an
 * NTP step or a bad oscillator correction. In an adapter process
 * (liblocksim_client_preload.so, built with LOCKSIM_CLIENT_CLOCKS) the drift
 * moves every clock, as the simulator's HostClock (sim/clock.hpp) does:
 *   monotonic = real_monotonic + drifted_ns + drift_ppm * (...) / 10^6
 * and relative waits (sleeps, poll/epoll/select timeouts) last the real
 * time the drifted monotonic clock takes to show them; steps stay
 * wall-only. fsync/fdatasync started before
 * fsync_stall_until_mono_ns (CLOCK_MONOTONIC) wait until then: a slow disk.
 *
 * The fsync log (LOCKSIM_PRELOAD_LOG) gets one line per process start
 *   hello <pid> <executable>
 * and one per successful fsync/fdatasync of a regular file
 *   sync <pid> <st_dev> <st_ino> <size before the call> <path>
 * so the last `sync` line of an inode gives the length a power loss keeps
 * (renames keep the inode; Redis renames its fsynced temp manifest). */
#ifndef LOCKSIM_PRELOAD_CONTROL_H
#define LOCKSIM_PRELOAD_CONTROL_H

#include <stdint.h>

#define LOCKSIM_PRELOAD_MAGIC 0x6c6f636b73696d32ULL /* "locksim2" */
#define LOCKSIM_PRELOAD_CONTROL_ENV "LOCKSIM_PRELOAD_CONTROL"
#define LOCKSIM_PRELOAD_LOG_ENV "LOCKSIM_PRELOAD_LOG"
/* liblocksim_client_preload.so: the loopback address the adapter's TCP
 * connections leave from (its client host's own, "127.0.1.N"). */
#define LOCKSIM_CLIENT_SOURCE_ADDR_ENV "LOCKSIM_CLIENT_SOURCE_ADDR"

struct locksim_preload_control {
  uint64_t magic;
  uint64_t seq;
  int64_t step_ns;
  int64_t drift_ppm;
  int64_t drift_base_mono_ns;
  int64_t fsync_stall_until_mono_ns;
  int64_t drifted_ns;
};

#endif
