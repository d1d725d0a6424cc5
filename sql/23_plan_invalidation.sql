-- 23_plan_invalidation: a cached plan is made again when a cache load or
-- drop of its table commits (issue 22, "cached plans not invalidated when
-- the cache changes").  With a high gpudb.gpu_transfer_cost the GpudbAgg wins
-- only over the cached copy, so a generic plan made before the load keeps
-- PostgreSQL's plan, one made after it takes the GpudbAgg, and after
-- gpu_cache_drop the plan must go back (it kept the GpudbAgg, reading the
-- heap, before the fix).  Without shared_preload_libraries = gpudb nothing
-- is cached and the plan never changes (expected/23_plan_invalidation_1.out).
LOAD 'gpudb';
SET gpudb.device = cpu;
SET gpudb.gpu_setup_cost = 0;
SET gpudb.gpu_tuple_cost = 0;
SET gpudb.gpu_transfer_cost = 1000;
SET gpudb.explain_hardware = off;
SET plan_cache_mode = force_generic_plan;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE pci (g int, v int);
INSERT INTO pci SELECT i % 10, i FROM generate_series(1, 20000) i;
ANALYZE pci;
PREPARE pq AS SELECT g, count(*) FROM pci GROUP BY g;
EXPLAIN (COSTS OFF) EXECUTE pq;
DO $$ BEGIN
  PERFORM gpu_cache_load('pci');
EXCEPTION WHEN object_not_in_prerequisite_state THEN
  RAISE NOTICE 'no GPU server: nothing is cached';
END $$;
EXPLAIN (COSTS OFF) EXECUTE pq;
DO $$ BEGIN
  PERFORM gpu_cache_drop('pci');
EXCEPTION WHEN object_not_in_prerequisite_state THEN NULL;
END $$;
EXPLAIN (COSTS OFF) EXECUTE pq;
DEALLOCATE pq;
DROP TABLE pci;
