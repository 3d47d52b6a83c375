/*-------------------------------------------------------------------------
 *
 * winexpr.c
 *	  An aggregate's argument expression as exact fixed-point arithmetic,
 *	  evaluated on GpuWindow's threads.
 *
 * GpuWindow evaluates an aggregate's argument that is an expression, such
 * as sum(price * qty), over every row before computing the window
 * (windownode.c's evaluate_arguments): in the backend, a call of
 * PostgreSQL's functions per row.  For the expressions money is computed
 * with, that call is not needed: +, -, * and unary minus of integers and
 * numerics, the casts between them, columns and constants, give values that
 * fixed-point arithmetic on 128-bit integers gives exactly.  Such an
 * expression is compiled here once (gs_win_expr_compile) into a program
 * run on a stack, in the order PostgreSQL evaluates the expression
 * (arguments before their function), and the threads that read the rows'
 * columns run it on each row (gs_win_expr_eval).
 *
 * The values are PostgreSQL's because every step is the function's
 * definition, not an approximation:
 *	 - integers (int2, int4, int8) are computed in 128 bits, exactly, and
 *	   must land in their result type's range, as int4pl, int48mul and the
 *	   others check;
 *	 - a numeric is v / 10^s, an int128 and its display scale s (read from
 *	   the value's bytes by gs_win_numeric_fixed); numeric_add and
 *	   numeric_sub give the exact sum at the larger display scale,
 *	   numeric_mul the exact product at the sum of the scales (mul_var's
 *	   rscale, which loses no digit), numeric_uminus the negation at the
 *	   same scale, int4_numeric and the others scale 0; numeric_int4 and
 *	   numeric_int8 round half away from zero (round_var) and check the
 *	   range; numeric(x, typmod) rounds to the typmod's scale the same way
 *	   and then checks the precision, as apply_typmod does;
 *	 - the functions are strict: a NULL argument makes the result NULL
 *	   (its other argument having been evaluated, as PostgreSQL evaluates
 *	   every argument before it calls the function).
 *
 * Whatever the program cannot give exactly it does not try to: a NaN or
 * an infinity, a toasted or a malformed numeric, a scale past 38, an
 * intermediate value past 128 bits, and every value PostgreSQL would raise
 * an error about (an integer overflow, a numeric field overflow) make the
 * row GSWX_BACKEND: the backend evaluates that row's expression with
 * PostgreSQL's own functions, as for any expression, so the row's value,
 * or the error it raises at the row WindowAgg raises it at, is
 * PostgreSQL's.  (Evaluating a row twice is harmless: compiled expressions
 * are built-in, immutable functions of the row.)
 *
 * Nothing here calls PostgreSQL once compiled: gs_win_expr_eval reads
 * Datums and bytes, allocates nothing and raises nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/numeric.h"

#include "base/compat.h"
#include "winexpr.h"
#include "winnumeric.h"

/* steps of a program, and the depth of its stack */
#define GSWX_MAX_STEPS		32

typedef enum GsWxOp
{
	GSWX_COLUMN,				/* push a column */
	GSWX_CONST,					/* push a constant */
	GSWX_ADD,					/* pop b, a; push a + b */
	GSWX_SUB,
	GSWX_MUL,
	GSWX_NEG,					/* pop a; push -a */
	GSWX_TO_NUMERIC,			/* an integer as numeric, scale 0 */
	GSWX_TO_INT,				/* a numeric rounded to an integer */
	GSWX_INT_CAST,				/* an integer in another integer type */
	GSWX_TYPMOD					/* numeric(x, precision, scale) */
} GsWxOp;

typedef struct GsWxStep
{
	GsWxOp		op;
	bool		numeric;		/* the step's value is numeric */
	AttrNumber	attno;			/* GSWX_COLUMN */
	Oid			type;			/* GSWX_COLUMN: the column's type */
	bool		cnull;			/* GSWX_CONST */
#ifdef HAVE_INT128
	int128		cval;			/* GSWX_CONST, at cscale */
#endif
	int16		cscale;			/* GSWX_CONST; GSWX_TYPMOD: the scale */
	int16		precision;		/* GSWX_TYPMOD */
	int64		lo,				/* an integer value's type's range */
				hi;
} GsWxStep;

struct GsWinExpr
{
	int			nsteps;
	bool		numeric;
	AttrNumber	maxatt;
	GsWxStep	steps[GSWX_MAX_STEPS];
};

