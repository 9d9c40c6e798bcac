/* liblocksim_simtime.so: puts one client process's time under a controller
 * (hosted/controlled_process.hpp), Shadow's way: the process runs until it
 * would block, reports what it waits for, and runs again when the
 * controller answers. The layout and protocol are in simtime_protocol.h.
 *
 *  - clocks: clock_gettime (REALTIME*, TAI: the simulated wall clock;
 *    MONOTONIC*, BOOTTIME*: the simulated monotonic clock), gettimeofday,
 *    time and timespec_get read the clocks page. The CPU-time clocks
 *    (CLOCK_PROCESS/THREAD_CPUTIME_ID, a pid's or thread's clock) pass
 *    through: they count the CPU the process really used, which simulated
 *    time does not model (the CPU is infinitely fast), and no runtime times
 *    a wait with them;
 *  - waits: nanosleep, clock_nanosleep, usleep, sleep, poll, ppoll, select,
 *    pselect, epoll_wait, epoll_pwait, epoll_pwait2 and a blocking read,
 *    recv, recvfrom, recvmsg, accept, accept4 or connect on a socket or a
 *    pipe first try without waiting; what would block becomes a report
 *    (fds, events, a simulated deadline) and a wait for the answer;
 *  - randomness: getrandom, getentropy and reads of /dev/urandom and
 *    /dev/random give a stream seeded by the controller;
 *  - exec: the program replacing itself (env exec'ing node) stays under
 *    control, its new image's shim saying hello again ("exec" below);
 *  - refusals: a second thread (pthread_create, clone; unless helper
 *    threads are allowed, "helper threads" below), another process
 *    (fork, vfork, posix_spawn*, system) and real-time timers
 *    (alarm, setitimer, timer_settime, timerfd_settime) are reported as
 *    what the controller cannot control, and the process waits to be
 *    killed; so is any wait, clock read, random draw or thread/process
 *    creation that reaches the kernel without a wrapper (a seccomp filter,
 *    simtime_seccomp.c).
 * As redis_preload.c (live/preload/), the library never allocates, locks or
 * calls dlsym: each wrapper is syscall(2) plus arithmetic. Without the
 * environment the controller sets, every call is the real one. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "simtime_protocol.h"
#include "simtime_seccomp.h"

/* Every system call of the shim goes through its own function, which the
 * seccomp filter lets pass (simtime_seccomp.c). */
#define syscall locksim_shim_syscall

static const struct locksim_simtime_clocks* clocks;
static int channel = -1;
static int clocks_fd = -1; /* kept open: an exec'd program maps it again */
static uint64_t random_state;

static int controlled(void) { return clocks != NULL; }
static void first_input(void); /* the first input: settle, or serve forks */

/* Helper threads (below, "helper threads"): allowed by the controller, and
 * whether this thread is the main one. */
static int helper_threads;
static __thread int main_thread;
static int helper_wait(const struct pollfd* fds, nfds_t n, int64_t deadline);
static void main_thread_only(const char* call);

/* --- clocks -------------------------------------------------------------- */

static int64_t sim_monotonic(void) { return __atomic_load_n(&clocks->monotonic_ns, __ATOMIC_ACQUIRE); }
static int64_t sim_wall(void) { return __atomic_load_n(&clocks->wall_ns, __ATOMIC_ACQUIRE); }

static int64_t ns_of(const struct timespec* ts) { return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec; }

static struct timespec timespec_of(int64_t ns) {
  const int64_t sec = ns >= 0 ? ns / 1000000000LL : -((-ns + 999999999LL) / 1000000000LL);
  return (struct timespec){(time_t)sec, (long)(ns - sec * 1000000000LL)};
}

static int is_wall(clockid_t id) {
  return id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_REALTIME_ALARM || id == CLOCK_TAI;
}

static int is_monotonic(clockid_t id) {
  return id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW || id == CLOCK_MONOTONIC_COARSE ||
         id == CLOCK_BOOTTIME || id == CLOCK_BOOTTIME_ALARM;
}

/* The simulated instant of a clock the controller moves; -1 for the others. */
static int64_t sim_now(clockid_t id) {
  if (!controlled()) return -1;
  return is_wall(id) ? sim_wall() : is_monotonic(id) ? sim_monotonic() : -1;
}

int clock_gettime(clockid_t id, struct timespec* ts) {
  const int64_t now = sim_now(id);
  if (now < 0) return (int)syscall(SYS_clock_gettime, id, ts);
  *ts = timespec_of(now);
  return 0;
}

/* glibc declares tv nonnull, yet a NULL tv is valid for the syscall. */
#pragma GCC diagnostic ignored "-Wnonnull-compare"
int gettimeofday(struct timeval* tv, void* tz) {
  struct timespec ts;
  if (!controlled()) return (int)syscall(SYS_gettimeofday, tv, tz);
  ts = timespec_of(sim_wall());
  if (tv) *tv = (struct timeval){ts.tv_sec, ts.tv_nsec / 1000};
  return 0;
}

time_t time(time_t* out) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out) *out = ts.tv_sec;
  return ts.tv_sec;
}

int timespec_get(struct timespec* ts, int base) {
  if (base != TIME_UTC) return 0;
  return clock_gettime(CLOCK_REALTIME, ts) == 0 ? base : 0;
}

/* --- the channel --------------------------------------------------------- */

static void copy_text(char* to, size_t size, const char* a, const char* b) {
  size_t n = 0;
  for (; a && *a && n + 1 < size; ++a) to[n++] = *a;
  for (; b && *b && n + 1 < size; ++b) to[n++] = *b;
  to[n] = '\0';
}

/* One report, then the answer. A lost controller leaves nothing to run for
 * (PR_SET_PDEATHSIG normally kills the process first). */
