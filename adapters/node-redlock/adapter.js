// locksim adapter for npm redlock 5.0.0-beta.2 over ioredis: Redlock over
// every master locksim names (docs/external-clients.md). One JSON request
// per line on stdin, one answer per line on stdout; reads nothing but what
// locksim sends. Install with `npm ci` in this directory.
//
// Option `using = "true"`: the lock is held by `redlock.using()` (automatic
// extension automaticExtensionThreshold = 500 ms, scaled by hello's
// time_scale, before each expiration), whose routine runs until release and,
// like most routines, does not poll signal.aborted: "still held?" is yes.
// With `--fix=pr273` (lock lib:node-redlock-pr273) a lock's expiration
// counts from the attempt that won, as redlock's PR #273 (5dd9e28, on
// master, in no release) makes acquire() do; 5.0.0-beta.2 counts it from
// the first attempt (issue #169).
"use strict";
const readline = require("readline");
const Redis = require("ioredis");
const { default: Redlock } = require("redlock");
const fs = require("fs");
const path = require("path");

// A package's version from its own package.json (redlock's "exports" hides it from require).
const version = (name) =>
  JSON.parse(fs.readFileSync(path.join(__dirname, "node_modules", name, "package.json"), "utf8")).version;

let redlock = null, lock = null, hello = null;
let usingMode = false, usingRun = null, endRoutine = null;
const KNOWN_OPTIONS = ["using"];

// PR #273 on this instance: each attempt notes its start, and acquire()
// (also when using() calls it) dates the lock's expiration from the last,
// the winning one. drift as the library computes it.
function applyPr273(r) {
  const attempt = r._attemptOperation.bind(r);
  let attemptStart = 0;
  r._attemptOperation = (...args) => {
    attemptStart = Date.now();
    return attempt(...args);
  };
  const acquire = r.acquire.bind(r);
  r.acquire = async (resources, duration, settings) => {
    const won = await acquire(resources, duration, settings);
    const driftFactor = (settings && settings.driftFactor) || r.settings.driftFactor;
    won.expiration = attemptStart + duration - (Math.round(driftFactor * duration) + 2);
    return won;
  };
}

// The lock using() holds, seen as it is acquired (using() keeps it to itself).
function noteAcquired(r) {
  const acquire = r.acquire.bind(r);
  r.acquire = async (...args) => (lock = await acquire(...args));
}

const ops = {
  async hello(req) {
    hello = req;
    const unknown = Object.keys(req.options || {}).filter((k) => !KNOWN_OPTIONS.includes(k));
    if (unknown.length) throw new Error("unknown [lock] options " + unknown.join(", ") + " (the node-redlock adapter reads: using)");
    usingMode = (req.options || {}).using === "true";
    const timeout = Math.max(1, Math.round(req.command_timeout_us / 1000));
    const clients = req.servers.map((s) => {
      const [host, port] = s.split(":");
      return new Redis({ host, port: Number(port), commandTimeout: timeout, connectTimeout: timeout, maxRetriesPerRequest: 0 });
    });
    const retryDelay = Math.max(req.retry_us / 1000, 0.001);
    redlock = new Redlock(clients, {
      retryDelay,
      retryJitter: 0,
      retryCount: Math.max(0, Math.floor(req.acquire_timeout_us / 1000 / retryDelay)),
    });
    redlock.on("error", () => {});  // per-attempt errors: the outcome is what acquire() returns
    const fixed = process.argv.includes("--fix=pr273");
    if (fixed) applyPr273(redlock);
    noteAcquired(redlock);
    return {
      result: true,
      library: "redlock " + version("redlock") + " + ioredis " + version("ioredis") + (fixed ? " with PR #273's fix (in the adapter)" : ""),
    };
  },
  async acquire() {
    const ttl = Math.max(1, Math.round(hello.ttl_us / 1000));
    if (!usingMode) {
      await redlock.acquire([hello.key], ttl);
      return { result: true, token: lock.value, fencing: null };
    }
    let started;
    const routineStarted = new Promise((resolve) => (started = resolve));
    const routineEnds = new Promise((resolve) => (endRoutine = resolve));
    const threshold = Math.round(500 * hello.time_scale);
    usingRun = redlock.using([hello.key], ttl, { automaticExtensionThreshold: threshold }, async () => {
      started();
      await routineEnds;
    });
    usingRun.catch(() => {});  // what using() throws is reported by release
    await Promise.race([routineStarted, usingRun]);  // a failed acquire rejects usingRun
    return { result: true, token: lock.value, fencing: null };
  },
  async release() {
    if (usingMode) {
      endRoutine();
      await usingRun;  // using() releases: ExecutionError when no quorum released it
      return { result: true };
    }
    await lock.release();  // throws ExecutionError when no quorum released it
    return { result: true };
  },
  async extend() {
    if (usingMode) return { unsupported: "with using = \"true\" the library extends by itself" };
    lock = await lock.extend(Math.max(1, Math.round(hello.ttl_us / 1000)));
    return { result: true };
  },
  async valid() {
    if (usingMode) return { result: true };  // the routine runs on, whatever signal.aborted says
    return { result: lock !== null && lock.expiration > Date.now() };  // the library's own deadline
  },
};

const rl = readline.createInterface({ input: process.stdin });
let queue = Promise.resolve();
rl.on("line", (line) => {
  queue = queue.then(async () => {
    const req = JSON.parse(line);
    let answer;
    const op = ops[req.op];
    if (!op) answer = { unsupported: "node-redlock adapter has no operation " + req.op };
    else {
      try {
        answer = await op(req);
      } catch (e) {
        answer = { result: false, error: { class: (e && e.constructor && e.constructor.name) || "Error", message: String(e && e.message) } };
      }
    }
    answer.id = req.id;
    process.stdout.write(JSON.stringify(answer) + "\n");
  });
});
rl.on("close", () => queue.then(() => process.exit(0)));
