/**
 * GoTrue's admin users API (supabase/auth `internal/api/admin.go`), for admin credentials only
 * (requireAdminCredentials: a Bearer token whose role is `service_role` or `supabase_admin`, or a secret key):
 * - `GET /admin/users?page=&per_page=&filter=`: newest first, 50 a page, `{users, aud}` with `Link` and
 *   `X-Total-Count` headers; a page or per_page that is not an unsigned number is 400 "Bad Pagination
 *   Parameters";
 * - `POST /admin/users`: email (validated; taken → 422 `email_exists`), password (strength rules; none → a
 *   random one), `user_metadata`, `app_metadata` (merged over provider/providers), `email_confirm`, `role`,
 *   `ban_duration`, `id`; a phone is refused as the phone provider is off (`phone_provider_disabled`);
 * - `GET|PUT|DELETE /admin/users/{id}`: a non-UUID is 404 `validation_failed`, an unknown user 404
 *   `user_not_found`; PUT as adminUserUpdate, DELETE hard (or `should_soft_delete`) and answers `{}`.
 */
import { bearerToken } from "../../supabase/functions/_shared/http/bearer.ts";
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";
import { roleOfApiKey } from "../secrets.ts";
import { verified } from "./caller.ts";
import { authDatabase } from "./database.ts";
import {
  AuthError,
  badRequest,
  forbidden,
  jsonBody,
  jsonResponse,
  objectField,
  unprocessable,
} from "./errors.ts";
import { authSettings } from "./project_settings.ts";
import { checkPasswordStrength, validEmail } from "./rules.ts";
import { factorJson, type FactorRow, factorsOf, ownedFactor } from "./mfa.ts";
import { addEmailIdentity, retryOnDuplicate, setPassword, userByEmail, userById, userJson } from "./users.ts";

const adminRoles = ["service_role", "supabase_admin"];
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** GoTrue's requireAdminCredentials (the gateway turns a secret key into a service_role token). */
export async function requireAdmin(request: Request): Promise<void> {
  const token = bearerToken(request.headers.get("authorization"));
  if (roleOfApiKey(token) === "service_role") return;
  if (!token) {
    if (roleOfApiKey(request.headers.get("apikey")) === "service_role") return;
    throw new AuthError(401, "no_authorization", "This endpoint requires a valid Bearer token");
  }
  const claims = await verified(token);
  if (!adminRoles.includes(String(claims.role ?? ""))) throw forbidden("not_admin", "User not allowed");
}

/** GoTrue's time.ParseDuration for ban_duration ("none" lifts a ban). */
function banUntil(text: string): Date | null | undefined {
  if (text === "") return undefined;
  if (text === "none") return null;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join("") !== text) {
    throw badRequest(
      "validation_failed",
      `invalid format for ban duration: time: invalid duration "${text}"`,
    );
  }
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1e3, m: 6e4, h: 3.6e6 };
  return new Date(Date.now() + parts.reduce((sum, [, value, u]) => sum + Number(value) * unit[u], 0));
}

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    throw badRequest("bad_json", `Could not parse request body as JSON: ${name} must be a string`);
  }
  return value;
}

function strength(password: string): void {
  const settings = authSettings();
  checkPasswordStrength(password, {
    minLength: settings.passwordMinLength,
    requiredCharacters: settings.passwordRequiredCharacters,
  });
}

async function listUsers(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const pageText = url.searchParams.get("page") || "1";
  const perPageText = url.searchParams.get("per_page") || "50";
  if (!/^\d+$/.test(pageText) || !/^\d+$/.test(perPageText)) {
    const bad = /^\d+$/.test(pageText) ? perPageText : pageText;
    throw badRequest(
      "validation_failed",
      `Bad Pagination Parameters: strconv.ParseUint: parsing "${bad}": invalid syntax`,
    );
  }
  const page = Math.max(Number(pageText), 1);
  const perPage = Number(perPageText) || 50;
  const filter = url.searchParams.get("filter") ?? "";
  const like = `%${filter.replace(/[\\%_]/g, "\\$&")}%`;
  const sql = authDatabase();
  const rows = await sql<{ id: string }[]>`
    select id from auth.users
     where aud = 'authenticated' and deleted_at is null
       and (${filter} = '' or email ilike ${like} or raw_user_meta_data->>'full_name' ilike ${like})
     order by created_at desc, id desc limit ${perPage} offset ${(page - 1) * perPage}`;
  const [{ count }] = await sql<{ count: number }[]>`
    select count(*)::int as count from auth.users
     where aud = 'authenticated' and deleted_at is null
       and (${filter} = '' or email ilike ${like} or raw_user_meta_data->>'full_name' ilike ${like})`;
  const users = [];
  for (const row of rows) {
    const user = await userById(sql, row.id);
    if (user) users.push(await userJson(sql, user));
  }
  const totalPages = Math.ceil(count / perPage);
  const link = (target: number) => {
    const next = new URL(url.pathname + url.search, "http://x");
    next.searchParams.set("page", String(target));
    return `<${next.pathname}${next.search}>`;
  };
  const links = [
    ...(totalPages > page ? [`${link(page + 1)}; rel="next"`] : []),
    `${link(totalPages)}; rel="last"`,
  ];
  return jsonResponse(request, { users, aud: "authenticated" }, 200, {
    link: links.join(", "),
    "x-total-count": String(count),
  });
}

