/*-------------------------------------------------------------------------
 *
 * tree_contract.cu
 *	  Pseudo-tree contraction on the GPU (Koike and Sadakane, section 3.3): steps 1
 *	  and 3 of the four-step tree reduction.  Steps 2 and 4 (Algorithm 3.2
 *	  and the O(k) replay) are sequential over O(k) items and run on the host
 *	  in contract.c (gs_match_parentheses, gs_contract_global), so the CPU
 *	  and the GPU share them exactly.
 *
 * Step 1, local contraction of pseudo-trees (section 3.4).  The token array
 * is cut into k pieces of piece_len tokens; one warp (the paper's
 * multiprocessor with b = 32 cores) contracts one piece into its 5-tuple
 * (A, B, C, NA, NC) of contract.h.  The piece is read in sub-blocks of
 * b^2 = 1024 tokens:
 *
 *	1. The sub-block is read row by row with coalesced loads (the next
 *	   sub-block's loads are issued before the current one is processed) and
 *	   stored in shared memory as the b x b matrix w with w[i][j] at
 *	   b*i + (i+j) % b (Figure 17(b)), so that lane i reading w[i][j] for
 *	   the same j on every lane touches 32 different banks.
 *	2. Lane i runs Algorithm 3.1 over row i, producing a 5-tuple t_i whose
 *	   arrays live in "bank i": A_i[j] at b*j + i (Figure 18).  B_i and C_i
 *	   share one column (B from the top, C from the bottom: a row leaves at
 *	   most 33 entries in all), and their tops stay in registers.
 *	3. The arrays are rotated in place to A_i[j] at b*j + (i+j) % b (Figure
 *	   19), so that the lanes can read different entries of one t_i at once.
 *	4. t_0 .. t_31 are merged, in order, into the running 5-tuple T of the
 *	   piece.  Merging t closes the top m = min(NC_t - 1, NA_T) open
 *	   vertices of T: vertex A_T[x] gets its children from B_T[x] and
 *	   C_t[NA_T - 1 - x].  For small m the lanes close them in turn (one
 *	   shuffle per vertex); otherwise lane l takes one of the m vertices as
 *	   a one-level chain (contract.h's GsChain), the warp composes the
 *	   chains in order with the partial contraction rule (gs_op_rho, via
 *	   gs_chain_concat) in log2(m) shuffle rounds, and the composed chain
 *	   applied to the identity is the value of the shallowest closed
 *	   vertex.  t's other end tags extend C_T, and t's open vertices are
 *	   pushed onto A_T / B_T.
 *
 *	The top 64 entries of T's A / B stack live in registers, two per lane,
 *	so a merge is a handful of shuffles; deeper entries are in global
 *	memory (k * (piece_len + 1) entries per array: a piece never has more
 *	open vertices or unmatched end tags than tokens), written when a push
 *	moves them out of the window and read when a pop moves them back.  The
 *	top of C_T is a register.  Every token is read from global memory once,
 *	and a merge, which consumes a row of 32 tokens, moves at most 32
 *	entries out of or into the window, so T's traffic stays within a
 *	constant factor of the input's: the paper's O(n/b) I/O.
 *
 * Step 3, local contraction of the contracted trees (section 3.6).  Each
 * interval of Algorithm 3.2 (A_p[lo..hi] closed by piece q's end tags
 * cfirst..) becomes one GsChain: one warp per interval folds 32 vertices
 * per round with the same ordered shuffle reduction.
 *
 * Values (GsVal) are two doubles; only max_subtree uses the second, so the
 * kernels are instantiated per op and the other ops store and shuffle one
 * double per value (half the shared memory and traffic).  Because the
 * partial contraction rule reassociates (+), results with fractional
 * weights can differ from the sequential order in the last bits, exactly
 * like the CPU's chunked contraction; integral weights give identical
 * results.
 *
 *-------------------------------------------------------------------------
 */
#include <stdint.h>
#include <string.h>

/*
 * GSK_TREE_EMULATE: only the kernels, for test/tree/cpu/tree_contract_emu.cpp,
 * which runs each warp as 32 CPU threads so that CI (no GPU) tests the
 * kernels' logic against contract.c.
 */
#ifndef GSK_TREE_EMULATE
#include <cuda_runtime.h>

#include "gsk_internal.cuh"

#define WARP_SMEM(name)	extern __shared__ double name[]
#endif

