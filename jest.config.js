/**
 * One jest configuration for the whole monorepo, in three projects (see docs/testing.md):
 * - unit: `*​/test/unit` — domain rules and use cases with in-memory ports; no PostgreSQL, no RabbitMQ, so no
 *   global set-up: `npm test` runs it first (`jest --selectProjects unit`) and a broken rule fails in seconds;
 * - integration: every other test folder of libs/ and services/ — one lib or service against real servers;
 * - e2e: gateway/test/e2e — the built processes as a stack, driven over HTTP.
 * Integration and end-to-end run together after the unit layer, sharing one PostgreSQL and one RabbitMQ started
 * by the global set-up (a database and an exchange per test file).
 */
/**
 * `--selectProjects` takes several values, so a test path after it (`--selectProjects unit libs/x/test`) is read as
 * one more project name and jest runs every test of the project instead: minutes on two cores. Stop that at once.
 */
const selected = process.argv.indexOf("--selectProjects");
if (selected >= 0) {
  const values = process.argv.slice(selected + 1);
  const end = values.findIndex((value) => value.startsWith("-"));
  const paths = values.slice(0, end < 0 ? undefined : end).filter((value) => /[/.]/.test(value));
  if (paths.length > 0) {
    throw new Error(
      `jest.config.js: ${paths.join(" ")} follows --selectProjects and would be read as a project name (every test of the project would run). Put test paths first: npx jest ${paths.join(" ")} --selectProjects ${values
        .filter((v) => !paths.includes(v))
        .slice(0, 1)
        .join("")}`,
    );
  }
}

const swc = ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } }];

const common = {
  testEnvironment: "node",
  rootDir: __dirname,
  roots: ["<rootDir>/libs", "<rootDir>/services", "<rootDir>/gateway", "<rootDir>/clients"],
  testPathIgnorePatterns: ["/node_modules/", "/dist/"],
  transform: { "^.+\\.(ts|js|mjs|cjs)$": swc },
  // ESM-only dependencies are compiled to CommonJS for jest's module system.
  transformIgnorePatterns: [
    "/node_modules/(?!(uuid|better-auth|@better-auth|better-call|jose|nanostores|@noble|defu|rou3|kysely|meilisearch|file-type|strtok3|token-types|@tokenizer|uint8array-extras|@borewit|pptxgenjs)/)",
  ],
  moduleNameMapper: {
    // file-type's exports offer only "import" and "module-sync" conditions, which jest's resolver does not use.
    "^file-type$": "<rootDir>/node_modules/file-type/index.js",
    "^@study/(contracts|platform|db|grpc|events|runtime|testkit|ai|storage)$": "<rootDir>/libs/$1/src",
    "^@study/(contracts|platform|db|grpc|events|runtime|testkit|ai|storage)/(.*)$": "<rootDir>/libs/$1/src/$2",
  },
  moduleFileExtensions: ["ts", "js", "mjs", "cjs", "json"],
};

/** Servers for the integration and end-to-end layers: started once per jest run. */
const infrastructure = {
  globalSetup: "<rootDir>/libs/testkit/src/jest/global-setup.ts",
  globalTeardown: "<rootDir>/libs/testkit/src/jest/global-teardown.ts",
};

module.exports = {
  testTimeout: 60_000,
  projects: [
    { ...common, displayName: "unit", testMatch: ["**/test/unit/**/*.test.ts"] },
    {
      ...common,
      ...infrastructure,
      displayName: "integration",
      testMatch: ["**/test/**/*.test.ts"],
      testPathIgnorePatterns: [...common.testPathIgnorePatterns, "/test/unit/", "<rootDir>/gateway/test/e2e/", "<rootDir>/clients/"],
    },
    {
      ...common,
      ...infrastructure,
      // The servers, then the run's shared stack (`sharedTestStack()`), started once for every end-to-end file.
      globalSetup: "<rootDir>/libs/testkit/src/jest/e2e-global-setup.ts",
      displayName: "e2e",
      // The gateway over HTTP, and the web app in Chromium (clients/web/test/browser), on the same shared stack.
      testMatch: ["<rootDir>/gateway/test/e2e/**/*.test.ts", "<rootDir>/clients/web/test/browser/**/*.test.ts"],
    },
  ],
};
