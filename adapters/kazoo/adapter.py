#!/usr/bin/python3
"""locksim adapter for kazoo's kazoo.recipe.lock.Lock (docs/external-clients.md).

Calls the library as an application does and reports what it returned or
raised. Reads nothing but what locksim sends: the ensemble's addresses
(this client's links on locksim's proxies), the key, the TTL (the session
timeout) and the acquire timeout. Run with the Debian python3-kazoo (2.8.0):
/usr/bin/python3.

kazoo's Lock (kazoo/recipe/lock.py) keeps no validity of its own:
`is_acquired` stays True after the session is lost. Its docstring tells
the application to watch the connection state with `add_listener` (LOST
and SUSPENDED); this adapter does what that advice asks, and answers
"do you still hold it?" from it: held while the client is CONNECTED and no
LOST came since the lock was acquired (a SUSPENDED connection that comes
back within the session keeps the ephemeral node, so the lock).
"""
import os
import sys

import kazoo
from kazoo.client import KazooClient, KazooState
from kazoo.exceptions import LockTimeout

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from jsonlines_loop import serve  # noqa: E402  (adapters/jsonlines_loop.py)

state = {"lost": False}


def on_state(new_state):
    # Called on kazoo's own thread at every KazooState change.
    if new_state == KazooState.LOST:
        state["lost"] = True


def hello(req):
    # The session timeout is the lock's TTL, as zk-lock's session. Hosts in
    # locksim's order (member c mod N first, as the simulated client), not
    # shuffled, so a run tries the members the way the simulation does.
    zk = KazooClient(hosts=",".join(req["servers"]), timeout=req["ttl_us"] / 1e6, randomize_hosts=False)
    zk.add_listener(on_state)
    zk.start_async()  # requests wait for the connection (KazooClient._call queues them)
    state["zk"] = zk
    state["lock"] = zk.Lock("/" + req["key"], req["client"])
    state["acquire_timeout_s"] = req["acquire_timeout_us"] / 1e6
    return {"result": True, "library": "kazoo " + kazoo.__version__}


def held():
    return state["lock"].is_acquired and not state["lost"] and state["zk"].state == KazooState.CONNECTED


def acquire(req):
    lock = state["lock"]
    state["lost"] = False  # a LOST before this attempt ended an earlier lease, not this one
    try:
        if not lock.acquire(timeout=state["acquire_timeout_s"]):
            return {"result": False}
    except LockTimeout as e:  # how kazoo says the timeout passed while waiting for its turn
        return {"result": False, "error": {"class": type(e).__name__, "message": str(e)}}
    # The fencing value: the lock node's czxid (as zk-fenced), read by the
    # application after acquire() (kazoo does not return it).
    stat = state["zk"].exists(lock.path + "/" + lock.node)
    return {"result": True, "token": lock.node, "fencing": stat.czxid if stat else None}


def release(req):
    return {"result": bool(state["lock"].release())}  # a node already gone counts as released (NoNodeError)


def extend(req):
    # kazoo's Lock has no extend: the client's pings keep the session, and
    # the node with it. "Still kept?" is the answer, as zk-lock's extend.
    return {"result": held()}


def valid(req):
    return {"result": held()}


serve({"hello": hello, "acquire": acquire, "release": release, "extend": extend, "valid": valid}, "kazoo")
