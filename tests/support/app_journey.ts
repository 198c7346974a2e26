/**
 * What the browser tests do through the app's pages: sign up and confirm from the local mailbox, sign in,
 * find a mail's link. Every step goes through the page as a person would (accessible names).
 */
import type { Page } from "./playwright_types.d.ts";
import { assert } from "./assert.ts";

export const password = "correct horse battery staple";

/** The newest mail to `email` (Mailpit's API of the local mailbox), waiting up to 10 s for it. */
export async function latestMail(
  mailboxUrl: string,
  email: string,
  tag?: string,
): Promise<{ Text: string; HTML: string }> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const search = await (await fetch(
      `${mailboxUrl}/api/v1/search?query=${encodeURIComponent(`to:${email}`)}`,
    )).json();
    const found = (search.messages as { ID: string; Tags: string[] }[]).find((m) =>
      !tag || m.Tags.includes(tag)
    );
    if (found) return await (await fetch(`${mailboxUrl}/api/v1/message/${found.ID}`)).json();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no mail to ${email}`);
}

/** The first link into Auth's /verify in a mail. */
export function verifyLinkOf(mail: { Text: string; HTML: string }): string {
  const link = `${mail.Text}\n${mail.HTML}`.match(/https?:\/\/[^\s"'<>]+\/auth\/v1\/verify\?[^\s"'<>]+/)?.[0];
  assert(link, `a verify link in: ${mail.Text}`);
  return link.replace(/&amp;/g, "&");
}

/** Fills the sign-in form (on whatever page shows it) and presses `button`. */
export async function fillSignIn(page: Page, email: string, button: "Sign in" | "Sign up"): Promise<void> {
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: button, exact: true }).click();
}

/** Signs up on the page's sign-in form and confirms the address from the mailbox; ends signed in. */
export async function signUpAndConfirm(page: Page, mailboxUrl: string, email: string): Promise<void> {
  await fillSignIn(page, email, "Sign up");
  await page.getByText(`Check ${email}`).waitFor();
  const link = verifyLinkOf(await latestMail(mailboxUrl, email, "signup"));
  await page.goto(link);
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}
