-- TPC-H Q11, Important Stock Identification (NATION = GERMANY, FRACTION = 0.0001 / SF:
-- 0.0001 as written, for SF 1; tpch_query of bench/tpch/load.sh writes 0.0001 / SF)
-- gs-order: 2   (output columns of the ORDER BY, for bench/tpch/compare.py)
SELECT ps_partkey, sum(ps_supplycost * ps_availqty) AS value
  FROM partsupp, supplier, nation
 WHERE ps_suppkey = s_suppkey
   AND s_nationkey = n_nationkey
   AND n_name = 'GERMANY'
 GROUP BY ps_partkey
HAVING sum(ps_supplycost * ps_availqty) > (
	SELECT sum(ps_supplycost * ps_availqty) * 0.0001000000
	  FROM partsupp, supplier, nation
	 WHERE ps_suppkey = s_suppkey
	   AND s_nationkey = n_nationkey
	   AND n_name = 'GERMANY')
 ORDER BY value DESC;
