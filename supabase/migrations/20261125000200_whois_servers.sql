-- WHOIS where a registry has no RDAP (RFC 3912, TCP port 43).
--   * whois_servers (new): the shipped, operator-editable table of WHOIS servers by suffix, with each
--     server's own phrasings as patterns, its encoding and its source; rows without a host list a
--     registry that offers no usable public WHOIS, with the reason.
--   * rate_limit_classes: a new row, class whois_host (conservative per-host politeness for WHOIS).
-- Replaces or alters no existing object. WHOIS canary proofs are kept in public.rdap_server_proofs under
-- the server key 'whois://<host>:<port>' (same claim, record and renewal rules as RDAP proofs).

create table public.whois_servers (
  suffix text collate "C" primary key
    constraint whois_servers_suffix_check check (
      suffix = lower(suffix) and suffix ~ '^[a-z0-9-]+(\.[a-z0-9-]+)*$'
    ),
  -- Null: no usable public WHOIS for the suffix (unsupported_reason says why); names there stay unknown.
  host text collate "C"
    constraint whois_servers_host_check check (
      host is null or (host = lower(host) and host ~ '^[a-z0-9-]+(\.[a-z0-9-]+)+$')
    ),
  port integer not null default 43 constraint whois_servers_port_check check (port between 1 and 65535),
  -- The query line sent (without CRLF); %s stands for the name, e.g. '%s/e' for English answers at JPRS.
  query_format text not null default '%s'
    constraint whois_servers_query_format_check check (query_format like '%\%s%' and query_format !~ '[\r\n]'),
  canary_name text collate "C"
    constraint whois_servers_canary_name_check check (
      canary_name is null or (canary_name = lower(canary_name) and canary_name ~ '^[a-z0-9-]+(\.[a-z0-9-]+)+$')
    ),
  -- The server's own phrasings: JavaScript regular expressions, matched line by line (flags "mi").
  not_found_pattern text,
  found_pattern text,
  limit_pattern text,
  -- Capture group 1 of each match is one status line (split at commas and " / ").
  status_pattern text,
  -- Status words (lower case) meaning redemption or pending delete: the name may drop soon.
  pending_delete_statuses text[] not null default '{}',
  registrar_pattern text,
  expiration_pattern text,
  encoding text not null default 'utf-8' constraint whois_servers_encoding_check check (encoding in ('utf-8', 'latin-1')),
  unsupported_reason text,
  source text not null,
  enabled boolean not null default true,
  updated_at timestamptz not null default now(),
  constraint whois_servers_route_check check (
    (host is not null and canary_name is not null and not_found_pattern is not null and found_pattern is not null
      and unsupported_reason is null)
    or (host is null and unsupported_reason is not null)
  )
);

comment on table public.whois_servers is
  'WHOIS servers (RFC 3912, port 43) for suffixes without an RDAP route; RDAP always wins where the '
  'bootstrap or rdap_server_overrides names a server. The longest matching suffix applies. A not-found answer '
  'makes a name available only when the row''s canary_name was answered with a record its found_pattern '
  'matches (proof kept in rdap_server_proofs as whois://host:port, renewed daily), the answer matches '
  'not_found_pattern and no other pattern, and DNS says the name is not delegated. host null: the registry '
  'offers no usable public WHOIS (unsupported_reason). Edits take effect within about 5 minutes.';
comment on column public.whois_servers.source is 'Where the server and phrasings come from, and when checked.';

alter table public.whois_servers enable row level security;
revoke all on table public.whois_servers from anon, authenticated;
grant select, insert, update, delete on table public.whois_servers to service_role;

-- Conservative politeness: one query every 5 s per WHOIS host, one at a time; after two failures in a row
-- the host backs off from one minute, doubling up to an hour. A limit text pauses the host (whois/check.ts).
insert into public.rate_limit_classes
  (class, rate_per_second, concurrency, failure_threshold, backoff_base_ms, backoff_cap_ms)
values ('whois_host', 0.2, 1, 2, 60000, 3600000)
on conflict (class) do nothing;
