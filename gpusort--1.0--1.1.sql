/* gpusort--1.0--1.1.sql */

\echo Use "ALTER EXTENSION gpusort UPDATE TO '1.1'" to load this file. \quit

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