#include "gpusort_kernels.h"
#include "tree/contract.h"

#define GSK_EXPORT __attribute__((visibility("default")))

#define TB		32				/* b: lanes of a warp, length of a row */
#define SUB		(TB * TB)		/* b^2: tokens of a sub-block */
#define FULL	0xffffffffu
#define SEQ_CLOSE	6			/* merges closing at most this many vertices
								 * run them on one lane */

/* doubles per stored value: two (m, s) for max_subtree, else just m */
template <int OP>
struct ValWidth
{
	static constexpr int n = (OP == GS_OP_MAX_SUBTREE) ? 2 : 1;
};

template <int OP>
__device__ __forceinline__ GsVal
vload(const double *p, size_t i)
{
	if constexpr (ValWidth<OP>::n == 2)
	{
		double2		v = reinterpret_cast<const double2 *>(p)[i];

		return gs_val(v.x, v.y);
	}
	else
		return gs_val(p[i], 0.0);
}

template <int OP>
__device__ __forceinline__ void
vstore(double *p, size_t i, GsVal v)
{
	if constexpr (ValWidth<OP>::n == 2)
		reinterpret_cast<double2 *>(p)[i] = make_double2(v.m, v.s);
	else
		p[i] = v.m;
}

template <int OP>
__device__ __forceinline__ GsVal
shfl_val(GsVal v, int src)
{
	v.m = __shfl_sync(FULL, v.m, src);
	if constexpr (ValWidth<OP>::n == 2)
		v.s = __shfl_sync(FULL, v.s, src);
	return v;
}

template <int OP>
__device__ __forceinline__ GsVal
shfl_down_val(GsVal v, int off)
{
	v.m = __shfl_down_sync(FULL, v.m, off);
	if constexpr (ValWidth<OP>::n == 2)
		v.s = __shfl_down_sync(FULL, v.s, off);
	return v;
}

template <int OP>
__device__ __forceinline__ GsChain
shfl_down_chain(const GsChain &c, int off)
{
	GsChain		o;

	o.levels = __shfl_down_sync(FULL, c.levels, off);
	o.a_top = __shfl_down_sync(FULL, c.a_top, off);
	o.b_top = shfl_down_val<OP>(c.b_top, off);
	o.c_top = shfl_down_val<OP>(c.c_top, off);
	o.a_bot = __shfl_down_sync(FULL, c.a_bot, off);
	o.b_bot = shfl_down_val<OP>(c.b_bot, off);
	o.c_bot = shfl_down_val<OP>(c.c_bot, off);
	return o;
}

/*
 * Compose the chains of lanes 0 .. cnt-1, lane 0 outermost (top), lane
 * cnt-1 innermost.  Composition is associative but not commutative, so the
 * tree keeps neighbours together: after the round with offset off, lane
 * l (a multiple of 2 off) holds lanes l .. l + 2 off - 1.  The result is in
 * lane 0.  cnt must be the same on every lane.
 */
template <int OP>
__device__ __forceinline__ GsChain
warp_compose(GsChain ch, int cnt)
{
	const int	lane = threadIdx.x & (TB - 1);

	for (int off = 1; off < cnt; off <<= 1)
	{
		GsChain		o = shfl_down_chain<OP>(ch, off);

		if ((lane & (2 * off - 1)) == 0 && lane + off < cnt)
			gs_chain_concat(OP, &ch, &o);
	}
	return ch;
}

/* ---- step 1 -------------------------------------------------------------- */

struct LocalArgs
{
	const double *tok;
	size_t		ntok;
	size_t		piece_len;		/* a multiple of SUB */
	size_t		cap;			/* entries of each piece's A, B and C */
	double	   *A;				/* k * cap */
	double	   *B;				/* k * cap values */
	double	   *C;				/* k * cap values */
	uint64_t   *na;				/* k */
	uint64_t   *nc;				/* k */
	double	   *ctop;			/* k * 2: C[NC-1] of each piece */
};

/* shared memory of one warp, in doubles */
template <int OP>
constexpr size_t
local_smem_doubles()
{
	return SUB					/* w */
		+ SUB					/* A_i */
		+ (size_t) (TB + 1) * TB * ValWidth<OP>::n;	/* B_i and C_i */
}

