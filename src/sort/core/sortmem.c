/*-------------------------------------------------------------------------
 *
 * sortmem.c
 *	  The memory of the GpuSort's stored rows: what they take, and the
 *	  reservations from the server-wide account that cover it.
 *
 * The rows' bytes (gs_sort_stored_bytes) are reserved from the account
 * (memaccount.c) ahead of the rows, in steps that double from
 * GS_RESERVE_MIN_STEP to GS_RESERVE_MAX_STEP, so that a small sort reserves
 * little and a large one seldom; the reservation goes with runcxt.  Both
 * the input (sortstore.c) and the output copies (sortorder.c) ask here, so
 * this file calls neither.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "runtime/settings.h"
#include "sortcore.h"
#include "sortstate.h"

/*
 * Bytes per stored row that the sort will need besides the tuple and its
 * pointer, for the memory budget: key + row number twice (the engines sort
 * out of place) at a typical 16-byte key, and the row's place in the
 * output array.
 */
#define GS_ROW_OVERHEAD		(2 * (16 + sizeof(uint32)) + sizeof(MinimalTuple))

/* steps of the reservation from the server-wide account (bytes) */
#define GS_RESERVE_MIN_STEP	((Size) 1024 * 1024)
#define GS_RESERVE_MAX_STEP	((Size) 64 * 1024 * 1024)

/*
 * Stored bytes as the budget counts them: the arrays only as far as they
 * are filled, since the kernel backs the rest of them only once touched.
 */
Size
gs_sort_stored_bytes(GsSort *node)
{
	return gs_rows_bytes(&node->rows) + node->shared_bytes +
		node->ntuples * (sizeof(MinimalTuple) +
						 (node->raw ? node->raw_bytes : 0) +
						 GS_ROW_OVERHEAD);
}

/*
 * Bytes the budget counts per stored row besides the row itself, where
 * every raw key of raw_bytes is kept (as for a parallel intake's rows)
 */
Size
gs_sort_row_bytes(int raw_bytes)
{
	return sizeof(MinimalTuple) + raw_bytes + GS_ROW_OVERHEAD;
}

void
gs_sort_budget_reason(char *why, size_t len, Size budget)
{
	snprintf(why, len, "rows need more than gpusort.max_memory (%zu kB)",
			 budget / 1024);
}

/*
 * Reserves room for gs_sort_stored_bytes to grow to need from the server-wide
 * account, a step ahead; false, with the reason in why, when the account
 * has no room.  The rows stored by parallel participants are reserved by
 * their intake (sortpar.c), so need leaves them out.
 */
bool
gs_sort_reserve_stored(GsSort *node, Size need, char *why, size_t len)
{
	Size		have = gs_reserved(node->reservation, GS_ACCT_MEM);
	Size		limit = gpusort_total_memory_limit();
	Size		budget;
	Size		step;

	if (need <= have)
		return true;
	step = Max(need - have, Min(Max(have, GS_RESERVE_MIN_STEP), GS_RESERVE_MAX_STEP));
	/* a step ahead, but not past the budget (or the need, if beyond it) */
	budget = gpusort_memory_budget();
	if (have + step > Max(need, budget))
		step = Max(need, budget) - have;
	if (!gs_reserve(node->reservation, GS_ACCT_MEM, step, limit) &&
		!gs_reserve(node->reservation, GS_ACCT_MEM, need - have, limit))
	{
		snprintf(why, len, "the server's sorts hold gpusort.max_total_memory (%zu kB)",
				 limit / 1024);
		return false;
	}
	node->reserved_to = gs_reserved(node->reservation, GS_ACCT_MEM);
	node->info.reserved_bytes = Max(node->info.reserved_bytes, node->reserved_to);
	return true;
}

/*
 * Whether the stored rows still fit the budget and the server-wide
 * account; if not, why[] says why
 */
bool
gs_sort_stored_rows_fit(GsSort *node, Size budget, char *why, Size whylen)
{
	if (gs_sort_stored_bytes(node) + node->rows.ahead_size <= node->reserved_to)
		return true;
	if (gs_sort_stored_bytes(node) > budget)
	{
		gs_sort_budget_reason(why, whylen, budget);
		return false;
	}
	/* the block faulted in ahead is memory too */
	return gs_sort_reserve_stored(node, gs_sort_stored_bytes(node) + node->rows.ahead_size,
						  why, whylen);
}

/*
 * The run's memory at its largest, as EXPLAIN shows it: the run context and
 * the row store's mapped blocks, which no context counts (rowstore.c)
 */
void
gs_sort_note_peak_memory(GsSort *node)
{
	node->info.peak_bytes = Max(node->info.peak_bytes,
								MemoryContextMemAllocated(node->runcxt, true) +
								gs_rows_mapped(&node->rows));
}
