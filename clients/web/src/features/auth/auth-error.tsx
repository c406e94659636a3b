import { Link, useSearchParams } from "react-router";

const REASONS: Record<string, string> = {
  access_denied: "You did not allow Study Service to use your Google account.",
  state_mismatch: "The sign-in took too long or was started in another window.",
  please_restart_the_process: "The sign-in took too long or was started in another window.",
  unable_to_link_account: "This Google account could not be linked to your account.",
  account_not_linked: "An account with this e-mail exists already: sign in with your password, then link Google from your account page.",
};

/** Where a failed sign-in with a provider lands (`CLIENT_URL/auth/error?code=OAUTH_ERROR&reason=…`). */
export function AuthErrorPage() {
  const [search] = useSearchParams();
  const reason = search.get("reason") ?? "";
  return (
    <>
      <h1>Sign-in did not work</h1>
      <div role="alert" className="error-message">
        <p>{REASONS[reason] ?? "Signing in with the provider failed."}</p>
        {reason && <p className="muted">Reason given: {reason}</p>}
      </div>
      <p>
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </>
  );
}
