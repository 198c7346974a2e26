/**
 * Developer API (Pro and higher): keys (shown once), usage against the daily limit, MCP connection; and, on
 * every plan, the assistants the user approved through the consent page (Connected assistants), to revoke.
 */
import { useEffect, useState } from "preact/hooks";
import type { ScreenProps } from "../screen_props.ts";
import * as api from "../data/api.ts";
import type { ApiKey } from "../data/types.ts";
import { ActButton } from "../ui/act_button.tsx";
import { CopyButton, ErrorNote, formatTime, useAction } from "../ui/components.tsx";
import { Field, Form } from "../ui/form.tsx";
import { ShownOnce } from "../ui/secret_box.tsx";
import { Table } from "../ui/table.tsx";
import { Upgrade } from "../ui/upgrade.tsx";

/** How an approved assistant is named: its registered name, else its address, else its client ID. */
function assistantName(grant: api.AssistantGrant): string {
  return grant.client.name || grant.client.uri || grant.client.id;
}

/** The assistants the user approved (OAuth grants), each with when it was approved, its scopes and Revoke. */
function ConnectedAssistants() {
  const [grants, setGrants] = useState<api.AssistantGrant[] | null>(null);
  const list = useAction();
  const reload = () => list.act(async () => setGrants(await api.connectedAssistants()));
  useEffect(() => void reload(), []);
  return (
    <section aria-labelledby="connected-assistants">
      <h2 id="connected-assistants">Connected assistants</h2>
      <p class="muted">
        Assistants you approved on the consent page. Revoking one stops it renewing its access (the token it
        holds runs out within the hour), and it must ask for your approval again.
      </p>
      <ErrorNote error={list.error} />
      {grants === null
        ? null
        : grants.length === 0
        ? <p class="empty">No assistants connected.</p>
        : (
          <Table columns={["Assistant", "Approved", "Scopes"]} actions>
            {grants.map((grant) => (
              <tr key={grant.client.id}>
                <td>{assistantName(grant)}</td>
                <td>{formatTime(grant.granted_at)}</td>
                <td>{grant.scopes.join(", ")}</td>
                <td>
                  <ActButton
                    act={list.act}
                    busy={list.busy}
                    variant="link danger"
                    label={`Revoke ${assistantName(grant)}`}
                    run={async () => {
                      await api.disconnectAssistant(grant.client.id);
                      setGrants(await api.connectedAssistants());
                    }}
                  >
                    Revoke
                  </ActButton>
                </td>
              </tr>
            ))}
          </Table>
        )}
    </section>
  );
}

export function Developer({ overview, refreshOverview }: ScreenProps) {
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [name, setName] = useState("");
  const [created, setCreated] = useState<string | null>(null);
  const list = useAction();
  const create = useAction();
  const { functionsUrl } = api.appConfig();
  const apiBase = `${functionsUrl}/api-v1`;
  const mcpUrl = `${apiBase}/mcp`;
  const mcpJson = JSON.stringify(
    {
      mcpServers: {
        "domain-watchlist": { type: "http", url: mcpUrl, headers: { "x-api-key": "<your API key>" } },
      },
    },
    null,
    2,
  );

  const reload = () => list.act(async () => setKeys(await api.apiKeys()));
  useEffect(() => void reload(), []);

  // Free sees what Pro adds and no form it cannot use; keys it made on Pro stay listed, to revoke.
  const allowed = overview?.api_access === true;
  return (
    <section>
      <h1>Developer API</h1>
      {overview && !allowed
        ? (
          <div class="note upsell">
            <strong>API keys come with Pro.</strong>
            <span>Pro adds:</span>
            <ul>
              <li>API keys for the REST API, to read and change your watchlist from your own scripts;</li>
              <li>
                the MCP server, so Claude, ChatGPT and other assistants can check and watch names for you;
              </li>
              <li>webhooks, Slack and Discord alerts, and a bigger watchlist.</li>
            </ul>
            <span>
              <Upgrade />
            </span>
          </div>
        )
        : null}
      {overview && allowed
        ? (
          <p>
            Requests today: <strong>{overview.requests_today}</strong>
            {overview.daily_request_limit === null
              ? " (no daily limit)"
              : ` of ${overview.daily_request_limit}`}; the count resets{" "}
            {formatTime(overview.requests_reset_at)}.{" "}
            <button type="button" class="link" onClick={refreshOverview}>Refresh</button>
          </p>
        )
        : null}
      {allowed
        ? (
          <Form
            class="card"
            onSubmit={() =>
              create.act(async () => {
                setCreated(null);
                const key = await api.createApiKey(name);
                setCreated(key.api_key);
                setName("");
                reload();
              })}
          >
            <h2>New key</h2>
            <Field label="Key name" value={name} onValue={setName} placeholder="laptop" />
            <button type="submit" disabled={create.busy}>Create key</button>
            <ErrorNote error={create.error} />
            {created ? <ShownOnce label="Your new API key" value={created} /> : null}
          </Form>
        )
        : null}
      {allowed || keys.length > 0
        ? (
          <>
            <h2>Keys</h2>
            <ErrorNote error={list.error} />
            {keys.length === 0
              ? <p class="empty">No keys yet.</p>
              : (
                <Table columns={["Name", "Prefix", "Created", "Last used"]} actions>
                  {keys.map((key) => (
                    <tr key={key.id}>
                      <td>{key.name}</td>
                      <td>
                        <code>{key.prefix}…</code>
                      </td>
                      <td>{formatTime(key.created_at)}</td>
                      <td>{formatTime(key.last_used_at)}</td>
                      <td>
                        <ActButton
                          act={list.act}
                          variant="link danger"
                          label={`Revoke ${key.name}`}
                          run={async () => {
                            await api.revokeApiKey(key.id);
                            reload();
                          }}
                        >
                          Revoke
                        </ActButton>
                      </td>
                    </tr>
                  ))}
                </Table>
              )}
          </>
        )
        : null}
      {allowed
        ? (
          <>
            <h2>REST and MCP</h2>
            <p>
              REST base URL: <code>{apiBase}</code> (send the key as <code>x-api-key</code>).
            </p>
            <p>
              MCP server URL: <code>{mcpUrl}</code> <CopyButton text={mcpUrl} label="Copy MCP URL" />
            </p>
            <h3>Claude Desktop, Cursor and other clients with a configuration file</h3>
            <p>Paste this into the client's MCP configuration, with one of your keys:</p>
            <pre class="code">{mcpJson}</pre>
            <CopyButton text={mcpJson} label="Copy configuration" />
            <h3>Claude.ai and ChatGPT (connect by URL)</h3>
            <ol>
              <li>
                Claude: Settings → Connectors → Add custom connector; ChatGPT: Settings → Connectors → Create
                (developer mode).
              </li>
              <li>
                Give the MCP server URL above and nothing else: no key is needed.
              </li>
              <li>
                The assistant sends you to this app's consent page: sign in, check the assistant's name and
                address, and choose Approve. It can then use the watchlist tools of your account, and nothing
                else.
              </li>
              <li>To disconnect it, choose Revoke under Connected assistants below.</li>
            </ol>
          </>
        )
        : null}
      <ConnectedAssistants />
    </section>
  );
}