static void exchange(const struct locksim_simtime_report* report, struct locksim_simtime_answer* answer) {
  const int saved = errno;
  if (syscall(SYS_sendto, channel, report, sizeof *report, MSG_NOSIGNAL, NULL, 0) != (long)sizeof *report)
    syscall(SYS_exit_group, 125);
  long got;
  do got = syscall(SYS_recvfrom, channel, answer, sizeof *answer, 0, NULL, NULL);
  while (got < 0 && errno == EINTR);
  if (got != (long)sizeof *answer) syscall(SYS_exit_group, 125);
  errno = saved;
}

/* What cannot be controlled: the controller refuses the run and kills the
 * process; until then it waits. */
static void refuse(const char* call, const char* why) {
  struct locksim_simtime_report report = {.kind = LOCKSIM_SIMTIME_REFUSE};
  copy_text(report.text, sizeof report.text, call, why);
  struct locksim_simtime_answer answer;
  for (;;) exchange(&report, &answer);
}

/* Reports a wait for `fds` (may be none) until `deadline` (simulated
 * monotonic, LOCKSIM_SIMTIME_NO_DEADLINE: none); 1 when the controller
 * answers ready, 0 when it answers timed out. */
static int wait_for(const struct pollfd* fds, nfds_t n, int64_t deadline, const char* call) {
  if (!main_thread) return helper_wait(fds, n, deadline);
  struct locksim_simtime_report report = {.kind = LOCKSIM_SIMTIME_BLOCK, .nfds = (uint32_t)n, .deadline_ns = deadline};
  if (n > LOCKSIM_SIMTIME_MAX_FDS) refuse(call, ": a wait on more fds than the shim reports (64)");
  for (nfds_t i = 0; i < n; ++i)
    if (fds[i].fd == 0) first_input();
  for (nfds_t i = 0; i < n; ++i) {
    report.fds[i] = fds[i].fd;
    report.events[i] = fds[i].events;
  }
  copy_text(report.text, sizeof report.text, call, NULL);
  struct locksim_simtime_answer answer;
  exchange(&report, &answer);
  return answer.kind == LOCKSIM_SIMTIME_READY;
}

/* The simulated monotonic deadline `ns` from now (negative: none). */
static int64_t deadline_after(int64_t ns) { return ns < 0 ? LOCKSIM_SIMTIME_NO_DEADLINE : sim_monotonic() + ns; }

/* --- sleeps -------------------------------------------------------------- */

/* A sleep until `deadline`: nothing to wait for once it has passed. */
static void sleep_until(int64_t deadline, const char* call) {
  if (deadline > sim_monotonic()) wait_for(NULL, 0, deadline, call);
}

int nanosleep(const struct timespec* req, struct timespec* rem) {
  if (!controlled()) return (int)syscall(SYS_nanosleep, req, rem);
  sleep_until(deadline_after(ns_of(req)), "nanosleep");
  if (rem) *rem = (struct timespec){0, 0};
  return 0;
}

int usleep(useconds_t us) {
  if (!controlled()) {
    const struct timespec ts = timespec_of((int64_t)us * 1000);
    return (int)syscall(SYS_nanosleep, &ts, NULL);
  }
  sleep_until(deadline_after((int64_t)us * 1000), "usleep");
  return 0;
}

unsigned int sleep(unsigned int seconds) {
  if (!controlled()) {
    const struct timespec ts = {seconds, 0};
    struct timespec rem = {0, 0};
    syscall(SYS_nanosleep, &ts, &rem);
    return (unsigned)rem.tv_sec;
  }
  sleep_until(deadline_after((int64_t)seconds * 1000000000LL), "sleep");
  return 0;
}

/* Returns the error (not -1 and errno). An absolute wall-clock deadline is
 * the same distance ahead on the monotonic clock (a wall step during the
 * sleep does not end it early, as Linux would). */
int clock_nanosleep(clockid_t id, int flags, const struct timespec* req, struct timespec* rem) {
  const int64_t now = sim_now(id);
  if (now < 0) {
    const int saved = errno;
    const int error = syscall(SYS_clock_nanosleep, id, flags, req, rem) == 0 ? 0 : errno;
    errno = saved;
    return error;
  }
  const int64_t left = (flags & TIMER_ABSTIME) ? ns_of(req) - now : ns_of(req);
  sleep_until(sim_monotonic() + (left > 0 ? left : 0), "clock_nanosleep");
  if (rem && !(flags & TIMER_ABSTIME)) *rem = (struct timespec){0, 0};
  return 0;
}

/* --- poll and select ----------------------------------------------------- */

static const struct timespec no_wait = {0, 0};

/* A poll that waits in simulated time: what is ready now is returned; else
 * the controller is asked, and its answer checked by polling again (a
 * "ready" it was wrong about is reported again). */
static int sim_poll(struct pollfd* fds, nfds_t n, int64_t timeout_ns, const sigset_t* mask, const char* call) {
  const int64_t deadline = deadline_after(timeout_ns);
  for (;;) {
    const int r = (int)syscall(SYS_ppoll, fds, n, &no_wait, mask, _NSIG / 8);
    if (r != 0 || timeout_ns == 0) return r;
    if (!wait_for(fds, n, deadline, call)) return 0;
  }
}

int poll(struct pollfd* fds, nfds_t n, int timeout_ms) {
  if (!controlled()) {
    const struct timespec ts = timespec_of((int64_t)timeout_ms * 1000000);
    return (int)syscall(SYS_ppoll, fds, n, timeout_ms < 0 ? NULL : &ts, NULL, _NSIG / 8);
  }
  return sim_poll(fds, n, timeout_ms < 0 ? -1 : (int64_t)timeout_ms * 1000000, NULL, "poll");
}

