"""The `task_assign` tool of examples/mcp_server.rs, served over Streamable HTTP by the official
Python SDK (MCPServer), for the throughput comparison in scripts/peers.

    python python_task_server.py PORT
"""

import sys
from typing import Literal, Optional

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

server = MCPServer("python-task-server", log_level="WARNING")


class Task(BaseModel):
    title: str = Field(description="A short title")
    assignee: str = Field(description="Who does it")


@server.tool(name="task_assign")
def assign(task: Task, priority: Literal["low", "high"], note: Optional[str] = None) -> str:
    """File a task with a priority."""
    if not task.title.strip():
        raise ToolError("the task title is empty")
    suffix = f" ({note})" if note else ""
    return f"{task.title} -> {task.assignee} [{priority.capitalize()}]{suffix}"


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
