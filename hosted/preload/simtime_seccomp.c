/* A seccomp filter behind the shim (simtime_preload.c): the calls the shim
 * wraps — waits, clock reads that enter the kernel, randomness, thread and
 * process creation — are trapped (SIGSYS) when they come from anywhere but
 * the shim's own syscall function: a raw syscall(2) of the program, or a
 * libc-internal call that never went through a wrapper (glibc's execl,
 * system's and popen's process creation, a resolver's poll). The shim's
 * function lives in its own ELF section, whose bounds the linker gives, and
 * the filter compares the calling instruction's address with them.
 *
 * x86-64 only (the syscall instruction and the audit arch); elsewhere the
 * filter is not installed and locksim_install_seccomp fails with ENOSYS. The
 * clock reads a runtime makes through the vDSO never enter the kernel:
 * no filter can see them (the wrappers do when they go through libc). */
#define _GNU_SOURCE
#include "simtime_seccomp.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>

#if defined(__x86_64__)

__attribute__((noinline, section("locksim_simtime_calls"))) long locksim_shim_syscall(long number, ...) {
  va_list args;
  va_start(args, number);
  register long a1 __asm__("rdi") = va_arg(args, long);
  register long a2 __asm__("rsi") = va_arg(args, long);
  register long a3 __asm__("rdx") = va_arg(args, long);
  register long a4 __asm__("r10") = va_arg(args, long);
  register long a5 __asm__("r8") = va_arg(args, long);
  register long a6 __asm__("r9") = va_arg(args, long);
  va_end(args);
  long r;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "a"(number), "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5), "r"(a6)
                   : "rcx", "r11", "memory");
  if (r < 0 && r > -4096) {
    errno = (int)-r;
    return -1;
  }
  return r;
}

extern const char __start_locksim_simtime_calls[] __attribute__((visibility("hidden")));
extern const char __stop_locksim_simtime_calls[] __attribute__((visibility("hidden")));

/* Trapped whatever their arguments. */
static const long trapped[] = {
    SYS_nanosleep,   SYS_poll,        SYS_ppoll,        SYS_select,  SYS_pselect6, SYS_epoll_wait,
    SYS_epoll_pwait, SYS_epoll_pwait2, SYS_gettimeofday, SYS_time,   SYS_clone,    SYS_clone3,
    SYS_fork,        SYS_vfork,       SYS_execve,       SYS_execveat,
};
/* Trapped on a clock the controller moves (the first argument); the CPU
 * clocks pass. */
static const long clock_calls[] = {SYS_clock_gettime, SYS_clock_nanosleep};
static const unsigned moved_clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
                                        CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME,
                                        CLOCK_REALTIME_ALARM, CLOCK_BOOTTIME_ALARM, CLOCK_TAI};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define DATA(field) offsetof(struct seccomp_data, field)
enum { PROGRAM_MAX = 64 };

static struct sock_filter program[PROGRAM_MAX];
static unsigned length;

static void put(unsigned short code, unsigned k, unsigned char jt, unsigned char jf) {
  program[length++] = (struct sock_filter){code, jt, jf, k};
}

/* A jump's offset from the instruction about to be put to `target`. */
static unsigned char to(unsigned target) { return (unsigned char)(target - length - 1); }

static int threads_allowed;

void locksim_seccomp_allow_threads(void) { threads_allowed = 1; }

/* Layout: the arch check; with threads allowed, clone3 and clone first;
 * one test a trapped number, ALLOW; the clock-id tests, ALLOW; getrandom's
 * exception; with threads allowed, clone's CLONE_THREAD test; the address
 * check (from the shim: ALLOW, else TRAP); ENOSYS. getrandom(8 bytes,
 * GRND_NONBLOCK) passes: glibc's malloc draws its tcache key so (malloc.c,
 * tcache_key_initialize), a value nothing the program prints depends on. */
