#!/usr/bin/python3
"""locksim adapter for redis-py's redis.lock.Lock (docs/external-clients.md).

Calls the library as an application does and reports what it returned or
raised: one JSON request per line on stdin, one answer per line on stdout.
Reads nothing but what locksim sends (servers, key, TTL, retry, timeouts).
Run with the Debian python3-redis (4.3.4): /usr/bin/python3.
"""
import os
import sys

import redis
from redis.lock import Lock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from jsonlines_loop import serve  # noqa: E402  (adapters/jsonlines_loop.py)

state = {}


def hello(req):
    host, port = req["servers"][0].rsplit(":", 1)
    timeout_s = req["command_timeout_us"] / 1e6
    client = redis.Redis(host=host, port=int(port), socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
    # One Lock object per client, as an application keeps one: timeout is the
    # TTL (PX), sleep the retry delay, blocking_timeout the acquire timeout.
    state["lock"] = Lock(client, req["key"], timeout=req["ttl_us"] / 1e6, sleep=req["retry_us"] / 1e6,
                         blocking_timeout=req["acquire_timeout_us"] / 1e6)
    state["ttl_s"] = req["ttl_us"] / 1e6
    return {"result": True, "library": "redis-py " + redis.__version__}


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
