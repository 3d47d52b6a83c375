/*
 * tree_contract_emu.cpp
 *	  The contraction kernels (kernels/tree/tree_contract.cu) run on the CPU
 *	  against contract.c's sequential reference: CI has no GPU, and this
 *	  keeps the kernels' logic (Algorithm 3.1 per lane, the Figure 17-19
 *	  layouts, the merges into the register window, the interval chains)
 *	  under test there.
 *
 * Each warp runs as 32 coroutines on one thread.  Every warp-wide point of
 * the kernels (__syncwarp, shuffles, __reduce_max_sync) is a switch to the
 * next lane: lane i runs up to its next such point, then lane i+1, ...,
 * and when lane i runs again every lane has reached the point, so exchanged
 * values are all there.  Between those points the lanes run one after the
 * other, which is one of the interleavings the GPU may produce: code that
 * leaned on lockstep execution without a __syncwarp would show here.
 * Steps 2 and 4 are contract.c's, as on the GPU path.
 *
 *   test/tree/cpu/tree_gpu_contract.sh    (builds this with the host compiler)
 */
#include <algorithm>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <vector>

/* ---- one warp as 32 coroutines ------------------------------------------- */

#define EMU_LANES	32
#define EMU_STACK	(256 * 1024)

struct EmuIdx
{
	unsigned	x;
};

static EmuIdx threadIdx,
			blockIdx;
static double *emu_smem;

static ucontext_t emu_main_uc,
			emu_lane_uc[EMU_LANES];
static jmp_buf emu_lane_jb[EMU_LANES];
static bool emu_started[EMU_LANES];
static bool emu_done[EMU_LANES];
static int	emu_cur;
static int	emu_ndone;
static unsigned emu_lane_base;	/* threadIdx.x of lane 0 */
static uint64_t emu_slot[2][EMU_LANES];
static unsigned emu_epoch[EMU_LANES];
static char *emu_stacks;
static void (*emu_body) (void *);
static void *emu_arg;

/* give the CPU to the next lane that has not finished */
static void
emu_switch_from(int lane)
{
	int			next = lane;

	do
		next = (next + 1) % EMU_LANES;
	while (emu_done[next] && next != lane);
	emu_cur = next;
	threadIdx.x = emu_lane_base + next;
	if (!emu_started[next])
	{
		emu_started[next] = true;
		setcontext(&emu_lane_uc[next]);
	}
	_longjmp(emu_lane_jb[next], 1);
}

static void
emu_yield(void)
{
	int			lane = emu_cur;

	if (_setjmp(emu_lane_jb[lane]) == 0)
		emu_switch_from(lane);
	emu_cur = lane;
	threadIdx.x = emu_lane_base + lane;
}

static void
emu_trampoline(void)
{
	int			lane = emu_cur;

	emu_body(emu_arg);
	emu_done[lane] = true;
	if (++emu_ndone == EMU_LANES)
		setcontext(&emu_main_uc);
	emu_switch_from(lane);
}

/* run body(arg) as one warp whose lanes have threadIdx.x = base + lane */
static void
emu_run_warp(void (*body) (void *), void *arg, unsigned base)
{
	if (emu_stacks == NULL)
		emu_stacks = (char *) malloc((size_t) EMU_LANES * EMU_STACK);
	emu_body = body;
	emu_arg = arg;
	emu_lane_base = base;
	emu_ndone = 0;
	for (int l = 0; l < EMU_LANES; l++)
	{
		emu_started[l] = false;
		emu_done[l] = false;
		emu_epoch[l] = 0;
		getcontext(&emu_lane_uc[l]);
		emu_lane_uc[l].uc_stack.ss_sp = emu_stacks + (size_t) l * EMU_STACK;
		emu_lane_uc[l].uc_stack.ss_size = EMU_STACK;
		emu_lane_uc[l].uc_link = NULL;
		makecontext(&emu_lane_uc[l], emu_trampoline, 0);
	}
	emu_cur = 0;
	threadIdx.x = base;
	emu_started[0] = true;
	swapcontext(&emu_main_uc, &emu_lane_uc[0]);
}

template <class T>
static T
emu_exchange(T v, int src)
{
	int			lane = emu_cur;
	int			e = emu_epoch[lane]++ & 1;
	uint64_t	w = 0;
	T			r;

	memcpy(&w, &v, sizeof(v));
	emu_slot[e][lane] = w;
	emu_yield();
	w = emu_slot[e][src & (EMU_LANES - 1)];
	memcpy(&r, &w, sizeof(r));
	return r;
}

static void
__syncwarp(unsigned mask = 0xffffffffu)
{
	(void) mask;
	(void) emu_exchange<int>(0, 0);
}

template <class T>
static T
__shfl_sync(unsigned mask, T v, int src)
{
	(void) mask;
	return emu_exchange<T>(v, src);
}

template <class T>
static T
__shfl_down_sync(unsigned mask, T v, unsigned d)
{
	int			lane = emu_cur;
	int			src = lane + (int) d < EMU_LANES ? lane + (int) d : lane;

	(void) mask;
	return emu_exchange<T>(v, src);
}