/*
 * Lane i's B_i and C_i share one column of TB + 1 rows: B_i[j] in row j,
 * C_i[j] in row TB - j.  A row of 32 tokens leaves NA open vertices and
 * NC - 1 unmatched end tags, so NA + NC <= TB + 1 and they never meet.
 */
#define CROW(j)		(TB - (j))

/* index of entry (row) j of row tuple i after the rotation of Figure 19 */
__device__ __forceinline__ int
rot(int i, int j)
{
	return j * TB + ((i + j) & (TB - 1));
}

/* reg[r] = tok[base + r*TB + lane], 32 independent coalesced loads */
__device__ __forceinline__ void
load_sub(const double *__restrict__ tok, size_t base, size_t end, double *reg)
{
	const int	lane = threadIdx.x;

#pragma unroll
	for (int r = 0; r < TB; r++)
	{
		size_t		i = base + (size_t) r * TB + lane;

		reg[r] = i < end ? __ldg(tok + i) : 0.0;
	}
}

/* Figure 19: row j of a bank-per-lane array rotates right by j */
template <int W>
__device__ __forceinline__ void
rotate_row(double *s, int j)
{
	const int	lane = threadIdx.x;

	if constexpr (W == 2)
	{
		double2	   *s2 = reinterpret_cast<double2 *>(s);
		double2		v = s2[j * TB + lane];

		__syncwarp();
		s2[rot(lane, j)] = v;
	}
	else
	{
		double		v = s[j * TB + lane];

		__syncwarp();
		s[rot(lane, j)] = v;
	}
}

/*
 * The running tuple T of one piece.  The top 2 * TB entries of its A / B
 * stack live in registers, spread over the warp: stack slot s (s = 0 is the
 * top, position na - 1 - s) is lane s % TB's a0/b0 for s < TB and a1/b1
 * for s >= TB.  Positions below the window, [0, na - 2 TB), are in global
 * memory: an entry is written there when a push moves it out of the
 * window and read back when a pop moves it in.  Merges thus only shuffle
 * registers; trees up to 64 deep never touch global memory for T at all.
 * The scalars (na, nc, ctop = C_T[nc - 1]) are the same on every lane.
 */
template <int OP>
struct Tuple
{
	double	   *gA;
	double	   *gB;
	double	   *gC;
	size_t		na;
	size_t		nc;
	GsVal		ctop;
	double		a0,
				a1;
	GsVal		b0,
				b1;
};

__device__ __forceinline__ double
shfl_d(double x, int src)
{
	return __shfl_sync(FULL, x, src);
}

/*
 * Close T's top m vertices (m small) on the lanes in turn, one shuffle per
 * vertex; the value of the shallowest, on every lane.
 */
template <int OP>
__device__ __forceinline__ GsVal
close_in_turn(const Tuple<OP> &T, const double *sBC, int t, int m)
{
	const int	lane = threadIdx.x;
	GsVal		v = gs_op_identity(OP);
	GsVal		c = vload<OP>(sBC, rot(t, CROW(lane)));	/* garbage for lane >= nct */

	for (int j = 0; j < m; j++)
	{
		GsVal		mine = gs_op_mul(OP, T.a0,
									 gs_op_add(OP, gs_op_add(OP, T.b0, v), c));

		v = shfl_val<OP>(mine, j);
	}
	return v;
}

/* the same for larger m, in log2(m) rounds: each vertex a chain, composed */
template <int OP>
__device__ __forceinline__ GsVal
close_as_chains(const Tuple<OP> &T, const double *sBC, int t, int m)
{
	const int	lane = threadIdx.x;
	const GsVal ident = gs_op_identity(OP);
	GsVal		v = ident;

	/* lane l takes vertex m-1-l, so that lane 0 is the outermost */
	int			src = (m - 1 - lane) & (TB - 1);
	double		a = shfl_d(T.a0, src);
	GsVal		b = shfl_val<OP>(T.b0, src);
	GsChain		ch;

	ch.levels = 0;
	if (lane < m)
	{
		gs_chain_init(&ch);
		gs_chain_push(OP, &ch, a, b, vload<OP>(sBC, rot(t, CROW(m - 1 - lane))));
	}
	ch = warp_compose<OP>(ch, m);
	if (lane == 0)
		v = gs_chain_apply(OP, &ch, ident);
	return shfl_val<OP>(v, 0);
}

/* lane src's a0/a1 and b0/b1: where a pop or a push takes a lane's new slots from */
struct Slots
{
	double		a0,
				a1;
	GsVal		b0,
				b1;
};

