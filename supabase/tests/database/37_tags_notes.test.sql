-- Tags and notes per watched name (set_watchlist_details, tag_watchlist_domains; the limits held by the
-- table too), the tag filter, undo by adding a removed name again, list_watchlist's columns, and the app's
-- daily allowance of live checks (plans.app_checks_per_day, private.consume_app_check).
\ir _setup.psql

select plan(35);

select tests.create_user('tn-tina@test.local', 'pro') as tina \gset
select tests.create_user('tn-ulf@test.local', 'free') as ulf \gset

-- Privileges -------------------------------------------------------------------------------------------
select ok(
  has_function_privilege('authenticated', 'public.set_watchlist_details(jsonb)', 'EXECUTE')
  and has_function_privilege('authenticated', 'public.tag_watchlist_domains(text[], text[], text[])', 'EXECUTE')
  and not has_function_privilege('anon', 'public.set_watchlist_details(jsonb)', 'EXECUTE')
  and not has_function_privilege('anon', 'public.tag_watchlist_domains(text[], text[], text[])', 'EXECUTE')
  and not has_column_privilege('authenticated', 'public.watchlist_entries', 'tags', 'UPDATE')
  and not has_column_privilege('authenticated', 'public.watchlist_entries', 'note', 'UPDATE'),
  'tags and notes are written only through the two functions');

select tests.authenticate_as('tn-tina@test.local');
select public.add_watchlist_domains(array['one-tn.test', 'two-tn.test', 'three-tn.test']);
select tests.authenticate_as('tn-ulf@test.local');
select public.add_watchlist_domains(array['one-tn.test', 'ulf-tn.test']);
select tests.authenticate_as('tn-tina@test.local');

-- set_watchlist_details ------------------------------------------------------------------------------------
select is(public.set_watchlist_details(
  '[{"domain_name": "One-TN.test.", "tags": [" clients ", "q3", "clients", ""], "note": "  Renew by March  "},
    {"domain_name": "ulf-tn.test", "note": "not mine"}]'),
  '{"updated": 1, "not_watched": ["ulf-tn.test"]}'::jsonb,
  'sets tags and note of the caller''s own name; another account''s name is not touched');
select is((select tags from public.watchlist_entries where user_id = :'tina' and domain_name = 'one-tn.test'),
  array['clients', 'q3'], 'tags trimmed, blank and repeated ones dropped, order kept');
select is((select note from public.watchlist_entries where user_id = :'tina' and domain_name = 'one-tn.test'),
  'Renew by March', 'the note is trimmed');
select is((select note from public.watchlist_entries where user_id = :'ulf' and domain_name = 'ulf-tn.test'),
  null, 'the other account''s entry is unchanged');
select public.set_watchlist_details('[{"domain_name": "one-tn.test", "tags": ["vip"]}]');
select is((select note from public.watchlist_entries where user_id = :'tina' and domain_name = 'one-tn.test'),
  'Renew by March', 'a field left out is left as it is');
select public.set_watchlist_details('[{"domain_name": "one-tn.test", "note": "   "}]');
select is((select note from public.watchlist_entries where user_id = :'tina' and domain_name = 'one-tn.test'),
  null, 'a blank note clears it');

-- The limits: 10 tags, 1–32 characters, no comma, a note of 500; nothing written on any bad item.
select throws_ok($$ select public.set_watchlist_details(
  '[{"domain_name": "two-tn.test", "note": "fine"},
    {"domain_name": "three-tn.test", "tags": ["a","b","c","d","e","f","g","h","i","j","k"]}]') $$,
  'DW400', 'DW400: item 2 (three-tn.test): a name has at most 10 tags.', 'eleven tags are refused, naming the item');
select is((select note from public.watchlist_entries where user_id = :'tina' and domain_name = 'two-tn.test'),
  null, 'and nothing of the request was written');
select throws_ok(format($$ select public.set_watchlist_details('[{"domain_name": "two-tn.test", "tags": [%s]}]') $$,
  to_jsonb(repeat('x', 33))::text), 'DW400', null, 'a tag of 33 characters is refused');
select throws_ok($$ select public.set_watchlist_details('[{"domain_name": "two-tn.test", "tags": ["a,b"]}]') $$,
  'DW400', null, 'a comma in a tag is refused');
select throws_ok(format($$ select public.set_watchlist_details('[{"domain_name": "two-tn.test", "note": %s}]') $$,
  to_jsonb(repeat('n', 501))::text), 'DW400', null, 'a note of 501 characters is refused');
select lives_ok(format($$ select public.set_watchlist_details('[{"domain_name": "two-tn.test", "note": %s}]') $$,
  to_jsonb(repeat('n', 500))::text), 'a note of 500 characters is fine');
select throws_ok($$ select public.set_watchlist_details('[{"domain_name": "two-tn.test", "owner": "x"}]') $$,
  'DW400', null, 'an unknown field is refused');
