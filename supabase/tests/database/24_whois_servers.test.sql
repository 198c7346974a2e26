-- The shipped WHOIS server table (whois_servers), its access rules, the whois_host limiter class, and the
-- zone rule: names under a zone with its own WHOIS server this service cannot read are refused.
\ir _setup.psql

select plan(23);

select has_table('public', 'whois_servers', 'the WHOIS server table exists');
select is((select count(*)::int from public.whois_servers where host is not null), 27,
  '27 shipped WHOIS rows (za by co.za, net.za and org.za; priv.at, ac.uk, gov.uk, gov.za by their own servers)');
select is((select string_agg(suffix, ' ' order by suffix) from public.whois_servers where host is null and suffix !~ '\.'),
  'es gr vn', 'es, gr and vn are listed as unsupported');
select is((select string_agg(suffix, ' ' order by suffix) from public.whois_servers where host is null and suffix ~ '\.'),
  'ac.ru com.ru edu.cn edu.ru msk.ru net.ru nov.ru org.ru pp.ru spb.ru',
  'the zones with their own servers whose phrasings are not sourced are listed without a host');
select is_empty(
  $$ select suffix from public.whois_servers
      where host is null and (unsupported_reason is null or length(unsupported_reason) < 20) $$,
  'every unsupported registry says why');
select is_empty(
  $$ select suffix from public.whois_servers
      where host is not null and (canary_name is null or not_found_pattern is null or found_pattern is null
                                  or length(source) < 20 or port <> 43) $$,
  'every route has a canary, its not-found and found phrasings, port 43 and a source');
select is_empty(
  $$ select w.suffix from public.whois_servers as w
      join public.rdap_server_overrides as o on o.suffix = w.suffix and o.base_url is not null $$,
  'no shipped WHOIS row for a suffix the shipped RDAP list serves (RDAP wins)');
select is((select query_format from public.whois_servers where suffix = 'jp'), '%s/e',
  'JPRS is asked for English answers');
select lives_ok(
  $$ insert into public.whois_servers (suffix, host, canary_name, not_found_pattern, found_pattern, source)
     values ('zz', 'whois.nic.zz', 'nic.zz', 'x', 'y', 'test') $$,
  'an operator can add a complete row');
select throws_ok(
  $$ insert into public.whois_servers (suffix, host, source) values ('yy', 'whois.nic.yy', 'test') $$,
  '23514', null, 'a route without a canary and phrasings is refused');
select throws_ok(
  $$ insert into public.whois_servers (suffix, host, canary_name, not_found_pattern, found_pattern, query_format, source)
     values ('xx', 'whois.nic.xx', 'nic.xx', 'x', 'y', 'no placeholder', 'test') $$,
  '23514', null, 'a query format without %s is refused');

-- Access: service_role only.
set local role authenticated;
select throws_ok($$ select * from public.whois_servers $$, '42501', null, 'authenticated cannot read the table');
reset role;
set local role service_role;
select lives_ok($$ select * from public.whois_servers $$, 'service_role reads the table');
reset role;

-- The route lookup covers the names under a suffix, never the suffix itself; the zone rule.
select is(private.whois_row_suffix('example.com.ru'), 'com.ru', 'example.com.ru is read under the com.ru zone');
select is(private.whois_row_suffix('com.ru'), 'ru', 'com.ru itself is a .ru name');
select is(private.whois_row_suffix('example.priv.at'), 'priv.at', 'priv.at names go to whois.nic.priv.at');
select is(private.whois_row_suffix('example.ac.uk'), 'ac.uk', 'ac.uk names go to Jisc, not to the .uk registry');
select is(private.whois_unsupported_zone('Example.EDU.CN'), 'edu.cn', 'a name under edu.cn is under an unsupported zone');
select is(private.whois_unsupported_zone('example.es'), null, 'an unsupported TLD is not a zone');
select is(private.whois_unsupported_zone('edu.cn'), null, 'edu.cn itself is a .cn name');

select tests.create_user('zone@example.com');
select tests.authenticate_as('zone@example.com');
select throws_ok($$ select * from public.add_watchlist_domains(array['example.cn', 'example.edu.cn']) $$,
  'DW400', 'DW400: example.edu.cn is under edu.cn, a zone with its own WHOIS server that this service cannot read (unsupported_zone); it cannot be watched.',
  'adding a name under an unsupported zone is refused (400)');
select lives_ok($$ select * from public.add_watchlist_domains(array['example.cn']) $$,
  'a name under the TLD is still added');
select tests.clear_authentication();

select is((select (rate_per_second, concurrency)::text from public.rate_limit_classes where class = 'whois_host'),
  '(0.2,1)', 'WHOIS hosts: one query every 5 s, one at a time');

select * from tests.finish();
rollback;