AttrNumber
gs_win_expr_maxatt(const GsWinExpr *x)
{
	return x->maxatt;
}

bool
gs_win_expr_is_numeric(const GsWinExpr *x)
{
	return x->numeric;
}

#ifdef HAVE_INT128

/*
 * 10^e, 0 <= e <= 38: made by gs_win_expr_compile in the backend, before
 * any thread reads it
 */
static int128 pow10s[GSW_NUM_MAX_SCALE + 1];

static void
make_pow10s(void)
{
	int			e;

	pow10s[0] = 1;
	for (e = 1; e <= GSW_NUM_MAX_SCALE; e++)
		pow10s[e] = pow10s[e - 1] * 10;
}

/* ---- compiling -------------------------------------------------------------- */

/* the range of an integer type, false for any other type */
static bool
int_range(Oid type, int64 *lo, int64 *hi)
{
	switch (type)
	{
		case INT2OID:
			*lo = PG_INT16_MIN;
			*hi = PG_INT16_MAX;
			return true;
		case INT4OID:
			*lo = PG_INT32_MIN;
			*hi = PG_INT32_MAX;
			return true;
		case INT8OID:
			*lo = PG_INT64_MIN;
			*hi = PG_INT64_MAX;
			return true;
		default:
			return false;
	}
}

/* the step of a built-in function of integers or numerics, by its OID */
static bool
function_op(Oid fnoid, GsWxOp *op)
{
	switch (fnoid)
	{
		case F_INT2PL: case F_INT4PL: case F_INT8PL: case F_INT24PL:
		case F_INT42PL: case F_INT28PL: case F_INT82PL: case F_INT48PL:
		case F_INT84PL: case F_NUMERIC_ADD:
			*op = GSWX_ADD;
			return true;
		case F_INT2MI: case F_INT4MI: case F_INT8MI: case F_INT24MI:
		case F_INT42MI: case F_INT28MI: case F_INT82MI: case F_INT48MI:
		case F_INT84MI: case F_NUMERIC_SUB:
			*op = GSWX_SUB;
			return true;
		case F_INT2MUL: case F_INT4MUL: case F_INT8MUL: case F_INT24MUL:
		case F_INT42MUL: case F_INT28MUL: case F_INT82MUL: case F_INT48MUL:
		case F_INT84MUL: case F_NUMERIC_MUL:
			*op = GSWX_MUL;
			return true;
		case F_INT2UM: case F_INT4UM: case F_INT8UM: case F_NUMERIC_UMINUS:
			*op = GSWX_NEG;
			return true;
		case F_NUMERIC_INT2: case F_NUMERIC_INT4: case F_NUMERIC_INT8:
			*op = GSWX_TO_NUMERIC;
			return true;
		case F_INT2_NUMERIC: case F_INT4_NUMERIC: case F_INT8_NUMERIC:
			*op = GSWX_TO_INT;
			return true;
		case F_INT4_INT2: case F_INT8_INT2: case F_INT8_INT4:
		case F_INT2_INT4: case F_INT2_INT8: case F_INT4_INT8:
			*op = GSWX_INT_CAST;
			return true;
		case F_NUMERIC_NUMERIC_INT4:
			*op = GSWX_TYPMOD;
			return true;
		default:
			return false;
	}
}

typedef struct WxCompile
{
	GsWinExpr  *x;
	bool		ok;
} WxCompile;

static GsWxStep *
new_step(WxCompile *c, GsWxOp op, Oid type)
{
	GsWxStep   *s;

	if (c->x->nsteps >= GSWX_MAX_STEPS)
	{
		c->ok = false;
		return NULL;
	}
	s = &c->x->steps[c->x->nsteps++];
	memset(s, 0, sizeof(GsWxStep));
	s->op = op;
	s->numeric = type == NUMERICOID;
	if (!s->numeric && !int_range(type, &s->lo, &s->hi))
		c->ok = false;
	return s;
}

/* a numeric Const: finite values that fit only */
static void
compile_const(WxCompile *c, Const *k)
{
	GsWxStep   *s = new_step(c, GSWX_CONST, k->consttype);

	if (s == NULL || !c->ok)
		return;
	s->cnull = k->constisnull;
	if (k->constisnull)
		return;
	if (s->numeric)
	{
		s->cscale = gs_win_numeric_fixed((const struct varlena *)
										 DatumGetPointer(k->constvalue), &s->cval);
		c->ok = s->cscale >= 0;
	}
	else
		s->cval = k->consttype == INT2OID ? DatumGetInt16(k->constvalue) :
			k->consttype == INT4OID ? DatumGetInt32(k->constvalue) :
			DatumGetInt64(k->constvalue);
}

