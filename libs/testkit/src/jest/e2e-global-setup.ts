import globalSetup from "./global-setup";
import { prepareDatabaseTemplates } from "../e2e";
import { startSharedStack } from "../shared-stack";

/**
 * Global set-up of the end-to-end project: the servers (unless the integration project's set-up started them in
 * this run already), every app's database migrated once as a template for the stacks to copy, then one stack of every process for the test files that need no settings of their own
 * (`sharedTestStack()`): the stack starts once per run however many such files there are.
 */
export default async function e2eGlobalSetup(): Promise<void> {
  await globalSetup();
  await prepareDatabaseTemplates();
  await startSharedStack();
}
