// The parts of the MCP SDK (and zod, its schema language) the server uses, bundled on their own
// as dist/mcp-sdk.cjs (scripts/build.mjs): only `sivtr mcp` loads them, so no other command pays
// for the ~1 MB of schemas, and an install needs none of the SDK's HTTP-server dependencies.
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { z } from 'zod';
