import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Button } from "../../components/fields";
import { ErrorMessage, Loading, QueryState } from "../../components/page-state";
import { api, data, StudyApiError } from "../../lib/api";
import { sentenceOf } from "../../lib/errors";
import { useRetryAfter } from "../../lib/retry-after";
import { SESSION_KEY, useSession, type User } from "../../lib/session";
import { formatDate } from "../../lib/time";
import "./account.css";

/** Ends a message with a full stop, unless it has one. */
const asSentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

const PROVIDERS: Record<string, string> = { credential: "E-mail and password", google: "Google" };

/** The button that mails the confirmation link again, and what came of it. */
function VerifyEmail({ user }: { user: User }) {
  const queryClient = useQueryClient();
  const send = useMutation({
    mutationFn: () => data(api.POST("/api/auth/verify-email/request")),
    onError: async (error) => {
      // Confirmed meanwhile (another tab, another device): the page learns it from the session.
      if (error instanceof StudyApiError && error.status === 409) await queryClient.invalidateQueries({ queryKey: SESSION_KEY });
    },
  });
  const wait = useRetryAfter(send.error);
  const alreadyConfirmed = send.error instanceof StudyApiError && send.error.status === 409;
  return (
    <>
      {!user.emailVerified && (
        <div className="row">
          <Button onPress={() => send.mutate()} isDisabled={send.isPending || wait > 0}>
            {send.isPending ? "Sending the link…" : "Send confirmation link"}
          </Button>
          {wait > 0 && <span className="muted">You can ask again in {wait} s.</span>}
        </div>
      )}
      <div role="status">
        {send.isSuccess && (
          <p className="success-message">We sent a confirmation link to {user.email}. Open it on this device or any other to confirm your address.</p>
        )}
        {alreadyConfirmed && <p className="success-message">{asSentence(sentenceOf(send.error))}</p>}
      </div>
      {send.error && !alreadyConfirmed && <ErrorMessage error={send.error} />}
    </>
  );
}

function Details({ user }: { user: User }) {
  return (
    <section className="card account-card" aria-labelledby="account-details">
      <h2 id="account-details">Details</h2>
      <dl className="account-facts">
        <div>
          <dt>Name</dt>
          <dd>{user.name}</dd>
        </div>
        <div>
          <dt>E-mail</dt>
          <dd>{user.email}</dd>
        </div>
        <div>
          <dt>Confirmation</dt>
          <dd>{user.emailVerified ? "Confirmed" : "Not confirmed yet: some features wait until it is."}</dd>
        </div>
        <div>
          <dt>Member since</dt>
          <dd>{formatDate(user.createdAt)}</dd>
        </div>
      </dl>
      <VerifyEmail user={user} />
    </section>
  );
}

function SignInMethods() {
  const details = useQuery({ queryKey: ["account", "details"], queryFn: () => data(api.GET("/api/account/details")) });
  return (
    <QueryState query={details} label="Loading how you sign in…">
      {({ accounts, sessions }) => (
        <>
          <section className="card account-card" aria-labelledby="account-methods">
            <h2 id="account-methods">Ways to sign in</h2>
            <ul className="account-list">
              {accounts.map((account) => (
                <li key={account.id}>
                  {PROVIDERS[account.providerId] ?? account.providerId} <span className="muted">since {formatDate(account.createdAt)}</span>
                </li>
              ))}
            </ul>
          </section>
          <section className="card account-card" aria-labelledby="account-sessions">
            <h2 id="account-sessions">Where you are signed in</h2>
            <ul className="account-list">
              {sessions.map((session) => (
                <li key={session.id}>
                  {session.userAgent ?? "An unknown browser"}
                  <span className="muted">
                    {" "}
                    · last used {formatDate(session.updatedAt)}
                    {session.ipAddress ? ` from ${session.ipAddress}` : ""}
                  </span>
                </li>
              ))}
            </ul>
          </section>
        </>
      )}
    </QueryState>
  );
}

/** /account — who is signed in, the e-mail confirmation, and how and where the user signs in. */
export function AccountPage() {
  const session = useSession();
  return (
    <>
      <h1>Your account</h1>
      {session.isPending ? (
        <Loading label="Loading your account…" />
      ) : session.error || !session.data ? (
        <ErrorMessage error={session.error} onRetry={() => void session.refetch()} />
      ) : (
        <>
          <Details user={session.data} />
          <SignInMethods />
        </>
      )}
    </>
  );
}
