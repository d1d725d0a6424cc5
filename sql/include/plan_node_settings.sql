-- include/plan_node_settings.sql: the settings the plan-node tests start
-- from (\i'd by them; pg_regress does not run it alone): gpudb loaded; the
-- CPU path where gpudb.device is auto (CI has no GPU; the GPU host sets
-- gpu); the device costs at 0, so that the nodes are chosen on these small
-- tables; EXPLAIN without the hardware's name; no parallel plans.
LOAD 'gpudb';
DO $$ BEGIN
  IF current_setting('gpudb.device') = 'auto' THEN
    PERFORM set_config('gpudb.device', 'cpu', false);
  END IF;
END $$;
SET gpudb.gpu_setup_cost = 0;
SET gpudb.gpu_tuple_cost = 0;
SET gpudb.gpu_transfer_cost = 0;
SET gpudb.explain_hardware = off;
SET max_parallel_workers_per_gather = 0;
