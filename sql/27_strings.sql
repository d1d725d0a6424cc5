-- 27_strings: text operations over the dictionary (issue 25, "Strings
-- over the dictionary"): LIKE, NOT LIKE, ILIKE, NOT ILIKE (text, varchar,
-- char(n)), starts_with and ^@, <, <=, >, >= against a text constant in
-- the C collation (and ~<~ in any collation), length, char_length and
-- octet_length, in filters (GpudbScan, GpudbAgg and GpudbSort quals, gpu_*
-- filter text) and in computed columns; lower, upper, substr, left and
-- right of a column as group keys.  Each is evaluated once per
-- dictionary string on the host (a code table) and the device tests codes.
-- Every query: the Gpudb node in its plan, and EXCEPT ALL both ways between
-- gpudb on and off (sql/include/differential.sql); uncached and cached,
-- in one batch and in many (a string first seen in a later batch), with
-- parallel workers (each with its own dictionary).  What cannot be exact
-- keeps PostgreSQL's plan, and gpudb.debug_unsupported says why.
\i sql/include/plan_node_settings.sql

-- t: the default collation; tc: C; v varchar; c char(6).  NULLs, '',
-- LIKE's special characters in the data (%, _, \), multibyte characters
-- (é, ż, 日本語), upper and lower case, leading and trailing blanks,
-- digits after some strings; the rows after 6000 bring strings that no
-- earlier row has ("late..."), so that with 1024-row batches they first
-- appear in a later batch.
CREATE TABLE st (id int8, g int4, t text, tc text COLLATE "C",
                 v varchar(12), c char(6), n int4);
INSERT INTO st
SELECT i, i % 7,
       CASE WHEN i % 17 = 0 THEN NULL
            ELSE (ARRAY['apple', 'Apple', 'APPLE', 'banana', 'b%na', 'a_b', '',
                        'ab', 'abc', 'x\y', 'x\', '100%', 'é', 'éa', 'żółw',
                        'Żółw', 'ünï', '日本語', ' a', 'a ', 'A', 'z'])[1 + i % 22] ||
                 CASE WHEN i % 5 = 0 THEN (i % 4)::text ELSE '' END END,
       CASE WHEN i % 19 = 0 THEN NULL
            ELSE (ARRAY['m', 'a', 'Z', 'ab', 'abc', 'B', 'b', '', 'é', 'zz',
                        '0', '9', '10', ' ', 'a b'])[1 + i % 15] END,
       CASE WHEN i % 23 = 0 THEN NULL
            ELSE (ARRAY['foo', 'Foo', 'FOO%', 'bar', 'bär', '', 'fo_'])[1 + i % 7] END,
       CASE WHEN i % 13 = 0 THEN NULL
            ELSE (ARRAY['ab', 'abc', 'ab  c', 'x', 'é', ' ', 'AB', ''])[1 + i % 8] END,
       i % 5
FROM generate_series(1, 6000) i;
INSERT INTO st
SELECT i, i % 7, 'late' || (i % 13) || CASE WHEN i % 2 = 0 THEN 'é' ELSE '%' END,
       'Late' || (i % 3), 'lateV' || (i % 2), 'late' || (i % 2), i % 5
FROM generate_series(6001, 6400) i;
ANALYZE st;

\i sql/include/differential.sql
\i sql/include/explain_plan.sql

-- the plans: the text operations are device quals and device keys
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE t LIKE 'a%' AND c NOT LIKE 'ab%';
EXPLAIN (COSTS OFF) SELECT id FROM st WHERE tc ILIKE 'AB%' OR starts_with(v, 'fo');
EXPLAIN (COSTS OFF) SELECT id, t FROM st WHERE tc >= 'b' AND tc < 'x' ORDER BY id LIMIT 5;
EXPLAIN (COSTS OFF) SELECT length(t), count(*) FROM st WHERE t NOT ILIKE '%A%' GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT g, sum(octet_length(c)), sum(CASE WHEN v LIKE 'f%' THEN 1 ELSE 0 END) FROM st GROUP BY g;

