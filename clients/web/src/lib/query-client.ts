import { QueryClient, type QueryExecuteOptions, type QueryKey } from "@tanstack/react-query";
import { StudyApiError } from "@study/sdk";

/**
 * The app's one cache of server state. Module-level so that route loaders can start a page's requests while its
 * code loads (a prefetch in `loader`), instead of after it renders.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) will not change by asking again; a dropped connection or a 5xx may.
      retry: (failures, error) => failures < 2 && !(error instanceof StudyApiError && error.status >= 400 && error.status < 500),
      refetchOnWindowFocus: false,
    },
  },
});

/**
 * Starts a query a page will read, without waiting for it. A failure is not reported here: it stays in the cache,
 * where the page's own query shows it (and may ask again).
 */
export function prefetch<T, K extends QueryKey>(options: QueryExecuteOptions<T, Error, T, T, K>): void {
  // eslint-disable-next-line no-restricted-syntax -- the page that reads the query shows its error; nothing to add here
  queryClient.query(options).catch(() => undefined);
}
