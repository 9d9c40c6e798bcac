/* liblocksim_preload.so: what `locksim live` puts into each redis-server it
 * starts (LD_PRELOAD), so that live faults are real or observed, never a
 * model of Redis:
 *  - an fsync recorder: every fsync/fdatasync of a regular file (Redis
 *    7.0 calls fdatasync from its bio thread, src/bio.c, for everysec, and
 *    from the main thread for always) appends the length it made durable to
 *    a log; a live power loss cuts each AOF file back to that length;
 *  - a per-process wall clock: clock_gettime(CLOCK_REALTIME*), gettimeofday
 *    and time() return the real time plus a step and a drift that live mode
 *    changes while the server runs (a clock-jump or clock-drift fault);
 *    monotonic clocks pass through unchanged;
 *  - a disk stall: fsyncs wait until the stall's end (fsync-stall fault).
 * The layout and log format are in preload_control.h.
 *
 * Why raw syscalls everywhere: libfaketime deadlocks inside jemalloc
 * (libfaketime issues 130, 327, 478) because its wrappers call dlsym, which
 * allocates, while jemalloc's init calls the clocks. This library never
 * allocates, locks, or calls dlsym: each wrapper is a syscall(2) plus
 * arithmetic on a mmap'd block, and the log is written with one write(2)
 * per line (O_APPEND: lines from threads and forked children never mix).
 * Until the constructor has mapped the block, every clock is the real one. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "preload_control.h"

static const struct locksim_preload_control* control_block;
static int log_fd = -1;

static int64_t ns_of(const struct timespec* ts) { return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec; }

static int raw_clock_gettime(clockid_t id, struct timespec* ts) { return (int)syscall(SYS_clock_gettime, id, ts); }

static int64_t mono_ns(void) {
  struct timespec ts;
  raw_clock_gettime(CLOCK_MONOTONIC, &ts);
  return ns_of(&ts);
}

static int64_t load(const int64_t* field) { return __atomic_load_n(field, __ATOMIC_RELAXED); }

/* step + drift accumulated since the drift was set, read under the seqlock. */
static int64_t wall_offset_ns(void) {
  const struct locksim_preload_control* c = control_block;
  if (!c) return 0;
  for (;;) {
    const uint64_t before = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
    const int64_t step = load(&c->step_ns), ppm = load(&c->drift_ppm), base = load(&c->drift_base_mono_ns);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if ((before & 1) || __atomic_load_n(&c->seq, __ATOMIC_RELAXED) != before) continue;
    if (ppm == 0) return step;
    return step + (int64_t)((__int128)(mono_ns() - base) * ppm / 1000000);
  }
}

static int is_wall_clock(clockid_t id) {
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_REALTIME_ALARM;
}

static void shift(struct timespec* ts, int64_t by_ns) {
  const int64_t ns = ns_of(ts) + by_ns;
  ts->tv_sec = (time_t)(ns >= 0 ? ns / 1000000000LL : -((-ns + 999999999LL) / 1000000000LL));
  ts->tv_nsec = (long)(ns - (int64_t)ts->tv_sec * 1000000000LL);
}

/* Internal: calls between the wrappers never go through the PLT (which
 * could bind them to libc's when the library is dlopen'd, as in tests). */
static int shifted_clock_gettime(clockid_t id, struct timespec* ts) {
  const int r = raw_clock_gettime(id, ts);
  if (r == 0 && is_wall_clock(id)) shift(ts, wall_offset_ns());
  return r;
}

int clock_gettime(clockid_t id, struct timespec* ts) { return shifted_clock_gettime(id, ts); }

/* glibc declares tv nonnull, yet a NULL tv is valid for the syscall: keep
 * the check. */
#pragma GCC diagnostic ignored "-Wnonnull-compare"
int gettimeofday(struct timeval* tv, void* tz) {
  (void)tz; /* obsolete; Redis passes NULL */
  struct timespec ts;
  const int r = shifted_clock_gettime(CLOCK_REALTIME, &ts);
  if (r == 0 && tv) {
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
  }
  return r;
}

