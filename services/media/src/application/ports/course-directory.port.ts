/** Port: the courses service, as media needs it (uploads check the course before creating the import). */
export interface CourseDirectory {
  /** Resolves when the course exists and belongs to the user; NOT_FOUND otherwise. */
  assertOwned(userId: string, courseId: string): Promise<void>;
}
