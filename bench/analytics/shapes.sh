# shellcheck shell=bash disable=SC2034   # (S_* are its callers')
# The analytics benchmark's shapes (bench/analytics/analytics.sh), over
# bench/analytics/data.sql's table ev.  Sourced.
#
# shape_def NAME ROWS sets, for one shape:
#   S_KIND   window, aggregate, sort (sorts, pagination, top-N) or export
#   S_FORM   how it is timed and its result checked:
#     small   a SELECT of a small result, timed as it is (psql fetches it
#             whole); checked: COPY (S_SQL) TO STDOUT
#     rows    a SELECT of about a row per row of ev, timed with OFFSET ROWS
#             appended (every row computed, none sent: as bench/sort's
#             scripts); checked: its whole result, COPY (S_SQL) TO STDOUT, or
#             COPY (SELECT * FROM (S_SQL) q ORDER BY S_ORDER) TO STDOUT
#             where S_SQL gives no order of its own (a window's rows)
#     ctas    S_SQL a CREATE UNLOGGED TABLE S_TABLE AS ...; timed after a
#             DROP TABLE; checked: the table, COPY S_TABLE TO STDOUT (its
#             rows in the order they were written)
#     insert  S_SQL an INSERT INTO S_TABLE ... ORDER BY; timed after a
#             TRUNCATE; checked as ctas
#     copy    S_SQL a COPY (S_INNER) TO '/dev/null'; checked: COPY (S_INNER)
#             TO STDOUT, the file's content
#   S_KEYS   where the order is not total: the result's columns (1-based,
#            comma-separated) of its ORDER BY; rows equal on them may come in
#            any order (the check compares them as a multiset), "" otherwise
# Every other shape's result has one order only (id breaks the ties), and
# its values do not depend on the order of ties: the results of stock and
# gpusort must be the same bytes.
#
# shape_time, shape_plan and shape_check NAME ROWS print the timed SQL, the
# statement to EXPLAIN and the check's SQL.

SHAPES_ALL="share moving_avg_7d lag_delta rownum_rank running_revenue ntile_quartile first_last_rows
pct_of_category percent_rank_city topn_per_category distinct_on_latest
median_category median_day pct_disc_country mode_city distinct_users_category string_agg_account
top_users top_account_months
page_name top_amounts sort_geo sort_numeric
ctas_account_ts copy_category_ts insert_daily"
SHAPES_ALL=$(echo $SHAPES_ALL)

