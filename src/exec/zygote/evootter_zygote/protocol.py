# What the zygote and evootter say to each other. Protocol (stdin: one JSON request a line,
# followed by `blob` bytes when it names them; stdout: frames of one type byte, a 4-byte
# big-endian length, the payload):
#   R {"python": ..., "from_copy": [modules]}   ready (modules imported from the copy: refused)
#   L <bytes>                                   a chunk of the running execution's log
#   C <bytes>                                   what a request asked to collect
#   E {"exit": N} | {"signal": N} | {"timeout": true}   the execution's end
#     | {"ok": true} | {"error": "..."}          the end of a `list` or `restore` request
# Requests: {"args", "env", "timeout"} runs pytest. In a container (the Docker backend),
# where no other process can reach the copy between runs, a run may also carry `stage` (the
# staged files as a tar blob, the run directory made fresh, files removed, the mark touched)
# and `collect` (files to send back, a `find`-style listing of the copy, SHA-256 sums of what
# changed, what to delete), and two more requests put the copy back and list it:
# {"op": "restore", ...} and {"op": "list"}. One request is then one round trip over one
# open stream instead of a `docker exec` per step.
import json
import os
import struct

from evootter_zygote import state

CTRL_IN = os.dup(0)
CTRL_OUT = os.dup(1)


def frame(kind, payload):
    data = kind + struct.pack(">I", len(payload)) + payload
    view = memoryview(data)
    while view:
        n = os.write(CTRL_OUT, view)
        view = view[n:]


def read_request(buf):
    """The next request line and the blob after it; the zygote ends with its input."""
    while b"\n" not in buf:
        chunk = os.read(CTRL_IN, 65536)
        if not chunk:
            os._exit(0)
        buf += chunk
    line, buf = buf.split(b"\n", 1)
    req = json.loads(line)
    size = int(req.get("blob", 0))
    while len(buf) < size:
        chunk = os.read(CTRL_IN, max(65536, size - len(buf)))
        if not chunk:
            os._exit(0)
        buf += chunk
    return req, buf[:size], buf[size:]


def run_env(req):
    """The environment a run gets: the whole of it from the request, or (`env_base`) only
    what it sets over the zygote's own, which in a container holds what the image and its
    activation gave."""
    env = dict(state.START_ENV) if req.get("env_base") else {}
    env.update(req["env"])
    return env