/* numeric(x, typmod): a constant typmod of 0 <= scale <= precision <= 38 */
static void
compile_typmod(WxCompile *c, GsWxStep *s, Node *arg)
{
	Const	   *k = (Const *) arg;
	int32		typmod;

	if (!IsA(k, Const) || k->consttype != INT4OID || k->constisnull)
	{
		c->ok = false;
		return;
	}
	typmod = DatumGetInt32(k->constvalue);
	if (typmod < (int32) VARHDRSZ)
	{
		c->ok = false;			/* no typmod: numeric() copies; rare */
		return;
	}
	s->precision = (int16) (((typmod - VARHDRSZ) >> 16) & 0xffff);
	s->cscale = (int16) ((typmod - VARHDRSZ) & 0xffff);
	if (s->precision < 1 || s->precision > GSW_NUM_MAX_SCALE ||
		s->cscale < 0 || s->cscale > s->precision)
		c->ok = false;
}

static void compile_node(WxCompile *c, Node *node);

/* a function or operator: its arguments' steps, then its own */
static void
compile_call(WxCompile *c, Oid fnoid, List *args, Oid restype)
{
	GsWxOp		op;
	GsWxStep   *s;
	int			nargs = list_length(args);

	if (!function_op(fnoid, &op))
	{
		c->ok = false;
		return;
	}
	if ((op == GSWX_TYPMOD ? 2 : (op == GSWX_ADD || op == GSWX_SUB ||
								   op == GSWX_MUL) ? 2 : 1) != nargs)
	{
		c->ok = false;
		return;
	}
	compile_node(c, linitial(args));
	if (nargs == 2 && op != GSWX_TYPMOD)
		compile_node(c, lsecond(args));
	if (!c->ok)
		return;
	s = new_step(c, op, restype);
	if (s != NULL && op == GSWX_TYPMOD)
		compile_typmod(c, s, lsecond(args));
}

static void
compile_node(WxCompile *c, Node *node)
{
	if (!c->ok)
		return;
	switch (nodeTag(node))
	{
		case T_Var:
			{
				Var		   *var = (Var *) node;
				GsWxStep   *s = new_step(c, GSWX_COLUMN, var->vartype);

				if (s == NULL || var->varno != OUTER_VAR || var->varattno <= 0 ||
					var->varlevelsup != 0)
				{
					c->ok = false;
					return;
				}
				s->attno = var->varattno;
				s->type = var->vartype;
				c->x->maxatt = Max(c->x->maxatt, var->varattno);
				break;
			}
		case T_Const:
			compile_const(c, (Const *) node);
			break;
		case T_RelabelType:
			if (exprType(node) != exprType((Node *) ((RelabelType *) node)->arg))
				c->ok = false;
			else
				compile_node(c, (Node *) ((RelabelType *) node)->arg);
			break;
		case T_OpExpr:
			set_opfuncid((OpExpr *) node);
			compile_call(c, ((OpExpr *) node)->opfuncid, ((OpExpr *) node)->args,
						 exprType(node));
			break;
		case T_FuncExpr:
			if (((FuncExpr *) node)->funcretset)
				c->ok = false;
			else
				compile_call(c, ((FuncExpr *) node)->funcid,
							 ((FuncExpr *) node)->args, exprType(node));
			break;
		default:
			c->ok = false;
			break;
	}
}

GsWinExpr *
gs_win_expr_compile(Expr *expr)
{
	WxCompile	c;
	Oid			type = exprType((Node *) expr);
	int64		lo,
				hi;

	if (expr == NULL || (type != NUMERICOID && !int_range(type, &lo, &hi)))
		return NULL;
	gs_win_expr_prepare();
	c.x = palloc0(sizeof(GsWinExpr));
	c.ok = true;
	compile_node(&c, (Node *) expr);
	if (!c.ok)
	{
		pfree(c.x);
		return NULL;
	}
	c.x->numeric = type == NUMERICOID;
	return c.x;
}

/* ---- evaluating ---------------------------------------------------------------- */

