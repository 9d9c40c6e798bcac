#!/usr/bin/python3
"""locksim adapter for redis-py's redis.lock.Lock (docs/external-clients.md).

Calls the library as an application does and reports what it returned or
raised: one JSON request per line on stdin, one answer per line on stdout.
Reads nothing but what locksim sends (servers, key, TTL, retry, timeouts,
and the scenario's `[lock] options`). Run with the Debian python3-redis
(4.3.4): /usr/bin/python3.

Options: `timeout` (seconds, as text) is the Lock's timeout instead of the
scenario's TTL; "0" is redis-py's "hold until released" (SET NX without PX).
With `--fix=pr4315` on the command line (lock lib:redis-py-pr4315) the Lock
is redis-py PR #4315's fix of issue #4279, not in 4.3.4: reacquire() with a
timeout of 0 raises LockError instead of sending `PEXPIRE key 0`, which
deletes the lock while the script answers 1.
"""
import os
import sys

import redis
from redis.exceptions import LockError
from redis.lock import Lock
from redis.sentinel import Sentinel

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from jsonlines_loop import serve  # noqa: E402  (adapters/jsonlines_loop.py)

state = {}
KNOWN_OPTIONS = {"timeout"}


class Pr4315Lock(Lock):
    """redis/lock.py after PR #4315: do_reacquire refuses a timeout <= 0."""

    def do_reacquire(self):
        if self.timeout is not None and self.timeout <= 0:
            raise LockError("Cannot reacquire a lock with a timeout of 0 or less")
        return super().do_reacquire()


def connect(req, timeout_s):
    """The client an application makes: through Redis Sentinel when the
    servers have one (redis.sentinel.Sentinel.master_for: the master is
    asked of the sentinels, and asked again after a connection fails), else
    straight to the server locksim names."""
    if req.get("sentinels"):
        sentinels = [(h, int(p)) for h, p in (a.rsplit(":", 1) for a in req["sentinels"])]
        sentinel = Sentinel(sentinels, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
        state["via"] = ", master from Redis Sentinel"
        return sentinel.master_for(req["master_names"][0], socket_timeout=timeout_s,
                                   socket_connect_timeout=timeout_s)
    host, port = req["servers"][0].rsplit(":", 1)
    return redis.Redis(host=host, port=int(port), socket_timeout=timeout_s, socket_connect_timeout=timeout_s)


def hello(req):
    options = req.get("options", {})
    unknown = sorted(set(options) - KNOWN_OPTIONS)
    if unknown:
        raise ValueError("unknown [lock] options " + ", ".join(unknown) + " (the redis-py adapter reads: timeout)")
    timeout_s = req["command_timeout_us"] / 1e6
    client = connect(req, timeout_s)
    # One Lock object per client, as an application keeps one: timeout is the
    # TTL (PX), sleep the retry delay, blocking_timeout the acquire timeout.
    # An options timeout is the application's own setting, not scaled.
    lock_timeout = float(options["timeout"]) if "timeout" in options else req["ttl_us"] / 1e6
    fixed = "--fix=pr4315" in sys.argv[1:]
    lock_class = Pr4315Lock if fixed else Lock
    state["lock"] = lock_class(client, req["key"], timeout=lock_timeout, sleep=req["retry_us"] / 1e6,
                               blocking_timeout=req["acquire_timeout_us"] / 1e6)
    library = "redis-py " + redis.__version__ + (" with PR #4315's reacquire fix (in the adapter)" if fixed else "")
    library += state.get("via", "")
    return {"result": True, "library": library}


def acquire(req):
    lock = state["lock"]
    if not lock.acquire():  # blocking, retries every `sleep` until blocking_timeout
        return {"result": False}
    token = lock.local.token  # the library's own (thread-local) token
    return {"result": True, "token": token.decode() if isinstance(token, bytes) else token, "fencing": None}


def release(req):
    state["lock"].release()  # raises LockNotOwnedError when the entry is not ours any more
    return {"result": True}


def extend(req):
    # "I need more time": a fresh full TTL, as reacquire() sets it.
    return {"result": bool(state["lock"].reacquire())}


def valid(req):
    # redis-py keeps no local validity deadline: the application goes on
    # until the library says otherwise (owned() would be a server call).
    return {"result": True}


def owned(req):
    return {"result": bool(state["lock"].owned())}


OPS = {"hello": hello, "acquire": acquire, "release": release, "extend": extend, "valid": valid, "owned": owned}

serve(OPS, "redis-py")
