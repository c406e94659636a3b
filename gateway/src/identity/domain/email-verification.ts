import { AppError } from "@study/platform/errors";

/** Why a verification link does not work. */
export type VerificationRefusal = "INVALID_TOKEN" | "TOKEN_EXPIRED";

export const emailAlreadyVerified = () => new AppError("conflict", "EMAIL_ALREADY_VERIFIED", "This e-mail address is already confirmed");