/* a value on the stack: v / 10^scale (integers: scale 0) */
typedef struct WxValue
{
	int128		v;
	int16		scale;
	bool		isnull;
} WxValue;


/* v at a larger scale (by e places); false past 128 bits */
static inline bool
rescale(int128 *v, int e, const int128 *p10)
{
	return e == 0 || !__builtin_mul_overflow(*v, p10[e], v);
}

/*
 * v / 10^e rounded half away from zero (round_var), 0 < e <= 38
 */
static inline int128
round_places(int128 v, int e, const int128 *p10)
{
	int128		q = v / p10[e];
	int128		r = v % p10[e];

	if (r < 0)
		r = -r;
	if (r >= p10[e] - r)
		q += v < 0 ? -1 : 1;
	return q;
}

bool
gs_win_numeric_round(int128 *v, int scale, int to_scale, int precision)
{
	const int128 *p10 = pow10s;

	if (scale > to_scale)
		*v = round_places(*v, scale - to_scale, p10);
	else if (!rescale(v, to_scale - scale, p10))
		return false;
	/* apply_typmod's "numeric field overflow" */
	return precision == 0 || (*v < p10[precision] && -*v < p10[precision]);
}

/* a column's value; false when the backend must read it */
static inline bool
column_value(const GsWxStep *s, const Datum *values, const bool *isnull,
			 WxValue *out)
{
	Datum		d = values[s->attno - 1];

	out->isnull = isnull[s->attno - 1];
	out->v = 0;
	out->scale = 0;
	if (out->isnull)
		return true;
	switch (s->type)
	{
		case INT2OID:
			out->v = DatumGetInt16(d);
			return true;
		case INT4OID:
			out->v = DatumGetInt32(d);
			return true;
		case INT8OID:
			out->v = DatumGetInt64(d);
			return true;
		default:
			out->scale = gs_win_numeric_fixed((const struct varlena *)
											  DatumGetPointer(d), &out->v);
			return out->scale >= 0;
	}
}

/* a + b, a - b or a * b of two values of the step's type */
static inline bool
binary_step(const GsWxStep *s, WxValue *a, const WxValue *b, const int128 *p10)
{
	int128		bv = b->v;

	if (s->op == GSWX_MUL)
	{
		if (__builtin_mul_overflow(a->v, bv, &a->v))
			return false;
		a->scale += b->scale;
		return a->scale <= GSW_NUM_MAX_SCALE;
	}
	/* add and subtract at the larger scale */
	if (a->scale < b->scale)
	{
		if (!rescale(&a->v, b->scale - a->scale, p10))
			return false;
		a->scale = b->scale;
	}
	else if (!rescale(&bv, a->scale - b->scale, p10))
		return false;
	return s->op == GSWX_ADD ? !__builtin_add_overflow(a->v, bv, &a->v) :
		!__builtin_sub_overflow(a->v, bv, &a->v);
}

/* the unary steps */
static inline bool
unary_step(const GsWxStep *s, WxValue *a, const int128 *p10)
{
	switch (s->op)
	{
		case GSWX_NEG:
			a->v = -a->v;		/* |v| < 2^127 always: see run_step */
			return true;
		case GSWX_TO_NUMERIC:
		case GSWX_INT_CAST:
			return true;		/* the range is checked after the step */
		case GSWX_TO_INT:
			if (a->scale > 0)
				a->v = round_places(a->v, a->scale, p10);
			a->scale = 0;
			return true;
		case GSWX_TYPMOD:
			if (!gs_win_numeric_round(&a->v, a->scale, s->cscale, s->precision))
				return false;
			a->scale = s->cscale;
			return true;
		default:
			return false;
	}
}

/* one step on the stack; false when the backend must evaluate the row */
static inline bool
run_step(const GsWxStep *s, WxValue *stack, int *sp, const Datum *values,
		 const bool *isnull, const int128 *p10)
{
	WxValue    *top;

	if (s->op == GSWX_COLUMN || s->op == GSWX_CONST)
	{
		top = &stack[(*sp)++];
		if (s->op == GSWX_COLUMN)
			return column_value(s, values, isnull, top);
		top->isnull = s->cnull;
		top->v = s->cval;
		top->scale = s->cscale;
		return true;
	}
	if (s->op == GSWX_ADD || s->op == GSWX_SUB || s->op == GSWX_MUL)
	{
		WxValue    *b = &stack[--(*sp)];

		top = &stack[*sp - 1];
		if (top->isnull || b->isnull)
			top->isnull = true;
		else if (!binary_step(s, top, b, p10))
			return false;
	}
	else
	{
		top = &stack[*sp - 1];
		if (!top->isnull && !unary_step(s, top, p10))
			return false;
	}
	if (top->isnull)
	{
		top->v = 0;
		return true;
	}
	/* an integer result in its type's range; any value within 2^126 */
	if (!s->numeric)
		return top->v >= s->lo && top->v <= s->hi;
	return top->v < ((int128) 1 << 126) && top->v > -((int128) 1 << 126);
}