template <int OP>
__device__ __forceinline__ Slots
shfl_slots(const Tuple<OP> &T, int src)
{
	Slots		x;

	x.a0 = shfl_d(T.a0, src);
	x.a1 = shfl_d(T.a1, src);
	x.b0 = shfl_val<OP>(T.b0, src);
	x.b1 = shfl_val<OP>(T.b1, src);
	return x;
}

/* pop: slot s + m becomes slot s */
template <int OP>
__device__ __forceinline__ void
pop_window(Tuple<OP> &T, int m)
{
	const int	lane = threadIdx.x;
	bool		low = lane + m < TB;
	Slots		x = shfl_slots<OP>(T, (lane + m) & (TB - 1));

	T.a0 = low ? x.a0 : x.a1;
	T.b0 = low ? x.b0 : x.b1;
	if (low)
	{
		T.a1 = x.a1;
		T.b1 = x.b1;
	}
	else
	{
		long long	pos = (long long) T.na - 1 - TB - lane - m;

		if (pos >= 0)
		{
			T.a1 = T.gA[pos];
			T.b1 = vload<OP>(T.gB, pos);
		}
	}
	T.na -= m;
}

/*
 * T has no open vertex left, and t's end tags m .. nct-2 close vertices
 * above T's pseudo root: T's top C entry becomes final (children of the
 * vertex end tag m closes), t's entries m+1 .. nct-2 follow, and t's last
 * entry is the new top.  v: the value of the vertices closed before.
 */
template <int OP>
__device__ __forceinline__ void
extend_c(Tuple<OP> &T, const double *sBC, int t, int m, int nct, GsVal v)
{
	const int	lane = threadIdx.x;

	T.ctop = gs_op_add(OP, gs_op_add(OP, T.ctop, v),
					   vload<OP>(sBC, rot(t, CROW(m))));
	if (lane == 0)
		vstore<OP>(T.gC, T.nc - 1, T.ctop);
	for (int j = m + 1 + lane; j < nct - 1; j += TB)
		vstore<OP>(T.gC, T.nc + (j - m - 1), vload<OP>(sBC, rot(t, CROW(j))));
	T.nc += nct - 1 - m;
	T.ctop = vload<OP>(sBC, rot(t, CROW(nct - 1)));
}

/* v and t's last level join the children of T's new top vertex */
template <int OP>
__device__ __forceinline__ void
join_top(Tuple<OP> &T, const double *sBC, int t, int nct, GsVal v)
{
	const int	lane = threadIdx.x;
	GsVal		add = gs_op_add(OP, v, vload<OP>(sBC, rot(t, CROW(nct - 1))));

	if (T.na > 0)
	{
		if (lane == 0)
			T.b0 = gs_op_add(OP, T.b0, add);
	}
	else
		T.ctop = gs_op_add(OP, T.ctop, add);
}

/* before a push of nat: the slots it moves past 2 TB go to memory */
template <int OP>
__device__ __forceinline__ void
spill_window(Tuple<OP> &T, int nat)
{
	const int	lane = threadIdx.x;

	if (lane >= TB - nat)
	{
		long long	pos = (long long) T.na - 1 - TB - lane;

		if (pos >= 0)
		{
			T.gA[pos] = T.a1;
			vstore<OP>(T.gB, pos, T.b1);
		}
	}
}

/* push: slot s becomes slot s + nat, and t's open vertices fill slots 0 .. nat-1 */
template <int OP>
__device__ __forceinline__ void
push_window(Tuple<OP> &T, const double *sA, const double *sBC, int t, int nat)
{
	const int	lane = threadIdx.x;
	bool		high = lane >= nat;
	Slots		x = shfl_slots<OP>(T, (lane - nat) & (TB - 1));

	T.a1 = high ? x.a1 : x.a0;
	T.b1 = high ? x.b1 : x.b0;
	if (high)
	{
		T.a0 = x.a0;
		T.b0 = x.b0;
	}
	else
	{
		/* the new top is t's deepest open vertex */
		T.a0 = sA[rot(t, nat - 1 - lane)];
		T.b0 = vload<OP>(sBC, rot(t, nat - 1 - lane));
	}
	T.na += nat;
}

/*
 * Merge row tuple t (rotated layout in sA / sBC, sizes nat / nct) into T.
 * nat, nct and everything derived from them are warp-uniform, so every
 * shuffle below runs on all lanes.
 */
