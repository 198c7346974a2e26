/** The database layer's pure parts: tagged templates, fault classification, connection settings. */
import { Hono } from "hono";
import {
  errorHandler,
  requestId,
  type RequestIdEnv,
} from "../../supabase/functions/_shared/http/pipeline.ts";
import {
  classifyDatabaseError,
  DatabaseUnavailableError,
  isConnectionLost,
  isUnreachable,
  retryAfterSeconds,
} from "../../supabase/functions/_shared/db/failures.ts";
import { connectionTarget, databaseSettings } from "../../supabase/functions/_shared/db/settings.ts";
import { jsonParameter, statementFrom } from "../../supabase/functions/_shared/db/template.ts";
import { assert, assertEquals } from "../support/assert.ts";

function template(strings: TemplateStringsArray, ...values: unknown[]) {
  return statementFrom(strings, values);
}

Deno.test("a tagged template becomes one statement with $n parameters, values never in the text", () => {
  const name = "x'); drop table t; --";
  assertEquals(template`select * from f(${name}, ${3})`, {
    text: "select * from f($1, $2)",
    values: [name, 3],
  });
  assertEquals(template`select 1`, { text: "select 1", values: [] });
  assertEquals(jsonParameter({ a: [1, "b"] }).toPostgres(), '{"a":[1,"b"]}');
});

const pgError = (code: string, message = "x") => Object.assign(new Error(message), { code });

Deno.test("unreachable-database errors are told apart from statement errors", () => {
  const unreachable: unknown[] = [
    Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
    Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }),
    Object.assign(new Error("write UNKNOWN"), { code: "UNKNOWN", syscall: "write" }),
    pgError("57P01", "terminating connection due to administrator command"),
    pgError("57P03", "the database system is starting up"),
    pgError("08006"),
    pgError("53300", "too many connections"),
    pgError("57014", "canceling statement due to statement timeout"),
    new Error("Connection terminated unexpectedly"),
    new Error("Client has encountered a connection error and is not queryable"),
    new Error("timeout exceeded when trying to connect"),
    new Error("Query read timeout"),
    Object.assign(new Error("Connection refused"), { name: "ConnectionRefused" }),
    new Error("wrapped", { cause: pgError("57P01") }),
  ];
  for (const error of unreachable) {
    assert(isUnreachable(error), String(error));
    assert(classifyDatabaseError(error) instanceof DatabaseUnavailableError, String(error));
  }
  const statementErrors: unknown[] = [
    pgError("DW400", "invalid_request: bad"),
    pgError("23505", "duplicate key"),
    pgError("42501", "permission denied"),
    pgError("40001", "could not serialize access"),
    Object.assign(new Error("UNKNOWN"), { code: "UNKNOWN" }),
    new TypeError("x is undefined"),
    null,
    "text",
  ];
  for (const error of statementErrors) {
    assert(!isUnreachable(error), String(error));
    assertEquals(classifyDatabaseError(error), error);
  }
});

Deno.test("a lost connection may be retried; a timeout may not (it would only double the wait)", () => {
  assert(isConnectionLost(pgError("57P01")));
  assert(isConnectionLost(new DatabaseUnavailableError(new Error("Connection terminated unexpectedly"))));
  assert(!isConnectionLost(pgError("57014")));
  assert(!isConnectionLost(new Error("Query read timeout")));
  assert(!isConnectionLost(pgError("23505")));
});

Deno.test("sslmode is read as libpq reads it and removed from the URL node-postgres sees", () => {
  const base = "postgresql://postgres.ref:pw@aws-0-eu-west-1.pooler.supabase.com:6543/postgres";
  assertEquals(connectionTarget(base), { connectionString: base, ssl: false });
  assertEquals(connectionTarget(`${base}?sslmode=require`), {
    connectionString: base,
    ssl: { rejectUnauthorized: false },
  });
  assertEquals(connectionTarget(`${base}?sslmode=verify-full`).ssl, { rejectUnauthorized: true });
  assertEquals(connectionTarget(`${base}?sslmode=disable`).ssl, false);
  const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  assertEquals(connectionTarget(`${base}?sslmode=require`, pem).ssl, { rejectUnauthorized: false, ca: pem });
  assertEquals(connectionTarget(base, pem).ssl, false, "no TLS asked for: the certificate changes nothing");
  assertEquals(
    connectionTarget(`${base}?sslmode=require&application_name=x`).connectionString,
    `${base}?application_name=x`,
  );
});

Deno.test("connection settings: DB_POOLER_URL wins, 2 connections per isolate in all, bounded timeouts", () => {
  const names = [
    "DB_POOLER_URL",
    "SUPABASE_DB_URL",
    "DB_POOL_SIZE",
    "DB_LIMITER_POOL_SIZE",
    "DB_CONNECT_TIMEOUT_MS",
    "DB_STATEMENT_TIMEOUT_MS",
    "DB_IDLE_TIMEOUT_MS",
    "DB_SSL_ROOT_CERT",
  ];
  const saved = Object.fromEntries(names.map((name) => [name, Deno.env.get(name)]));
  try {
    for (const name of names) Deno.env.delete(name);
    Deno.env.set("SUPABASE_DB_URL", "postgresql://direct/postgres");
    assertEquals(databaseSettings(), {
      url: "postgresql://direct/postgres",
      poolSize: 1,
      limiterPoolSize: 1,
      sslRootCert: undefined,
      connectTimeoutMs: 3_000,
      statementTimeoutMs: 5_000,
      idleTimeoutMs: 10_000,
    });
    Deno.env.set("DB_POOLER_URL", "postgresql://pooler:6543/postgres");
    Deno.env.set("DB_POOL_SIZE", "8");
    Deno.env.set("DB_LIMITER_POOL_SIZE", "500");
    Deno.env.set("DB_STATEMENT_TIMEOUT_MS", "not a number");
    const settings = databaseSettings();
    assertEquals(settings.url, "postgresql://pooler:6543/postgres");
    assertEquals(settings.poolSize, 8);
    assertEquals(settings.limiterPoolSize, 1, "out of bounds: the default");
    assertEquals(settings.statementTimeoutMs, 5_000);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
});

Deno.test("an unreachable database is a 503 service_unavailable JSON with Retry-After, never a 500", async () => {
  const app = new Hono<RequestIdEnv>();
  app.use("*", requestId());
  app.onError(errorHandler("test"));
  app.get("/down", () => {
    throw new DatabaseUnavailableError(
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    );
  });
  app.get("/raw", () => {
    throw Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
  });
  const realWarn = console.warn;
  console.warn = () => {};
  try {
    for (const path of ["/down", "/raw"]) {
      const response = await app.request(path);
      assertEquals(response.status, 503, path);
      assertEquals(response.headers.get("retry-after"), String(retryAfterSeconds));
      assert(response.headers.get("x-request-id"));
      const body = await response.json();
      assertEquals(body.error, "service_unavailable");
      assert(!JSON.stringify(body).includes("ECONNREFUSED"), "no driver detail in the body");
    }
  } finally {
    console.warn = realWarn;
  }
});