static unsigned
__reduce_max_sync(unsigned mask, unsigned v)
{
	int			lane = emu_cur;
	int			e = emu_epoch[lane]++ & 1;
	unsigned	m = 0;

	(void) mask;
	emu_slot[e][lane] = v;
	emu_yield();
	for (int l = 0; l < EMU_LANES; l++)
		m = std::max(m, (unsigned) emu_slot[e][l]);
	return m;
}

struct double2
{
	double		x,
				y;
};

static inline double2
make_double2(double x, double y)
{
	double2		r = {x, y};

	return r;
}

static inline double
__ldg(const double *p)
{
	return *p;
}

using std::max;
using std::min;

#define __device__
#define __global__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__
#define WARP_SMEM(name)	double *name = emu_smem

extern "C" {
#include "contract.h"
}

#define GSK_TREE_EMULATE
#include "../../../kernels/tree/tree_contract.cu"

/* ---- launches -------------------------------------------------------------- */

template <int OP>
struct LocalLaunch
{
	LocalArgs	a;
};

template <int OP>
static void
local_body(void *arg)
{
	local_contract<OP>(((LocalLaunch<OP> *) arg)->a);
}

template <int OP>
static void
interval_body(void *arg)
{
	interval_contract<OP>(*(IntervalArgs *) arg);
}

/*
 * The whole reduction as tree_gpu.c runs it, with pieces of piece_len
 * tokens: step 1 emulated, step 2 contract.c, step 3 emulated, step 4
 * contract.c.
 */
template <int OP>
static int
emu_reduce(const std::vector<double> &tok, size_t piece_len, GsVal *result)
{
	constexpr int VW = ValWidth<OP>::n;
	size_t		n = tok.size();
	int			k = (int) ((n + piece_len - 1) / piece_len);
	size_t		cap = piece_len + 1;

	if (n == 0)
	{
		*result = gs_op_identity(OP);
		return GS_TREE_OK;
	}

	std::vector<double> A((size_t) k * cap),
				B((size_t) k * cap * VW),
				C((size_t) k * cap * VW),
				ctop(2 * (size_t) k),
				smem(local_smem_doubles<OP>());
	std::vector<uint64_t> na(k),
				nc(k);
	LocalLaunch<OP> L;

	L.a.tok = tok.data();
	L.a.ntok = n;
	L.a.piece_len = piece_len;
	L.a.cap = cap;
	L.a.A = A.data();
	L.a.B = B.data();
	L.a.C = C.data();
	L.a.na = na.data();
	L.a.nc = nc.data();
	L.a.ctop = ctop.data();
	emu_smem = smem.data();
	for (int b = 0; b < k; b++)
	{
		blockIdx.x = b;
		emu_run_warp(local_body<OP>, &L, 0);
	}

	std::vector<GsContracted> t(k);
	std::vector<GsVal> cv(k);
	std::vector<GsInterval> iv(2 * (size_t) k);
	std::vector<GsOpenRun> stack(k);

	memset(t.data(), 0, k * sizeof(GsContracted));
	for (int i = 0; i < k; i++)
	{
		cv[i] = gs_val(ctop[2 * i], ctop[2 * i + 1]);
		t[i].na = na[i];
		t[i].nc = nc[i];
		t[i].c = &cv[i];
	}
	long		niv = gs_match_parentheses(t.data(), k, iv.data(), stack.data());

	if (niv < 0)
		return GS_TREE_MALFORMED;

	IntervalArgs ia;

	ia.cap = cap;
	ia.A = A.data();
	ia.B = B.data();
	ia.C = C.data();
	ia.iv = iv.data();
	ia.niv = niv;
	for (long w = 0; w < niv; w++)
	{
		blockIdx.x = (unsigned) (w / IV_WARPS);
		emu_run_warp(interval_body<OP>, &ia, (unsigned) (w % IV_WARPS) * TB);
	}
	for (int i = 0; i < k; i++)
		t[i].nc = 1;			/* step 4 reads C[NC-1] only: cv[i] */
	return gs_contract_global(OP, t.data(), k, iv.data(), niv, stack.data(), result);
}

static int
emu_reduce_op(int op, const std::vector<double> &tok, size_t piece_len, GsVal *r)
{
	switch (op)
	{
		case GS_OP_SUM:
			return emu_reduce<GS_OP_SUM>(tok, piece_len, r);
		case GS_OP_COUNT:
			return emu_reduce<GS_OP_COUNT>(tok, piece_len, r);
		case GS_OP_LEAVES:
			return emu_reduce<GS_OP_LEAVES>(tok, piece_len, r);
		case GS_OP_HEIGHT:
			return emu_reduce<GS_OP_HEIGHT>(tok, piece_len, r);
		case GS_OP_MAX:
			return emu_reduce<GS_OP_MAX>(tok, piece_len, r);
		case GS_OP_MIN:
			return emu_reduce<GS_OP_MIN>(tok, piece_len, r);
		case GS_OP_MAX_PATH:
			return emu_reduce<GS_OP_MAX_PATH>(tok, piece_len, r);
		case GS_OP_MIN_PATH:
			return emu_reduce<GS_OP_MIN_PATH>(tok, piece_len, r);
		default:
			return emu_reduce<GS_OP_MAX_SUBTREE>(tok, piece_len, r);
	}
}

