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
   '^% nothing found$', '^domain:\s+[a-z0-9.-]+\.at$', '^%\s*(?:Error: )?(?:Quota exceeded|Query rate limit exceeded|Too many queries)\b.*$',
   null, '{}', '^registrar:\s*(.+?)(?:\s+\(.*\))?$', null, 'utf-8',
   'whois.nic.at: rfc1036/whois tld_serv_list (2026-02), php-whois servers; "% nothing found": weppos fixture status_available, php-whois free.txt, HostBill.'),
  ('au', 'whois.auda.org.au', 43, '%s', 'auda.org.au',
   '^(NOT FOUND|No Data Found)$', '^Domain Name:\s+\S+\.au$',
   '^(?:BLACKLISTED|Maximum Daily connection limit reached|Query limit exceeded|Too many queries)\b.*$',
   '^Status:\s*(\S+)', '{pendingdelete}', '^Registrar Name:\s*(.+)$', null, 'utf-8',
   'whois.auda.org.au (every .au second level): rfc1036/whois tld_serv_list, HostBill (com.au, net.au, org.au, asn.au, id.au); "NOT FOUND": likexian testdata 2022, HostBill; "No Data Found" (older server): weppos, php-whois.'),
  ('be', 'whois.dns.be', 43, '%s', 'dnsbelgium.be',
   '^Status:\s*AVAILABLE$', '^Status:\s*(NOT AVAILABLE|QUARANTINE)$',
   '^% (?:Excessive querying, grace period of \d+ seconds?|Maximum queries per hour reached(?: \(\d+\))?)$',
   '^Status:\s*(.+)$', '{quarantine}', '^Registrar:\s*\n\s+Name:\s*(.+)$', null, 'utf-8',
   'whois.dns.be: rfc1036/whois, php-whois; AVAILABLE / NOT AVAILABLE / QUARANTINE and both limit texts: weppos fixtures (status_*, property_status_quarantine, response_throttled_*), php-whois google.be, HostBill.'),
  ('cn', 'whois.cnnic.cn', 43, '%s', 'cnnic.cn',
   '^No matching record\.?$', '^Domain Name:\s*\S+\.cn$',
   '^(?:You have exceeded the query limit|Your connection limit exceeded|Too many (?:queries|connections))\b.*$',
   '^Domain Status:\s*(\S+)', '{pendingdelete,redemptionperiod}', '^Sponsoring Registrar:\s*(.+)$',
   '^Expiration Time:\s*(.+)$', 'utf-8',
   'whois.cnnic.cn: rfc1036/whois, php-whois; "No matching record.": php-whois free.txt, likexian testdata, weppos, HostBill; UTF-8 per rfc1036 servers_charset_list.'),
  ('co.za', 'whois.registry.net.za', 43, '%s', 'google.co.za',
   '^Available$', '^Domain Name:\s+\S+\.co\.za$', '^Please go away for \d+ Seconds?$',
   '^Domain Status:\s*(\S+)', '{pendingdelete,redemptionperiod}', '^(?:Sponsoring )?Registrar:\s*(.+)$',
   '^Registry Expiry Date:\s*(.+)$', 'utf-8',
   'ZACR co.za WHOIS: rfc1036/whois tld_serv_list (.co.za), HostBill; "Available", the throttle text and the EPP-style record: weppos coza-whois fixtures.'),
  ('dk', 'whois.punktum.dk', 43, '%s', 'punktum.dk',
   '^No entries found for the selected source\.$', '^Domain:\s+\S+\.dk$',
   '^#?\s*(?:Too many connections|Query limit exceeded)\b.*$',
   '^Status:\s*(.+)$', '{deactivated}', '^Registrar:\s*(.+)$', '^Expires:\s*(.+)$', 'latin-1',
   'whois.punktum.dk (formerly whois.dk-hostmaster.dk): rfc1036/whois (2026-02; asks --charset=utf-8, so the default is Latin-1), php-whois; phrasings and "Deactivated": weppos fixtures, likexian testdata 2023.'),
  ('eu', 'whois.eu', 43, '%s', 'eurid.eu',
   '^Status:\s*AVAILABLE$', '^Registrar:\s*\n\s+Name:', '^(?:-1: )?(?:Still in grace period|Excessive querying)\b.*$',
   null, '{}', '^Registrar:\s*\n\s+Name:\s*(.+)$', null, 'utf-8',
   'whois.eu: rfc1036/whois, php-whois; "Status: AVAILABLE", the registrar block and "-1: Still in grace period": weppos fixtures, likexian testdata, php-whois google.eu.'),
  ('gg', 'whois.gg', 43, '%s', 'google.gg',
   '^(NOT FOUND|Domain Status:\s*Available)$', '^(?:Domain:\s*\n\s+\S+\.gg|Domain Status:\s*(?!Available$)\S.*)$',
   '^(?:Access (?:restricted|denied)|Rate limit exceeded|Too many (?:queries|requests))\b.*$',
   null, '{}', '^Registrar:\s*\n\s+(.+?)(?:\s+\(.*\))?$', null, 'utf-8',
   'whois.gg (CIDR): rfc1036/whois, php-whois; "NOT FOUND": php-whois free.txt; record layout: php-whois google.gg, likexian testdata 2024; older EPP-style record ("Domain Status: ok") and "Domain Status: Available": weppos 2014 (its footer''s "make excessive queries" is no limit notice).'),
  ('hu', 'whois.nic.hu', 43, '%s', 'nic.hu',
   '^Nincs tal\S{1,2}lat / No match$', '^domain:\s+\S+\.hu$', '^%?\s*(?:Query limit exceeded|Too many (?:queries|requests))\b.*$',
   null, '{}', null, null, 'latin-1',
   'whois.nic.hu: rfc1036/whois (ISO-8859-1 per servers_charset_list), php-whois; "Nincs találat / No match": weppos, php-whois free.txt, likexian testdata.'),
  ('ir', 'whois.nic.ir', 43, '%s', 'nic.ir',
   '^%ERROR:101: no entries found$', '^domain:\s+\S+\.ir$', '^%ERROR:(?!101:)\d+:.*$',
   null, '{}', null, '^expire-date:\s*(.+)$', 'utf-8',
   'whois.nic.ir: rfc1036/whois, php-whois; "%ERROR:101: no entries found": weppos, php-whois free.txt, likexian testdata; record: php-whois mhf.ir.'),
  ('it', 'whois.nic.it', 43, '%s', 'nic.it',
   '^Status:\s*AVAILABLE$', '^Status:\s*(?!AVAILABLE\s*$)\S',
   '^(?:Service temporarily unavailable|Excessive querying)\b.*$',
   '^Status:\s*(.+)$', '{pendingdelete,pending-delete,redemptionperiod,redemption-no-provider}',
   '^Registrar\s*\n\s+Organization:\s*(.+)$', '^Expire Date:\s*(.+)$', 'utf-8',
   'whois.nic.it: rfc1036/whois, php-whois; "Status: AVAILABLE", pendingDelete / redemptionPeriod / PENDING-DELETE / REDEMPTION-NO-PROVIDER and "Service temporarily unavailable": weppos fixtures; likexian testdata.'),
  ('jp', 'whois.jprs.jp', 43, '%s/e', 'jprs.jp',
   '^No match!!$', '^(?:[a-z]\. )?\[(?:Domain Name|ドメイン名)\]\s+\S',
   '^%*\s*(?:Query rejected|Query limit exceeded|Too many (?:queries|requests))\b.*$',
   '^\[(?:Status|State)\]\s+(.+?)(?:\s+\(.*\))?$', '{to be suspended,deleted}', null,
   '^\[Expires on\]\s+(.+)$', 'utf-8',
   'whois.jprs.jp with "/e" (English; the Japanese record is read too): rfc1036/whois, php-whois queryFormat; "No match!!", [Status]/[State] words: weppos fixtures, php-whois, likexian testdata.'),
  ('kr', 'whois.kr', 43, '%s', 'kisa.or.kr',
   '(The requested domain was not found in the Registry or Registrar.s WHOIS Server\.|Above domain name is not registered to KRNIC\.)$',
   '^Domain Name\s+:\s*\S+\.kr$', '^(?:Query limit exceeded|Too many (?:queries|requests))\b.*$',
   null, '{}', '^Authorized Agency\s+:\s*(.+)$', '^Expiration Date\s+:\s*(.+)$', 'utf-8',
   'whois.kr (KISA): rfc1036/whois, php-whois; not-found texts: php-whois free.txt, likexian testdata (2022), weppos (older).'),
  ('kz', 'whois.nic.kz', 43, '%s', 'nic.kz',
   '^\*\*\* Nothing found for this query\.$', '^Domain Name\.+:\s*\S+\.kz$',
   '^(?:Query limit exceeded|Too many (?:queries|requests))\b.*$',
   '^Domain status\s*:\s*(\S+)', '{}', null, null, 'utf-8',
   'whois.nic.kz: rfc1036/whois, php-whois; "*** Nothing found for this query.": weppos, php-whois free.txt, likexian testdata.'),
  ('mx', 'whois.mx', 43, '%s', 'nic.mx',
   '^No_Se_Encontro_El_Objeto/Object_Not_Found$', '^Domain Name:\s+\S+\.mx$',
   '^(?:Limite de consultas excedido|Query limit exceeded|Too many (?:queries|requests))\b.*$',
   null, '{}', '^Registrar:\s*(.+)$', '^Expiration Date:\s*(.+)$', 'utf-8',
   'whois.mx: rfc1036/whois, php-whois; "No_Se_Encontro_El_Objeto/Object_Not_Found": weppos, php-whois free.txt.'),
  ('net.za', 'net-whois.registry.net.za', 43, '%s', 'registry.net.za',
   '^Available$', '^Domain Name:\s+\S+\.net\.za$', '^Please go away for \d+ Seconds?$',
   '^Domain Status:\s*(\S+)', '{pendingdelete,redemptionperiod}', '^(?:Sponsoring )?Registrar:\s*(.+)$',
   '^Registry Expiry Date:\s*(.+)$', 'utf-8',
   'ZACR net.za WHOIS: rfc1036/whois tld_serv_list (.net.za); phrasings as co.za (same registry software).'),
  ('nz', 'whois.irs.net.nz', 43, '%s', 'internetnz.nz',
   '^(?:query_status:\s*220 Available|Not found:\s*\S+\.nz)$',
   '^(?:query_status:\s*(?:200 Active|210 PendingRelease)|Domain Name:\s*\S+\.nz)$',
   '^(?:query_status:\s*440 Request Denied|Query limit exceeded|Too many (?:queries|requests))\b.*$',
   '^(?:query_status|Domain Status):\s*(\d{3} \S+|\S+)', '{210 pendingrelease,pendingdelete,redemptionperiod}',
   '^(?:registrar_name|Registrar):\s*(.+)$', '^(?:domain_datebilleduntil|Registry Expiry Date):\s*(.+)$', 'utf-8',
   'whois.irs.net.nz (formerly whois.srs.net.nz): rfc1036/whois (2026-02), php-whois; 2025-26 records ("Domain Name:", Registrar, Domain Status) and "Not found: <name>": flipbit/whois samples (2026-07), richardpenman/whois yahoo.co.nz (2025-09); older query_status 220/200/210/440: weppos fixtures, php-whois, likexian testdata 2022.'),
  ('org.za', 'org-whois.registry.net.za', 43, '%s', 'zadna.org.za',
   '^Available$', '^Domain Name:\s+\S+\.org\.za$', '^Please go away for \d+ Seconds?$',
   '^Domain Status:\s*(\S+)', '{pendingdelete,redemptionperiod}', '^(?:Sponsoring )?Registrar:\s*(.+)$',
   '^Registry Expiry Date:\s*(.+)$', 'utf-8',
   'ZACR org.za WHOIS: rfc1036/whois tld_serv_list (.org.za), weppos org-whois parser; phrasings as co.za.'),
  -- ac.uk and gov.uk: run by Jisc, not by Nominet (whose RDAP serves .uk): their names are read here, never
  -- at the .uk server (docs/whois.md "Zones with their own servers").
  ('ac.uk', 'whois.nic.ac.uk', 43, '%s', 'jisc.ac.uk',
   '^No such domain \S+\.ac\.uk$', '^Domain:\s*\n\s+\S+\.ac\.uk$',
   '^(?:Query limit exceeded|Too many (?:queries|requests))\b.*$',
   null, '{}', '^Registered By:\s*\n\s+(.+)$', null, 'utf-8',
   'Jisc (ac.uk): whois.nic.ac.uk per rfc1036/whois tld_serv_list (since 2022; formerly whois.ja.net); "No such domain <name>" and the Domain:/Registered By: record: weppos and flipbit/whois whois.ja.net fixtures (the canary proof checks them daily).'),
  ('gov.uk', 'whois.gov.uk', 43, '%s', 'hmrc.gov.uk',
   '^No such domain \S+\.gov\.uk$', '^Domain:\s*\n\s+\S+\.gov\.uk$',
   '^(?:Query limit exceeded|Too many (?:queries|requests))\b.*$',
   null, '{}', '^Registered By:\s*\n\s+(.+)$', null, 'utf-8',
   'Jisc (gov.uk): whois.gov.uk per rfc1036/whois tld_serv_list (since 2022; formerly whois.ja.net); "No such domain <name>" and the record (direct.gov.uk): weppos whois.ja.net fixtures (the canary proof checks them daily).'),
  -- gov.za: its own server (ZACR does not hold it); other za zones without a row have no route.
  ('gov.za', 'whois.gov.za', 43, '%s', 'dha.gov.za',
   '^No match found for \S+\.gov\.za$', '^1a\.\s+Domain Name :\s*\S+\.gov\.za$',
   '^(?:Query limit exceeded|Too many (?:queries|requests))\b.*$',
   null, '{}', null, null, 'utf-8',
   'whois.gov.za: rfc1036/whois tld_serv_list (.gov.za); "No match found for <name>" and the numbered record: weppos and flipbit/whois whois.gov.za fixtures.'),
  -- priv.at: a second-level zone whose names whois.nic.at does not hold (it answers "nothing found").
  ('priv.at', 'whois.nic.priv.at', 43, '%s', 'nic.priv.at',
   '^% No entries found for the selected source\(s\)\.$', '^domain:\s+\S+\.priv\.at$',
   '^%?\s*(?:Query limit exceeded|Too many (?:queries|requests))\b.*$',
   null, '{}', null, null, 'utf-8',
   'whois.nic.priv.at (VIBE!AT runs priv.at): rfc1036/whois tld_serv_list (.priv.at), weppos server list; "% No entries found for the selected source(s)." and the RIPE-style record of nic.priv.at: weppos whois.nic.priv.at fixtures.'),
  ('pt', 'whois.dns.pt', 43, '%s', 'dns.pt',
   '^\S+\.pt(?: -)? no match$', '^(?:Nome de dom\S{1,2}nio / Domain Name|Domain):\s*\S+\.pt$',
   '^(?:Query limit exceeded|Too many (?:queries|requests))\b.*$',
   '^(?:Estado / Status|Domain Status):\s*(.+)$', '{}', null,
   '^(?:Data de expira\S+ / )?Expiration Date(?: \(dd/mm/yyyy\))?:\s*(.+)$', 'utf-8',
   'whois.dns.pt: rfc1036/whois, php-whois; today''s "Domain: <name>" / "Domain Status: Registered" records and "<name> - No Match": flipbit/whois samples (2026-07), richardpenman/whois sapo.pt; the older bilingual record and "<name> no match": weppos fixtures, HostBill.'),
  ('ro', 'whois.rotld.ro', 43, '%s', 'rotld.ro',
   '^% No entries found for the selected source\(s\)\.$', '^\s*Domain Name:\s*\S+\.ro$',
   '^%?\s*(?:Query limit exceeded|Too many (?:queries|requests))\b.*$',
   '^\s*Domain Status:\s*(.+)$', '{}', '^\s*Registrar:\s*(.+)$', '^\s*Expires On:\s*(.+)$', 'utf-8',
   'whois.rotld.ro: rfc1036/whois, php-whois; phrasings: php-whois free.txt and google.ro, likexian testdata, weppos.'),
  ('ru', 'whois.tcinet.ru', 43, '%s', 'tcinet.ru',
   '^No entries found for the selected source\(s\)\.$', '^domain:\s+\S+\.RU$',
   '^(?:You have exceeded allowed connection rate|Too many (?:queries|requests|connections))\b.*$',
   '^state:\s*(.+)$', '{}', '^registrar:\s*(.+)$', '^paid-till:\s*(.+)$', 'utf-8',
   'whois.tcinet.ru: rfc1036/whois, php-whois; phrasings: weppos, php-whois free.txt and google.ru, likexian testdata 2021-2022.'),
  ('se', 'whois.iis.se', 43, '%s', 'iis.se',
   '^(domain )?"[^"]+" not found\.$', '^domain:\s+\S+\.se(?:\s+\([^)]+\))?$',
   '^#?\s*(?:Query limit exceeded|Too many (?:queries|requests))\b.*$',
   '^(?:state|status):\s*(.+)$', '{deactivated}', '^registrar:\s*(.+)$', '^expires:\s*(.+)$', 'utf-8',
   'whois.iis.se: rfc1036/whois, php-whois; not-found text: likexian testdata 2022, php-whois free.txt, weppos (older form); IDN records "domain: xn--fl-fka.se (föl.se)": likexian testdata 2023, php-whois; state deactivated: weppos fixture.'),
  ('tr', 'whois.trabis.gov.tr', 43, '%s', 'trabis.gov.tr',
   '^No match found for "[^"]+"$', '^\*\* (?:Domain Name:\s*\S+\.tr|Registrant:)$',
   '^(?:Query limit exceeded|Too many (?:queries|requests))\b.*$',
   null, '{}', null, '^Expires on\.+:\s*(.+)$', 'utf-8',
   'whois.trabis.gov.tr (TRABIS took over from whois.nic.tr): rfc1036/whois (2026-02); phrasings from the nic.tr era: weppos fixtures, php-whois google.com.tr, richardpenman/whois google.com.tr (2025; records without "** Domain Name:" start at "** Registrant:"; the canary proof checks them daily).')
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

