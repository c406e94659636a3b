import { rmSync } from "node:fs";
import type { Infrastructure } from "../infrastructure";

export default async function globalTeardown(): Promise<void> {
  const infrastructure = (globalThis as { __studyInfrastructure?: Infrastructure }).__studyInfrastructure;
  await infrastructure?.stop();
  if (process.env.STUDY_TEST_BASE_DIR) rmSync(process.env.STUDY_TEST_BASE_DIR, { recursive: true, force: true });
}
