"""The JSON-lines loop every shipped Python adapter runs (docs/external-clients.md).

One request per line on stdin, one answer per line on stdout, carrying the
request's id. An operation the adapter does not offer is answered
"unsupported"; what the library raised is reported as such (class and
message), never turned into a default answer.
"""
import json
import sys


def answer(ops, name, req):
    op = ops.get(req.get("op"))
    if op is None:
        return {"unsupported": name + " adapter has no operation " + str(req.get("op"))}
    try:
        return op(req)
    except Exception as e:  # what the library raised, reported as such
        return {"result": False, "error": {"class": type(e).__name__, "message": str(e)}}


def serve(ops, name):
    """Answers requests with ops[request["op"]] until stdin closes."""
    for line in sys.stdin:
        request = json.loads(line)
        reply = answer(ops, name, request)
        reply["id"] = request["id"]
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