-- Second-level zones with their own WHOIS servers, whose phrasings no public capture shows: the TLD's
-- server answers "not found" for their names (a false available), so a name under one is never read under
-- the TLD's row. Listed without a host, names under them are refused when added and live checks answer
-- unsupported_zone (private.whois_unsupported_zone; docs/whois.md "Zones with their own servers").
insert into public.whois_servers (suffix, host, unsupported_reason, source) values
  ('com.ru', null, 'com.ru has its own WHOIS server (whois.flexireg.net); whois.tcinet.ru does not hold its names and no public capture shows its phrasings.',
   'rfc1036/whois tld_serv_list and Net::Whois::Raw (.com.ru whois.flexireg.net); issue 34.'),
  ('msk.ru', null, 'msk.ru has its own WHOIS server (whois.flexireg.net); whois.tcinet.ru does not hold its names and no public capture shows its phrasings.',
   'rfc1036/whois tld_serv_list (.msk.ru whois.flexireg.net); issue 34.'),
  ('spb.ru', null, 'spb.ru has its own WHOIS server (whois.flexireg.net); whois.tcinet.ru does not hold its names and no public capture shows its phrasings.',
   'rfc1036/whois tld_serv_list (.spb.ru whois.flexireg.net); issue 34.'),
  ('nov.ru', null, 'nov.ru has its own WHOIS server (whois.flexireg.net); whois.tcinet.ru does not hold its names and no public capture shows its phrasings.',
   'rfc1036/whois tld_serv_list (.nov.ru whois.flexireg.net); issue 34.'),
  ('net.ru', null, 'net.ru has its own WHOIS server (whois.nic.net.ru); whois.tcinet.ru does not hold its names and no public capture shows its phrasings.',
   'rfc1036/whois tld_serv_list and Net::Whois::Raw (NET.RU whois.nic.net.ru); issue 34.'),
  ('org.ru', null, 'org.ru has its own WHOIS server (whois.nic.net.ru); whois.tcinet.ru does not hold its names and no public capture shows its phrasings.',
   'rfc1036/whois tld_serv_list and Net::Whois::Raw (ORG.RU whois.nic.net.ru); issue 34.'),
  ('pp.ru', null, 'pp.ru has its own WHOIS server (whois.nic.net.ru); whois.tcinet.ru does not hold its names and no public capture shows its phrasings.',
   'rfc1036/whois tld_serv_list and Net::Whois::Raw (PP.RU whois.nic.net.ru); issue 34.'),
  ('ac.ru', null, 'ac.ru has its own WHOIS server (whois.free.net); whois.tcinet.ru does not hold its names and no public capture shows its phrasings.',
   'rfc1036/whois tld_serv_list (.ac.ru whois.free.net).'),
  ('edu.ru', null, 'edu.ru has its own WHOIS server (whois.informika.ru); whois.tcinet.ru does not hold its names and no public capture shows its phrasings.',
   'rfc1036/whois tld_serv_list (.edu.ru whois.informika.ru).'),
  ('edu.cn', null, 'edu.cn has its own WHOIS server (whois.edu.cn, CERNET); whois.cnnic.cn does not hold its names and no public capture shows its phrasings.',
   'rfc1036/whois tld_serv_list, weppos and php-whois server lists (.edu.cn whois.edu.cn); issue 34.')
