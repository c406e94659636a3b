import { AppError } from "@study/platform/errors";

function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  throw new Error(`expected an AppError, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
}

/** The AppError a call (sync or async) throws, as {kind, code, details}; fails the test when it does not throw one. */
export async function refusal(fn: () => unknown): Promise<Pick<AppError, "kind" | "code" | "details">> {
  let caught: unknown;
  try {
    await fn();
  } catch (error) {
    caught = error;
  }
  if (caught === undefined) throw new Error("expected an AppError, but the call succeeded");
  const { kind, code, details } = asAppError(caught);
  return { kind, code, details };
}

/** The AppError a promise rejects with, whole (message included); fails the test when it resolves. */
export async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (caught: unknown) => caught,
  );
  return asAppError(error);
}
