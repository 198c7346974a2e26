/** Sign in / sign up (email and password), a magic link, and a forgotten password, on one form. */
import { useState } from "preact/hooks";
import * as api from "../data/api.ts";
import { navigate } from "../router.ts";
import { ErrorNote, Notice, useAction } from "../ui/components.tsx";

/** `embedded`: inside another screen (consent, accept-invite), under that screen's own heading. */
export function SignIn({ next, embedded = false }: { next: string; embedded?: boolean }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [sent, setSent] = useState<string | null>(null);
  const { busy, error, act } = useAction();

  const done = () => navigate(next || "/", true);

  return (
    <section class="narrow">
      {embedded ? <h2>Sign in or sign up</h2> : (
        <>
          <h1>Sign in to Domain Watchlist</h1>
          <p class="lead">Watch domain names and hear the moment one becomes available.</p>
        </>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          act(async () => {
            await api.signIn(email, password);
            done();
          });
        }}
      >
        <label>
          Email
          <input
            type="email"
            name="email"
            autocomplete="email"
            required
            value={email}
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="current-password"
            value={password}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
          />
        </label>
        <ErrorNote error={error} />
        {sent ? <Notice>{sent}</Notice> : null}
        <div class="row">
          <button type="submit" disabled={busy}>Sign in</button>
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={() =>
              act(async () => {
                setSent(null);
                const { confirm } = await api.signUp(email, password, next);
                if (confirm) setSent(`Check ${email}: we sent a link to confirm your address.`);
                else done();
              })}
          >
            Sign up
          </button>
        </div>
        <div class="row small">
          <button
            type="button"
            class="link"
            disabled={busy}
            onClick={() =>
              act(async () => {
                await api.sendMagicLink(email, next);
                setSent(`Check ${email}: the sign-in link is on its way.`);
              })}
          >
            Email me a sign-in link
          </button>
          <button
            type="button"
            class="link"
            disabled={busy}
            onClick={() =>
              act(async () => {
                await api.sendPasswordReset(email);
                setSent(`Check ${email}: the link to choose a new password is on its way.`);
              })}
          >
            Forgot your password?
          </button>
        </div>
      </form>
    </section>
  );
}
