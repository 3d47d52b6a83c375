-- Where GpuSort cannot sort with keys, PostgreSQL's own sort runs.  Known at
-- plan time (a first sort column without an encoder: an inet, a
-- non-default operator class; an estimate past gpusort.max_memory), the
-- stock plan stays as the planner made it.  Found at run time (more rows
-- than the estimate, past gpusort.max_memory), the node hands its rows to a
-- tuplesort, which sorts (and spills) exactly as a Sort node would, and
-- EXPLAIN ANALYZE says why.  Results stay those of stock PostgreSQL.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpusort;
RESET client_min_messages;
LOAD 'gpusort';
SET gpusort.min_rows = 0;
SET gpusort.device = cpu;
-- gs_check(q) and explain_masked(q), shared by the sort tests: test/sort/sql/gs_check.sql
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set ECHO none
\i :gs_check_sql
\set ECHO all

CREATE TABLE fb (id int, k int, s text, iv inet);
INSERT INTO fb SELECT i, i % 37, md5(i::text), '10.0.0.0'::inet + (i % 101) * 256 + (i % 7)
  FROM generate_series(1, 20000) i;
ANALYZE fb;
-- fb's rows, which the planner expects to be 100 (a plpgsql function is
-- never inlined): a sort planned for few rows that gets many
CREATE FUNCTION fb_rows() RETURNS SETOF fb LANGUAGE plpgsql ROWS 100 AS
$$ BEGIN RETURN QUERY SELECT * FROM fb; END $$;

-- no encoder for the first sort column: the stock plan
EXPLAIN (COSTS OFF) SELECT * FROM fb ORDER BY iv, id;
EXPLAIN (COSTS OFF) SELECT * FROM fb ORDER BY s USING ~<~;
EXPLAIN (COSTS OFF) SELECT * FROM fb ORDER BY iv DESC, id LIMIT 3;
SELECT iv, id FROM fb ORDER BY iv DESC, id LIMIT 3;

-- a later column without an encoder: the key covers the columns before it
SELECT * FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM fb ORDER BY k, iv, id');
SELECT gs_check('SELECT k, iv, id FROM fb ORDER BY k, iv, id');

-- an estimate past gpusort.max_memory: a GpuSort that writes runs to temp
-- files and merges them (sortspill.c; sort_spill tests it further)
SET gpusort.max_memory = '1MB';
EXPLAIN (COSTS OFF) SELECT * FROM fb ORDER BY s COLLATE "C";

-- more rows than the estimate, past gpusort.max_memory: runs in temp files,
-- merged (into a tuplestore for a SCROLL cursor); bounded under a LIMIT,
-- rescanned and scrolled like a Sort
SET work_mem = '64kB';
SELECT * FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM fb_rows() ORDER BY s COLLATE "C"');
SELECT gs_check('SELECT s COLLATE "C" AS s, k FROM fb_rows() ORDER BY k DESC, 1');
SELECT gs_check('SELECT s FROM fb_rows() ORDER BY s COLLATE "C" LIMIT 10 OFFSET 15000');
-- the bounded fallback's tuplesort must be begun as one that may be bounded
-- (TUPLESORT_ALLOWBOUNDED): PostgreSQL 17 keeps the rows of any other in a
-- bump context, from which the bounded heap cannot free the rows it drops
-- ("GetMemoryChunkSpace called with invalid pointer"); the bound is large
-- enough that the rows held between two prunes outgrow gpusort.max_memory,
-- and work_mem holds the heap
SET work_mem = '4MB';
SELECT * FROM explain_masked('EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM fb_rows() ORDER BY k DESC, id LIMIT 3 OFFSET 6000');
SELECT gs_check('SELECT k, id FROM fb_rows() ORDER BY k DESC, id LIMIT 3 OFFSET 6000');
SET work_mem = '64kB';
SET enable_hashjoin = off;
SET enable_nestloop = off;
SELECT gs_check('SELECT a.k, a.id, b.id AS id2 FROM fb_rows() a JOIN fb b ON a.k = b.k AND a.id < 300 ORDER BY 1, 2, 3');
RESET enable_hashjoin;
RESET enable_nestloop;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT id, s FROM fb_rows() ORDER BY s COLLATE "C";
FETCH LAST FROM c;
FETCH BACKWARD 2 FROM c;
FETCH ABSOLUTE 2 FROM c;
COMMIT;
SET gpusort.enabled = off;
SELECT id, s FROM fb ORDER BY s COLLATE "C" DESC LIMIT 3;
SELECT id, s FROM fb ORDER BY s COLLATE "C" LIMIT 2;
RESET gpusort.enabled;
RESET gpusort.max_memory;
RESET work_mem;

-- an ordering operator whose btree family has no comparison support
-- function for its type (as PostgreSQL's own equivclass test makes one):
-- the comparators are looked up when the sort first runs, as tuplesort
-- does, so EXPLAIN and a sort that never runs work as with stock, and one
-- that runs raises stock's error
SET client_min_messages = warning;
CREATE TYPE gs_int8alias;
CREATE FUNCTION gs_int8aliasin(cstring) RETURNS gs_int8alias
  STRICT IMMUTABLE LANGUAGE internal AS 'int8in';
CREATE FUNCTION gs_int8aliasout(gs_int8alias) RETURNS cstring
  STRICT IMMUTABLE LANGUAGE internal AS 'int8out';
RESET client_min_messages;
CREATE TYPE gs_int8alias (input = gs_int8aliasin, output = gs_int8aliasout, like = int8);
CREATE FUNCTION gs_int8aliaseq(gs_int8alias, gs_int8alias) RETURNS bool
  STRICT IMMUTABLE LANGUAGE internal AS 'int8eq';
CREATE OPERATOR = (PROCEDURE = gs_int8aliaseq, LEFTARG = gs_int8alias, RIGHTARG = gs_int8alias,
  COMMUTATOR = =, RESTRICT = eqsel, JOIN = eqjoinsel, MERGES);
ALTER OPERATOR FAMILY integer_ops USING btree ADD OPERATOR 3 = (gs_int8alias, gs_int8alias);
CREATE FUNCTION gs_int8aliaslt(gs_int8alias, gs_int8alias) RETURNS bool
  STRICT IMMUTABLE LANGUAGE internal AS 'int8lt';
CREATE OPERATOR < (PROCEDURE = gs_int8aliaslt, LEFTARG = gs_int8alias, RIGHTARG = gs_int8alias);
ALTER OPERATOR FAMILY integer_ops USING btree ADD OPERATOR 1 < (gs_int8alias, gs_int8alias);
CREATE TABLE nosupport (f1 gs_int8alias, id int);
INSERT INTO nosupport SELECT i::text::gs_int8alias, i FROM generate_series(1, 3) i;
ANALYZE nosupport;
EXPLAIN (COSTS OFF) SELECT * FROM nosupport ORDER BY f1 USING <;
SELECT * FROM nosupport ORDER BY f1 USING < LIMIT 0;
-- (the error names the type by its oid)
\set VERBOSITY sqlstate
SELECT * FROM nosupport WHERE id > 5 ORDER BY f1 USING <, id;
SELECT * FROM nosupport ORDER BY f1 USING <;
SELECT * FROM nosupport ORDER BY id, f1 USING <;
SET gpusort.enabled = off;
SELECT * FROM nosupport ORDER BY f1 USING <;
RESET gpusort.enabled;
\set VERBOSITY default
DROP TABLE nosupport;
SET client_min_messages = warning;
DROP TYPE gs_int8alias CASCADE;
RESET client_min_messages;
