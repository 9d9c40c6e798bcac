#!/usr/bin/python3
"""A peer of `locksim hunt`: Hypothesis + fakeredis searching GC-pause schedules.

Why: bench/figures.sh compares locksim's search with the idiomatic Python
way of doing the same job, so its speed figures are ratios against a real
alternative, not absolute numbers only. This harness is written the way a
careful Python team would write it (st.data(), a fake clock, fakeredis as
the Redis, Hypothesis's own shrinking), for the same story and the same
properties as locksim's gc-pause hunt:

- 2 or 3 clients, each takes the lock (SET key token NX PX ttl, retried every
  `retry` until `acquire_timeout`), works `work` ms doing `writes` storage
  writes spaced evenly through the section, then releases: the naive lock
  with a bare DEL, the token lock with the compare-and-delete script
  (EVAL, which fakeredis runs on Lua via lupa).
- 0 to 2 GC pauses, each of a drawn length on a drawn client, at a drawn
  true time or a drawn offset after that client's acquire. A paused client
  runs nothing until the pause ends; its monotonic sleeps keep elapsing, so
  overdue steps run right after it wakes (as in locksim's pause fault).
- The fake clock is an integer of milliseconds that only the event loop
  advances. Expiry: fakeredis reads `time.time()` before every command and
  expires keys lazily on access (as Redis does on access); the harness
  replaces the `time` that fakeredis's command loop sees by the fake clock,
  so a PX deadline passes exactly when the fake clock passes it.
- Properties, as docs/scenario-format.md defines them: mutual-exclusion (two
  clients believed they held the lock at the same true instant; belief runs
  from the acquire reply until the release starts; a paused client keeps
  believing) and wrong-owner-release (a release removed a lock entry another
  client created). Commands take no simulated time (no network model): a
  simplification that favours this harness, whose examples are then cheaper.

Modes (each prints `key=value` lines that figures.sh parses):
  --find [--lock naive|token] [--property P] [--seeds N]
      time to the first counterexample and after shrinking, per Hypothesis
      seed (no example database, so nothing is remembered between seeds)
  --rate [--lock token] [--examples N]
      examples per second on a lock/property with no counterexample
"""
import argparse
import heapq
import statistics
import sys
import time
import types

import fakeredis
import fakeredis._fakesocket as fakesocket
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

COMPARE_AND_DELETE = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('del', KEYS[1]) else return 0 end")
KEY = "lock:job"


class FakeClock:
    """Milliseconds of true time; only Run's event loop moves it."""

    def __init__(self):
        self.now_ms = 0

    def time(self):
        return self.now_ms / 1000.0


CLOCK = FakeClock()
# fakeredis's command loop calls time.time() to set the keyspace's "now";
# give it the fake clock (the rest of `time` untouched).
fakesocket.time = types.SimpleNamespace(time=CLOCK.time, sleep=time.sleep)


