/**
 * What the local OAuth server keeps in this process's memory: clients, pending authorizations and consents
 * (a restart forgets them). Its sessions and refresh tokens are the database's, as GoTrue keeps them
 * (`auth.sessions` with `oauth_client_id`, ../sessions.ts).
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

export const clients = new Map<string, OAuthClient>();
export const authorizations = new Map<string, Authorization>();
/** Active consents by `consentKey(userId, clientId)`; a revoked consent is deleted. */
export const consents = new Map<string, Consent>();

/** GoTrue's default authorization lifetime (GOTRUE_OAUTH_SERVER_AUTHORIZATION_TTL). */
export const authorizationTtlMs = 10 * 60 * 1000;
/** The scopes Supabase Auth supports; a request without scope gets the default. */
export const supportedScopes = ["openid", "profile", "email", "phone", "offline_access"];
export const defaultScope = "email";

export function consentKey(userId: string, clientId: string): string {
  return `${userId} ${clientId}`;
}
