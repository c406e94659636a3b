/** Port: the courses service, as the calendar needs it (an event's course must be the user's). */
export interface CourseDirectory {
  /** Resolves when the course exists and belongs to the user; NOT_FOUND otherwise. */
  assertOwned(userId: string, courseId: string): Promise<void>;
}
