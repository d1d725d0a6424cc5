-- gpu_node_buffers(query): the top plan node's "Workers Launched" (NULL
-- without parallel heap readers) and its shared blocks hit + read, from
-- EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) of query
CREATE FUNCTION gpu_node_buffers(q text, OUT workers int, OUT blocks int8)
LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || q INTO j;
  workers := (j->0->'Plan'->>'Workers Launched')::int;
  blocks := (j->0->'Plan'->>'Shared Hit Blocks')::int8 +
            (j->0->'Plan'->>'Shared Read Blocks')::int8;
END $$;