-- LIKE and NOT LIKE: wildcards, escapes (\%, \_, \\, an ESCAPE clause,
-- ESCAPE '' for none), the empty pattern, multibyte characters (_ is one
-- character, not one byte)
SELECT q, d.* FROM (VALUES
  ($$SELECT id FROM st WHERE t LIKE 'a%'$$),
  ($$SELECT id FROM st WHERE t LIKE '%b%'$$),
  ($$SELECT id FROM st WHERE t LIKE '_b%'$$),
  ($$SELECT id FROM st WHERE t LIKE ''$$),
  ($$SELECT count(*), sum(id) FROM st WHERE t LIKE '%'$$),
  ($$SELECT count(*), sum(id) FROM st WHERE t LIKE '%%%'$$),
  ($$SELECT count(*), sum(id) FROM st WHERE t NOT LIKE 'a%'$$),
  ($$SELECT id FROM st WHERE t ~~ 'A%' OR t !~~ '%e%'$$),
  ($$SELECT id FROM st WHERE t LIKE '%\%%'$$),
  ($$SELECT id FROM st WHERE t LIKE '%\_%'$$),
  ($$SELECT id FROM st WHERE t LIKE 'x\\%'$$),
  ($$SELECT id FROM st WHERE t LIKE 'x\\'$$),
  ($$SELECT id FROM st WHERE t LIKE 'b#%%' ESCAPE '#'$$),
  ($$SELECT id FROM st WHERE t LIKE 'x\%' ESCAPE ''$$),
  ($$SELECT id FROM st WHERE t LIKE '\a\b%'$$),
  ($$SELECT id FROM st WHERE t LIKE '_'$$),
  ($$SELECT id FROM st WHERE t LIKE '__'$$),
  ($$SELECT id FROM st WHERE t LIKE '_ó%'$$),
  ($$SELECT id FROM st WHERE t LIKE '%ł_'$$),
  ($$SELECT id FROM st WHERE t LIKE '日%語_'$$),
  ($$SELECT id FROM st WHERE t LIKE '% ' OR t LIKE ' %'$$),
  ($$SELECT id FROM st WHERE t LIKE 'late%é'$$),
    ($$SELECT id FROM st WHERE (t LIKE 'a%') IS NULL$$),
  ($$SELECT id FROM st WHERE NOT (t LIKE 'a%' AND n > 2)$$),
  ($$SELECT id FROM st WHERE t LIKE ANY (ARRAY['a%', '%b', NULL])$$),
  ($$SELECT id FROM st WHERE t NOT LIKE ALL (ARRAY['a%', '%b'])$$),
  ($$SELECT id FROM st WHERE id % 3 = 0 AND t LIKE '%1'$$)
) v(q), LATERAL gpu_diff(q) d;