int ppoll(struct pollfd* fds, nfds_t n, const struct timespec* timeout, const sigset_t* mask) {
  if (!controlled()) return (int)syscall(SYS_ppoll, fds, n, timeout, mask, _NSIG / 8);
  return sim_poll(fds, n, timeout ? ns_of(timeout) : -1, mask, "ppoll");
}

/* The fds of select's sets as a poll list; how many, or -1 past the most. */
static int select_list(int n, const fd_set* r, const fd_set* w, const fd_set* e, struct pollfd* out) {
  int count = 0;
  for (int fd = 0; fd < n && fd < FD_SETSIZE; ++fd) {
    const short events = (short)((r && FD_ISSET(fd, r) ? POLLIN : 0) | (w && FD_ISSET(fd, w) ? POLLOUT : 0) |
                                 (e && FD_ISSET(fd, e) ? POLLPRI : 0));
    if (!events) continue;
    if (count == LOCKSIM_SIMTIME_MAX_FDS) return -1;
    out[count++] = (struct pollfd){fd, events, 0};
  }
  return count;
}

static int sim_select(int n, fd_set* r, fd_set* w, fd_set* e, int64_t timeout_ns, const char* call) {
  const int64_t deadline = deadline_after(timeout_ns);
  struct pollfd list[LOCKSIM_SIMTIME_MAX_FDS];
  const int count = select_list(n, r, w, e, list);
  if (count < 0) refuse(call, ": a wait on more fds than the shim reports (64)");
  for (;;) {
    fd_set r2, w2, e2;
    if (r) r2 = *r;
    if (w) w2 = *w;
    if (e) e2 = *e;
    const int got = (int)syscall(SYS_pselect6, n, r ? &r2 : NULL, w ? &w2 : NULL, e ? &e2 : NULL, &no_wait, NULL);
    if (got != 0 || timeout_ns == 0 || !wait_for(list, (nfds_t)count, deadline, call)) {
      if (r) *r = r2;
      if (w) *w = w2;
      if (e) *e = e2;
      return got;
    }
  }
}

int select(int n, fd_set* r, fd_set* w, fd_set* e, struct timeval* timeout) {
  if (!controlled()) {
    struct timespec ts = {0, 0};
    if (timeout) ts = timespec_of((int64_t)timeout->tv_sec * 1000000000LL + timeout->tv_usec * 1000LL);
    return (int)syscall(SYS_pselect6, n, r, w, e, timeout ? &ts : NULL, NULL);
  }
  const int64_t ns = timeout ? (int64_t)timeout->tv_sec * 1000000000LL + timeout->tv_usec * 1000LL : -1;
  return sim_select(n, r, w, e, ns, "select");
}

int pselect(int n, fd_set* r, fd_set* w, fd_set* e, const struct timespec* timeout, const sigset_t* mask) {
  if (!controlled()) {
    const struct {
      const sigset_t* set;
      size_t size;
    } m = {mask, _NSIG / 8};
    return (int)syscall(SYS_pselect6, n, r, w, e, timeout, mask ? &m : NULL);
  }
  return sim_select(n, r, w, e, timeout ? ns_of(timeout) : -1, "pselect");
}

/* --- epoll: the fds each epoll instance watches (epoll_ctl) -------------- */

#define WATCHED_MAX 256
static struct {
  int epfd, fd;
  uint32_t events;
} watched[WATCHED_MAX];
static int watched_count;

static void unwatch(int epfd, int fd) {
  for (int i = 0; i < watched_count; ++i)
    if (watched[i].epfd == epfd && watched[i].fd == fd) watched[i--] = watched[--watched_count];
}

/* A closed fd: an epoll instance with all it watched, or a watched fd (the
 * kernel drops it from its sets when its last descriptor closes). */
static void forget(int fd) {
  for (int i = 0; i < watched_count; ++i)
    if (watched[i].epfd == fd || watched[i].fd == fd) watched[i--] = watched[--watched_count];
}

int epoll_ctl(int epfd, int op, int fd, struct epoll_event* event) {
  const int r = (int)syscall(SYS_epoll_ctl, epfd, op, fd, event);
  if (r != 0 || !controlled() || !main_thread) return r;
  if (op != EPOLL_CTL_ADD) unwatch(epfd, fd);
  if (op == EPOLL_CTL_DEL) return r;
  if (watched_count == WATCHED_MAX) refuse("epoll_ctl", ": more fds under epoll than the shim tracks (256)");
  watched[watched_count++] = (typeof(watched[0])){epfd, fd, event->events};
  return r;
}

/* The fds `epfd` watches as a poll list (the epoll instance itself when it
 * watches none the shim saw). EPOLLIN/OUT/PRI/ERR/HUP are poll's bits. */
static nfds_t epoll_list(int epfd, struct pollfd* out) {
  nfds_t n = 0;
  for (int i = 0; i < watched_count; ++i) {
    if (watched[i].epfd != epfd) continue;
    if (n == LOCKSIM_SIMTIME_MAX_FDS) refuse("epoll_wait", ": a wait on more fds than the shim reports (64)");
    out[n++] = (struct pollfd){watched[i].fd, (short)(watched[i].events & 0xffff), 0};
  }
  if (n == 0) out[n++] = (struct pollfd){epfd, POLLIN, 0};
  return n;
}

static int sim_epoll(int epfd, struct epoll_event* ev, int max, int64_t timeout_ns, const sigset_t* mask,
                     const char* call) {
  const int64_t deadline = deadline_after(timeout_ns);
  for (;;) {
    const int r = (int)syscall(SYS_epoll_pwait, epfd, ev, max, 0, mask, _NSIG / 8);
    if (r != 0 || timeout_ns == 0) return r;
    const struct pollfd self = {epfd, POLLIN, 0}; /* a helper thread's epoll: not tracked */
    if (!main_thread && !helper_wait(&self, 1, deadline)) return 0;
    if (!main_thread) continue;
    struct pollfd list[LOCKSIM_SIMTIME_MAX_FDS];
    const nfds_t n = epoll_list(epfd, list);
    if (!wait_for(list, n, deadline, call)) return 0;
  }
}

