// locksim adapter for npm redlock 5.0.0-beta.2 over ioredis: Redlock over
// every master locksim names (docs/external-clients.md). One JSON request
// per line on stdin, one answer per line on stdout; reads nothing but what
// locksim sends. Install with `npm ci` in this directory.
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

const ops = {
  async hello(req) {
    hello = req;
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
    return { result: true, library: "redlock " + version("redlock") + " + ioredis " + version("ioredis") };
  },
  async acquire() {
    lock = await redlock.acquire([hello.key], Math.max(1, Math.round(hello.ttl_us / 1000)));
    return { result: true, token: lock.value, fencing: null };
  },
  async release() {
    await lock.release();  // throws ExecutionError when no quorum released it
    return { result: true };
  },
  async extend() {
    lock = await lock.extend(Math.max(1, Math.round(hello.ttl_us / 1000)));
    return { result: true };
  },
  async valid() {
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
