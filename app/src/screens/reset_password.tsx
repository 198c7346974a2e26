/** Where the password-recovery link lands: choose a new password for the signed-in (recovering) user. */
import type { Session } from "@supabase/supabase-js";
import { useState } from "preact/hooks";
import * as api from "../data/api.ts";
import { ErrorNote, Notice, useAction } from "../ui/components.tsx";
import { Field, Form } from "../ui/form.tsx";

export function ResetPassword({ session }: { session: Session | null }) {
  const [password, setPassword] = useState("");
  const [done, setDone] = useState(false);
  const { busy, error, act } = useAction();
  if (!session) {
    return (
      <section class="narrow">
        <h1>Choose a new password</h1>
        <p>
          Open the link from the password mail again, or <a href="/sign-in">ask for a new one</a>.
        </p>
      </section>
    );
  }
  return (
    <section class="narrow">
      <h1>Choose a new password</h1>
      <Form
        onSubmit={() =>
          act(async () => {
            await api.setPassword(password);
            setDone(true);
          })}
      >
        <Field
          label="New password"
          type="password"
          autocomplete="new-password"
          value={password}
          onValue={setPassword}
        />
        <ErrorNote error={error} />
        {done
          ? (
            <Notice>
              Your password is changed. <a href="/">Go to your watchlist</a>
            </Notice>
          )
          : null}
        <button type="submit" disabled={busy}>Save password</button>
      </Form>
    </section>
  );
}