static int64_t ms_to_ns(int ms) { return ms < 0 ? -1 : (int64_t)ms * 1000000; }

int epoll_wait(int epfd, struct epoll_event* ev, int max, int timeout_ms) {
  if (!controlled()) return (int)syscall(SYS_epoll_pwait, epfd, ev, max, timeout_ms, NULL, _NSIG / 8);
  return sim_epoll(epfd, ev, max, ms_to_ns(timeout_ms), NULL, "epoll_wait");
}

int epoll_pwait(int epfd, struct epoll_event* ev, int max, int timeout_ms, const sigset_t* mask) {
  if (!controlled()) return (int)syscall(SYS_epoll_pwait, epfd, ev, max, timeout_ms, mask, _NSIG / 8);
  return sim_epoll(epfd, ev, max, ms_to_ns(timeout_ms), mask, "epoll_pwait");
}

int epoll_pwait2(int epfd, struct epoll_event* ev, int max, const struct timespec* timeout, const sigset_t* mask) {
  if (!controlled()) return (int)syscall(SYS_epoll_pwait2, epfd, ev, max, timeout, mask, _NSIG / 8);
  return sim_epoll(epfd, ev, max, timeout ? ns_of(timeout) : -1, mask, "epoll_pwait2");
}

/* --- randomness: splitmix64 from the seed (same seed, same bytes) -------- */

#define RANDOM_FDS 1024
static unsigned char random_fd[RANDOM_FDS]; /* opened /dev/urandom or /dev/random */

