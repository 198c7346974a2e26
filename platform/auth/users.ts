/**
 * Users as GoTrue keeps them in `auth.users` (and `auth.identities`): reading, creating (the profile follows
 * by the same trigger as on hosted), passwords as bcrypt hashes (`$2a$`, cost 10, GoTrue's default) made and
 * checked by pgcrypto's `crypt`, and the user object GoTrue answers.
 */
import type * as postgres from "../../supabase/functions/_shared/db/sql.ts";

export interface UserRow {
  id: string;
  aud: string | null;
  role: string | null;
  email: string | null;
  phone: string | null;
  has_password: boolean;
  email_confirmed_at: Date | null;
  phone_confirmed_at: Date | null;
  confirmed_at: Date | null;
  invited_at: Date | null;
  confirmation_token: string | null;
  confirmation_sent_at: Date | null;
  recovery_token: string | null;
  recovery_sent_at: Date | null;
  email_change: string | null;
  email_change_sent_at: Date | null;
  email_change_token_new: string | null;
  email_change_token_current: string | null;
  email_change_confirm_status: number | null;
  last_sign_in_at: Date | null;
  raw_app_meta_data: Record<string, unknown> | null;
  raw_user_meta_data: Record<string, unknown> | null;
  banned_until: Date | null;
  is_anonymous: boolean;
  created_at: Date;
  updated_at: Date;
}

interface IdentityRow {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: Record<string, unknown>;
  provider: string;
  last_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
  email: string | null;
}

/** The columns of a UserRow (never the password hash itself). */
const userColumns =
  `id, aud, role, email, phone, encrypted_password is not null and encrypted_password <> '' as has_password,
  email_confirmed_at, phone_confirmed_at, confirmed_at, invited_at, confirmation_token, confirmation_sent_at,
  recovery_token, recovery_sent_at, email_change, email_change_sent_at, email_change_token_new,
  email_change_token_current, email_change_confirm_status, last_sign_in_at, raw_app_meta_data,
  raw_user_meta_data, banned_until, is_anonymous, created_at, updated_at`;

export async function userById(
  sql: postgres.Queryable,
  id: string,
  forUpdate = false,
): Promise<UserRow | undefined> {
  const [user] = await sql.unsafe<UserRow[]>(
    `select ${userColumns} from auth.users where id = $1 and deleted_at is null${
      forUpdate ? " for update" : ""
    }`,
    [id],
  );
  return user;
}

export async function userByEmail(
  sql: postgres.Queryable,
  email: string,
  forUpdate = false,
): Promise<UserRow | undefined> {
  const [user] = await sql.unsafe<UserRow[]>(
    `select ${userColumns} from auth.users
      where lower(email) = lower($1) and deleted_at is null${forUpdate ? " for update" : ""}`,
    [email],
  );
  return user;
}

/** Whether `password` is the user's (bcrypt via pgcrypto). */
export async function passwordMatches(
  sql: postgres.Queryable,
  userId: string,
  password: string,
): Promise<boolean> {
  const [row] = await sql<{ ok: boolean }[]>`
    select coalesce(encrypted_password <> '' and encrypted_password = extensions.crypt(${password}, encrypted_password), false) as ok
      from auth.users where id = ${userId}`;
  return row?.ok ?? false;
}

export async function setPassword(sql: postgres.Queryable, userId: string, password: string): Promise<void> {
  await sql`
    update auth.users
       set encrypted_password = extensions.crypt(${password}, extensions.gen_salt('bf', 10)), updated_at = now()
     where id = ${userId}`;
}

/** A new email user (unconfirmed unless `confirmed`), with its email identity, as GoTrue's sign-up makes it. */
export async function createEmailUser(
  tx: postgres.TransactionSql,
  options: { email: string; password: string | null; data: Record<string, unknown>; confirmed: boolean },
): Promise<UserRow> {
  const [{ id }] = await tx<{ id: string }[]>`
    insert into auth.users (aud, role, email, encrypted_password, email_confirmed_at, raw_app_meta_data,
                            raw_user_meta_data)
    values ('authenticated', 'authenticated', ${options.email},
            case when ${options.password}::text is null then null
                 else extensions.crypt(${options.password}::text, extensions.gen_salt('bf', 10)) end,
            case when ${options.confirmed} then now() end,
            '{"provider":"email","providers":["email"]}', ${tx.json(options.data)})
    returning id`;
  await addEmailIdentity(tx, id, options.email, options.data, options.confirmed);
  return (await userById(tx, id))!;
}

