-- WHOIS engine, where a registry has no RDAP (RFC 3912, TCP port 43; docs/whois.md):
--   * whois_servers: the shipped, operator-editable table of WHOIS servers by suffix, with each server's own
--     phrasings as patterns, its encoding and its source; rows without a host list a registry that offers
--     no usable public WHOIS, with the reason. RDAP wins wherever it exists.
--   * rate_limit_classes: class whois_host (conservative per-host politeness for WHOIS).
-- WHOIS canary proofs are kept in public.rdap_server_proofs under the server key 'whois://<host>:<port>'
-- (same claim, record and renewal rules as RDAP proofs).

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
-- the host backs off from one minute, doubling up to an hour. A limit text pauses the host (whois_check.ts).
-- A query may take 15 s (5 s to connect, 10 s for the answer): an unreleased one holds the next start back
-- that long (in_flight_wait_ms), which also lets a caller send up to 15 s − 2 × 5 s = 5 s after its settled
-- start (rate_limit_late_start_ms). With the default 2 s that allowance was 0 ms: every caller woke "late"
-- by a millisecond, gave its start up unsent and answered whois_host_busy (issue 34, point 0).
insert into public.rate_limit_classes
  (class, rate_per_second, concurrency, failure_threshold, backoff_base_ms, backoff_cap_ms, in_flight_wait_ms)
values ('whois_host', 0.2, 1, 2, 60000, 3600000, 15000)
on conflict (class) do nothing;