template <int OP>
__device__ __forceinline__ void
merge_row(Tuple<OP> &T, const double *sA, const double *sBC, int t, int nat, int nct)
{
	const int	m = (size_t) (nct - 1) < T.na ? nct - 1 : (int) T.na;
	GsVal		v = gs_op_identity(OP);

	if (m > 0)
	{
		/*
		 * Close T's top m vertices: vertex j (slot j, lane j) has children
		 * B_T, C_t[j] and the vertex below it.
		 */
		v = m <= SEQ_CLOSE ? close_in_turn<OP>(T, sBC, t, m) :
			close_as_chains<OP>(T, sBC, t, m);
		pop_window<OP>(T, m);
	}
	if (m < nct - 1)
		extend_c<OP>(T, sBC, t, m, nct, v);
	else
		join_top<OP>(T, sBC, t, nct, v);
	if (nat > 0)
	{
		spill_window<OP>(T, nat);
		/* a later pop may read these back on another lane */
		if (T.na + nat > 2 * TB)
			__syncwarp();
		push_window<OP>(T, sA, sBC, t, nat);
	}
}

/* T empty: no open vertex, one C entry (the pseudo root's children) */
template <int OP>
__device__ __forceinline__ void
tuple_init(Tuple<OP> &T, const LocalArgs &g, size_t piece)
{
	constexpr int VW = ValWidth<OP>::n;
	const GsVal ident = gs_op_identity(OP);

	T.gA = g.A + piece * g.cap;
	T.gB = g.B + piece * g.cap * VW;
	T.gC = g.C + piece * g.cap * VW;
	T.na = 0;
	T.nc = 1;
	T.ctop = ident;
	T.a0 = T.a1 = 0.0;
	T.b0 = T.b1 = ident;
}

/*
 * Algorithm 3.1 over the len tokens of row `lane` of sW, arrays in bank
 * `lane`, sizes in *na_out and *nc_out; the tops of B and C stay in
 * registers.
 */
template <int OP>
__device__ __forceinline__ void
row_tuple(const double *sW, double *sA, double *sBC, int len, int *na_out,
		  int *nc_out)
{
	const int	lane = threadIdx.x;
	const GsVal ident = gs_op_identity(OP);
	int			na = 0,
				nc = 1;
	GsVal		btop = ident,
				cl = ident;

	for (int j = 0; j < len; j++)
	{
		double		x = sW[lane * TB + ((lane + j) & (TB - 1))];

		if (!gs_is_close(x))
		{
			if (na > 0)
				vstore<OP>(sBC, (na - 1) * TB + lane, btop);
			sA[na * TB + lane] = x;
			btop = ident;
			na++;
		}
		else if (na == 0)
		{
			vstore<OP>(sBC, CROW(nc - 1) * TB + lane, cl);
			cl = ident;
			nc++;
		}
		else
		{
			GsVal		val;

			na--;
			val = gs_op_mul(OP, sA[na * TB + lane], btop);
			if (na == 0)
				cl = gs_op_add(OP, cl, val);
			else
				btop = gs_op_add(OP, vload<OP>(sBC, (na - 1) * TB + lane), val);
		}
	}
	if (na > 0)
		vstore<OP>(sBC, (na - 1) * TB + lane, btop);
	vstore<OP>(sBC, CROW(nc - 1) * TB + lane, cl);
	*na_out = na;
	*nc_out = nc;
}

/* write back the window and the scalars */
template <int OP>
__device__ __forceinline__ void
tuple_write_back(const Tuple<OP> &T, const LocalArgs &g, size_t piece)
{
	const int	lane = threadIdx.x;
	long long	p0 = (long long) T.na - 1 - lane,
				p1 = p0 - TB;

	if (p0 >= 0)
	{
		T.gA[p0] = T.a0;
		vstore<OP>(T.gB, p0, T.b0);
	}
	if (p1 >= 0)
	{
		T.gA[p1] = T.a1;
		vstore<OP>(T.gB, p1, T.b1);
	}
	if (lane == 0)
	{
		vstore<OP>(T.gC, T.nc - 1, T.ctop);
		g.na[piece] = T.na;
		g.nc[piece] = T.nc;
		g.ctop[2 * piece] = T.ctop.m;
		g.ctop[2 * piece + 1] = T.ctop.s;
	}
}