class Run:
    """One schedule: clients as steps on an event heap ordered by (time, seq)."""

    def __init__(self, schedule, lock):
        self.s = schedule
        self.lock = lock
        self.redis = fakeredis.FakeStrictRedis(server=fakeredis.FakeServer())
        self.events = []
        self.seq = 0
        self.pauses = {c: [] for c in range(len(schedule["clients"]))}  # client -> [(start, end)]
        self.belief = {}        # client -> start of its current belief
        self.intervals = []     # (start, end, client)
        self.creator = None     # who created the current lock entry
        self.wrong_releases = []
        self.writes = []        # the storage: (time, client, grant)
        self.grants = 0
        CLOCK.now_ms = 0

    def at(self, t, client, step, *args):
        self.seq += 1
        heapq.heappush(self.events, (t, self.seq, client, step, args))

    def paused_until(self, client, t):
        for start, end in self.pauses[client]:
            if start <= t < end:
                return end
        return None

    def run(self):
        for c, spec in enumerate(self.s["clients"]):
            self.at(spec["start"], c, self.acquire, spec["start"] + self.s["acquire_timeout"])
        for p in self.s["pauses"]:
            if p["after_acquired"] is None:
                self.pauses[p["client"]].append((p["at"], p["at"] + p["length"]))
        while self.events:
            t, _, client, step, args = heapq.heappop(self.events)
            wake = self.paused_until(client, t)
            if wake is not None:  # the process is stopped: the step runs when it wakes
                self.at(wake, client, step, *args)
                continue
            CLOCK.now_ms = t
            step(client, *args)
        return self

    def acquire(self, c, deadline):
        token = f"{c}:{self.seq}"
        if self.redis.set(KEY, token, nx=True, px=self.s["ttl"]):
            self.creator = c
            self.grants += 1
            self.belief[c] = CLOCK.now_ms
            start = CLOCK.now_ms
            for p in self.s["pauses"]:
                if p["client"] == c and p["after_acquired"] == c:
                    self.pauses[c].append((start + p["at"], start + p["at"] + p["length"]))
            spec = self.s["clients"][c]
            for i in range(1, spec["writes"] + 1):
                self.at(start + spec["work"] * i // (spec["writes"] + 1), c, self.write, self.grants)
            self.at(start + spec["work"], c, self.release, token)
        elif CLOCK.now_ms + self.s["retry"] <= deadline:
            self.at(CLOCK.now_ms + self.s["retry"], c, self.acquire, deadline)

    def write(self, c, grant):
        self.writes.append((CLOCK.now_ms, c, grant))

    def release(self, c, token):
        self.intervals.append((self.belief.pop(c), CLOCK.now_ms, c))
        owner = self.creator
        if self.lock == "naive":
            removed = self.redis.delete(KEY)
        else:
            removed = self.redis.eval(COMPARE_AND_DELETE, 1, KEY, token)
        if removed and owner != c:
            self.wrong_releases.append((CLOCK.now_ms, c, owner))

    def mutual_exclusion(self):
        spans = sorted(self.intervals)
        return [(a, b) for i, a in enumerate(spans) for b in spans[i + 1:] if b[0] < a[1] and a[2] != b[2]]


@st.composite
def client_spec(draw, ttl, index):
    return {
        "start": 0 if index == 0 else draw(st.integers(0, ttl)),
        "work": ttl * draw(st.integers(20, 80)) // 100,
        "writes": draw(st.integers(1, 3)),
    }


def draw_schedule(data):
    """The same space as locksim's generator for pauses (scenarios/schedule_gen.cpp)."""
    ttl = 1000 + 250 * data.draw(st.integers(0, 36), label="ttl steps")
    n = data.draw(st.integers(2, 3), label="clients")
    clients = [data.draw(client_spec(ttl, i), label=f"client {i}") for i in range(n)]
    pauses = data.draw(st.lists(st.fixed_dictionaries({
        "client": st.integers(0, n - 1),
        "after_acquired": st.one_of(st.none(), st.integers(0, n - 1)),
        "at": st.integers(0, 3 * ttl),
        "length": st.integers(1, 3 * ttl),
    }), max_size=2), label="pauses")
    for p in pauses:  # a trigger on "C acquired" pauses C itself, within one TTL of it
        if p["after_acquired"] is not None:
            p["after_acquired"] = p["client"]
            p["at"] = min(p["at"], ttl)
    return {"ttl": ttl, "retry": max(10, ttl // 20), "acquire_timeout": ttl * (2 + n),
            "clients": clients, "pauses": pauses}


def violated(run, prop):
    if prop == "wrong-owner-release":
        return bool(run.wrong_releases)
    return bool(run.mutual_exclusion())


class Counter:
    def __init__(self):
        self.examples = 0
        self.first_fail_s = None
        self.first_fail_cpu_s = None
        self.first_fail_examples = None
        self.last_failing = None


def clocks():
    """(wall, CPU) seconds now: figures.sh reports both (the machine may be loaded)."""
    return time.perf_counter(), time.process_time()


def since(start):
    return time.perf_counter() - start[0], time.process_time() - start[1]


def make_test(lock, prop, counter, start, hypothesis_seed, max_examples):
    @seed(hypothesis_seed)
    @settings(max_examples=max_examples, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), print_blob=False,
              phases=[Phase.generate, Phase.shrink])
    @given(st.data())
    def test(data):
        counter.examples += 1
        schedule = draw_schedule(data)
        run = Run(schedule, lock).run()
        if violated(run, prop):
            if counter.first_fail_s is None:
                counter.first_fail_s = time.perf_counter() - start[0]
                counter.first_fail_cpu_s = time.process_time() - start[1]
                counter.first_fail_examples = counter.examples
            counter.last_failing = schedule
            raise AssertionError(f"{prop} violated")
    return test


def find(lock, prop, seeds, max_examples):
    firsts, first_cpus, totals, total_cpus, examples = [], [], [], [], []
    for s in range(seeds):
        counter = Counter()
        start = clocks()
        test = make_test(lock, prop, counter, start, s, max_examples)
        try:
            test()
            print(f"seed={s} found=0 examples={counter.examples}")
            continue
        except AssertionError:
            pass
        total, total_cpu = since(start)
        # Hypothesis replays the minimal example last: that is the shrunk one.
        shrunk = counter.last_failing
        size = len(shrunk["clients"]) + len(shrunk["pauses"])
        print(f"seed={s} found=1 first_counterexample_s={counter.first_fail_s:.4f} "
              f"examples_to_first={counter.first_fail_examples} with_shrink_s={total:.4f} "
              f"examples_with_shrink={counter.examples} shrunk_clients={len(shrunk['clients'])} "
              f"shrunk_pauses={len(shrunk['pauses'])} shrunk_size={size} shrunk={shrunk}")
        firsts.append(counter.first_fail_s)
        first_cpus.append(counter.first_fail_cpu_s)
        totals.append(total)
        total_cpus.append(total_cpu)
        examples.append(counter.first_fail_examples)
    if not firsts:
        print("found=0")
        return 1
    print(f"found={len(firsts)}/{seeds} median_first_counterexample_s={statistics.median(firsts):.4f} "
          f"median_first_counterexample_cpu_s={statistics.median(first_cpus):.4f} "
          f"median_with_shrink_s={statistics.median(totals):.4f} "
          f"median_with_shrink_cpu_s={statistics.median(total_cpus):.4f} "
          f"median_examples_to_first={statistics.median(examples):g}")
    return 0


def rate(lock, prop, examples):
    counter = Counter()
    start = clocks()
    make_test(lock, prop, counter, start, 0, examples)()
    secs, cpu = since(start)
    print(f"examples={counter.examples} seconds={secs:.3f} examples_per_s={counter.examples / secs:.1f} "
          f"cpu_examples_per_s={counter.examples / cpu:.1f}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--find", action="store_true", help="time to the first counterexample")
    mode.add_argument("--rate", action="store_true", help="examples per second, no counterexample")
    ap.add_argument("--lock", choices=["naive", "token"])
    ap.add_argument("--property", choices=["wrong-owner-release", "mutual-exclusion"],
                    default="wrong-owner-release")
    ap.add_argument("--seeds", type=int, default=5, help="--find: Hypothesis seeds to try")
    ap.add_argument("--examples", type=int, default=1000, help="examples at most (per seed)")
    args = ap.parse_args()
    if args.seeds < 1 or args.examples < 1:
        ap.error("--seeds and --examples must be at least 1")  # one line, exit 2
    if args.find:
        return find(args.lock or "naive", args.property, args.seeds, args.examples)
    return rate(args.lock or "token", args.property, args.examples)


if __name__ == "__main__":
    sys.exit(main())