-- ILIKE and NOT ILIKE: the default collation, C, varchar, char(n)
-- (how many rows lower, upper and ILIKE of non-ASCII letters give depends on
-- the database's LC_CTYPE: only whether there are any is shown)
SELECT q, d.node, d.nrows > 0 AS has_rows, d.on_minus_off, d.off_minus_on, d.error FROM (VALUES
  ($$SELECT id FROM st WHERE t ILIKE 'a%'$$),
  ($$SELECT id FROM st WHERE t ILIKE '%PL%'$$),
  ($$SELECT count(*), sum(id) FROM st WHERE t NOT ILIKE 'ż%'$$),
  ($$SELECT id FROM st WHERE t ~~* 'É_' OR t !~~* '%W'$$),
  ($$SELECT id FROM st WHERE t ILIKE 'ŻÓŁW%' OR t ILIKE 'żółw%'$$),
  ($$SELECT id FROM st WHERE tc ILIKE 'A%'$$),
  ($$SELECT id FROM st WHERE tc ILIKE 'É'$$),
  ($$SELECT id FROM st WHERE t COLLATE "C" ILIKE 'żółw%'$$),
  ($$SELECT id FROM st WHERE v ILIKE 'f%'$$),
  ($$SELECT id FROM st WHERE v ILIKE 'FOO\%'$$),
  ($$SELECT id FROM st WHERE c ILIKE 'AB%'$$),
  ($$SELECT id FROM st WHERE c NOT ILIKE 'a%'$$)
) v(q), LATERAL gpu_diff(q) d;

-- char(n): LIKE matches the blank-padded value; starts_with of c::text
-- and comparisons ignore the padding; varchar
SELECT q, d.* FROM (VALUES
  ($$SELECT id FROM st WHERE c LIKE 'ab'$$),
  ($$SELECT id FROM st WHERE c LIKE 'ab    '$$),
  ($$SELECT id FROM st WHERE c LIKE 'ab%'$$),
  ($$SELECT id FROM st WHERE c LIKE '%c '$$),
  ($$SELECT count(*), sum(id) FROM st WHERE c LIKE '% '$$),
  ($$SELECT count(*), sum(id) FROM st WHERE c NOT LIKE 'x%'$$),
  ($$SELECT id FROM st WHERE c::text LIKE '%b'$$),
  ($$SELECT id FROM st WHERE starts_with(c::text, 'ab ')$$),
  ($$SELECT id FROM st WHERE v LIKE 'f%'$$),
  ($$SELECT id FROM st WHERE v NOT LIKE '%o'$$),
  ($$SELECT id FROM st WHERE v LIKE 'fo\_'$$)
) v(q), LATERAL gpu_diff(q) d;

-- starts_with and ^@
SELECT q, d.* FROM (VALUES
  ($$SELECT id FROM st WHERE starts_with(t, 'ap')$$),
  ($$SELECT id FROM st WHERE t ^@ 'A'$$),
  ($$SELECT count(*), sum(id) FROM st WHERE starts_with(t, '')$$),
  ($$SELECT id FROM st WHERE starts_with(t, 'ż')$$),
  ($$SELECT count(*), sum(id) FROM st WHERE NOT starts_with(tc, 'a')$$),
  ($$SELECT id FROM st WHERE starts_with(v, 'fo') AND NOT starts_with(t, 'late')$$)
) v(q), LATERAL gpu_diff(q) d;

-- comparisons with a constant in byte order: the C collation (column or
-- COLLATE), char(n) (trailing blanks ignored on both sides), the
-- constant first, ~<~ and friends under any collation
SELECT q, d.* FROM (VALUES
  ($$SELECT id FROM st WHERE tc < 'b'$$),
  ($$SELECT id FROM st WHERE tc <= 'ab'$$),
  ($$SELECT id FROM st WHERE tc > 'Z'$$),
  ($$SELECT count(*), sum(id) FROM st WHERE tc >= ''$$),
  ($$SELECT count(*), sum(id) FROM st WHERE 'm' > tc$$),
  ($$SELECT id FROM st WHERE tc > 'a' AND tc < 'b'$$),
  ($$SELECT id FROM st WHERE tc BETWEEN '0' AND '9'$$),
  ($$SELECT count(*), sum(id) FROM st WHERE tc < 'é'$$),
  ($$SELECT id FROM st WHERE t COLLATE "C" < 'b'$$),
  ($$SELECT id FROM st WHERE t > 'late' COLLATE "C"$$),
  ($$SELECT id FROM st WHERE v COLLATE "POSIX" >= 'foo'$$),
  ($$SELECT id FROM st WHERE c < 'abc' COLLATE "C"$$),
  ($$SELECT id FROM st WHERE c >= 'ab ' COLLATE "C"$$),
  ($$SELECT id FROM st WHERE c::text COLLATE "C" > 'ab'$$),
  ($$SELECT id FROM st WHERE t ~<~ 'b'$$),
  ($$SELECT id FROM st WHERE t ~>=~ 'apple'$$),
  ($$SELECT id FROM st WHERE c ~<=~ 'ab'$$),
  ($$SELECT count(*), sum(id) FROM st WHERE tc < ANY (ARRAY['a', 'b'])$$),
  ($$SELECT id FROM st WHERE tc IN ('a', 'b') OR tc > 'y'$$)
) v(q), LATERAL gpu_diff(q) d;

-- lengths: as keys, aggregate arguments and in filters; char(n) without
-- its padding (length) and with it (octet_length); multibyte characters
SELECT q, d.* FROM (VALUES
  ($$SELECT length(t), count(*) FROM st GROUP BY 1$$),
  ($$SELECT char_length(c), octet_length(c), count(*) FROM st GROUP BY 1, 2$$),
  ($$SELECT g, sum(octet_length(t)), max(character_length(v)), min(length(tc)) FROM st GROUP BY g$$),
  ($$SELECT id FROM st WHERE length(t) > 3 AND octet_length(t) <> length(t)$$),
  ($$SELECT id FROM st WHERE length(c) = 0$$),
  ($$SELECT sum(length(t) * 2 + 1) FROM st WHERE t LIKE '%a%'$$)
) v(q), LATERAL gpu_diff(q) d;

-- the predicates as values: CASE, a boolean group key, NULL results
-- counted
SELECT q, d.* FROM (VALUES
  ($$SELECT g, sum(CASE WHEN t LIKE 'a%' THEN 1 ELSE 0 END) FROM st GROUP BY g$$),
  ($$SELECT t LIKE '%a%', count(*) FROM st GROUP BY 1$$),
  ($$SELECT tc < 'm', count(*) FROM st GROUP BY 1$$),
  ($$SELECT sum(CASE WHEN v ILIKE 'F%' THEN 1 END), count(*) FROM st$$),
  ($$SELECT count(*) FROM st WHERE (t LIKE 'a%') IS NOT TRUE$$)
) v(q), LATERAL gpu_diff(q) d;

-- GpudbSort and ordered GpudbAgg with text quals
SELECT * FROM gpu_diff($$SELECT id, t FROM st WHERE t LIKE '%a%' ORDER BY id LIMIT 40$$, true);
SELECT * FROM gpu_diff($$SELECT id, tc FROM st WHERE tc >= 'b' ORDER BY tc, id$$, true);
SELECT * FROM gpu_diff($$SELECT g, count(*) FROM st WHERE t NOT LIKE '%a%' GROUP BY g ORDER BY count(*) DESC, g LIMIT 3$$, true);

-- gpu_groupby, gpu_select and gpu_sort filters against PostgreSQL's plan
CREATE FUNCTION fn_diff(gq text, pq text, OUT nrows int, OUT gpu_minus_pg int,
                        OUT pg_minus_gpu int)
LANGUAGE plpgsql AS $$
DECLARE
  a text[];
  b text[];
BEGIN
  EXECUTE format('SELECT coalesce(array_agg(x::text), ''{}'') FROM (%s) x', gq) INTO a;
  PERFORM set_config('gpudb.enabled', 'off', true);
  EXECUTE format('SELECT coalesce(array_agg(x::text), ''{}'') FROM (%s) x', pq) INTO b;
  PERFORM set_config('gpudb.enabled', 'on', true);
  nrows := cardinality(a);
  gpu_minus_pg := (SELECT count(*) FROM (SELECT unnest(a) EXCEPT ALL SELECT unnest(b)) x);
  pg_minus_gpu := (SELECT count(*) FROM (SELECT unnest(b) EXCEPT ALL SELECT unnest(a)) x);
END $$;
SELECT * FROM fn_diff(
  $q$SELECT * FROM gpu_groupby('st', 'g', 'count(*)', $f$t LIKE 'a%' AND tc < 'b'$f$) AS x(g int4, n bigint)$q$,
  $q$SELECT g, count(*) FROM st WHERE t LIKE 'a%' AND tc < 'b' GROUP BY g$q$);
SELECT * FROM fn_diff(
  $q$SELECT * FROM gpu_groupby('st', 'n', 'count(*), max(id)', $f$t NOT ILIKE '%Ż%' AND starts_with(v, 'f')$f$) AS x(n int4, c bigint, m int8)$q$,
  $q$SELECT n, count(*), max(id) FROM st WHERE t NOT ILIKE '%Ż%' AND starts_with(v, 'f') GROUP BY n$q$);
SELECT * FROM fn_diff(
  $q$SELECT * FROM gpu_select('st', 'id, c', $f$c LIKE '%c ' OR length(t) = 2$f$) AS x(id int8, c char(6))$q$,
  $q$SELECT id, c FROM st WHERE c LIKE '%c ' OR length(t) = 2$q$);
SELECT * FROM fn_diff(
  $q$SELECT * FROM gpu_sort('st', 'id, t', 'id', 25, $f$t ~<~ 'b' AND t LIKE '\_%' ESCAPE '_'$f$) AS x(id int8, t text)$q$,
  $q$SELECT id, t FROM st WHERE t ~<~ 'b' AND t LIKE '\_%' ESCAPE '_' ORDER BY id LIMIT 25$q$);
-- a gpu_* filter that cannot run on the device says why
SELECT * FROM gpu_groupby('st', 'g', 'count(*)', $f$t LIKE t$f$) AS x(g int4, n bigint);
SELECT * FROM gpu_groupby('st', 'g', 'count(*)', $f$t LIKE 'ab\'$f$) AS x(g int4, n bigint);

-- text-valued functions as group keys: lower, upper (the column's
-- collation), substr and substring (with and without a length, a start
-- before the string), left and right (negative counts too); char(n) cast
-- to text loses its padding first.  Their values are the codes of their
-- results, interned into the query's dictionary.
-- (how many rows lower, upper and ILIKE of non-ASCII letters give depends on
-- the database's LC_CTYPE: only whether there are any is shown)
SELECT q, d.node, d.nrows > 0 AS has_rows, d.on_minus_off, d.off_minus_on, d.error FROM (VALUES
  ($$SELECT lower(t), count(*) FROM st GROUP BY 1$$),
  ($$SELECT upper(t), lower(tc), count(*), sum(id) FROM st GROUP BY 1, 2$$),
  ($$SELECT upper(tc), count(*) FROM st WHERE tc LIKE '%a%' OR tc > 'y' GROUP BY 1$$),
  ($$SELECT substr(t, 2, 3), count(*) FROM st GROUP BY 1$$),
  ($$SELECT substr(t, 2), substr(t, -1, 3), substr(t, 0), count(*) FROM st GROUP BY 1, 2, 3$$),
  ($$SELECT substring(t from 1 for 2), g, max(id) FROM st GROUP BY 1, 2$$),
  ($$SELECT left(v, 2), right(c, 2), count(*) FROM st GROUP BY 1, 2$$),
  ($$SELECT left(t, -1), right(t, -2), count(*) FROM st GROUP BY 1, 2$$),
  ($$SELECT lower(c), upper(v), sum(length(t)) FROM st WHERE t NOT LIKE '%a%' GROUP BY 1, 2$$),
  ($$SELECT lower(t), t, count(*) FROM st GROUP BY 1, 2$$)
) v(q), LATERAL gpu_diff(q) d;
SELECT * FROM gpu_diff($$SELECT lower(t), count(*) FROM st GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 5$$, true);

-- text-valued functions compared with text constants (=, <>, IN, NOT IN),
-- either side: the codes of their results and of the constants, in one
-- dictionary (TPC-H Q22's substring(c_phone from 1 for 2) IN (...))
SELECT q, d.node, d.nrows, d.on_minus_off, d.off_minus_on, d.error FROM (VALUES
  ($$SELECT g, count(*) FROM st WHERE substring(t from 1 for 2) IN ('ap', 'ba', '10', 'la') GROUP BY g$$),
  ($$SELECT id FROM st WHERE lower(t) = 'apple' OR upper(v) <> 'FOO'$$),
  ($$SELECT substr(t, 1, 1), count(*) FROM st WHERE left(tc, 1) NOT IN ('a', 'b', 'L') GROUP BY 1$$),
  ($$SELECT id FROM st WHERE lower(c::text) = 'ab'$$),
  ($$SELECT count(*) FROM st WHERE 'apple' = lower(t) AND right(v, 1) <> 'o'$$)
) v(q), LATERAL gpu_diff(q) d;

-- many batches: strings first seen in a later batch, in every operator
SET gpudb.batch_rows = 1024;
-- (how many rows lower, upper and ILIKE of non-ASCII letters give depends on
-- the database's LC_CTYPE: only whether there are any is shown)
SELECT q, d.node, d.nrows > 0 AS has_rows, d.on_minus_off, d.off_minus_on, d.error FROM (VALUES
  ($$SELECT id FROM st WHERE t LIKE 'late%'$$),
  ($$SELECT id FROM st WHERE t NOT LIKE '%é' AND tc ILIKE 'l%'$$),
  ($$SELECT g, count(*) FROM st WHERE v LIKE 'late%' GROUP BY g$$),
  ($$SELECT length(t), count(*) FROM st GROUP BY 1$$),
  ($$SELECT id FROM st WHERE tc > 'L' AND starts_with(c::text, 'la')$$),
  ($$SELECT upper(t), left(v, 4), count(*) FROM st GROUP BY 1, 2$$)
) v(q), LATERAL gpu_diff(q) d;
SELECT * FROM gpu_diff($$SELECT id, tc FROM st WHERE t LIKE '%e%' ORDER BY tc, id LIMIT 50$$, true);
SELECT * FROM gpu_diff($$SELECT length(t), count(*) FROM st WHERE t LIKE '%1%' GROUP BY 1 ORDER BY count(*), 1 LIMIT 4$$, true);

-- parallel workers read the heap too, each with its own dictionary
SET gpudb.use_cache = off;
SET gpudb.parallel_workers = 2;
SET gpudb.min_parallel_table_size = 0;
-- (how many rows lower, upper and ILIKE of non-ASCII letters give depends on
-- the database's LC_CTYPE: only whether there are any is shown)
SELECT q, d.node, d.nrows > 0 AS has_rows, d.on_minus_off, d.off_minus_on, d.error FROM (VALUES
  ($$SELECT id FROM st WHERE t LIKE 'late%'$$),
  ($$SELECT g, count(*), sum(length(t)) FROM st WHERE t ILIKE '%A%' GROUP BY g$$),
  ($$SELECT id, tc FROM st WHERE tc < 'B' ORDER BY id LIMIT 30$$),
  ($$SELECT lower(t), substr(tc, 1, 1), count(*) FROM st GROUP BY 1, 2$$)
) v(q), LATERAL gpu_diff(q) d;
RESET gpudb.min_parallel_table_size;
RESET gpudb.parallel_workers;
RESET gpudb.use_cache;
RESET gpudb.batch_rows;

-- still PostgreSQL's plan, and why: a pattern that is not a constant, an
-- operation on an expression, a pattern ending with its escape character
-- (PostgreSQL raises only for the rows whose matching reaches it: both
-- sides raise the same error here), a comparison under a collation whose
-- order is not byte order
SET gpudb.debug_unsupported = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE t LIKE tc;
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE lower(t) LIKE 'a%';
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE 'abc' LIKE t;
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE t LIKE 'x\';
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE tc < tc;
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE length(t || 'x') > 2;
EXPLAIN (COSTS OFF) SELECT substr(t, 2, -1), count(*) FROM st GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT substr(t, g), count(*) FROM st GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT lower(t || 'x'), count(*) FROM st GROUP BY 1;
-- more text operations than one request holds (16), over keys and quals
EXPLAIN (COSTS OFF) SELECT lower(t), upper(t), left(t, 1), left(t, 2), left(t, 3),
  right(t, 1), right(t, 2), right(t, 3), count(*) FROM st
  WHERE t LIKE '%1' AND t LIKE '%2' AND t LIKE '%3' AND t LIKE '%4' AND t LIKE '%5'
    AND t LIKE '%6' AND t LIKE '%7' AND t LIKE '%8' AND t LIKE '%9'
  GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
RESET gpudb.debug_unsupported;
SELECT * FROM gpu_diff($$SELECT count(*) FROM st WHERE t LIKE 'x\'$$);
SELECT * FROM gpu_diff($$SELECT count(*) FROM st WHERE t LIKE 'a\'$$);

-- a collation other than C (an ICU or libc one where the system has one):
-- its ILIKE is exact on the device from the heap, and its comparisons keep
-- PostgreSQL's plan
DO $$
DECLARE
  c text;
BEGIN
  SELECT collname INTO c FROM pg_collation
   WHERE collname IN ('und-x-icu', 'en-x-icu', 'en_US.utf8', 'en_US', 'C.utf8')
     AND collencoding IN (-1, pg_char_to_encoding(current_setting('server_encoding')))
   ORDER BY collname = 'und-x-icu' DESC, collname LIMIT 1;
  EXECUTE format('CREATE TABLE st_other AS SELECT id, t COLLATE %I AS t FROM st', coalesce(c, 'default'));
END $$;
ANALYZE st_other;
SELECT gpu_plan_nodes($$SELECT id FROM st_other WHERE t ILIKE '%Ó%'$$) AS ilike_plan,
       gpu_plan_nodes($$SELECT id FROM st_other WHERE t < 'b'$$) AS compare_plan;
SELECT q, d.* FROM (VALUES
  ($$SELECT id FROM st_other WHERE t ILIKE '%Ó%'$$),
  ($$SELECT id FROM st_other WHERE t NOT ILIKE 'ż%' AND t LIKE '%w%'$$),
  ($$SELECT id FROM st_other WHERE t ~>~ 'b'$$)
) v(q), LATERAL gpu_diff(q) d;
-- a nondeterministic collation (ICU) keeps PostgreSQL's plan for every
-- text operation; without ICU there is no such collation, and the answer
-- is the same
DO $$
BEGIN
  CREATE COLLATION st_nd (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
EXCEPTION WHEN OTHERS THEN
  CREATE COLLATION st_nd FROM "C";
END $$;
CREATE TABLE st_nd AS SELECT id, t COLLATE st_nd AS t FROM st;
SELECT gpu_plan_nodes($$SELECT id FROM st_nd WHERE t LIKE 'a%'$$) IN ('PostgreSQL''s plan', 'GpudbScan') AS like_ok,
       (SELECT collisdeterministic FROM pg_collation WHERE collname = 'st_nd') OR
       gpu_plan_nodes($$SELECT id FROM st_nd WHERE t LIKE 'a%' OR starts_with(t, 'a') OR t ILIKE 'a'$$) = 'PostgreSQL''s plan' AS nondeterministic_kept;

-- a cached table: the server evaluates the operations over its own
-- dictionary, keeps them for the next queries and extends them to strings
-- that changes bring (27_strings_1.out: gpudb is not preloaded, so there
-- is no GPU server and no cache)
SELECT gpu_cache_load('st') > 0 AS loaded;
SELECT gpu_cache_load('st_other') > 0 AS loaded;
-- the first query of the loaded table compares text-valued functions with
-- constants its dictionary does not hold yet ('ap'): the server interns
-- them before the functions' results, so that they meet
SELECT * FROM gpu_diff($$SELECT count(*) FROM st WHERE substr(t, 1, 2) IN ('ap', 'zz-none') OR lower(v) = 'foo'$$);
SELECT * FROM gpu_explain($$SELECT count(*) FROM st WHERE t LIKE '%b%' AND tc ILIKE 'a%'$$);
-- ILIKE under a collation whose LC_CTYPE is not C: the server has no
-- catalog to fold case with, so the heap is read
SELECT * FROM gpu_explain($$SELECT count(*) FROM st_other WHERE t ILIKE '%Ó%'$$);
SELECT * FROM gpu_diff($$SELECT id FROM st_other WHERE t ILIKE '%Ó%' OR t LIKE 'b%'$$);
SELECT gpu_cache_drop('st_other');
-- (how many rows lower, upper and ILIKE of non-ASCII letters give depends on
-- the database's LC_CTYPE: only whether there are any is shown)
SELECT q, d.node, d.nrows > 0 AS has_rows, d.on_minus_off, d.off_minus_on, d.error FROM (VALUES
  ($$SELECT id FROM st WHERE t LIKE 'a%'$$),
  ($$SELECT id FROM st WHERE t LIKE '_ó%' OR t LIKE '日%語_'$$),
  ($$SELECT id FROM st WHERE c LIKE 'ab    ' OR c NOT LIKE '%c '$$),
  ($$SELECT id FROM st WHERE tc ILIKE 'A%' OR tc ILIKE 'É'$$),
  ($$SELECT id FROM st WHERE t ILIKE '%PL%'$$),
  ($$SELECT id FROM st WHERE starts_with(t, 'ż') OR t ^@ 'A'$$),
  ($$SELECT id FROM st WHERE tc <= 'ab' OR c < 'abc' COLLATE "C"$$),
  ($$SELECT length(t), count(*) FROM st GROUP BY 1$$),
  ($$SELECT upper(tc), substr(t, 2, 3), left(v, 2), count(*) FROM st GROUP BY 1, 2, 3$$),
  ($$SELECT lower(t), count(*) FROM st GROUP BY 1$$),
  ($$SELECT g, sum(octet_length(c)), sum(CASE WHEN v LIKE 'f%' THEN 1 ELSE 0 END) FROM st GROUP BY g$$),
  ($$SELECT id, t FROM st WHERE t LIKE '%a%' ORDER BY id LIMIT 40$$)
) v(q), LATERAL gpu_diff(q) d;
-- new strings after the load: the server's dictionary grows, its tables
-- follow
INSERT INTO st VALUES (7001, 1, 'apple-new', 'a-new', 'foo-new', 'ab-n', 1),
  (7002, 2, 'Żółw-new', 'Z-new', 'FOO%new', 'xx', 2), (7003, 3, NULL, NULL, NULL, NULL, 3);
SELECT q, d.* FROM (VALUES
  ($$SELECT id FROM st WHERE t LIKE 'a%'$$),
  ($$SELECT id FROM st WHERE tc ILIKE 'A%' OR tc ILIKE 'É'$$),
  ($$SELECT id FROM st WHERE v ILIKE 'foo%' AND c < 'x' COLLATE "C"$$),
  ($$SELECT length(t), count(*) FROM st GROUP BY 1$$),
  ($$SELECT upper(tc), right(t, 3), count(*) FROM st GROUP BY 1, 2$$)
) v(q), LATERAL gpu_diff(q) d;
SELECT source FROM gpu_last_execution();
SELECT count(*) FROM st WHERE t LIKE 'a%' AND tc ILIKE 'a%';
SELECT source FROM gpu_last_execution();
SET gpudb.enabled = off;
SELECT count(*) FROM st WHERE t LIKE 'a%' AND tc ILIKE 'a%';
RESET gpudb.enabled;
-- regular expressions (~, !~, ~*, !~*): a bit per dictionary string, as
-- LIKE; the GPU server evaluates them only where LC_CTYPE is C (tc), else
-- the query reads the heap
-- (how many rows non-ASCII letters give depends on the database's
-- LC_CTYPE: only whether there are any is shown)
SELECT q, d.node, d.nrows > 0 AS has_rows, d.on_minus_off, d.off_minus_on, d.error FROM (VALUES
  ($$SELECT id FROM st WHERE t ~ '^[a-c]'$$),
  ($$SELECT count(*) FROM st WHERE t !~ '[0-9]$' AND v ~* '^f'$$),
  ($$SELECT id FROM st WHERE tc ~* '^a' OR tc !~ 'e'$$),
  ($$SELECT count(*) FROM st WHERE c ~ ' $' OR c !~* 'B'$$),
  ($$SELECT g, count(*) FROM st WHERE t ~ '[[:alpha:]]{3}' GROUP BY g$$)
) v(q), LATERAL gpu_diff(q) d;
SELECT count(*) > 0 AS some FROM st WHERE tc ~ '^a';
SELECT source FROM gpu_last_execution();
SELECT gpu_cache_drop('st');

DROP TABLE st, st_other, st_nd;
DROP COLLATION st_nd;
DROP FUNCTION gpu_diff(text, bool), gpu_diff_rows(text, bool),
  fn_diff(text, text);
DROP FUNCTION gpu_explain(text), gpu_explain_format(text, text), gpu_plan_nodes(text);
