/**
 * AG-5 silence watchdog for one run: if no event arrives for the agent's silence timeout the run is
 * marked `stalled`; the next event brings it back to `ok`. Timers are unref'd so a forgotten watchdog
 * never keeps the process alive.
 */
export class LivenessWatchdog {
  private timer: NodeJS.Timeout | null = null;
  private stalled = false;
  private stopped = false;

  constructor(
    private readonly silenceMs: number,
    private readonly onStalled: () => void,
    private readonly onRecovered: () => void,
  ) {
    this.arm();
  }

  /** Any sign of life from the run. */
  touch(): void {
    if (this.stopped) return;
    if (this.stalled) {
      this.stalled = false;
      this.onRecovered();
    }
    this.arm();
  }

  /** Waiting on a person is not silence: the watchdog sleeps until `resume`. */
  suspend(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  resume(): void {
    if (!this.stopped) this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.stopped) return;
      this.stalled = true;
      this.onStalled();
    }, this.silenceMs);
    this.timer.unref();
  }
}
