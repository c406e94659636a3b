/**
 * Strict validation of Kubernetes objects against the API's own schemas, offline: what `kubeconform -strict` does,
 * without its binary or its schema download.
 *
 * The schemas are the Kubernetes 1.27 OpenAPI definitions as kubernetes-models 4.3.1 ships them: JSON Schema
 * objects, one per definition, that a kind's `addSchema()` hands to @kubernetes-models/validate's `register` with
 * those of every definition it refers to (later releases ship only precompiled validators, from which no stricter
 * variant can be made). They are caught on their way there and compiled again, strict: every object schema that
 * lists its properties and says nothing of others gets `additionalProperties: false`, so an unknown or misspelled
 * field is an error (the API server would drop it silently, and the setting would never take effect). Types,
 * required fields, enums and formats (int32, quantities, …) come from the definitions as they are.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON Schema documents and Kubernetes objects of any shape
type Json = Record<string, any>;

const load = createRequire(__filename);
// The package's exports map names only its API groups: its root and _schemas/ are reached by file path.
const modelsRoot = path.dirname(load.resolve("kubernetes-models"));
// Where the definitions register themselves: the copy of @kubernetes-models/validate that kubernetes-models loads.
const registry = load(load.resolve("@kubernetes-models/validate", { paths: [modelsRoot] })) as { register: (id: string, schema: Json) => void };

/** A Kubernetes quantity (apimachinery's grammar): a signed decimal number and a binary, decimal or exponent suffix. */
const QUANTITY = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

/** The definition id of a kind: `io.k8s.api.<group>.<version>.<Kind>` (the core group is `core`). */
export function definitionId(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["core", apiVersion];
  return `io.k8s.api.${group.split(".")[0]}.${version}.${kind}`;
}

const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** A kind's definition and every definition it refers to, by id; undefined when the package has no such kind. */
function definitionsOf(apiVersion: string, kind: string): Map<string, Json> | undefined {
  const [, , , group, version, name] = definitionId(apiVersion, kind).split(".");
  const file = path.join(modelsRoot, "_schemas", `IoK8sApi${pascal(group)}${pascal(version)}${name}.js`);
  if (!existsSync(file)) return undefined;
  const caught = new Map<string, Json>();
  const register = registry.register;
  registry.register = (id, schema) => {
    caught.set(id, schema);
    register(id, schema);
  };
  try {
    (load(file) as { addSchema: () => void }).addSchema();
  } finally {
    registry.register = register;
  }
  return caught;
}

/** A deep copy in which every object schema with listed properties refuses the others. */
function strictCopy(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strictCopy);
  if (typeof schema !== "object" || schema === null) return schema;
  const copy: Json = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === "enum" ? value : strictCopy(value)]));
  if (copy.properties !== undefined && copy.additionalProperties === undefined && copy["x-kubernetes-preserve-unknown-fields"] !== true) {
    copy.additionalProperties = false;
  }
  return copy;
}

/** One line per error; the `oneOf: [definition, null]` wrappers' own complaints are left out (the definition's say why). */
function describeErrors(errors: ErrorObject[]): string[] {
  const meaningful = errors.filter((e) => e.keyword !== "oneOf" && !(e.keyword === "type" && e.params.type === "null"));
  return [
    ...new Set(
      (meaningful.length > 0 ? meaningful : errors).map((e) => {
        const where = e.instancePath || "/";
        if (e.keyword === "additionalProperties") return `${where}: unknown field "${String(e.params.additionalProperty)}"`;
        if (e.keyword === "enum") return `${where}: ${e.message} (${JSON.stringify(e.params.allowedValues)})`;
        return `${where}: ${e.message}`;
      }),
    ),
  ];
}

export interface StrictValidator {
  /** The problems of one object: none when it conforms, else the first error found; an unknown kind is one too. */
  validate(object: Json): string[];
}

/** A validator over the definitions of kubernetes-models, made strict. */
export function strictKubernetesValidator(): StrictValidator {
  // The first error of each object, not all of them: compiling for every error takes twice as long. Ajv's own strict
  // mode stays on, so a keyword or format it does not know in the definitions fails instead of being skipped.
  const ajv = new Ajv();
  addFormats(ajv, ["int32", "int64", "double", "byte", "date-time"]);
  ajv.addFormat("quantity", { type: "string", validate: (value: string) => QUANTITY.test(value) });
  const compiled = new Map<string, ValidateFunction | undefined>();
  const copied = new Set<string>();

  function compile(apiVersion: string, kind: string): ValidateFunction | undefined {
    const id = definitionId(apiVersion, kind);
    if (compiled.has(id)) return compiled.get(id);
    let validate: ValidateFunction | undefined;
    const definitions = definitionsOf(apiVersion, kind);
    if (definitions) {
      for (const [key, schema] of definitions) {
        if (copied.has(key)) continue;
        ajv.addSchema(strictCopy(schema) as Json, key);
        copied.add(key);
      }
      validate = ajv.getSchema(id);
    }
    compiled.set(id, validate);
    return validate;
  }

  return {
    validate(object) {
      const { apiVersion, kind } = object;
      if (typeof apiVersion !== "string" || typeof kind !== "string") return ["/: apiVersion and kind must be strings"];
      const validate = compile(apiVersion, kind);
      if (!validate) return [`/: no schema for ${apiVersion} ${kind} in the Kubernetes 1.27 API`];
      return validate(object) ? [] : describeErrors(validate.errors ?? []);
    },
  };
}
