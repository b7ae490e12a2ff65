"""The official Python MCP client against `tokensieve mcp` (tests/mcp.rs).

usage: client.py BINARY CASES_JSON
Starts BINARY mcp over stdio, lists the tools, makes each call of CASES_JSON
(a list of {"tool", "arguments"}) and prints one JSON document: the tool
names and, per call, its text contents, structured content and isError; a
call the server refuses as a protocol error gives {"protocol_error": msg}.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError


async def main(binary, cases):
    params = StdioServerParameters(command=binary, args=["mcp"], env=dict(os.environ))
    out = {"calls": []}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server"] = init.server_info.name
            listed = await session.list_tools()
            out["tools"] = sorted(t.name for t in listed.tools)
            out["schemas"] = {t.name: t.input_schema for t in listed.tools}
            for case in cases:
                try:
                    r = await session.call_tool(case["tool"], arguments=case["arguments"])
                except MCPError as e:
                    out["calls"].append({"protocol_error": str(e)})
                    continue
                out["calls"].append({
                    "texts": [c.text for c in r.content if getattr(c, "type", "") == "text"],
                    "structured": r.structured_content,
                    "is_error": bool(r.is_error),
                })
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
