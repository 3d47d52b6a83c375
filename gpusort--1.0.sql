/* gpusort--1.0.sql */

\echo Use "CREATE EXTENSION gpusort" to load this file. \quit

-- The GpuSort plan node needs no SQL objects: loading the library installs
-- the planner hook.  The objects below are the SQL surface of the rest.

-- ---- GPU sort engine -------------------------------------------------------
-- (section owned by the sort engine work)

-- ---- tree_reduce -----------------------------------------------------------
-- (section owned by the tree_reduce work)
