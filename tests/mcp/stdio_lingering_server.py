"""An MCP server over stdio (stdlib only) that outlives its stdin, as a slow or careless server does.

    python3 stdio_lingering_server.py PIDFILE

It starts a grandchild (`sleep 60`), writes "<its pid> <the grandchild's pid>" to PIDFILE, then
answers `initialize` and `tools/list` (one tool, `echo`); a call of `echo` with `{"bytes": N}`
answers with a text of N bytes ("done" without it). When stdin closes it does not exit: it
sleeps 60 s, so only a kill ends it early.
"""

import json
import os
import subprocess
import sys
import time

grandchild = subprocess.Popen(["sleep", "60"])
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(f"{os.getpid()} {grandchild.pid}")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])

for line in sys.stdin:
    message = json.loads(line)
    method = message.get("method")
    if "id" not in message:
        continue
    if method == "initialize":
        result = {"protocolVersion": message["params"].get("protocolVersion", "2025-06-18"),
                  "capabilities": {"tools": {}},
                  "serverInfo": {"name": "lingering", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}
    else:
        size = (message["params"].get("arguments") or {}).get("bytes")
        result = {"content": [{"type": "text", "text": "x" * size if size else "done"}]}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)

time.sleep(60)