export async function addEmailIdentity(
  tx: postgres.Queryable,
  userId: string,
  email: string,
  data: Record<string, unknown>,
  verified: boolean,
): Promise<void> {
  const identityData = {
    ...data,
    sub: userId,
    email,
    email_verified: verified,
    phone_verified: false,
  };
  await tx`
    insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at)
    values (${userId}, ${userId}, ${tx.json(identityData)}, 'email', now())
    on conflict (provider_id, provider) do nothing`;
}

/** GoTrue's user.Confirm: the address is confirmed and the confirmation token used up. */
export async function confirmUser(tx: postgres.Queryable, userId: string): Promise<void> {
  await tx`
    update auth.users
       set email_confirmed_at = coalesce(email_confirmed_at, now()), confirmation_token = '',
           updated_at = now()
     where id = ${userId}`;
  await tx`delete from auth.one_time_tokens where user_id = ${userId} and token_type = 'confirmation_token'`;
  await tx`
    update auth.identities
       set identity_data = identity_data || '{"email_verified": true}'::jsonb, updated_at = now()
     where user_id = ${userId} and provider = 'email'`;
}

/** The user object GoTrue answers (models.User as JSON: no password, no tokens). */
export async function userJson(sql: postgres.Queryable, user: UserRow): Promise<Record<string, unknown>> {
  const identities = await sql<IdentityRow[]>`
    select id, provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at, email
      from auth.identities where user_id = ${user.id} order by created_at`;
  const factors = await sql<
    {
      id: string;
      friendly_name: string | null;
      factor_type: string;
      status: string;
      created_at: Date;
      updated_at: Date;
    }[]
  >`select id, friendly_name, factor_type, status, created_at, updated_at
      from auth.mfa_factors where user_id = ${user.id} order by created_at`;
  const iso = (date: Date | null) => date?.toISOString();
  const json: Record<string, unknown> = {
    id: user.id,
    aud: user.aud ?? "authenticated",
    role: user.role ?? "authenticated",
    email: user.email ?? "",
    email_confirmed_at: iso(user.email_confirmed_at),
    invited_at: iso(user.invited_at),
    phone: user.phone ?? "",
    phone_confirmed_at: iso(user.phone_confirmed_at),
    confirmation_sent_at: iso(user.confirmation_sent_at),
    confirmed_at: iso(user.confirmed_at),
    recovery_sent_at: iso(user.recovery_sent_at),
    new_email: user.email_change || undefined,
    email_change_sent_at: iso(user.email_change_sent_at),
    last_sign_in_at: iso(user.last_sign_in_at),
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    factors: factors.length === 0 ? undefined : factors.map((factor) => ({
      id: factor.id,
      ...(factor.friendly_name ? { friendly_name: factor.friendly_name } : {}),
      factor_type: factor.factor_type,
      status: factor.status,
      created_at: factor.created_at.toISOString(),
      updated_at: factor.updated_at.toISOString(),
    })),
    identities: identities.map((identity) => ({
      identity_id: identity.id,
      id: identity.provider_id,
      user_id: identity.user_id,
      identity_data: identity.identity_data,
      provider: identity.provider,
      last_sign_in_at: iso(identity.last_sign_in_at),
      created_at: iso(identity.created_at),
      updated_at: iso(identity.updated_at),
      email: identity.email ?? undefined,
    })),
    created_at: user.created_at.toISOString(),
    updated_at: user.updated_at.toISOString(),
    banned_until: iso(user.banned_until),
    is_anonymous: user.is_anonymous,
  };
  // GoTrue's omitempty fields are left out when empty.
  for (const [key, value] of Object.entries(json)) if (value === undefined) delete json[key];
  return json;
}

export function isBanned(user: UserRow, now = Date.now()): boolean {
  return !!user.banned_until && user.banned_until.getTime() > now;
}

/**
 * Runs `work` again once when it lost a race to create the same address (a unique violation on
 * auth.users.email): the second run finds the user the first one made, and answers as for a registered one.
 */
export async function retryOnDuplicate<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if ((error as { code?: unknown })?.code !== "23505") throw error;
    return await work();
  }
}
