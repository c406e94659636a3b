import type { FailureState } from "../../domain/lockout";

/** Failed sign-in bookkeeping per e-mail address. */
export interface SignInFailureRepository {
  find(email: string): Promise<FailureState | null>;
  save(email: string, state: FailureState, at: Date): Promise<void>;
  remove(email: string): Promise<void>;
}
