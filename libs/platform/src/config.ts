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
  NODE_ENV: z
    .enum(["development", "test", "production"])
    .default("development")
    .describe("`production` makes the internal keys required and refuses settings meant for development (billing's test keys, stand-in URLs)."),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("Least severe level logged (JSON lines on stdout, with trace ids)."),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url()
    .optional()
    .describe("OTLP/gRPC collector that receives the spans (Jaeger, an OpenTelemetry collector); unset: none sent."),
  OTEL_TRACES_EXPORT_FILE: z
    .string()
    .min(1)
    .optional()
    .describe("Appends finished spans as JSON lines to this file (local debugging, the cross-process trace test)."),
  // Read by the trace SDK itself, which would only log a bad value and sample everything: refused here at start.
  OTEL_TRACES_SAMPLER: z
    .enum(["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"])
    .optional()
    .describe("OpenTelemetry's sampler; unset: every trace sampled. A bad value stops the process at start."),
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .refine((value) => /^\s*\d*\.?\d+\s*$/u.test(value) && Number(value) >= 0 && Number(value) <= 1, "must be a ratio between 0 and 1")
    .optional()
    .describe("The ratio sampler's share of traces (`0.1` with `parentbased_traceidratio`: one in ten)."),
  // Both internal-auth keys: see libs/grpc/src/internal-auth.ts; `npm start` and the test stacks make them.
  INTERNAL_AUTH_KEY: z
    .string()
    .min(1)
    .optional()
    .describe(
      "This process's Ed25519 key (base64 PKCS#8), which signs its gRPC calls; required with NODE_ENV=production, else a warning. `npm run -s internal-auth-keys` makes a set.",
    ),
  INTERNAL_AUTH_PUBLIC_KEYS: z
    .string()
    .min(1)
    .optional()
    .describe("`name=<base64 SPKI>,…`: the processes whose calls its gRPC server answers; required with NODE_ENV=production."),
  INTERNAL_BIND_HOST: z
    .string()
    .min(1)
    .default("0.0.0.0")
    .describe(
      "Address the internal ports listen on (gRPC, media's and documents' internal HTTP, workers' health); `npm start`, test stacks: 127.0.0.1.",
    ),
});

/** An empty variable (`FOO=` in a .env file or a manifest) counts as unset: the setting's default applies. */
export const emptyAsUnset = (value: unknown) => (value === "" ? undefined : value);
/** A whole number from `min` to `max`, `fallback` when unset or empty. */
export const boundedInteger = (min: number, max: number, fallback: number) =>
  z.preprocess(emptyAsUnset, z.coerce.number().int().min(min).max(max).default(fallback));

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);
export const postgresUrl = () =>
  z
    .string()
    .refine((v) => /^postgres(ql)?:\/\//.test(v), "must be a postgres:// URL")
    .describe("The process's PostgreSQL database (`postgres://user:password@host:port/name`).");
export const amqpUrl = () =>
  z
    .string()
    .refine((v) => /^amqps?:\/\//.test(v), "must be an amqp:// URL")
    .describe("The RabbitMQ broker (`amqp://user:password@host:port/vhost`; `amqps://` with TLS).");
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
