-- Text in the database's own libc collation: a database created with
-- LOCALE 'en_US.UTF-8' (strxfrm prefixes, checked with strcoll) and one
-- with LOCALE 'C.UTF-8' (byte order, exact keys), each running the same
-- checks against stock PostgreSQL (test/sort/sql/collation_body.sql).
-- test/run-all generates the locales (en_US, de_DE, sv_SE, tr_TR).
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set body_sql :abs_srcdir '/test/sort/sql/collation_body.sql'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS gs_coll_en;
DROP DATABASE IF EXISTS gs_coll_cu;
RESET client_min_messages;
CREATE DATABASE gs_coll_en TEMPLATE template0 ENCODING 'UTF8' LOCALE 'en_US.UTF-8';
CREATE DATABASE gs_coll_cu TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8';

\c gs_coll_en
\i :body_sql

\c gs_coll_cu
\i :body_sql

\c contrib_regression
DROP DATABASE gs_coll_en;
DROP DATABASE gs_coll_cu;
