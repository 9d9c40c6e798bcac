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
 *  - built as liblocksim_client_preload.so (LOCKSIM_CLIENT_CLOCKS) for a
 *    client library's adapter process: drift moves its monotonic clocks
 *    too, and its sleeps and poll/epoll/select timeouts follow them;
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
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
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

/* The offsets of this process's clocks from the real ones right now, read
 * under the seqlock: the wall clock's (steps and drift) and, in an adapter
 * process, the monotonic clocks' (drift only); `ppm` for scaling waits. */
struct offsets {
  int64_t wall, mono, ppm;
};

static struct offsets offsets_now(void) {
  const struct locksim_preload_control* c = control_block;
  if (!c) return (struct offsets){0, 0, 0};
  for (;;) {
    const uint64_t before = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
    const int64_t step = load(&c->step_ns), ppm = load(&c->drift_ppm), base = load(&c->drift_base_mono_ns);
    const int64_t drifted = load(&c->drifted_ns);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if ((before & 1) || __atomic_load_n(&c->seq, __ATOMIC_RELAXED) != before) continue;
    const int64_t drift = drifted + (ppm == 0 ? 0 : (int64_t)((__int128)(mono_ns() - base) * ppm / 1000000));
    return (struct offsets){step + drift, drift, ppm};
  }
}

static int is_wall_clock(clockid_t id) {
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_REALTIME_ALARM;
}

#ifdef LOCKSIM_CLIENT_CLOCKS
/* The clocks an oscillator drives besides the wall clock (CLOCK_TAI is left
 * real: a test's reference). Only an adapter process's move. */
static int is_monotonic_clock(clockid_t id) {
  return id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW || id == CLOCK_MONOTONIC_COARSE ||
         id == CLOCK_BOOTTIME || id == CLOCK_BOOTTIME_ALARM;
}
static int moves(clockid_t id) { return is_wall_clock(id) || is_monotonic_clock(id); }
#else
static int moves(clockid_t id) { return is_wall_clock(id); }
#endif

