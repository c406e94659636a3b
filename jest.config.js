/** One jest run for the whole monorepo: unit, integration and end-to-end tests (see README "Tests"). */
const swc = ["@swc/jest", { jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } }];

module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/libs", "<rootDir>/services", "<rootDir>/gateway"],
  testMatch: ["**/test/**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/", "/dist/"],
  transform: { "^.+\\.(ts|js|mjs|cjs)$": swc },
  // ESM-only dependencies are compiled to CommonJS for jest's module system.
  transformIgnorePatterns: ["/node_modules/(?!(uuid|better-auth|@better-auth|better-call|jose|nanostores|@noble|defu|rou3|kysely)/)"],
  moduleNameMapper: {
    "^@study/(contracts|platform|db|grpc|events|runtime|testkit|ai)$": "<rootDir>/libs/$1/src",
    "^@study/(contracts|platform|db|grpc|events|runtime|testkit|ai)/(.*)$": "<rootDir>/libs/$1/src/$2",
  },
  moduleFileExtensions: ["ts", "js", "mjs", "cjs", "json"],
  globalSetup: "<rootDir>/libs/testkit/src/jest/global-setup.ts",
  globalTeardown: "<rootDir>/libs/testkit/src/jest/global-teardown.ts",
  testTimeout: 60_000,
};
