# redis-py 4.3.4 against a Redis on 127.0.0.1:PORT (tests/test_hosted_wire.cpp
# runs it against a real redis-server and a simulated node and compares the
# output). Prints one line per outcome: what redis-py returned or raised.
import sys

import redis

port = int(sys.argv[1])
r = redis.Redis(host="127.0.0.1", port=port, client_name="hosted-py", socket_timeout=5)


def show(label, thunk):
    try:
        print(label, repr(thunk()))
    except Exception as e:  # the library's own exception is the outcome
        print(label, "raised", type(e).__name__, str(e))


show("ping", r.ping)
show("client getname", r.client_getname)
show("client id is int", lambda: isinstance(r.client_id(), int))
show("echo", lambda: r.echo("hi"))
show("select 0", lambda: r.execute_command("SELECT", 0))
show("info", lambda: {k: r.info()[k] for k in ("redis_version", "loading", "role")})
show("hello 2 proto", lambda: r.execute_command("HELLO", 2)[5])
show("client setinfo", lambda: r.execute_command("CLIENT", "SETINFO", "lib-name", "x"))

lock = r.lock("resource", timeout=5, blocking_timeout=0.2)
other = r.lock("resource", timeout=5, blocking_timeout=0.2)
show("acquire", lock.acquire)
show("other acquire", other.acquire)
show("owned", lock.owned)
show("extend", lambda: lock.extend(5))
show("pttl over 5 s", lambda: r.pttl("resource") > 5000)
show("reacquire", lock.reacquire)
show("pttl at most 5 s", lambda: 0 < r.pttl("resource") <= 5000)
show("other release", other.release)
show("release", lock.release)
show("release again", lock.release)
show("other acquire after release", other.acquire)
show("other release", other.release)

show("set", lambda: r.set("k", "v"))
show("getdel", lambda: r.getdel("k"))
show("getdel missing", lambda: r.getdel("k"))
show("quit", lambda: r.execute_command("QUIT"))
