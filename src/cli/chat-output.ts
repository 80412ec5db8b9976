/**
 * The terminal side of `control-center chat`: the transcript on stdout, notes on stderr,
 * and a progress line on stderr while nothing else is printed. On a terminal the progress line is
 * redrawn in place and wiped before anything else is written; elsewhere (a log, a pipe) it is a
 * plain line, written once per interval of silence.
 */
export class ChatOutput {
  private midLine = false;
  private progressShown = false;
  private lastOutputAt = Date.now();
  private lastProgressAt = 0;
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly stdout: NodeJS.WriteStream,
    private readonly stderr: NodeJS.WriteStream,
    /** What the turn is waiting for now, for the progress line; null prints none. */
    private readonly waitingFor: () => string | null,
    private readonly intervalMs: number,
  ) {}

  startProgress(): void {
    this.timer = setInterval(() => this.tick(), this.stderr.isTTY ? Math.min(this.intervalMs, 1_000) : Math.max(100, Math.floor(this.intervalMs / 4)));
    this.timer.unref();
  }

  stopProgress(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.wipeProgress();
  }

  /** Streamed transcript text, already made printable. */
  text(value: string): void {
    if (!value) return;
    this.wipeProgress();
    this.stdout.write(value);
    this.midLine = !value.endsWith('\n');
    this.lastOutputAt = Date.now();
  }

  /** One whole transcript line (a tool call, an approval), after ending any line in progress. */
  line(value: string): void {
    this.endLine();
    this.text(`${value}\n`);
  }

  /** A line on stderr (status, hints), after ending any transcript line in progress. */
  note(value: string): void {
    this.endLine();
    this.wipeProgress();
    this.stderr.write(`${value}\n`);
    this.lastOutputAt = Date.now();
  }

  endLine(): void {
    if (this.midLine) this.text('\n');
  }

  private tick(): void {
    const what = this.waitingFor();
    if (!what) return;
    const now = Date.now();
    if (now - this.lastOutputAt < this.intervalMs) return;
    const seconds = Math.round((now - this.startedAt) / 1000);
    if (this.stderr.isTTY) {
      if (this.midLine) return; // never draw over a line of the transcript
      this.stderr.write(`\r\u001b[2K… ${what} (${seconds}s)`);
      this.progressShown = true;
    } else if (now - this.lastProgressAt >= this.intervalMs) {
      this.endLine();
      this.stderr.write(`… ${what} (${seconds}s)\n`);
      this.lastProgressAt = now;
    }
  }

  private wipeProgress(): void {
    if (!this.progressShown) return;
    this.stderr.write('\r\u001b[2K');
    this.progressShown = false;
  }
}
