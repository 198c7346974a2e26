/** Sign in / sign up (email and password), a magic link, and a forgotten password, on one form. */
import { useState } from "preact/hooks";
import * as api from "../data/api.ts";
import { linkNotice, localPath } from "../data/auth_links.ts";
import { navigate } from "../router.ts";
import { ActButton } from "../ui/act_button.tsx";
import { ErrorNote, Notice, useAction } from "../ui/components.tsx";
import { Field, Form } from "../ui/form.tsx";

/** `embedded`: inside another screen (consent, accept-invite), under that screen's own heading. */
export function SignIn({ next, embedded = false }: { next: string; embedded?: boolean }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [sent, setSent] = useState<string | null>(null);
  const { busy, error, act } = useAction();

  const done = () => navigate(localPath(next), true);
  // A mail's link that came back here without a session says why (expired, or opened in another browser).
  const [fromLink] = useState(() => linkNotice(location.search, location.hash, false));

  return (
    <section class="narrow">
      {embedded ? <h2>Sign in or sign up</h2> : (
        <>
          <h1>Sign in to Domain Watchlist</h1>
          <p class="lead">Watch domain names and hear the moment one becomes available.</p>
        </>
      )}
      {fromLink ? <p class="note">{fromLink}</p> : null}
      <Form
        onSubmit={() =>
          act(async () => {
            await api.signIn(email, password);
            done();
          })}
      >
        <Field
          label="Email"
          type="email"
          name="email"
          autocomplete="email"
          required
          value={email}
          onValue={setEmail}
        />
        <Field
          label="Password"
          type="password"
          name="password"
          autocomplete="current-password"
          value={password}
          onValue={setPassword}
        />
        <ErrorNote error={error} />
        {sent ? <Notice>{sent}</Notice> : null}
        <div class="row">
          <button type="submit" disabled={busy}>Sign in</button>
          <ActButton
            act={act}
            busy={busy}
            run={async () => {
              setSent(null);
              const { confirm } = await api.signUp(email, password, next);
              if (confirm) setSent(`Check ${email}: we sent a link to confirm your address.`);
              else done();
            }}
          >
            Sign up
          </ActButton>
        </div>
        <div class="row small">
          <ActButton
            act={act}
            busy={busy}
            variant="link"
            run={async () => {
              await api.sendMagicLink(email, next);
              setSent(`Check ${email}: the sign-in link is on its way.`);
            }}
          >
            Email me a sign-in link
          </ActButton>
          <ActButton
            act={act}
            busy={busy}
            variant="link"
            run={async () => {
              await api.sendPasswordReset(email);
              setSent(`Check ${email}: the link to choose a new password is on its way.`);
            }}
          >
            Forgot your password?
          </ActButton>
        </div>
      </Form>
    </section>
  );
}