GsWxResult
gs_win_expr_eval(const GsWinExpr *x, const Datum *values, const bool *isnull,
				 int128 *v, int16 *scale)
{
	WxValue		stack[GSWX_MAX_STEPS];
	const int128 *p10 = pow10s;
	int			sp = 0;
	int			i;

	for (i = 0; i < x->nsteps; i++)
		if (!run_step(&x->steps[i], stack, &sp, values, isnull, p10))
			return GSWX_BACKEND;
	if (stack[0].isnull)
		return GSWX_NULL;
	*v = stack[0].v;
	*scale = stack[0].scale;
	return GSWX_VALUE;
}

/* ---- numeric results: division and bytes ----------------------------------------- */

/*
 * The number of decimal digits of u > 0: from its bit length (log10(2) is
 * about 1233 / 4096, which never overestimates here), then one comparison
 */
static inline int
decimal_digits(int128 u)
{
	uint64		hi = (uint64) (u >> 64);
	int			bits = hi != 0 ? 128 - __builtin_clzll(hi) :
		64 - __builtin_clzll((uint64) u);
	int			d = (bits * 1233) >> 12;	/* digits - 1 or digits */

	if (d <= GSW_NUM_MAX_SCALE && u >= pow10s[d])
		d++;
	return d;
}

/*
 * The weight and first digit of |v| / 10^scale in base 10000, as numeric.c
 * stores it (no leading zero digit): select_div_scale's weightN and
 * firstdigitN; 0 and 0 for zero
 */
static void
base10000_lead(int128 v, int scale, int *weight, int *first)
{
	int128		u = v < 0 ? -v : v;
	int			digits = 0,
				e,
				w;

	*weight = 0;
	*first = 0;
	if (u == 0)
		return;
	digits = decimal_digits(u);
	/* the leading decimal digit weighs 10^e; its base-10000 digit 10000^w */
	e = digits - 1 - scale;
	w = e >= 0 ? e / 4 : -((-e + 3) / 4);
	*weight = w;
	/*
	 * floor(u / 10^(scale + 4w)), below 10^4 since scale + 4w > digits - 5:
	 * a 64-bit division, or past 64 bits a long double's estimate made
	 * exact by multiplying back, cheaper than a 128-bit division
	 */
	if (scale + 4 * w > 0 && u <= (int128) PG_UINT64_MAX)
		*first = (int) ((uint64) u / (uint64) pow10s[scale + 4 * w]);
	else if (scale + 4 * w > 0)
	{
		int128		p = pow10s[scale + 4 * w];
		int			q = (int) ((long double) u / (long double) p);

		while (q > 0 && (int128) q * p > u)
			q--;
		while ((int128) (q + 1) * p <= u)
			q++;
		*first = q;
	}
	else
		*first = (int) (u * pow10s[-(scale + 4 * w)]);
}

bool
gs_win_numeric_div(int128 a, int ascale, int128 b, int bscale, int128 *q,
				   int16 *scale)
{
	GsWinDivisor div = {.valid = false};

	return gs_win_numeric_div_by(a, ascale, b, bscale, &div, q, scale);
}

