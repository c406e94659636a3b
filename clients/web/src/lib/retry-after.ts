import { useEffect, useState } from "react";
import { StudyApiError } from "@study/sdk";

/** The seconds a refusal asked to wait (its `retryAfterSeconds` detail), or 0. */
export function retryAfterOf(error: unknown): number {
  if (!(error instanceof StudyApiError)) return 0;
  const seconds = Number(error.fieldProblem("retryAfterSeconds"));
  return Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : 0;
}

/** Counts down the wait a refusal asked for: the seconds left, 0 once the user may try again. */
export function useRetryAfter(error: unknown): number {
  const [left, setLeft] = useState(0);
  useEffect(() => {
    const seconds = retryAfterOf(error);
    setLeft(seconds);
    if (seconds === 0) return;
    const until = Date.now() + seconds * 1000;
    const timer = setInterval(() => {
      const remaining = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      setLeft(remaining);
      if (remaining === 0) clearInterval(timer);
    }, 250);
    return () => clearInterval(timer);
  }, [error]);
  return left;
}
