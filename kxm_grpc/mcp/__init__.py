"""The MCP adapter: the agent tools of ``kxm_grpc.tools`` served over the Model Context Protocol.

``server.py`` builds the MCP server on the ``mcp`` package's low-level ``Server`` (the tools are
data, not decorated functions). ``kxm mcp`` (``cli/mcp.py``) runs it over stdio as a client of the
hub, acting as one saved agent; the hub serves it over streamable HTTP at ``/mcp`` on its HTTP port
(``server/mcp_http.py``), acting as the agent each request's headers name (docs/tools.md).
"""
