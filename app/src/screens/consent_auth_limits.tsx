/**
 * The consent page's plain list of what an approved assistant can and cannot do with your sign-in (Supabase
 * Auth), as docs/mcp.md "What a connected assistant can and cannot do" explains it. Static text: the rules are
 * Supabase Auth's settings (docs/deploy.md, "Auth security settings"), not the app's.
 */
export function AssistantAuthLimits() {
  return (
    <div class="assistant-limits" role="note" aria-labelledby="assistant-limits-title">
      <p id="assistant-limits-title">
        <strong>Your sign-in stays yours</strong>
      </p>
      <ul>
        <li>
          It cannot change your password: that needs your current password, which it never sees.
        </li>
        <li>
          It cannot change your email address: a change must also be confirmed from your current address.
        </li>
        <li>It cannot turn on two-step sign-in.</li>
        <li>
          It can read your email address, sign you out on all your devices, and disconnect assistants you
          approved. If that happens, sign in again and remove it under Developer API → Connected assistants.
        </li>
      </ul>
    </div>
  );
}
