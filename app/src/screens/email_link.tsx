/**
 * /email-link?action=confirm|unsubscribe&token=…: where the links of alert mails land (email-links
 * redirects a GET here, so a mail scanner opening the link changes nothing). One button does what the link
 * is for, without signing in.
 */
import { useState } from "preact/hooks";
import * as api from "../data/api.ts";
import { ActButton } from "../ui/act_button.tsx";
import { ErrorNote, Notice, useAction } from "../ui/components.tsx";

export function EmailLink({ query }: { query: URLSearchParams }) {
  const action = query.get("action") === "unsubscribe" ? "unsubscribe" : "confirm";
  const token = query.get("token") ?? "";
  const [done, setDone] = useState(false);
  const { busy, error, act } = useAction();
  const title = action === "confirm" ? "Confirm this address" : "Unsubscribe this address";
  if (!/^[0-9a-f]{48}$/.test(token)) {
    return (
      <section class="narrow">
        <h1>{title}</h1>
        <p>This link is incomplete: open it again from the mail, all of it.</p>
      </section>
    );
  }
  return (
    <section class="narrow">
      <h1>{title}</h1>
      <ErrorNote error={error} />
      {done
        ? (
          <Notice>
            {action === "confirm"
              ? "The address is confirmed: domain alerts will arrive there."
              : "The address is unsubscribed: no more alerts will be sent there."}
          </Notice>
        )
        : (
          <>
            <p>
              {action === "confirm"
                ? "Someone added this address to the alerts of a Domain Watchlist account. Confirm it to receive those alerts here."
                : "Stop every Domain Watchlist alert to the address this mail went to."}
            </p>
            <ActButton
              act={act}
              busy={busy}
              variant=""
              run={async () => {
                await api.followEmailLink(action, token);
                setDone(true);
              }}
            >
              {action === "confirm" ? "Confirm address" : "Unsubscribe"}
            </ActButton>
          </>
        )}
    </section>
  );
}
