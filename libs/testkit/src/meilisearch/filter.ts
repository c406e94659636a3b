import { MeilisearchStandInError } from "./errors";

/**
 * Meilisearch's filter expressions, the subset the stand-in evaluates: comparisons (`=`, `!=`, `>=`, `>`, `<=`,
 * `<`), `IN [...]` and `NOT IN [...]`, `AND`, `OR`, `NOT`, parentheses; values as words or single/double-quoted
 * strings. Quoted strings follow Meilisearch's parser: a backslash keeps the next character inside the string,
 * `\"` stands for the quote, and then Rust-style escapes are decoded (`\\` → `\`, `\n`, `\t`, `\u{…}`…).
 * Errors carry Meilisearch's messages (first line) and the offending columns with the filter (second line).
 */

export type ComparisonOperator = "=" | "!=" | ">=" | ">" | "<=" | "<";

export type FilterNode =
  | { kind: "or"; children: FilterNode[] }
  | { kind: "and"; children: FilterNode[] }
  | { kind: "not"; child: FilterNode }
  | { kind: "comparison"; field: string; column: number; operator: ComparisonOperator; value: string }
  | { kind: "in"; field: string; column: number; values: string[]; negated: boolean };

const KEYWORDS = new Set([
  "AND",
  "OR",
  "IN",
  "NOT",
  "TO",
  "EXISTS",
  "IS",
  "NULL",
  "EMPTY",
  "CONTAINS",
  "STARTS",
  "WITH",
  "_geoRadius",
  "_geoBoundingBox",
]);
const UNSUPPORTED = ["TO", "EXISTS", "IS", "CONTAINS", "STARTS"];
const OPERATORS: ComparisonOperator[] = ["!=", ">=", "<=", "=", ">", "<"];

const isValueChar = (char: string) => /[\p{L}\p{N}_.-]/u.test(char);

class FilterSyntaxError extends Error {}

class Parser {
  private position = 0;

  constructor(
    private readonly input: string,
    private readonly errorCode: string,
  ) {}

  parse(): FilterNode {
    const node = this.parseOr();
    this.skipWhitespace();
    if (this.position < this.input.length) {
      const rest = this.input.slice(this.position);
      this.fail(
        `Found unexpected characters at the end of the filter: \`${rest}\`. You probably forgot an \`OR\` or an \`AND\` rule.`,
        this.position,
        this.input.length,
      );
    }
    return node;
  }

  private fail(message: string, start: number, end: number): never {
    throw new MeilisearchStandInError(400, this.errorCode, `${message}\n${start + 1}:${Math.max(end, start + 1)} ${this.input}`);
  }

  private skipWhitespace(): void {
    while (this.position < this.input.length && /\s/.test(this.input[this.position])) this.position++;
  }

  /** Consumes a keyword standing alone (not the start of a longer word). */
  private keyword(word: string): boolean {
    this.skipWhitespace();
    if (!this.input.startsWith(word, this.position)) return false;
    const next = this.input[this.position + word.length];
    if (next !== undefined && isValueChar(next)) return false;
    this.position += word.length;
    return true;
  }

  private parseOr(): FilterNode {
    const children = [this.parseAnd()];
    while (this.keyword("OR")) children.push(this.parseAnd());
    return children.length === 1 ? children[0] : { kind: "or", children };
  }

  private parseAnd(): FilterNode {
    const children = [this.parseNot()];
    while (this.keyword("AND")) children.push(this.parseNot());
    return children.length === 1 ? children[0] : { kind: "and", children };
  }

