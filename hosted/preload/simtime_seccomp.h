/* The shim's own system calls, and the seccomp filter that traps the same
 * calls made from anywhere else in the process (simtime_seccomp.c). */
#ifndef LOCKSIM_SIMTIME_SECCOMP_H
#define LOCKSIM_SIMTIME_SECCOMP_H

/* syscall(2), issued from the shim's own code (a section the filter knows):
 * -1 and errno on failure. */
__attribute__((visibility("hidden"))) long locksim_shim_syscall(long number, ...);

/* Installs the filter; `on_trap` runs (in the SIGSYS handler) with the
 * number of a trapped call. 0, or -1 with errno. */
__attribute__((visibility("hidden"))) int locksim_install_seccomp(void (*on_trap)(long number));

/* The name of a system call the filter traps ("?" for another). */
__attribute__((visibility("hidden"))) const char* locksim_trapped_name(long number);

/* Before locksim_install_seccomp: threads (clone with CLONE_THREAD) pass
 * from anywhere, and clone3 fails with ENOSYS outside the shim, so glibc's
 * pthread_create falls back to clone, whose flags the filter can read
 * (clone3's are behind a pointer). A clone without CLONE_THREAD (another
 * process) is still trapped. */
__attribute__((visibility("hidden"))) void locksim_seccomp_allow_threads(void);

#endif
