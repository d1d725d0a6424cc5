-- load_pgbench.sh: reload the cached columns of lt (waits for the writers,
-- which then wait for it), or now and then drop the entry and load it again.
\set r random(1, 4)
\if :r = 1
SELECT gpu_cache_drop('lt');
\endif
SELECT gpu_cache_load('lt', ARRAY['id', 'g', 't', 'v', 'f', 'b', 'd']::name[]);
