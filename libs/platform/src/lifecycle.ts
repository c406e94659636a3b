import type { Logger } from "pino";

type Closer = () => Promise<unknown> | unknown;

/** Closes resources in reverse order of registration on SIGINT/SIGTERM, then exits. */
export class Lifecycle {
  private readonly closers: { name: string; close: Closer }[] = [];
  private stopping = false;

  constructor(private readonly logger: Logger) {}

  onStop(name: string, close: Closer): void {
    this.closers.push({ name, close });
  }

  listenForSignals(): void {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        this.logger.info({ signal }, "shutting down");
        void this.stop().then(() => process.exit(0));
      });
    }
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const { name, close } of [...this.closers].reverse()) {
      try {
        await close();
      } catch (error) {
        this.logger.warn({ err: error, resource: name }, "error while closing");
      }
    }
  }
}
