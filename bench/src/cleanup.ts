/**
 * Clean-up steps a bench run registers as it starts things; run once, in reverse order, also on Ctrl-C/SIGTERM.
 * A failing step is reported through `say` and does not stop the others.
 */
/** A clean-up step: may return a promise, which is awaited. */
type CleanupStep = () => unknown;

export function cleanupOnExit(say: (line: string) => void, firstStep: CleanupStep) {
  const steps: CleanupStep[] = [firstStep];
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const step of steps.reverse())
        await Promise.resolve(step()).catch((error: unknown) => say(`while cleaning up: ${error instanceof Error ? error.message : String(error)}`));
    })());
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      say(`${signal}: stopping…`);
      void cleanup().then(() => process.exit(130));
    });
  }
  return { steps, cleanup };
}
