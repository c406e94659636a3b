import { useMutation } from "@tanstack/react-query";
import { Form } from "react-aria-components";
import { Link, useSearchParams } from "react-router";
import { Button, TextField } from "../../components/fields";
import { ErrorMessage } from "../../components/page-state";
import { textOf } from "../../lib/form";
import { api, data, StudyApiError } from "../../lib/api";

const problemOf = (error: unknown, field: string) => (error instanceof StudyApiError ? error.fieldProblem(field) : undefined);

function RequestReset() {
  const request = useMutation({ mutationFn: (email: string) => data(api.POST("/api/auth/password-reset/request", { body: { email } })) });
  if (request.isSuccess) {
    return (
      <p role="status" className="success-message">
        If an account uses this address, an e-mail with a link to set a new password is on its way.
      </p>
    );
  }
  return (
    <Form
      onSubmit={(event) => {
        event.preventDefault();
        request.mutate(textOf(new FormData(event.currentTarget), "email"));
      }}
    >
      <TextField label="E-mail" name="email" type="email" autoComplete="email" isRequired problem={problemOf(request.error, "email")} />
      {request.error && <ErrorMessage error={request.error} />}
      <Button type="submit" isDisabled={request.isPending}>
        Send reset link
      </Button>
    </Form>
  );
}

function SetPassword({ token }: { token: string }) {
  const confirm = useMutation({
    mutationFn: (newPassword: string) => data(api.POST("/api/auth/password-reset/confirm", { body: { token, newPassword } })),
  });
  if (confirm.isSuccess) {
    return (
      <>
        <p role="status" className="success-message">
          Your password is changed.
        </p>
        <p>
          <Link to="/sign-in">Sign in with your new password</Link>
        </p>
      </>
    );
  }
  const tokenProblem = problemOf(confirm.error, "token");
  return (
    <Form
      onSubmit={(event) => {
        event.preventDefault();
        confirm.mutate(textOf(new FormData(event.currentTarget), "newPassword"));
      }}
    >
      <TextField
        label="New password"
        name="newPassword"
        type="password"
        autoComplete="new-password"
        isRequired
        minLength={8}
        maxLength={128}
        description="At least 8 characters."
        problem={problemOf(confirm.error, "newPassword")}
      />
      {confirm.error && <ErrorMessage error={confirm.error} />}
      {tokenProblem && (
        <p>
          <Link to="/reset-password">Ask for a new link</Link>
        </p>
      )}
      <Button type="submit" isDisabled={confirm.isPending}>
        Set new password
      </Button>
    </Form>
  );
}

/** `/reset-password`: ask for a link; `/reset-password?token=…` (the e-mail's link): choose the new password. */
export function ResetPasswordPage() {
  const [search] = useSearchParams();
  const token = search.get("token");
  return (
    <>
      <h1>{token ? "Choose a new password" : "Reset your password"}</h1>
      {token ? <SetPassword token={token} /> : <RequestReset />}
      <p>
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </>
  );
}
