-- Tables of the auth library (better-auth 1.7 core schema + bearer plugin), generated with its
-- getMigrations() and committed so every database is built the same way.
create table "user" ("id" text not null primary key, "name" text not null, "email" text not null unique, "emailVerified" boolean not null, "image" text, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz default CURRENT_TIMESTAMP not null);

create table "session" ("id" text not null primary key, "expiresAt" timestamptz not null, "token" text not null unique, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz not null, "ipAddress" text, "userAgent" text, "userId" text not null references "user" ("id") on delete cascade);

create table "account" ("id" text not null primary key, "accountId" text not null, "providerId" text not null, "userId" text not null references "user" ("id") on delete cascade, "accessToken" text, "refreshToken" text, "idToken" text, "accessTokenExpiresAt" timestamptz, "refreshTokenExpiresAt" timestamptz, "scope" text, "password" text, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz not null);

create table "verification" ("id" text not null primary key, "identifier" text not null, "value" text not null, "expiresAt" timestamptz not null, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz default CURRENT_TIMESTAMP not null);

create index "session_userId_idx" on "session" ("userId");
create index "account_userId_idx" on "account" ("userId");
create index "verification_identifier_idx" on "verification" ("identifier");

-- The gateway's own tables.

-- Tombstones of sessions that were used after they expired (SESSION_EXPIRED rather than UNAUTHORIZED).
create table "expired_session" (
  "id" text not null primary key,
  "token_hash" text not null,
  "expired_at" timestamptz not null
);
create index "expired_session_token_hash_idx" on "expired_session" ("token_hash");

-- Consecutive failed sign-ins per e-mail address (ACCOUNT_LOCKED).
create table "sign_in_failure" (
  "email" text not null primary key,
  "failures" integer not null,
  "locked_until" timestamptz,
  "last_failure_at" timestamptz not null
);
