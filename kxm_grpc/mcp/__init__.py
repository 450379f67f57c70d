"""The MCP adapter: the agent tools of ``kxm_grpc.tools`` served over the Model Context Protocol.

``kxm mcp`` (``cli/mcp.py``) runs it over stdio as a client of the hub, acting as one saved agent
(docs/tools.md). ``server.py`` builds the MCP server on the ``mcp`` package's low-level ``Server``
(the tools are data, not decorated functions).
"""