bool
gs_win_numeric_div_by(int128 a, int ascale, int128 b, int bscale,
					  GsWinDivisor *div, int128 *q, int16 *scale)
{
	int			w1,
				f1,
				w2,
				f2,
				qweight,
				rscale;
	int128		n,
				r,
				absr,
				absb;

	if (b == 0)
		return false;
	/* select_div_scale */
	base10000_lead(a, ascale, &w1, &f1);
	if (!div->valid || div->v != b || div->scale != bscale)
	{
		base10000_lead(b, bscale, &div->weight, &div->first);
		div->v = b;
		div->scale = bscale;
		div->valid = true;
	}
	w2 = div->weight;
	f2 = div->first;
	qweight = w1 - w2;
	if (f1 <= f2)
		qweight--;
	rscale = NUMERIC_MIN_SIG_DIGITS - qweight * 4;
	rscale = Max(rscale, ascale);
	rscale = Max(rscale, bscale);
	rscale = Max(rscale, NUMERIC_MIN_DISPLAY_SCALE);
	if (rscale > GSW_NUM_ENCODED_SCALE)
		return false;
	/* a * 10^(rscale - ascale + bscale) / b, rounded half away from zero */
	if (rscale - ascale + bscale > GSW_NUM_MAX_SCALE ||
		__builtin_mul_overflow(a, pow10s[rscale - ascale + bscale], &n))
		return false;
	*q = n / b;
	r = n - *q * b;
	absr = r < 0 ? -r : r;
	absb = b < 0 ? -b : b;
	if (absr >= absb - absr)
		*q += ((n < 0) != (b < 0)) ? -1 : 1;
	*scale = (int16) rscale;
	return true;
}

bool
gs_win_numeric_addsub(int128 a, int ascale, int128 b, int bscale, bool sub,
					  int128 *r, int16 *scale)
{
	int			s = Max(ascale, bscale);

	if (s > GSW_NUM_ENCODED_SCALE ||
		!rescale(&a, s - ascale, pow10s) || !rescale(&b, s - bscale, pow10s))
		return false;
	*scale = (int16) s;
	return sub ? !__builtin_sub_overflow(a, b, r) : !__builtin_add_overflow(a, b, r);
}

/* an unsigned 256-bit integer, for the square root's comparisons */
typedef struct U256
{
	unsigned __int128 hi;
	unsigned __int128 lo;
} U256;

/* a * b, both below 2^128 */
static U256
mul_u256(unsigned __int128 a, unsigned __int128 b)
{
	const unsigned __int128 mask = (unsigned __int128) UINT64_MAX;
	unsigned __int128 a0 = a & mask,
				a1 = a >> 64,
				b0 = b & mask,
				b1 = b >> 64;
	unsigned __int128 p00 = a0 * b0,
				p01 = a0 * b1,
				p10 = a1 * b0,
				p11 = a1 * b1;
	unsigned __int128 mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
	U256		r;

	r.lo = (p00 & mask) | (mid << 64);
	r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
	return r;
}

/* a + b (no carry out of 256 bits here) */
static U256
add_u256(U256 a, unsigned __int128 b)
{
	a.lo += b;
	if (a.lo < b)
		a.hi++;
	return a;
}

static inline bool
le_u256(U256 a, U256 b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo);
}

bool
gs_win_numeric_sqrt(int128 v, int scale, int128 *root)
{
	U256		m;
	long double est;
	unsigned __int128 x;

	if (v < 0 || scale > GSW_NUM_MAX_SCALE)
		return false;
	/* sqrt(v / 10^s) * 10^s = sqrt(m), m = v * 10^s (up to 2^254) */
	m = mul_u256((unsigned __int128) v, (unsigned __int128) pow10s[scale]);
	est = sqrtl((long double) v) * sqrtl(powl(10.0L, scale));
	if (!(est < 1.0e37L))
		return false;
	x = (unsigned __int128) est;
	/* floor(sqrt(m)): the estimate, made exact */
	while (x > 0 && !le_u256(mul_u256(x, x), m))
		x--;
	while (le_u256(mul_u256(x + 1, x + 1), m))
		x++;
	/* round half up: m >= (x + 1/2)^2, that is m >= x^2 + x + 1 */
	if (le_u256(add_u256(mul_u256(x, x), x + 1), m))
		x++;
	*root = (int128) x;
	return true;
}

/* numeric.c's layout (see winnumeric.c's gs_win_numeric_fixed) */
#define NUME_SHORT			0x8000
#define NUME_NEG			0x4000
#define NUME_SHORT_SIGN		0x2000
#define NUME_SHORT_DSCALE_SHIFT	7
#define NUME_SHORT_WEIGHT_SIGN	0x0040
#define NUME_SHORT_WEIGHT_MASK	0x003F
#define NUME_DSCALE_MASK	0x3FFF
#define NUME_NBASE			10000

