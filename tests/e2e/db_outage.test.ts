/**
 * Database outages: the gateway under load while its database restarts, and while every server session is
 * terminated. Only 200 and 503 (JSON `service_unavailable` with `Retry-After`), nothing slower than 10 s,
 * only 200s from 5 s after the database is back, and the process keeps serving.
 *
 * The database is a cluster of this file's own (tests/support/outage.ts), so restarting it disturbs no
 * other test; SUPABASE_DB_URL is pointed at it for this file and restored at the end.
 */
import { startCluster, stopCluster } from "../../platform/postgres/cluster.ts";
import { sessionToken } from "../../platform/secrets.ts";
import { assert, assertEquals } from "../support/assert.ts";
import {
  assertOutageAnswers,
  load,
  ownCluster,
  report,
  setEnvironment,
  terminateClientSessions,
} from "../support/outage.ts";
import { publishedContract } from "../support/contract.ts";
import { startStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("database faults under load: 503 with Retry-After, then recovery", options, async (t) => {
  const own = await ownCluster();
  const restoreEnvironment = setEnvironment({ SUPABASE_DB_URL: own.cluster.url });
  const stack = await startStack();
  try {
    const account = await stack.account("enterprise");
    // The 503 bodies of api-v1 are checked against the schemas its OpenAPI document publishes.
    const contract = await publishedContract(stack.apiBase);
    const listDomains = () =>
      fetch(`${stack.apiBase}/domains?limit=5`, { headers: { "x-api-key": account.api_key! } });
    // The test's own pool is not needed during the faults.
    await stack.sql.end({ timeout: 2 });
    const warm = await listDomains();
    assertEquals(warm.status, 200, await warm.text());

    await t.step("the cluster restarts while 8 clients call GET /domains for 20 s", async () => {
      const startedAt = Date.now();
      const answers = load(8, startedAt + 20_000, listDomains);
      await sleep(4_000);
      await stopCluster(own.cluster);
      await sleep(4_000);
      await startCluster(own.cluster);
      const recoveredAt = Date.now();
      const recorded = await answers;
      console.log(`restart: ${JSON.stringify(report(recorded))}, back after ${recoveredAt - startedAt} ms`);
      assert(recorded.some((answer) => answer.status === 503), "the outage was never seen");
      assertOutageAnswers(recorded, recoveredAt);
    });

    await t.step("every server session is terminated, twice, under the same load", async () => {
      const startedAt = Date.now();
      const answers = load(8, startedAt + 10_000, listDomains);
      await sleep(2_000);
      const first = await terminateClientSessions(own.cluster);
      await sleep(2_000);
      const second = await terminateClientSessions(own.cluster);
      const recoveredAt = Date.now();
      const recorded = await answers;
      console.log(`terminate (${first}, ${second} sessions): ${JSON.stringify(report(recorded))}`);
      assert(first > 0 && second > 0, "no session was terminated");
      assertOutageAnswers(recorded, recoveredAt);
    });

    await t.step("the same process still serves REST, MCP and the poller", async () => {
      assertEquals((await listDomains()).status, 200);
      const mcp = await fetch(`${stack.apiBase}/mcp`, {
        method: "POST",
        headers: {
          "x-api-key": account.api_key!,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "list_watchlist", arguments: {} },
        }),
      });
      assertEquals(mcp.status, 200, await mcp.text());
    });

    await t.step(
      "with the database down: 503 on REST, MCP, the session endpoints and the poller",
      async () => {
        await stopCluster(own.cluster);
        try {
          const token = await sessionToken({ id: account.user_id, email: account.email }, {
            secret: Deno.env.get("AUTH_JWT_SECRET")!,
            supabaseUrl: Deno.env.get("AUTH_BASE_URL") ?? stack.gateway.url,
          });
          const calls: [string, Promise<Response>][] = [
            ["GET /domains", listDomains()],
            [
              "MCP tools/call",
              fetch(`${stack.apiBase}/mcp`, {
                method: "POST",
                headers: {
                  "x-api-key": account.api_key!,
                  "content-type": "application/json",
                  accept: "application/json, text/event-stream",
                },
                body: JSON.stringify({
                  jsonrpc: "2.0",
                  id: 2,
                  method: "tools/call",
                  params: { name: "list_watchlist" },
                }),
              }),
            ],
            [
              "export-account",
              fetch(`${stack.functionsBase}/export-account`, {
                method: "POST",
                headers: { authorization: `Bearer ${token}` },
              }),
            ],
            [
              "send-org-invite",
              fetch(`${stack.functionsBase}/send-org-invite`, {
                method: "POST",
                headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
                body: JSON.stringify({ invitationId: crypto.randomUUID() }),
              }),
            ],
            ["calendar", fetch(`${stack.functionsBase}/calendar/dwcal_${"0".repeat(48)}.ics`)],
            [
              "rdap-poller",
              fetch(`${stack.functionsBase}/rdap-poller`, {
                method: "POST",
                headers: { authorization: `Bearer ${Deno.env.get("POLLER_SECRET")}` },
              }),
            ],
          ];
          for (const [label, pending] of calls) {
            const startedAt = Date.now();
            const response = await pending;
            const body = await response.json();
            assertEquals(response.status, 503, `${label}: ${JSON.stringify(body)}`);
            assertEquals(body.error, "service_unavailable", label);
            if (label === "GET /domains") {
              contract.assertResponse("GET", `${stack.apiBase}/domains`, {
                status: response.status,
                headers: response.headers,
                body,
              });
            }
            if (label === "MCP tools/call") contract.assertErrorBody(body, label);
            assert(/^\d+$/.test(response.headers.get("retry-after") ?? ""), `${label}: Retry-After`);
            assert(Date.now() - startedAt < 10_000, `${label} took too long`);
          }
        } finally {
          await startCluster(own.cluster);
        }
        // Back at once for the next request.
        assertEquals((await listDomains()).status, 200);
      },
    );
  } finally {
    await stack.gateway.close();
    restoreEnvironment();
    await own.remove();
  }
});
