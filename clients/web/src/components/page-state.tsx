import type { ReactNode } from "react";
import { Link } from "react-router";
import { nextStepOf, sentenceOf } from "../lib/errors";

/** A refusal as a sentence, with the step its `action` names as a link (role=alert: read out when it appears). */
export function ErrorMessage({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const step = nextStepOf(error);
  return (
    <div role="alert" className="error-message">
      <p>{sentenceOf(error)}</p>
      {step && <Link to={step.to}>{step.label}</Link>}
      {onRetry && (
        <button type="button" className="button secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** While something loads: announced politely, shown after a moment so fast answers do not flash. */
export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p role="status" className="loading">
      {label}
    </p>
  );
}

/** A list with nothing in it yet: what it will hold, and the way to add the first one. */
export function Empty({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}

interface QueryLike<T> {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
  refetch: () => unknown;
}

/** A query's loading and error states, then its data. */
export function QueryState<T>({ query, label, children }: { query: QueryLike<T>; label?: string; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loading label={label} />;
  if (query.error || query.data === undefined) return <ErrorMessage error={query.error} onRetry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}
