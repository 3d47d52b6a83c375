-- TPC-H Q15, Top Supplier (DATE = 1996-01-01); the view revenue0 as a CTE
-- gs-order: 1   (output columns of the ORDER BY, for bench/tpch/compare.py)
WITH revenue0 (supplier_no, total_revenue) AS (
	SELECT l_suppkey, sum(l_extendedprice * (1 - l_discount))
	  FROM lineitem
	 WHERE l_shipdate >= date '1996-01-01'
	   AND l_shipdate < date '1996-01-01' + interval '3 month'
	 GROUP BY l_suppkey)
SELECT s_suppkey, s_name, s_address, s_phone, total_revenue
  FROM supplier, revenue0
 WHERE s_suppkey = supplier_no
   AND total_revenue = (SELECT max(total_revenue) FROM revenue0)
 ORDER BY s_suppkey;
