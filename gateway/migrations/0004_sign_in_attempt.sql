-- Failed sign-ins per account AND client address (#29). Counting per e-mail alone let anyone lock anyone out; now
-- an attacker's failures from one address delay, then lock, only that address's attempts at that account.
-- `signed_in_at`: the account signed in from this address before, so it may still try while the account as a
-- whole is throttled (sign_in_account_failure).
create table "sign_in_attempt" (
  "email" text not null,
  "client_address" text not null,
  "failures" integer not null default 0,
  "locked_until" timestamptz,
  "last_failure_at" timestamptz,
  "signed_in_at" timestamptz,
  primary key ("email", "client_address")
);

-- Failed sign-ins of one account from every address in the current window (LOCKOUT_MINUTES): the bound on many
-- addresses guessing one password.
create table "sign_in_account_failure" (
  "email" text not null primary key,
  "window_started_at" timestamptz not null,
  "failures" integer not null
);

-- sign_in_failure (per e-mail only) is no longer read or written; it stays until no replica of an older release
-- runs, so that a rolling update does not break their sign-ins.
