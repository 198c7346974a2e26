/**
 * Organizations' API keys end to end (issue 42, docs/organizations.md "API and MCP"): an owner's key for the
 * organization lists and adds to the organization's list through the MCP SDK client and REST, with its own
 * daily count on the owner's plan; a personal key of the same person keeps the personal list; a key of a
 * member who leaves stops at once.
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { asAccount } from "../../scripts/lib/accounts.ts";
import { assert, assertEquals } from "../support/assert.ts";
import { startStack } from "../support/stack.ts";

const options = { sanitizeOps: false, sanitizeResources: false };

async function connect(url: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: "watchlist-org-e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { "x-api-key": apiKey } },
  });
  await client.connect(transport);
  return client;
}

interface ListResult {
  domains: { domain_name: string }[];
}

Deno.test("an organization's API key reads and changes only the organization's list", options, async (t) => {
  const stack = await startStack({});
  const mcpUrl = `${stack.apiBase}/mcp`;
  try {
    const owner = await stack.account("pro");
    const admin = await stack.account("free");
    const [{ org }] = await asAccount(stack.sql, owner.user_id, async (tx) => {
      const rows = await tx<{ org: string }[]>`select public.create_organization('Acme') as org`;
      await tx`select * from public.add_organization_watchlist_domains(${rows[0].org}, ${[
        "team-listed.com",
      ]}::text[])`;
      await tx`select * from public.add_watchlist_domains(${["owner-personal.com"]}::text[])`;
      return rows;
    });
    await stack.sql`insert into public.organization_members (organization_id, user_id, role)
                    values (${org}, ${admin.user_id}, 'admin')`;
    const [{ api_key: orgKey }] = await asAccount(
      stack.sql,
      owner.user_id,
      (tx) => tx<{ api_key: string }[]>`select api_key from public.create_organization_api_key(${org}, 'ci')`,
    );
    const [{ api_key: adminKey }] = await asAccount(
      stack.sql,
      admin.user_id,
      (tx) =>
        tx<{ api_key: string }[]>`select api_key from public.create_organization_api_key(${org}, 'admin')`,
    );
    assert(orgKey.startsWith("dwo_"));

    await t.step("the MCP SDK client with the organization's key lists and adds to its list", async () => {
      const client = await connect(mcpUrl, orgKey);
      const listed = await client.callTool({ name: "list_watchlist", arguments: {} });
      assertEquals(
        (listed.structuredContent as unknown as ListResult).domains.map((d) => d.domain_name),
        ["team-listed.com"],
      );
      const added = await client.callTool({ name: "add_domains", arguments: { domains: ["via-mcp.com"] } });
      assertEquals((added.structuredContent as { added: number }).added, 1);
      const again = await client.callTool({ name: "list_watchlist", arguments: {} });
      assertEquals(
        (again.structuredContent as unknown as ListResult).domains.map((d) => d.domain_name),
        ["team-listed.com", "via-mcp.com"],
      );
      await client.close();
      const [log] = await stack.sql<{ actor_id: string; detail: { via: string } }[]>`
        select actor_id, detail from public.organization_activity
         where organization_id = ${org} and domain_name = 'via-mcp.com'`;
      assertEquals(log.detail.via, "api_key", "the log says a key acted");
    });

    await t.step("REST with the organization's key: same endpoints, the organization's list", async () => {
      const headers = { "x-api-key": orgKey, "content-type": "application/json" };
      const list = await fetch(`${stack.apiBase}/domains`, { headers });
      assertEquals(list.status, 200);
      const body = await list.json();
      assertEquals(body.domains.map((d: { domain_name: string }) => d.domain_name), [
        "team-listed.com",
        "via-mcp.com",
      ]);
      const removed = await fetch(`${stack.apiBase}/domains/via-mcp.com`, { method: "DELETE", headers });
      assertEquals(removed.status, 200);
      await removed.body?.cancel();
      const personalOnly = await fetch(`${stack.apiBase}/domains/owner-personal.com`, {
        method: "DELETE",
        headers,
      });
      assertEquals(personalOnly.status, 404, "the owner's personal name is out of the key's reach");
      await personalOnly.body?.cancel();
    });

    await t.step("the owner's personal key keeps the personal list only", async () => {
      const client = await connect(mcpUrl, owner.api_key!);
      const listed = await client.callTool({ name: "list_watchlist", arguments: {} });
      assertEquals(
        (listed.structuredContent as unknown as ListResult).domains.map((d) => d.domain_name),
        ["owner-personal.com"],
      );
      await client.close();
    });

    await t.step("the organization's key has its own daily count", async () => {
      const [{ org_count }] = await stack.sql<{ org_count: number }[]>`
        select coalesce(sum(request_count), 0)::int as org_count from public.organization_api_request_counters
         where organization_id = ${org}`;
      assert(org_count >= 6, `the organization's counter counted its requests (${org_count})`);
      const [{ personal }] = await stack.sql<{ personal: number }[]>`
        select coalesce(sum(request_count), 0)::int as personal from public.api_request_counters
         where user_id = ${owner.user_id}`;
      assertEquals(personal, 1, "the owner's own counter has only the personal key's call");
    });

    await t.step("an admin's organization key stops when the admin leaves", async () => {
      const before = await fetch(`${stack.apiBase}/domains`, { headers: { "x-api-key": adminKey } });
      assertEquals(before.status, 200);
      await before.body?.cancel();
      await asAccount(
        stack.sql,
        admin.user_id,
        (tx) =>
          tx`delete from public.organization_members where organization_id = ${org} and user_id = ${admin.user_id}`,
      );
      const after = await fetch(`${stack.apiBase}/domains`, { headers: { "x-api-key": adminKey } });
      assertEquals(after.status, 401);
      await after.body?.cancel();
    });
  } finally {
    await stack.close();
  }
});
