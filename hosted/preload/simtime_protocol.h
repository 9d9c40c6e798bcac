/* The shared layout between a controller (hosted/controlled_process.hpp)
 * and liblocksim_simtime.so, the LD_PRELOAD shim that puts one client
 * process's time under it (simtime_preload.c).
 *
 * Shadow's model (shadow.github.io, "design"): a process runs until it
 * blocks; the controller then decides when, in simulated time, the wait
 * ends, and only then does the process run again. Two channels, both
 * inherited file descriptors whose numbers the environment names:
 *  - the clocks page (LOCKSIM_SIMTIME_CLOCKS): a memfd the controller maps
 *    read-write and the shim read-only, holding the host's simulated
 *    monotonic and wall instants. The controller writes it only while the
 *    process is blocked, so plain atomic loads suffice. It also holds the
 *    process's address map: the 127.0.0.1 ports the process is told (one
 *    per simulated node, the same in every run) and the real, ephemeral
 *    ports locksim's sockets listen on; connect() goes to the real one and
 *    getpeername() shows the told one, so nothing the library says or
 *    does depends on which port the kernel gave out;
 *  - the channel (LOCKSIM_SIMTIME_CHANNEL): one end of an AF_UNIX
 *    SOCK_SEQPACKET pair (one message per send, never merged or split).
 *    The shim sends a report when the process would block (what it waits
 *    for) or meets something it cannot control (a refusal), then reads the
 *    answer: ready (these fds) or timed out.
 * LOCKSIM_SIMTIME_SEED (decimal) seeds the process's randomness.
 *
 * The first input (LOCKSIM_SIMTIME_FIRST_INPUT, an adapter's processes,
 * hosted/process_lock_host.hpp): what a program does before its first read
 * of, or wait on, its stdin (a runtime's start and imports) is the same in
 * every run: it runs at the clocks and seed the controller started it with,
 * which do not depend on the run. There the shim stops:
 *  - "settle": it reports LOCKSIM_SIMTIME_SETTLE; the controller sets the
 *    run's clocks and answers with the run's seed, from which the stream
 *    goes on (as far into it as the start drew);
 *  - "zygote": it reports LOCKSIM_SIMTIME_ZYGOTE and serves fork orders
 *    (LOCKSIM_SIMTIME_FORK, with the child's channel, clocks page, stdin,
 *    stdout and stderr as SCM_RIGHTS): each child says hello on its own
 *    channel and settles as above, so a run's process is the same whether
 *    it was forked or started afresh; the zygote answers LOCKSIM_SIMTIME_FORKED
 *    (fds[0]: the child's pid, or -errno). */
#ifndef LOCKSIM_SIMTIME_PROTOCOL_H
#define LOCKSIM_SIMTIME_PROTOCOL_H

#include <stdint.h>

#define LOCKSIM_SIMTIME_MAGIC 0x73696d74696d6531ULL /* "simtime1" */
#define LOCKSIM_SIMTIME_CLOCKS_ENV "LOCKSIM_SIMTIME_CLOCKS"
#define LOCKSIM_SIMTIME_CHANNEL_ENV "LOCKSIM_SIMTIME_CHANNEL"
#define LOCKSIM_SIMTIME_SEED_ENV "LOCKSIM_SIMTIME_SEED"
#define LOCKSIM_SIMTIME_FIRST_INPUT_ENV "LOCKSIM_SIMTIME_FIRST_INPUT"
#define LOCKSIM_SIMTIME_FORK_FDS 5 /* channel, clocks page, stdin, stdout, stderr */
/* "1": the runtime's helper threads may run beside the main thread, which
 * alone is serialised (simtime_preload.c, "helper threads"). */
#define LOCKSIM_SIMTIME_THREADS_ENV "LOCKSIM_SIMTIME_THREADS"
/* The most fds one wait may name; a wait on more is refused. */
#define LOCKSIM_SIMTIME_MAX_FDS 64
#define LOCKSIM_SIMTIME_NO_DEADLINE INT64_MAX

/* The most simulated nodes one process's address map holds. */
#define LOCKSIM_SIMTIME_MAX_PORTS 16

struct locksim_simtime_clocks {
  uint64_t magic;
  int64_t monotonic_ns; /* CLOCK_MONOTONIC*, CLOCK_BOOTTIME* */
  int64_t wall_ns;      /* CLOCK_REALTIME*, CLOCK_TAI, gettimeofday, time */
  /* The address map (written before the process starts): 127.0.0.1:told[i]
   * is 127.0.0.1:real[i]. */
  uint32_t ports;
  uint16_t told[LOCKSIM_SIMTIME_MAX_PORTS];
  uint16_t real[LOCKSIM_SIMTIME_MAX_PORTS];
};

enum locksim_simtime_kind {
  LOCKSIM_SIMTIME_BLOCK = 1,     /* report: waits for fds and/or a deadline */
  LOCKSIM_SIMTIME_REFUSE = 2,    /* report: cannot be controlled (`text`) */
  LOCKSIM_SIMTIME_READY = 3,     /* answer: these fds are ready */
  LOCKSIM_SIMTIME_TIMED_OUT = 4, /* answer: the deadline passed */
  LOCKSIM_SIMTIME_HELLO = 5,     /* report: a program started (`text`: its path;
                                    `deadline_ns`: the shim's syscall function's address) */
  LOCKSIM_SIMTIME_SETTLE = 6,    /* report: its first input; answer READY with `seed` */
  LOCKSIM_SIMTIME_ZYGOTE = 7,    /* report: its first input; it serves fork orders now */
  LOCKSIM_SIMTIME_FORK = 8,      /* answer to a zygote: fork a child (fds attached) */
  LOCKSIM_SIMTIME_FORKED = 9,    /* report: the child's pid in fds[0] */
  LOCKSIM_SIMTIME_EXEC = 10,     /* report: about to exec `text` (its hello follows) */
};

/* Shim -> controller. `deadline_ns` is on the simulated monotonic clock
 * (LOCKSIM_SIMTIME_NO_DEADLINE: none); `text` names the call (a block) or
 * the reason (a refusal), NUL-terminated. */
struct locksim_simtime_report {
  uint32_t kind;
  uint32_t nfds;
  int64_t deadline_ns;
  int32_t fds[LOCKSIM_SIMTIME_MAX_FDS];
  int16_t events[LOCKSIM_SIMTIME_MAX_FDS]; /* poll(2) events */
  char text[240];
};

/* Controller -> shim. */
struct locksim_simtime_answer {
  uint32_t kind;
  uint32_t nfds;
  int32_t fds[LOCKSIM_SIMTIME_MAX_FDS];
  uint64_t seed; /* the answer to LOCKSIM_SIMTIME_SETTLE: the run's seed */
};

#endif