template <int OP>
__global__ void __launch_bounds__(TB)
local_contract(LocalArgs g)
{
	constexpr int VW = ValWidth<OP>::n;
	WARP_SMEM(smem);
	double	   *sW = smem;
	double	   *sA = sW + SUB;
	double	   *sBC = sA + SUB;
	const int	lane = threadIdx.x;
	const size_t piece = blockIdx.x;
	const size_t from = piece * g.piece_len;
	const size_t to = from + g.piece_len < g.ntok ? from + g.piece_len : g.ntok;
	Tuple<OP>	T;
	double		reg[TB];

	tuple_init<OP>(T, g, piece);
	if (from < to)
		load_sub(g.tok, from, to, reg);
	for (size_t base = from; base < to; base += SUB)
	{
		const int	cnt = (int) (to - base < SUB ? to - base : SUB);
		const int	len = min(max(cnt - lane * TB, 0), TB);
		int			na,
					nc;

		/* 1. stage the sub-block, skewed; start loading the next one */
#pragma unroll
		for (int r = 0; r < TB; r++)
			sW[r * TB + ((r + lane) & (TB - 1))] = reg[r];
		if (base + SUB < to)
			load_sub(g.tok, base + SUB, to, reg);
		__syncwarp();

		/* 2. the row tuples, lane i's of row i */
		row_tuple<OP>(sW, sA, sBC, len, &na, &nc);
		__syncwarp();

		/* 3. rotate the rows in use to the merge layout */
		{
			int			rows_a = (int) __reduce_max_sync(FULL, (unsigned) na);
			int			rows_c = (int) __reduce_max_sync(FULL, (unsigned) nc);

			for (int r = 0; r <= TB; r++)
			{
				if (r < rows_a)
					rotate_row<1>(sA, r);
				if (r < rows_a || r > TB - rows_c)
					rotate_row<VW>(sBC, r);
			}
			__syncwarp();
		}

		/* 4. merge the row tuples into T, left to right */
		for (int t = 0; t * TB < cnt; t++)
		{
			int			nat = __shfl_sync(FULL, na, t);
			int			nct = __shfl_sync(FULL, nc, t);

			merge_row<OP>(T, sA, sBC, t, nat, nct);
		}
		__syncwarp();
	}
	tuple_write_back<OP>(T, g, piece);
}

/* ---- step 3 -------------------------------------------------------------- */

struct IntervalArgs
{
	size_t		cap;
	const double *A;
	const double *B;
	const double *C;
	GsInterval *iv;
	long		niv;
};

#define IV_WARPS	4

template <int OP>
__global__ void __launch_bounds__(IV_WARPS * TB)
interval_contract(IntervalArgs g)
{
	constexpr int VW = ValWidth<OP>::n;
	const int	lane = threadIdx.x & (TB - 1);
	const long	w = (long) blockIdx.x * IV_WARPS + threadIdx.x / TB;

	if (w >= g.niv)
		return;					/* whole warps leave together */

	const GsInterval iv = g.iv[w];
	const double *A = g.A + (size_t) iv.p * g.cap;
	const double *B = g.B + (size_t) iv.p * g.cap * VW;
	const double *C = g.C + (size_t) iv.q * g.cap * VW;
	GsChain		f;

	gs_chain_init(&f);
	for (size_t base = iv.lo; base <= iv.hi; base += TB)
	{
		size_t		x = base + lane;
		int			cnt = (int) (iv.hi - base + 1 < TB ? iv.hi - base + 1 : TB);
		GsChain		ch;

		ch.levels = 0;
		if (lane < cnt)
		{
			gs_chain_init(&ch);
			gs_chain_push(OP, &ch, A[x], vload<OP>(B, x),
						  vload<OP>(C, iv.cfirst + (iv.hi - x)));
		}
		ch = warp_compose<OP>(ch, cnt);
		if (lane == 0)
			gs_chain_concat(OP, &f, &ch);
	}
	if (lane == 0)
		g.iv[w].f = f;
}

#ifndef GSK_TREE_EMULATE

/* ---- host side ----------------------------------------------------------- */

/* the template instances of one op */
struct OpKernels
{
	void		(*local) (LocalArgs);
	void		(*interval) (IntervalArgs);
	size_t		smem;
	int			vw;
};