async function createUser(request: Request): Promise<Response> {
  const body = await jsonBody(request);
  const emailText = optionalString(body, "email") ?? "";
  const phone = optionalString(body, "phone") ?? "";
  if (emailText === "" && phone === "") {
    throw badRequest("validation_failed", "Cannot create a user without either an email or phone");
  }
  if (phone !== "") throw badRequest("phone_provider_disabled", "Phone signups are disabled");
  const email = validEmail(emailText);
  const password = optionalString(body, "password");
  const passwordHash = optionalString(body, "password_hash") ?? "";
  if (password !== undefined && passwordHash !== "") {
    throw badRequest("validation_failed", "Only a password or a password hash should be provided");
  }
  if (password && password.length > 72) {
    throw badRequest("validation_failed", "bcrypt: password length exceeds 72 bytes");
  }
  const id = optionalString(body, "id") ?? "";
  if (id !== "" && !uuidPattern.test(id)) {
    throw badRequest("validation_failed", "ID must conform to the uuid v4 format");
  }
  if (id === "00000000-0000-0000-0000-000000000000") {
    throw badRequest("validation_failed", "ID cannot be a nil uuid");
  }
  const userData = objectField(body, "user_metadata") ?? {};
  const appData = objectField(body, "app_metadata") ?? {};
  const ban = banUntil(optionalString(body, "ban_duration") ?? "");
  const role = optionalString(body, "role") || "authenticated";
  const confirm = body.email_confirm === true;
  const secret = password || crypto.randomUUID() + crypto.randomUUID();
  const created = await retryOnDuplicate(() =>
    authDatabase().begin(async (tx: postgres.TransactionSql) => {
      if (await userByEmail(tx, email)) return undefined;
      const [{ id: userId }] = await tx<{ id: string }[]>`
        insert into auth.users (id, aud, role, email, encrypted_password, email_confirmed_at, raw_app_meta_data,
                                raw_user_meta_data, banned_until)
        values (coalesce(${id || null}::uuid, gen_random_uuid()), 'authenticated', ${role}, ${email},
                case when ${passwordHash} <> '' then ${passwordHash}
                     else extensions.crypt(${secret}, extensions.gen_salt('bf', 10)) end,
                case when ${confirm} then now() end,
                ${tx.json({ provider: "email", providers: ["email"], ...appData })}, ${tx.json(userData)},
                ${ban ?? null})
        returning id`;
      await addEmailIdentity(tx, userId, email, {}, false);
      return (await userById(tx, userId))!;
    })
  );
  if (!created) {
    throw unprocessable("email_exists", "A user with this email address has already been registered");
  }
  return jsonResponse(request, await userJson(authDatabase(), created));
}

async function loadUser(sql: postgres.Queryable, id: string) {
  if (!uuidPattern.test(id)) throw new AuthError(404, "validation_failed", "user_id must be an UUID");
  const user = await userById(sql, id);
  if (!user) throw new AuthError(404, "user_not_found", "User not found");
  return user;
}

