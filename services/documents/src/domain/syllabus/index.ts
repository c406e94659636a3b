export { DEFAULT_MAX_ITEMS, DEFAULT_MAX_LINES, parseSyllabus } from "./parse-syllabus";
export type { ParsedSyllabus, ParseSyllabusOptions, SyllabusItem, SyllabusItemType } from "./parse-syllabus";
