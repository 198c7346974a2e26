/**
 * The local OAuth server's shapes, and what it keeps in this process's memory: the pending authorizations
 * (10 minutes; a restart forgets them). Clients and consents are in the database (./store.ts), sessions and
 * refresh tokens too (`auth.sessions` with `oauth_client_id`, ../sessions.ts), as GoTrue keeps them.
 */

export type ClientType = "public" | "confidential";
export type AuthMethod = "none" | "client_secret_basic" | "client_secret_post";

export interface OAuthClient {
  id: string;
  type: ClientType;
  authMethod: AuthMethod;
  secretHash?: string;
  redirectUris: string[];
  grantTypes: string[];
  name: string;
  uri: string;
  logoUri: string;
  registrationType: "dynamic" | "manual";
  createdAt: string;
  updatedAt?: string;
}

export interface Authorization {
  id: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string;
  resource: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  userId?: string;
  status: "pending" | "approved" | "denied" | "expired";
  code?: string;
  expiresAt: number;
}

/** A user's standing consent to a client (`oauth_consents`): the scopes granted, and when last granted. */
export interface Consent {
  userId: string;
  clientId: string;
  scopes: string[];
  grantedAt: string;
}

export const authorizations = new Map<string, Authorization>();

/** GoTrue's default authorization lifetime (GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL). */
export const authorizationTtlMs = 10 * 60 * 1000;
/** The scopes Supabase Auth supports; a request without scope gets the default. */
export const supportedScopes = ["openid", "profile", "email", "phone", "offline_access"];
export const defaultScope = "email";
