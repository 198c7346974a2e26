/**
 * `deno task admin`: local operator commands against the running local stack (or the database in
 * SUPABASE_DB_URL). Each prints one JSON line.
 *
 *   deno task admin create-account --email <e> --plan <free|pro|business|enterprise>
 *   deno task admin session-token --email <e>
 */
import postgres from "postgres";
import { parseArgs } from "node:util";
import { createAccount, findUserByEmail, type PlanId, planIds } from "./local/accounts.ts";
import { stackStateFile } from "./local/paths.ts";
import { localJwtSecret, sessionToken } from "./local/secrets.ts";

interface StackState {
  supabaseUrl: string;
  databaseUrl: string;
  jwtSecret: string;
}

async function stackState(): Promise<StackState> {
  let saved: Partial<StackState> = {};
  try {
    saved = JSON.parse(await Deno.readTextFile(stackStateFile));
  } catch {
    // No local stack has been started here; the environment must say where things are.
  }
  const databaseUrl = Deno.env.get("SUPABASE_DB_URL") || saved.databaseUrl ||
    "postgresql://postgres:postgres@127.0.0.1:54322/postgres";
  return {
    databaseUrl,
    supabaseUrl: Deno.env.get("SUPABASE_URL") || saved.supabaseUrl || "http://127.0.0.1:54321",
    jwtSecret: Deno.env.get("AUTH_JWT_SECRET") || saved.jwtSecret || localJwtSecret,
  };
}

function fail(message: string): never {
  console.error(JSON.stringify({ error: "invalid_request", message }));
  Deno.exit(2);
}

async function main(): Promise<void> {
  const [command, ...rest] = Deno.args;
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: "string" }, plan: { type: "string" } },
    strict: true,
  });
  const email = values.email?.trim();
  if (!email || !/^[^@\s]+@[^@\s]+$/.test(email)) fail("--email <address> is required");

  const state = await stackState();
  const sql = postgres(state.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    if (command === "create-account") {
      const plan = values.plan as PlanId;
      if (!planIds.includes(plan)) fail(`--plan must be one of ${planIds.join(", ")}`);
      const account = await createAccount(sql, email, plan).catch((error) => {
        if (String(error?.code) === "23505") fail(`an account with email ${email} already exists`);
        throw error;
      });
      console.log(JSON.stringify(account));
    } else if (command === "session-token") {
      const user = await findUserByEmail(sql, email).catch(() => fail(`no account with email ${email}`));
      const token = await sessionToken(user, { secret: state.jwtSecret, supabaseUrl: state.supabaseUrl });
      console.log(JSON.stringify({ access_token: token }));
    } else {
      fail("usage: deno task admin create-account --email <e> --plan <plan> | session-token --email <e>");
    }
  } finally {
    await sql.end({ timeout: 2 });
  }
}

await main();
