import { createStudyClient, data, StudyApiError } from "@study/sdk";

/**
 * The app's one client of the API. The app is served on the API's own origin (/app/ of the gateway, or Vite's dev
 * server proxying /api), so requests go to relative URLs and carry the session cookie sign-in set.
 */
export const client = createStudyClient({ baseUrl: "" });

/** The typed operations: `api.GET("/api/courses")`, with `data()` for the answer or a thrown StudyApiError. */
export const api = client.api;

export { data, StudyApiError };