/* ---- trees ------------------------------------------------------------------ */

#include "tree_docgen.h"

struct Forest
{
	std::vector<double> tok;
	std::vector<uint8_t> missing;
	size_t		depth = 0,
				max_depth = 0;

	void		open()
	{
		tok.push_back((double) ((int64_t) rnd_below(2001) - 1000));
		missing.push_back(rnd_below(20) == 0);
		if (++depth > max_depth)
			max_depth = depth;
	}
	void		close()
	{
		tok.push_back(gs_close_token());
		missing.push_back(0);
		depth--;
	}
};

/* a random walk that opens with probability p_open / 1000 below max_depth */
static Forest
random_forest(size_t nvert, size_t max_depth, int p_open)
{
	Forest		f;

	while (nvert > 0 || f.depth > 0)
	{
		bool		can_open = nvert > 0 && f.depth < max_depth;

		if (can_open && (f.depth == 0 || (int) rnd_below(1000) < p_open))
		{
			f.open();
			nvert--;
		}
		else
			f.close();
	}
	return f;
}

/* a path of `depth` vertices with leaves hanging off it */
static Forest
chain(size_t depth)
{
	Forest		f;

	for (size_t i = 0; i < depth; i++)
	{
		f.open();
		if (rnd_below(3) == 0)
		{
			f.open();
			f.close();
		}
	}
	while (f.depth > 0)
	{
		if (rnd_below(3) == 0)
		{
			f.open();
			f.close();
		}
		f.close();
	}
	return f;
}


/* every op, pieces of piece_len tokens, against the sequential reference */
static void
run_case(const char *name, const Forest &f, size_t piece_len)
{
	int			bad = 0;

	for (int op = 0; op < GS_NUM_OPS; op++)
	{
		std::vector<double> tok(f.tok.size());
		std::vector<char> work(gs_seq_workspace(f.tok.size(), f.max_depth));
		GsVal		want,
					got;
		int			rc1,
					rc2;

		for (size_t i = 0; i < f.tok.size(); i++)
			tok[i] = !gs_is_close(f.tok[i]) && (!gs_op_reads_weight(op) || f.missing[i]) ?
				gs_op_default_weight(op) : f.tok[i];
		rc1 = gs_tree_reduce_seq(op, tok.data(), tok.size(), f.max_depth,
								 work.data(), NULL, &want);
		rc2 = emu_reduce_op(op, tok, piece_len, &got);
		if (rc1 != GS_TREE_OK || rc2 != GS_TREE_OK || want.m != got.m ||
			(op == GS_OP_MAX_SUBTREE && want.s != got.s))
		{
			bad++;
			printf("  %s: op %d: seq %.17g (rc %d), kernels %.17g (rc %d)\n",
				   name, op, want.m, rc1, got.m, rc2);
		}
	}
	check(bad == 0, "%s: %zu tokens, depth %zu, pieces of %zu: every op equals the sequential reference",
		  name, f.tok.size(), f.max_depth, piece_len);
}

int
main(void)
{
	run_case("empty", Forest(), 1024);
	{
		size_t		sizes[] = {1, 2, 100, 511, 512, 513, 1500, 5000};

		for (size_t s : sizes)
		{
			char		name[64];

			snprintf(name, sizeof(name), "random forest of %zu", s);
			run_case(name, random_forest(s, 40, 500), 1024);
		}
	}
	run_case("deep random forest", random_forest(20000, 100000, 700), 2048);
	run_case("shallow random forest", random_forest(20000, 3, 300), 1024);
	run_case("random forest, one piece", random_forest(20000, 60, 500), 65536);
	run_case("chain of depth 8000", chain(8000), 1024);
	run_case("chain of depth 8000, large pieces", chain(8000), 8192);
	{
		Forest		f;

		f.open();
		for (int i = 0; i < 10000; i++)
		{
			f.open();
			f.close();
		}
		f.close();
		run_case("star of 10000 leaves", f, 1024);
	}
	{
		std::vector<double> tok = random_forest(3000, 30, 500).tok;
		GsVal		r;

		tok.insert(tok.begin() + tok.size() / 2, gs_close_token());
		check(emu_reduce_op(GS_OP_SUM, tok, 1024, &r) == GS_TREE_MALFORMED,
			  "an extra end tag is reported as malformed");
		tok.erase(tok.begin() + tok.size() / 2);
		tok.insert(tok.begin() + tok.size() / 3, 1.0);
		check(emu_reduce_op(GS_OP_SUM, tok, 1024, &r) == GS_TREE_MALFORMED,
			  "an unclosed start tag is reported as malformed");
	}
	printf("%d passed, %d failed\n", npassed, nfailed);
	return nfailed == 0 ? 0 : 1;
}
