--
-- 25_drop_database: the GPU server drops a database's cache entries when
-- DROP DATABASE has succeeded (at its commit), and never when it fails: the
-- drop hooks run before DROP DATABASE checks, for example, that the database
-- is not in use.
--
-- Needs shared_preload_libraries = gpudb (expected/25_drop_database.out);
-- without it there is nothing to drop (expected/25_drop_database_1.out).
--

CREATE TABLE dd (id int8, g int4);
INSERT INTO dd SELECT i, i % 5 FROM generate_series(1, 3000) i;
SELECT current_database() AS dd_db \gset

SELECT current_setting('shared_preload_libraries') LIKE '%gpudb%' AS preloaded \gset
\if :preloaded

SELECT gpu_cache_load('dd');
SELECT relation, rows, state FROM gpu_cache ORDER BY 1;

-- fails after the drop hooks have run: this database's entries stay, and
-- still answer
\set VERBOSITY terse
DROP DATABASE :"dd_db";
\set VERBOSITY default
SELECT relation, rows, state FROM gpu_cache ORDER BY 1;
SELECT * FROM gpu_groupby('dd', '', 'count(*), sum(id)') AS t(n bigint, s numeric);
SELECT source FROM gpu_last_execution();

-- a template database cannot be dropped either (another check after the
-- hooks); its entries stay
SELECT cache_bytes AS dd_bytes_before FROM gpu_server_status() \gset
CREATE DATABASE regress_gpudb_dd_tmpl;
\c regress_gpudb_dd_tmpl
SET client_min_messages = warning;
CREATE EXTENSION gpudb;
RESET client_min_messages;
CREATE TABLE there AS SELECT i::int8 AS a FROM generate_series(1, 5000) i;
SELECT gpu_cache_load('there');
\c :dd_db
ALTER DATABASE regress_gpudb_dd_tmpl IS_TEMPLATE true;
\set VERBOSITY terse
DROP DATABASE regress_gpudb_dd_tmpl;
\set VERBOSITY default
ALTER DATABASE regress_gpudb_dd_tmpl IS_TEMPLATE false;
\c regress_gpudb_dd_tmpl
SELECT relation, rows, state FROM gpu_cache ORDER BY 1;
SELECT cache_bytes > :dd_bytes_before AS other_database_cached FROM gpu_server_status();

-- succeeds: that database's entries go with it (at once: the statement's
-- commit sends the drop and waits for the reply)
\c :dd_db
DROP DATABASE regress_gpudb_dd_tmpl;
SELECT cache_bytes = :dd_bytes_before AS other_database_dropped FROM gpu_server_status();
-- and this database's entries stay
SELECT relation, rows, state FROM gpu_cache ORDER BY 1;

-- clean up
SELECT gpu_cache_drop('dd');

\else

-- not preloaded: DROP DATABASE fails and succeeds as usual
\set VERBOSITY terse
DROP DATABASE :"dd_db";
\set VERBOSITY default
CREATE DATABASE regress_gpudb_dd_tmpl;
DROP DATABASE regress_gpudb_dd_tmpl;
SELECT count(*) AS entries FROM gpu_cache;

\endif

DROP TABLE dd;