static int64_t offset_of(clockid_t id, const struct offsets* o) {
  return is_wall_clock(id) ? o->wall : moves(id) ? o->mono : 0;
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
  if (r == 0 && moves(id)) {
    const struct offsets o = offsets_now();
    shift(ts, offset_of(id, &o));
  }
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

#ifdef LOCKSIM_CLIENT_CLOCKS
/* --- waits (adapter processes) ------------------------------------------
 * A wait of d on a clock running ppm fast lasts d * 10^6 / (10^6 + ppm) of
 * real time (rounded up: never early), as a simulated host's sleep does
 * (Host::sleep, sim/host.cpp). The calls are those the shipped runtimes
 * were seen to make (strace): Python's time.sleep is clock_nanosleep
 * (CLOCK_MONOTONIC, TIMER_ABSTIME), its socket timeouts (redis-py's) are
 * poll; Node's timers are libuv's epoll_pwait timeout. A wait already
 * under way keeps the length it started with. Futex waits with a deadline
 * (sem_clockwait, pthread_cond_timedwait: Python's threading waits) are
 * not moved: live mode refuses drift on adapters whose waits are those. */

static int64_t real_for(int64_t local_ns, int64_t ppm) {
  if (ppm == 0 || local_ns <= 0) return local_ns;
  const __int128 scaled = ((__int128)local_ns * 1000000 + (1000000 + ppm) - 1) / (1000000 + ppm);
  return scaled > INT64_MAX ? INT64_MAX : (int64_t)scaled;
}

static struct timespec timespec_of(int64_t ns) {
  if (ns < 0) ns = 0;
  return (struct timespec){(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
}

static struct timespec real_span(const struct timespec* local) {
  return timespec_of(real_for(ns_of(local), offsets_now().ppm));
}

static int real_ms(int timeout_ms) {
  if (timeout_ms <= 0) return timeout_ms;  /* 0: no wait; negative: forever */
  const int64_t ms = (real_for((int64_t)timeout_ms * 1000000, offsets_now().ppm) + 999999) / 1000000;
  return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

int nanosleep(const struct timespec* req, struct timespec* rem) {
  const struct timespec real = real_span(req);
  return (int)syscall(SYS_nanosleep, &real, rem);
}

int usleep(useconds_t us) {
  const struct timespec real = real_span(&(struct timespec){(time_t)(us / 1000000), (long)(us % 1000000) * 1000});
  return (int)syscall(SYS_nanosleep, &real, NULL);
}

/* clock_nanosleep returns the error (not -1 and errno). An absolute
 * deadline on a moved clock becomes what is left of it on that clock. */
int clock_nanosleep(clockid_t id, int flags, const struct timespec* req, struct timespec* rem) {
  struct timespec real = *req;
  if (moves(id)) {
    int64_t left = ns_of(req);
    if (flags & TIMER_ABSTIME) {
      struct timespec now;
      shifted_clock_gettime(id, &now);
      left -= ns_of(&now);
    }
    real = timespec_of(real_for(left, offsets_now().ppm));
    flags &= ~TIMER_ABSTIME;
  }
  const int saved = errno;
  const long r = syscall(SYS_clock_nanosleep, id, flags, &real, rem);
  const int error = r == 0 ? 0 : errno;
  errno = saved;
  return error;
}

int poll(struct pollfd* fds, nfds_t n, int timeout_ms) {
  const struct timespec real = timespec_of((int64_t)real_ms(timeout_ms) * 1000000);
  return (int)syscall(SYS_ppoll, fds, n, timeout_ms < 0 ? NULL : &real, NULL, 0);
}

int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* timeout, const sigset_t* mask) {
  const struct timespec real = timeout ? real_span(timeout) : (struct timespec){0, 0};
  return (int)syscall(SYS_ppoll, fds, n, timeout ? &real : NULL, mask, _NSIG / 8);
}

int epoll_pwait(int epfd, struct epoll_event* events, int max, int timeout_ms, const sigset_t* mask) {
  return (int)syscall(SYS_epoll_pwait, epfd, events, max, real_ms(timeout_ms), mask, _NSIG / 8);
}

int epoll_wait(int epfd, struct epoll_event* events, int max, int timeout_ms) {
  return (int)syscall(SYS_epoll_pwait, epfd, events, max, real_ms(timeout_ms), NULL, _NSIG / 8);
}

/* The timeout is not updated to the time left (Linux does; POSIX need not). */
int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* timeout) {
  struct timespec real = {0, 0};
  if (timeout) real = timespec_of(real_for((int64_t)timeout->tv_sec * 1000000000LL + timeout->tv_usec * 1000LL,
                                           offsets_now().ppm));
  return (int)syscall(SYS_pselect6, n, r, w, e, timeout ? &real : NULL, NULL);
}
#endif

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

#ifdef LOCKSIM_CLIENT_CLOCKS
/* The client host's own loopback address (LOCKSIM_CLIENT_SOURCE_ADDR_ENV,
 * e.g. 127.0.1.1), as a machine has its own IP: every TCP connection the
 * adapter's library opens to a loopback address leaves from it, so a proxy
 * listener shared by many sources (the port a redis-server announces,
 * which Redis Sentinel hands to a Sentinel-aware client) can tell this
 * client's links from others' (live/tcp_proxy.hpp SharedListener). */
static struct in_addr source_addr;
static int have_source_addr = 0;

int connect(int fd, const struct sockaddr* addr, socklen_t len) {
  if (have_source_addr && addr && addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
    const struct sockaddr_in* to = (const struct sockaddr_in*)addr;
    struct sockaddr_in bound;
    socklen_t bound_len = sizeof bound;
    const int loopback = (ntohl(to->sin_addr.s_addr) >> 24) == 127;
    const int unbound = getsockname(fd, (struct sockaddr*)&bound, &bound_len) == 0 && bound.sin_port == 0;
    if (loopback && unbound) {
      struct sockaddr_in local = {.sin_family = AF_INET, .sin_port = 0, .sin_addr = source_addr};
      syscall(SYS_bind, fd, (const struct sockaddr*)&local, (socklen_t)sizeof local); /* else: as it was */
    }
  }
  return (int)syscall(SYS_connect, fd, addr, len);
}
#endif

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
#ifdef LOCKSIM_CLIENT_CLOCKS
  const char* source = getenv(LOCKSIM_CLIENT_SOURCE_ADDR_ENV);
  if (source && *source) have_source_addr = inet_pton(AF_INET, source, &source_addr) == 1;
#endif
  /* Not O_CLOEXEC: a forked rewrite child keeps logging; an exec'd program
   * runs this constructor again and opens its own. */
  if (log && *log) log_fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_APPEND | O_CREAT, 0644);
  char exe[4096];
  const long got = syscall(SYS_readlink, "/proc/self/exe", exe, sizeof exe - 1);
  exe[got > 0 ? got : 0] = '\0';
  log_line("hello", NULL, 0, exe);
}
