import { Link, useSearchParams } from "react-router";

const PROBLEMS: Record<string, string> = {
  INVALID_TOKEN: "This link does not work: it was used already, or it is not the latest one we sent.",
  TOKEN_EXPIRED: "This link has expired.",
};

/** Where the e-mail's confirmation link lands (`CLIENT_URL/email-verified`, `?error=…` when it did not work). */
export function EmailVerifiedPage() {
  const [search] = useSearchParams();
  const error = search.get("error");
  if (!error) {
    return (
      <>
        <h1>E-mail address confirmed</h1>
        <p className="success-message">Thank you: your e-mail address is confirmed.</p>
        <p>
          <Link to="/courses">Go to your courses</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>E-mail address not confirmed</h1>
      <div role="alert" className="error-message">
        <p>{PROBLEMS[error] ?? "This confirmation link does not work."}</p>
      </div>
      <p>
        <Link to="/account">Send a new link from your account page</Link>
      </p>
    </>
  );
}
