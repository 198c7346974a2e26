/**
 * How an end user gets a bigger plan: the operator's `APP_UPGRADE_URL` (a payment link or a mailto) behind
 * an "Upgrade" button, else a plain sentence saying who to ask. Never a command line (decisions.md, "The
 * product app and the local platform").
 */
import { appConfig } from "../data/api.ts";

export function Upgrade() {
  const url = appConfig().upgradeUrl;
  if (url) {
    return (
      <a class="button" href={url} target="_blank" rel="noopener">
        Upgrade
      </a>
    );
  }
  return (
    <span>
      Plans are changed by the people who run this service: ask them if you need a bigger one.
    </span>
  );
}