static void fill_random(void* buf, size_t n) {
  unsigned char* out = buf;
  while (n > 0) {
    uint64_t z = (random_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    const size_t k = n < 8 ? n : 8;
    memcpy(out, &z, k);
    out += k;
    n -= k;
  }
}

/* The process's id, as the program sees it: a number from the seed, not
 * the kernel's (which differs from run to run). util-linux's libuuid mixes
 * getpid() into every UUID it makes (lib/randutils.c, crank_random seeds
 * random() with it), so Python's uuid.uuid1() — redis-py's lock tokens —
 * would differ between two runs of one seed. Signals go by the kernel's id
 * (a program that signals itself with kill(getpid(), ...) would miss;
 * raise() is unaffected). */
static pid_t virtual_pid = 0;
static pid_t pid_of(uint64_t seed) { return (pid_t)(1000 + seed % 30000); }

pid_t getpid(void) {
  if (!controlled() || virtual_pid == 0) return (pid_t)syscall(SYS_getpid);
  return virtual_pid;
}

/* The parent's id likewise: libuuid seeds jrand48 with getppid()
 * (lib/randutils.c, random_get_fd: ul_jrand_seed[1]), and the parent is
 * locksim, whose id differs from one invocation to the next. */
pid_t getppid(void) {
  if (!controlled() || virtual_pid == 0) return (pid_t)syscall(SYS_getppid);
  return virtual_pid - 1;
}

ssize_t getrandom(void* buf, size_t n, unsigned int flags) {
  if (!controlled()) return syscall(SYS_getrandom, buf, n, flags);
  main_thread_only("getrandom");
  fill_random(buf, n);
  return (ssize_t)n;
}

int getentropy(void* buf, size_t n) {
  if (n > 256) {
    errno = EIO;
    return -1;
  }
  return getrandom(buf, n, 0) == (ssize_t)n ? 0 : -1;
}

static int is_random_device(const char* path) {
  return path && (strcmp(path, "/dev/urandom") == 0 || strcmp(path, "/dev/random") == 0);
}

/* State a library keeps between runs is hidden: a run must not depend on
 * the runs before it. libuuid (util-linux libuuid/src/gen_uuid.c, get_clock)
 * keeps the last time-based UUID's clock and sequence in this file and bumps
 * the sequence when the clock did not move past it — which a simulated
 * clock never does — so Python's uuid.uuid1() (redis-py's lock tokens)
 * changed from one run to the next. Without the file libuuid draws the
 * sequence from getrandom(), which is the seed's. */
static int hidden(const char* path) { return path && strcmp(path, "/var/lib/libuuid/clock.txt") == 0; }

static int opened(int fd, const char* path) {
  if (fd >= 0 && fd < RANDOM_FDS && controlled()) random_fd[fd] = (unsigned char)is_random_device(path);
  return fd;
}

/* open's mode is there only with O_CREAT or O_TMPFILE. */
#define MODE_ARG(flags, mode)                                        \
  do {                                                               \
    if ((flags) & (O_CREAT | __O_TMPFILE)) {                         \
      va_list args;                                                  \
      va_start(args, flags);                                         \
      mode = va_arg(args, int);                                      \
      va_end(args);                                                  \
    }                                                                \
  } while (0)

int open(const char* path, int flags, ...) {
  int mode = 0;
  MODE_ARG(flags, mode);
  if (hidden(path) && controlled()) return errno = EACCES, -1;
  return opened((int)syscall(SYS_openat, AT_FDCWD, path, flags, mode), path);
}
int open64(const char* path, int flags, ...) {
  int mode = 0;
  MODE_ARG(flags, mode);
  if (hidden(path) && controlled()) return errno = EACCES, -1;
  return opened((int)syscall(SYS_openat, AT_FDCWD, path, flags, mode), path);
}
int openat(int dir, const char* path, int flags, ...) {
  int mode = 0;
  MODE_ARG(flags, mode);
  if (hidden(path) && controlled()) return errno = EACCES, -1;
  return opened((int)syscall(SYS_openat, dir, path, flags, mode), path);
}
int openat64(int dir, const char* path, int flags, ...) {
  int mode = 0;
  MODE_ARG(flags, mode);
  if (hidden(path) && controlled()) return errno = EACCES, -1;
  return opened((int)syscall(SYS_openat, dir, path, flags, mode), path);
}

int close(int fd) {
  if ((fd == channel || fd == clocks_fd) && fd >= 0) return 0; /* they outlive the program's cleanups */
  if (fd >= 0 && fd < RANDOM_FDS) random_fd[fd] = 0;
  if (controlled() && main_thread) forget(fd);
  return (int)syscall(SYS_close, fd);
}

/* --- blocking socket and pipe calls -------------------------------------- */

/* Before a call that would block on `fd` (a blocking socket or pipe with
 * nothing ready): report the wait, with no deadline, until it is ready.
 * Files, terminals and non-blocking fds never wait here. */
static void wait_ready(int fd, short events, const char* call) {
  if (!controlled()) return;
  const long flags = syscall(SYS_fcntl, fd, F_GETFL);
  struct stat st;
  if (flags < 0 || (flags & O_NONBLOCK) || syscall(SYS_fstat, fd, &st) != 0) return;
  if (!S_ISSOCK(st.st_mode) && !S_ISFIFO(st.st_mode)) return;
  main_thread_only(call);
  struct pollfd p = {fd, events, 0};
  while (syscall(SYS_ppoll, &p, 1, &no_wait, NULL, _NSIG / 8) == 0) wait_for(&p, 1, LOCKSIM_SIMTIME_NO_DEADLINE, call);
}

ssize_t read(int fd, void* buf, size_t n) {
  if (fd == 0) first_input();
  if (fd >= 0 && fd < RANDOM_FDS && random_fd[fd]) {
    main_thread_only("read of /dev/urandom");
    fill_random(buf, n);
    return (ssize_t)n;
  }
  wait_ready(fd, POLLIN, "read");
  return syscall(SYS_read, fd, buf, n);
}

ssize_t recv(int fd, void* buf, size_t n, int flags) {
  if (!(flags & MSG_DONTWAIT)) wait_ready(fd, POLLIN, "recv");
  return syscall(SYS_recvfrom, fd, buf, n, flags, NULL, NULL);
}

ssize_t recvfrom(int fd, void* buf, size_t n, int flags, struct sockaddr* from, socklen_t* len) {
  if (!(flags & MSG_DONTWAIT)) wait_ready(fd, POLLIN, "recvfrom");
  return syscall(SYS_recvfrom, fd, buf, n, flags, from, len);
}

ssize_t recvmsg(int fd, struct msghdr* msg, int flags) {
  if (!(flags & MSG_DONTWAIT)) wait_ready(fd, POLLIN, "recvmsg");
  return syscall(SYS_recvmsg, fd, msg, flags);
}

int accept(int fd, struct sockaddr* addr, socklen_t* len) {
  wait_ready(fd, POLLIN, "accept");
  return (int)syscall(SYS_accept4, fd, addr, len, 0);
}

int accept4(int fd, struct sockaddr* addr, socklen_t* len, int flags) {
  wait_ready(fd, POLLIN, "accept4");
  return (int)syscall(SYS_accept4, fd, addr, len, flags);
}

/* The address map (simtime_protocol.h): `addr`, if it is 127.0.0.1 and a
 * told port (to_real) or a real one (!to_real), rewritten in `copy` to its
 * counterpart; else `addr` itself. */
static const struct sockaddr* mapped(const struct sockaddr* addr, socklen_t len, int to_real,
                                     struct sockaddr_in* copy) {
  if (!controlled() || !addr || len < sizeof *copy || addr->sa_family != AF_INET) return addr;
  memcpy(copy, addr, sizeof *copy);
  if (copy->sin_addr.s_addr != htonl(INADDR_LOOPBACK)) return addr;
  const uint16_t* from = to_real ? clocks->told : clocks->real;
  const uint16_t* to = to_real ? clocks->real : clocks->told;
  for (uint32_t i = 0; i < clocks->ports && i < LOCKSIM_SIMTIME_MAX_PORTS; ++i)
    if (ntohs(copy->sin_port) == from[i]) {
      copy->sin_port = htons(to[i]);
      return (const struct sockaddr*)copy;
    }
  return addr;
}

int getpeername(int fd, struct sockaddr* addr, socklen_t* len) {
  const int r = (int)syscall(SYS_getpeername, fd, addr, len);
  struct sockaddr_in copy;
  if (r == 0 && addr && mapped(addr, *len, 0, &copy) != addr) memcpy(addr, &copy, sizeof copy);
  return r;
}

/* A blocking connect is made non-blocking for the call, and its wait for
 * the handshake reported (POLLOUT); the result is the socket's error. The
 * address goes through the address map. */
int connect(int fd, const struct sockaddr* told, socklen_t len) {
  struct sockaddr_in copy;
  const struct sockaddr* addr = mapped(told, len, 1, &copy);
  const long flags = controlled() ? syscall(SYS_fcntl, fd, F_GETFL) : -1;
  if (flags < 0 || (flags & O_NONBLOCK)) return (int)syscall(SYS_connect, fd, addr, len);
  syscall(SYS_fcntl, fd, F_SETFL, flags | O_NONBLOCK);
  int r = (int)syscall(SYS_connect, fd, addr, len);
  if (r != 0 && errno == EINPROGRESS) {
    main_thread_only("connect");
    struct pollfd p = {fd, POLLOUT, 0};
    while (syscall(SYS_ppoll, &p, 1, &no_wait, NULL, _NSIG / 8) == 0)
      wait_for(&p, 1, LOCKSIM_SIMTIME_NO_DEADLINE, "connect");
    int error = 0;
    socklen_t size = sizeof error;
    syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_ERROR, &error, &size);
    r = error ? -1 : 0;
    if (error) errno = error;
  }
  const int saved = errno;
  syscall(SYS_fcntl, fd, F_SETFL, flags);
  errno = saved;
  return r;
}

