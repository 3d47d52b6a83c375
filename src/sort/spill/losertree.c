/*-------------------------------------------------------------------------
 *
 * losertree.c
 *	  The first tournament of a tree of losers (losertree.h): k - 1
 *	  matches, once a merge or a key range, so the callback is called
 *	  through its pointer here; the replay of every row is inline in the
 *	  header.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "losertree.h"

/* plays the matches below node; returns their winner, storing the losers */
static int
play(int *tree, int k, int node, GsLoserBeats beats, void *arg)
{
	int			l,
				r;

	if (node >= k)
		return node - k;
	l = play(tree, k, 2 * node, beats, arg);
	r = play(tree, k, 2 * node + 1, beats, arg);
	if (beats(arg, l, r))
	{
		tree[node] = r;
		return l;
	}
	tree[node] = l;
	return r;
}

int
gs_loser_play(int *tree, int k, GsLoserBeats beats, void *arg)
{
	Assert(k >= 1);
	return play(tree, k, 1, beats, arg);
}