shape_def() {
	local n=$2
	S_ORDER=""; S_KEYS=""; S_TABLE=""; S_INNER=""
	case $1 in
	# windows
	share) S_KIND=window S_FORM=rows S_ORDER=id
		S_SQL="SELECT id, account, amount, amount / nullif(sum(amount) OVER (PARTITION BY account), 0) AS share FROM ev" ;;
	moving_avg_7d) S_KIND=window S_FORM=rows S_ORDER=id
		S_SQL="SELECT id, account, day, amount, avg(amount) OVER (PARTITION BY account ORDER BY day RANGE BETWEEN '6 days' PRECEDING AND CURRENT ROW) AS avg_7d FROM ev" ;;
	lag_delta) S_KIND=window S_FORM=rows S_ORDER=id
		S_SQL="SELECT id, account, ts, amount - lag(amount) OVER (PARTITION BY account ORDER BY ts) AS delta FROM ev" ;;
	rownum_rank) S_KIND=window S_FORM=rows S_ORDER=id
		S_SQL="SELECT id, account, amount, row_number() OVER (PARTITION BY account ORDER BY amount DESC, id) AS rn, rank() OVER (PARTITION BY account ORDER BY amount DESC) AS rnk FROM ev" ;;
	running_revenue) S_KIND=window S_FORM=rows S_ORDER=id
		S_SQL="SELECT id, account, ts, sum(price * qty) OVER (PARTITION BY account ORDER BY ts) AS revenue_to_date FROM ev" ;;
	ntile_quartile) S_KIND=window S_FORM=rows S_ORDER=id
		S_SQL="SELECT id, category, amount, ntile(4) OVER (PARTITION BY category ORDER BY amount, id) AS quartile FROM ev" ;;
	first_last_rows) S_KIND=window S_FORM=rows S_ORDER=id
		S_SQL="SELECT id, account, ts, first_value(amount) OVER w AS first_amount, last_value(amount) OVER w AS last_amount FROM ev WINDOW w AS (PARTITION BY account ORDER BY ts ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)" ;;
	pct_of_category) S_KIND=window S_FORM=rows S_ORDER=id
		S_SQL="SELECT id, category, amount, round(100.0 * amount / sum(amount) OVER (PARTITION BY category), 4) AS pct FROM ev" ;;
	percent_rank_city) S_KIND=window S_FORM=rows S_ORDER=id
		S_SQL="SELECT id, country, city, price, percent_rank() OVER (PARTITION BY country, city ORDER BY price) AS pr FROM ev" ;;
	topn_per_category) S_KIND=window S_FORM=small
		S_SQL="SELECT category, rn, id, amount FROM (SELECT category, id, amount, row_number() OVER (PARTITION BY category ORDER BY amount DESC, id) AS rn FROM ev) s WHERE rn <= 3 ORDER BY category, rn" ;;
	distinct_on_latest) S_KIND=sort S_FORM=rows
		S_SQL="SELECT DISTINCT ON (account) account, id, ts, amount FROM ev ORDER BY account, ts DESC" ;;
	# aggregates
	median_category) S_KIND=aggregate S_FORM=small
		S_SQL="SELECT category, percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) AS median FROM ev GROUP BY category ORDER BY category" ;;
	median_day) S_KIND=aggregate S_FORM=small
		S_SQL="SELECT day, percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) AS median FROM ev GROUP BY day ORDER BY day" ;;
	pct_disc_country) S_KIND=aggregate S_FORM=small
		S_SQL="SELECT country, percentile_disc(ARRAY[0.25, 0.5, 0.75, 0.9]) WITHIN GROUP (ORDER BY price) AS quartiles FROM ev GROUP BY country ORDER BY country" ;;
	mode_city) S_KIND=aggregate S_FORM=small
		S_SQL="SELECT city, mode() WITHIN GROUP (ORDER BY category) AS top_category FROM ev GROUP BY city ORDER BY city" ;;
	distinct_users_category) S_KIND=aggregate S_FORM=small
		S_SQL="SELECT category, count(DISTINCT user_id) AS users FROM ev GROUP BY category ORDER BY category" ;;
	string_agg_account) S_KIND=aggregate S_FORM=rows
		S_SQL="SELECT account, string_agg(name, ', ' ORDER BY ts) AS names FROM ev GROUP BY account ORDER BY account" ;;
	top_users) S_KIND=aggregate S_FORM=small
		S_SQL="SELECT user_id, sum(amount) AS total FROM ev GROUP BY user_id ORDER BY 2 DESC, 1 LIMIT 10" ;;
	top_account_months) S_KIND=aggregate S_FORM=small
		S_SQL="SELECT account, date_trunc('month', day) AS month, sum(amount) AS total, count(*) AS n FROM ev GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 100" ;;
	# sorts, pagination, top-N
	page_name) S_KIND=sort S_FORM=small
		S_SQL="SELECT id, name, email, city, amount FROM ev ORDER BY name, id LIMIT 100 OFFSET $((n / 10))" ;;
	top_amounts) S_KIND=sort S_FORM=small
		S_SQL="SELECT id, account, amount, ts FROM ev ORDER BY amount DESC, id LIMIT 100" ;;
	sort_geo) S_KIND=sort S_FORM=rows S_KEYS=8,7,5
		S_SQL="SELECT * FROM ev ORDER BY country, city, name" ;;
	sort_numeric) S_KIND=sort S_FORM=rows
		S_SQL="SELECT id, country, amount, price, ts FROM ev ORDER BY country, amount DESC, price, id" ;;
	# exports
	ctas_account_ts) S_KIND=export S_FORM=ctas S_TABLE=ev_ctas S_KEYS=2,10
		S_SQL="CREATE UNLOGGED TABLE ev_ctas AS SELECT * FROM ev ORDER BY account, ts" ;;
	copy_category_ts) S_KIND=export S_FORM=copy
		S_INNER="SELECT * FROM ev ORDER BY category, ts, id"
		S_SQL="COPY ($S_INNER) TO '/dev/null'" ;;
	insert_daily) S_KIND=export S_FORM=insert S_TABLE=ev_daily
		S_SQL="INSERT INTO ev_daily SELECT day, account, id, amount, category FROM ev WHERE amount > 0 ORDER BY day, account, id" ;;
	*) echo "unknown shape $1 (shapes: $SHAPES_ALL)" >&2; return 1 ;;
	esac
}

# shapes_expand WORD...: the shapes named, a kind (window, aggregate, sort,
# export) standing for its shapes, "all" for all
shapes_expand() {
	local w q list=""
	for w in "$@"; do
		case $w in
			all) list="$list $SHAPES_ALL" ;;
			window|aggregate|sort|export)
				for q in $SHAPES_ALL; do
					shape_def "$q" 1000 && [ "$S_KIND" = "$w" ] && list="$list $q"
				done ;;
			*) shape_def "$w" 1000 >/dev/null || return 1; list="$list $w" ;;
		esac
	done
	echo $list
}

shape_time() {
	shape_def "$1" "$2" || return 1
	case $S_FORM in
		small|copy) echo "$S_SQL" ;;
		rows) echo "$S_SQL OFFSET $2" ;;
		ctas) echo "DROP TABLE IF EXISTS $S_TABLE; $S_SQL" ;;
		insert) echo "TRUNCATE $S_TABLE; $S_SQL" ;;
	esac
}

shape_plan() {
	shape_def "$1" "$2" || return 1
	case $S_FORM in
		copy) echo "$S_INNER" ;;
		# EXPLAIN CREATE TABLE AS fails if the table exists; the plan is the
		# same under another name (EXPLAIN without ANALYZE creates nothing)
		ctas) echo "${S_SQL/TABLE $S_TABLE AS/TABLE ${S_TABLE}_explain AS}" ;;
		*) shape_time "$1" "$2" | sed 's/^DROP TABLE IF EXISTS [a-z_]*; //; s/^TRUNCATE [a-z_]*; //' ;;
	esac
}

shape_check() {
	shape_def "$1" "$2" || return 1
	case $S_FORM in
		small) echo "COPY ($S_SQL) TO STDOUT;" ;;
		rows) if [ -n "$S_ORDER" ]; then
				echo "COPY (SELECT * FROM ($S_SQL) q ORDER BY $S_ORDER) TO STDOUT;"
			else
				echo "COPY ($S_SQL) TO STDOUT;"
			fi ;;
		ctas) echo "DROP TABLE IF EXISTS $S_TABLE; $S_SQL; COPY $S_TABLE TO STDOUT;" ;;
		insert) echo "TRUNCATE $S_TABLE; $S_SQL; COPY $S_TABLE TO STDOUT;" ;;
		copy) echo "COPY ($S_INNER) TO STDOUT;" ;;
	esac
}