/*
 * The base-10000 digits of u / 10^scale (scale <= GSW_NUM_ENCODED_SCALE),
 * most significant first, into d (room for 18); returns how many, *weight
 * the first one's.  The fraction, padded to whole digits, is below 10^32:
 * two 64-bit halves of 16 decimal digits each, so that the digits come
 * from 64-bit divisions by a constant, not 128-bit ones.
 */
static int
base10000_digits(int128 u, int scale, int16 *d, int *weight)
{
	const int128 e16 = (int128) 10000000000000000LL;
	int			pad = (4 - scale % 4) % 4;
	int			nfrac = (scale + pad) / 4;
	int128		ip,
				fpp;
	uint64		half[2];
	int16		intd[12];
	int			nint = 0,
				n = 0,
				k;

	/* 64-bit divisions where the values allow, the usual case */
	if (u < pow10s[scale])
		ip = 0;
	else if (u <= (int128) PG_UINT64_MAX && scale <= 19)
		ip = (uint64) u / (uint64) pow10s[scale];
	else
		ip = u / pow10s[scale];
	fpp = (u - ip * pow10s[scale]) * pow10s[pad];
	if (ip <= (int128) PG_UINT64_MAX)
	{
		uint64		x = (uint64) ip;

		for (; x > 0; x /= NUME_NBASE)
			intd[nint++] = (int16) (x % NUME_NBASE);
	}
	else
		for (; ip > 0; ip /= NUME_NBASE)
			intd[nint++] = (int16) (ip % NUME_NBASE);
	for (k = nint - 1; k >= 0; k--)
		d[n++] = intd[k];
	half[1] = fpp <= (int128) PG_UINT64_MAX ? (uint64) fpp / (uint64) e16 :
		(uint64) (fpp / e16);
	half[0] = (uint64) (fpp - (int128) half[1] * e16);
	for (k = 0; k < nfrac; k++)
	{
		/* the k-th digit from the last: the low half's first four */
		uint64	   *h = &half[k < 4 ? 0 : 1];

		d[n + nfrac - 1 - k] = (int16) (*h % NUME_NBASE);
		*h /= NUME_NBASE;
	}
	*weight = nint - 1;
	return n + nfrac;
}

Size
gs_win_numeric_encode(int128 v, int scale, char *out)
{
	int16		digits[24];
	int16	   *d = digits;
	bool		neg = v < 0;
	int			weight,
				n;
	Size		len;
	uint16		header;

	if (scale < 0 || scale > GSW_NUM_ENCODED_SCALE)
		return 0;
	n = base10000_digits(neg ? -v : v, scale, digits, &weight);
	/* make_result: no leading or trailing zero digit; zero is positive */
	while (n > 0 && *d == 0)
	{
		d++;
		weight--;
		n--;
	}
	while (n > 0 && d[n - 1] == 0)
		n--;
	if (n == 0)
	{
		weight = 0;
		neg = false;
	}
	if (scale <= 63 && weight <= 63 && weight >= -64)
	{
		len = VARHDRSZ + sizeof(uint16) + n * sizeof(int16);
		header = (neg ? (NUME_SHORT | NUME_SHORT_SIGN) : NUME_SHORT) |
			(scale << NUME_SHORT_DSCALE_SHIFT) |
			(weight < 0 ? NUME_SHORT_WEIGHT_SIGN : 0) |
			(weight & NUME_SHORT_WEIGHT_MASK);
		memcpy(out + VARHDRSZ, &header, sizeof(uint16));
		memcpy(out + VARHDRSZ + sizeof(uint16), d, n * sizeof(int16));
	}
	else
	{
		int16		w = (int16) weight;

		len = VARHDRSZ + 2 * sizeof(uint16) + n * sizeof(int16);
		header = (neg ? NUME_NEG : 0) | (scale & NUME_DSCALE_MASK);
		memcpy(out + VARHDRSZ, &header, sizeof(uint16));
		memcpy(out + VARHDRSZ + sizeof(uint16), &w, sizeof(int16));
		memcpy(out + VARHDRSZ + 2 * sizeof(uint16), d, n * sizeof(int16));
	}
	SET_VARSIZE(out, len);
	return len;
}

void
gs_win_expr_prepare(void)
{
	if (pow10s[0] == 0)
		make_pow10s();
}

#else							/* !HAVE_INT128 */

void
gs_win_expr_prepare(void)
{
}


GsWinExpr *
gs_win_expr_compile(Expr *expr)
{
	return NULL;
}

#endif							/* HAVE_INT128 */
