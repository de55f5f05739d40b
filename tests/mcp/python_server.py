"""An MCP server made with the official Python SDK (MCPServer), for toolkit's client tests.

    python python_server.py stdio
    python python_server.py streamable-http PORT
    python python_server.py sse PORT

Every tool is deliberately small; each exercises one part of the client bridge.
"""

import base64
import sys

import anyio

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

# A 1x1 transparent PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

server = MCPServer("python-test-server", log_level="WARNING")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def greet(name: str, greeting: str = "Hello", punctuation: str | None = None) -> str:
    """Greet someone; greeting and punctuation are optional."""
    return f"{greeting}, {name}{punctuation or '!'}"


@server.tool()
def pixel() -> Image:
    """Return a 1x1 PNG image."""
    return Image(data=PNG, format="png")


@server.tool()
def chart(title: str) -> list:
    """Return a caption and an image together."""
    return [f"chart: {title}", Image(data=PNG, format="png")]


@server.tool()
def fail(reason: str) -> str:
    """Always fail with the given reason."""
    raise ToolError(f"refused: {reason}")


class Point(BaseModel):
    x: int
    y: int


@server.tool()
def mirror(point: Point) -> Point:
    """Swap the coordinates of a point (a structured result)."""
    return Point(x=point.y, y=point.x)


@server.tool()
async def grow(ctx: Context) -> str:
    """Register a new tool `late` and tell the client the tool list changed."""

    def late() -> str:
        """A tool that appears after grow is called."""
        return "late tool"

    server.add_tool(late)
    # A 2026-07-28 client hears it on its `subscriptions/listen` stream, an older one as a
    # notification of the session.
    await ctx.notify_tools_changed()
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool()
async def sleep(seconds: float) -> str:
    """Wait, then answer."""
    await anyio.sleep(seconds)
    return "awake"


if __name__ == "__main__":
    transport = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run(transport, host="127.0.0.1", port=int(sys.argv[2]))
