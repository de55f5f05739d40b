"""An MCP server made with the official Python SDK whose tools return every kind of result, for
the test that a toolkit proxy passes them through unchanged.

    python python_proxy_server.py streamable-http PORT

One tool per kind: text, image, audio, an embedded resource, a resource link, structured
content (with an output schema), an error, and a mix with `_meta`. Tools carry titles and
annotations, which a proxy must keep too.
"""

import base64
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)
from pydantic import BaseModel

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
WAV = base64.b64encode(b"RIFF\x24\x00\x00\x00WAVEfmt ").decode()

server = MCPServer("python-proxy-test-server", log_level="WARNING")


@server.tool(title="Say it", annotations=ToolAnnotations(title="Say", readOnlyHint=True))
def text() -> str:
    """One text block."""
    return "plain words"


@server.tool(title="A picture")
def image() -> list[ImageContent]:
    """One image block."""
    return [ImageContent(type="image", data=PNG, mimeType="image/png")]


@server.tool()
def audio() -> list[AudioContent]:
    """One audio block."""
    return [AudioContent(type="audio", data=WAV, mimeType="audio/wav")]


@server.tool()
def resource() -> list[EmbeddedResource]:
    """One embedded resource."""
    contents = TextResourceContents(uri="file:///notes.txt", mimeType="text/plain", text="notes")
    return [EmbeddedResource(type="resource", resource=contents)]


@server.tool()
def link() -> list[ResourceLink]:
    """One resource link."""
    return [ResourceLink(type="resource_link", uri="file:///big.csv", name="big.csv",
                         mimeType="text/csv", description="A large table")]


class Point(BaseModel):
    x: int
    y: int


@server.tool(title="Mirror", annotations=ToolAnnotations(idempotentHint=True))
def structured(x: int, y: int) -> Point:
    """Structured content, with an output schema."""
    return Point(x=y, y=x)


@server.tool()
def error() -> str:
    """Always fails."""
    raise ToolError("refused: no reason")


@server.tool()
def mixed() -> CallToolResult:
    """Several blocks, annotations on a block, and `_meta`."""
    return CallToolResult(
        content=[
            TextContent(type="text", text="first", annotations={"audience": ["user"], "priority": 0.5}),
            ImageContent(type="image", data=PNG, mimeType="image/png"),
            TextContent(type="text", text="last"),
        ],
        _meta={"trace": "abc"},
    )


if __name__ == "__main__":
    server.run(sys.argv[1], host="127.0.0.1", port=int(sys.argv[2]))