static int build(void) {
  const unsigned threads = threads_allowed ? 2 : 0;
  const unsigned clocks_at = 3 + threads + N(trapped) + N(clock_calls) + 2;
  const unsigned getrandom_at = clocks_at + 1 + N(moved_clocks) + 1, clone_at = getrandom_at + 4;
  const unsigned check_at = clone_at + threads, trap_at = check_at + 5, allow_at = trap_at + 1;
  const unsigned enosys_at = allow_at + 1;
  const unsigned long start = (unsigned long)__start_locksim_simtime_calls;
  const unsigned long stop = (unsigned long)__stop_locksim_simtime_calls;
  if (enosys_at + 1 > PROGRAM_MAX || (start >> 32) != ((stop - 1) >> 32)) return -1;
  put(BPF_LD | BPF_W | BPF_ABS, DATA(arch), 0, 0);
  put(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, to(allow_at));
  put(BPF_LD | BPF_W | BPF_ABS, DATA(nr), 0, 0);
  if (threads) {
    put(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, to(enosys_at), 0);
    put(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, to(clone_at), 0);
  }
  for (size_t i = 0; i < N(trapped); ++i) put(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)trapped[i], to(check_at), 0);
  for (size_t i = 0; i < N(clock_calls); ++i)
    put(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)clock_calls[i], to(clocks_at), 0);
  put(BPF_JMP | BPF_JEQ | BPF_K, SYS_getrandom, to(getrandom_at), 0);
  put(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
  put(BPF_LD | BPF_W | BPF_ABS, DATA(args[0]), 0, 0); /* clocks_at; the low half on x86-64 */
  for (size_t i = 0; i < N(moved_clocks); ++i) put(BPF_JMP | BPF_JEQ | BPF_K, moved_clocks[i], to(check_at), 0);
  put(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
  put(BPF_LD | BPF_W | BPF_ABS, DATA(args[1]), 0, 0); /* getrandom_at */
  put(BPF_JMP | BPF_JEQ | BPF_K, 8, 0, to(check_at));
  put(BPF_LD | BPF_W | BPF_ABS, DATA(args[2]), 0, 0);
  put(BPF_JMP | BPF_JEQ | BPF_K, GRND_NONBLOCK, to(allow_at), to(check_at));
  if (threads) {
    put(BPF_LD | BPF_W | BPF_ABS, DATA(args[0]), 0, 0); /* clone_at: its flags */
    put(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, to(allow_at), to(check_at));
  }
  put(BPF_LD | BPF_W | BPF_ABS, DATA(instruction_pointer) + 4, 0, 0); /* check_at: the high half */
  put(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(start >> 32), 0, to(trap_at));
  put(BPF_LD | BPF_W | BPF_ABS, DATA(instruction_pointer), 0, 0);
  put(BPF_JMP | BPF_JGE | BPF_K, (unsigned)start, 0, to(trap_at));
  put(BPF_JMP | BPF_JGE | BPF_K, (unsigned)stop, 0, to(allow_at));
  put(BPF_RET | BPF_K, SECCOMP_RET_TRAP, 0, 0); /* trap_at */
  put(BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0); /* allow_at */
  put(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS, 0, 0); /* enosys_at */
  return 0;
}

static void (*trap_handler)(long);

static void on_sigsys(int sig, siginfo_t* info, void* context) {
  (void)sig;
  (void)context;
  trap_handler(info->si_syscall);
}

int locksim_install_seccomp(void (*on_trap)(long number)) {
  if (build() != 0) {
    errno = EINVAL;
    return -1;
  }
  trap_handler = on_trap;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_sigsys;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  if (sigaction(SIGSYS, &action, NULL) != 0) return -1;
  const struct sock_fprog fprog = {(unsigned short)length, program};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return (int)locksim_shim_syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
}

#else
#include <unistd.h>

long locksim_shim_syscall(long number, ...) {
  va_list args;
  va_start(args, number);
  long a[6];
  for (int i = 0; i < 6; ++i) a[i] = va_arg(args, long);
  va_end(args);
  return syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

void locksim_seccomp_allow_threads(void) {}

int locksim_install_seccomp(void (*on_trap)(long number)) {
  (void)on_trap;
  errno = ENOSYS;
  return -1;
}

#endif

const char* locksim_trapped_name(long number) {
  switch (number) {
    case SYS_nanosleep: return "nanosleep";
    case SYS_clock_nanosleep: return "clock_nanosleep";
    case SYS_clock_gettime: return "clock_gettime";
    case SYS_gettimeofday: return "gettimeofday";
    case SYS_time: return "time";
    case SYS_poll: return "poll";
    case SYS_ppoll: return "ppoll";
    case SYS_select: return "select";
    case SYS_pselect6: return "pselect6";
    case SYS_epoll_wait: return "epoll_wait";
    case SYS_epoll_pwait: return "epoll_pwait";
    case SYS_epoll_pwait2: return "epoll_pwait2";
    case SYS_getrandom: return "getrandom";
    case SYS_clone: return "clone";
    case SYS_clone3: return "clone3";
    case SYS_fork: return "fork";
    case SYS_vfork: return "vfork";
    case SYS_execve: return "execve";
    case SYS_execveat: return "execveat";
    default: return "?";
  }
}
