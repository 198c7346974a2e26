/**
 * The features this project keeps off, answering as GoTrue does with them off (docs/runtime.md, "auth-js's
 * suite"): SAML SSO (`/sso…`: 404 `saml_provider_disabled` "SAML 2.0 is disabled", GoTrue's
 * requireSAMLEnabled), Web3 sign-in (`grant_type=web3`: 422 `web3_provider_disabled`) and ID-token sign-in
 * (`grant_type=id_token`: 400 `provider_disabled` for a provider that is not enabled). Phone and WebAuthn
 * answer in their own modules (./signup.ts, ./otp.ts, ./mfa.ts).
 */
import { AuthError, badRequest, jsonBody, stringField, unprocessable } from "./errors.ts";

/** The issuers GoTrue knows for its built-in ID-token providers. */
const issuers: Record<string, string> = {
  google: "https://accounts.google.com",
  apple: "https://appleid.apple.com",
  azure: "https://login.microsoftonline.com/common/v2.0",
  facebook: "https://www.facebook.com",
  kakao: "https://kauth.kakao.com",
  keycloak: "",
};

export function sso(): Promise<Response> {
  throw new AuthError(404, "saml_provider_disabled", "SAML 2.0 is disabled");
}

export function web3Grant(): Promise<Response> {
  throw unprocessable("web3_provider_disabled", "Web3 provider is disabled");
}

export async function idTokenGrant(request: Request): Promise<Response> {
  const body = await jsonBody(request);
  const provider = stringField(body, "provider");
  const issuer = issuers[provider] ?? stringField(body, "issuer");
  if (provider.startsWith("custom:")) {
    throw badRequest("validation_failed", "Custom OAuth providers are disabled");
  }
  throw badRequest("provider_disabled", `Provider (issuer "${issuer}") is not enabled`);
}
