/*-------------------------------------------------------------------------
 *
 * spillrun.h
 *	  Sorted runs of a GpuSort in PostgreSQL temp files (spillrun.c).
 *
 * A run is the rows of one in-memory sort, in sorted order, each written as
 *
 *	   [key: nwords 64-bit words, native byte order][MinimalTuple: t_len bytes]
 *
 * with the key exactly as the engine sorted it (engine.h): the merge
 * (spillmerge.c) compares keys word by word and needs no re-encoding.  A
 * MinimalTuple starts with its length (t_len), so a reader reads the key
 * and the length, then the rest of the tuple.
 *
 * A run may also be held in memory (gs_run_in_memory): the last rows of a
 * sort, sorted but not written, read through the same calls.
 *
 * Files are BufFiles (BufFileCreateTemp): under temp_tablespaces, counted
 * against temp_file_limit by fd.c (which raises stock's ERROR), and closed
 * and deleted by the resource owner at the end of the transaction or on
 * ERROR, if the node has not closed them itself.  A parallel participant's
 * runs are files of the query's shared file set instead (gs_run_create with
 * a FileSet, sortshared.c), which outlive their writer's BufFile and go
 * with the set when the last backend detaches from it; another backend
 * opens them (gs_run_open) and reads them up to their end, as it does not
 * know their row counts.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUSORT_SPILLRUN_H
#define GPUSORT_SPILLRUN_H

#include "access/htup_details.h"
#include "storage/buffile.h"
#include "storage/fileset.h"

typedef struct GsRun
{
	BufFile    *file;
	int			nwords;			/* key words per row */
	uint64		nrows;			/* rows written */
	uint64		bytes;			/* bytes written */

	/* reading: the current row, valid until gs_run_next or gs_run_rewind */
	uint64		left;			/* rows not read yet */
	uint64		key[4];			/* GS_MAX_KEY_WORDS */
	MinimalTuple tup;			/* buffer of bufsize bytes (the run's cxt) */
	Size		bufsize;
	MemoryContext cxt;
	bool		to_eof;			/* opened by a reader: nrows unknown */

	/* a run in memory: keys and rows in output order, or NULL */
	const uint64 *mem_keys;
	MinimalTuple *mem_tuples;
} GsRun;

/* a new, empty run in a new temp file, in cxt; of fileset, as name, if set */
extern GsRun *gs_run_create(MemoryContext cxt, int nwords, FileSet *fileset,
							const char *name);

/* a run another backend wrote to fileset as name, for reading */
extern GsRun *gs_run_open(MemoryContext cxt, int nwords, FileSet *fileset,
						  const char *name);

/* a run of the n rows tuples[] whose keys are keys[] (nwords each), in memory */
extern GsRun *gs_run_in_memory(MemoryContext cxt, int nwords, const uint64 *keys,
							   MinimalTuple *tuples, uint64 n);

/* appends one row */
extern void gs_run_write(GsRun *run, const uint64 *key, MinimalTuple tup);

/* to the first row for reading (ends writing); false if the run is empty */
extern bool gs_run_rewind(GsRun *run);

/* the next row into run->key and run->tup; false at the end */
extern bool gs_run_next(GsRun *run);

/* closes and deletes the file */
extern void gs_run_close(GsRun *run);

#endif							/* GPUSORT_SPILLRUN_H */
