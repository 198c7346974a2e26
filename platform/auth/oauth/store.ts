/**
 * The OAuth server's clients and the users' consents, in the database as GoTrue keeps them
 * (`auth.oauth_clients`, `auth.oauth_consents`; platform/postgres/bootstrap.sql). Pending authorizations (10
 * minutes) stay in memory (./state.ts); sessions are `auth.sessions` rows (../sessions.ts).
 */
import { authDatabase } from "../database.ts";
import type { AuthMethod, ClientType, Consent, OAuthClient } from "./state.ts";

interface ClientRow {
  id: string;
  client_secret_hash: string | null;
  registration_type: "dynamic" | "manual";
  redirect_uris: string;
  grant_types: string;
  client_name: string | null;
  client_uri: string | null;
  logo_uri: string | null;
  created_at: Date;
  updated_at: Date;
  client_type: ClientType;
  token_endpoint_auth_method: AuthMethod;
}

const clientColumns = `id, client_secret_hash, registration_type, redirect_uris, grant_types, client_name,
  client_uri, logo_uri, created_at, updated_at, client_type, token_endpoint_auth_method`;

function clientOf(row: ClientRow): OAuthClient {
  return {
    id: row.id,
    type: row.client_type,
    authMethod: row.token_endpoint_auth_method,
    secretHash: row.client_secret_hash ?? undefined,
    redirectUris: row.redirect_uris.split(",").filter(Boolean),
    grantTypes: row.grant_types.split(",").filter(Boolean),
    name: row.client_name ?? "",
    uri: row.client_uri ?? "",
    logoUri: row.logo_uri ?? "",
    registrationType: row.registration_type,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Inserts a new client or writes a changed one. */
export async function saveClient(client: OAuthClient): Promise<void> {
  await authDatabase()`
    insert into auth.oauth_clients (id, client_secret_hash, registration_type, redirect_uris, grant_types,
                                    client_name, client_uri, logo_uri, created_at, updated_at, client_type,
                                    token_endpoint_auth_method)
    values (${client.id}, ${client.secretHash ?? null}, ${client.registrationType},
            ${client.redirectUris.join(",")}, ${client.grantTypes.join(",")}, ${client.name || null},
            ${client.uri || null}, ${client.logoUri || null}, ${client.createdAt},
            ${client.updatedAt ?? client.createdAt}, ${client.type}, ${client.authMethod})
    on conflict (id) do update
      set client_secret_hash = excluded.client_secret_hash, redirect_uris = excluded.redirect_uris,
          grant_types = excluded.grant_types, client_name = excluded.client_name,
          client_uri = excluded.client_uri, logo_uri = excluded.logo_uri, updated_at = excluded.updated_at`;
}

/** A client that is not deleted (`id` a UUID, any case). */
export async function clientById(id: string): Promise<OAuthClient | undefined> {
  const [row] = await authDatabase().unsafe<ClientRow[]>(
    `select ${clientColumns} from auth.oauth_clients where id = $1 and deleted_at is null`,
    [id.toLowerCase()],
  );
  return row ? clientOf(row) : undefined;
}

/** Every client, newest first. */
export async function allClients(): Promise<OAuthClient[]> {
  const rows = await authDatabase().unsafe<ClientRow[]>(
    `select ${clientColumns} from auth.oauth_clients where deleted_at is null order by created_at desc`,
  );
  return rows.map(clientOf);
}

/** Deletes a client: its consents and its sessions go with it. */
export async function deleteClient(id: string): Promise<void> {
  await authDatabase().begin(async (tx) => {
    await tx`delete from auth.sessions where oauth_client_id = ${id}`;
    await tx`delete from auth.oauth_clients where id = ${id}`;
  });
}

interface ConsentRow {
  user_id: string;
  client_id: string;
  scopes: string;
  granted_at: Date;
}

function consentOf(row: ConsentRow): Consent {
  return {
    userId: row.user_id,
    clientId: row.client_id,
    scopes: row.scopes.split(/\s+/).filter(Boolean),
    grantedAt: row.granted_at.toISOString(),
  };
}

/** The user's active consent to the client, if any. */
export async function activeConsent(userId: string, clientId: string): Promise<Consent | undefined> {
  const [row] = await authDatabase()<ConsentRow[]>`
    select user_id, client_id, scopes, granted_at from auth.oauth_consents
     where user_id = ${userId} and client_id = ${clientId} and revoked_at is null`;
  return row ? consentOf(row) : undefined;
}

/** GoTrue's UpdateScopes: the scopes join those of an active consent, and granted_at becomes now. */
export async function grantScopes(userId: string, clientId: string, scopes: string[]): Promise<void> {
  await authDatabase().begin(async (tx) => {
    const [row] = await tx<{ scopes: string; revoked_at: Date | null }[]>`
      select scopes, revoked_at from auth.oauth_consents
       where user_id = ${userId} and client_id = ${clientId} for update`;
    const kept = row && !row.revoked_at ? row.scopes.split(/\s+/).filter(Boolean) : [];
    const merged = [...new Set([...kept, ...scopes])].join(" ");
    await tx`
      insert into auth.oauth_consents (user_id, client_id, scopes, granted_at)
      values (${userId}, ${clientId}, ${merged}, now())
      on conflict (user_id, client_id)
        do update set scopes = excluded.scopes, granted_at = now(), revoked_at = null`;
  });
}

/** The user's active consents with their clients, most recently granted first. */
export async function userConsents(userId: string): Promise<{ consent: Consent; client: OAuthClient }[]> {
  const rows = await authDatabase().unsafe<(ConsentRow & { client: ClientRow })[]>(
    `select c.user_id, c.client_id, c.scopes, c.granted_at, to_jsonb(k) as client
       from auth.oauth_consents c join auth.oauth_clients k on k.id = c.client_id and k.deleted_at is null
      where c.user_id = $1 and c.revoked_at is null
      order by c.granted_at desc`,
    [userId],
  );
  return rows.map((row) => ({
    consent: consentOf(row),
    client: clientOf({
      ...row.client,
      created_at: new Date(row.client.created_at),
      updated_at: new Date(row.client.updated_at),
    }),
  }));
}

/** Revokes the user's active consent (false: there was none) and ends the client's sessions for the user. */
export async function revokeConsent(userId: string, clientId: string): Promise<boolean> {
  return await authDatabase().begin(async (tx) => {
    const revoked = await tx`
      update auth.oauth_consents set revoked_at = now()
       where user_id = ${userId} and client_id = ${clientId} and revoked_at is null
      returning id`;
    if (revoked.length === 0) return false;
    await tx`delete from auth.sessions where user_id = ${userId} and oauth_client_id = ${clientId}`;
    return true;
  });
}