template <int OP>
static OpKernels
kernels_of()
{
	OpKernels	k;

	k.local = local_contract<OP>;
	k.interval = interval_contract<OP>;
	k.smem = local_smem_doubles<OP>() * sizeof(double);
	k.vw = ValWidth<OP>::n;
	return k;
}

static bool
kernels_for(int op, OpKernels *k)
{
	switch (op)
	{
		case GS_OP_SUM:
			*k = kernels_of<GS_OP_SUM>();
			return true;
		case GS_OP_COUNT:
			*k = kernels_of<GS_OP_COUNT>();
			return true;
		case GS_OP_LEAVES:
			*k = kernels_of<GS_OP_LEAVES>();
			return true;
		case GS_OP_HEIGHT:
			*k = kernels_of<GS_OP_HEIGHT>();
			return true;
		case GS_OP_MAX:
			*k = kernels_of<GS_OP_MAX>();
			return true;
		case GS_OP_MIN:
			*k = kernels_of<GS_OP_MIN>();
			return true;
		case GS_OP_MAX_PATH:
			*k = kernels_of<GS_OP_MAX_PATH>();
			return true;
		case GS_OP_MIN_PATH:
			*k = kernels_of<GS_OP_MIN_PATH>();
			return true;
		case GS_OP_MAX_SUBTREE:
			*k = kernels_of<GS_OP_MAX_SUBTREE>();
			return true;
	}
	return false;
}

static size_t
align_up(size_t x)
{
	return (x + 255) & ~(size_t) 255;
}

/* device scratch layout of a plan */
struct Layout
{
	size_t		A,
				B,
				C,
				na,
				nc,
				ctop,
				iv,
				end;
};

static Layout
layout_of(const GskTreePlan *plan, int vw)
{
	Layout		l;
	size_t		entries = (size_t) plan->k * plan->cap;

	l.A = 0;
	l.B = align_up(l.A + entries * sizeof(double));
	l.C = align_up(l.B + entries * vw * sizeof(double));
	l.na = align_up(l.C + entries * vw * sizeof(double));
	l.nc = align_up(l.na + (size_t) plan->k * sizeof(uint64_t));
	l.ctop = align_up(l.nc + (size_t) plan->k * sizeof(uint64_t));
	l.iv = align_up(l.ctop + (size_t) plan->k * 2 * sizeof(double));
	l.end = align_up(l.iv + (size_t) 2 * plan->k * sizeof(GsInterval));
	return l;
}

extern "C" GSK_EXPORT int
gsk_tree_plan(int op, size_t ntok, GskTreePlan *plan)
{
	OpKernels	kk;
	cudaError_t err;
	int			dev,
				sms,
				per_sm = 0;
	size_t		k,
				len;

	memset(plan, 0, sizeof(*plan));
	if (!kernels_for(op, &kk))
		return gsk_fail_msg(cudaErrorInvalidValue, "gsk_tree_plan: unknown op");
	if ((err = cudaGetDevice(&dev)) != cudaSuccess)
		return gsk_fail(err, "cudaGetDevice");
	if ((err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
		return gsk_fail(err, "cudaDeviceGetAttribute");
	/* occupancy is bounded by shared memory: ask for all of it */
	if ((err = cudaFuncSetAttribute(kk.local, cudaFuncAttributeMaxDynamicSharedMemorySize,
									(int) kk.smem)) != cudaSuccess ||
		(err = cudaFuncSetAttribute(kk.local, cudaFuncAttributePreferredSharedMemoryCarveout,
									cudaSharedmemCarveoutMaxShared)) != cudaSuccess)
		return gsk_fail(err, "cudaFuncSetAttribute(tree local contraction)");
	if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kk.local, TB,
															 kk.smem)) != cudaSuccess)
		return gsk_fail(err, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
	if (per_sm < 1)
		per_sm = 1;

	/*
	 * One wave of warps, each with a whole number of sub-blocks: k is
	 * bounded by the warps the GPU runs at once (more pieces would only add
	 * step 2 and 4 work on the host) and by the tokens.
	 */
	k = (size_t) sms * per_sm;
	if (k > GSK_TREE_MAX_PIECES)
		k = GSK_TREE_MAX_PIECES;
	if (k > (ntok + SUB - 1) / SUB)
		k = (ntok + SUB - 1) / SUB;
	if (k < 1)
		k = 1;
	len = (ntok + k - 1) / k;
	len = (len + SUB - 1) / SUB * SUB;
	if (len == 0)
		len = SUB;
	k = (ntok + len - 1) / len;
	if (k < 1)
		k = 1;

	plan->op = op;
	plan->ntok = ntok;
	plan->k = (int) k;
	plan->piece_len = len;
	plan->cap = len + 1;
	plan->temp_bytes = layout_of(plan, kk.vw).end;
	return 0;
}

