import { z } from "zod";

/** Raised when the environment does not satisfy a process's configuration schema. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Settings every process understands. */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** Appends finished spans as JSON lines to this file (local debugging and the cross-process trace test). */
  OTEL_TRACES_EXPORT_FILE: z.string().min(1).optional(),
  // Read by the trace SDK itself, which would only log a bad value and sample everything: refused here at start.
  OTEL_TRACES_SAMPLER: z
    .enum(["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"])
    .optional(),
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .refine((value) => /^\s*\d*\.?\d+\s*$/u.test(value) && Number(value) >= 0 && Number(value) <= 1, "must be a ratio between 0 and 1")
    .optional(),
  /**
   * This process's Ed25519 key (base64 PKCS#8 DER), which signs its internal gRPC calls, and the public keys of the
   * processes its gRPC server answers (`name=<base64 SPKI DER>,…`): see libs/grpc/src/internal-auth.ts. Both are
   * required with NODE_ENV=production; `npm start` and the test stacks make them.
   */
  INTERNAL_AUTH_KEY: z.string().min(1).optional(),
  INTERNAL_AUTH_PUBLIC_KEYS: z.string().min(1).optional(),
  /** Address the internal ports (gRPC, the services' internal HTTP, workers' health) listen on; `npm start`: 127.0.0.1. */
  INTERNAL_BIND_HOST: z.string().min(1).default("0.0.0.0"),
});

/** An empty variable (`FOO=` in a .env file or a manifest) counts as unset: the setting's default applies. */
export const emptyAsUnset = (value: unknown) => (value === "" ? undefined : value);
/** A whole number from `min` to `max`, `fallback` when unset or empty. */
export const boundedInteger = (min: number, max: number, fallback: number) =>
  z.preprocess(emptyAsUnset, z.coerce.number().int().min(min).max(max).default(fallback));

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
export const postgresUrl = () => z.string().refine((v) => /^postgres(ql)?:\/\//.test(v), "must be a postgres:// URL");
export const amqpUrl = () => z.string().refine((v) => /^amqps?:\/\//.test(v), "must be an amqp:// URL");
export const booleanString = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0"])
    .default(fallback ? "true" : "false")
    .transform((v) => v === "true" || v === "1");

/**
 * Parses the environment with a schema. Problems become one line naming each variable, e.g.
 * `Invalid configuration: DATABASE_URL: is required but not set`.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join(".") || "(environment)";
    const missing = issue.code === "invalid_type" && env[String(issue.path[0])] === undefined;
    return `${name}: ${missing ? "is required but not set" : issue.message}`;
  });
  throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
}

/**
 * Runs a process's entry point: a configuration error ends the process with its one-line message,
 * anything else with the error logged.
 */
export function runMain(main: () => Promise<unknown>): void {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
    } else {
      process.stderr.write(`Fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exit(1);
  });
}
