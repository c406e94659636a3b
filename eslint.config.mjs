// ESLint for the whole monorepo (flat config), run by `npm run lint` (with Prettier and dependency-cruiser).
//
// Production code (every package's src/, bench/) is linted with type information — typescript-eslint's
// recommended and strict sets, type-checked — through the TypeScript project service, which finds each file's
// tsconfig.json. Tests are not part of any tsconfig (jest compiles them with swc, without type checking), so
// they get the same sets without the type-aware rules. A few rules of the sets are tuned below, each with why.
//
// House rules on top (each shown to bite on a fixture in libs/testkit/test/lint.test.ts):
// - no double assertion `x as unknown as T`: it silences the compiler instead of checking the value;
// - no non-null `!` (the strict set's no-non-null-assertion): proto messages make every field optional, and
//   `reply.course!` turns a missing field into a TypeError far away; use `required(reply.course, "course")`
//   from @study/platform/errors, which fails with a clear internal error;
// - no swallowed error without a log line: an empty catch block or `.catch(() => undefined)` needs a log
//   call, or an `eslint-disable-next-line` saying why ignoring the error is right (the directive needs its
//   reason: `-- why`).
import eslintComments from "@eslint-community/eslint-plugin-eslint-comments/configs";
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Syntax the house rules refuse (no-restricted-syntax). */
const RESTRICTED_SYNTAX = [
  {
    selector: "TSAsExpression[expression.type='TSAsExpression'][expression.typeAnnotation.type='TSUnknownKeyword']",
    message: "No `as unknown as`: it turns off type checking. Validate the value (zod, a type guard) or fix the types.",
  },
  {
    selector: "CatchClause > BlockStatement.body[body.length=0]",
    message: "An empty catch swallows the error: log it, rethrow it, or disable this rule on the line with the reason (`-- why`).",
  },
  {
    // .catch(() => undefined), .catch(() => null), .catch(() => {}), .catch(() => void 0)
    selector: [
      "CallExpression[callee.property.name='catch'] > ArrowFunctionExpression.arguments:matches(",
      "[body.type='Identifier'][body.name='undefined'], [body.type='Literal'][body.raw='null'], ",
      "[body.type='BlockStatement'][body.body.length=0], [body.type='UnaryExpression'][body.operator='void'])",
    ].join(""),
    message: "`.catch(() => undefined)` swallows the error: log it, or disable this rule on the line with the reason (`-- why`).",
  },
];

/** Generated code, build output, the local stack's data. */
const IGNORED = [
  "**/node_modules/**",
  "**/dist/**",
  "**/coverage/**",
  "libs/contracts/src/gen/**",
  "**/src/generated/**",
  "**/.stack/**",
  "**/.data/**",
  // fixtures that break the rules on purpose, linted by libs/testkit/test/lint.test.ts with --no-ignore
  "libs/testkit/test/fixtures/lint/**",
];

/** The type-checked sets, for the sources that belong to a tsconfig.json. */
const TYPED_SOURCES = [
  "{libs,services}/*/src/**/*.ts",
  "gateway/src/**/*.ts",
  "bench/src/**/*.ts",
  "libs/testkit/test/fixtures/lint/*.ts",
  "clients/*/src/**/*.{ts,tsx}",
];

export default tseslint.config(
  { ignores: IGNORED },
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
    languageOptions: { globals: { ...globals.node } },
  },
  js.configs.recommended,
  eslintComments.recommended,
  {
    rules: {
      // an eslint-disable must say why (`// eslint-disable-next-line rule -- reason`)
      "@eslint-community/eslint-comments/require-description": ["error", { ignore: ["eslint-enable"] }],
      "@eslint-community/eslint-comments/disable-enable-pair": ["error", { allowWholeFile: true }],
    },
  },

  // TypeScript with type information
  {
    files: TYPED_SOURCES,
    extends: [tseslint.configs.recommendedTypeChecked, tseslint.configs.strictTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Numbers and booleans read fine in messages and keys (`${count} cards`); objects and nullish values
      // (which print "[object Object]" / "undefined") stay refused.
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      // `noUncheckedIndexedAccess` is off in tsconfig.base.json, so the compiler types `list[i]` and `record[key]`
      // as always defined and this rule calls every guard on them unnecessary: it would push code towards the
      // very crashes the guards prevent.
      "@typescript-eslint/no-unnecessary-condition": "off",
      // Length limits count characters as code points on purpose (`[...text].length`: an emoji counts once, as
      // the API spec says); spreading objects, maps or promises stays refused.
      "@typescript-eslint/no-misused-spread": ["error", { allow: [{ from: "lib", name: "string" }] }],
      // Ports are interfaces with async methods; in-memory and no-op adapters implement them without awaiting.
      "@typescript-eslint/require-await": "off",
      // Short arrow bodies returning a call, and `return reply(...)` as an early exit from a function that returns
      // nothing, are the house style for handlers and promise executors.
      "@typescript-eslint/no-confusing-void-expression": [
        "error",
        { ignoreArrowShorthand: true, ignoreVoidOperator: true, ignoreVoidReturningFunctions: true },
      ],
    },
  },

  // The Node side (libs, services, gateway, bench) as one program (tsconfig.eslint.json: every package's sources,
  // `@study/*` mapped to them): it type-checks each file once instead of once per package that sees it, and needs
  // no build first, so lint runs beside `tsc -b`.
  {
    files: ["{libs,services}/*/src/**/*.ts", "gateway/src/**/*.ts", "bench/src/**/*.ts"],
    languageOptions: { parserOptions: { projectService: false, project: "./tsconfig.eslint.json", tsconfigRootDir: import.meta.dirname } },
  },

  // The test kit hands tests the gateway's JSON answers as `any` on purpose (GatewayClient): tests assert their
  // shape field by field, and the end-to-end checks validate every answer against the OpenAPI document.
  {
    files: ["libs/testkit/src/**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-call": "off",
    },
  },

  // TypeScript without type information: tests and any .ts outside a tsconfig.json
  {
    files: ["**/*.ts"],
    ignores: TYPED_SOURCES,
    extends: [tseslint.configs.recommended, tseslint.configs.strict],
    rules: {
      // Tests assert on values they just built or fetched; `expect(x!.y)` after `expect(x).toBeDefined()` is
      // the clearest way to say so there.
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },

  // House rules, everywhere
  {
    rules: {
      "no-restricted-syntax": ["error", ...RESTRICTED_SYNTAX],
      // Empty catch blocks are the house rule's (one report, asking for a log line or a reason).
      "no-empty": ["error", { allowEmptyCatch: true }],
      // In a comment, a zero-width space is how `**/test` is written without closing the comment.
      "no-irregular-whitespace": ["error", { skipComments: true }],
    },
  },
  {
    files: ["**/*.{ts,tsx}"],
    rules: {
      // `_` marks a parameter an implementation of an interface does not use.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },

  // The web app runs in browsers.
  {
    files: ["clients/*/src/**/*.{ts,tsx}"],
    languageOptions: { globals: { ...globals.browser } },
  },

  // Plain JavaScript config and scripts (CommonJS .js/.cjs, ES modules .mjs)
  {
    files: ["**/*.{js,cjs}"],
    languageOptions: { sourceType: "commonjs" },
  },
);
