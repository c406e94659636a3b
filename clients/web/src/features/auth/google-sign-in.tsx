import { useMutation } from "@tanstack/react-query";
import { Button } from "../../components/fields";
import { ErrorMessage } from "../../components/page-state";
import { api, data } from "../../lib/api";

/**
 * "Sign in with Google": the API names the provider's consent page; the browser goes there and comes back to
 * `next` with the session cookie, or to /auth/error when the provider refused.
 */
export function GoogleSignIn({ next }: { next: string }) {
  const start = useMutation({
    mutationFn: () =>
      data(
        api.POST("/api/auth/sign-in/social", {
          body: { provider: "google", flow: "web", callbackURL: `${window.location.origin}${import.meta.env.BASE_URL.replace(/\/$/, "")}${next}` },
        }),
      ),
    onSuccess: ({ url }) => window.location.assign(url),
  });
  return (
    <div className="card">
      <Button variant="secondary" onPress={() => start.mutate()} isDisabled={start.isPending || start.isSuccess}>
        Sign in with Google
      </Button>
      {start.error && <ErrorMessage error={start.error} />}
    </div>
  );
}
