import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { signalProcessTree } from '../../adapters/claude-code/process-tree.js';

/** What the stdio transport starts: a program (already wrapped in its sandbox) with its environment. */
export interface McpStdioLaunch {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** The longest line (one JSON-RPC message) the server may write; a longer one ends the connection as a flood. */
  maxLineBytes: number;
  /** Called once the process has ended (the sandbox's cleanup). */
  onExit?: () => void;
}

/**
 * The MCP stdio transport for an operator's server (TOOL-2), in place of the SDK's: the SDK's buffers
 * every byte a server writes until a newline comes, so a server that floods its stdout would grow the
 * Control Center's memory without bound. Here a line past `maxLineBytes` ends the connection (the
 * call fails, the server is restarted on the next use); stderr is kept as a short tail for the error
 * message, never buffered whole. The server runs in its own process group, so closing kills
 * everything it started.
 */
export class McpStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcessWithoutNullStreams | null = null;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stderrTail = '';
  private closed = false;
  /** Why the connection ended, for the calls it fails. */
  endReason: string | null = null;

  constructor(private readonly launch: McpStdioLaunch) {}

  async start(): Promise<void> {
    const { command, args, cwd, env } = this.launch;
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'], shell: false });
    this.child = child;
    child.stdin.on('error', () => undefined);
    child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-2_000);
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => reject(error));
    });
    child.once('exit', (code, signal) => {
      this.end(`the server exited (${signal ?? `code ${code}`})${this.stderrTail.trim() ? `: ${this.stderrTail.trim().split('\n').slice(-3).join(' | ')}` : ''}`);
      this.launch.onExit?.();
    });
  }

  /** The server's last stderr lines (for errors before it answered anything). */
  stderr(): string {
    return this.stderrTail;
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (let index = chunk.indexOf(0x0a); index !== -1; index = chunk.indexOf(0x0a, start)) {
      this.pending.push(chunk.subarray(start, index));
      const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
      this.pending = [];
      this.pendingBytes = 0;
      start = index + 1;
      if (line.trim()) this.deliver(line);
      if (this.closed) return;
    }
    const rest = chunk.subarray(start);
    this.pending.push(rest);
    this.pendingBytes += rest.length;
    if (this.pendingBytes > this.launch.maxLineBytes) {
      this.stop(`the server wrote more than ${this.launch.maxLineBytes} bytes without ending a message (output flood); it was stopped`);
    }
  }

  private deliver(line: string): void {
    if (Buffer.byteLength(line) > this.launch.maxLineBytes) {
      this.stop(`the server wrote a message larger than ${this.launch.maxLineBytes} bytes (output flood); it was stopped`);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      // A stray log line on stdout is the server's bug, not a reason to drop every call.
      this.onerror?.(new Error(`the server wrote something that is not a JSON-RPC message: ${line.slice(0, 200)}`));
      return;
    }
    this.onmessage?.(message);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child || this.closed) throw new Error(this.endReason ?? 'the server is not running');
    await new Promise<void>((resolve, reject) => {
      child.stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Kills the server's whole process group and ends the connection with `reason`. */
  stop(reason: string): void {
    const pid = this.child?.pid;
    this.end(reason);
    if (pid !== undefined) {
      void signalProcessTree(pid, 'SIGTERM', []);
      setTimeout(() => void signalProcessTree(pid, 'SIGKILL', []), 1_000).unref();
    }
  }

  private end(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.endReason = reason;
    this.pending = [];
    this.onclose?.();
  }

  async close(): Promise<void> {
    this.stop('the connection was closed');
  }
}
