/** The few YAML pieces the deployment generator writes by hand (it writes text, so that the files keep comments). */
import { load } from "js-yaml";

/** A string as YAML: plain where it reads back as the same string, otherwise double-quoted (JSON is valid YAML). */
export function scalar(value: string): string {
  if (value === "" || /^\s|\s$|\n|^[-?:,[\]{}#&*!|>'"%@`]/.test(value)) return JSON.stringify(value);
  try {
    return load(value) === value ? value : JSON.stringify(value);
  } catch {
    // Text YAML cannot read plainly (e.g. "a: b: c") is quoted.
    return JSON.stringify(value);
  }
}

/** `# …` lines at an indentation, one per line of the text; none without a text. */
export function comment(text: string | undefined, indent: number): string[] {
  if (text === undefined) return [];
  return text.split("\n").map((line) => `${" ".repeat(indent)}# ${line}`);
}

/** Lines indented by a number of spaces. */
export function indented(lines: readonly string[], indent: number): string[] {
  return lines.map((line) => (line === "" ? line : " ".repeat(indent) + line));
}

/** A flow sequence of strings, as the manifests write commands: `["node", "gateway/dist/main.js"]`. */
export function flowList(values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(", ")}]`;
}
