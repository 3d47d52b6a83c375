/*-------------------------------------------------------------------------
 *
 * losertree.h
 *	  A tournament over k runs' current rows kept as a tree of losers, with
 *	  the order given by a callback: the one tree of spillmerge.c's serial
 *	  merge and spillbatch.c's threads' merge of a key range.
 *
 *	   w = gs_loser_play(tree, k, beats, arg);		every run at its first row
 *	   while (w's row is not past its end)
 *		   use w's row; advance run w;
 *		   w = gs_loser_replay(tree, k, w, beats, arg);
 *
 * Knuth, TAOCP vol. 3, 5.4.1: the k runs are the leaves k .. 2k - 1 of an
 * implicit binary tree, each inner node 1 .. k - 1 of tree[] holds the run
 * that lost the match played there, and the winner, returned, is the run
 * whose current row comes next.  After its row is used, the run moves to
 * its next row and only the matches on its path to the root are played
 * again: one comparison a level, ceil(log2 k) a row, half what a binary
 * heap needs (which compares both children at every level).
 *
 * beats(arg, a, b) says whether run a's current row comes before run b's:
 * a run at its end must lose every match (an infinite row), and ties must
 * go to the lower run number where the merge is to be stable.  Invariant:
 * between calls, every inner node holds the loser of the match between the
 * winners of its two subtrees.
 *
 * Both are inline, in the caller's file.  gs_loser_replay runs once a row
 * and is always inlined: given a beats that is a static function of the
 * caller, the compiler calls it directly (and inlines it) rather than
 * through the pointer, as sort_template.h's specializations would.  Keep
 * tree[] an array of its own, not a member of the struct beats reads:
 * PostgreSQL compiles with -fno-strict-aliasing, so a store to tree[]
 * could be a store to that struct, whose fields would then be loaded
 * again at every level.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_LOSERTREE_H
#define GPUSORT_LOSERTREE_H

/* does run a's current row come before run b's? */
typedef bool (*GsLoserBeats) (void *arg, int a, int b);

/*
 * plays the matches below node; returns their winner, storing the losers
 * (k - 1 matches once a merge or a range: not inlined, unrolled recursion
 * being code a merge does not need)
 */
static pg_noinline int
gs_loser_play_below(int *tree, int k, int node, GsLoserBeats beats, void *arg)
{
	int			l,
				r;

	if (node >= k)
		return node - k;
	l = gs_loser_play_below(tree, k, 2 * node, beats, arg);
	r = gs_loser_play_below(tree, k, 2 * node + 1, beats, arg);
	if (beats(arg, l, r))
	{
		tree[node] = r;
		return l;
	}
	tree[node] = l;
	return r;
}

/*
 * Plays the tournament over runs 0 .. k - 1 (k >= 1), storing the losers
 * in tree[1 .. k - 1]; returns the winner
 */
static inline int
gs_loser_play(int *tree, int k, GsLoserBeats beats, void *arg)
{
	Assert(k >= 1);
	return gs_loser_play_below(tree, k, 1, beats, arg);
}

/*
 * Replays the matches on run w's path to the root, w having moved to its
 * next row (or its end); returns the new winner
 */
static pg_attribute_always_inline int
gs_loser_replay(int *tree, int k, int w, GsLoserBeats beats, void *arg)
{
	int			p;

	/* from its leaf's parent up */
	for (p = (k + w) / 2; p > 0; p /= 2)
	{
		if (beats(arg, tree[p], w))
		{
			int			t = tree[p];

			tree[p] = w;
			w = t;
		}
	}
	return w;
}

/* compares two keys of nwords words as the engines do (engine.h) */
static inline int
gs_key_cmp(const uint64 *a, const uint64 *b, int nwords)
{
	int			w;

	for (w = 0; w < nwords; w++)
	{
		if (a[w] != b[w])
			return a[w] < b[w] ? -1 : 1;
	}
	return 0;
}

#endif							/* GPUSORT_LOSERTREE_H */