-- ---------------------------------------------------------------------------------------------------
-- The shipped WHOIS rows: the TLDs among the 60 most-registered that have no RDAP route (neither in
-- IANA's bootstrap of 2026-01-30 nor in rdap_server_overrides). Servers from IANA's root-zone database as
-- mirrored in rfc1036/whois tld_serv_list (2026-02) and cross-checked against io-developer/php-whois
-- module.tld.servers.json (2023); phrasings from captured answers in weppos/whois-parser spec fixtures,
-- io-developer/php-whois parsing_data and likexian/whois-parser testdata (2022-2026), and HostBill's
-- whois.php "available" strings. A row an operator already has is kept.

insert into public.whois_servers
  (suffix, host, port, query_format, canary_name, not_found_pattern, found_pattern, limit_pattern,
   status_pattern, pending_delete_statuses, registrar_pattern, expiration_pattern, encoding, source)
values
  ('at', 'whois.nic.at', 43, '%s', 'nic.at',
   '^% nothing found$', '^domain:\s+[a-z0-9.-]+\.at$', 'quota exceeded|query rate limit|too many queries',
   null, '{}', '^registrar:\s*(.+?)(?:\s+\(.*\))?$', null, 'utf-8',
   'whois.nic.at: rfc1036/whois tld_serv_list (2026-02), php-whois servers; "% nothing found": weppos fixture status_available, php-whois free.txt, HostBill.'),
  ('au', 'whois.auda.org.au', 43, '%s', 'auda.org.au',
   '^(NOT FOUND|No Data Found)$', '^Domain Name:\s+\S+\.au$', 'BLACKLISTED|exceeded|too many',
   '^Status:\s*(\S+)', '{pendingdelete}', '^Registrar Name:\s*(.+)$', null, 'utf-8',
   'whois.auda.org.au (every .au second level): rfc1036/whois tld_serv_list, HostBill (com.au, net.au, org.au, asn.au, id.au); "NOT FOUND": likexian testdata 2022, HostBill; "No Data Found" (older server): weppos, php-whois.'),
  ('be', 'whois.dns.be', 43, '%s', 'dnsbelgium.be',
   '^Status:\s*AVAILABLE$', '^Status:\s*(NOT AVAILABLE|QUARANTINE)$',
   'Excessive querying|Maximum queries per hour reached',
   '^Status:\s*(.+)$', '{quarantine}', '^Registrar:\s*\n\s+Name:\s*(.+)$', null, 'utf-8',
   'whois.dns.be: rfc1036/whois, php-whois; AVAILABLE / NOT AVAILABLE / QUARANTINE and both limit texts: weppos fixtures (status_*, property_status_quarantine, response_throttled_*), php-whois google.be, HostBill.'),
  ('cn', 'whois.cnnic.cn', 43, '%s', 'cnnic.cn',
   '^No matching record\.?$', '^Domain Name:\s*\S+\.cn$', 'exceeded|too many|try again later',
   '^Domain Status:\s*(\S+)', '{pendingdelete,redemptionperiod}', '^Sponsoring Registrar:\s*(.+)$',
   '^Expiration Time:\s*(.+)$', 'utf-8',
   'whois.cnnic.cn: rfc1036/whois, php-whois; "No matching record.": php-whois free.txt, likexian testdata, weppos, HostBill; UTF-8 per rfc1036 servers_charset_list.'),
  ('co.za', 'whois.registry.net.za', 43, '%s', 'google.co.za',
   '^Available$', '^Domain Name:\s+\S+\.co\.za$', 'Please go away for \d+ Seconds',
   '^Domain Status:\s*(\S+)', '{pendingdelete,redemptionperiod}', '^(?:Sponsoring )?Registrar:\s*(.+)$',
   '^Registry Expiry Date:\s*(.+)$', 'utf-8',
   'ZACR co.za WHOIS: rfc1036/whois tld_serv_list (.co.za), HostBill; "Available", the throttle text and the EPP-style record: weppos coza-whois fixtures.'),
  ('dk', 'whois.punktum.dk', 43, '%s', 'punktum.dk',
   '^No entries found for the selected source\.$', '^Domain:\s+\S+\.dk$', 'Too many connections|exceeded',
   '^Status:\s*(.+)$', '{deactivated}', '^Registrar:\s*(.+)$', '^Expires:\s*(.+)$', 'latin-1',
   'whois.punktum.dk (formerly whois.dk-hostmaster.dk): rfc1036/whois (2026-02; asks --charset=utf-8, so the default is Latin-1), php-whois; phrasings and "Deactivated": weppos fixtures, likexian testdata 2023.'),
  ('eu', 'whois.eu', 43, '%s', 'eurid.eu',
   '^Status:\s*AVAILABLE$', '^Registrar:\s*\n\s+Name:', 'Still in grace period|Excessive querying',
   null, '{}', '^Registrar:\s*\n\s+Name:\s*(.+)$', null, 'utf-8',
   'whois.eu: rfc1036/whois, php-whois; "Status: AVAILABLE", the registrar block and "-1: Still in grace period": weppos fixtures, likexian testdata, php-whois google.eu.'),
  ('gg', 'whois.gg', 43, '%s', 'google.gg',
   '^(NOT FOUND|Domain Status:\s*Available)$', '^Domain:\s*\n\s+\S+\.gg$', 'excessive queries|exceeded',
   null, '{}', '^Registrar:\s*\n\s+(.+?)(?:\s+\(.*\))?$', null, 'utf-8',
   'whois.gg (CIDR): rfc1036/whois, php-whois; "NOT FOUND": php-whois free.txt; record layout: php-whois google.gg, likexian testdata 2024; older "Domain Status: Available": weppos.'),
  ('hu', 'whois.nic.hu', 43, '%s', 'nic.hu',
   '^Nincs tal.lat / No match$', '^domain:\s+\S+\.hu$', 'exceeded|too many',
   null, '{}', null, null, 'latin-1',
   'whois.nic.hu: rfc1036/whois (ISO-8859-1 per servers_charset_list), php-whois; "Nincs találat / No match": weppos, php-whois free.txt, likexian testdata.'),
  ('ir', 'whois.nic.ir', 43, '%s', 'nic.ir',
   '^%ERROR:101: no entries found$', '^domain:\s+\S+\.ir$', '^%ERROR:(?!101)\d+:',
   null, '{}', null, '^expire-date:\s*(.+)$', 'utf-8',
   'whois.nic.ir: rfc1036/whois, php-whois; "%ERROR:101: no entries found": weppos, php-whois free.txt, likexian testdata; record: php-whois mhf.ir.'),
  ('it', 'whois.nic.it', 43, '%s', 'nic.it',
   '^Status:\s*AVAILABLE$', '^Status:\s*(?!AVAILABLE\s*$)\S', 'Service temporarily unavailable|Excessive querying',
   '^Status:\s*(.+)$', '{pendingdelete,pending-delete,redemptionperiod,redemption-no-provider}',
   '^Registrar\s*\n\s+Organization:\s*(.+)$', '^Expire Date:\s*(.+)$', 'utf-8',
   'whois.nic.it: rfc1036/whois, php-whois; "Status: AVAILABLE", pendingDelete / redemptionPeriod / PENDING-DELETE / REDEMPTION-NO-PROVIDER and "Service temporarily unavailable": weppos fixtures; likexian testdata.'),
  ('jp', 'whois.jprs.jp', 43, '%s/e', 'jprs.jp',
   '^No match!!$', '^(?:[a-z]\. )?\[Domain Name\]\s+\S', 'exceeded|too many',
   '^\[(?:Status|State)\]\s+(.+?)(?:\s+\(.*\))?$', '{to be suspended,deleted}', null,
   '^\[Expires on\]\s+(.+)$', 'utf-8',
   'whois.jprs.jp with "/e" (English): rfc1036/whois, php-whois queryFormat; "No match!!", [Status]/[State] words: weppos fixtures, php-whois, likexian testdata.'),
  ('kr', 'whois.kr', 43, '%s', 'kisa.or.kr',
   '(The requested domain was not found in the Registry or Registrar.s WHOIS Server\.|Above domain name is not registered to KRNIC\.)$',
   '^Domain Name\s+:\s*\S+\.kr$', 'exceeded|too many',
   null, '{}', '^Authorized Agency\s+:\s*(.+)$', '^Expiration Date\s+:\s*(.+)$', 'utf-8',
   'whois.kr (KISA): rfc1036/whois, php-whois; not-found texts: php-whois free.txt, likexian testdata (2022), weppos (older).'),
  ('kz', 'whois.nic.kz', 43, '%s', 'nic.kz',
   '^\*\*\* Nothing found for this query\.$', '^Domain Name\.+:\s*\S+\.kz$', 'exceeded|too many',
   '^Domain status\s*:\s*(\S+)', '{}', null, null, 'utf-8',
   'whois.nic.kz: rfc1036/whois, php-whois; "*** Nothing found for this query.": weppos, php-whois free.txt, likexian testdata.'),
  ('mx', 'whois.mx', 43, '%s', 'nic.mx',
   '^No_Se_Encontro_El_Objeto/Object_Not_Found$', '^Domain Name:\s+\S+\.mx$', 'exceeded|too many',
   null, '{}', '^Registrar:\s*(.+)$', '^Expiration Date:\s*(.+)$', 'utf-8',
   'whois.mx: rfc1036/whois, php-whois; "No_Se_Encontro_El_Objeto/Object_Not_Found": weppos, php-whois free.txt.'),
  ('net.za', 'net-whois.registry.net.za', 43, '%s', 'registry.net.za',
   '^Available$', '^Domain Name:\s+\S+\.net\.za$', 'Please go away for \d+ Seconds',
   '^Domain Status:\s*(\S+)', '{pendingdelete,redemptionperiod}', '^(?:Sponsoring )?Registrar:\s*(.+)$',
   '^Registry Expiry Date:\s*(.+)$', 'utf-8',
   'ZACR net.za WHOIS: rfc1036/whois tld_serv_list (.net.za); phrasings as co.za (same registry software).'),
  ('nz', 'whois.irs.net.nz', 43, '%s', 'internetnz.nz',
   '^query_status:\s*220 Available$', '^query_status:\s*(200 Active|210 PendingRelease)$',
   '^query_status:\s*440 Request Denied$|exceeded',
   '^query_status:\s*(.+)$', '{210 pendingrelease}', '^registrar_name:\s*(.+)$',
   '^domain_datebilleduntil:\s*(.+)$', 'utf-8',
   'whois.irs.net.nz (formerly whois.srs.net.nz): rfc1036/whois (2026-02), php-whois; query_status 220/200/210/440: weppos fixtures, php-whois, likexian testdata 2022.'),
  ('org.za', 'org-whois.registry.net.za', 43, '%s', 'zadna.org.za',
   '^Available$', '^Domain Name:\s+\S+\.org\.za$', 'Please go away for \d+ Seconds',
   '^Domain Status:\s*(\S+)', '{pendingdelete,redemptionperiod}', '^(?:Sponsoring )?Registrar:\s*(.+)$',
   '^Registry Expiry Date:\s*(.+)$', 'utf-8',
   'ZACR org.za WHOIS: rfc1036/whois tld_serv_list (.org.za), weppos org-whois parser; phrasings as co.za.'),
  ('pt', 'whois.dns.pt', 43, '%s', 'dns.pt',
   '^\S+\.pt no match$', 'Domain Name:\s*\S+\.pt$', 'exceeded|too many',
   '^Estado / Status:\s*(.+)$', '{}', null, 'Expiration Date \(dd/mm/yyyy\):\s*(.+)$', 'utf-8',
   'whois.dns.pt: rfc1036/whois, php-whois; "<name> no match": weppos fixture, HostBill, Net::Whois-style lists ("no match").'),
  ('ro', 'whois.rotld.ro', 43, '%s', 'rotld.ro',
   '^% No entries found for the selected source\(s\)\.$', '^\s*Domain Name:\s*\S+\.ro$', 'exceeded|too many',
   '^\s*Domain Status:\s*(.+)$', '{}', '^\s*Registrar:\s*(.+)$', '^\s*Expires On:\s*(.+)$', 'utf-8',
   'whois.rotld.ro: rfc1036/whois, php-whois; phrasings: php-whois free.txt and google.ro, likexian testdata, weppos.'),
  ('ru', 'whois.tcinet.ru', 43, '%s', 'tcinet.ru',
   '^No entries found for the selected source\(s\)\.$', '^domain:\s+\S+\.RU$', 'exceeded allowed connection rate|too many',
   '^state:\s*(.+)$', '{}', '^registrar:\s*(.+)$', '^paid-till:\s*(.+)$', 'utf-8',
   'whois.tcinet.ru: rfc1036/whois, php-whois; phrasings: weppos, php-whois free.txt and google.ru, likexian testdata 2021-2022.'),
  ('se', 'whois.iis.se', 43, '%s', 'iis.se',
   '^(domain )?"[^"]+" not found\.$', '^domain:\s+\S+\.se$', 'exceeded|too many',
   '^(?:state|status):\s*(.+)$', '{deactivated}', '^registrar:\s*(.+)$', '^expires:\s*(.+)$', 'utf-8',
   'whois.iis.se: rfc1036/whois, php-whois; not-found text: likexian testdata 2022, php-whois free.txt, weppos (older form); state deactivated: weppos fixture.'),
  ('tr', 'whois.trabis.gov.tr', 43, '%s', 'trabis.gov.tr',
   '^No match found for "[^"]+"$', '^\*\* Domain Name:\s*\S+\.tr$', 'exceeded|too many',
   null, '{}', null, '^Expires on\.+:\s*(.+)$', 'utf-8',
   'whois.trabis.gov.tr (TRABIS took over from whois.nic.tr): rfc1036/whois (2026-02); phrasings from the nic.tr era: weppos fixtures, php-whois google.com.tr (the canary proof checks them daily).')
on conflict (suffix) do nothing;

-- Registries without a usable public WHOIS: listed so that the coverage report and operators see why.
insert into public.whois_servers (suffix, host, unsupported_reason, source) values
  ('es', null, 'Port 43 answers only IP addresses authorised by Red.es (one per organisation); the public lookup is web-only.',
   'Red.es terms as served on whois.nic.es (php-whois free.txt); rfc1036/whois lists .es as WEB.'),
  ('gr', null, 'No port-43 service: the registry (FORTH-ICS) offers WHOIS on the web only.',
   'rfc1036/whois tld_serv_list: .gr WEB https://grweb.ics.forth.gr/public/whois; no WHOIS server in php-whois.'),
  ('vn', null, 'No public port-43 service: VNNIC offers WHOIS on the web only.',
   'rfc1036/whois tld_serv_list: .vn WEB; Net::Whois::Raw lists VN as web-only; no WHOIS server in php-whois.')
on conflict (suffix) do nothing;
