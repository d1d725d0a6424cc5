-- include/differential.sql: the differential harness of the plan-node
-- tests (\i'd by them; pg_regress does not run it alone).
-- gpu_diff(query, ordered): the Gpudb nodes in the plan with gpudb on, the
-- number of rows, and how many rows differ between gpudb on and off as
-- text (row by row, in the order returned, for ordered queries; else
-- EXCEPT ALL both ways).  Errors are part of the answer: "same: <error>"
-- when both sides raise the same one.  Each test drops both functions at
-- its end.
CREATE FUNCTION gpu_diff_rows(q text, ordered bool, OUT rows text[], OUT err text)
LANGUAGE plpgsql AS $$
BEGIN
  IF ordered THEN
    EXECUTE format('SELECT coalesce(array_agg(r ORDER BY o), ''{}'') FROM '
                   '(SELECT x::text AS r, row_number() OVER () AS o FROM (%s) x) y', q) INTO rows;
  ELSE
    EXECUTE format('SELECT coalesce(array_agg(x::text ORDER BY x::text), ''{}'') FROM (%s) x', q) INTO rows;
  END IF;
EXCEPTION WHEN OTHERS THEN
  err := SQLSTATE || ': ' || SQLERRM;
END $$;

CREATE FUNCTION gpu_diff(q text, ordered bool DEFAULT false,
                         OUT node text, OUT nrows int, OUT on_minus_off int,
                         OUT off_minus_on int, OUT error text)
LANGUAGE plpgsql AS $$
DECLARE
  l text;
  r_on record;
  r_off record;
BEGIN
  node := '';
  PERFORM set_config('gpudb.enabled', 'on', true);
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l ~ 'Custom Scan \(Gpudb' THEN
      node := node || CASE WHEN node = '' THEN '' ELSE ',' END ||
              substring(l from 'Custom Scan \((Gpudb[A-Za-z]+)\)');
    END IF;
  END LOOP;
  r_on := gpu_diff_rows(q, ordered);
  PERFORM set_config('gpudb.enabled', 'off', true);
  r_off := gpu_diff_rows(q, ordered);
  PERFORM set_config('gpudb.enabled', 'on', true);
  IF r_on.err IS NOT NULL OR r_off.err IS NOT NULL THEN
    error := CASE WHEN r_on.err IS NOT DISTINCT FROM r_off.err THEN 'same: ' || r_on.err
                  ELSE 'DIFFERENT: on=' || coalesce(r_on.err, 'ok') || ' off=' || coalesce(r_off.err, 'ok') END;
    RETURN;
  END IF;
  nrows := cardinality(r_off.rows);
  IF ordered THEN
    on_minus_off := (SELECT count(*) FROM generate_subscripts(r_off.rows, 1) i
                     WHERE r_on.rows[i] IS DISTINCT FROM r_off.rows[i])
                    + abs(cardinality(r_on.rows) - cardinality(r_off.rows));
    off_minus_on := on_minus_off;
  ELSE
    on_minus_off := (SELECT count(*) FROM (SELECT unnest(r_on.rows) EXCEPT ALL
                                           SELECT unnest(r_off.rows)) d);
    off_minus_on := (SELECT count(*) FROM (SELECT unnest(r_off.rows) EXCEPT ALL
                                           SELECT unnest(r_on.rows)) d);
  END IF;
END $$;
