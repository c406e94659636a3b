/** Port: the courses service, as documents need it (a document's course must be the user's). */
export interface CourseDirectory {
  /** Resolves when the course exists and belongs to the user; NOT_FOUND otherwise. */
  assertOwned(userId: string, courseId: string): Promise<void>;
}