on conflict (suffix) do nothing;

-- ---------------------------------------------------------------------------------------------------
-- The route lookup and the zone rule in SQL (mirrors of whois/server_table.ts findWhoisEntry and
-- unsupportedZone; parity: tests/integration/whois_rows.test.ts). A row covers the names under its suffix,
-- never the suffix itself (com.ru is a .ru name; example.com.ru is under the com.ru zone).
-- ---------------------------------------------------------------------------------------------------
create function private.whois_row_suffix(p_domain_name text)
returns text
language sql
stable
security definer
set search_path = ''
as $$
  with labels as (
    select string_to_array(lower(p_domain_name), '.') as l
  )
  select w.suffix
    from labels
   cross join lateral generate_series(1, cardinality(labels.l) - 1) as k (k)
    join public.whois_servers as w
      on w.suffix = array_to_string(labels.l[cardinality(labels.l) - k.k + 1:], '.')
   where w.enabled
   order by k.k desc
   limit 1
$$;

comment on function private.whois_row_suffix(text) is
  'The whois_servers row (enabled) whose suffix is the longest proper suffix of whole labels of the name, or null.';

create function private.whois_unsupported_zone(p_domain_name text)
returns text
language sql
stable
security definer
set search_path = ''
as $$
  select w.suffix
    from public.whois_servers as w
   where w.suffix = (select private.whois_row_suffix(p_domain_name))
     and w.host is null
     and strpos(w.suffix, '.') > 0