time_t time(time_t* out) {
  struct timespec ts;
  if (shifted_clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
  if (out) *out = ts.tv_sec;
  return ts.tv_sec;
}

/* --- the log ------------------------------------------------------------- */

static size_t put_text(char* at, size_t room, const char* s) {
  size_t n = strlen(s);
  if (n > room) n = room;
  memcpy(at, s, n);
  return n;
}

static size_t put_uint(char* at, size_t room, uint64_t v) {
  char digits[24];
  size_t n = 0;
  do digits[n++] = (char)('0' + v % 10); while ((v /= 10) && n < sizeof digits);
  size_t i = 0;
  for (; i < n && i < room; ++i) at[i] = digits[n - 1 - i];
  return i;
}

/* One line, one write(2): "<word> <pid> <numbers...> <text>\n". */
static void log_line(const char* word, const uint64_t* numbers, int count, const char* text) {
  if (log_fd < 0) return;
  char line[4200];
  const size_t room = sizeof line - 1;
  size_t n = put_text(line, room, word);
  n += put_text(line + n, room - n, " ");
  n += put_uint(line + n, room - n, (uint64_t)syscall(SYS_getpid));
  for (int i = 0; i < count; ++i) {
    n += put_text(line + n, room - n, " ");
    n += put_uint(line + n, room - n, numbers[i]);
  }
  n += put_text(line + n, room - n, " ");
  n += put_text(line + n, room - n, text);
  line[n++] = '\n';
  const int saved = errno;
  (void)!syscall(SYS_write, log_fd, line, n);
  errno = saved;
}

static void path_of_fd(int fd, char* out, size_t size) {
  char link[32] = "/proc/self/fd/";
  const size_t n = strlen(link);
  link[n + put_uint(link + n, sizeof link - n - 1, (uint64_t)fd)] = '\0';
  const long got = syscall(SYS_readlink, link, out, size - 1);
  out[got > 0 ? got : 0] = '\0';
}

/* --- fsync --------------------------------------------------------------- */

static void wait_out_stall(void) {
  const struct locksim_preload_control* c = control_block;
  if (!c) return;
  for (;;) {
    const int64_t until = load(&c->fsync_stall_until_mono_ns), now = mono_ns();
    if (until <= now) return;
    const struct timespec at = {(time_t)(until / 1000000000LL), (long)(until % 1000000000LL)};
    syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
  }
}

/* What was written before the call is durable when it returns: the size is
 * taken first (data written meanwhile may or may not be on the disk). */
static int recorded_sync(int fd, long number) {
  struct stat st;
  const int regular = syscall(SYS_fstat, fd, &st) == 0 && S_ISREG(st.st_mode);
  wait_out_stall();
  const int r = (int)syscall(number, fd);
  if (r == 0 && regular) {
    char path[4096];
    path_of_fd(fd, path, sizeof path);
    const uint64_t numbers[] = {(uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size};
    log_line("sync", numbers, 3, path);
  }
  return r;
}

int fsync(int fd) { return recorded_sync(fd, SYS_fsync); }  /* rdb.c, aof.c manifest and rewrite */
int fdatasync(int fd) { return recorded_sync(fd, SYS_fdatasync); }

/* --- setup --------------------------------------------------------------- */

static void map_control(const char* path) {
  const int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  void* block = mmap(NULL, sizeof(struct locksim_preload_control), PROT_READ, MAP_SHARED, fd, 0);
  syscall(SYS_close, fd);
  if (block == MAP_FAILED) return;
  const struct locksim_preload_control* c = block;
  if (c->magic == LOCKSIM_PRELOAD_MAGIC) control_block = c;
}

__attribute__((constructor)) static void locksim_preload_init(void) {
  const char* control = getenv(LOCKSIM_PRELOAD_CONTROL_ENV);
  const char* log = getenv(LOCKSIM_PRELOAD_LOG_ENV);
  if (control && *control) map_control(control);
  /* Not O_CLOEXEC: a forked rewrite child keeps logging; an exec'd program
   * runs this constructor again and opens its own. */
  if (log && *log) log_fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_APPEND | O_CREAT, 0644);
  char exe[4096];
  const long got = syscall(SYS_readlink, "/proc/self/exe", exe, sizeof exe - 1);
  exe[got > 0 ? got : 0] = '\0';
  log_line("hello", NULL, 0, exe);
}
