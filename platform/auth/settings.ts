/** `GET /auth/v1/settings` (supabase/auth `settings.go`): which sign-in methods the local Auth offers. */
import { authSettings } from "./project_settings.ts";
import { jsonResponse } from "./errors.ts";

const providers = [
  "anonymous_users",
  "apple",
  "azure",
  "bitbucket",
  "discord",
  "facebook",
  "snapchat",
  "figma",
  "fly",
  "github",
  "gitlab",
  "google",
  "keycloak",
  "kakao",
  "linkedin",
  "linkedin_oidc",
  "notion",
  "spotify",
  "slack",
  "slack_oidc",
  "workos",
  "twitch",
  "twitter",
  "email",
  "phone",
  "zoom",
];

export function settings(request: Request): Response {
  const current = authSettings();
  return jsonResponse(request, {
    external: Object.fromEntries(providers.map((name) => [name, name === "email" && current.email.enabled])),
    disable_signup: !current.enableSignup,
    mailer_autoconfirm: !current.email.enableConfirmations,
    phone_autoconfirm: false,
    sms_provider: "",
    saml_enabled: false,
    saml_private_key_next_configured: false,
    passkeys_enabled: false,
  });
}
