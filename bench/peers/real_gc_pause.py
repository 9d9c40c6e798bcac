#!/usr/bin/python3
"""The gc-pause story against a real redis-server with real sleeps.

Why: bench/figures.sh sets locksim's simulated gc-pause runs per second
beside what the same story costs on a real server, where a run lasts as
long as its timeline. This script starts its own redis-server on a free
loopback port (no persistence), runs the catalog's gc-pause scenario
(scenarios/catalog/gc-pause.toml) scaled so the TTL is `--ttl-ms`, and
stops the server. No SIGSTOP: A's "GC pause" is A's thread sleeping, and
A's later steps keep their monotonic deadlines, so they run right after it
wakes, as in locksim's pause fault.

The timeline, in units of TTL/30 (the catalog's 30 s TTL): A acquires at 0
and pauses at 0.1 for 35; B tries from 5 and C from 32, retrying every
TTL/300 (at least 0.5 ms); each works 10 with 2 writes to the storage (a
list in this process). The lock is the naive one: SET key token NX PX ttl,
released with a bare delete. The delete is sent as GETDEL (Redis >= 6.2):
the same effect as DEL on the keyspace, but the reply names whose entry it
removed, which the wrong-owner-release check needs.

Checks, as docs/scenario-format.md defines them: mutual-exclusion (two
belief intervals overlap; belief from the SET reply to the release start),
wrong-owner-release (a release removed another client's entry), stale-write
(a write from a holder after a write from a later holder).

  --ttl-ms T --runs N   N runs at TTL T; prints one line per run and
                        `reproduced=K/N seconds_per_run=… runs_per_s=…`
  --search --runs N     TTLs from 1000 ms down; the shortest at which all N
                        runs reproduce the three violations (`shortest_ttl_ms=`)
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

import redis

KEY = "lock:job:daily-report"
SEARCH_TTLS_MS = [1000, 500, 300, 200, 150, 100, 75, 50, 30, 20, 10]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A private redis-server on 127.0.0.1, no RDB/AOF, removed on exit."""

    def __enter__(self):
        self.dir = tempfile.mkdtemp(prefix="locksim-peer-")
        self.port = free_port()
        self.proc = subprocess.Popen(
            [shutil.which("redis-server") or "/usr/bin/redis-server", "--bind", "127.0.0.1",
             "--port", str(self.port), "--save", "", "--appendonly", "no", "--dir", self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis(port=self.port).ping()
                return self
            except redis.ConnectionError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("redis-server did not start")
                time.sleep(0.02)

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


class Story:
    """One run of gc-pause at TTL `ttl_ms`; clients are threads with real sleeps."""

    def __init__(self, port, ttl_ms):
        self.port = port
        self.ttl_ms = ttl_ms
        self.unit = ttl_ms / 30000.0  # seconds per catalog second
        self.retry = max(0.0005, ttl_ms / 300000.0)
        self.lock = threading.Lock()
        self.intervals, self.writes, self.wrong_releases = [], [], []
        self.grants = 0
        self.t0 = None

    def now(self):
        return time.monotonic() - self.t0

    def sleep_until(self, t):
        delay = t - self.now()
        if delay > 0:
            time.sleep(delay)

    def client(self, name, start, pause_at=None, pause=0.0):
        conn = redis.Redis(port=self.port)
        token = f"{name}-{os.getpid()}-{id(self)}"
        self.sleep_until(start * self.unit)
        deadline = self.now() + 60 * self.unit
        while not conn.set(KEY, token, nx=True, px=self.ttl_ms):
            if self.now() > deadline:
                return
            time.sleep(self.retry)
        acquired = self.now()
        with self.lock:
            self.grants += 1
            grant = self.grants
        if pause_at is not None:
            self.sleep_until(acquired + pause_at * self.unit)
            time.sleep(pause * self.unit)  # the GC pause
        for i in (1, 2):
            self.sleep_until(acquired + 10 * self.unit * i / 3)
            with self.lock:
                self.writes.append((self.now(), name, grant))
        self.sleep_until(acquired + 10 * self.unit)
        released = self.now()
        removed = conn.getdel(KEY)  # DEL, with the removed entry's value in the reply
        with self.lock:
            self.intervals.append((acquired, released, name))
            if removed is not None and removed.decode() != token:
                self.wrong_releases.append((released, name, removed.decode()))

    def run(self):
        redis.Redis(port=self.port).delete(KEY)
        self.t0 = time.monotonic()
        threads = [threading.Thread(target=self.client, args=a) for a in
                   (("A", 0, 0.1, 35.0), ("B", 5), ("C", 32))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return self

    def violations(self):
        spans = sorted(self.intervals)
        mutex = any(b[0] < a[1] for i, a in enumerate(spans) for b in spans[i + 1:])
        latest, stale = 0, False
        for _, _, grant in sorted(self.writes):
            stale = stale or grant < latest
            latest = max(latest, grant)
        found = []
        if mutex:
            found.append("mutual-exclusion")
        if self.wrong_releases:
            found.append("wrong-owner-release")
        if stale:
            found.append("stale-write")
        return found


EXPECTED = ["mutual-exclusion", "wrong-owner-release", "stale-write"]


def runs_at(port, ttl_ms, runs, verbose=True):
    reproduced = 0
    start = time.monotonic()
    for i in range(runs):
        found = Story(port, ttl_ms).run().violations()
        reproduced += found == EXPECTED
        if verbose:
            print(f"run={i} ttl_ms={ttl_ms} violations={','.join(found) or 'none'}")
    secs = time.monotonic() - start
    return reproduced, secs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ttl-ms", type=int, default=100)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--search", action="store_true", help="find the shortest TTL that is not flaky")
    args = ap.parse_args()
    if args.ttl_ms < 1 or args.runs < 1:
        ap.error("--ttl-ms and --runs must be at least 1")  # one line, exit 2
    with Server() as server:
        if not args.search:
            reproduced, secs = runs_at(server.port, args.ttl_ms, args.runs)
            print(f"ttl_ms={args.ttl_ms} reproduced={reproduced}/{args.runs} "
                  f"seconds_per_run={secs / args.runs:.4f} runs_per_s={args.runs / secs:.2f}")
            return 0 if reproduced == args.runs else 1
        shortest = None
        for ttl in SEARCH_TTLS_MS:
            reproduced, secs = runs_at(server.port, ttl, args.runs, verbose=False)
            print(f"ttl_ms={ttl} reproduced={reproduced}/{args.runs} "
                  f"seconds_per_run={secs / args.runs:.4f} runs_per_s={args.runs / secs:.2f}")
            if reproduced < args.runs:
                break
            shortest = (ttl, secs / args.runs)
        if shortest is None:
            print("shortest_ttl_ms=none")
            return 1
        print(f"shortest_ttl_ms={shortest[0]} seconds_per_run={shortest[1]:.4f} "
              f"runs_per_s={1 / shortest[1]:.2f}")
        return 0


if __name__ == "__main__":
    sys.exit(main())