$$;

comment on function private.whois_unsupported_zone(text) is
  'The second-level (or deeper) zone a name is under when that zone has its own WHOIS server this service '
  'cannot read (a whois_servers row without host), else null. Such names are refused (unsupported_zone).';

revoke all on function private.whois_row_suffix(text) from public, anon, authenticated, service_role;
revoke all on function private.whois_unsupported_zone(text) from public, anon, authenticated, service_role;
grant execute on function private.whois_row_suffix(text) to service_role;
grant execute on function private.whois_unsupported_zone(text) to service_role;

-- The database holds the rule: no name under such a zone becomes a watched name, whatever path adds it
-- (add_watchlist_domains, organisation watchlists, direct calls). DW400 is a 400 invalid_request whose
-- sentence names the zone and says unsupported_zone.
create function private.domains_refuse_unsupported_zone()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_name text;
  v_zone text;
begin
  -- Each new name's WHOIS row (the longest enabled suffix of whole labels, as whois_row_suffix), by
  -- primary key; refused when that row is a zone without a server.
  select n.name, r.suffix
    into v_name, v_zone
    from new_domains as n
   cross join lateral (
     select w.suffix, w.host
       from generate_series(1, cardinality(string_to_array(n.name, '.')) - 1) as k (k)
       join public.whois_servers as w
         on w.suffix = array_to_string((string_to_array(n.name, '.'))[
              cardinality(string_to_array(n.name, '.')) - k.k + 1:], '.')
      where w.enabled
      order by k.k desc
      limit 1
   ) as r
   where r.host is null
     and strpos(r.suffix, '.') > 0
   order by n.name
   limit 1;
  if v_zone is not null then
    raise exception using errcode = 'DW400',
      message = format('DW400: %s is under %s, a zone with its own WHOIS server that this service cannot read '
        '(unsupported_zone); it cannot be watched.', v_name, v_zone);
  end if;
  return null;
end;
$$;

revoke all on function private.domains_refuse_unsupported_zone() from public, anon, authenticated, service_role;

create trigger domains_refuse_unsupported_zone
  after insert on public.domains
  referencing new table as new_domains
  for each statement execute function private.domains_refuse_unsupported_zone();
