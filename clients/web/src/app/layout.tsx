import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate, useRouteError } from "react-router";
import { ErrorMessage, Loading } from "../components/page-state";
import { api, data } from "../lib/api";
import { useSession, useSessionChanged } from "../lib/session";

const NAVIGATION = [
  { to: "/courses", label: "Courses" },
  { to: "/study", label: "Study" },
  { to: "/review", label: "Review" },
  { to: "/jobs", label: "Imports" },
  { to: "/account", label: "Account" },
];

/** Moves focus to the page's heading after each navigation, so screen readers and keyboards start at the new page. */
function useFocusOnNavigation() {
  const location = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const heading = document.querySelector<HTMLElement>("main h1");
    if (heading) {
      heading.tabIndex = -1;
      heading.focus({ preventScroll: false });
    }
  }, [location.pathname]);
}

function SignOut() {
  const sessionChanged = useSessionChanged();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: () => data(api.POST("/api/auth/signout")),
    onSettled: async () => {
      await sessionChanged(null);
      await navigate("/sign-in");
    },
  });
  return (
    <button type="button" className="button secondary" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
      Sign out
    </button>
  );
}

export function Layout() {
  const session = useSession();
  useFocusOnNavigation();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="top-bar">
        <Link to="/" className="brand">
          Study Service
        </Link>
        {session.data && (
          <nav aria-label="Main">
            <ul>
              {NAVIGATION.map((item) => (
                <li key={item.to}>
                  <NavLink to={item.to}>{item.label}</NavLink>
                </li>
              ))}
            </ul>
          </nav>
        )}
        {session.data && <SignOut />}
      </header>
      <main id="main">
        <Outlet />
      </main>
    </>
  );
}

/** Pages for a signed-in user: anyone else goes to sign-in, and comes back here after it. */
export function RequireSession() {
  const session = useSession();
  const location = useLocation();
  if (session.isPending) return <Loading />;
  if (session.error) return <ErrorMessage error={session.error} onRetry={() => void session.refetch()} />;
  if (!session.data) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Outlet />;
}

export function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        There is nothing at this address. <Link to="/">Go to your courses</Link>.
      </p>
    </>
  );
}

/** A page that failed to render or to load its code: what happened, and a way on. */
export function RouteError() {
  const error = useRouteError();
  return (
    <main id="main">
      <h1>Something went wrong</h1>
      <ErrorMessage error={error} />
      <p>
        <a href={import.meta.env.BASE_URL}>Reload the app</a>
      </p>
    </main>
  );
}
