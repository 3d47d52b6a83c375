-- Keys for real data (issue 26): every sort column in the key, dictionary
-- ranks for columns of few values, in a database of each default locale
-- (en_US.UTF-8: strxfrm prefixes; C.UTF-8: byte order), checked against
-- stock PostgreSQL (test/sort/sql/keys_real_body.sql).
\getenv abs_srcdir PG_ABS_SRCDIR
\set gs_check_sql :abs_srcdir '/test/sort/sql/gs_check.sql'
\set body_sql :abs_srcdir '/test/sort/sql/keys_real_body.sql'
SET client_min_messages = warning;
DROP DATABASE IF EXISTS gs_keys_en;
DROP DATABASE IF EXISTS gs_keys_cu;
RESET client_min_messages;
CREATE DATABASE gs_keys_en TEMPLATE template0 ENCODING 'UTF8' LOCALE 'en_US.UTF-8';
CREATE DATABASE gs_keys_cu TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8';

\c gs_keys_en
\i :body_sql

\c gs_keys_cu
\i :body_sql

\c contrib_regression
DROP DATABASE gs_keys_en;
DROP DATABASE gs_keys_cu;
