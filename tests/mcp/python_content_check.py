"""Checks a toolkit server's tool results against the official Python SDK's types, strictly.

    python python_content_check.py URL

Reads a JSON list of calls on stdin: [{"name": ..., "arguments": {...}}, ...].
Each result, as sent on the wire, is validated with `mcp.types.CallToolResult.model_validate`,
and every object in it must have no key its type does not name (the SDK's types ignore
unknown keys: a misspelt or misplaced field would pass unseen otherwise). Prints one JSON list: each
call's result as sent, and the problems found in it (none when the SDK's types accept it).
"""

import json
import sys
import urllib.request

import pydantic
from mcp import types

PROTOCOL = "2025-11-25"


class Session:
    def __init__(self, url: str) -> None:
        self.url = url
        self.session = None
        self.next_id = 0

    def post(self, method: str, params: dict | None = None, notify: bool = False):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not notify:
            self.next_id += 1
            message["id"] = self.next_id
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL,
        }
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        request = urllib.request.Request(
            self.url, data=json.dumps(message).encode(), headers=headers, method="POST"
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            self.session = response.headers.get("Mcp-Session-Id") or self.session
            body = response.read().decode()
        if notify:
            return None
        for answer in messages(body):
            if answer.get("id") == message["id"]:
                return answer
        raise RuntimeError(f"no answer to {method} in {body!r}")


def messages(body: str):
    """The JSON-RPC messages of a body: one JSON object, or SSE events' data."""
    body = body.strip()
    if body.startswith("{"):
        yield json.loads(body)
        return
    for line in body.splitlines():
        if line.startswith("data:"):
            data = line[len("data:") :].strip()
            if data:
                yield json.loads(data)


def extra_keys(model, sent, path: str):
    """Every key `sent` holds that its model's type does not name, as `path.key`, recursively.

    The SDK's types ignore unknown keys (neither kept in `model_extra` nor refused), so each
    object as sent is compared with the fields (and aliases) of the model it was read into.
    """
    found = []
    if isinstance(model, pydantic.BaseModel) and isinstance(sent, dict):
        fields = type(model).model_fields
        known = {name: name for name in fields}
        known.update({field.alias: name for name, field in fields.items() if field.alias})
        for key, value in sent.items():
            if key not in known:
                found.append(f"{path}.{key}")
                continue
            found += extra_keys(getattr(model, known[key]), value, f"{path}.{key}")
        for key in model.model_extra or {}:
            found.append(f"{path}.{key}")
    elif isinstance(model, (list, tuple)) and isinstance(sent, list):
        for index, (item, value) in enumerate(zip(model, sent)):
            found += extra_keys(item, value, f"{path}[{index}]")
    return found


def check(result: dict) -> list[str]:
    try:
        model = types.CallToolResult.model_validate(result)
    except pydantic.ValidationError as err:
        return [f"invalid: {error['loc']}: {error['msg']}" for error in err.errors()]
    return [f"extra key {key}" for key in extra_keys(model, result, "result")]


def main() -> None:
    calls = json.loads(sys.stdin.read())
    session = Session(sys.argv[1])
    session.post(
        "initialize",
        {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "content-check", "version": "1"},
        },
    )
    session.post("notifications/initialized", notify=True)
    report = []
    for call in calls:
        params = {"name": call["name"], "arguments": call.get("arguments", {})}
        answer = session.post("tools/call", params)
        if "result" not in answer:
            report.append({"name": call["name"], "error": answer.get("error")})
            continue
        result = answer["result"]
        report.append({"name": call["name"], "result": result, "problems": check(result)})
    print(json.dumps(report))


main()
