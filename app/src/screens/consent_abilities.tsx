/**
 * What an assistant can do once approved, in plain words, on the consent page: the four MCP tools and how long
 * its access lasts; and what it cannot do in this app (the database refuses an assistant's token everything
 * else: docs/mcp.md, "What a connected assistant can and cannot do").
 */
export function AssistantAbilities({ name }: { name: string }) {
  return (
    <section aria-labelledby="assistant-can">
      <h2 id="assistant-can">If you approve, {name} can</h2>
      <ul>
        <li>check whether a domain name is available;</li>
        <li>list the names you watch, with their status;</li>
        <li>add names to your watchlist (within your plan's quota);</li>
        <li>remove names from your watchlist.</li>
      </ul>
      <p>
        It keeps this access, renewing it on its own even while you are away, until you revoke it under
        Developer API → Connected assistants.
      </p>
      <h2>It cannot</h2>
      <ul>
        <li>see or create API keys;</li>
        <li>see or change your alerts (Telegram, email, webhooks, Slack, Discord);</li>
        <li>export your account or manage your organizations and invitations.</li>
      </ul>
    </section>
  );
}
