-- 32_kept_text: a GpudbJoin build side with text payload, answered from the
-- column cache and kept by the GPU server, has its text codes re-encoded
-- into the probe relation's dictionary through the build entry's memo of
-- those codes (server_cache_query.c, translated_code): the first query
-- interns each string, the next ones look it up.  The answers must stay
-- PostgreSQL's when the memo is reused, when the build relation gains new
-- strings (changes captured by the cache), when the probe relation is
-- loaded again (a new entry: the memo starts over), and when the build
-- relation's text is all NULL (an empty dictionary).  On a GPU the
-- translation is also kept on the device (GdbDeviceCodeMap).
\i sql/include/plan_node_settings.sql

CREATE TABLE kf (id int8, ck int4, amt numeric(10,2));
INSERT INTO kf SELECT i, i % 500, (i % 97) / 4.0 FROM generate_series(1, 20000) i;
CREATE TABLE kc (ck int4 PRIMARY KEY, name text, city varchar(20));
INSERT INTO kc SELECT k, 'customer ' || k, 'city ' || (k % 37) FROM generate_series(0, 499) k;
ANALYZE kf, kc;
\i sql/include/differential.sql
\i sql/include/explain_analyze.sql
SELECT gpu_cache_load('kf') > 0 AS loaded;
SELECT gpu_cache_load('kc') > 0 AS loaded;

-- the build side's source: the cache, kept by the GPU server
SELECT btrim(l) AS source FROM gpu_analyze($q$
SELECT kc.name, kc.city, sum(amt) FROM kf JOIN kc ON kc.ck = kf.ck GROUP BY kc.name, kc.city$q$) l WHERE l ~ 'Source:';
-- the same query three times: the memo made, then used
SELECT (gpu_diff($q$
SELECT kc.name, kc.city, sum(amt) FROM kf JOIN kc ON kc.ck = kf.ck GROUP BY kc.name, kc.city$q$)).*;
SELECT (gpu_diff($q$
SELECT kc.name, kc.city, sum(amt) FROM kf JOIN kc ON kc.ck = kf.ck GROUP BY kc.name, kc.city$q$)).*;
SELECT (gpu_diff($q$
SELECT kc.city, kc.name, count(*) FROM kf JOIN kc ON kc.ck = kf.ck
WHERE kc.ck < 300 GROUP BY kc.city, kc.name$q$)).*;

-- new strings in the build relation: its dictionary grows past the memo
UPDATE kc SET name = 'renamed ' || ck WHERE ck % 3 = 0;
INSERT INTO kc SELECT k, 'late ' || k, 'town ' || (k % 5) FROM generate_series(500, 520) k;
INSERT INTO kf SELECT i, 500 + i % 21, 1.5 FROM generate_series(20001, 20100) i;
SELECT btrim(l) AS source FROM gpu_analyze($q$
SELECT kc.name, kc.city, sum(amt) FROM kf JOIN kc ON kc.ck = kf.ck GROUP BY kc.name, kc.city$q$) l WHERE l ~ 'Source:';
SELECT (gpu_diff($q$
SELECT kc.name, kc.city, sum(amt) FROM kf JOIN kc ON kc.ck = kf.ck GROUP BY kc.name, kc.city$q$)).*;

-- the probe relation loaded again: another entry, the memo starts over
SELECT gpu_cache_drop('kf');
SELECT gpu_cache_load('kf') > 0 AS loaded;
SELECT (gpu_diff($q$
SELECT kc.name, kc.city, sum(amt) FROM kf JOIN kc ON kc.ck = kf.ck GROUP BY kc.name, kc.city$q$)).*;
SELECT (gpu_diff($q$
SELECT kc.city, count(*), sum(amt) FROM kf JOIN kc ON kc.ck = kf.ck GROUP BY kc.city$q$)).*;

-- a build relation whose text column holds only NULLs: its dictionary is
-- empty, and there is no code to translate
CREATE TABLE kn (ck int4 PRIMARY KEY, name text);
INSERT INTO kn SELECT k, NULL FROM generate_series(0, 499) k;
ANALYZE kn;
SELECT gpu_cache_load('kn') > 0 AS loaded;
SELECT (gpu_diff($q$
SELECT kn.name, count(*), sum(amt) FROM kf JOIN kn ON kn.ck = kf.ck GROUP BY kn.name$q$)).*;
SELECT (gpu_diff($q$
SELECT kn.name, count(*), sum(amt) FROM kf JOIN kn ON kn.ck = kf.ck GROUP BY kn.name$q$)).*;
SELECT gpu_cache_drop('kn');
DROP TABLE kn;

SELECT gpu_cache_drop('kf');
SELECT gpu_cache_drop('kc');
DROP FUNCTION gpu_source(text);
DROP FUNCTION gpu_analyze(text);
DROP FUNCTION gpu_diff(text, bool);
DROP FUNCTION gpu_diff_rows(text, bool);
DROP TABLE kf, kc;
