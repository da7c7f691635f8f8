-- Single sign-on (OpenID Connect): who each person is at the identity provider, so a later
-- sign-in finds them by the provider's `sub` whatever their email has become; the ID token of
-- each session the provider started (its hint for ending the provider's session at sign-out);
-- and the account's "sign in with the provider only" switch.
CREATE TABLE "oidc_identities" (
  "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
  "user_id" integer NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE,
  "issuer" varchar NOT NULL,
  "subject" varchar NOT NULL,
  "email_address" varchar,
  "created_at" datetime(6) NOT NULL,
  "updated_at" datetime(6) NOT NULL
);
CREATE UNIQUE INDEX "index_oidc_identities_on_issuer_and_subject" ON "oidc_identities" ("issuer", "subject");
CREATE UNIQUE INDEX "index_oidc_identities_on_user_id_and_issuer" ON "oidc_identities" ("user_id", "issuer");

CREATE TABLE "oidc_sessions" (
  "session_id" integer PRIMARY KEY NOT NULL REFERENCES "sessions" ("id") ON DELETE CASCADE,
  "id_token" text NOT NULL
);

CREATE TABLE "oidc_settings" (
  "id" integer PRIMARY KEY CHECK ("id" = 1),
  "provider_only" boolean DEFAULT 0 NOT NULL,
  "updated_at" datetime(6) NOT NULL
);
