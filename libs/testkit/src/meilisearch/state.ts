import type { TypoToleranceSettings } from "./engine";
import { badRequest, invalidType, unknownField } from "./errors";

/** The settings the stand-in honours, with Meilisearch's defaults. */
export interface IndexSettings {
  displayedAttributes: string[];
  searchableAttributes: string[];
  filterableAttributes: string[];
  sortableAttributes: string[];
  rankingRules: string[];
  typoTolerance: TypoToleranceSettings;
  pagination: { maxTotalHits: number };
  faceting: { maxValuesPerFacet: number };
}

export interface StandInIndex {
  uid: string;
  primaryKey: string | null;
  createdAt: string;
  updatedAt: string;
  settings: IndexSettings;
  /** By document id, in indexing order (Meilisearch's tie-break between equally ranked documents). */
  documents: Map<string, Record<string, unknown>>;
}

export const DEFAULT_RANKING_RULES = ["words", "typo", "proximity", "attribute", "sort", "exactness"];

export function defaultSettings(): IndexSettings {
  return {
    displayedAttributes: ["*"],
    searchableAttributes: ["*"],
    filterableAttributes: [],
    sortableAttributes: [],
    rankingRules: [...DEFAULT_RANKING_RULES],
    typoTolerance: { enabled: true, minWordSizeForTypos: { oneTypo: 5, twoTypos: 9 }, disableOnWords: [], disableOnAttributes: [] },
    pagination: { maxTotalHits: 1000 },
    faceting: { maxValuesPerFacet: 100 },
  };
}

/** Every field of Meilisearch's settings object (PATCH /indexes/:uid/settings), in its order. */
const SETTINGS_FIELDS = [
  "displayedAttributes",
  "searchableAttributes",
  "filterableAttributes",
  "sortableAttributes",
  "rankingRules",
  "stopWords",
  "nonSeparatorTokens",
  "separatorTokens",
  "dictionary",
  "synonyms",
  "distinctAttribute",
  "proximityPrecision",
  "typoTolerance",
  "faceting",
  "pagination",
  "embedders",
  "searchCutoffMs",
  "localizedAttributes",
  "facetSearch",
  "prefixSearch",
  "chat",
  "vectorStore",
  "foreignKeys",
] as const;

const SUPPORTED_SETTINGS = [
  "displayedAttributes",
  "searchableAttributes",
  "filterableAttributes",
  "sortableAttributes",
  "rankingRules",
  "typoTolerance",
  "faceting",
  "pagination",
];

const settingsCode = (field: string) => `invalid_settings_${field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}`;

function stringList(value: unknown, field: string, path = `.${field}`): string[] {
  if (!Array.isArray(value)) throw invalidType(settingsCode(field), path, "an array", value);
  return value.map((item: unknown, index) => {
    if (typeof item !== "string") throw invalidType(settingsCode(field), `${path}[${index}]`, "a string", item);
    return item;
  });
}

function objectOf(value: unknown, field: string, accepted: readonly string[]): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidType(settingsCode(field), `.${field}`, "an object", value);
  for (const key of Object.keys(value)) if (!accepted.includes(key)) throw unknownField(key, accepted, `.${field}`);
  return value as Record<string, unknown>;
}

function positiveInteger(value: unknown, field: string, path: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw invalidType(settingsCode(field), path, "a positive integer", value);
  return value;
}

/** A settings change, validated as Meilisearch does when the request arrives (the task applies it later). */
export type SettingsChange = (settings: IndexSettings) => void;

