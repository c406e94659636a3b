import { z } from "zod";
import { amqpUrl, baseConfigSchema, booleanString, ConfigError, loadConfig, port, postgresUrl, runMain } from "@study/platform";

const schema = baseConfigSchema.extend({
  GRPC_PORT: port(50051),
  DATABASE_URL: postgresUrl(),
  RABBITMQ_URL: amqpUrl(),
  FEATURE_ON: booleanString(false),
  EVENT_EXCHANGE: z.string().min(1).default("study.events"),
});

const valid = { DATABASE_URL: "postgresql://u:p@db:5432/app", RABBITMQ_URL: "amqp://guest:guest@mq:5672" };

/** The ConfigError thrown for an environment (fails the test when nothing is thrown). */
function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(schema, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected loadConfig to throw");
}

describe("loadConfig", () => {
  it("returns parsed values, applying defaults and coercions", () => {
    expect(loadConfig(schema, valid)).toEqual({
      NODE_ENV: "development",
      LOG_LEVEL: "info",
      GRPC_PORT: 50051,
      DATABASE_URL: valid.DATABASE_URL,
      RABBITMQ_URL: valid.RABBITMQ_URL,
      FEATURE_ON: false,
      EVENT_EXCHANGE: "study.events",
      INTERNAL_BIND_HOST: "0.0.0.0",
    });
  });

  it("refuses a trace sampler the SDK would only log and ignore, and a ratio outside 0..1", () => {
    expect(loadConfig(schema, { ...valid, OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.1" })).toMatchObject({
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.1",
    });
    expect(configError({ ...valid, OTEL_TRACES_SAMPLER: "ratio" }).message).toContain("OTEL_TRACES_SAMPLER");
    expect(configError({ ...valid, OTEL_TRACES_SAMPLER_ARG: "1.5" }).message).toContain("OTEL_TRACES_SAMPLER_ARG: must be a ratio between 0 and 1");
    expect(configError({ ...valid, OTEL_TRACES_SAMPLER_ARG: "" }).message).toContain("OTEL_TRACES_SAMPLER_ARG");
  });

  it("coerces explicit values: numbers, booleans, enums", () => {
    const config = loadConfig(schema, { ...valid, GRPC_PORT: "7001", FEATURE_ON: "1", NODE_ENV: "production", LOG_LEVEL: "silent" });
    expect(config).toMatchObject({ GRPC_PORT: 7001, FEATURE_ON: true, NODE_ENV: "production", LOG_LEVEL: "silent" });
    expect(loadConfig(schema, { ...valid, FEATURE_ON: "false" }).FEATURE_ON).toBe(false);
    expect(loadConfig(schema, { ...valid, GRPC_PORT: "0" }).GRPC_PORT).toBe(0);
  });

  it("ignores variables the schema does not name", () => {
    expect(loadConfig(schema, { ...valid, PATH: "/usr/bin", UNRELATED: "x" })).not.toHaveProperty("UNRELATED");
  });

  it("names a missing required variable in one line", () => {
    const error = configError({ RABBITMQ_URL: valid.RABBITMQ_URL });
    expect(error.name).toBe("ConfigError");
    expect(error.message).toBe("Invalid configuration: DATABASE_URL: is required but not set");
  });

  it.each([
    ["DATABASE_URL", "mysql://db/app", "Invalid configuration: DATABASE_URL: must be a postgres:// URL"],
    ["RABBITMQ_URL", "http://mq:15672", "Invalid configuration: RABBITMQ_URL: must be an amqp:// URL"],
    ["GRPC_PORT", "70000", /^Invalid configuration: GRPC_PORT: \S.*$/],
    ["GRPC_PORT", "not-a-number", /^Invalid configuration: GRPC_PORT: \S.*$/],
    ["FEATURE_ON", "yes", /^Invalid configuration: FEATURE_ON: \S.*$/],
    ["LOG_LEVEL", "verbose", /^Invalid configuration: LOG_LEVEL: \S.*$/],
  ])("names a bad value of %s (%s) in one line", (name, value, expected) => {
    const error = configError({ ...valid, [name]: value });
    expect(error.message).not.toContain("\n");
    expect(error.message).not.toContain("is required but not set");
    if (typeof expected === "string") expect(error.message).toBe(expected);
    else expect(error.message).toMatch(expected);
    // Only the variable at fault is named.
    for (const other of Object.keys(schema.shape).filter((key) => key !== name)) {
      expect(error.message).not.toContain(`${other}:`);
    }
  });

  it("lists several problems on the same single line", () => {
    const error = configError({ GRPC_PORT: "-1", RABBITMQ_URL: valid.RABBITMQ_URL });
    expect(error.message).not.toContain("\n");
    expect(error.message).toMatch(/^Invalid configuration: GRPC_PORT: \S.*; DATABASE_URL: is required but not set$/);
  });

  it("reads process.env by default", () => {
    const saved = { ...process.env };
    try {
      process.env.DATABASE_URL = "postgres://from-process-env/db";
      process.env.RABBITMQ_URL = "amqps://mq";
      expect(loadConfig(schema).DATABASE_URL).toBe("postgres://from-process-env/db");
    } finally {
      process.env = saved;
    }
  });
});

describe("runMain", () => {
  let exit: jest.SpiedFunction<typeof process.exit>;
  let stderr: jest.SpiedFunction<typeof process.stderr.write>;

  beforeEach(() => {
    exit = jest.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    stderr = jest.spyOn(process.stderr, "write").mockImplementation(() => true);
  });
  afterEach(() => {
    exit.mockRestore();
    stderr.mockRestore();
  });

  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it("ends the process with the ConfigError's one line and exit code 1", async () => {
    runMain(async () => loadConfig(schema, { RABBITMQ_URL: valid.RABBITMQ_URL }));
    await settle();
    expect(stderr).toHaveBeenCalledTimes(1);
    expect(stderr.mock.calls[0][0]).toBe("Invalid configuration: DATABASE_URL: is required but not set\n");
    expect(exit).toHaveBeenCalledWith(1);
  });

  it("reports any other failure as Fatal with its stack, exit code 1", async () => {
    runMain(async () => {
      throw new Error("database exploded");
    });
    await settle();
    expect(String(stderr.mock.calls[0][0])).toMatch(/^Fatal: Error: database exploded\n\s+at /);
    expect(exit).toHaveBeenCalledWith(1);
  });

  it("does nothing when the entry point succeeds", async () => {
    runMain(async () => "fine");
    await settle();
    expect(stderr).not.toHaveBeenCalled();
    expect(exit).not.toHaveBeenCalled();
  });
});
