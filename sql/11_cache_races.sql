--
-- 11_cache_races: change sequences that once made the cache answer wrongly
-- (found by review); each cached answer is compared with plain SQL in the
-- same snapshot.  Needs the GPU server (preload); otherwise only a notice.
--
SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset
\if :preloaded
CREATE FUNCTION race_check(rel regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE g text; s text; src text;
BEGIN
    EXECUTE format('SELECT n || ''/'' || coalesce(t::text, ''-'') FROM gpu_groupby(%L, '''', ''count(*), sum(v)'') AS x(n bigint, t bigint)', rel) INTO g;
    SELECT source INTO src FROM gpu_last_execution();
    EXECUTE format('SELECT count(*) || ''/'' || coalesce(sum(v)::text, ''-'') FROM %s', rel) INTO s;
    RETURN CASE WHEN g = s THEN 'same ' || s ELSE 'DIFFERENT gpu ' || g || ' sql ' || s END
           || ' (' || src || ')';
END $$;

-- Plain SQL is this file's reference, so it keeps PostgreSQL's own plans
-- (the plan nodes are tested against gpudb.enabled = off in 12_plan_nodes).
SET gpudb.enable_gpuscan = off;
SET gpudb.enable_gpuagg = off;
SET gpudb.enable_gpusort = off;
SET gpudb.enable_gpujoin = off;

-- (1) the transaction's own rows written into a cached partition through
-- its parent: the partition's statement trigger never fires, so they are
-- unsent; the cached answer must not miss them
CREATE TABLE rparent (k int, v int) PARTITION BY RANGE (k);
CREATE TABLE rp1 PARTITION OF rparent FOR VALUES FROM (0) TO (1000);
INSERT INTO rparent SELECT g, 1 FROM generate_series(1, 10) g;
SELECT gpu_cache_load('rp1');
BEGIN;
INSERT INTO rparent VALUES (500, 100);
SELECT race_check('rp1');
COMMIT;
SELECT race_check('rp1');
SELECT state FROM gpu_cache WHERE relation = 'rp1'::regclass;

-- (3) a ctid reused after VACUUM, then inserted and deleted through the
-- parent in one transaction
SELECT gpu_cache_load('rp1');
DELETE FROM rp1 WHERE k = 1;
VACUUM rp1;
BEGIN;
INSERT INTO rparent VALUES (600, 7);
DELETE FROM rp1 WHERE k = 600;
COMMIT;
SELECT race_check('rp1');

-- (6) DISABLE / ENABLE TRIGGER ALL, then a reload: one pair of triggers,
-- every row captured once
CREATE TABLE rt4 (k int, v int);
INSERT INTO rt4 SELECT g, 1 FROM generate_series(1, 10) g;
SELECT gpu_cache_load('rt4');
ALTER TABLE rt4 DISABLE TRIGGER ALL;
ALTER TABLE rt4 ENABLE TRIGGER ALL;
SELECT state FROM gpu_cache WHERE relation = 'rt4'::regclass;
SELECT gpu_cache_load('rt4');
INSERT INTO rt4 VALUES (11, 1);
SELECT race_check('rt4');
SELECT count(*) AS gpudb_triggers FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
 WHERE t.tgrelid = 'rt4'::regclass AND p.proname = 'gpudb_cache_invalidate';
-- a renamed trigger is still ours (the rename marks the copy stale)
DO $$ DECLARE n name; BEGIN
  SELECT tgname INTO n FROM pg_trigger WHERE tgrelid = 'rt4'::regclass AND tgname LIKE '!gpudb_cache_capture%';
  EXECUTE format('ALTER TRIGGER %I ON rt4 RENAME TO renamed_capture', n);
END $$;
SELECT state FROM gpu_cache WHERE relation = 'rt4'::regclass;
SELECT gpu_cache_load('rt4');
INSERT INTO rt4 VALUES (12, 1);
SELECT race_check('rt4');
SELECT count(*) AS gpudb_triggers FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
 WHERE t.tgrelid = 'rt4'::regclass AND p.proname = 'gpudb_cache_invalidate';

-- (7) a user AFTER ROW trigger that updates the row just inserted, on a
-- reused ctid: the nested update's changes arrive before the insert
CREATE TABLE rt5 (k int, v int);
INSERT INTO rt5 SELECT g, 1 FROM generate_series(1, 10) g;
CREATE FUNCTION rt5_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN UPDATE rt5 SET v = v + 1 WHERE ctid = NEW.ctid; RETURN NULL; END $$;
CREATE TRIGGER a_touch AFTER INSERT ON rt5 FOR EACH ROW WHEN (NEW.k > 100) EXECUTE FUNCTION rt5_touch();
SELECT gpu_cache_load('rt5');
DELETE FROM rt5 WHERE k = 1;
VACUUM rt5;
INSERT INTO rt5 VALUES (200, 5);
SELECT race_check('rt5');

-- (5, one session) a statement that fails after some rows were captured,
-- inside a savepoint: the capture is not replayed later
CREATE TABLE rt6 (k int PRIMARY KEY, v int);
INSERT INTO rt6 SELECT g, 1 FROM generate_series(1, 10) g;
CREATE TABLE rr6 (k int REFERENCES rt6);
INSERT INTO rr6 VALUES (6);
SELECT gpu_cache_load('rt6');
BEGIN;
SAVEPOINT s;
DELETE FROM rt6 WHERE k IN (5, 6);
ROLLBACK TO SAVEPOINT s;
DELETE FROM rt6 WHERE k = 5;
COMMIT;
SELECT race_check('rt6');

-- rolled-back deletes followed by a committed one: the committed deleter
-- wins, whatever order they reached the server in
CREATE TABLE rt7 (k int, v int);
INSERT INTO rt7 SELECT g, 1 FROM generate_series(1, 10) g;
SELECT gpu_cache_load('rt7');
BEGIN; DELETE FROM rt7 WHERE k = 3; ROLLBACK;
BEGIN; DELETE FROM rt7 WHERE k = 3; ROLLBACK;
DELETE FROM rt7 WHERE k = 3;
SELECT race_check('rt7');
SELECT race_check('rt7');

-- a nested statement (a volatile function in the SET list) changes a row
-- the outer statement already changed, whose new version took a reused
-- ctid: the nested delete must not hit the old row at that ctid
CREATE TABLE rx4 (k int, v int);
INSERT INTO rx4 SELECT g, 1 FROM generate_series(1, 10) g;
CREATE FUNCTION rx4_f(kk int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN IF kk = 2 THEN UPDATE rx4 SET v = 100 WHERE k = 1; END IF; RETURN 2; END $$;
SELECT gpu_cache_load('rx4');
DELETE FROM rx4 WHERE k IN (9, 10);
VACUUM rx4;
UPDATE rx4 SET v = rx4_f(k) WHERE k IN (1, 2);
SELECT race_check('rx4');

-- temporary tables are not cached: ON COMMIT DELETE ROWS empties them
-- without firing any trigger
CREATE TEMP TABLE rtt (k int, v int) ON COMMIT DELETE ROWS;
SELECT gdb_try($q$SELECT gpu_cache_load('rtt')$q$);

DROP TABLE rparent, rt4, rt5, rt6, rr6, rt7, rx4;
DROP FUNCTION race_check(regclass), rt5_touch(), rx4_f(int);
\else
\echo 'gpudb is not preloaded: no cache to race'
\endif
