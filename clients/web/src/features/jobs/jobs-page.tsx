import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { ProgressBar } from "react-aria-components";
import { Link, useSearchParams } from "react-router";
import { Button } from "../../components/fields";
import { Empty, ErrorMessage, QueryState } from "../../components/page-state";
import { formatDate } from "../../lib/time";
import { Confirm } from "../../components/confirm";
import { SelectField } from "../../components/select";
import {
  cancelJob,
  deleteJob,
  fetchJobs,
  fetchJobStats,
  isActive,
  jobKeys,
  JOBS_PAGE,
  retryJob,
  SORTS,
  SOURCE_LABELS,
  STATUS_LABELS,
  type ImportJob,
  type JobFilters,
  type JobSource,
  type JobStatus,
  type SortKey,
} from "./queries";
import "./jobs.css";

/** How often the page asks again while an import on it is still running. */
const POLL_MS = 3_000;

const keysOf = <T extends string>(record: Record<T, unknown>) => Object.keys(record) as T[];
const oneOf = <T extends string>(value: string | null, allowed: readonly T[]): T | undefined => allowed.find((candidate) => candidate === value);

/** The list's filters, kept in the address (?status=&source=&sort=&page=) so a reload or a shared link keeps them. */
function useFilters(): [JobFilters, (change: Partial<JobFilters>) => void] {
  const [search, setSearch] = useSearchParams();
  const page = Number(search.get("page"));
  const filters: JobFilters = {
    status: oneOf(search.get("status"), keysOf(STATUS_LABELS)),
    source: oneOf(search.get("source"), keysOf(SOURCE_LABELS)),
    sort: oneOf(search.get("sort"), keysOf(SORTS)) ?? "newest",
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
  const change = (next: Partial<JobFilters>) => {
    // A new filter or order starts again at the first page.
    const merged: JobFilters = { ...filters, page: 1, ...next };
    const params = new URLSearchParams();
    if (merged.status) params.set("status", merged.status);
    if (merged.source) params.set("source", merged.source);
    if (merged.sort !== "newest") params.set("sort", merged.sort);
    if (merged.page > 1) params.set("page", String(merged.page));
    setSearch(params);
  };
  return [filters, change];
}

/** The summary, asked again while an import is unfinished. */
function useStats() {
  return useQuery({
    queryKey: jobKeys.stats,
    queryFn: fetchJobStats,
    refetchInterval: (query) => {
      const counts = query.state.data?.byStatus;
      return counts && counts.pending + counts.inProgress > 0 ? POLL_MS : false;
    },
  });
}

/** When the counts move (an import started, finished or failed), the list is asked again: the import may enter or leave its filter. */
function useListFollowsStats(counts: object | undefined) {
  const queryClient = useQueryClient();
  const fingerprint = counts ? JSON.stringify(counts) : "";
  const previous = useRef(fingerprint);
  useEffect(() => {
    if (previous.current && fingerprint && previous.current !== fingerprint) {
      void queryClient.invalidateQueries({ queryKey: jobKeys.all, predicate: (query) => query.queryKey[1] !== "stats" });
    }
    previous.current = fingerprint;
  }, [fingerprint, queryClient]);
}

function Stats({ stats }: { stats: ReturnType<typeof useStats> }) {
  return (
    <section aria-labelledby="jobs-summary" className="card job-summary">
      <h2 id="jobs-summary">Summary</h2>
      <QueryState query={stats} label="Loading the summary…">
        {({ total, byStatus, successRate }) => (
          <dl className="job-stats">
            <div>
              <dt>All imports</dt>
              <dd>{total}</dd>
            </div>
            <div>
              <dt>Waiting</dt>
              <dd>{byStatus.pending}</dd>
            </div>
            <div>
              <dt>In progress</dt>
              <dd>{byStatus.inProgress}</dd>
            </div>
            <div>
              <dt>Completed</dt>
              <dd>{byStatus.completed}</dd>
            </div>
            <div>
              <dt>Failed</dt>
              <dd>{byStatus.failed}</dd>
            </div>
            <div>
              <dt>Cancelled</dt>
              <dd>{byStatus.cancelled}</dd>
            </div>
            <div>
              <dt>Success rate</dt>
              <dd>{byStatus.completed + byStatus.failed > 0 ? `${String(Math.round(successRate))} %` : "None finished yet"}</dd>
            </div>
          </dl>
        )}
      </QueryState>
    </section>
  );
}

/** One import: what, where from, how far, why it failed, and what can be done with it. */
function JobItem({ job, onDone }: { job: ImportJob; onDone: (notice: string) => void }) {
  const queryClient = useQueryClient();
  const refresh = async () => {
    // A job's note changes with it (a cancelled import's note is no longer transcribed; a deleted job's note stays).
    await Promise.all([jobKeys.all, ["notes"], ["courses"]].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
  };
  const cancel = useMutation({
    mutationFn: () => cancelJob(job.id),
    onSuccess: async () => {
      onDone(`Cancelled the import “${job.title}”.`);
      await refresh();
    },
  });
  const retry = useMutation({
    mutationFn: () => retryJob(job.id),
    onSuccess: async () => {
      onDone(`The import “${job.title}” starts again.`);
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteJob(job.id),
    onSuccess: async () => {
      onDone(`Deleted the import “${job.title}”.`);
      document.querySelector<HTMLElement>("main h1")?.focus();
      await refresh();
    },
  });
  const error = cancel.error ?? retry.error ?? remove.error;
  const busy = cancel.isPending || retry.isPending || remove.isPending;
  const facts = [
    job.note?.course?.name,
    SOURCE_LABELS[job.source],
    `started ${formatDate(job.createdAt)}`,
    job.completedAt ? `finished ${formatDate(job.completedAt)}` : undefined,
  ].filter(Boolean);
  return (
    <li className="job">
      <div className="row spread job-head">
        <h3 className="job-title">{job.noteId ? <Link to={`/notes/${job.noteId}`}>{job.title}</Link> : job.title}</h3>
        <span className={`job-status status-${job.status.toLowerCase()}`}>{STATUS_LABELS[job.status]}</span>
      </div>
      <p className="muted job-facts">{facts.join(" · ")}</p>
      {!job.noteId && <p className="muted job-facts">Its note was deleted.</p>}
      {isActive(job.status) && (
        <ProgressBar className="progress" value={job.progress} aria-label={`Progress of “${job.title}”`}>
          {({ percentage, valueText }) => (
            <>
              <div className="bar">
                <div className="fill" style={{ width: `${String(percentage ?? 0)}%` }} />
              </div>
              <span className="muted">{valueText}</span>
            </>
          )}
        </ProgressBar>
      )}
      {job.status === "FAILED" && (
        <p className="job-error">
          <strong>Why it failed:</strong> {job.errorMessage ?? "the import stopped without saying why."}
        </p>
      )}
      <div className="row job-actions">
        {isActive(job.status) ? (
          <Button variant="secondary" aria-label={`Cancel import “${job.title}”`} onPress={() => cancel.mutate()} isDisabled={busy}>
            {cancel.isPending ? "Cancelling…" : "Cancel import"}
          </Button>
        ) : (
          <>
            {(job.status === "FAILED" || job.status === "CANCELLED") && job.noteId && (
              <Button variant="secondary" aria-label={`Retry import “${job.title}”`} onPress={() => retry.mutate()} isDisabled={busy}>
                Retry import
              </Button>
            )}
            <Confirm
              trigger="Delete"
              triggerLabel={`Delete import “${job.title}”`}
              title={`Delete the import “${job.title}”?`}
              confirm="Delete"
              onConfirm={() => remove.mutate()}
              isDisabled={busy}
            >
              <p>The import leaves the list{job.noteId ? "; its note stays in its course" : ""}.</p>
            </Confirm>
          </>
        )}
      </div>
      {Boolean(error) && <ErrorMessage error={error} />}
    </li>
  );
}

const STATUS_OPTIONS: { key: JobStatus | "all"; label: string }[] = [
  { key: "all", label: "All statuses" },
  ...keysOf(STATUS_LABELS).map((key) => ({ key, label: STATUS_LABELS[key] })),
];
const SOURCE_OPTIONS: { key: JobSource | "all"; label: string }[] = [
  { key: "all", label: "All sources" },
  ...keysOf(SOURCE_LABELS).map((key) => ({ key, label: SOURCE_LABELS[key] })),
];
const SORT_OPTIONS = keysOf(SORTS).map((key) => ({ key, label: SORTS[key].label }));

/** /jobs — the user's imports: a summary, then a page of them by status and source, in an order. */
export function JobsPage() {
  const [filters, setFilters] = useFilters();
  const [notice, setNotice] = useState("");
  const stats = useStats();
  useListFollowsStats(stats.data?.byStatus);
  const jobs = useQuery({
    queryKey: jobKeys.list(filters),
    queryFn: () => fetchJobs(filters),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.jobs.some((job) => isActive(job.status)) ? POLL_MS : false),
  });
  const filtered = Boolean(filters.status ?? filters.source);
  return (
    <>
      <h1>Imports</h1>
      <p className="muted">Recordings and links being made into notes, and how each went.</p>
      <Stats stats={stats} />
      <section aria-labelledby="jobs-list">
        <h2 id="jobs-list">Your imports</h2>
        <div className="job-filters">
          <SelectField
            label="Status"
            value={filters.status ?? "all"}
            options={STATUS_OPTIONS}
            onChange={(key) => setFilters({ status: key === "all" ? undefined : key })}
          />
          <SelectField
            label="Source"
            value={filters.source ?? "all"}
            options={SOURCE_OPTIONS}
            onChange={(key) => setFilters({ source: key === "all" ? undefined : key })}
          />
          <SelectField<SortKey> label="Order" value={filters.sort} options={SORT_OPTIONS} onChange={(sort) => setFilters({ sort })} />
        </div>
        <p role="status" className="job-notice">
          {notice}
        </p>
        <QueryState query={jobs} label="Loading your imports…">
          {({ jobs: list, pagination }) => {
            if (list.length === 0) {
              return (
                <Empty>
                  {filters.page > 1 ? (
                    <>
                      <p>Nothing on this page any more.</p>
                      <Button variant="secondary" onPress={() => setFilters({})}>
                        Go to the first page
                      </Button>
                    </>
                  ) : filtered ? (
                    <>
                      <p>No imports match these filters.</p>
                      <Button variant="secondary" onPress={() => setFilters({ status: undefined, source: undefined })}>
                        Show all imports
                      </Button>
                    </>
                  ) : (
                    <>
                      <p>No imports yet. Add a note to a course from a recording, an audio link or a video link, and its import shows here.</p>
                      <Link to="/courses">Go to your courses</Link>
                    </>
                  )}
                </Empty>
              );
            }
            const pages = Math.max(1, Math.ceil(pagination.total / JOBS_PAGE));
            return (
              <>
                <ul className="list job-list" aria-busy={jobs.isPlaceholderData}>
                  {list.map((job) => (
                    <JobItem key={job.id} job={job} onDone={setNotice} />
                  ))}
                </ul>
                {pages > 1 && (
                  <nav aria-label="Pages of imports" className="row spread job-pages">
                    <Button variant="secondary" isDisabled={filters.page <= 1} onPress={() => setFilters({ ...filters, page: filters.page - 1 })}>
                      Previous page
                    </Button>
                    <span>
                      Page {filters.page} of {pages}
                    </span>
                    <Button variant="secondary" isDisabled={!pagination.hasMore} onPress={() => setFilters({ ...filters, page: filters.page + 1 })}>
                      Next page
                    </Button>
                  </nav>
                )}
              </>
            );
          }}
        </QueryState>
      </section>
    </>
  );
}
