/**
 * The app's one data layer: every supabase-js call (Auth, the data API, the edge functions) is here, and
 * each returns plain data or throws an AppError (./errors.ts) that says what to do next. Screens never
 * touch supabase-js. The database decides every rule (quota, plan, roles, validation); this module only
 * carries requests and answers.
 */
import { createClient, type Session, type SupabaseClient } from "@supabase/supabase-js";
import type { AppConfig } from "../config.ts";
import { type AppError, describeFailure } from "./errors.ts";
import { domainInput } from "./domain_input.ts";
import type {
  AccountOverview,
  AddResult,
  ApiKey,
  DomainDetail,
  Invitation,
  Member,
  NotificationSettings,
  Organization,
  WatchlistPage,
  Webhook,
  WebhookDeliveryPage,
} from "./types.ts";

let client: SupabaseClient;
let config: AppConfig;

export function connect(appConfig: AppConfig): void {
  config = appConfig;
  client = createClient(appConfig.supabaseUrl, appConfig.publishableKey, {
    auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true, flowType: "implicit" },
  });
}

export function appConfig(): AppConfig {
  return config;
}

export class RequestFailed extends Error {
  constructor(readonly failure: AppError) {
    super(failure.message);
  }
}

function isNetworkError(error: unknown): boolean {
  const text = String((error as { message?: string })?.message ?? error);
  return /Failed to fetch|NetworkError|fetch failed|Load failed|AuthRetryableFetchError/i.test(text) ||
    (error as { name?: string })?.name === "AuthRetryableFetchError";
}

function fail(error: unknown, status?: number): never {
  if (error instanceof RequestFailed) throw error;
  const e = (error ?? {}) as Record<string, unknown>;
  if (isNetworkError(error) || (status === 0)) throw new RequestFailed(describeFailure({ network: true }));
  throw new RequestFailed(describeFailure({
    status: (e.status as number | undefined) ?? status,
    code: (e.code as string | undefined) ?? undefined,
    message: e.message as string | undefined,
    details: e.details as string | undefined,
    hint: e.hint as string | undefined,
  }));
}

/** Runs one supabase-js call and hands back its data, or throws its failure told. */
async function run<T>(call: PromiseLike<{ data?: unknown; error: unknown; status?: number }>): Promise<T> {
  let answer;
  try {
    answer = await call;
  } catch (error) {
    fail(error);
  }
  if (answer.error) fail(answer.error, answer.status);
  return answer.data as T;
}

// ---------------------------------------------------------------- Auth

export async function currentSession(): Promise<Session | null> {
  const { data } = await client.auth.getSession();
  return data.session;
}

export function onSessionChange(listener: (session: Session | null, event: string) => void): () => void {
  const { data } = client.auth.onAuthStateChange((event, session) => listener(session, event));
  return () => data.subscription.unsubscribe();
}

/** Signs up; `confirm` is true when Auth sent a confirmation mail instead of a session. */
export async function signUp(email: string, password: string, next = "/"): Promise<{ confirm: boolean }> {
  const data = await run<{ session: Session | null }>(
    client.auth.signUp({ email, password, options: { emailRedirectTo: `${location.origin}${next}` } }),
  );
  return { confirm: !data.session };
}

export async function signIn(email: string, password: string): Promise<void> {
  await run(client.auth.signInWithPassword({ email, password }));
}

export async function sendMagicLink(email: string, next = "/"): Promise<void> {
  await run(client.auth.signInWithOtp({ email, options: { emailRedirectTo: `${location.origin}${next}` } }));
}

export async function sendPasswordReset(email: string): Promise<void> {
  await run(client.auth.resetPasswordForEmail(email, { redirectTo: `${location.origin}/reset-password` }));
}

/**
 * Sets a new password. Supabase Auth asks for the current one (the project requires it, docs/deploy.md)
 * except in a session opened from a password mail's link or code.
 */
export async function setPassword(password: string, currentPassword?: string): Promise<void> {
  await run(
    client.auth.updateUser(currentPassword ? { password, current_password: currentPassword } : { password }),
  );
}

export async function signOut(): Promise<void> {
  await run(client.auth.signOut());
}

// ---------------------------------------------------------------- Account

export function accountOverview(): Promise<AccountOverview> {
  return run(client.rpc("account_overview"));
}

export async function profile(): Promise<
  { email: string | null; display_name: string | null; created_at: string }
