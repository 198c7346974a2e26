/**
 * The MCP tool server end to end: the official SDK client, the conformance runner, the inspector CLI,
 * and the HTTP-level rules (401/403/405/Origin, daily limit per tools/call).
 */
// Deno 2.1 (hosted Edge Functions) takes the SDK's wildcard `types` export literally (`*.js.d.ts`, which
// does not exist); @ts-types names the .d.ts without `.js`. See docs/runtime.md.
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { repoRoot } from "../../platform/paths.ts";
import { setRdapHostLimit } from "../../scripts/lib/rate_limits.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { callChecked, publishedContract } from "../support/contract.ts";
import { startFakeDns } from "../fakes/dns_server.ts";
import { startFakeRdap } from "../fakes/rdap_server.ts";
import { startStack, type TestStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

async function connect(url: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: "watchlist-e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { "x-api-key": apiKey } },
  });
  await client.connect(transport);
  return client;
}

async function requestsToday(stack: TestStack, userId: string): Promise<number> {
  const [row] = await stack.sql<{ count: number }[]>`
    select coalesce(sum(request_count), 0)::int as count from public.api_request_counters
    where user_id = ${userId} and day = (now() at time zone 'utc')::date`;
  return row.count;
}

function rpc(url: string, apiKey: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(apiKey ? { "x-api-key": apiKey } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

async function output(command: string, args: string[], env: Record<string, string> = {}) {
  const result = await new Deno.Command(command, {
    args,
    env,
    cwd: repoRoot,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const decoder = new TextDecoder();
  return { code: result.code, stdout: decoder.decode(result.stdout), stderr: decoder.decode(result.stderr) };
}

Deno.test("MCP tool server end to end", options, async (t) => {
  const rdap = await startFakeRdap({ tlds: ["com", "org"] });
  const dns = await startFakeDns({ delegated: { "taken-name.com": ["ns1.example.net"] } });
  rdap.setDomain("taken-name.com", { status: 200 });
  const stack = await startStack({
    RDAP_BOOTSTRAP_URL: `${rdap.url}dns.json`,
    DNS_NAMESERVER: dns.address,
  });
  await setRdapHostLimit(stack.sql, rdap.url, 50);
  const mcpUrl = `${stack.apiBase}/mcp`;
  try {
    // Every tool result and HTTP error below is checked against the schemas the OpenAPI document publishes.
    const contract = await publishedContract(stack.apiBase);
    const account = await stack.account("pro");
    const apiKey = account.api_key!;

    await t.step("the SDK client lists the four tools with their annotations", async () => {
      const client = await connect(mcpUrl, apiKey);
      assertEquals(client.getServerVersion()?.name, "domain-watchlist");
      assertEquals(client.getServerVersion()?.version, "1.0.0");
      assert(client.getInstructions()?.includes("check_domain"));
      const { tools } = await client.listTools();
      const byName = Object.fromEntries((tools as Tool[]).map((tool) => [tool.name, tool]));
      assertEquals(Object.keys(byName).sort(), [
        "add_domains",
        "check_domain",
        "list_watchlist",
        "remove_domain",
      ]);
      assertEquals(byName.check_domain.annotations?.readOnlyHint, true);
      assertEquals(byName.check_domain.annotations?.openWorldHint, true);
      assertEquals(byName.list_watchlist.annotations?.readOnlyHint, true);
      assertEquals(byName.remove_domain.annotations?.destructiveHint, true);
      assertEquals(byName.remove_domain.annotations?.idempotentHint, true);
      assertEquals(byName.add_domains.annotations?.idempotentHint, true);
      for (const tool of tools as Tool[]) {
        assert(tool.title && tool.description && tool.outputSchema, `${tool.name} is fully described`);
      }
      await client.close();
    });

    await t.step("each tool works and matches the REST bodies; only tools/call counts", async () => {
      const before = await requestsToday(stack, account.user_id);
      const client = await connect(mcpUrl, apiKey);
      await client.listTools();
      assertEquals(await requestsToday(stack, account.user_id), before, "initialize and tools/list are free");

      const callTool = async (name: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name, arguments: args });
        contract.assertToolResult(name, result);
        return result;
      };
      const added = await callTool("add_domains", { domains: ["taken-name.com", "bücher.de"] });
      assertEquals(added.structuredContent, {
        added: 2,
        skipped_duplicates: 0,
        rejected_over_limit: 0,
        remaining_quota: 998,
      });
      // The account's own tags and note (set in the app) are listed when set, by REST and MCP alike.
      await stack.sql`update public.watchlist_entries set tags = '{clients,q3}', note = 'Renew by March'
                      where user_id = ${account.user_id} and domain_name = 'taken-name.com'`;
      const rest = (await callChecked(contract, `${stack.apiBase}/domains`, { apiKey })).body;
      const listed = await callTool("list_watchlist", { limit: 10 });
      assertEquals(listed.structuredContent, rest);
      const listedDomains = (rest as { domains: Record<string, unknown>[] }).domains;
      const tagged = listedDomains.find((d) => d.domain_name === "taken-name.com")!;
      assertEquals([tagged.tags, tagged.note], [["clients", "q3"], "Renew by March"]);
      const untagged = listedDomains.find((d) => d.domain_name === "xn--bcher-kva.de")!;
      assert(!("tags" in untagged) && !("note" in untagged), "no tags or note: the fields are left out");

      const checked = await callTool("check_domain", { domain: "taken-name.com" });
      const result = checked.structuredContent as Record<string, unknown>;
      assertEquals(result.status, "registered");
      assertEquals(result.available, false);

      const removed = await callTool("remove_domain", { domain: "bücher.de" });
      assertEquals(removed.structuredContent, { removed: true, domain_name: "xn--bcher-kva.de" });
      const again = await callTool("remove_domain", { domain: "bücher.de" });
      assertEquals(again.isError, true);
      assertEquals((again.structuredContent as Record<string, unknown>).error, "not_found");

      const invalid = await callTool("add_domains", { domains: ["www.example.com"] });
      assertEquals(invalid.isError, true);
      assertEquals((invalid.structuredContent as Record<string, unknown>).error, "invalid_request");

      assertEquals(
        await requestsToday(stack, account.user_id),
        before + 1 + 6,
        "one REST call and six tool calls",
      );
      await client.close();
    });

    await t.step("over the daily limit a tool call is an isError result with reset_at", async () => {
      const limited = await stack.account("pro");
      await stack.sql`
        insert into public.api_request_counters (user_id, day, request_count)
        values (${limited.user_id}, (now() at time zone 'utc')::date, 1000)`;
      const client = await connect(mcpUrl, limited.api_key!);
      await client.listTools();
      const result = await client.callTool({ name: "list_watchlist", arguments: {} });
      contract.assertToolResult("list_watchlist", result);
      assertEquals(result.isError, true);
      const content = result.structuredContent as Record<string, string>;
      assertEquals(content.error, "rate_limited");
      assertMatch(content.reset_at, /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
      await client.close();
    });

    await t.step("HTTP-level rules: 401, 403, 405 and Origin", async () => {
      const initialize = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      };
      const missing = await rpc(mcpUrl, undefined, initialize);
      assertEquals(missing.status, 401);
      const missingBody = await missing.json();
      contract.assertErrorBody(missingBody, "POST /mcp → 401");
      assertEquals(missingBody.error, "unauthorized");

      const free = await stack.account("free");
      const freeKey = `dwl_free_${crypto.randomUUID()}`;
      await stack.sql`
        insert into public.api_keys (user_id, name, prefix, key_hash)
        values (${free.user_id}, 'old', 'dwl_freekey0', encode(sha256(convert_to(${freeKey}, 'UTF8')), 'hex'))`;
      const upgrade = await rpc(mcpUrl, freeKey, initialize);
      assertEquals(upgrade.status, 403);
      const upgradeBody = await upgrade.json();
      contract.assertErrorBody(upgradeBody, "POST /mcp → 403");
      assertEquals(upgradeBody.error, "upgrade_required");

      for (const method of ["GET", "DELETE"]) {
        const response = await fetch(mcpUrl, { method, headers: { "x-api-key": apiKey } });
        assertEquals(response.status, 405, method);
        assertEquals(response.headers.get("allow"), "POST");
        contract.assertErrorBody(await response.json(), `${method} /mcp → 405`);
      }

      const evil = await rpc(mcpUrl, apiKey, initialize, { origin: "https://evil.example" });
      assertEquals(evil.status, 403);
      contract.assertErrorBody(await evil.json(), "POST /mcp from another Origin → 403");
      const self = await rpc(mcpUrl, apiKey, initialize, { origin: stack.gateway.url });
      assertEquals(self.status, 200);
      await self.body?.cancel();

      const limited = await rpc(mcpUrl, apiKey, initialize);
      assertEquals(limited.headers.get("ratelimit-limit"), "1000");
      assert(Number(limited.headers.get("ratelimit-remaining")) <= 1000);
      await limited.body?.cancel();

      const badType = await fetch(mcpUrl, {
        method: "POST",
        headers: {
          "content-type": "text/plain",
          accept: "application/json, text/event-stream",
          "x-api-key": apiKey,
        },
        body: JSON.stringify(initialize),
      });
      assertEquals(badType.status, 415);
      await badType.body?.cancel();
      const badVersion = await rpc(mcpUrl, apiKey, { jsonrpc: "2.0", id: 2, method: "tools/list" }, {
        "mcp-protocol-version": "1999-01-01",
      });
      assertEquals(badVersion.status, 400);
      await badVersion.body?.cancel();

      const badAccept = await rpc(mcpUrl, apiKey, initialize, { accept: "text/html" });
      assertEquals(badAccept.status, 406);
      await badAccept.body?.cancel();
      const parseError = await fetch(mcpUrl, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "x-api-key": apiKey,
        },
        body: "{oops",
      });
      assertEquals(parseError.status, 400);
      // The body was read once to tell a tool call from chatter; the SDK still answers its parse error.
      assertEquals((await parseError.json()).error?.code, -32700);
    });

    await t.step("the conformance runner passes its server scenarios", async () => {
      for (const scenario of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) {
        // A tool, not the function: it runs on the tools' Deno (`--preload` is newer than Deno 2.1).
        const run = await output(Deno.env.get("TOOLS_DENO") ?? Deno.execPath(), [
          "run",
          "-A",
          "--preload",
          "tests/support/mcp_api_key_preload.ts",
          "npm:@modelcontextprotocol/conformance@0.1.16",
          "server",
          "--url",
          mcpUrl,
          "--scenario",
          scenario,
        ], { MCP_TEST_API_KEY: apiKey });
        assertEquals(run.code, 0, `${scenario}:\n${run.stdout}\n${run.stderr}`);
        assertMatch(run.stdout, /0 failed/, scenario);
      }
    });

    await t.step("the inspector CLI calls add_domains and list_watchlist", async () => {
      const inspector = (args: string[]) =>
        output("npx", [
          "-y",
          "@modelcontextprotocol/inspector@2.12.0",
          "--cli",
          mcpUrl,
          "--transport",
          "http",
          "--header",
          `x-api-key: ${apiKey}`,
          "--method",
          "tools/call",
          ...args,
          "--format",
          "json",
        ]);
      const added = await inspector([
        "--tool-name",
        "add_domains",
        "--tool-arg",
        'domains=["inspector-one.com"]',
      ]);
      assertEquals(added.code, 0, added.stderr);
      assertEquals(
        JSON.parse(added.stdout.slice(added.stdout.indexOf("{"))).result.structuredContent.added,
        1,
      );
      const listed = await inspector(["--tool-name", "list_watchlist", "--tool-arg", "limit=200"]);
      assertEquals(listed.code, 0, listed.stderr);
      const page = JSON.parse(listed.stdout.slice(listed.stdout.indexOf("{"))).result.structuredContent;
      assert(page.domains.some((d: { domain_name: string }) => d.domain_name === "inspector-one.com"));
    });
  } finally {
    await stack.close();
    await rdap.close();
    await dns.close();
  }
});
