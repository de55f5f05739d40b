"""A scripted MCP server over Streamable HTTP (stdlib only) that misbehaves on purpose.

    python3 misbehaving_server.py PORT paginate|flood|fail-first|huge-json|huge-sse|wide-schema|many-tools|huge-schema[+sse] [BYTES]
    python3 misbehaving_server.py stdio many-tools|huge-schema|lenient

`paginate`: every `tools/list` page names a next cursor, forever. `flood`: a `tools/call`
answer is an SSE stream of 10,000 `notifications/tools/list_changed` before its result.
`fail-first`: the first `tools/call` of each tool gets HTTP 502, as a load balancer answers
when the replica running it dies; `echo` is annotated idempotent, `file` is not. `huge-json`
and `huge-sse`: a `tools/call` answer holds a text of BYTES bytes, as a JSON body or as one SSE
event. `wide-schema`: the input schema of `file` has 2,000 flat `$defs`, all used.
`many-tools`: one page of 100,000 tools. `huge-schema`: the input schema of `file` has 100,000
flat `$defs` (6.3 MB). Over HTTP, each line it prints on stdout is the method of a request it
got, for the test to count; with `stdio` instead of a port, it speaks MCP on stdin and stdout.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# A mode ending in `+sse` answers `tools/list` as an event stream, as the TypeScript and Python
# SDKs answer by default, instead of a JSON body.
MODE, _, LISTING_AS = sys.argv[2].partition("+")
TOOL = {"name": "echo", "description": "Echo", "inputSchema": {"type": "object"},
        "annotations": {"idempotentHint": True}}
FILE = {"name": "file", "description": "File", "inputSchema": {"type": "object"}}
WIDE = {"name": "file", "description": "File", "inputSchema": {
    "type": "object",
    "properties": {f"p{i}": {"$ref": f"#/$defs/d{i}"} for i in range(2000)},
    "$defs": {f"d{i}": {"type": "string"} for i in range(2000)}}}
MANY = [{"name": f"t{i}", "inputSchema": {"type": "object"}}
        for i in range(100_000)] if MODE == "many-tools" else []
HUGE = {"name": "file", "description": "File", "inputSchema": {
    "type": "object",
    "$defs": {f"d{i}": {"type": "string", "description": "a string field"}
              for i in range(100_000)}}} if MODE == "huge-schema" else None
FAILED = set()
PRINTING = threading.Lock()


def answer_to(message):
    """The JSON-RPC answer to a request: `server/discover` (MCP 2026-07-28) is a method this
    2025-era server does not know, -32601, unless MODE is `lenient`, which answers `{}` to it
    as some older servers answer any method."""
    method = message["method"]
    if method == "server/discover":
        if MODE == "lenient":
            return {"jsonrpc": "2.0", "id": message["id"], "result": {}}
        return {"jsonrpc": "2.0", "id": message["id"],
                "error": {"code": -32601, "message": f"Method not found: {method}"}}
    return {"jsonrpc": "2.0", "id": message["id"],
            "result": result(method, message.get("params") or {})}


def result(method, params):
    if method == "initialize":
        return {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "misbehaving", "version": "1"}}
    if method == "tools/list":
        page = {"tools": [TOOL, WIDE if MODE == "wide-schema" else FILE]}
        if MODE == "many-tools":
            page = {"tools": MANY}
        if MODE == "huge-schema":
            page = {"tools": [TOOL, HUGE]}
        if MODE == "paginate":
            page["nextCursor"] = "again"
        return page
    if MODE.startswith("huge"):
        return {"content": [{"type": "text", "text": "x" * int(sys.argv[3])}]}
    return {"content": [{"type": "text", "text": "done"}]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with PRINTING:
            print(message.get("method"), flush=True)
        tool = (message.get("params") or {}).get("name")
        if MODE == "fail-first" and message.get("method") == "tools/call" and tool not in FAILED:
            FAILED.add(tool)
            self.send_response(502)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if "id" not in message:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        answer = answer_to(message)
        listing_as_sse = LISTING_AS == "sse" and message["method"] == "tools/list"
        if listing_as_sse or (MODE == "huge-sse" and message["method"] == "tools/call"):
            body, kind = "data: " + json.dumps(answer) + "\n\n", "text/event-stream"
        elif MODE == "flood" and message["method"] == "tools/call":
            notice = json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            body = ("data: " + notice + "\n\n") * 10_000 + "data: " + json.dumps(answer) + "\n\n"
            kind = "text/event-stream"
        else:
            body, kind = json.dumps(answer), "application/json"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self):
        self.do_GET()


def serve_stdio():
    for line in sys.stdin:
        message = json.loads(line)
        if "id" in message and "method" in message:
            answer = answer_to(message)
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()


if sys.argv[1] == "stdio":
    serve_stdio()
else:
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
