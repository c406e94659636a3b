import type { Difficulty, RecordStatus, RecordType } from "./search-record";

/**
 * The fixed part of GET /api/search/filters: the choices a client offers beside the user's own courses (spec
 * "Search": types {value, label, icon}, difficulty and status {value, label, color}, date ranges {value, label}).
 */

export interface TypeOption {
  value: RecordType;
  label: string;
  /** A Lucide icon name. */
  icon: string;
}

export interface ColoredOption<V extends string> {
  value: V;
  label: string;
  /** A CSS colour. */
  color: string;
}

export interface DateRangeOption {
  value: "today" | "week" | "month" | "semester" | "custom";
  label: string;
}

/** In the order of RECORD_TYPES. */
export const TYPE_OPTIONS: readonly TypeOption[] = [
  { value: "note", label: "Notes", icon: "file-text" },
  { value: "flashcard_set", label: "Flashcard sets", icon: "layers" },
  { value: "study_guide", label: "Study guides", icon: "book-open" },
  { value: "quiz", label: "Quizzes", icon: "circle-help" },
  { value: "course", label: "Courses", icon: "graduation-cap" },
  { value: "document", label: "Documents", icon: "file" },
  { value: "calendar_event", label: "Calendar events", icon: "calendar" },
  { value: "chat_session", label: "Chat sessions", icon: "messages-square" },
];

export const DIFFICULTY_OPTIONS: readonly ColoredOption<Difficulty>[] = [
  { value: "EASY", label: "Easy", color: "#22c55e" },
  { value: "MEDIUM", label: "Medium", color: "#f59e0b" },
  { value: "HARD", label: "Hard", color: "#ef4444" },
];

export const STATUS_OPTIONS: readonly ColoredOption<RecordStatus>[] = [
  { value: "COMPLETED", label: "Completed", color: "#22c55e" },
  { value: "PROCESSING", label: "Processing", color: "#3b82f6" },
  { value: "FAILED", label: "Failed", color: "#ef4444" },
];

export const DATE_RANGE_OPTIONS: readonly DateRangeOption[] = [
  { value: "today", label: "Today" },
  { value: "week", label: "This week" },
  { value: "month", label: "This month" },
  { value: "semester", label: "This semester" },
  { value: "custom", label: "Custom range" },
];
