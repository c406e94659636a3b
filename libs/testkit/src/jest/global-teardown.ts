import { rmSync } from "node:fs";
import type { Infrastructure } from "../infrastructure";
import { stopSharedStack } from "../shared-stack";

export default async function globalTeardown(): Promise<void> {
  // The shared stack's processes first: they hold connections to the servers stopped next.
  await stopSharedStack();
  const infrastructure = (globalThis as { __studyInfrastructure?: Infrastructure }).__studyInfrastructure;
  (globalThis as { __studyInfrastructure?: Infrastructure }).__studyInfrastructure = undefined;
  await infrastructure?.stop();
  if (process.env.STUDY_TEST_BASE_DIR) rmSync(process.env.STUDY_TEST_BASE_DIR, { recursive: true, force: true });
}
