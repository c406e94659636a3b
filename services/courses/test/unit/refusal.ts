import { AppError } from "@study/platform/errors";

/** The AppError a call (sync or async) throws, as {kind, code, details}; fails the test when it does not throw. */
export async function refusal(fn: () => unknown): Promise<Pick<AppError, "kind" | "code" | "details">> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const { kind, code, details } = error as AppError;
    return { kind, code, details };
  }
  throw new Error("expected an AppError");
}