> {
  return await run(client.from("profiles").select("email, display_name, created_at").maybeSingle());
}

export async function setDisplayName(userId: string, name: string): Promise<void> {
  await run(client.from("profiles").update({ display_name: name || null }).eq("id", userId));
}

/** export-account: the account as JSON, downloaded as the file the function names. */
export async function exportAccount(): Promise<{ blob: Blob; filename: string }> {
  const session = await currentSession();
  let response: Response;
  try {
    response = await fetch(`${config.functionsUrl}/export-account`, {
      method: "POST",
      headers: { authorization: `Bearer ${session?.access_token ?? ""}`, apikey: config.publishableKey },
    });
  } catch (error) {
    fail(error);
  }
  if (!response.ok) await functionFailure(response);
  const disposition = response.headers.get("content-disposition") ?? "";
  const filename = disposition.match(/filename="([^"]+)"/)?.[1] ?? "domain-watchlist-export.json";
  return { blob: await response.blob(), filename };
}

async function functionFailure(response: Response): Promise<never> {
  const body = await response.json().catch(() => ({})) as Record<string, unknown>;
  const error = body.error as Record<string, unknown> | string | undefined;
  throw new RequestFailed(describeFailure({
    status: response.status,
    code: typeof error === "object" ? String(error?.code ?? "") : undefined,
    message: typeof error === "object"
      ? String(error?.message ?? "")
      : String(error ?? body.message ?? body.msg ?? `HTTP ${response.status}`),
    resetAt: (body.reset_at as string | undefined) ?? undefined,
  }));
}

// ---------------------------------------------------------------- Watchlist

export function watchlistPage(
  query: { status?: string; search?: string; limit: number; offset: number },
): Promise<WatchlistPage> {
  return run(client.rpc("watchlist_page", {
    p_status: query.status || null,
    p_search: query.search || null,
    p_limit: query.limit,
    p_offset: query.offset,
  }));
}

/**
 * add_watchlist_domains, and which of the names the quota turned away (the names that are not on the
 * watchlist after the call), so the box can keep them.
 */
export async function addDomains(typed: string[]): Promise<AddResult> {
  // Sent in the stored form (lower case, A-labels); what the quota turns away goes back as it was typed.
  const names = typed.map(domainInput);
  const rows = await run<AddResult[]>(client.rpc("add_watchlist_domains", { p_domain_names: names }));
  const result = { ...rows[0], rejected_names: [] as string[] };
  if (result.rejected_over_limit > 0) {
    const watched = new Set<string>();
    for (let i = 0; i < names.length; i += 100) {
      const chunk = names.slice(i, i + 100);
      const found = await run<{ domain_name: string }[]>(
        client.from("watchlist_entries").select("domain_name").in("domain_name", chunk).is(
          "deleted_at",
          null,
        ),
      );
      for (const row of found) watched.add(row.domain_name);
    }
    result.rejected_names = [...new Set(typed.filter((_, i) => !watched.has(names[i])))];
  }
  return result;
}

export async function removeDomain(name: string): Promise<void> {
  await run(client.rpc("remove_watchlist_domain", { p_domain_name: name }));
}

/** Every watched name (pages of 200), for the CSV export. */
export async function wholeWatchlist(): Promise<WatchlistPage["domains"]> {
  const all: WatchlistPage["domains"] = [];
  for (let offset = 0;; offset += 200) {
    const page = await watchlistPage({ limit: 200, offset });
    all.push(...page.domains);
    if (page.domains.length < 200 || all.length >= page.total) return all;
  }
}

export function domainDetail(name: string): Promise<DomainDetail> {
  return run(client.rpc("domain_detail", { p_domain_name: name }));
}

// ---------------------------------------------------------------- Alerts

export function alertEventTypes(): Promise<string[]> {
  return run(client.rpc("alert_event_types"));
}

export async function notificationSettings(): Promise<NotificationSettings | null> {
  return await run(
    client.from("notification_settings").select(
      "telegram_configured, telegram_enabled, telegram_event_types, telegram_linked_at, telegram_expiring_days",
    ).maybeSingle(),
  );
}

export function createTelegramLink(): Promise<{ url: string; expires_at: string }> {
  return run(client.rpc("create_telegram_link"));
}

export async function unlinkTelegram(userId: string): Promise<void> {
  await run(client.from("notification_settings").delete().eq("user_id", userId));
}

