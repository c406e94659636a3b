import type { paths, Schema } from "@study/sdk";
import { api, data } from "../../lib/api";

export type ImportJob = Schema<"ImportJob">;
export type JobStatus = ImportJob["status"];
export type JobSource = ImportJob["source"];
type JobsQuery = NonNullable<paths["/api/jobs"]["get"]["parameters"]["query"]>;

/** Jobs per page of the list. */
export const JOBS_PAGE = 20;

export const STATUS_LABELS: Record<JobStatus, string> = {
  PENDING: "Waiting",
  IN_PROGRESS: "In progress",
  COMPLETED: "Completed",
  FAILED: "Failed",
  CANCELLED: "Cancelled",
};

export const SOURCE_LABELS: Record<JobSource, string> = {
  VIDEO: "Video link",
  UPLOAD: "Recording or audio link",
};

/** The orders the list offers, as the API's sortBy and sortOrder. */
export const SORTS = {
  newest: { label: "Newest first", sortBy: "createdAt", sortOrder: "desc" },
  oldest: { label: "Oldest first", sortBy: "createdAt", sortOrder: "asc" },
  updated: { label: "Recently updated", sortBy: "updatedAt", sortOrder: "desc" },
  finished: { label: "Recently finished", sortBy: "completedAt", sortOrder: "desc" },
} as const satisfies Record<string, { label: string; sortBy: JobsQuery["sortBy"]; sortOrder: JobsQuery["sortOrder"] }>;
export type SortKey = keyof typeof SORTS;

/** What the list shows: one page of the jobs with a status and a source (all when absent), in an order. */
export interface JobFilters {
  status?: JobStatus;
  source?: JobSource;
  sort: SortKey;
  /** 1-based. */
  page: number;
}

/** Unfinished jobs can be cancelled; finished ones deleted. */
export const isActive = (status: JobStatus) => status === "PENDING" || status === "IN_PROGRESS";

/** Query keys: ["jobs", filters] for a page, ["jobs", "stats"]; invalidating ["jobs"] refreshes both. */
export const jobKeys = {
  all: ["jobs"] as const,
  list: (filters: JobFilters) => ["jobs", filters] as const,
  stats: ["jobs", "stats"] as const,
};

export function fetchJobs(filters: JobFilters) {
  const { sortBy, sortOrder } = SORTS[filters.sort];
  const query: JobsQuery = { limit: JOBS_PAGE, offset: (filters.page - 1) * JOBS_PAGE, sortBy, sortOrder };
  if (filters.status) query.status = filters.status;
  if (filters.source) query.source = filters.source;
  return data(api.GET("/api/jobs", { params: { query } }));
}

export const fetchJobStats = () => data(api.GET("/api/jobs/stats"));

export const cancelJob = (id: string) => data(api.POST("/api/jobs/{id}/cancel", { params: { path: { id } } }));

export const retryJob = (id: string) => data(api.POST("/api/jobs/{id}/retry", { params: { path: { id } } }));

export const deleteJob = (id: string) => data(api.DELETE("/api/jobs/{id}", { params: { path: { id } } }));
