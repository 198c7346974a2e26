/**
 * Local TLS: a throwaway certificate authority and the server certificates it signs (for 127.0.0.1 and
 * localhost), made with openssl. The local PostgreSQL, the pooler stand-in and the HTTPS fakes use them;
 * clients trust the authority's certificate (`caFile`) and nothing else changes.
 */
import { join } from "node:path";
import { run } from "../run.ts";

export interface CertificateAuthority {
  /** The authority's certificate (PEM): what a client trusts. */
  caFile: string;
  caKeyFile: string;
}

export interface ServerCertificate {
  certFile: string;
  keyFile: string;
}

const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

export async function makeCertificateAuthority(dir: string): Promise<CertificateAuthority> {
  await Deno.mkdir(dir, { recursive: true });
  const caFile = join(dir, "ca.crt");
  const caKeyFile = join(dir, "ca.key");
  await run("openssl", [
    "req",
    "-x509",
    ...ec,
    "-days",
    "3650",
    "-subj",
    "/CN=Domain Watchlist local CA",
    "-keyout",
    caKeyFile,
    "-out",
    caFile,
  ], { quiet: true });
  return { caFile, caKeyFile };
}

/** A leaf certificate (not a CA, as rustls insists) for 127.0.0.1 and localhost, written to certFile/keyFile. */
export async function issueServerCertificate(
  authority: CertificateAuthority,
  target: ServerCertificate,
): Promise<ServerCertificate> {
  const request = `${target.certFile}.csr`;
  const extensions = `${target.certFile}.ext`;
  await run("openssl", ["req", ...ec, "-subj", "/CN=localhost", "-keyout", target.keyFile, "-out", request], {
    quiet: true,
  });
  await Deno.writeTextFile(
    extensions,
    "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n" +
      "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
  );
  await run("openssl", [
    "x509",
    "-req",
    "-in",
    request,
    "-CA",
    authority.caFile,
    "-CAkey",
    authority.caKeyFile,
    "-CAcreateserial",
    "-days",
    "3650",
    "-extfile",
    extensions,
    "-out",
    target.certFile,
  ], { quiet: true });
  await Promise.all([Deno.remove(request), Deno.remove(extensions)]);
  await Deno.chmod(target.keyFile, 0o600);
  return target;
}
