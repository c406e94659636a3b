import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Schema } from "@study/sdk";
import { api, data, StudyApiError } from "./api";

export type User = Schema<"User">;

export const SESSION_KEY = ["session"] as const;

/** The signed-in user, or null when nobody is signed in (the session answer's 401). */
export const sessionQuery = queryOptions({
  queryKey: SESSION_KEY,
  queryFn: async (): Promise<User | null> => {
    try {
      return (await data(api.GET("/api/auth/session"))).user;
    } catch (error) {
      if (error instanceof StudyApiError && error.status === 401) return null;
      throw error;
    }
  },
  staleTime: 60_000,
});

export function useSession() {
  return useQuery(sessionQuery);
}

/** After sign-in, sign-up or sign-out: forget everything cached for the previous user. */
export function useSessionChanged() {
  const queryClient = useQueryClient();
  return async (user: User | null) => {
    queryClient.clear();
    queryClient.setQueryData(SESSION_KEY, user);
  };
}
