/** The local Auth stand-in's signing key: ES256, made once per process, published in its JWKS. */
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK, type JWTVerifyGetKey, SignJWT } from "jose";
import { sessionIssuer } from "../../../supabase/functions/_shared/session/jwt.ts";
import { authSettings } from "../project_settings.ts";

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

let signingKey: Promise<SigningKey> | undefined;

function localSigningKey(): Promise<SigningKey> {
  return signingKey ??= (async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const kid = `local-es256-${crypto.randomUUID().slice(0, 8)}`;
    return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } };
  })();
}

/** The JWKS: the public half of the stand-in's ES256 key (made once per process). */
export async function localSigningKeys(): Promise<{ keys: JWK[] }> {
  return { keys: [(await localSigningKey()).publicJwk] };
}

let verificationKeys: Promise<JWTVerifyGetKey> | undefined;

/** The JWKS as a key set for `jwtVerify`, made once per process as the key is (the stand-ins verify with it). */
export function localVerificationKeys(): Promise<JWTVerifyGetKey> {
  return verificationKeys ??= localSigningKeys().then((jwks) => createLocalJWKSet(jwks));
}

export interface AccessTokenOptions {
  /** Default `<AUTH_BASE_URL or SUPABASE_URL>/auth/v1`. */
  issuer?: string;
  /** Seconds since the epoch; default now + the configured JWT expiry. */
  expiresAt?: number;
}

/** A JWT signed with the stand-in's key, with `claims` as given (tests make tokens the server would not). */
export async function signWithLocalKey(
  claims: Record<string, unknown>,
  options: AccessTokenOptions = {},
): Promise<string> {
  const key = await localSigningKey();
  const now = Math.floor(Date.now() / 1000);
  return await new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "JWT" })
    .setIssuer(options.issuer ?? sessionIssuer())
    .setIssuedAt(now)
    .setExpirationTime(options.expiresAt ?? now + authSettings().jwtExpirySeconds)
    .sign(key.privateKey);
}
