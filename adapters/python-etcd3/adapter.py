#!/usr/bin/python3
"""locksim adapter for python-etcd3's etcd3.Lock (docs/external-clients.md).

Calls the library as an application does and reports what it returned or
raised. Reads nothing but what locksim sends: the members' addresses (this
client's links on locksim's proxies), the key, the TTL (the lease's, whole
seconds), the acquire and command timeouts. Run with the Debian
python3-etcd3 (0.12.0, gRPC through python3-grpcio): /usr/bin/python3.

python-etcd3 0.12.0's client talks to one host:port (Etcd3Client(host,
port); several endpoints came after 0.12), so the adapter uses the first
address it is given: this client's own first member. Its Lock
(etcd3/locks.py) grants a lease, puts the key under it if the key's
create revision is 0, and otherwise watches the key and tries again; it
never keeps the lease alive by itself: `refresh()` (one LeaseKeepAlive) is
the application's to call, and is this adapter's extend.
"""
import os
import sys

import etcd3
import grpc

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from jsonlines_loop import serve  # noqa: E402  (adapters/jsonlines_loop.py)

state = {}
CONNECT_TIMEOUT_S = 5  # within locksim's grace for hello (10 s)


def hello(req):
    host, port = req["servers"][0].rsplit(":", 1)
    if req["ttl_us"] % 1000000 != 0:
        raise ValueError("python-etcd3's Lock takes its ttl in whole seconds; got %d us" % req["ttl_us"])
    client = etcd3.client(host=host, port=int(port), timeout=req["command_timeout_us"] / 1e6)
    # gRPC connects lazily; an application's client is connected by the time
    # it locks, so the first acquire's command timeout is not its handshake.
    grpc.channel_ready_future(client.channel).result(timeout=CONNECT_TIMEOUT_S)
    state["client"] = client
    state["lock"] = client.lock(req["key"], ttl=req["ttl_us"] // 1000000)
    state["acquire_timeout_s"] = req["acquire_timeout_us"] / 1e6
    return {"result": True, "library": "python-etcd3 " + etcd3.__version__}


def acquire(req):
    lock = state["lock"]
    if not lock.acquire(timeout=state["acquire_timeout_s"]):
        return {"result": False}
    # The fencing value: the key's create_revision (as etcd-fenced), read by
    # the application after acquire() (python-etcd3 does not return it).
    value, meta = state["client"].get(lock.key)
    fencing = meta.create_revision if value == lock.uuid else None
    return {"result": True, "token": lock.uuid.hex(), "fencing": fencing}


def release(req):
    return {"result": bool(state["lock"].release())}  # False: the key's value is not ours any more


def extend(req):
    # refresh(): one LeaseKeepAlive; etcd answers TTL 0 for a lease it no
    # longer has (expired, revoked).
    answers = state["lock"].refresh()
    return {"result": bool(answers) and answers[0].TTL > 0}


def valid(req):
    # python-etcd3 keeps no validity of its own (no deadline, no keep-alive):
    # the application goes on until the library says otherwise.
    # is_acquired() would be a server call (owned).
    return {"result": True}


def owned(req):
    return {"result": bool(state["lock"].is_acquired())}


serve({"hello": hello, "acquire": acquire, "release": release, "extend": extend, "valid": valid, "owned": owned},
      "python-etcd3")
