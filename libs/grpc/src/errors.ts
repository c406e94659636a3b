import { Metadata, status, type ServiceError } from "@grpc/grpc-js";
import { common } from "@study/contracts";
import { AppError, databaseUnavailable, isDatabaseUnavailable, type ErrorKind } from "@study/platform";

/** Trailing-metadata key carrying a protobuf `study.common.v1.ErrorDetail`. */
export const ERROR_DETAIL_KEY = "study-error-bin";

const STATUS_BY_KIND: Record<ErrorKind, status> = {
  validation: status.INVALID_ARGUMENT,
  unauthenticated: status.UNAUTHENTICATED,
  forbidden: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  conflict: status.ALREADY_EXISTS,
  precondition: status.FAILED_PRECONDITION,
  too_large: status.OUT_OF_RANGE,
  rate_limited: status.RESOURCE_EXHAUSTED,
  unavailable: status.UNAVAILABLE,
  // Not UNAVAILABLE: clients retry that (the service is down), while a failed upstream answer is the callee's to retry.
  upstream: status.UNKNOWN,
  timeout: status.DEADLINE_EXCEEDED,
  internal: status.INTERNAL,
};

const KIND_BY_STATUS = new Map<number, ErrorKind>(Object.entries(STATUS_BY_KIND).map(([kind, code]) => [code, kind as ErrorKind]));

/**
 * What a gRPC handler sends for an error: AppErrors keep their code; a database that is not there is UNAVAILABLE
 * (nothing was written: the caller's retry is safe); anything else is a generic INTERNAL.
 */
export function toServiceError(error: unknown): Partial<ServiceError> {
  const appError = error instanceof AppError ? error : isDatabaseUnavailable(error) ? databaseUnavailable(error) : AppError.internal();
  const metadata = new Metadata();
  const detail = common.ErrorDetail.encode({
    code: appError.code,
    message: appError.message,
    violations: appError.details,
    action: appError.action ?? "",
  }).finish();
  metadata.set(ERROR_DETAIL_KEY, Buffer.from(detail));
  return { code: STATUS_BY_KIND[appError.kind], details: appError.message, metadata };
}

/** Turns a failed call back into the AppError the callee raised (or a transport-level one). */
export function fromServiceError(error: ServiceError, callee: string): AppError {
  const raw = error.metadata?.get(ERROR_DETAIL_KEY)?.[0];
  if (raw instanceof Buffer) {
    const detail = common.ErrorDetail.decode(raw);
    const kind = KIND_BY_STATUS.get(error.code) ?? "internal";
    return new AppError(kind, detail.code, detail.message, {
      details: detail.violations,
      action: detail.action || undefined,
    });
  }
  switch (error.code) {
    case status.UNAVAILABLE:
      return new AppError("unavailable", "SERVICE_UNAVAILABLE", `The ${callee} service is unavailable`, { cause: error });
    case status.DEADLINE_EXCEEDED:
      return new AppError("timeout", "UPSTREAM_TIMEOUT", `The ${callee} service did not answer in time`, { cause: error });
    default:
      return new AppError("internal", "INTERNAL_ERROR", "An unexpected error occurred", { cause: error });
  }
}
