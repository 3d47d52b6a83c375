-- TPC-H Q4, Order Priority Checking (DATE = 1993-07-01)
-- gs-order: 1   (output columns of the ORDER BY, for bench/tpch/compare.py)
SELECT o_orderpriority, count(*) AS order_count
  FROM orders
 WHERE o_orderdate >= date '1993-07-01'
   AND o_orderdate < date '1993-07-01' + interval '3 month'
   AND EXISTS (
	SELECT *
	  FROM lineitem
	 WHERE l_orderkey = o_orderkey
	   AND l_commitdate < l_receiptdate)
 GROUP BY o_orderpriority
 ORDER BY o_orderpriority;