/* --- what the controller cannot control ---------------------------------- */

/* Under control each of these is refused; outside it, the real call runs
 * (looked up with dlsym: these are cold calls, never made from a clock or
 * wait path, where dlsym's allocation would matter). */
#define THREAD ": a second thread (the shim serialises one thread per process)"
#define PROCESS ": another process or program, which the controller did not start"
#define REFUSED(ret, name, params, args, why)              \
  ret name params {                                        \
    if (controlled()) refuse(#name, why);                  \
    ret(*real) params = (ret(*) params)dlsym(RTLD_NEXT, #name); \
    return real args;                                      \
  }

REFUSED(pid_t, fork, (void), (), PROCESS)
REFUSED(int, system, (const char* command), (command), PROCESS)
REFUSED(int, posix_spawn,
        (pid_t * pid, const char* p, const posix_spawn_file_actions_t* fa, const posix_spawnattr_t* at,
         char* const* argv, char* const* envp),
        (pid, p, fa, at, argv, envp), PROCESS)
REFUSED(int, posix_spawnp,
        (pid_t * pid, const char* p, const posix_spawn_file_actions_t* fa, const posix_spawnattr_t* at,
         char* const* argv, char* const* envp),
        (pid, p, fa, at, argv, envp), PROCESS)

/* vfork's child borrows the caller's stack: a wrapper's frame would be gone
 * when it returns, so outside control vfork is a fork (POSIX allows it). */
pid_t vfork(void) {
  if (controlled()) refuse("vfork", PROCESS);
  pid_t (*real)(void) = (pid_t(*)(void))dlsym(RTLD_NEXT, "fork");
  return real();
}

/* glibc's clone(fn, stack, flags, arg, ...): parent_tid, tls, child_tid. */
int clone(int (*fn)(void*), void* stack, int flags, void* arg, ...) {
  if (controlled()) refuse("clone", (flags & CLONE_THREAD) ? THREAD : PROCESS);
  va_list args;
  va_start(args, arg);
  pid_t* parent_tid = va_arg(args, pid_t*);
  void* tls = va_arg(args, void*);
  pid_t* child_tid = va_arg(args, pid_t*);
  va_end(args);
  int (*real)(int (*)(void*), void*, int, void*, ...) = (int (*)(int (*)(void*), void*, int, void*, ...))dlsym(
      RTLD_NEXT, "clone");
  return real(fn, stack, flags, arg, parent_tid, tls, child_tid);
}

/* Timers that signal or wake in real time: refused when armed (a zero
 * value disarms, which is harmless). */
#define TIMER ": a timer armed in real time, which simulated time does not deliver yet"
static int armed(const struct timespec* value) { return value && (value->tv_sec || value->tv_nsec); }

unsigned int alarm(unsigned int seconds) {
  if (controlled() && seconds) refuse("alarm", TIMER);
  struct itimerval it = {{0, 0}, {seconds, 0}}, old;
  syscall(SYS_setitimer, ITIMER_REAL, &it, &old);
  return (unsigned)old.it_value.tv_sec;
}

int setitimer(__itimer_which_t which, const struct itimerval* value, struct itimerval* old) {
  if (controlled() && value && (value->it_value.tv_sec || value->it_value.tv_usec)) refuse("setitimer", TIMER);
  return (int)syscall(SYS_setitimer, which, value, old);
}

int timer_settime(timer_t id, int flags, const struct itimerspec* value, struct itimerspec* old) {
  if (controlled() && value && armed(&value->it_value)) refuse("timer_settime", TIMER);
  int (*real)(timer_t, int, const struct itimerspec*, struct itimerspec*) =
      (int (*)(timer_t, int, const struct itimerspec*, struct itimerspec*))dlsym(RTLD_NEXT, "timer_settime");
  return real(id, flags, value, old);
}

int timerfd_settime(int fd, int flags, const struct itimerspec* value, struct itimerspec* old) {
  if (controlled() && value && armed(&value->it_value)) refuse("timerfd_settime", TIMER);
  return (int)syscall(SYS_timerfd_settime, fd, flags, value, old);
}

/* --- helper threads (LOCKSIM_SIMTIME_THREADS=1) ---------------------------
 * A runtime's own threads that never feed the program's semantics — V8's
 * platform workers (GC, compiler), Node's delayed-task scheduler, libuv's
 * thread pool — may run beside the main thread when the controller allows
 * it (docs/external-clients.md, "Node in simulated time"). Only the main
 * thread is serialised: it alone reports waits. A helper thread reads the
 * simulated clocks, and its waits are real ones (it computes, the main
 * thread picks its results up when the controller next resumes it); a
 * blocking socket call or a random draw of a helper thread is refused (its
 * order against the main thread's is not determined). Without the
 * variable, pthread_create is refused as before. */

static void helper_threads_init(void) {
  main_thread = 1;
  const char* allowed = getenv(LOCKSIM_SIMTIME_THREADS_ENV);
  helper_threads = allowed && strcmp(allowed, "1") == 0;
  if (helper_threads) locksim_seccomp_allow_threads();
}

/* A helper thread's wait: the real one, for what is left of its timeout
 * (the simulated clocks stand still while the process runs). */
static int helper_wait(const struct pollfd* fds, nfds_t n, int64_t deadline) {
  struct pollfd copy[LOCKSIM_SIMTIME_MAX_FDS];
  for (nfds_t i = 0; i < n && i < LOCKSIM_SIMTIME_MAX_FDS; ++i) copy[i] = fds[i];
  const int64_t left = deadline == LOCKSIM_SIMTIME_NO_DEADLINE ? -1 : deadline - sim_monotonic();
  const struct timespec ts = timespec_of(left > 0 ? left : 0);
  return syscall(SYS_ppoll, copy, n, left < 0 ? NULL : &ts, NULL, _NSIG / 8) > 0;
}

/* A call only the main thread may make under control. */
static void main_thread_only(const char* call) {
  if (controlled() && !main_thread)
    refuse(call, ": made by a helper thread (only the main thread's socket calls and random draws are ordered)");
}

int pthread_create(pthread_t* t, const pthread_attr_t* a, void* (*f)(void*), void* arg) {
  if (controlled() && !helper_threads) refuse("pthread_create", THREAD);
  int (*real)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*) =
      (int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*))dlsym(RTLD_NEXT, "pthread_create");
  return real(t, a, f, arg);
}

