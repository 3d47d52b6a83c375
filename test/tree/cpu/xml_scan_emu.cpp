/*
 * xml_scan_emu.cpp
 *	  The GPU tokenizer's kernels (kernels/tree/xml_scan.cu) run on the CPU, one
 *	  emulated thread after the other, against xmltok.c: CI has no GPU, and
 *	  this keeps the scanner's logic (automaton, chunk scans, tag parsers,
 *	  weight fast path, name matching) under test there.  The CUB scans and
 *	  the radix sort become sequential loops and std::stable_sort; the kernels
 *	  themselves are compiled unchanged.  The same documents as the device
 *	  test (tree_docgen.h): valid ones must give xmltok.c's exact tokens
 *	  unless they use a feature left to the CPU; mutated ones must never be
 *	  accepted when xmltok.c rejects them.
 *
 *   test/tree/cpu/tree_gpu_scan.sh    (builds this with the host compiler)
 */
#include <algorithm>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

/* what the kernels need from CUDA, for one thread at a time */
#define __device__
#define __global__
#define __host__
#define __forceinline__ inline
#define __constant__
#define __launch_bounds__(x)
struct EmuDim
{
	unsigned	x;
};
static EmuDim blockIdx,
			threadIdx,
			blockDim;
static inline unsigned
atomicOr(uint32_t *p, uint32_t v)
{
	unsigned	old = *p;

	*p |= v;
	return old;
}

#define GSK_XML_SCAN_EMULATE
#include "../../../kernels/tree/xml_scan.cu"

extern "C" {
#include "xmltok.h"
}
#include "treeops.h"
#include "tree_docgen.h"



/* gsk_xml_scan_count + gsk_xml_scan_emit, every launch as a loop */
static bool
gpu_tokens(const std::string &text, const std::vector<uint64_t> &starts,
		   bool read_weight, std::vector<double> &out)
{
	ScanArgs	a;
	uint32_t	flags = 0;
	size_t		n = text.size();
	Counts		tot = {0, 0};
	uint64_t	acc = IDENTITY_MAP;

	memset(&a, 0, sizeof(a));
	a.text = (const unsigned char *) text.data();
	a.nbytes = n;
	a.doc_start = starts.data();
	a.ndocs = (int) starts.size();
	a.nchunks = (n + CHUNK - 1) / CHUNK;
	a.attr[0] = 'w';
	a.attr_len = 1;
	a.read_weight = read_weight;
	a.missing_weight = -0.5;

	std::vector<uint64_t> maps(a.nchunks + 1),
				smaps(a.nchunks + 1);
	std::vector<Counts> counts(a.nchunks + 1),
				scounts(a.nchunks + 1);

	a.maps = maps.data();
	a.smaps = smaps.data();
	a.counts = counts.data();
	a.scounts = scounts.data();
	a.flags = &flags;
	blockIdx.x = 0;
	for (size_t c = 0; c <= a.nchunks; c++)
	{
		threadIdx.x = (unsigned) c;
		chunk_maps(a);
	}
	for (size_t c = 0; c <= a.nchunks; c++)
	{
		smaps[c] = acc;
		acc = compose(acc, maps[c]);
	}
	for (size_t c = 0; c <= a.nchunks; c++)
	{
		threadIdx.x = (unsigned) c;
		chunk_walk<false>(a);
	}
	for (size_t c = 0; c <= a.nchunks; c++)
	{
		scounts[c] = tot;
		tot.tok += counts[c].tok;
		tot.open += counts[c].open;
	}
	if (flags || (acc & 15) != 0 || 2 * tot.open != tot.tok)
		return false;

	std::vector<double> tok(tot.tok + 1);
	std::vector<uint32_t> depth(tot.tok + 1),
				rows(tot.tok),
				keys(tot.tok);
	std::vector<uint64_t> name(tot.tok + 1);

	a.tok = tok.data();
	a.depth = depth.data();
	a.name = name.data();
	a.ntok = tot.tok;
	for (size_t c = 0; c < a.nchunks; c++)
	{
		threadIdx.x = (unsigned) c;
		chunk_walk<true>(a);
	}
	for (size_t i = 0; i < tot.tok; i++)
		rows[i] = (uint32_t) i;
	std::stable_sort(rows.begin(), rows.end(),
					 [&](uint32_t x, uint32_t y) { return depth[x] < depth[y]; });
	for (size_t i = 0; i < tot.tok; i++)
		keys[i] = depth[rows[i]];
	blockDim.x = 1;
	threadIdx.x = 0;
	for (size_t i = 0; i < tot.tok; i++)
	{
		blockIdx.x = (unsigned) i;
		check_names(a, keys.data(), rows.data());
	}
	if (flags)
		return false;
	out.assign(tok.begin(), tok.begin() + tot.tok);
	return true;
}

int
main(int argc, char **argv)
{
	int			ndocs = argc > 1 ? atoi(argv[1]) : 3000;
	int			same = 0,
				wrong = 0,
				refused = 0,
				accepted_bad = 0;

	for (int i = 0; i < ndocs; i++)
	{
		DocGen		g;
		std::vector<double> want,
					got;
		bool		rw = rnd_below(4) != 0;

		g.fancy = i % 3 != 0;
		std::string doc = gen_document(g, 1 + rnd_below(i < 100 ? 5 : 400), 1 + (int) rnd_below(12));
		bool		cpu_ok = cpu_tokens(doc, rw, want);
		bool		gpu_ok = gpu_tokens(doc, {0}, rw, got) && balanced(got);

		if (gpu_ok && (!cpu_ok || !same_tokens(want, got)))
		{
			if (++wrong <= 3)
				printf("  differs: %.300s\n", doc.c_str());
		}
		else if (!gpu_ok && cpu_ok && !(g.cpu_only && rw) && !g.doctype)
		{
			if (++refused <= 3)
				printf("  refused: %.300s\n", doc.c_str());
		}
		else if (gpu_ok)
			same++;
	}
	check(wrong == 0, "%d generated documents: %d scanned exactly as xmltok.c, %d differ",
		  ndocs, same, wrong);
	check(refused == 0, "documents without CPU-only features are never refused (%d were)",
		  refused);

	for (int i = 0; i < 2 * ndocs; i++)
	{
		DocGen		g;
		std::vector<double> want,
					got;

		g.fancy = i % 2 == 0;
		std::string doc = gen_document(g, 1 + rnd_below(60), 1 + (int) rnd_below(8));

		for (int m = 0; m < 1 + (int) rnd_below(3); m++)
			mutate(doc);
		bool		cpu_ok = cpu_tokens(doc, true, want);
		bool		gpu_ok = gpu_tokens(doc, {0}, true, got) && balanced(got);

		if (gpu_ok && (!cpu_ok || !same_tokens(want, got)))
		{
			if (++accepted_bad <= 3)
				printf("  accepted: %.300s\n", doc.c_str());
		}
	}
	check(accepted_bad == 0, "%d mutated documents: none accepted that xmltok.c rejects or tokenizes differently",
		  2 * ndocs);

	{
		std::string text;
		std::vector<uint64_t> starts;
		std::vector<double> want,
					got;

		gen_batch(2000, text, starts, want);
		check(gpu_tokens(text, starts, true, got) && same_tokens(want, got),
			  "a batch of 2000 documents scans as their concatenated token arrays");
		check(!gpu_tokens("<a w=\"1\"><b/></a><a w=\"2\"></a>", {0, 9}, true, got),
			  "a batch whose document ends inside an element is refused");
	}

	printf("%d passed, %d failed\n", npassed, nfailed);
	return nfailed == 0 ? 0 : 1;
}
