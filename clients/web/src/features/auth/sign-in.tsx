import { useMutation } from "@tanstack/react-query";
import { Form } from "react-aria-components";
import { Link, Navigate, useNavigate, useSearchParams } from "react-router";
import { Button, TextField } from "../../components/fields";
import { ErrorMessage } from "../../components/page-state";
import { textOf } from "../../lib/form";
import { api, data, StudyApiError } from "../../lib/api";
import { useRetryAfter } from "../../lib/retry-after";
import { useSession, useSessionChanged } from "../../lib/session";
import { GoogleSignIn } from "./google-sign-in";

/** Where to go after signing in: the page that sent the user here, if it is one of the app's own. */
export function nextPath(search: URLSearchParams): string {
  const next = search.get("next");
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/courses";
}

const problemOf = (error: unknown, field: string) => (error instanceof StudyApiError ? error.fieldProblem(field) : undefined);

export function SignInPage() {
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const session = useSession();
  const sessionChanged = useSessionChanged();
  const signIn = useMutation({
    mutationFn: (body: { email: string; password: string }) => data(api.POST("/api/auth/signin", { body })),
    onSuccess: async (answer) => {
      await sessionChanged(answer.user);
      await navigate(nextPath(search), { replace: true });
    },
  });
  const wait = useRetryAfter(signIn.error);
  if (session.data && !signIn.isPending) return <Navigate to={nextPath(search)} replace />;
  return (
    <>
      <h1>Sign in</h1>
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          signIn.mutate({ email: textOf(form, "email"), password: textOf(form, "password") });
        }}
      >
        <TextField label="E-mail" name="email" type="email" autoComplete="email" isRequired problem={problemOf(signIn.error, "email")} />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          isRequired
          problem={problemOf(signIn.error, "password")}
        />
        {signIn.error && <ErrorMessage error={signIn.error} />}
        <Button type="submit" isDisabled={signIn.isPending || wait > 0}>
          {signIn.isPending ? "Signing in…" : "Sign in"}
        </Button>
        {wait > 0 && (
          <p className="muted" aria-live="polite">
            You can try again in {wait} s.
          </p>
        )}
      </Form>
      <GoogleSignIn next={nextPath(search)} />
      <p>
        New here? <Link to={`/sign-up${search.size ? `?${search.toString()}` : ""}`}>Create an account</Link>
      </p>
      <p>
        <Link to="/reset-password">Forgot your password?</Link>
      </p>
    </>
  );
}
