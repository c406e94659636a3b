import { useMutation } from "@tanstack/react-query";
import { Form } from "react-aria-components";
import { Link, useNavigate, useSearchParams } from "react-router";
import { Button, TextField } from "../../components/fields";
import { ErrorMessage } from "../../components/page-state";
import { textOf } from "../../lib/form";
import { api, data, StudyApiError } from "../../lib/api";
import { useSessionChanged } from "../../lib/session";
import { GoogleSignIn } from "./google-sign-in";
import { nextPath } from "./sign-in";

const problemOf = (error: unknown, field: string) => (error instanceof StudyApiError ? error.fieldProblem(field) : undefined);

export function SignUpPage() {
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const sessionChanged = useSessionChanged();
  const signUp = useMutation({
    mutationFn: (body: { name: string; email: string; password: string }) => data(api.POST("/api/auth/signup", { body })),
    onSuccess: async (answer) => {
      await sessionChanged(answer.user);
      await navigate(nextPath(search), { replace: true });
    },
  });
  return (
    <>
      <h1>Create your account</h1>
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          const form = new FormData(event.currentTarget);
          signUp.mutate({ name: textOf(form, "name"), email: textOf(form, "email"), password: textOf(form, "password") });
        }}
      >
        <TextField label="Name" name="name" autoComplete="name" isRequired maxLength={255} problem={problemOf(signUp.error, "name")} />
        <TextField label="E-mail" name="email" type="email" autoComplete="email" isRequired problem={problemOf(signUp.error, "email")} />
        <TextField
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          isRequired
          minLength={8}
          maxLength={128}
          description="At least 8 characters."
          problem={problemOf(signUp.error, "password")}
        />
        {signUp.error && <ErrorMessage error={signUp.error} />}
        <Button type="submit" isDisabled={signUp.isPending}>
          {signUp.isPending ? "Creating your account…" : "Create account"}
        </Button>
      </Form>
      <GoogleSignIn next={nextPath(search)} />
      <p>
        Already have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </>
  );
}
