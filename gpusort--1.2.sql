/* gpusort--1.1.sql */

\echo Use "CREATE EXTENSION gpusort" to load this file. \quit

-- The GpuSort plan node needs no SQL objects: loading the library installs
-- the planner hook.  The objects below are the SQL surface of the rest.

-- ---- GPU sort engine -------------------------------------------------------
-- What this backend knows about the GPU.  start => true starts CUDA here if
-- it was not yet (first_use_ms is then the cost of that first use).
CREATE FUNCTION gpusort_gpu_info(start boolean DEFAULT false,
    OUT built_with_cuda boolean,
    OUT context_held boolean,
    OUT session_slot integer,
    OUT device text,
    OUT compute_capability text,
    OUT sm_count integer,
    OUT total_memory_mb bigint,
    OUT free_memory_mb bigint,
    OUT first_use_ms float8,
    OUT status text,
    OUT device_ordinal integer)
RETURNS record
AS 'MODULE_PATHNAME', 'gpusort_gpu_info'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- ---- memory ------------------------------------------------------------------
-- The memory budgets of GpuSort and what the server's sorts hold now, one
-- row each (README: Memory and containers).  bytes is NULL where there is
-- no such limit (/dev/shm when dynamic shared memory is not POSIX).
CREATE FUNCTION gpusort_memory(
    OUT name text,
    OUT bytes bigint,
    OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpusort_memory'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- Every GPU the server sees (CUDA ordinals, after CUDA_VISIBLE_DEVICES):
-- whether gpusort.devices allows it, the backends holding one of its
-- gpusort.max_gpu_sessions slots, and whether this backend is one.  No
-- rows in a build without CUDA or where no driver answers.
CREATE FUNCTION gpusort_gpu_devices(
    OUT device_ordinal integer,
    OUT device text,
    OUT total_memory_mb bigint,
    OUT free_memory_mb bigint,
    OUT allowed boolean,
    OUT sessions integer,
    OUT max_sessions integer,
    OUT this_session boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpusort_gpu_devices'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- ---- tree_reduce -----------------------------------------------------------
-- Tree reductions over the element trees of XML documents (README:
-- tree_reduce).  The text forms take serialized XML, so trees deeper than
-- the xml type's input accepts can be reduced too.

CREATE FUNCTION tree_reduce_doc(doc xml, op text, weight_attr text DEFAULT 'w')
RETURNS float8
AS 'MODULE_PATHNAME', 'tree_reduce_doc'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tree_reduce_doc(doc text, op text, weight_attr text DEFAULT 'w')
RETURNS float8
AS 'MODULE_PATHNAME', 'tree_reduce_doc'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tree_reduce_trans(internal, xml, text)
RETURNS internal
AS 'MODULE_PATHNAME', 'tree_reduce_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tree_reduce_trans(internal, xml, text, text)
RETURNS internal
AS 'MODULE_PATHNAME', 'tree_reduce_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tree_reduce_trans(internal, text, text)
RETURNS internal
AS 'MODULE_PATHNAME', 'tree_reduce_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tree_reduce_trans(internal, text, text, text)
RETURNS internal
AS 'MODULE_PATHNAME', 'tree_reduce_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tree_reduce_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'tree_reduce_combine'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tree_reduce_final(internal)
RETURNS float8
AS 'MODULE_PATHNAME', 'tree_reduce_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tree_reduce_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'tree_reduce_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION tree_reduce_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'tree_reduce_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE tree_reduce(doc xml, op text) (
	SFUNC = tree_reduce_trans, STYPE = internal,
	FINALFUNC = tree_reduce_final,
	COMBINEFUNC = tree_reduce_combine,
	SERIALFUNC = tree_reduce_serialize, DESERIALFUNC = tree_reduce_deserialize,
	PARALLEL = SAFE
);

CREATE AGGREGATE tree_reduce(doc xml, op text, weight_attr text) (
	SFUNC = tree_reduce_trans, STYPE = internal,
	FINALFUNC = tree_reduce_final,
	COMBINEFUNC = tree_reduce_combine,
	SERIALFUNC = tree_reduce_serialize, DESERIALFUNC = tree_reduce_deserialize,
	PARALLEL = SAFE
);

CREATE AGGREGATE tree_reduce(doc text, op text) (
	SFUNC = tree_reduce_trans, STYPE = internal,
	FINALFUNC = tree_reduce_final,
	COMBINEFUNC = tree_reduce_combine,
	SERIALFUNC = tree_reduce_serialize, DESERIALFUNC = tree_reduce_deserialize,
	PARALLEL = SAFE
);

CREATE AGGREGATE tree_reduce(doc text, op text, weight_attr text) (
	SFUNC = tree_reduce_trans, STYPE = internal,
	FINALFUNC = tree_reduce_final,
	COMBINEFUNC = tree_reduce_combine,
	SERIALFUNC = tree_reduce_serialize, DESERIALFUNC = tree_reduce_deserialize,
	PARALLEL = SAFE
);

-- ---- statistics ------------------------------------------------------------
-- What gpusort did, per database, since the server started or the last
-- gpusort_stat_reset() (README: Statistics).  Kept in shared memory, so only
-- with gpusort in shared_preload_libraries; otherwise both functions raise an
-- error, and queries work as before.  The columns are those of src/runtime/stat.h,
-- in its order.
CREATE FUNCTION gpusort_stat(
    OUT dbid oid,
    OUT sorts_gpu bigint,
    OUT sorts_cpu bigint,
    OUT sorts_tuplesort bigint,
    OUT sorts_cancelled bigint,
    OUT cpu_by_setting bigint,
    OUT cpu_few_rows bigint,
    OUT cpu_parallel_worker bigint,
    OUT cpu_sessions_cap bigint,
    OUT cpu_gpu_unavailable bigint,
    OUT tuplesort_no_encoding bigint,
    OUT tuplesort_max_memory bigint,
    OUT tuplesort_total_memory bigint,
    OUT tuplesort_row_limit bigint,
    OUT stock_min_rows bigint,
    OUT stock_no_encoding bigint,
    OUT stock_max_memory bigint,
    OUT rows_sorted bigint,
    OUT bytes_sorted bigint,
    OUT tie_groups bigint,
    OUT tie_rows bigint,
    OUT strcoll_checks bigint,
    OUT strcoll_repairs bigint,
    OUT spills bigint,
    OUT gpu_bytes bigint,
    OUT windows_computed bigint,
    OUT windows_tuplesort bigint,
    OUT windows_max_memory bigint,
    OUT windows_total_memory bigint,
    OUT agg_not_used_setting bigint,
    OUT agg_not_used_grouping_sets bigint,
    OUT agg_not_used_function bigint,
    OUT agg_not_used_columns bigint,
    OUT agg_not_used_input bigint,
    OUT window_not_used_setting bigint,
    OUT window_not_used_function bigint,
    OUT window_not_used_frame bigint,
    OUT window_not_used_input bigint,
    OUT intake_ms float8,
    OUT keys_ms float8,
    OUT sort_ms float8,
    OUT ties_ms float8,
    OUT verify_ms float8,
    OUT emit_ms float8,
    OUT window_ms float8,
    OUT stats_reset timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpusort_stat'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE VIEW gpusort_stat AS
SELECT d.datname, s.*
  FROM gpusort_stat() s LEFT JOIN pg_catalog.pg_database d ON d.oid = s.dbid;

-- Zeroes the counts of one database, or of all (NULL).  Superuser only, as
-- pg_stat_statements_reset(), unless granted.
CREATE FUNCTION gpusort_stat_reset(dbid oid DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'gpusort_stat_reset'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION gpusort_stat_reset(oid) FROM PUBLIC;

-- ---- GpuSort node ------------------------------------------------------------
-- Loading the library installs the planner hook that puts GpuSort in place of
-- Sort.  Calling gpusort_load() loads it into the calling session (any user
-- may, unlike LOAD); this script calls it, so the session that runs CREATE
-- EXTENSION sorts with GpuSort at once.  For every session, preload the
-- library (README: shared_preload_libraries or session_preload_libraries).
CREATE FUNCTION gpusort_load() RETURNS boolean
	AS 'MODULE_PATHNAME', 'gpusort_load' LANGUAGE C PARALLEL SAFE;
COMMENT ON FUNCTION gpusort_load() IS
	'loads gpusort, and with it the GpuSort planner hook, into this session; returns gpusort.enabled';
SELECT gpusort_load();