export async function setTelegramEnabled(enabled: boolean): Promise<void> {
  await run(client.rpc("set_telegram_enabled", { p_enabled: enabled }));
}

export async function setTelegramEventTypes(types: string[]): Promise<void> {
  await run(client.rpc("set_telegram_event_types", { p_event_types: types }));
}

export async function setTelegramExpiringDays(days: number[]): Promise<void> {
  await run(client.rpc("set_telegram_expiring_days", { p_days: days }));
}

export async function sendTelegramTest(): Promise<void> {
  await run(client.rpc("send_telegram_test"));
}

export async function webhooks(): Promise<Webhook[]> {
  return await run(
    client.from("webhook_endpoints").select(
      "id, description, enabled, event_types, kind, secret_configured, url_masked, created_at, expiring_days",
    ).order("created_at"),
  );
}

/** Creates a webhook; a generic one gets a secret made by the server, returned here once. */
export async function createWebhook(
  input: { url: string; description: string; kind: string; eventTypes: string[] },
): Promise<{ id: string; secret: string | null }> {
  const id = await run<string>(client.rpc("create_webhook_endpoint", {
    p_url: input.url,
    p_description: input.description || null,
    p_kind: input.kind,
    p_event_types: input.eventTypes,
  }));
  const secret = input.kind === "generic" ? await rotateWebhookSecret(id) : null;
  return { id, secret };
}

export async function updateWebhook(
  id: string,
  change: { enabled?: boolean; eventTypes?: string[] },
): Promise<void> {
  await run(client.rpc("update_webhook_endpoint", {
    p_id: id,
    p_enabled: change.enabled ?? null,
    p_event_types: change.eventTypes ?? null,
  }));
}

export async function setWebhookExpiringDays(id: string, days: number[]): Promise<void> {
  await run(client.rpc("set_webhook_expiring_days", { p_id: id, p_days: days }));
}

export async function deleteWebhook(id: string): Promise<void> {
  await run(client.rpc("delete_webhook_endpoint", { p_id: id }));
}

export function rotateWebhookSecret(id: string): Promise<string> {
  return run(client.rpc("rotate_webhook_secret", { p_id: id }));
}

export async function sendWebhookTest(id: string): Promise<void> {
  await run(client.rpc("send_webhook_test", { p_id: id }));
}

export function webhookDeliveries(id: string, cursor?: string): Promise<WebhookDeliveryPage> {
  return run(
    client.rpc("list_webhook_deliveries", { p_endpoint_id: id, p_limit: 20, p_cursor: cursor ?? null }),
  );
}

export async function redeliver(deliveryId: string): Promise<void> {
  await run(client.rpc("redeliver_webhook_delivery", { p_delivery_id: deliveryId }));
}

// ---------------------------------------------------------------- Developer API

export async function apiKeys(): Promise<ApiKey[]> {
  return await run(
    client.from("api_keys").select("id, name, prefix, created_at, last_used_at, revoked_at")
      .is("revoked_at", null).order("created_at", { ascending: false }),
  );
}

export async function createApiKey(name: string): Promise<{ id: string; api_key: string; prefix: string }> {
  const rows = await run<{ id: string; api_key: string; prefix: string }[]>(
    client.rpc("create_api_key", { p_name: name }),
  );
  return rows[0];
}

export async function revokeApiKey(id: string): Promise<void> {
  await run(client.rpc("revoke_api_key", { p_key_id: id }));
}

// ---------------------------------------------------------------- Organizations

export async function organizations(userId: string): Promise<Organization[]> {
  const memberships = await run<{ organization_id: string; role: string }[]>(
    client.from("organization_members").select("organization_id, role").eq("user_id", userId),
  );
  if (memberships.length === 0) return [];
  const orgs = await run<{ id: string; name: string; created_at: string }[]>(
    client.from("organizations").select("id, name, created_at").in(
      "id",
      memberships.map((m) => m.organization_id),
    )
      .order("name"),
  );
  return orgs.map((org) => ({ ...org, role: memberships.find((m) => m.organization_id === org.id)!.role }));
}

export async function createOrganization(name: string): Promise<string> {
  return await run<string>(client.rpc("create_organization", { p_name: name }));
}