/* --- exec: a program replacing itself (env exec'ing node) ----------------
 * The same process, under control from its first instruction: the new
 * image's shim re-initialises from the inherited fds and environment and
 * says hello again, which the controller accepts after this report. An
 * environment without the shim's variables would run the program
 * uncontrolled: refused. */
static int keeps_control(char* const* envp) {
  const char* ours = getenv(LOCKSIM_SIMTIME_CHANNEL_ENV);
  int preload = 0, same_channel = 0;
  const size_t name = strlen(LOCKSIM_SIMTIME_CHANNEL_ENV);
  for (; envp && *envp; ++envp) {
    if (strncmp(*envp, "LD_PRELOAD=", 11) == 0) preload = strstr(*envp, "liblocksim_simtime") != NULL;
    if (strncmp(*envp, LOCKSIM_SIMTIME_CHANNEL_ENV, name) == 0 && (*envp)[name] == '=')
      same_channel = ours && strcmp(*envp + name + 1, ours) == 0;
  }
  return preload && same_channel;
}

int execve(const char* path, char* const* argv, char* const* envp) {
  if (!controlled()) return (int)syscall(SYS_execve, path, argv, envp);
  if (!keeps_control(envp)) refuse("execve", ": a program started without the shim's environment");
  if (syscall(SYS_access, path, X_OK) != 0) return -1; /* execvp's misses are not reported */
  struct locksim_simtime_report report = {.kind = LOCKSIM_SIMTIME_EXEC};
  copy_text(report.text, sizeof report.text, path, NULL);
  struct locksim_simtime_answer answer;
  exchange(&report, &answer);
  return (int)syscall(SYS_execve, path, argv, envp); /* returns only when it failed */
}

int execv(const char* path, char* const* argv) { return execve(path, argv, environ); }

/* execvp's search of PATH (glibc posix/execvpe.c, without its /bin/sh
 * retry for a script lacking "#!"), each try through the execve above. */
int execvpe(const char* file, char* const* argv, char* const* envp) {
  if (strchr(file, '/')) return execve(file, argv, envp);
  const char* dirs = getenv("PATH");
  if (!dirs) dirs = "/usr/local/bin:/usr/bin:/bin";
  int error = ENOENT;
  for (const char* at = dirs;; ++at) {
    const char* end = strchrnul(at, ':');
    char full[4096];
    const size_t dir = (size_t)(end - at), len = strlen(file);
    if (dir + len + 2 <= sizeof full) {
      memcpy(full, at, dir);
      full[dir] = '/';
      memcpy(full + dir + 1, file, len + 1);
      execve(dir ? full : file, argv, envp);
      if (errno == EACCES) error = EACCES;
      else if (errno != ENOENT && errno != ENOTDIR) return -1;
    }
    if (!*end) break;
    at = end;
  }
  errno = error;
  return -1;
}

int execvp(const char* file, char* const* argv) { return execvpe(file, argv, environ); }

/* --- setup --------------------------------------------------------------- */

static long env_number(const char* name) {
  const char* text = getenv(name);
  if (!text || !*text) return -1;
  char* end;
  const long n = strtol(text, &end, 10);
  return *end ? -1 : n;
}

/* The first report: which program this is, and where the shim's syscall
 * function is loaded (deadline_ns). A second hello from the same channel is
 * an exec'd program: accepted after the shim's own execve reported it (the
 * seccomp filter the first image installed stays, and passes only calls
 * from the same address), refused otherwise. */
static void hello(void) {
  struct locksim_simtime_report report = {.kind = LOCKSIM_SIMTIME_HELLO,
                                          .deadline_ns = (int64_t)(uintptr_t)&locksim_shim_syscall};
  const long got = syscall(SYS_readlink, "/proc/self/exe", report.text, sizeof report.text - 1);
  report.text[got > 0 ? got : 0] = '\0';
  struct locksim_simtime_answer answer;
  exchange(&report, &answer);
}

/* --- the first input: settle, or serve forks (the zygote) ----------------
 * simtime_protocol.h: a program's start (a runtime and its imports) runs at
 * clocks and a seed that do not depend on the run; at its first read of, or
 * wait on, stdin it takes the run's, straight away ("settle") or in each
 * child a zygote forks there ("zygote"). The fork is the shim's own, made
 * where the program waits: the program never sees it, and a fork the
 * program makes is still refused. */

enum { FIRST_INPUT_NONE, FIRST_INPUT_SETTLE, FIRST_INPUT_ZYGOTE };
static int first_input_mode;
static uint64_t startup_seed;