extern "C" GSK_EXPORT int
gsk_tree_local(const GskTreePlan *plan, const double *d_tok, void *d_temp,
			   size_t temp_bytes, uint64_t *h_na, uint64_t *h_nc,
			   double *h_ctop, void *stream)
{
	OpKernels	kk;
	Layout		l;
	LocalArgs	a;
	char	   *base = (char *) d_temp;
	cudaStream_t s = (cudaStream_t) stream;
	cudaError_t err;
	int			rc;

	if (!kernels_for(plan->op, &kk))
		return gsk_fail_msg(cudaErrorInvalidValue, "gsk_tree_local: unknown op");
	l = layout_of(plan, kk.vw);
	if (temp_bytes < l.end)
		return gsk_fail_msg(cudaErrorInvalidValue, "gsk_tree_local: scratch too small");

	a.tok = d_tok;
	a.ntok = plan->ntok;
	a.piece_len = plan->piece_len;
	a.cap = plan->cap;
	a.A = (double *) (base + l.A);
	a.B = (double *) (base + l.B);
	a.C = (double *) (base + l.C);
	a.na = (uint64_t *) (base + l.na);
	a.nc = (uint64_t *) (base + l.nc);
	a.ctop = (double *) (base + l.ctop);

	kk.local<<<plan->k, TB, kk.smem, s>>>(a);
	if ((rc = gsk_check_launch("tree local contraction")) != 0)
		return rc;
	if ((err = cudaMemcpyAsync(h_na, a.na, plan->k * sizeof(uint64_t),
							   cudaMemcpyDeviceToHost, s)) != cudaSuccess ||
		(err = cudaMemcpyAsync(h_nc, a.nc, plan->k * sizeof(uint64_t),
							   cudaMemcpyDeviceToHost, s)) != cudaSuccess ||
		(err = cudaMemcpyAsync(h_ctop, a.ctop, plan->k * 2 * sizeof(double),
							   cudaMemcpyDeviceToHost, s)) != cudaSuccess)
		return gsk_fail(err, "copying the contracted pieces");
	return 0;
}

extern "C" GSK_EXPORT int
gsk_tree_intervals(const GskTreePlan *plan, void *d_temp, size_t temp_bytes,
				   struct GsInterval *iv, long niv, void *stream)
{
	OpKernels	kk;
	Layout		l;
	IntervalArgs a;
	char	   *base = (char *) d_temp;
	cudaStream_t s = (cudaStream_t) stream;
	cudaError_t err;
	int			rc;

	if (!kernels_for(plan->op, &kk))
		return gsk_fail_msg(cudaErrorInvalidValue, "gsk_tree_intervals: unknown op");
	l = layout_of(plan, kk.vw);
	if (temp_bytes < l.end || niv < 0 || niv > 2L * plan->k)
		return gsk_fail_msg(cudaErrorInvalidValue, "gsk_tree_intervals: bad arguments");
	if (niv == 0)
		return 0;

	a.cap = plan->cap;
	a.A = (const double *) (base + l.A);
	a.B = (const double *) (base + l.B);
	a.C = (const double *) (base + l.C);
	a.iv = (GsInterval *) (base + l.iv);
	a.niv = niv;

	if ((err = cudaMemcpyAsync(a.iv, iv, niv * sizeof(GsInterval),
							   cudaMemcpyHostToDevice, s)) != cudaSuccess)
		return gsk_fail(err, "copying the intervals");
	kk.interval<<<(unsigned) ((niv + IV_WARPS - 1) / IV_WARPS), IV_WARPS * TB, 0, s>>>(a);
	if ((rc = gsk_check_launch("tree interval contraction")) != 0)
		return rc;
	if ((err = cudaMemcpyAsync(iv, a.iv, niv * sizeof(GsInterval),
							   cudaMemcpyDeviceToHost, s)) != cudaSuccess)
		return gsk_fail(err, "copying the contracted intervals");
	return 0;
}

#endif							/* !GSK_TREE_EMULATE */
