/** Where the password-recovery link lands: choose a new password for the signed-in (recovering) user. */
import type { Session } from "@supabase/supabase-js";
import { useEffect, useState } from "preact/hooks";
import type { AppError } from "../data/errors.ts";
import * as api from "../data/api.ts";
import { ErrorNote, Notice, useAction } from "../ui/components.tsx";
import { Field, Form } from "../ui/form.tsx";

/** Supabase Auth asks for the current password outside a session opened from a password mail. */
function needsCurrent(error: AppError | null): boolean {
  return error?.code === "current_password_required" || error?.code === "current_password_invalid";
}

export function ResetPassword({ session }: { session: Session | null }) {
  const [password, setPassword] = useState("");
  const [current, setCurrent] = useState("");
  const [askCurrent, setAskCurrent] = useState(false);
  const [done, setDone] = useState(false);
  const { busy, error, act } = useAction();
  useEffect(() => {
    if (needsCurrent(error)) setAskCurrent(true);
  }, [error]);
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
            await api.setPassword(password, current || undefined);
            setDone(true);
          })}
      >
        {askCurrent
          ? (
            <Field
              label="Current password"
              type="password"
              autocomplete="current-password"
              value={current}
              onValue={setCurrent}
            />
          )
          : null}
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
