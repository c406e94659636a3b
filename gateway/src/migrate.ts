import { migrate } from "@study/db";
import { createLogger, loadConfig, postgresUrl, runMain } from "@study/platform";
import { z } from "zod";
import { GATEWAY_MIGRATIONS } from "./gateway";

runMain(async () => {
  const { DATABASE_URL } = loadConfig(z.object({ DATABASE_URL: postgresUrl() }));
  const applied = await migrate(DATABASE_URL, GATEWAY_MIGRATIONS);
  createLogger("gateway-migrate").info({ applied }, applied.length ? "migrations applied" : "database is up to date");
});
