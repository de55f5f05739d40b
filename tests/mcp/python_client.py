"""Drives a toolkit MCP server with the official Python SDK's client and prints what it saw.

    python python_client.py stdio COMMAND [ARGS...]
    python python_client.py http URL [TOKEN]

Reads a JSON list of calls on stdin: [{"name": ..., "arguments": {...}}, ...]. Prints one JSON
object: the server's name, its tools as listed, and each call's result or JSON-RPC error.
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main() -> None:
    calls = json.loads(sys.stdin.read())
    kind = sys.argv[1]
    if kind == "stdio":
        target = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:])
        http = None
    else:
        headers = {"Authorization": f"Bearer {sys.argv[3]}"} if len(sys.argv) > 3 else {}
        http = httpx2.AsyncClient(headers=headers)
        target = streamable_http_client(sys.argv[2], http_client=http)
    report = {"calls": []}
    async with Client(target) as client:
        report["server"] = client.server_info.name if client.server_info else None
        listed = await client.list_tools()
        report["tools"] = [dump(tool) for tool in listed.tools]
        for call in calls:
            try:
                result = await client.call_tool(call["name"], call.get("arguments"))
                entry = {"result": dump(result)}
            except MCPError as err:
                entry = {"error": {"code": err.error.code, "message": err.error.message}}
            report["calls"].append(entry)
    if http is not None:
        await http.aclose()
    print(json.dumps(report))


asyncio.run(main())
