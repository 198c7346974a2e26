/**
 * The OAuth consent page (Supabase Auth's authorization path, /oauth/consent?authorization_id=…): sign in
 * if needed, show the client, its redirect URI and the scopes, then approve or deny through supabase-js.
 */
import type { Session } from "@supabase/supabase-js";
import { useEffect, useState } from "preact/hooks";
import * as api from "../data/api.ts";
import { ErrorNote, useAction } from "../ui/components.tsx";
import { SignIn } from "./sign_in.tsx";
import { AssistantAbilities } from "./consent_abilities.tsx";
import { AssistantAuthLimits } from "./consent_auth_limits.tsx";

const scopeText: Record<string, string> = {
  openid: "confirm who you are",
  offline_access: "keep access while you are away",
  email: "see your email address",
  profile: "see your profile",
  phone: "see your phone number",
};

export function Consent({ session, query }: { session: Session | null; query: URLSearchParams }) {
  const id = query.get("authorization_id") ?? "";
  const [details, setDetails] = useState<api.AuthorizationDetails | null>(null);
  const [leaving, setLeaving] = useState(false);
  const { busy, error, act } = useAction();

  useEffect(() => {
    if (!session || !id) return;
    act(async () => {
      const answer = await api.authorizationDetails(id);
      if ("redirect_url" in answer && !("authorization_id" in answer)) {
        setLeaving(true);
        location.assign(answer.redirect_url);
      } else setDetails(answer as api.AuthorizationDetails);
    });
  }, [session?.user.id, id]);

  if (!id) {
    return (
      <section class="narrow">
        <h1>Connect an assistant</h1>
        <p>This page is opened by an assistant (Claude, ChatGPT, another MCP client) asking to connect.</p>
      </section>
    );
  }
  if (!session) {
    return (
      <section class="narrow">
        <h1>Connect an assistant</h1>
        <p>An assistant asks to use your Domain Watchlist account. Sign in first.</p>
        <SignIn embedded next={`/oauth/consent?authorization_id=${encodeURIComponent(id)}`} />
      </section>
    );
  }
  const decide = (approve: boolean) =>
    act(async () => {
      const to = await api.decideAuthorization(id, approve);
      setLeaving(true);
      location.assign(to);
    });
  const name = details?.client.name || details?.client.id || "An application";
  return (
    <section class="narrow">
      <h1>Connect an assistant</h1>
      <ErrorNote error={error} />
      {leaving ? <p role="status">Returning to the application…</p> : null}
      {details && !leaving
        ? (
          <div class="card">
            <p>
              <strong>{name}</strong> asks to use your Domain Watchlist account ({session.user.email}).
            </p>
            <AssistantAbilities name={name} />
            <dl class="facts">
              <div>
                <dt>Application</dt>
                <dd>{name}</dd>
              </div>
              {details.client.uri
                ? (
                  <div>
                    <dt>Website</dt>
                    <dd>{details.client.uri}</dd>
                  </div>
                )
                : null}
              <div>
                <dt>Returns you to</dt>
                <dd>
                  <code>{details.redirect_uri}</code>
                </dd>
              </div>
              <div>
                <dt>Scopes</dt>
                <dd>
                  <ul class="plain">
                    {details.scope.split(/\s+/).filter(Boolean).map((scope) => (
                      <li key={scope}>
                        <code>{scope}</code>
                        {scopeText[scope] ? `: ${scopeText[scope]}` : ""}
                      </li>
                    ))}
                  </ul>
                </dd>
              </div>
            </dl>
            <AssistantAuthLimits />
            <p class="muted">
              Approve only if you started this connection. You can revoke it later under Developer API →
              Connected assistants.
            </p>
            <div class="row">
              <button type="button" disabled={busy} onClick={() => decide(true)}>Approve</button>
              <button type="button" class="secondary" disabled={busy} onClick={() => decide(false)}>
                Deny
              </button>
            </div>
          </div>
        )
        : null}
    </section>
  );
}
