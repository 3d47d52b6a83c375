/*-------------------------------------------------------------------------
 *
 * xmltok_backend.c
 *	  The tokenizer's options in the backend (see xmltok_backend.h): the
 *	  token arrays grow in a memory context, palloc's huge allocations, the
 *	  tokenizer polls CHECK_FOR_INTERRUPTS(), and the names and values its
 *	  messages quote are cut at a character of the database encoding.
 *
 * The tokenizer runs on the backend's own thread only and holds nothing
 * but palloc'd memory, so an interrupt may throw right out of it; the
 * contraction, which may run threads, serves interrupts differently (see
 * tree_reduce.c).  Split from tree_reduce.c so that the GPU path's CPU
 * tokenizer (tree_gpu.c) shares these options without calling into the
 * SQL surface.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "xmltok_backend.h"

static void *
grow_in_context(void *arg, void *old, size_t newsize)
{
	if (old == NULL)
		return MemoryContextAllocHuge((MemoryContext) arg, newsize);
	return repalloc_huge(old, newsize);
}

static bool
tokenizer_interrupted(void *arg)
{
	CHECK_FOR_INTERRUPTS();
	return false;
}

/*
 * The names and values quoted in messages are in the database encoding;
 * pg_mbcliplen walks only the characters that can fit (it takes an int
 * length, and a name may be longer than that).
 */
static size_t
clip_to_encoding(const char *s, size_t len, size_t limit)
{
	return pg_mbcliplen(s, (int) Min(len, limit + MAX_MULTIBYTE_CHAR_LEN),
						(int) limit);
}

void
gs_tree_tokenizer_options(GsXmlOptions *opt, int op, const char *weight_attr,
						  size_t weight_attr_len, void *cxt)
{
	gs_tree_weight_options(opt, op, weight_attr, weight_attr_len);
	opt->grow = grow_in_context;
	opt->grow_arg = cxt;
	opt->interrupted = tokenizer_interrupted;
	opt->clip = clip_to_encoding;
}
