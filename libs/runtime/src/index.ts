import type { TransactionalClient } from "@study/db";
import type { GrpcServiceRegistration } from "@study/grpc";
import type { Pool } from "pg";
import { z } from "zod";
import type { ServiceMigrations } from "./migrate";
import {
  serviceConfigSchema,
  startProcess,
  type Database,
  type ProcessContext,
  type RunningProcess,
  type ServiceConfig,
  type StartOptions,
} from "./start-process";

export * from "./start-process";
export * from "./migrate";
export * from "./reindex-command";
export * from "./job-worker";

export type ServiceContext<Db, C extends ServiceConfig> = ProcessContext<Db, C>;

/** A gRPC service as its `service.ts` declares it (the `service` kind of `startProcess`, plus its migrations). */
export interface ServiceDefinition<Db extends TransactionalClient, C extends ServiceConfig> extends ServiceMigrations {
  configSchema?: z.ZodType<C>;
  createDatabase(config: C, pool: Pool): Database<Db>;
  /** Builds adapters and use cases; returns the gRPC services to serve and starts consumers. */
  compose(context: ServiceContext<Db, C>): Promise<GrpcServiceRegistration[]>;
}

/** Starts a gRPC service (`startProcess` of kind `service`): what every `services/<name>/src/main.ts` calls. */
export function startService<Db extends TransactionalClient, C extends ServiceConfig>(
  definition: ServiceDefinition<Db, C>,
  options: StartOptions = {},
): Promise<RunningProcess<Db, C> & { grpcPort: number }> {
  return startProcess<Db, C>(
    {
      kind: "service",
      name: definition.name,
      configSchema: (definition.configSchema ?? serviceConfigSchema) as z.ZodType<C>,
      createDatabase: (config, pool) => definition.createDatabase(config, pool),
      compose: (context) => definition.compose(context),
    },
    options,
  );
}