async function updateUser(request: Request, id: string): Promise<Response> {
  const sql = authDatabase();
  const user = await loadUser(sql, id);
  const body = await jsonBody(request);
  const emailText = optionalString(body, "email") ?? "";
  const email = emailText === "" ? undefined : validEmail(emailText);
  if ((optionalString(body, "phone") ?? "") !== "") {
    throw badRequest("phone_provider_disabled", "Phone signups are disabled");
  }
  const ban = banUntil(optionalString(body, "ban_duration") ?? "");
  const password = optionalString(body, "password");
  if (password !== undefined) strength(password);
  const role = optionalString(body, "role") ?? "";
  const userData = objectField(body, "user_metadata");
  const appData = objectField(body, "app_metadata");
  const confirm = body.email_confirm === true;
  if (email && email !== user.email) {
    const other = await userByEmail(sql, email);
    if (other && other.id !== user.id) {
      throw unprocessable("email_exists", "A user with this email address has already been registered");
    }
  }
  await sql.begin(async (tx) => {
    if (role) await tx`update auth.users set role = ${role}, updated_at = now() where id = ${id}`;
    if (confirm) {
      await tx`update auth.users set email_confirmed_at = coalesce(email_confirmed_at, now()),
                      confirmation_token = '', updated_at = now() where id = ${id}`;
    }
    if (password !== undefined) await setPassword(tx, id, password);
    if (email) {
      const [identity] = await tx`select 1 from auth.identities where user_id = ${id} and provider = 'email'`;
      if (identity) {
        await tx`update auth.identities
                    set identity_data = identity_data || ${tx.json({ email, email_verified: confirm })},
                        updated_at = now()
                  where user_id = ${id} and provider = 'email'`;
      } else await addEmailIdentity(tx, id, email, {}, confirm);
      await tx`update auth.users
                  set email = ${email}, email_change = '', email_change_token_new = '',
                      email_change_token_current = '', updated_at = now(),
                      is_anonymous = case when ${confirm} then false else is_anonymous end
                where id = ${id}`;
    }
    if (appData) {
      await tx`update auth.users
                  set raw_app_meta_data = jsonb_strip_nulls(coalesce(raw_app_meta_data, '{}') || ${
        tx.json(appData)
      }),
                      updated_at = now()
                where id = ${id}`;
    }
    if (userData) {
      await tx`update auth.users
                  set raw_user_meta_data = jsonb_strip_nulls(coalesce(raw_user_meta_data, '{}') || ${
        tx.json(userData)
      }),
                      updated_at = now()
                where id = ${id}`;
    }
    if (ban !== undefined) {
      await tx`update auth.users set banned_until = ${ban}, updated_at = now() where id = ${id}`;
      if (ban) await tx`delete from auth.sessions where user_id = ${id}`;
    }
  });
  return jsonResponse(request, await userJson(sql, (await userById(sql, id))!));
}

async function deleteUser(request: Request, id: string): Promise<Response> {
  const sql = authDatabase();
  await loadUser(sql, id);
  const text = await request.text();
  let soft = false;
  if (text.trim() !== "") {
    try {
      soft = JSON.parse(text)?.should_soft_delete === true;
    } catch (error) {
      throw badRequest("bad_json", `Could not parse request body as JSON: ${(error as Error).message}`);
    }
  }
  await sql.begin(async (tx) => {
    if (soft) {
      await tx`update auth.users
                  set deleted_at = now(), email = null, phone = null, encrypted_password = '',
                      raw_app_meta_data = '{}', raw_user_meta_data = '{}'
                where id = ${id}`;
      await tx`delete from auth.identities where user_id = ${id}`;
      await tx`delete from auth.mfa_factors where user_id = ${id}`;
      await tx`delete from auth.sessions where user_id = ${id}`;
    } else {
      await tx`delete from auth.users where id = ${id}`;
    }
  });
  return jsonResponse(request, {});
}

/** `GET|PUT|DELETE /admin/users/{id}/factors[/{factor_id}]` (GoTrue's adminUserGetFactors and neighbours). */
async function userFactors(request: Request, id: string, factorId: string): Promise<Response | undefined> {
  const sql = authDatabase();
  const user = await loadUser(sql, id);
  if (!factorId) {
    if (request.method !== "GET") return undefined;
    return jsonResponse(request, (await factorsOf(sql, user.id)).map(factorJson));
  }
  const factor = await ownedFactor(sql, user.id, factorId);
  if (request.method === "DELETE") {
    await sql`delete from auth.mfa_factors where id = ${factor.id}`;
    return jsonResponse(request, factorJson(factor));
  }
  if (request.method === "PUT") {
    const name = optionalString(await jsonBody(request), "friendly_name") ?? "";
    const [updated] = await sql<FactorRow[]>`
      update auth.mfa_factors set friendly_name = ${name || factor.friendly_name}, updated_at = now()
       where id = ${factor.id}
      returning id, user_id, friendly_name, factor_type, status, secret, created_at, updated_at, last_challenged_at`;
    return jsonResponse(request, factorJson(updated));
  }
  return undefined;
}

/** Routes `/admin/users[/{id}[/factors[/{factor_id}]]]`; undefined for any other path. */
export async function handleAdminUsers(request: Request, path: string): Promise<Response | undefined> {
  const factors = path.match(/^\/admin\/users\/([^/]+)\/factors\/?([^/]*)\/?$/);
  if (factors) {
    await requireAdmin(request);
    return await userFactors(request, decodeURIComponent(factors[1]), decodeURIComponent(factors[2]));
  }
  const match = path.match(/^\/admin\/users\/?([^/]*)\/?$/);
  if (!match) return undefined;
  await requireAdmin(request);
  const id = decodeURIComponent(match[1]);
  if (id === "") {
    if (request.method === "GET") return await listUsers(request);
    if (request.method === "POST") return await createUser(request);
  } else {
    if (request.method === "GET") {
      return jsonResponse(request, await userJson(authDatabase(), await loadUser(authDatabase(), id)));
    }
    if (request.method === "PUT") return await updateUser(request, id);
    if (request.method === "DELETE") return await deleteUser(request, id);
  }
  return new Response(null, { status: 405 });
}