  private parseNot(): FilterNode {
    const start = this.position;
    if (this.keyword("NOT")) {
      if (!/\s|\(/.test(this.input[this.position] ?? "")) this.position = start;
      else return { kind: "not", child: this.parseNot() };
    }
    return this.parsePrimary();
  }

  private invalidPrimary(start: number): never {
    const rest = this.input.slice(start).trim();
    const text = rest ? `at \`${rest}\`.` : "but instead got nothing.";
    this.fail(
      "Was expecting an operation `=`, `!=`, `>=`, `>`, `<=`, `<`, `IN`, `NOT IN`, `TO`, `EXISTS`, `NOT EXISTS`, `IS NULL`, `IS NOT NULL`, " +
        `\`IS EMPTY\`, \`IS NOT EMPTY\`, \`CONTAINS\`, \`NOT CONTAINS\`, \`STARTS WITH\`, \`NOT STARTS WITH\`, \`_geoRadius\`, \`_geoBoundingBox\` or \`_geoPolygon\` ${text}`,
      start,
      this.input.length,
    );
  }

  private parsePrimary(): FilterNode {
    this.skipWhitespace();
    const start = this.position;
    if (this.input[this.position] === "(") {
      this.position++;
      const inner = this.parseOr();
      this.skipWhitespace();
      if (this.input[this.position] !== ")") {
        this.fail(`Expression \`${this.input.slice(start)}\` is missing the following closing delimiter: \`)\`.`, start, this.input.length);
      }
      this.position++;
      return inner;
    }
    const field = this.parseValue(true);
    if (field === undefined) this.invalidPrimary(start);
    this.skipWhitespace();
    for (const operator of OPERATORS) {
      if (this.input.startsWith(operator, this.position)) {
        this.position += operator.length;
        const valueStart = this.position;
        const value = this.parseValue(false);
        if (value === undefined) this.expectedValue(valueStart);
        return { kind: "comparison", field, column: start, operator, value };
      }
    }
    const beforeKeyword = this.position;
    if (this.keyword("IN")) return { kind: "in", field, column: start, values: this.parseList(), negated: false };
    if (this.keyword("NOT")) {
      if (this.keyword("IN")) return { kind: "in", field, column: start, values: this.parseList(), negated: true };
    }
    this.position = beforeKeyword;
    for (const word of UNSUPPORTED) {
      if (this.keyword(word)) {
        this.fail(`The \`${word}\` operator is not supported by the Meilisearch stand-in.`, beforeKeyword, this.position);
      }
    }
    this.invalidPrimary(start);
  }

  private expectedValue(start: number): never {
    const rest = this.input.slice(start).trim().split(/\s/)[0] ?? "";
    if (!rest) this.fail("Was expecting a value but instead got nothing.", start, this.input.length);
    this.fail(`Was expecting a value but instead got \`${rest}\`.`, start, start + rest.length);
  }

  private parseList(): string[] {
    this.skipWhitespace();
    if (this.input[this.position] !== "[") this.fail("Expected `[` after `IN` keyword.", this.position, this.input.length);
    this.position++;
    const values: string[] = [];
    for (;;) {
      this.skipWhitespace();
      if (this.input[this.position] === "]") break;
      const valueStart = this.position;
      const value = this.parseValue(false);
      if (value === undefined) this.expectedValue(valueStart);
      values.push(value);
      this.skipWhitespace();
      if (this.input[this.position] === ",") {
        this.position++;
        continue;
      }
      if (this.input[this.position] !== "]") {
        this.fail("Expected matching `]` after the list of field names given to `IN[`", this.position, this.input.length);
      }
    }
    this.position++;
    return values;
  }

  /** A word or a quoted string; undefined when there is none here. */
  private parseValue(isField: boolean): string | undefined {
    this.skipWhitespace();
    const quote = this.input[this.position];
    if (quote === '"' || quote === "'") return this.parseQuoted(quote);
    const start = this.position;
    while (this.position < this.input.length && isValueChar(this.input[this.position])) this.position++;
    const word = this.input.slice(start, this.position);
    if (!word) return undefined;
    if (KEYWORDS.has(word)) {
      this.position = start;
      if (isField) return undefined;
      this.fail(
        `Was expecting a value but instead got \`${word}\`, which is a reserved keyword. To use \`${word}\` as a field name or a value, surround it by quotes.`,
        start,
        start + word.length,
      );
    }
    return word;
  }

  private parseQuoted(quote: string): string {
    const start = this.position;
    let index = start + 1;
    let escapedQuote = false;
    while (index < this.input.length && this.input[index] !== quote) {
      if (this.input[index] === "\\") {
        index++;
        if (index >= this.input.length) this.fail(`Malformed value: \`${this.input.slice(start + 1)}\`.`, start, this.input.length);
        if (this.input[index] === quote) escapedQuote = true;
      }
      index++;
    }
    if (index >= this.input.length) {
      this.fail(`Expression \`${this.input.slice(start)}\` is missing the following closing delimiter: \`${quote}\`.`, start, this.input.length);
    }
    let raw = this.input.slice(start + 1, index);
    this.position = index + 1;
    if (escapedQuote) raw = raw.split(`\\${quote}`).join(quote);
    try {
      return unescapeRust(raw);
    } catch (error) {
      if (error instanceof FilterSyntaxError) this.fail(`Malformed value: \`${raw}\`.`, start, index + 1);
      throw error;
    }
  }
}

/** The escapes the `unescaper` crate decodes after quote handling. */
function unescapeRust(raw: string): string {
  if (!raw.includes("\\")) return raw;
  let result = "";
  for (let index = 0; index < raw.length; index++) {
    const char = raw[index];
    if (char !== "\\") {
      result += char;
      continue;
    }
    const next = raw[++index];
    const simple: Record<string, string> = { "\\": "\\", '"': '"', "'": "'", n: "\n", r: "\r", t: "\t", "0": "\0", b: "\b", f: "\f", "/": "/" };
    if (next !== undefined && next in simple) {
      result += simple[next];
    } else if (next === "u" && raw[index + 1] === "{") {
      const end = raw.indexOf("}", index);
      const code = Number.parseInt(raw.slice(index + 2, end), 16);
      if (end < 0 || !Number.isFinite(code)) throw new FilterSyntaxError();
      result += String.fromCodePoint(code);
      index = end;
    } else if (next === "x" && /^[0-7][0-9a-fA-F]$/.test(raw.slice(index + 1, index + 3))) {
      result += String.fromCharCode(Number.parseInt(raw.slice(index + 1, index + 3), 16));
      index += 2;
    } else {
      throw new FilterSyntaxError();
    }
  }
  return result;
}

export function parseFilterExpression(expression: string, errorCode = "invalid_search_filter"): FilterNode | undefined {
  if (expression.trim() === "") return undefined;
  return new Parser(expression, errorCode).parse();
}

/**
 * The `filter` parameter: a string, or an array whose strings are ANDed and whose inner arrays of strings are ORed.
 * undefined when there is nothing to filter on.
 */
export function parseFilterParameter(filter: unknown, errorCode = "invalid_search_filter"): FilterNode | undefined {
  if (filter === undefined || filter === null) return undefined;
  const invalid = (found: unknown) =>
    new MeilisearchStandInError(
      400,
      errorCode,
      `Invalid syntax for the filter parameter: \`expected String, Array, found: ${JSON.stringify(found)}\`.`,
    );
  if (typeof filter === "string") return parseFilterExpression(filter, errorCode);
  if (!Array.isArray(filter)) throw invalid(filter);
  const children: FilterNode[] = [];
  for (const element of filter) {
    if (typeof element === "string") {
      const node = parseFilterExpression(element, errorCode);
      if (node) children.push(node);
    } else if (Array.isArray(element)) {
      const alternatives: FilterNode[] = [];
      for (const alternative of element) {
        if (typeof alternative !== "string") throw invalid(alternative);
        const node = parseFilterExpression(alternative, errorCode);
        if (node) alternatives.push(node);
      }
      if (alternatives.length) children.push({ kind: "or", children: alternatives });
    } else {
      throw invalid(element);
    }
  }
  if (children.length === 0) return undefined;
  return children.length === 1 ? children[0] : { kind: "and", children };
}

/** Every field a filter names, with the column where it appears. */
export function filterFields(node: FilterNode): { field: string; column: number }[] {
  switch (node.kind) {
    case "or":
    case "and":
      return node.children.flatMap(filterFields);
    case "not":
      return filterFields(node.child);
    default:
      return [{ field: node.field, column: node.column }];
  }
}

/** Meilisearch compares facet strings normalised: trimmed, NFKD-decomposed, lower-cased (milli's normalize_facet). */
export function normaliseFacet(value: string): string {
  return value.trim().normalize("NFKD").toLowerCase();
}

function asNumber(text: string): number | undefined {
  if (text.trim() === "") return undefined;
  const number = Number(text);
  return Number.isFinite(number) ? number : undefined;
}

function facetValues(value: unknown): unknown[] {
  return Array.isArray(value) ? value.flatMap(facetValues) : [value];
}

function equals(documentValue: unknown, filterValue: string): boolean {
  const number = asNumber(filterValue);
  return facetValues(documentValue).some((value) => {
    if (typeof value === "number") return number !== undefined && value === number;
    if (typeof value === "string") return normaliseFacet(value) === normaliseFacet(filterValue);
    if (typeof value === "boolean") return String(value) === filterValue.toLowerCase();
    return false;
  });
}

function compare(documentValue: unknown, operator: ComparisonOperator, filterValue: string): boolean {
  const bound = asNumber(filterValue);
  if (bound === undefined) return false;
  return facetValues(documentValue).some((value) => {
    if (typeof value !== "number") return false;
    switch (operator) {
      case ">":
        return value > bound;
      case ">=":
        return value >= bound;
      case "<":
        return value < bound;
      case "<=":
        return value <= bound;
      default:
        return false;
    }
  });
}

export function matchesFilter(node: FilterNode, document: Record<string, unknown>): boolean {
  switch (node.kind) {
    case "or":
      return node.children.some((child) => matchesFilter(child, document));
    case "and":
      return node.children.every((child) => matchesFilter(child, document));
    case "not":
      return !matchesFilter(node.child, document);
    case "in": {
      const found = node.values.some((value) => equals(document[node.field], value));
      return node.negated ? !found : found;
    }
    case "comparison":
      if (node.operator === "=") return equals(document[node.field], node.value);
      if (node.operator === "!=") return !equals(document[node.field], node.value);
      return compare(document[node.field], node.operator, node.value);
  }
}

/** A comparison with a value that is not a number (`createdAt > abc`) is refused, as Meilisearch does. */
export function checkNumericComparisons(node: FilterNode, expression: () => string, errorCode: string): void {
  switch (node.kind) {
    case "or":
    case "and":
      node.children.forEach((child) => {
        checkNumericComparisons(child, expression, errorCode);
      });
      return;
    case "not":
      checkNumericComparisons(node.child, expression, errorCode);
      return;
    case "in":
      return;
    case "comparison":
      if (["=", "!="].includes(node.operator) || asNumber(node.value) !== undefined) return;
      throw new MeilisearchStandInError(400, errorCode, `Expected a number but found \`${node.value}\`.\n${expression()}`);
  }
}
