import type { SyllabusItem } from "../../domain/syllabus/parse-syllabus";

/** Port: the calendar service, as a syllabus needs it. */
export interface SyllabusCalendar {
  /**
   * Creates the course's events for the items, each once per user and `sourceKey` (a re-upload of the same
   * syllabus, or a retry, creates nothing new). Returns how many were created and how many existed.
   */
  createEvents(userId: string, courseId: string, items: { sourceKey: string; item: SyllabusItem }[]): Promise<{ created: number; existing: number }>;
}