static int first_input_wanted(void) {
  const char* mode = getenv(LOCKSIM_SIMTIME_FIRST_INPUT_ENV);
  if (!mode) return FIRST_INPUT_NONE;
  return strcmp(mode, "zygote") == 0 ? FIRST_INPUT_ZYGOTE : strcmp(mode, "settle") == 0 ? FIRST_INPUT_SETTLE : -1;
}

/* The run's seed, from the controller (which sets the run's clocks before
 * it answers); the stream goes on as far into it as the start drew. */
static void settle(void) {
  struct locksim_simtime_report report = {.kind = LOCKSIM_SIMTIME_SETTLE};
  struct locksim_simtime_answer answer;
  exchange(&report, &answer);
  random_state = answer.seed + (random_state - startup_seed);
  virtual_pid = pid_of(answer.seed);
}

/* The next fork order's fds; 0 when the controller is gone. */
static int fork_order(int fds[LOCKSIM_SIMTIME_FORK_FDS]) {
  struct locksim_simtime_answer order;
  union {
    char buf[CMSG_SPACE(sizeof(int) * LOCKSIM_SIMTIME_FORK_FDS)];
    struct cmsghdr align;
  } control;
  struct iovec iov = {&order, sizeof order};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control};
  long got;
  do got = syscall(SYS_recvmsg, channel, &msg, MSG_CMSG_CLOEXEC);
  while (got < 0 && errno == EINTR);
  const struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (got != (long)sizeof order || order.kind != LOCKSIM_SIMTIME_FORK || !c || c->cmsg_type != SCM_RIGHTS ||
      c->cmsg_len != CMSG_LEN(sizeof(int) * LOCKSIM_SIMTIME_FORK_FDS))
    return 0;
  memcpy(fds, CMSG_DATA(c), sizeof(int) * LOCKSIM_SIMTIME_FORK_FDS);
  return 1;
}

/* The forked child takes the order's fds: stdin, stdout, stderr, and its
 * channel and clocks page under the numbers the zygote's had (its fd table
 * is then a fresh start's). Like a fresh start it leads its own group and
 * dies with the controller's thread, its parent (CLONE_PARENT). */
static void become_child(const int fds[LOCKSIM_SIMTIME_FORK_FDS], long owner) {
  syscall(SYS_setpgid, 0, 0);
  syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL);
  if (syscall(SYS_getppid) != owner) syscall(SYS_exit_group, 127);
  for (int i = 0; i < 3; ++i) syscall(SYS_dup2, fds[2 + i], i);
  syscall(SYS_dup2, fds[0], channel);
  void* block = mmap(NULL, sizeof *clocks, PROT_READ, MAP_SHARED, fds[1], 0);
  if (block == MAP_FAILED) syscall(SYS_exit_group, 125);
  munmap((void*)clocks, sizeof *clocks);
  clocks = block;
  for (int i = 0; i < LOCKSIM_SIMTIME_FORK_FDS; ++i) syscall(SYS_close, fds[i]);
  hello();
}

/* The zygote: one fork per order, until the controller is gone; returns
 * in each child only. */
static void serve_forks(void) {
  const long owner = syscall(SYS_getppid);
  struct locksim_simtime_report report = {.kind = LOCKSIM_SIMTIME_ZYGOTE};
  for (;;) {
    if (syscall(SYS_sendto, channel, &report, sizeof report, MSG_NOSIGNAL, NULL, 0) != (long)sizeof report)
      syscall(SYS_exit_group, 125);
    int fds[LOCKSIM_SIMTIME_FORK_FDS];
    if (!fork_order(fds)) syscall(SYS_exit_group, 0);
    const long pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);
    if (pid == 0) return become_child(fds, owner);
    const int error = errno;
    for (int i = 0; i < LOCKSIM_SIMTIME_FORK_FDS; ++i) syscall(SYS_close, fds[i]);
    report = (struct locksim_simtime_report){.kind = LOCKSIM_SIMTIME_FORKED};
    report.fds[0] = pid < 0 ? -error : (int32_t)pid;
  }
}

static void first_input(void) {
  if (!controlled() || first_input_mode == FIRST_INPUT_NONE) return;
  const int saved = errno, mode = first_input_mode;
  first_input_mode = FIRST_INPUT_NONE;
  if (mode < 0) refuse(LOCKSIM_SIMTIME_FIRST_INPUT_ENV, ": neither settle nor zygote");
  if (mode == FIRST_INPUT_ZYGOTE) serve_forks();
  settle();
  errno = saved;
}

/* A call the filter trapped: made outside the wrappers, so uncontrolled. */
static void trapped_call(long number) {
  char why[160];
  copy_text(why, sizeof why, locksim_trapped_name(number),
            " outside the shim's wrappers (a raw syscall, or a libc-internal call)");
  refuse("the system call ", why);
}

__attribute__((constructor)) static void locksim_simtime_init(void) {
  const long page = env_number(LOCKSIM_SIMTIME_CLOCKS_ENV), fd = env_number(LOCKSIM_SIMTIME_CHANNEL_ENV);
  if (page < 0 || fd < 0) return;
  void* block = mmap(NULL, sizeof(struct locksim_simtime_clocks), PROT_READ, MAP_SHARED, (int)page, 0);
  if (block == MAP_FAILED || ((const struct locksim_simtime_clocks*)block)->magic != LOCKSIM_SIMTIME_MAGIC) return;
  const char* seed = getenv(LOCKSIM_SIMTIME_SEED_ENV);
  random_state = seed ? strtoull(seed, NULL, 10) : 0;
  virtual_pid = pid_of(random_state);
  startup_seed = random_state;
  first_input_mode = first_input_wanted();
  channel = (int)fd;
  clocks_fd = (int)page;
  clocks = block;
  helper_threads_init();
  hello();
  if (locksim_install_seccomp(trapped_call) != 0)
    refuse("seccomp", ": the filter that traps calls made outside the shim could not be installed");
}
