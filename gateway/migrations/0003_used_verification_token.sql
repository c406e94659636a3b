-- E-mail verification links carry a signed, expiring token; this table makes each one work only once.
create table "used_verification_token" (
  "token_hash" text not null primary key,
  "used_at" timestamptz not null default now()
);
