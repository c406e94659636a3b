import type { Logger } from "pino";

type Closer = () => unknown;

export interface LifecycleOptions {
  /** Time a closer gets before shutdown goes on without it (default 5 s; `onStop` may give its own). */
  closeTimeoutMs?: number;
  /** Where signals come from and how the process ends (tests pass their own). */
  signals?: NodeJS.EventEmitter;
  exit?: (code: number) => void;
}

/**
 * Closes resources in reverse order of registration on SIGINT/SIGTERM, then exits. Shutdown is bounded:
 * each closer has a time limit (a database or broker that is already gone must not hold the process), and a
 * second signal ends the process at once.
 */
export class Lifecycle {
  private readonly closers: { name: string; close: Closer; timeoutMs: number }[] = [];
  private stopping: Promise<void> | undefined;
  private readonly closeTimeoutMs: number;
  private readonly signals: NodeJS.EventEmitter;
  private readonly exit: (code: number) => void;

  constructor(
    private readonly logger: Logger,
    options: LifecycleOptions = {},
  ) {
    this.closeTimeoutMs = options.closeTimeoutMs ?? 5_000;
    this.signals = options.signals ?? process;
    this.exit = options.exit ?? ((code) => process.exit(code));
  }

  onStop(name: string, close: Closer, options: { timeoutMs?: number } = {}): void {
    this.closers.push({ name, close, timeoutMs: options.timeoutMs ?? this.closeTimeoutMs });
  }

  listenForSignals(): void {
    let received = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      received += 1;
      if (received > 1) {
        this.logger.warn({ signal }, "second signal: exiting now");
        this.exit(1);
        return;
      }
      this.logger.info({ signal }, "shutting down");
      void this.stop().then(() => this.exit(0));
    };
    for (const signal of ["SIGINT", "SIGTERM"] as const) this.signals.on(signal, onSignal);
  }

  /** Runs every closer once, each within its time limit; later calls wait for the same shutdown. */
  stop(): Promise<void> {
    this.stopping ??= this.closeAll();
    return this.stopping;
  }

  private async closeAll(): Promise<void> {
    for (const { name, close, timeoutMs } of [...this.closers].reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<"timed out">((resolve) => {
        timer = setTimeout(() => resolve("timed out"), timeoutMs);
        timer.unref();
      });
      try {
        const outcome = await Promise.race([Promise.resolve().then(close), timedOut]);
        if (outcome === "timed out") this.logger.warn({ resource: name, timeoutMs }, "did not close in time; going on without it");
      } catch (error) {
        this.logger.warn({ err: error, resource: name }, "error while closing");
      } finally {
        clearTimeout(timer);
      }
    }
  }
}
