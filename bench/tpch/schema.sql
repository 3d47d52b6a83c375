-- The 8 tables of TPC-H (TPC Benchmark H, specification 3.0.1, clause 1.4),
-- as PostgreSQL TPC-H kits define them: keys integer (orders' keys fit up
-- to SF 300), money numeric(15,2), fixed texts char(N), free texts
-- varchar(N); primary keys, and an index on each foreign key's columns that
-- no primary key covers (TPC-H allows indexes on primary and foreign keys
-- only; without lineitem's on l_partkey, queries 17 and 20, whose
-- correlated subqueries PostgreSQL runs once a row, scan lineitem once a
-- row: hours at SF 1).  No foreign key constraints.
--
-- TPC-H-derived, not TPC-H: the data of bench/tpch/load.sh is not the
-- official dbgen's, and no result here is an audited TPC-H result.
--
--   psql -f schema.sql                      tables with their keys and indexes
--   psql -v tpch_phase=tables -f schema.sql the tables only (a loader adds
--   psql -v tpch_phase=keys -f schema.sql   keys and indexes after the data)

\if :{?tpch_phase}
\else
\set tpch_phase all
\endif
SELECT :'tpch_phase' IN ('all', 'tables') AS tpch_tables,
       :'tpch_phase' IN ('all', 'keys') AS tpch_keys \gset

\if :tpch_tables
CREATE TABLE region (
	r_regionkey   integer NOT NULL,
	r_name        char(25) NOT NULL,
	r_comment     varchar(152)
);

CREATE TABLE nation (
	n_nationkey   integer NOT NULL,
	n_name        char(25) NOT NULL,
	n_regionkey   integer NOT NULL,
	n_comment     varchar(152)
);

CREATE TABLE part (
	p_partkey     integer NOT NULL,
	p_name        varchar(55) NOT NULL,
	p_mfgr        char(25) NOT NULL,
	p_brand       char(10) NOT NULL,
	p_type        varchar(25) NOT NULL,
	p_size        integer NOT NULL,
	p_container   char(10) NOT NULL,
	p_retailprice numeric(15,2) NOT NULL,
	p_comment     varchar(23) NOT NULL
);

CREATE TABLE supplier (
	s_suppkey     integer NOT NULL,
	s_name        char(25) NOT NULL,
	s_address     varchar(40) NOT NULL,
	s_nationkey   integer NOT NULL,
	s_phone       char(15) NOT NULL,
	s_acctbal     numeric(15,2) NOT NULL,
	s_comment     varchar(101) NOT NULL
);

CREATE TABLE partsupp (
	ps_partkey    integer NOT NULL,
	ps_suppkey    integer NOT NULL,
	ps_availqty   integer NOT NULL,
	ps_supplycost numeric(15,2) NOT NULL,
	ps_comment    varchar(199) NOT NULL
);

CREATE TABLE customer (
	c_custkey     integer NOT NULL,
	c_name        varchar(25) NOT NULL,
	c_address     varchar(40) NOT NULL,
	c_nationkey   integer NOT NULL,
	c_phone       char(15) NOT NULL,
	c_acctbal     numeric(15,2) NOT NULL,
	c_mktsegment  char(10) NOT NULL,
	c_comment     varchar(117) NOT NULL
);

CREATE TABLE orders (
	o_orderkey      integer NOT NULL,
	o_custkey       integer NOT NULL,
	o_orderstatus   char(1) NOT NULL,
	o_totalprice    numeric(15,2) NOT NULL,
	o_orderdate     date NOT NULL,
	o_orderpriority char(15) NOT NULL,
	o_clerk         char(15) NOT NULL,
	o_shippriority  integer NOT NULL,
	o_comment       varchar(79) NOT NULL
);

CREATE TABLE lineitem (
	l_orderkey      integer NOT NULL,
	l_partkey       integer NOT NULL,
	l_suppkey       integer NOT NULL,
	l_linenumber    integer NOT NULL,
	l_quantity      numeric(15,2) NOT NULL,
	l_extendedprice numeric(15,2) NOT NULL,
	l_discount      numeric(15,2) NOT NULL,
	l_tax           numeric(15,2) NOT NULL,
	l_returnflag    char(1) NOT NULL,
	l_linestatus    char(1) NOT NULL,
	l_shipdate      date NOT NULL,
	l_commitdate    date NOT NULL,
	l_receiptdate   date NOT NULL,
	l_shipinstruct  char(25) NOT NULL,
	l_shipmode      char(10) NOT NULL,
	l_comment       varchar(44) NOT NULL
);
\endif

\if :tpch_keys
ALTER TABLE region   ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation   ADD PRIMARY KEY (n_nationkey);
ALTER TABLE part     ADD PRIMARY KEY (p_partkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE orders   ADD PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);
CREATE INDEX nation_regionkey ON nation (n_regionkey);
CREATE INDEX supplier_nationkey ON supplier (s_nationkey);
CREATE INDEX partsupp_suppkey ON partsupp (ps_suppkey);
CREATE INDEX customer_nationkey ON customer (c_nationkey);
CREATE INDEX orders_custkey ON orders (o_custkey);
CREATE INDEX lineitem_part_supp ON lineitem (l_partkey, l_suppkey);
CREATE INDEX lineitem_suppkey ON lineitem (l_suppkey);
\endif
