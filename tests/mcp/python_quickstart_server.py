"""The quickstart's text statistics tools, served over stdio by the official Python SDK.

The latency bench (toolkit/benches/mcp_stdio.rs) calls the same tool here and on
examples/mcp_server.rs, in one run.
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("python-quickstart", log_level="WARNING")


@server.tool(name="stats_word_count")
def word_count(text: str) -> int:
    """Count whitespace-separated words"""
    return len(text.split())


@server.tool(name="stats_line_count")
def line_count(text: str) -> int:
    """Count lines"""
    return len(text.splitlines())


if __name__ == "__main__":
    server.run("stdio")
