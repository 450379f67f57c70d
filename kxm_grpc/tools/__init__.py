"""The agent tool table, derived from the contract: one tool per RPC whose facts name one.

``table.TOOLS`` (by tool name) gives each tool its RPC, its input schema (``schema.py``, from the
request message), its description (``comments.py``, from the proto comments) and its declared
mappings (``mappings.py``: where a tool's arguments or result differ from its RPC's). The MCP adapter
(``kxm_grpc/mcp``) serves them; ``docs/tools.md`` lists them (``scripts/gen_tools_doc.py``).

Like the client, this package reads the generated descriptors and never imports the server.
"""