select throws_ok($$ select public.set_watchlist_details('[]') $$, 'DW400', null, 'an empty list is refused');
select throws_ok($$ select public.set_watchlist_details('{"domain_name": "two-tn.test"}') $$, 'DW400', null,
  'an object instead of a list is refused');

-- The table holds the limits whoever writes.
select tests.clear_authentication();
select throws_ok($$ update public.watchlist_entries set tags = array['a','b','c','d','e','f','g','h','i','j','k']
                    where domain_name = 'two-tn.test' $$, '23514', null, 'the table refuses eleven tags');
select throws_ok($$ update public.watchlist_entries set tags = array['dup', 'dup'] where domain_name = 'two-tn.test' $$,
  '23514', null, 'and a repeated tag');
select throws_ok($$ update public.watchlist_entries set note = '' where domain_name = 'two-tn.test' $$,
  '23514', null, 'and an empty note');
select tests.authenticate_as('tn-tina@test.local');

-- tag_watchlist_domains --------------------------------------------------------------------------------------
select is(public.tag_watchlist_domains(array['one-tn.test', 'two-tn.test', 'ulf-tn.test'], array['q4']), 2,
  'a bulk tag changes the caller''s named entries only');
select is((select array_agg(domain_name order by domain_name) from public.watchlist_entries
            where user_id = :'tina' and 'q4' = any(tags)), array['one-tn.test', 'two-tn.test'], 'both carry it');
select is(public.tag_watchlist_domains(array['one-tn.test', 'two-tn.test'], array['q4']), 0,
  'adding a tag a name has changes nothing');
select is(public.tag_watchlist_domains(array['one-tn.test'], '{}', array['vip']), 1, 'a tag is removed');
select is((select tags from public.watchlist_entries where user_id = :'tina' and domain_name = 'one-tn.test'),
  array['q4'], 'the rest stay');
select public.set_watchlist_details('[{"domain_name": "three-tn.test", "tags": ["1","2","3","4","5","6","7","8","9","10"]}]');
select throws_ok($$ select public.tag_watchlist_domains(array['two-tn.test', 'three-tn.test'], array['new']) $$,
  'DW400', 'DW400: A name has at most 10 tags; these would have more: three-tn.test.',
  'a name that would pass 10 tags refuses the whole bulk tag');
select is((select tags from public.watchlist_entries where user_id = :'tina' and domain_name = 'two-tn.test'),
  array['q4'], 'and nothing was written');

-- The tag filter and the page's fields.
select is((select array_agg(d ->> 'domain_name' order by d ->> 'domain_name')
             from jsonb_array_elements(public.watchlist_page(p_tag => 'q4') -> 'domains') as d),
  array['one-tn.test', 'two-tn.test'], 'the radar filters by tag');
select is(public.domain_detail('one-tn.test') -> 'domain' -> 'tags', '["q4"]'::jsonb, 'the name''s page has its tags');

-- Undo of a removal: adding the name again restores its tags and note.
select public.set_watchlist_details('[{"domain_name": "one-tn.test", "note": "keep me"}]');
select public.remove_watchlist_domain('one-tn.test');
select public.add_watchlist_domains(array['one-tn.test']);
select is((select (tags, note)::text from public.watchlist_entries where user_id = :'tina' and domain_name = 'one-tn.test'),
  '({q4},"keep me")', 'a removed name added again has its tags and note back');

-- list_watchlist (REST and MCP) carries them.
select is((select (tags, note)::text from public.list_watchlist(10) where domain_name = 'one-tn.test'),
  '({q4},"keep me")', 'list_watchlist returns tags and note');

-- Assistants' tokens cannot write them.
select set_config('request.jwt.claims', jsonb_build_object('sub', :'tina', 'role', 'authenticated',
  'client_id', 'assistant-1')::text, true);
select throws_ok($$ select public.set_watchlist_details('[{"domain_name": "two-tn.test", "note": "x"}]') $$,
  '42501', null, 'an assistant''s token cannot set a note');
select throws_ok($$ select public.tag_watchlist_domains(array['two-tn.test'], array['x']) $$,
  '42501', null, 'nor tag names');

-- The app's daily allowance of live checks ---------------------------------------------------------------
select tests.clear_authentication();
select is((select array_agg(coalesce(app_checks_per_day::text, 'shared') order by sort_order) from public.plans),
  array['20', 'shared', 'shared', 'shared'], 'Free has 20 checks a day; Pro and higher share their API limit');
select is((select array_agg(allowed order by n) from generate_series(1, 21) as n,
                  lateral private.consume_app_check(case when n > 0 then :'ulf'::uuid end)),
  array[true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true,
        true, true, false], 'a Free account gets exactly 20 checks a day, then none');
select is((select (check_limit, remaining, shared_with_api)::text from private.consume_app_check(:'tina')),
  '(1000,999,t)', 'a Pro account''s check is one request of its API daily limit');

select * from tests.finish();
rollback;
