-- The bridge (000 §2.1, §3.1): presentation sessions, the replay index of accepted presentations, the shared
-- status-list cache and the request-signing certificate of development.

-- One presentation session per row (tenant-scoped). Secrets and personal data are sealed (AES-256-GCM under a
-- key derived from the master key) before they reach a column: the response-decryption private key, the presented
-- claims and the completion result. The nonce is kept as issued: it is no secret from the wallet, and it is spent
-- when the session leaves INTERACTION_STARTED (OID4VP §13.3).
CREATE TABLE bridge_sessions (
  tenant_id             text NOT NULL DEFAULT current_setting('app.tenant_id') REFERENCES tenants(id),
  id                    uuid NOT NULL,
  status                text NOT NULL CHECK (status IN ('CREATED', 'INTERACTION_STARTED', 'VERIFYING', 'VERIFIED',
                                                        'IDV_REQUIRED', 'COMPLETED', 'EXPIRED', 'ERROR')),
  query_id              text NOT NULL,
  oauth_session_id      text,
  -- The authorization request the session serves (flows.md step 2): redemption must present the same pair.
  bound_client_id       text,
  bound_code_challenge  text,
  force_reconciliation  boolean NOT NULL DEFAULT false,
  correlation_id        text NOT NULL,
  request_id            text NOT NULL,
  verifier_client_id    text NOT NULL,
  response_mode         text NOT NULL CHECK (response_mode IN ('direct_post', 'direct_post.jwt')),
  nonce                 text NOT NULL,
  state                 text NOT NULL,
  request_object        text NOT NULL,
  response_key_sealed   text,
  history               jsonb NOT NULL DEFAULT '[]',
  checks                jsonb NOT NULL DEFAULT '[]',
  failure               jsonb,
  holder_key            text,
  plan_type             text CHECK (plan_type IN ('USE_EXISTING_BINDING', 'AUTO_MATCH_BY_ATTRIBUTE', 'RECONCILE_VIA_IDV')),
  plan_identity_id      text,
  idv_required          boolean NOT NULL DEFAULT false,
  idv_reason            text,
  presented_sealed      text,
  result_sealed         text,
  created_at            timestamptz NOT NULL,
  expires_at            timestamptz NOT NULL,
  verified_at           timestamptz,
  completed_at          timestamptz,
  redeemed_at           timestamptz,
  PRIMARY KEY (tenant_id, id)
);
-- The wallet reaches a session only through its request id: unique across tenants.
CREATE UNIQUE INDEX bridge_sessions_request_id ON bridge_sessions (request_id);
-- The QR page reaches a session by its id without a tenant (session ids are random UUIDs).
CREATE UNIQUE INDEX bridge_sessions_id ON bridge_sessions (id);
CREATE INDEX bridge_sessions_expiry ON bridge_sessions (expires_at);
SELECT tessera_tenant_table('bridge_sessions');

-- Digests (SHA-256) of every accepted presentation, across tenants: a vp_token accepted once is refused in any
-- other session (security checklist: replay). No personal data: digests and times only.
CREATE TABLE bridge_used_presentations (
  digest      text PRIMARY KEY,
  used_at     timestamptz NOT NULL
);
CREATE INDEX bridge_used_presentations_time ON bridge_used_presentations (used_at);

-- Status lists are public documents: one shared cache for every tenant and replica (Token Status List §8.3).
CREATE TABLE bridge_status_list_cache (
  uri         text PRIMARY KEY,
  token       text NOT NULL,
  fetched_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL
);

-- The development request-signing certificate, generated once per key version and shared by every replica (the
-- x509_hash client id is the certificate's hash, so replicas must present the same one).
CREATE TABLE bridge_signing_certificates (
  key_kid          text PRIMARY KEY,
  certificate_pem  text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);