export async function members(organizationId: string): Promise<Member[]> {
  const rows = await run<{ user_id: string; role: string; created_at: string }[]>(
    client.from("organization_members").select("user_id, role, created_at").eq(
      "organization_id",
      organizationId,
    )
      .order("created_at"),
  );
  const people = rows.length === 0
    ? []
    : await run<{ id: string; email: string | null; display_name: string | null }[]>(
      client.from("profiles").select("id, email, display_name").in("id", rows.map((row) => row.user_id)),
    );
  return rows.map((row) => {
    const person = people.find((p) => p.id === row.user_id);
    return { ...row, email: person?.email ?? null, display_name: person?.display_name ?? null };
  });
}

export async function setMemberRole(organizationId: string, userId: string, role: string): Promise<void> {
  await run(
    client.from("organization_members").update({ role }).eq("organization_id", organizationId).eq(
      "user_id",
      userId,
    ),
  );
}

export async function removeMember(organizationId: string, userId: string): Promise<void> {
  await run(
    client.from("organization_members").delete().eq("organization_id", organizationId).eq("user_id", userId),
  );
}

export async function invitations(organizationId: string): Promise<Invitation[]> {
  return await run(
    client.from("invitations").select("id, email, role, status, created_at, expires_at, emailed_at")
      .eq("organization_id", organizationId).eq("status", "pending").order("created_at", {
        ascending: false,
      }),
  );
}

export async function createInvitation(organizationId: string, email: string, role: string): Promise<string> {
  const row = await run<{ id: string }>(
    client.from("invitations").insert({ organization_id: organizationId, email, role }).select("id").single(),
  );
  return row.id;
}

export async function revokeInvitation(id: string): Promise<void> {
  await run(client.from("invitations").update({ status: "revoked" }).eq("id", id));
}

/** The copy-link fallback: the invitation's accept link, read through invitation_for_sending. */
export async function invitationLink(id: string): Promise<string> {
  const rows = await run<{ token: string }[]>(client.rpc("invitation_for_sending", { p_invitation_id: id }));
  if (!rows[0]) throw new RequestFailed({ message: "This invitation can no longer be sent." });
  return `${location.origin}/accept-invite?token=${encodeURIComponent(rows[0].token)}`;
}

/** send-org-invite: `{sent: true}` or `{sent: false, reason}` (then the link is the way). */
export async function sendInvitation(id: string): Promise<{ sent: boolean; reason?: string }> {
  const session = await currentSession();
  let response: Response;
  try {
    response = await fetch(`${config.functionsUrl}/send-org-invite`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${session?.access_token ?? ""}`,
        apikey: config.publishableKey,
        "content-type": "application/json",
      },
      body: JSON.stringify({ invitationId: id }),
    });
  } catch (error) {
    fail(error);
  }
  if (!response.ok) await functionFailure(response);
  return await response.json();
}

export async function acceptInvitation(token: string): Promise<string> {
  return await run<string>(client.rpc("accept_invitation", { p_token: token }));
}

// ---------------------------------------------------------------- OAuth consent

export interface AuthorizationDetails {
  authorization_id: string;
  redirect_uri: string;
  scope: string;
  client: { id: string; name?: string; uri?: string; logo_uri?: string };
}

/** The request's details, or `{redirect_url}` when the user consented to these scopes before. */
export async function authorizationDetails(
  id: string,
): Promise<AuthorizationDetails | { redirect_url: string }> {
  return await run(client.auth.oauth.getAuthorizationDetails(id));
}

export async function decideAuthorization(id: string, approve: boolean): Promise<string> {
  const options = { skipBrowserRedirect: true };
  const data = await run<{ redirect_url: string }>(
    approve
      ? client.auth.oauth.approveAuthorization(id, options)
      : client.auth.oauth.denyAuthorization(id, options),
  );
  return data.redirect_url;
}

/** An assistant (OAuth client) the user approved: GoTrue's `GET /user/oauth/grants` item. */
export interface AssistantGrant {
  client: { id: string; name?: string; uri?: string; logo_uri?: string };
  scopes: string[];
  granted_at: string;
}

/** The assistants the signed-in user approved, most recently approved first. */
export async function connectedAssistants(): Promise<AssistantGrant[]> {
  return (await run<AssistantGrant[] | null>(client.auth.oauth.listGrants())) ?? [];
}

/** Revokes the user's approval of an assistant: it must ask again, and its refresh tokens stop working. */
export async function disconnectAssistant(clientId: string): Promise<void> {
  await run(client.auth.oauth.revokeGrant({ clientId }));
}