export function parseSettings(body: unknown): SettingsChange {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw badRequest("bad_request", `Invalid value type: expected an object, but found ${JSON.stringify(body)}`);
  }
  const fields = body as Record<string, unknown>;
  const changes: SettingsChange[] = [];
  for (const [key, value] of Object.entries(fields)) {
    if (!(SETTINGS_FIELDS as readonly string[]).includes(key)) throw unknownField(key, SETTINGS_FIELDS);
    if (!SUPPORTED_SETTINGS.includes(key)) {
      throw badRequest(
        settingsCode(key),
        `The Meilisearch stand-in does not apply \`${key}\`; extend libs/testkit/src/meilisearch before relying on it.`,
      );
    }
    const reset = value === null;
    switch (key) {
      case "displayedAttributes":
      case "searchableAttributes": {
        const list = reset ? ["*"] : stringList(value, key);
        changes.push((settings) => {
          settings[key] = list;
        });
        break;
      }
      case "filterableAttributes":
      case "sortableAttributes": {
        const list = reset ? [] : stringList(value, key);
        changes.push((settings) => {
          settings[key] = list;
        });
        break;
      }
      case "rankingRules": {
        const list = reset ? [...DEFAULT_RANKING_RULES] : stringList(value, key);
        if (list.join() !== DEFAULT_RANKING_RULES.join()) {
          throw badRequest(settingsCode(key), "The Meilisearch stand-in ranks with the default ranking rules only.");
        }
        changes.push((settings) => {
          settings.rankingRules = list;
        });
        break;
      }
      case "typoTolerance": {
        if (reset) {
          changes.push((settings) => {
            settings.typoTolerance = defaultSettings().typoTolerance;
          });
          break;
        }
        const typo = objectOf(value, key, ["enabled", "minWordSizeForTypos", "disableOnWords", "disableOnAttributes", "disableOnNumbers"]);
        if (typo.enabled !== undefined && typo.enabled !== null && typeof typo.enabled !== "boolean") {
          throw invalidType(settingsCode(key), ".typoTolerance.enabled", "a boolean", typo.enabled);
        }
        let sizes: Record<string, unknown> | undefined;
        if (typo.minWordSizeForTypos !== undefined && typo.minWordSizeForTypos !== null) {
          const raw = typo.minWordSizeForTypos;
          if (typeof raw !== "object" || Array.isArray(raw))
            throw invalidType(settingsCode(key), ".typoTolerance.minWordSizeForTypos", "an object", raw);
          sizes = raw as Record<string, unknown>;
          for (const name of Object.keys(sizes)) {
            if (!["oneTypo", "twoTypos"].includes(name)) throw unknownField(name, ["oneTypo", "twoTypos"], ".typoTolerance.minWordSizeForTypos");
          }
        }
        const oneTypo = sizes?.oneTypo == null ? undefined : positiveInteger(sizes.oneTypo, key, ".typoTolerance.minWordSizeForTypos.oneTypo");
        const twoTypos = sizes?.twoTypos == null ? undefined : positiveInteger(sizes.twoTypos, key, ".typoTolerance.minWordSizeForTypos.twoTypos");
        const disableOnWords = typo.disableOnWords == null ? undefined : stringList(typo.disableOnWords, key, ".typoTolerance.disableOnWords");
        const disableOnAttributes =
          typo.disableOnAttributes == null ? undefined : stringList(typo.disableOnAttributes, key, ".typoTolerance.disableOnAttributes");
        changes.push((settings) => {
          const current = settings.typoTolerance;
          settings.typoTolerance = {
            enabled: typeof typo.enabled === "boolean" ? typo.enabled : current.enabled,
            minWordSizeForTypos: {
              oneTypo: oneTypo ?? current.minWordSizeForTypos.oneTypo,
              twoTypos: twoTypos ?? current.minWordSizeForTypos.twoTypos,
            },
            disableOnWords: disableOnWords ?? current.disableOnWords,
            disableOnAttributes: disableOnAttributes ?? current.disableOnAttributes,
          };
        });
        break;
      }
      case "pagination": {
        const pagination = reset ? {} : objectOf(value, key, ["maxTotalHits"]);
        const maxTotalHits = pagination.maxTotalHits == null ? 1000 : positiveInteger(pagination.maxTotalHits, key, ".pagination.maxTotalHits");
        changes.push((settings) => {
          settings.pagination = { maxTotalHits };
        });
        break;
      }
      case "faceting": {
        const faceting = reset ? {} : objectOf(value, key, ["maxValuesPerFacet", "sortFacetValuesBy"]);
        const maxValuesPerFacet =
          faceting.maxValuesPerFacet == null ? 100 : positiveInteger(faceting.maxValuesPerFacet, key, ".faceting.maxValuesPerFacet");
        changes.push((settings) => {
          settings.faceting = { maxValuesPerFacet };
        });
        break;
      }
    }
  }
  return (settings) => {
    for (const change of changes) change(settings);
  };
}

/** Meilisearch's settings object as GET /indexes/:uid/settings shows it (the fields the stand-in keeps). */
export function settingsView(settings: IndexSettings): Record<string, unknown> {
  return {
    displayedAttributes: settings.displayedAttributes,
    searchableAttributes: settings.searchableAttributes,
    filterableAttributes: settings.filterableAttributes,
    sortableAttributes: settings.sortableAttributes,
    rankingRules: settings.rankingRules,
    typoTolerance: { ...settings.typoTolerance, disableOnNumbers: false },
    faceting: { maxValuesPerFacet: settings.faceting.maxValuesPerFacet, sortFacetValuesBy: { "*": "alpha" } },
    pagination: settings.pagination,
  };
}
