/**
 * Clean-up steps a bench run registers as it starts things; run once, in reverse order, also on Ctrl-C/SIGTERM.
 * A failing step is reported through `say` and does not stop the others.
 */
export function cleanupOnExit(say: (line: string) => void, firstStep: () => Promise<unknown> | unknown) {
  const steps: Array<() => Promise<unknown> | unknown> = [firstStep];
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const step of steps.reverse()) await Promise.resolve(step()).catch((error: Error) => say(`while cleaning up: ${error.message}`));
    })());
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      say(`${signal}: stopping…`);
      void cleanup().then(() => process.exit(130));
    });
  }
  return { steps, cleanup };
}
