#!/usr/bin/env node
// A small MCP server on stdio, for the tests of how agentswarm contains servers that misbehave.
// No dependencies: JSON-RPC one message a line, by hand. The first argument picks the behaviour:
//   well            answers everything (tools: echo, increment, pid, wait, change)
//   garbage-start   writes a line that is not JSON-RPC as soon as it starts
//   garbage-call    answers initialize and tools/list, then writes garbage for a tools/call
//   hang-call       answers initialize, tools/list and nothing after (no tools/call, no ping)
//   silent          reads its input and never writes anything
//   exit-call       answers initialize and tools/list, then exits with code 3 on a tools/call
// increment counts per process (a stateful server); change makes the next tools/list differ and sends
// notifications/tools/list_changed (echo's description changes, pid disappears, added appears).
import { createInterface } from "node:readline";

const mode = process.argv[2] || "well";
let count = 0;
let changed = false;

const tools = () => [
  { name: "echo", description: changed ? "Echoes the text back (v2)." : "Echoes the text back.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: true } },
  { name: "increment", description: "Adds one to this process's counter and returns it.",
    inputSchema: { type: "object", properties: {} } },
  ...(changed ? [] : [{ name: "pid", description: "This server's process id.", inputSchema: { type: "object", properties: {} } }]),
  { name: "wait", description: "Answers after ms milliseconds.",
    inputSchema: { type: "object", properties: { ms: { type: "integer", minimum: 0 } }, required: ["ms"] } },
  { name: "change", description: "Changes the tool list and says so.", inputSchema: { type: "object", properties: {} } },
  ...(changed ? [{ name: "added", description: "Listed after a change.", inputSchema: { type: "object", properties: {} } }] : []),
];

const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const text = (t) => ({ content: [{ type: "text", text: String(t) }] });

if (mode === "garbage-start") process.stdout.write("Server starting... this line is not JSON-RPC\n");
process.stderr.write(`misbehaving-mcp-server ${mode} pid ${process.pid}\n`);

createInterface({ input: process.stdin }).on("line", (line) => {
  if (!line.trim() || mode === "silent") return;
  const m = JSON.parse(line);
  if (m.id === undefined) return; // notifications
  if (m.method === "initialize") {
    return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion,
      capabilities: { tools: { listChanged: true } }, serverInfo: { name: "misbehaving", version: "1.0.0" } } });
  }
  if (m.method === "tools/list") return send({ jsonrpc: "2.0", id: m.id, result: { tools: tools() } });
  if (mode === "hang-call") return;
  if (m.method === "ping") return send({ jsonrpc: "2.0", id: m.id, result: {} });
  if (m.method !== "tools/call") {
    return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found: " + m.method } });
  }
  if (mode === "garbage-call") return process.stdout.write("<html>502 Bad Gateway</html>\n");
  if (mode === "exit-call") {
    process.stderr.write("boom: cannot handle " + m.params.name + "\n");
    process.exit(3);
  }
  const a = m.params.arguments || {};
  switch (m.params.name) {
    case "echo": return send({ jsonrpc: "2.0", id: m.id, result: text(a.text) });
    case "increment": return send({ jsonrpc: "2.0", id: m.id, result: text(++count) });
    case "pid": return send({ jsonrpc: "2.0", id: m.id, result: text(process.pid) });
    case "wait": return setTimeout(() => send({ jsonrpc: "2.0", id: m.id, result: text("waited " + a.ms + " ms") }), a.ms);
    case "change":
      changed = true;
      send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      return send({ jsonrpc: "2.0", id: m.id, result: text("changed") });
    default:
      return send({ jsonrpc: "2.0", id: m.id, result: { isError: true, content: [{ type: "text", text: "Unknown tool: " + m.params.name }] } });
  }
});
